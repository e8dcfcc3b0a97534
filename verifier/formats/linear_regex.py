"""
Regexes built from what a profile writes, matched by RE2 in time linear in the text: a profile cannot make verify take unbounded time.

A profile's globs (`verifier.readers.tree.glob_regex`), file-name templates
and `name_patterns` (`verifier.readers.records`), location templates read
backwards (`verifier.readers.sites`), the pointer patterns of
`claim_documents` (`verifier.checks.profile_coverage`) and its
`informational` regexes (`verifier.readers.informational`) all become regexes
over the bundle's paths, pointers and texts. Python's `re` backtracks: a glob
of ten `**/` and ten `*a` took 12 s on one 131-character path. RE2
(`google-re2`, Google's automaton engine) matches in time linear in the text
for any pattern, with the same leftmost-first submatches as `re` for the
syntax these builders write (named groups, lazy quantifiers, classes); it has
no backreferences or lookarounds, which none of them writes.
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["RegexError", "compile_linear"]


class RegexError(ValueError):
    """Raised by `compile_linear` for a pattern RE2 refuses: its message says why (a backreference, a lookaround, a syntax error)."""


@functools.lru_cache(maxsize=2048)
def compile_linear(pattern: str) -> Any:
    """
    Return `pattern` compiled by RE2 (an object with `match`, `fullmatch`, `search`, `finditer`, `pattern`; matches with `groupdict`, `span`).

    Compiled once per pattern. Raises `RegexError` (one line) for a pattern
    RE2 refuses; RE2 logs nothing on stderr. Time: linear in the text
    matched, times the pattern's size.
    """
    import re2

    options = re2.Options()
    options.log_errors = False  # the caller's one-line refusal says it, not RE2's own log on stderr
    try:
        return re2.compile(pattern, options=options)
    except re2.error as exc:
        reason = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise RegexError(reason) from None
