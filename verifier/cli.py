"""
The `verify` command line: parse, run the core, render, exit.

No verification logic lives here. Exit codes: 0 PASS, 1 FAIL, 2 usage or
configuration error, 3 INCOMPLETE, 4 ERROR (see `docs/exit-codes.md`).
Commands: `check` (the default: `verify PATH`), `inventory`, `manifest`
(writes only `manifest.json`), `changed`; the trust-root commands `init`,
`pin` and `gate new` write only the repository's trust root
(`verifier.commands.trustroot_cmds`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from verifier import __version__
from verifier.errors import VerifierError
from verifier.model.findings import ExitCode, Report
from verifier.report import REPORTERS, render

#: Set by `verifier.fastpath.main` before it runs this command line: called as
#: `report_keeper(report, fmt, verbose)` after a check run with the cache on, so
#: that an unchanged re-run can replay the report (`verifier.fastpath.keep_report`).
#: None when the command line runs without the fast path (tests, `python -m`).
report_keeper: Callable[[Report, str, bool], None] | None = None


def _fail_usage(message: str) -> None:
    from verifier.report._common import visible

    click.echo(f"verify: error: {visible(message)}", err=True)  # a path from argv may hold control chars or non-UTF-8 bytes
    sys.exit(int(ExitCode.USAGE))


def special_kind(path: str) -> str | None:
    """
    Return what special file `path` is (`FIFO (named pipe)`, `character device`, `block device`, `socket`), or None (a file, a directory, absent).

    `os.stat` only, never `open`: opening a FIFO for reading blocks until a
    writer comes. Follows symlinks, as reading the path would.
    """
    import stat

    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    for test, kind in ((stat.S_ISFIFO, "FIFO (named pipe)"), (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
                       (stat.S_ISSOCK, "socket")):
        if test(mode):
            return kind
    return None


class _Input(click.Path):
    """A path argument `verify` reads: a FIFO, device or socket is refused with one line (exit 2) before anything opens it."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """Return click.Path's conversion of `value`; exit 2 naming the argument when it is a special file (`special_kind`)."""
        kind = special_kind(os.fsdecode(value)) if isinstance(value, str | bytes) else None
        if kind is not None:
            where = f"{param.opts[0]} " if param is not None and param.opts and param.opts[0].startswith("-") else ""
            _fail_usage(f"{where}{os.fsdecode(value)}: is a {kind}, not a file or directory; special files are never opened")
        return super().convert(value, param, ctx)


class _Once(click.Option):
    """
    Represents an option that takes one value and may be given at most once.

    click keeps the last of repeated occurrences silently, so
    `--artifacts A --artifacts B` would verify against B alone; here the
    occurrences are collected (`multiple`) and more than one is a usage
    error (exit 2) naming them. The value is the one given, or None.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, multiple=True, **kwargs)

    def process_value(self, ctx: click.Context, value: Any) -> Any:
        values = super().process_value(ctx, value)
        if len(values) > 1:
            raise click.BadParameter(f"given {len(values)} times ({', '.join(map(str, values))}); give it once", ctx=ctx, param=self)
        return values[0] if values else None


class _DefaultGroup(click.Group):
    """A group whose first argument, when it is not a subcommand name, is the PATH of `verify check`."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help", "--version"):
            args = ["check", *args]
        elif args and args[0] in self.commands and os.path.isdir(args[0]):
            click.echo(f"verify: note: {args[0]!r} is read as the command `verify {args[0]}`; to verify the directory "
                       f"{args[0]}, write `verify ./{args[0]}`", err=True)
        return super().parse_args(ctx, args)

    def main(self, *args: Any, **kwargs: Any) -> Any:  # one-line usage errors, exit 2, never a traceback
        kwargs["standalone_mode"] = False
        try:
            return super().main(*args, **kwargs)
        except click.ClickException as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # `verify` alone: show the help, exit 2
                click.echo(exc.format_message(), err=True)
                sys.exit(int(ExitCode.USAGE))
            _fail_usage(f"{exc.format_message()} (see verify --help)")
        except click.exceptions.Abort:
            _fail_usage("aborted")
        except MemoryError:  # inputs are bounded (docs/testing.md); running out anyway is our failure: one line, exit 4, no traceback
            sys.stderr.write("verify: error: the verifier ran out of memory (exit 4: a verifier failure); please report the input that caused it\n")
            sys.exit(int(ExitCode.ERROR))


