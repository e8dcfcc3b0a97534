"""
Tests that kill surviving mutants of `verifier/trustroot.py` (issue 42, cosmic-ray; docs/testing.md, "Mutation testing").

Each test drives the trust root through its public functions on a small
repository (`WorkTree` over a temporary directory, or `MemorySource`, the
`Source` protocol over a dict) and pins the exact message of every refusal;
each docstring names the mutants it kills (line of `verifier/trustroot.py`, operator).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from helpers import TINY_GATE

from verifier.errors import ConfigError, PinMismatch, UsageError
from verifier.trust import assets
from verifier.trustroot import (
    Config,
    RepositoryTrust,
    TrustSet,
    WorkTree,
    find_repository,
    is_profile_file,
    pins_for,
    profile_origin,
    profiles_listed,
    read_config,
    scorer_weights_of,
)

HERE = "the working tree"


def _config(tmp_path: Path, text: str, name: str = "verify.toml") -> Config | None:
    (tmp_path / name).write_text(text)
    return read_config(WorkTree(tmp_path))


@pytest.mark.parametrize("text", [
    'gates = "x"\nprofiles = "x"\n',  # one-character names: CPython keeps one object per such string
    'gates = "judges"\nprofiles = "judges"\n',
    'gates = "j"\nschemas = "j/s"\n',
    'gates = "j/g"\nprofiles = "j"\n',
])
def test_two_kinds_sharing_a_directory_are_refused_whatever_its_name(tmp_path, text):
    """A bug the session showed: `a is not b` told two kinds apart by object identity, so `gates = "x"` and `profiles = "x"` passed."""
    with pytest.raises(ConfigError) as caught:
        _config(tmp_path, text)
    assert str(caught.value) == f"verify.toml ({HERE}): the gates, profiles and schemas directories must be distinct"
