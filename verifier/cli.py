"""
The `verify` command line: parse, run the core, render, exit.

No verification logic lives here. Exit codes: 0 PASS, 1 FAIL, 2 usage or
configuration error, 3 INCOMPLETE, 4 ERROR (see `docs/exit-codes.md`).
"""

from __future__ import annotations

import os
import sys

import click

from verifier import __version__
from verifier.core import score_media, verify_media, verify_path
from verifier.errors import VerifierError
from verifier.model import ExitCode
from verifier.report import REPORTERS, render


class _DefaultGroup(click.Group):
    """A group whose first argument, when it is not a subcommand name, is the PATH of `verify check`."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help", "--version"):
            args = ["check", *args]
        return super().parse_args(ctx, args)


@click.group(cls=_DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="verify")
def main() -> None:
    """Verify benchmark evidence: `verify PATH` is `verify check PATH`."""


@main.command("check")
@click.argument("path", type=click.Path(path_type=str))
@click.option("-f", "--format", "fmt", type=click.Choice(sorted(REPORTERS)), default="text", show_default=True,
              help="Report format on stdout.")
@click.option("-v", "--verbose", is_flag=True, help="Show PASS findings and derivations.")
@click.option("--artifacts", type=click.Path(exists=True, file_okay=False, path_type=str),
              help="Directory holding external artifacts by their manifest path.")
@click.option("--gate", "gate_id", help="Require the bundle to be judged by this gate id.")
@click.option("--weights-dir", type=click.Path(exists=True, file_okay=False, path_type=str),
              help="Directory searched first for scorer weights by file name (then the torch hub cache); nothing is downloaded.")
@click.option("--device", type=click.Choice(["cpu", "cuda"]), default="cpu", show_default=True, help="Device for LPIPS.")
def check_command(path: str, fmt: str, verbose: bool, artifacts: str | None, gate_id: str | None,
                  weights_dir: str | None, device: str) -> None:
    """Verify the evidence bundle (directory) or receipt file at PATH."""
    try:
        report = verify_path(path, artifacts=artifacts, gate_id=gate_id, debug=verbose, weights_dir=weights_dir,
                             device=device, parallel=True)
    except VerifierError as exc:
        click.echo(f"verify: error: {exc.diagnostics()}", err=True)
        sys.exit(int(ExitCode.USAGE))
    color = fmt == "text" and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    click.echo(render(report, fmt, verbose=verbose, color=color), nl=False)
    click.echo(f"verify: {report.verdict}: {path}", err=True)
    sys.exit(int(report.exit_code))


@main.command("media")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option("--frames", type=click.IntRange(min=1), help="Expected video frames N.")
@click.option("--fps", help="Expected frame rate, exact: 24 or 30000/1001.")
@click.option("--sample-rate", type=click.IntRange(min=1), help="Expected audio sample rate (Hz).")
@click.option("--channels", type=click.IntRange(min=1), help="Expected audio channels.")
@click.option("--gate", "gate_id", help="Take expectations, tolerances and allowlists from this shipped gate.")
@click.option("--container", "containers", multiple=True, help="Admit this FFmpeg demuxer (repeatable; replaces the list).")
@click.option("--video-codec", "video_codecs", multiple=True, help="Admit this video codec (repeatable; replaces the list).")
@click.option("--audio-codec", "audio_codecs", multiple=True, help="Admit this audio codec (repeatable; aac or mp3).")
@click.option("--decode", is_flag=True, help="Also decode every file fully; a decoder error FAILs the file.")
@click.option("-f", "--format", "fmt", type=click.Choice(sorted(REPORTERS)), default="text", show_default=True,
              help="Report format on stdout.")
@click.option("-v", "--verbose", is_flag=True, help="Show PASS findings and derivations.")
def media_command(files: tuple[str, ...], frames: int | None, fps: str | None, sample_rate: int | None,
                  channels: int | None, gate_id: str | None, containers: tuple[str, ...], video_codecs: tuple[str, ...],
                  audio_codecs: tuple[str, ...], decode: bool, fmt: str, verbose: bool) -> None:
    """Check that each media FILE covers the expected timeline, per stream (exit 0 all PASS, 1 any FAIL)."""
    try:
        report = verify_media(list(files), gate_id=gate_id, frames=frames, fps=fps, sample_rate=sample_rate,
                              channels=channels, containers=containers, video_codecs=video_codecs,
                              audio_codecs=audio_codecs, decode=decode, debug=verbose)
    except VerifierError as exc:
        click.echo(f"verify: error: {exc.diagnostics()}", err=True)
        sys.exit(int(ExitCode.USAGE))
    color = fmt == "text" and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    click.echo(render(report, fmt, verbose=verbose, color=color), nl=False)
    click.echo(f"verify: {report.verdict}: {len(files)} media file(s)", err=True)
    sys.exit(int(report.exit_code))


@main.command("score")
@click.argument("reference", type=click.Path(path_type=str))
@click.argument("candidate", type=click.Path(path_type=str))
@click.option("--gate", "gate_id", required=True, help="Score with this shipped gate's scorers, pins and thresholds.")
@click.option("--weights-dir", type=click.Path(exists=True, file_okay=False, path_type=str),
              help="Directory searched first for scorer weights by file name (then the torch hub cache); nothing is downloaded.")
@click.option("--device", type=click.Choice(["cpu", "cuda"]), default="cpu", show_default=True, help="Device for LPIPS.")
@click.option("-f", "--format", "fmt", type=click.Choice(sorted(REPORTERS)), default="text", show_default=True,
              help="Report format on stdout.")
@click.option("-v", "--verbose", is_flag=True, help="Also print per-frame values.")
def score_command(reference: str, candidate: str, gate_id: str, weights_dir: str | None, device: str, fmt: str,
                  verbose: bool) -> None:
    """Run coverage, then every scorer of the gate on REFERENCE vs CANDIDATE (exit 0 PASS, 1 FAIL, 3 a metric not computed)."""
    try:
        report = score_media(reference, candidate, gate_id=gate_id, weights_dir=weights_dir, device=device,
                             parallel=True, debug=verbose)
    except VerifierError as exc:
        click.echo(f"verify: error: {exc.diagnostics()}", err=True)
        sys.exit(int(ExitCode.USAGE))
    color = fmt == "text" and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    options = {"verbose": verbose, "color": color, **({"show_pass": True} if fmt == "text" else {})}
    click.echo(render(report, fmt, **options), nl=False)
    click.echo(f"verify: {report.verdict}: {reference} vs {candidate}", err=True)
    sys.exit(int(report.exit_code))


if __name__ == "__main__":
    main()