def _trust_ref_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--trust-ref", "trust_ref", metavar="REF",
                        help="Read the repository's trust root (verify.toml, its gates, profiles, schemas and pins) from "
                             "git commit REF, not the working tree; the report lists trusted files changed since REF.")(func)


def _pinned_only() -> bool:
    """
    Return whether unpinned judges are refused: in CI.

    CI is `VERIFY_PINNED_ONLY` (the Action sets it), `GITHUB_ACTIONS=true`,
    or `CI` set to `true`/`1`/`yes` (GitLab, CircleCI, Travis and most other
    services; the same values turn the cache off, `verifier.cache.cachefs.enabled`).
    """
    truthy = ("1", "true", "yes")
    return (os.environ.get("VERIFY_PINNED_ONLY", "").strip().lower() in truthy or os.environ.get("GITHUB_ACTIONS") == "true"
            or os.environ.get("CI", "").strip().lower() in truthy)


def _trust(start: str, ref: str | None, cache: Any = None) -> Any:
    """Return the `TrustSet` judging evidence at `start` (shipped assets plus the repository's trust root; `cache`: docs/cache.md)."""
    from verifier import core  # the shipped assets as the core loads them (one seam for tests and callers)
    from verifier.trust import assets as trust
    from verifier.trust.trustroot import locate

    trust.use_cache(cache)  # the asset check may reuse an earlier run's (docs/cache.md)
    try:
        shipped = core.assets()
    finally:
        trust.use_cache(None)
    trusted = locate(start, ref=ref, shipped=shipped)
    if ref is None:  # a plain run on a pull-request checkout: say when its trust root is not the default branch's
        from verifier.trust.trustbase import differs

        trusted.default = differs(start)
    return trusted


def _format_option(func: Callable[..., Any]) -> Callable[..., Any]:
    func = click.option("-f", "--format", "fmt", default="text", show_default=True,
                        help=f"Report format on stdout: {', '.join(sorted(REPORTERS))}.")(func)
    func = click.option("--report", "reports", multiple=True, metavar="FORMAT=PATH",
                        help="Also write the report in FORMAT to PATH after the run (repeatable; any exit code).")(func)
    return func


def _emit(report: Report, fmt: str, reports: tuple[str, ...], verbose: bool, targets: Any, show_pass: bool = False) -> None:
    """
    Render to stdout, write `--report` files and the GitHub step summary, then exit with the verdict's code.

    `show_pass` lists PASS findings in the text format even without `verbose` (`verify score` does).
    """
    from verifier.report.outputs import append_step_summary, write_targets
    from verifier.report._common import visible

    color = fmt == "text" and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    options = {"show_pass": True} if show_pass and fmt == "text" else {}
    click.echo(render(report, fmt, verbose=verbose, color=color, **options), nl=False)
    try:
        write_targets(report, targets, verbose=verbose)
        if fmt == "github" or any(t.fmt == "github" for t in targets):
            append_step_summary(report)
    except VerifierError as exc:
        _fail_usage(exc.diagnostics())
    if fmt == "github" or any(t.fmt == "github" for t in targets):
        from verifier.report.github import unplaced

        if unplaced(report):
            click.echo(f"verify: {visible(unplaced(report) or '')}", err=True)
    click.echo(f"verify: {report.verdict}: {visible(report.subject)}", err=True)
    sys.exit(int(report.exit_code))


def _cache_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--cache/--no-cache", "use_cache", default=None,
                        help="Reuse file digests and scores from earlier runs (docs/cache.md); default on, off when CI=true.")(func)


