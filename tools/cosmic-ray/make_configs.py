"""
Write one cosmic-ray session config per module that judges (docs/testing.md, "Mutation testing").

Usage: `python tools/cosmic-ray/make_configs.py` from the repository root; rewrites `tools/cosmic-ray/NAME.toml`
for every module of `MODULES` whose config does not exist yet (a hand-tuned config is kept; delete it to regenerate).

The test command of a module runs, with `-x`, its kill tests (`tests/test_mutation_kills_NAME.py`) first, then the
test files named after it (`tests/test_NAME*.py`), then up to `MAX_FILES` other test files that import it (by
`verifier.X` / `from verifier.P import X`), smallest first: cosmic-ray has no per-mutant test selection and starts one
interpreter per mutant, so the selection is what keeps a session within minutes on two shared cores.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "verifier" / "checks").glob("*.py") if p.name != "__init__.py") + [
    f"verifier/{m}.py" for m in ("stats", "estimators", "derive", "units", "binding", "wording", "subjects", "trustroot", "readers/claimtext",
                                 "readers/grammars", "textnumbers")]
MAX_FILES = 6
#: Test files of modules no test file names or imports directly (reached through another module).
EXTRA = {
    "estimators": ["tests/engine/test_mutation_kills_stats.py", "tests/engine/test_stats_engine.py", "tests/engine/test_statistics_vocabulary.py"],
    "subjects": ["tests/prose/test_claim_subjects.py", "tests/prose/test_claims_text.py", "tests/prose/test_claim_phrasings.py"],
    "statements": ["tests/checks/test_mutation_kills_profile_statements.py", "tests/profiles/test_profile_claims_text.py", "tests/prose/test_score_sentences.py", "tests/checks/test_claims_stated.py"],  # the profile road's claims.stated (profile_candidates)
    "derive": ["tests/checks/test_mutation_kills_derivation.py"],  # derive.judge, the one body of derivation.claims (was checks/derivation.py)
    "gate": ["tests/readers/test_foreign_layout.py", "tests/checks/test_mutation_kills_profile.py"],  # gate.pinned (checks/gate.py `pinned`) is one body for every road
    "wording": ["tests/prose/test_mutation_kills_binding.py", "tests/prose/test_score_sentences.py", "tests/prose/test_binding_counts.py", "tests/prose/test_binding_arrow_statistic.py",
                "tests/prose/test_claim_phrasings.py", "tests/prose/test_claims_text.py", "tests/prose/test_claim_subjects.py"],
    "textnumbers": ["tests/readers/test_grammars.py", "tests/readers/test_site_shortcuts.py", "tests/readers/test_claimdocs_read.py"],
    "profile_gate": ["tests/checks/test_mutation_kills_profile_claims.py", "tests/profiles/test_profiles_recorded.py", "tests/profiles/test_profiles_authoring.py"],
    "profile_unreached": ["tests/checks/test_mutation_kills_profile_claims.py", "tests/profiles/test_profile_claims_text.py", "tests/profiles/test_profiles_recorded.py"],
}
HEADER = """\
# cosmic-ray session for {module} (docs/testing.md, "Mutation testing"); run: tools/cosmic-ray/run.sh {name}
[cosmic-ray]
module-path = "{module}"
timeout = 120.0
excluded-modules = []
test-command = "python -m pytest -x -q -p no:cacheprovider {tests}"

[cosmic-ray.distributor]
name = "local"

[cosmic-ray.filters.operators-filter]
# one alternative per operator, as mutmut's operator set (docs/testing.md): + <-> -, * <-> /, == <-> !=,
# < <-> <=, > <-> >=, is <-> is not, in <-> not in; the other replacements of each operator are skipped
exclude-operators = [
    "core/ReplaceBinaryOperator_.*_(FloorDiv|Mod|Pow|RShift|LShift|BitOr|BitAnd|BitXor)$",
    "core/ReplaceBinaryOperator_(FloorDiv|Mod|Pow|RShift|LShift|BitOr|BitAnd|BitXor)_.*",
    "core/ReplaceBinaryOperator_(Add_(Mul|Div)|Sub_(Mul|Div)|Mul_(Add|Sub)|Div_(Add|Sub))$",
    "core/ReplaceComparisonOperator_Eq_(?!NotEq$).*",
    "core/ReplaceComparisonOperator_NotEq_(?!Eq$).*",
    "core/ReplaceComparisonOperator_Lt_(?!LtE$).*",
    "core/ReplaceComparisonOperator_LtE_(?!Lt$).*",
    "core/ReplaceComparisonOperator_Gt_(?!GtE$).*",
    "core/ReplaceComparisonOperator_GtE_(?!Gt$).*",
    "core/ReplaceComparisonOperator_Is_(?!IsNot$).*",
    "core/ReplaceComparisonOperator_IsNot_(?!Is$).*",
    "core/ReplaceComparisonOperator_In_(?!NotIn$).*",
    "core/ReplaceComparisonOperator_NotIn_(?!In$).*",
    "core/ReplaceUnaryOperator_(USub_(Not|Invert)|UAdd_.*|Invert_.*)$",
]
"""


def name_of(module: str) -> str:
    """Return the config name of `module`: `verifier/checks/gate.py` -> `checks_gate`, `verifier/model/units.py` -> `units`."""
    return module.removeprefix("verifier/").removesuffix(".py").replace("/", "_")


def tests_for(module: str) -> list[str]:
    """Return the test files of `module`, in the order described in the module docstring."""
    stem = Path(module).stem
    dotted = module.removesuffix(".py").replace("/", ".")
    package, _, leaf = dotted.rpartition(".")
    kills = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob(f"test_mutation_kills_{stem}.py"))
    named = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob(f"test_{stem}*.py") if "mutation_kills" not in p.name)[:MAX_FILES]
    imports = re.compile(rf"\b{re.escape(dotted)}\b|from {re.escape(package)} import [^\n]*\b{leaf}\b")
    others = sorted((p for p in (ROOT / "tests").rglob("test_*.py")
                     if str(p.relative_to(ROOT)) not in kills + named and imports.search(p.read_text())), key=lambda p: p.stat().st_size)
    chosen = kills + named + [t for t in EXTRA.get(stem, []) if t not in kills + named]
    return chosen + [str(p.relative_to(ROOT)) for p in others if str(p.relative_to(ROOT)) not in chosen][:MAX_FILES]


def main() -> None:
    """Write the missing configs and print each module's test files."""
    for module in MODULES:
        path = ROOT / "tools" / "cosmic-ray" / f"{name_of(module)}.toml"
        tests = tests_for(module)
        if not path.exists():
            path.write_text(HEADER.format(module=module, name=name_of(module), tests=" ".join(tests)))
        print(f"{module}: {' '.join(tests) or 'NO TESTS'}")


if __name__ == "__main__":
    main()
