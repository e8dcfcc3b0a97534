"""
A generator of hostile evidence: broken or malicious bundles and single receipt files (issue 14).

`build(root)` writes every case under `root` and returns the `Case` list;
`tests/end_to_end/test_hostile_corpus.py` verifies them all in one process. Families (the
`family` field) follow the issue: path traversal, links, special files,
unreadable files, Unicode twins, encodings, surrogates, duplicate keys,
numbers, nesting, huge strings, large files, wrong types, JSON Lines damage,
gate ids, MP4 headers, pickled weights, control/bidi characters, and foreign
receipts (vLLM, serving record, HTTP matrix, telemetry) with the same damage.

`expect` is `not-pass` unless a case is legitimately fine (`pass`, with the
reason in `why`), or may end as a usage error (`usage`: exit 2 naming the
problem, e.g. a file no reader recognises). The `unreadable` family is
verified under `deny_unreadable`, so root (CI) and a normal user judge a
mode-000 file alike. Nothing here is evidence of ours: the
corpus seeds are read in place from the test fixtures and `../shared`.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bundlekit import rehash
from helpers import write_bundle

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures"
VLLM = FIX / "vllm" / "abcd-bucket-peak.json"
SERVING = ROOT.parent / "shared" / "seeds" / "serving-performance-record.json"
MATRIX = FIX / "matrix" / "good"
TELEMETRY = FIX / "telemetry" / "good"
EXAMPLE = ROOT / "examples" / "ref2va-5s"
#: Written by the pickle payload if anything ever unpickles it.
PICKLE_MARKER = "PICKLE-WAS-LOADED"


@dataclass(frozen=True)
class Case:
    """Represents one hostile input: `name`, `family`, the `path` to verify, `expect` and, for `pass`/`any`, `why`."""

    name: str
    family: str
    path: Path
    expect: str = "not-pass"
    why: str = ""


class _Payload:
    """A pickle whose loading writes `PICKLE_MARKER` next to the corpus (it must never run)."""

    def __init__(self, target: str) -> None:
        self.target = target

    def __reduce__(self) -> tuple[Any, ...]:
        return (open, (self.target, "w"))


def _denied(path: Any, want: int) -> bool:
    """Would a non-root owner be refused `path`: `want` (S_IRUSR or S_IWUSR) missing on it, or search on a parent?"""
    if isinstance(path, int):
        return False
    full = Path(os.path.abspath(os.fspath(path)))
    try:
        if any(not os.stat(parent).st_mode & stat.S_IXUSR for parent in full.parents):
            return True
        return not os.stat(full).st_mode & want
    except OSError:
        return False  # a missing path: let the real call say so


def deny_unreadable(monkeypatch: Any) -> None:
    """
    Make root meet the permission checks a normal user meets, so the suite judges mode-000 files alike under both.

    Root reads through mode 000 (the kernel skips the checks for it), and CI
    may run as root. Here `os.open`, `os.scandir`, `os.listdir`, `open`
    and `io.open` raise `PermissionError` (errno 13) as the kernel would for
    the file's owner: reading needs the owner's read bit (a directory's to
    list it), and every parent directory the owner's search bit. A no-op
    when not root: the kernel already does it.
    """
    if os.geteuid() != 0:
        return
    import builtins
    import io

    def guard(real: Callable[..., Any], want: Callable[..., int]) -> Callable[..., Any]:
        def call(path: Any = ".", *args: Any, **kwargs: Any) -> Any:
            if _denied(path, want(*args, **kwargs)):
                raise PermissionError(13, "Permission denied", os.fspath(path))
            return real(path, *args, **kwargs)
        return call

    def by_flags(flags: int = os.O_RDONLY, *_: Any, **__: Any) -> int:
        return stat.S_IRUSR if flags & os.O_ACCMODE == os.O_RDONLY else stat.S_IWUSR

    def by_mode(mode: str = "r", *_: Any, **__: Any) -> int:
        return stat.S_IRUSR if set(mode) <= set("rbt") else stat.S_IWUSR

    monkeypatch.setattr(os, "open", guard(os.open, by_flags))
    monkeypatch.setattr(os, "scandir", guard(os.scandir, lambda *_, **__: stat.S_IRUSR))
    monkeypatch.setattr(os, "listdir", guard(os.listdir, lambda *_, **__: stat.S_IRUSR))
    monkeypatch.setattr(builtins, "open", guard(builtins.open, by_mode))
    monkeypatch.setattr(io, "open", guard(io.open, by_mode))


def _json(value: Any) -> str:
    return json.dumps(value, indent=1)


def _tiny(root: Path, name: str, edit: Callable[[Path], None] | None = None, *, rehashed: bool = True) -> Path:
    """Write the PASSing `tiny-v1` bundle at `root/name`, apply `edit`, re-list the manifest when `rehashed`."""
    bundle = write_bundle(root / name)
    if edit is not None:
        edit(bundle)
    if rehashed:
        rehash(bundle)
    return bundle


def _manifest(bundle: Path, change: Callable[[dict[str, Any]], None]) -> None:
    doc = json.loads((bundle / "manifest.json").read_text())
    change(doc)
    (bundle / "manifest.json").write_text(_json(doc))


def _entry(path: str) -> dict[str, Any]:
    return {"path": path, "sha256": "0" * 64, "size": 1}


def _sub(name: str, old: str, new: str) -> Callable[[Path], None]:
    def edit(bundle: Path) -> None:
        text = (bundle / name).read_text()
        assert old in text, (name, old)
        (bundle / name).write_text(text.replace(old, new, 1))
    return edit


def _raw(name: str, data: bytes) -> Callable[[Path], None]:
    def edit(bundle: Path) -> None:
        (bundle / name).write_bytes(data)
    return edit


#: The `unreadable` cases: the entry of each bundle set to mode 000 once everything is written.
MODE_000 = {"unreadable-file": "claims.json", "unreadable-manifest": "manifest.json", "unreadable-dir": "d"}

DOCS = ("plan.json", "claims.json", "receipts.jsonl")
WRONG = ([], {}, "x", -1, None, True, 0.5)


def _bundle_cases(root: Path) -> list[Case]:
    cases: list[Case] = []

    def add(name: str, family: str, edit: Callable[[Path], None] | None = None, *, rehashed: bool = True,
            expect: str = "not-pass", why: str = "") -> None:
        cases.append(Case(name, family, _tiny(root, name, edit, rehashed=rehashed), expect, why))

    def manifest_case(name: str, family: str, change: Callable[[dict[str, Any]], None], **kw: Any) -> None:
        add(name, family, lambda b: _manifest(b, change), rehashed=False, **kw)

    # path traversal in manifest paths
    for i, bad in enumerate(["../outside.json", "/etc/passwd", "~/x.json", "C:x.json", "C:\\x.json", "\\\\?\\C:\\x",
                             "a/\x00b", "a/../../b", "./plan.json", "a//b", "x" * 5000, "/".join(["d"] * 600)]):
        manifest_case(f"traversal-{i}", "path-traversal", lambda d, bad=bad: d["files"].append(_entry(bad)))
    manifest_case("traversal-external", "path-traversal", lambda d: d["external"].append(
        {**_entry("../../secret"), "source": "x", "reason": "y"}))
    # links
    add("symlink-inside", "links", lambda b: os.symlink("plan.json", b / "alias.json"))
    add("symlink-outside", "links", lambda b: os.symlink("/etc/hostname", b / "host.txt"))
    add("symlink-dangling", "links", lambda b: os.symlink("nowhere", b / "gone.txt"))
    add("symlink-loop", "links", lambda b: (os.symlink("loop2", b / "loop1"), os.symlink("loop1", b / "loop2")))
    add("symlink-dir-escape", "links", lambda b: os.symlink("/", b / "rootdir"))

    def replace_by_symlink(b: Path) -> None:
        (b / "claims.json").rename(b / "real-claims.txt")
        os.symlink("real-claims.txt", b / "claims.json")
    add("symlink-document", "links", replace_by_symlink)
    outside = root / "outside-file.txt"
    outside.write_text("outside")
    add("hardlink-outside", "links", lambda b: os.link(outside, b / "hard.txt"),
        expect="pass", why="a hard link is a regular file whose bytes are listed and hashed; its other name is not evidence")
    # special files
    add("fifo", "special-files", lambda b: os.mkfifo(b / "pipe"))
    add("fifo-as-document", "special-files", lambda b: ((b / "claims.json").unlink(), os.mkfifo(b / "claims.json")))
    add("socket-like-dir-entry", "special-files", lambda b: (b / "sub").mkdir() or os.mkfifo(b / "sub" / "p"))
    # unreadable files and directories (verified under `deny_unreadable`, so root meets a normal user's checks)
    add("unreadable-file", "unreadable")
    add("unreadable-manifest", "unreadable")
    add("unreadable-dir", "unreadable", lambda b: ((b / "d").mkdir(), (b / "d" / "x").write_text("x")))
    # Unicode twins
    add("nfc-nfd-twins", "unicode-twins", lambda b: ((b / "caf\u00e9.txt").write_text("a"), (b / "cafe\u0301.txt").write_text("b")))
    add("casefold-twins", "unicode-twins", lambda b: ((b / "Data.txt").write_text("a"), (b / "data.txt").write_text("b")))
    manifest_case("manifest-nfd-entry-twice", "unicode-twins",
                  lambda d: d["files"].extend([_entry("x\u00e9"), _entry("xe\u0301")]))
    manifest_case("manifest-lists-itself", "unicode-twins", lambda d: d["files"].append(_entry("manifest.json")))
    # encodings: BOM, non-UTF-8, CRLF
    for doc in DOCS:
        add(f"bom-{doc}", "encoding", lambda b, doc=doc: (b / doc).write_bytes(b"\xef\xbb\xbf" + (b / doc).read_bytes()))
        add(f"latin1-{doc}", "encoding", lambda b, doc=doc: (b / doc).write_bytes((b / doc).read_bytes()[:-3] + b"\xe9\xff\n"))
        add(f"utf16-{doc}", "encoding", lambda b, doc=doc: (b / doc).write_bytes((b / doc).read_text().encode("utf-16")))
    add("crlf-receipts", "jsonl", lambda b: (b / "receipts.jsonl").write_bytes((b / "receipts.jsonl").read_bytes().replace(b"\n", b"\r\n")),
        expect="pass", why="JSON allows CR as insignificant whitespace at the end of each line (RFC 8259 section 2)")
    add("bom-manifest", "encoding", lambda b: (b / "manifest.json").write_bytes(b"\xef\xbb\xbf" + (b / "manifest.json").read_bytes()),
        rehashed=False)
    add("latin1-manifest", "encoding", _raw("manifest.json", b'{"format": "verify-bundle", "gate": "caf\xe9"}'), rehashed=False)
    # lone surrogates
    for doc, old in (("plan.json", '"campaign": "tiny"'), ("claims.json", '"id": "count.requests"'),
                     ("receipts.jsonl", '"error": null')):
        new = old.split(":")[0] + ': "\\ud800"'
        add(f"surrogate-{doc}", "surrogates", _sub(doc, old, new))
        add(f"surrogate-key-{doc}", "surrogates", _sub(doc, old, '"\\udfff": 1, ' + old))
    manifest_case("surrogate-manifest-path", "surrogates", lambda d: d["files"].append(_entry("a\ud800")))
    # duplicate keys at every level
    for doc, old in (("plan.json", '"campaign": "tiny"'), ("plan.json", '"label": "A"'), ("plan.json", '"frames": 24'),
                     ("claims.json", '"format_version": 1'), ("claims.json", '"value": 2'),
                     ("receipts.jsonl", '"outcome": "ok"')):
        add(f"dupkey-{doc}-{old.split(':')[0].strip(chr(34))}", "duplicate-keys", _sub(doc, old, old + ", " + old))
    add("dupkey-manifest", "duplicate-keys", _sub("manifest.json", '"format_version": 1', '"format_version": 1, "format_version": 1'),
        rehashed=False)
    # numbers: NaN, Infinity, -0, huge exponents, huge integers, tiny
    for i, number in enumerate(["NaN", "Infinity", "-Infinity", "1e99999999999999999999", "1e400", "-1e309", "1e-400",
                                "9" * 400, "-0", "0.1e1", "1" + "0" * 300, "123456789012345678901234567890.123456789"]):
        add(f"number-claim-{i}", "numbers", _sub("claims.json", '"value": 2', f'"value": {number}'))
        add(f"number-elapsed-{i}", "numbers", _sub("receipts.jsonl", '"elapsed_s": 10.0', f'"elapsed_s": {number}'))
    add("number-manifest-size", "numbers", _sub("manifest.json", '"size": ', '"size": 1e99999999999999999999, "x": '), rehashed=False)
    # deep nesting
    for depth in (65, 900, 100_000):
        add(f"deep-claims-{depth}", "nesting", _sub("claims.json", '"value": 2', '"value": 2, "text": ' + "[" * depth + "]" * depth))
        add(f"deep-receipt-{depth}", "nesting", _sub("receipts.jsonl", '"error": null', '"error": ' + "[" * depth + "]" * depth))
    add("deep-manifest", "nesting", _raw("manifest.json", b'{"format": "verify-bundle", "x": ' + b"[" * 5000 + b"]" * 5000 + b"}"),
        rehashed=False)
    # huge strings
    add("huge-headline", "huge-strings", _sub("claims.json", '"format_version": 1', '"format_version": 1, "headline": "' + "x" * 2_000_000 + '"'),
        expect="any", why="a 2 MB headline without a number is a valid string; claims.stated decides what a headline stating nothing means")
    add("huge-claim-id", "huge-strings", _sub("claims.json", '"count.requests"', '"' + "c" * 1_000_000 + '"'))
    add("huge-file-name", "huge-strings", lambda b: (b / ("n" * 255)).write_text("x"),
        expect="pass", why="a 255-byte name is a legal file name, listed and hashed like any other")
    # large manifests and receipt files
    manifest_case("large-manifest", "large", lambda d: d["files"].extend(_entry(f"missing/{i:06d}") for i in range(5_000)))

    def many_receipts(kind: str) -> Callable[[Path], None]:
        def edit(b: Path) -> None:
            lines = (b / "receipts.jsonl").read_text().splitlines()
            first = json.loads(lines[0])
            extra = [{**first, "request_id": f"x{i}"} for i in range(5_000)] if kind == "request" else (
                [{"kind": "worker", "worker_id": f"w{i}", "arm": "baseline", "server": "s1", "pid": 1 + i,
                  "started_at": "2026-01-01T00:00:00Z", "ended_at": "2026-01-01T00:00:01Z", "exit_code": 0} for i in range(5_000)])
            (b / "receipts.jsonl").write_text("\n".join(lines) + "\n" + "".join(json.dumps(x) + "\n" for x in extra))
        return edit
    add("large-receipts-unplanned", "large", many_receipts("request"))
    add("large-receipts-workers", "large", many_receipts("worker"), expect="pass",
        why="5000 worker receipts that all exited 0 are consistent evidence (the gate counts no workers); the case bounds time")
    # wrong types everywhere
    for doc, keys in (("plan.json", ["arms", "servers", "arm_order", "warmups_per_server", "requests", "expected_output"]),
                      ("claims.json", ["claims", "format", "format_version"])):
        for j, key in enumerate(keys):
            value = WRONG[j % len(WRONG)]
            add(f"type-{doc}-{key}", "wrong-types",
                lambda b, doc=doc, key=key, value=value: (b / doc).write_text(_json({**json.loads((b / doc).read_text()), key: value})))
    for j, key in enumerate(["kind", "request_id", "server", "phase", "started_at", "elapsed_s", "outcome", "outputs"]):
        def receipt(b: Path, key: str = key, value: Any = WRONG[j % len(WRONG)] if key != "outputs" else "x") -> None:
            lines = [json.loads(x) for x in (b / "receipts.jsonl").read_text().splitlines()]
            lines[0][key] = value
            (b / "receipts.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
        add(f"type-receipt-{key}", "wrong-types", receipt)
    for j, key in enumerate(["files", "external", "gate", "format_version"]):
        manifest_case(f"type-manifest-{key}", "wrong-types", lambda d, key=key, j=j: d.__setitem__(key, WRONG[j]))
    for k, top in enumerate(([], "x", 1, None)):
        add(f"type-claims-top-{k}", "wrong-types", _raw("claims.json", json.dumps(top).encode()))
    # JSON Lines damage
    add("jsonl-truncated", "jsonl", lambda b: (b / "receipts.jsonl").write_bytes((b / "receipts.jsonl").read_bytes()[:-20]))
    add("jsonl-blank-line", "jsonl", lambda b: (b / "receipts.jsonl").write_bytes(b"\n" + (b / "receipts.jsonl").read_bytes()))
    add("jsonl-empty", "jsonl", _raw("receipts.jsonl", b""))
    add("jsonl-two-docs-one-line", "jsonl", lambda b: (b / "receipts.jsonl").write_bytes((b / "receipts.jsonl").read_bytes().replace(b"\n", b" ", 1)))
    # gate ids
    for i, gate in enumerate(["no-such-gate", "../../etc/passwd", "gates/tiny-v1", "tiny-v1.json", "", "tiny-v1\x00", "TINY-V1", "tiny-v1/.."]):
        manifest_case(f"gate-{i}", "gate-ids", lambda d, gate=gate: d.__setitem__("gate", gate))
    add("gate-brought-by-bundle", "gate-ids", lambda b: (b / "gate.json").write_text((ROOT / "gates" / "ref2va-5s-v1.json").read_text()))
    # pickled weights
    marker = str(root / PICKLE_MARKER)
    add("pickle-in-bundle", "pickle", lambda b: (b / "alex.pth").write_bytes(pickle.dumps(_Payload(marker))),
        expect="pass", why="an extra listed file is only hashed: verify never unpickles bundle files (the gate asks for no scores)")
    add("pickle-unlisted", "pickle", lambda b: (b / "weights.pt").write_bytes(pickle.dumps(_Payload(marker))), rehashed=False)
    # control and bidi characters in printed fields
    for i, text in enumerate(["\x1b[31mred", "line\nforged: PASS", "\u202eevil", "\u2066iso\u2069", "\r\x00", "\x85\u2028"]):
        esc = json.dumps(text)[1:-1]
        add(f"ctrl-claim-id-{i}", "control-bidi", _sub("claims.json", '"count.requests"', f'"count.requests{esc}"'))
        add(f"ctrl-file-name-{i}", "control-bidi", lambda b, text=text: (b / f"n{text.replace(chr(0), '0')}.txt").write_text("x"))
    add("ctrl-headline", "control-bidi", _sub("claims.json", '"format_version": 1', '"format_version": 1, "headline": "\\u001b]0;pwned\\u0007 \\u202e"'),
        expect="pass", why="the headline is free text that is never printed raw; the bundle is otherwise intact")
    add("ctrl-receipt-error", "control-bidi", _sub("receipts.jsonl", '"error": null', '"error": "\\u001b[2J\\u202e"'))
    return cases


def _media_cases(root: Path) -> list[Case]:
    cases = []
    bodies = {
        "empty": b"",
        "truncated": (EXAMPLE / "media" / "A1-m1.mp4").read_bytes()[:4000],
        "random": bytes(range(256)) * 40,
        "absurd-box": b"\x00\x00\x00\x20ftypisom\x00\x00\x02\x00isomiso2avc1mp41" + b"\xff\xff\xff\xffmoov" + b"\x00" * 64,
        "box-size-zero-loop": b"\x00\x00\x00\x00free" * 1000,
        "stsz-absurd": b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom" + b"\x00\x00\x00\x30moov\x00\x00\x00\x28trak\x00\x00\x00\x20stsz"
                       + b"\x00" * 8 + b"\x7f\xff\xff\xff" + b"\x00" * 8,
    }
    for name, body in bodies.items():
        bundle = root / f"mp4-{name}"
        shutil.copytree(EXAMPLE, bundle)
        for media in sorted((bundle / "media").iterdir()):
            media.write_bytes(body)
        rehash(bundle)
        cases.append(Case(f"mp4-{name}", "mp4", bundle))
    return cases


def _vllm_cases(root: Path) -> list[Case]:
    cases = []
    base = json.loads(VLLM.read_text())
    text = VLLM.read_text()

    def add(name: str, content: str | bytes, expect: str = "not-pass", why: str = "") -> None:
        path = root / f"{name}.json"
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        cases.append(Case(name, "foreign-vllm", path, expect, why))

    for i, key in enumerate(["num_prompts", "duration", "completed", "failed", "errors", "latencies", "start_times", "ttfts",
                             "itls", "input_lens", "output_lens", "mean_ttft_ms", "p99_itl_ms", "max_concurrent_requests",
                             "max_concurrency", "backend"]):
        add(f"vllm-type-{key}", _json({**base, key: WRONG[i % len(WRONG)]}))
    for key in ("latencies", "start_times", "ttfts", "itls", "errors", "output_lens"):
        add(f"vllm-short-{key}", _json({**base, key: base[key][:1]}))
        add(f"vllm-bad-item-{key}", _json({**base, key: [{"x": 1}] + base[key][1:]}))
    add("vllm-latency-2^64", text.replace('"latencies": [\n  0.75', '"latencies": [\n  18446744073709551617', 1))
    add("vllm-negative-latency", _json({**base, "latencies": [-5.0] + base["latencies"][1:]}))
    add("vllm-nan", text.replace('"duration": ', '"duration": NaN, "x": ', 1))
    add("vllm-exponent", text.replace('"duration": ', '"duration": 1e99999999999999999999, "x": ', 1))
    add("vllm-surrogate", text.replace('"backend": "openai-chat"', '"backend": "\\ud800"', 1))
    add("vllm-dupkey", text.replace('"backend": "openai-chat"', '"backend": "openai-chat", "backend": "x"', 1))
    add("vllm-deep", text.replace('"label": null', '"label": ' + "[" * 2000 + "]" * 2000, 1))
    add("vllm-int-std", _json({**base, "std_ttft_ms": 0}))
    add("vllm-zero-duration", _json({**base, "duration": 0}))
    add("vllm-empty-object", "{}", expect="usage", why="no reader recognises an empty object: exit 2 naming the file")
    add("vllm-truncated", text[: len(text) // 2], expect="usage",
        why="half a JSON document is not JSON: no reader can recognise its producer, exit 2 naming the file")
    add("vllm-bom", b"\xef\xbb\xbf" + text.encode())
    add("vllm-latin1", text.replace('"openai-chat"', '"caf\u00e9"', 1).encode("latin-1"), expect="usage",
        why="not UTF-8, so not JSON: no reader can recognise its producer, exit 2 naming the file")
    add("vllm-ctrl-label", _json({**base, "label": "\x1b[31m\u202e", "mean_ttft_ms": 1.0}))
    return cases


def _serving_cases(root: Path) -> list[Case]:
    cases = []
    base = json.loads(SERVING.read_text())

    def add(name: str, doc: Any) -> None:
        path = root / f"{name}.json"
        path.write_text(doc if isinstance(doc, str) else _json(doc))
        cases.append(Case(name, "foreign-serving", path))

    for i, key in enumerate(sorted(k for k in base if k != "suite_version")[:10]):
        add(f"serving-type-{key}", {**base, key: WRONG[i % len(WRONG)]})
    add("serving-nan", SERVING.read_text().replace('"suite_version"', '"x": NaN, "suite_version"', 1))
    add("serving-exponent", SERVING.read_text().replace('"suite_version"', '"x": 1e400, "suite_version"', 1))
    add("serving-surrogate", SERVING.read_text().replace('"suite_version"', '"x": "\\udc00", "suite_version"', 1))
    return cases


def _directory_cases(root: Path) -> list[Case]:
    cases = []
    for source, family, names in ((MATRIX, "foreign-matrix", ("plan.json", "summary.json", "responses.jsonl", "config.json")),
                                  (TELEMETRY, "foreign-telemetry", ("telemetry-receipt.json",))):
        for name in names:
            for damage, change in (("nan", lambda t: t.replace(": ", ": NaN, \"zz\": ", 1)),
                                   ("exponent", lambda t: t.replace(": ", ": 1e99999999999999999999, \"zz\": ", 1)),
                                   ("surrogate", lambda t: t.replace(": ", ": \"\\ud800\", \"zz\": ", 1)),
                                   ("truncated", lambda t: t[: len(t) // 2]),
                                   ("types", lambda t: "[]" if not t.lstrip().startswith("{") or "\n{" in t.strip() else
                                    _json({k: WRONG[i % len(WRONG)] for i, k in enumerate(json.loads(t))}))):
                target = root / f"{family}-{name}-{damage}"
                shutil.copytree(source, target)
                (target / name).write_text(change((target / name).read_text()))
                cases.append(Case(target.name, family, target, "not-pass"))
    return cases


def build(root: Path) -> list[Case]:
    """Write every hostile case under `root` (a fresh directory) and return them."""
    root.mkdir(parents=True, exist_ok=True)
    cases = _bundle_cases(root / "bundles") + _media_cases(root / "media")
    for sub, make in (("vllm", _vllm_cases), ("serving", _serving_cases), ("dirs", _directory_cases)):
        (root / sub).mkdir()
        cases += make(root / sub)
    for case in cases:  # chmod last: the builders above (and the re-listing of the manifest) must still read them
        if case.name in MODE_000:
            (case.path / MODE_000[case.name]).chmod(0)
    return cases


def snapshot(path: Path) -> dict[str, Any]:
    """Return every entry under `path` (not following links): kind, mode and bytes or link target; the file itself for a file."""
    out: dict[str, Any] = {}
    todo = [path]
    while todo:
        current = todo.pop()
        st = current.lstat()
        rel = current.relative_to(path.parent).as_posix()
        if stat.S_ISLNK(st.st_mode):
            out[rel] = ("link", os.readlink(current))
        elif stat.S_ISDIR(st.st_mode):
            out[rel] = ("dir", st.st_mode)
            try:
                todo.extend(current.iterdir())
            except PermissionError:
                pass
        elif stat.S_ISREG(st.st_mode):
            try:
                out[rel] = ("file", st.st_mode, current.read_bytes())
            except PermissionError:
                out[rel] = ("file", st.st_mode, st.st_size, st.st_mtime_ns)
        else:
            out[rel] = ("other", st.st_mode)
    return out