def _open_cache(use_cache: bool | None) -> Any:
    """Return the run's `verifier.cache.warm.Cache`, or None (off, or unusable: said on stderr)."""
    from verifier.cache.warm import Cache, enabled

    if not enabled(use_cache):
        return None
    cache, reason = Cache.open()
    if cache is None:
        click.echo(f"verify: cache not used: {reason}", err=True)
    return cache


def _prepare(fmt: str, reports: tuple[str, ...], verbose: bool, protected: tuple[str | None, ...] = ()) -> tuple[Any, Any]:
    """Validate the format and the report targets before the run; `protected` are the verified paths nothing may be written into."""
    from verifier.report.outputs import check_format, check_step_summary, parse_targets
    from verifier.engine.progress import make_progress

    kept = tuple(p for p in protected if p)
    try:
        check_format(fmt)
        targets = parse_targets(reports, kept)
        if fmt == "github" or any(t.fmt == "github" for t in targets):
            check_step_summary(kept)
    except VerifierError as exc:
        _fail_usage(exc.diagnostics())
    return targets, make_progress(verbose=verbose)


@click.group(cls=_DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="verify")
def main() -> None:
    """Verify benchmark evidence: `verify PATH` is `verify check PATH`."""


@main.command("check")
@click.argument("path", type=_Input(path_type=str))
@_format_option
@click.option("-v", "--verbose", is_flag=True, help="Show PASS findings and derivations; progress lines in CI.")
@click.option("--artifacts", cls=_Once, type=_Input(exists=True, file_okay=False, path_type=str),
              help="Directory holding external artifacts by their manifest path.")
@click.option("--gate", "gate_id", help="Require the bundle to be judged by this gate id.")
@click.option("--profile", "profile", metavar="NAME|FILE",
              help="Read a foreign bundle (directory or file) through this pinned profile instead of detecting it; "
                   "a FILE (./mine.json) is loaded unpinned, for local exploration only (refused in CI), and the report says so.")
@_trust_ref_option
@click.option("--weights-dir", type=_Input(exists=True, file_okay=False, path_type=str),
              help="Directory searched first for scorer weights by file name (then the torch hub cache); nothing is downloaded.")
@click.option("--device", type=click.Choice(["cpu", "cuda"]), default="cpu", show_default=True, help="Device for LPIPS.")
@click.option("--claims-text", "claims_text", type=_Input(path_type=str), metavar="FILE",
              help="A pull-request body or other Markdown whose every number must bind to the bundle's evidence (docs/claims.md).")
@_cache_option
@click.option("--executor", metavar="ADDRESS",
              help="Re-score the comparisons as tasks on this Dask scheduler (the `distributed` extra; docs/distributed.md).")
def check_command(path: str, fmt: str, reports: tuple[str, ...], verbose: bool, artifacts: str | None,
                  gate_id: str | None, profile: str | None, trust_ref: str | None, weights_dir: str | None,
                  device: str, claims_text: str | None, use_cache: bool | None, executor: str | None) -> None:
    """Verify the evidence bundle (directory) or receipt file at PATH."""
    from verifier.core import verify_path
    from verifier.trust.trustroot import is_profile_file

    if profile is not None and is_profile_file(profile) and _pinned_only():
        _fail_usage(f"--profile {profile}: an unpinned profile file is refused in CI; add it to the repository's trust root "
                    "and `verify pin` it")
    targets, progress = _prepare(fmt, reports, verbose, (path, artifacts, weights_dir))
    text = _read_claims_text(claims_text) if claims_text is not None else None
    try:
        cache = _open_cache(use_cache)
        trust = _trust(path, trust_ref, cache)
        report = verify_path(path, artifacts=artifacts, gate_id=gate_id, debug=verbose, progress=progress,
                             profile=profile, weights_dir=weights_dir, device=device, parallel=True,
                             claims_text=text, cache=cache, executor=executor, trust=trust)
    except VerifierError as exc:
        _fail_usage(exc.diagnostics())
    if cache is not None and trust.repository is None and report_keeper is not None:
        report_keeper(report, fmt, verbose)
    _emit(report, fmt, reports, verbose, targets)


