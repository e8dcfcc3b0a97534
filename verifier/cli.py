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
from verifier.core import verify_path
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
@click.option("--profile", "profile", metavar="NAME",
              help="Read a foreign bundle (directory or file) through this shipped profile instead of detecting it.")
def check_command(path: str, fmt: str, verbose: bool, artifacts: str | None, gate_id: str | None,
                  profile: str | None) -> None:
    """Verify the evidence bundle (directory) or receipt file at PATH."""
    try:
        report = verify_path(path, artifacts=artifacts, gate_id=gate_id, debug=verbose, profile=profile)
    except VerifierError as exc:
        click.echo(f"verify: error: {exc.diagnostics()}", err=True)
        sys.exit(int(ExitCode.USAGE))
    color = fmt == "text" and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    click.echo(render(report, fmt, verbose=verbose, color=color), nl=False)
    click.echo(f"verify: {report.verdict}: {path}", err=True)
    sys.exit(int(report.exit_code))


if __name__ == "__main__":
    main()