def _read_claims_text(name: str) -> tuple[str, str]:
    """Return `(name, text)` of the claim text file `name`; exit 2 with one line when it is unreadable, not UTF-8, empty or states no number."""
    from verifier.readers.claimtext import MAX_TEXT_BYTES, ClaimTextError, read_claim_text

    import stat

    try:
        # O_NONBLOCK: a FIFO swapped in after `_Input` looked opens at once instead of waiting for a writer, and is refused
        with os.fdopen(os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb") as handle:
            mode = os.fstat(handle.fileno()).st_mode
            if not stat.S_ISREG(mode):
                kind = "directory" if stat.S_ISDIR(mode) else special_kind(name) or "special file"
                _fail_usage(f"--claims-text {name}: is a {kind}, not a file; special files are never read")
            data = handle.read(MAX_TEXT_BYTES + 1)
    except OSError as exc:
        _fail_usage(f"--claims-text {name}: cannot read: {exc.strerror}")
    if len(data) > MAX_TEXT_BYTES:
        _fail_usage(f"--claims-text {name}: larger than 4 MiB, not a claim text")
    try:
        return name, read_claim_text(data, name)
    except ClaimTextError as exc:
        _fail_usage(str(exc))
    raise AssertionError("unreachable")  # pragma: no cover - _fail_usage exits


@main.command("inventory")
@click.argument("repo_root", type=_Input(path_type=str))
@_format_option
@click.option("-v", "--verbose", is_flag=True, help="Show PASS findings and derivations; progress lines in CI.")
@click.option("--inventory", "inventory_rel", default="evidence-inventory.json", show_default=True,
              help="The evidence inventory, relative to REPO_ROOT.")
@click.option("--artifacts", cls=_Once, type=_Input(exists=True, file_okay=False, path_type=str),
              help="Directory holding external artifacts as <bundle directory>/<manifest path>.")
@_cache_option
@click.option("--executor", metavar="ADDRESS",
              help="Verify the bundles as tasks on this Dask scheduler (tcp://host:8786; the `distributed` extra; docs/distributed.md).")
@_trust_ref_option
def inventory_command(repo_root: str, fmt: str, reports: tuple[str, ...], verbose: bool, inventory_rel: str,
                      artifacts: str | None, use_cache: bool | None, executor: str | None, trust_ref: str | None) -> None:
    """Check that every evidence/ bundle of REPO_ROOT is registered, and verify every bundle."""
    from verifier.commands.repository import verify_repository

    root = Path(repo_root)
    targets, progress = _prepare(fmt, reports, verbose, (str(root / "evidence"), str(root / inventory_rel), artifacts))
    try:
        cache = _open_cache(use_cache)
        report = verify_repository(repo_root, inventory=inventory_rel, artifacts=artifacts, debug=verbose,
                                   progress=progress, cache=cache, executor=executor,
                                   trust=_trust(repo_root, trust_ref, cache))
    except VerifierError as exc:
        _fail_usage(exc.diagnostics())
    _emit(report, fmt, reports, verbose, targets)


@main.command("manifest")
@click.argument("bundle", type=_Input(path_type=str))
@click.option("--write", is_flag=True, help="Create or update manifest.json (the only thing verify ever writes).")
@click.option("--gate", "gate_id", help="Gate id for a new manifest (or to change it).")
def manifest_command(bundle: str, write: bool, gate_id: str | None) -> None:
    """
    Show (or with --write, apply) the manifest the files of BUNDLE call for.

    Without --write: prints the differences and exits 1 if there are any, 0 if none.
    """
    from verifier.commands.manifest import (
        build_manifest,
        diff_manifests,
        read_manifest,
        write_manifest,
    )
    from verifier.engine.progress import make_progress

    root = Path(bundle)
    progress = make_progress()
    try:
        if write:
            changes = write_manifest(root, gate=gate_id, progress=progress)
        else:
            changes = diff_manifests(read_manifest(root), build_manifest(root, gate=gate_id, progress=progress))
    except VerifierError as exc:
        _fail_usage(exc.diagnostics())
    for line in changes:
        click.echo(line)
    if write:
        click.echo(f"verify: {bundle}/manifest.json: {'written, ' + str(len(changes)) + ' change(s)' if changes else 'already up to date'}",
                   err=True)
        sys.exit(0)
    click.echo(f"verify: {bundle}/manifest.json: {str(len(changes)) + ' difference(s); run with --write to apply' if changes else 'up to date'}",
               err=True)
    sys.exit(1 if changes else 0)


@main.command("changed")
@click.argument("files", nargs=-1, type=_Input(path_type=str))
@_format_option
@click.option("-v", "--verbose", is_flag=True, help="Show PASS findings and derivations.")
@_trust_ref_option
def changed_command(files: tuple[str, ...], fmt: str, reports: tuple[str, ...], verbose: bool, trust_ref: str | None) -> None:
    """
    Verify every bundle containing one of FILES (for pre-commit): the nearest ancestor with a manifest.json or matched by a shipped profile.

    Exits with the worst exit code over the bundles (FAIL > ERROR > INCOMPLETE > PASS). A file that lies in
    no bundle is named on stderr as not verified and counts as INCOMPLETE (exit 3), as in the GitHub action
    (docs/ci.md): an empty run is never a pass. No FILES at all is a usage error (exit 2).
    """
    from verifier.core import verify_path

    if reports:
        _fail_usage("--report is not supported by `verify changed`; run `verify BUNDLE --report ...` per bundle")
    targets, progress = _prepare(fmt, (), verbose)
    del targets
    if not files:
        _fail_usage("`verify changed` needs at least one FILE (pre-commit passes the changed files)")
    try:
        trust = _trust(".", trust_ref)
        bundles, outside = _bundles_of(files, trust)
    except VerifierError as exc:
        _fail_usage(exc.diagnostics())
    worst: list[Any] = []
    for bundle in bundles:
        try:
            report = verify_path(bundle, debug=verbose, progress=progress, trust=trust)
        except VerifierError as exc:
            _fail_usage(exc.diagnostics())
        color = fmt == "text" and sys.stdout.isatty() and "NO_COLOR" not in os.environ
        click.echo(render(report, fmt, verbose=verbose, color=color), nl=False)
        click.echo(f"verify: {report.verdict}: {bundle}", err=True)
        worst.append(report.verdict)
    if outside:
        from verifier.report._common import visible

        for name in outside:
            click.echo(f"verify: INCOMPLETE: {visible(name)}: not inside any bundle (no manifest.json or profile match "
                       "above it, up to the working directory); not verified", err=True)
        worst.append("INCOMPLETE")
    from verifier.model.findings import exit_code_for

    order = ("FAIL", "ERROR", "INCOMPLETE", "PASS")  # the verdict precedence of `verdict_of`
    sys.exit(int(exit_code_for(min(worst, key=order.index))))


def _bundles_of(files: tuple[str, ...], trusted: Any) -> tuple[list[str], list[str]]:
    """
    Return `(bundles, outside)`: the bundle directories of `files` (below the cwd), sorted, and the files
    that lie in no bundle, in the order given.

    A file's bundle is its nearest ancestor that holds a manifest.json or that
    a shipped profile's `detect` rules match (a foreign bundle such as a
    SHA256SUMS one), so a change inside a foreign bundle is verified, never
    waved through as "not in a bundle". Raises `VerifierError` when our own
    profiles fail their pins or their detection members the profile schema.
    """
    from verifier.profiles.language import Tree, candidates

    profiles = {pid: trusted.detection(pid) for pid in trusted.profile_ids()}
    found: set[str] = set()
    outside: list[str] = []
    here = Path.cwd().resolve()

    def bundle_of(path: Path) -> str | None:
        for parent in [path, *path.parents] if path.is_dir() else path.parents:
            resolved = parent.resolve()
            if parent == Path(".") or (here not in resolved.parents and resolved != here):
                return None
            if (parent / "manifest.json").is_file() or (parent.is_dir() and candidates(profiles, Tree(root=parent))):
                return parent.as_posix()
        return None

    for name in files:
        bundle = bundle_of(Path(name))
        if bundle is None:
            outside.append(name)
        else:
            found.add(bundle)
    return sorted(found), outside


@main.group("profile")
def profile_group() -> None:
    """Author and inspect profiles (data files that map a foreign bundle onto the checks)."""


@profile_group.command("explain")
@click.argument("profile")
@click.argument("directory", type=_Input(path_type=str))
@click.option("--artifacts", cls=_Once, type=_Input(exists=True, file_okay=False, path_type=str),
              help="Directory holding the files the manifest lists but DIRECTORY lacks, by their listed path.")
@click.option("--all", "every", is_flag=True, help="List every record member no mapping reads (by default the first 12 and a count).")
def profile_explain(profile: str, directory: str, artifacts: str | None, every: bool) -> None:
    """Print, per file of DIRECTORY, what PROFILE (a shipped id or a profile .json path) maps and every stated number left unchecked."""
    from verifier.commands.explain import explain

    try:
        text, exit_code = explain(profile, directory, artifacts=artifacts, every=every)
    except VerifierError as exc:
        _fail_usage(exc.diagnostics())
    click.echo(text, nl=False)
    sys.exit(exit_code)


@profile_group.command("check")
@click.argument("directory", type=click.Path(path_type=str))
@click.option("--profile", "profile", cls=_Once, required=True, help="A shipped profile id or a profile .json path (a draft is validated, not pinned).")
@click.option("--artifacts", cls=_Once, type=click.Path(exists=True, file_okay=False, path_type=str),
              help="Directory holding the files the manifest lists but DIRECTORY lacks, by their listed path.")
def profile_check(directory: str, profile: str, artifacts: str | None) -> None:
    """Print, per rule of PROFILE, what it matched in DIRECTORY (files, records, receipts, stated places); exit 1 when a rule matched nothing."""
    from verifier.commands.explain import check

    try:
        text, exit_code = check(profile, directory, artifacts=artifacts)
    except VerifierError as exc:
        _fail_usage(exc.diagnostics())
    click.echo(text, nl=False)
    sys.exit(exit_code)


@profile_group.command("draft")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=str))
@click.option("-o", "--output", "output", required=True, type=click.Path(dir_okay=False, path_type=str),
              help="Where to write the drafted profile (never inside DIRECTORY).")
@click.option("--id", "profile_id", default=None, help="The profile's id (default: the directory's name).")
@click.option("--explain", is_flag=True, help="List every bound number left out of the draft and why, grouped by reason (on stderr).")
def profile_draft(directory: str, output: str, profile_id: str | None, explain: bool) -> None:
    """Write what discovery binds in DIRECTORY as a profile (then `verify --profile OUTPUT DIRECTORY`, review, `verify pin`)."""
    from verifier.core import verify_path
    from verifier.discovery.drafting import DraftRefused, write_draft

    try:
        path, claims, left = write_draft(directory, output, profile_id, verify=verify_path)  # the self-check's judge, passed in: discovery imports no core
    except DraftRefused as exc:
        _left_out(exc.notes, every=explain)  # why nothing is left to write, grouped: never a bare count
        _fail_usage(exc.diagnostics())
    except VerifierError as exc:
        _fail_usage(exc.diagnostics())
    if explain:
        _left_out(left, every=True)
    click.echo(f"wrote {path}: {claims} claim(s) from discovery" + (f", {len(left)} bound number(s) left out (see its description; "
                                                                     "`--explain` lists why, grouped)" if left else ""))
    click.echo(f"verify: next: `verify --profile {path} {directory}`, review the claims, then copy it into your trust root and `verify pin`", err=True)


def _left_out(notes: list[str], every: bool) -> None:
    """Print, on stderr, why the bound numbers `notes` name were left out of a draft: per reason its count and first place (`every`: each place)."""
    from verifier.discovery.drafting import grouped
    from verifier.report._common import visible

    groups = grouped(notes)
    click.echo(f"verify: left out of the draft: {len(notes)} bound number(s), for {len(groups)} reason(s):", err=True)
    for kind, n, first in groups if every else groups[:8]:
        click.echo(visible(f"  {n} x {kind} (first: {first})"), err=True)
        if every:
            for note in notes:
                place, _, reason = note.partition(" -- ")
                if grouped([note])[0][0] == kind:
                    click.echo(visible(f"      {place}: {reason}"), err=True)
    if not every and len(groups) > 8:
        click.echo(f"  ... {len(groups) - 8} more reason(s) (`--explain` lists every one)", err=True)


@main.command("media")
@click.argument("files", nargs=-1, required=True, type=_Input(path_type=str))
@click.option("--frames", type=click.IntRange(min=1), help="Expected video frames N.")
@click.option("--fps", help="Expected frame rate, exact: 24 or 30000/1001.")
@click.option("--sample-rate", type=click.IntRange(min=1), help="Expected audio sample rate (Hz).")
@click.option("--channels", type=click.IntRange(min=1), help="Expected audio channels.")
@click.option("--gate", "gate_id", help="Take expectations, tolerances and allowlists from this shipped gate.")
@click.option("--container", "containers", multiple=True, help="Admit this FFmpeg demuxer (repeatable; replaces the list).")
@click.option("--video-codec", "video_codecs", multiple=True, help="Admit this video codec (repeatable; replaces the list).")
@click.option("--audio-codec", "audio_codecs", multiple=True, help="Admit this audio codec (repeatable; aac or mp3).")
@click.option("--decode", is_flag=True, help="Also decode every file fully; a decoder error FAILs the file.")
@_format_option
@click.option("-v", "--verbose", is_flag=True, help="Show PASS findings and derivations.")
def media_command(files: tuple[str, ...], frames: int | None, fps: str | None, sample_rate: int | None,
                  channels: int | None, gate_id: str | None, containers: tuple[str, ...], video_codecs: tuple[str, ...],
                  audio_codecs: tuple[str, ...], decode: bool, fmt: str, reports: tuple[str, ...], verbose: bool) -> None:
    """Check that each media FILE covers the expected timeline, per stream (exit 0 all PASS, 1 any FAIL)."""
    from verifier.core import verify_media

    targets, _progress = _prepare(fmt, reports, verbose, files)
    try:
        report = verify_media(list(files), gate_id=gate_id, frames=frames, fps=fps, sample_rate=sample_rate,
                              channels=channels, containers=containers, video_codecs=video_codecs,
                              audio_codecs=audio_codecs, decode=decode, debug=verbose)
    except VerifierError as exc:
        _fail_usage(exc.diagnostics())
    _emit(report, fmt, reports, verbose, targets)


@main.command("score")
@click.argument("reference", type=_Input(path_type=str))
@click.argument("candidate", type=_Input(path_type=str))
@click.option("--gate", "gate_id", required=True, help="Score with this shipped gate's scorers, pins and thresholds.")
@click.option("--weights-dir", type=_Input(exists=True, file_okay=False, path_type=str),
              help="Directory searched first for scorer weights by file name (then the torch hub cache); nothing is downloaded.")
@click.option("--device", type=click.Choice(["cpu", "cuda"]), default="cpu", show_default=True, help="Device for LPIPS.")
@_format_option
@click.option("-v", "--verbose", is_flag=True, help="Also print per-frame values.")
def score_command(reference: str, candidate: str, gate_id: str, weights_dir: str | None, device: str, fmt: str,
                  reports: tuple[str, ...], verbose: bool) -> None:
    """Run coverage, then every scorer of the gate on REFERENCE vs CANDIDATE (exit 0 PASS, 1 FAIL, 3 a metric not computed)."""
    from verifier.core import score_media

    targets, _progress = _prepare(fmt, reports, verbose, (reference, candidate))
    try:
        report = score_media(reference, candidate, gate_id=gate_id, weights_dir=weights_dir, device=device,
                             parallel=True, debug=verbose)
    except VerifierError as exc:
        _fail_usage(exc.diagnostics())
    _emit(report, fmt, reports, verbose, targets, show_pass=True)


@main.command("init")
@click.argument("root", default=".", type=_Input(path_type=str))
def init_command(root: str) -> None:
    """Write a trust root into the evidence repository ROOT: verify.toml, an empty pin inventory, verify/{gates,profiles,schemas}/."""
    from verifier.commands.trustroot_cmds import init

    try:
        written = init(root)
    except VerifierError as exc:
        _fail_usage(exc.diagnostics())
    for rel in written:
        click.echo(f"wrote {rel}")
    click.echo("verify: next: `verify gate new ID --from BUNDLE`, review it, then `verify pin`", err=True)


@main.command("pin")
@click.argument("root", default=".", type=_Input(path_type=str))
def pin_command(root: str) -> None:
    """Re-pin the repository's trust root (every gate, profile and schema file) after a deliberate edit."""
    from verifier.trust.assets import assets
    from verifier.commands.trustroot_cmds import pin

    try:
        path, pins = pin(root, assets())
    except VerifierError as exc:
        _fail_usage(exc.diagnostics())
    for rel, digest in pins.items():
        click.echo(f"{digest}  {rel}")
    click.echo(f"verify: {path}: {len(pins)} file(s) pinned", err=True)


@main.command("schema")
@click.argument("name")
def schema_command(name: str) -> None:
    """Print the shipped schema NAME (`gate`, `profile`, ...) as the verifier reads it: its named statistic lists filled.

    The files under `schemas/` name their lists of statistics (`"x-verify-enum": LIST`, filled from
    `verifier.engine.stats.SCHEMA_ENUMS` when read); this prints the schema an editor or check-jsonschema can use.
    """
    import json

    from verifier.trust.assets import assets

    try:
        shipped = assets()
        names = sorted(Path(rel).name.removesuffix(".schema.json") for rel in shipped.pins if rel.startswith("schemas/"))
        name = name.removesuffix(".json").removesuffix(".schema")  # `gate.schema.json`, the file's name, is `gate`
        if name not in names:
            _fail_usage(f"no shipped schema {name!r}; the shipped ones: {', '.join(names)}")
        click.echo(json.dumps(shipped.schema(name), indent=2))
    except VerifierError as exc:
        _fail_usage(exc.diagnostics())


@main.group("gate")
def gate_group() -> None:
    """Gates of the repository's trust root."""


@gate_group.command("new")
@click.argument("gate_id", metavar="ID")
@click.option("--from", "bundle", required=True, type=_Input(exists=True, file_okay=False, path_type=str),
              help="The bundle whose plan (arm order, servers, warmups, measured requests, expected output) the gate states.")
@click.option("--like", "like", metavar="GATE", help="Template gate for claims, thresholds and scorers (default: the one the bundle names).")
@click.option("--root", "root", default=".", show_default=True, type=_Input(path_type=str),
              help="The evidence repository (its verify.toml, here or above).")
def gate_new_command(gate_id: str, bundle: str, like: str | None, root: str) -> None:
    """Start gate ID in the repository's gates directory from the plan of an existing bundle (then review it and `verify pin`)."""
    from verifier.commands.trustroot_cmds import new_gate

    try:
        path = new_gate(root, gate_id, bundle, _trust(root, None), like=like)
    except VerifierError as exc:
        _fail_usage(exc.diagnostics())
    click.echo(f"wrote {path}")
    click.echo("verify: review its thresholds and claims, then `verify pin`", err=True)


if __name__ == "__main__":
    main()
