"""Where the tests find the repository's data and the `arena` binary."""

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def arena_binary():
    """`ARENA_BIN`, else `arena` on the PATH, else the workspace's own build."""
    given = os.environ.get("ARENA_BIN")
    if given:
        return given
    found = shutil.which("arena")
    if found:
        return found
    targets = [os.environ.get("CARGO_TARGET_DIR"), str(REPO / "target")]
    for target in filter(None, targets):
        for profile in ("debug", "release"):
            candidate = Path(target) / profile / "arena"
            if candidate.is_file():
                return str(candidate)
    return None


@pytest.fixture(scope="session")
def arena():
    binary = arena_binary()
    if binary is None:
        if os.environ.get("ARENA_REQUIRE_BIN"):
            pytest.fail("no arena binary: set ARENA_BIN (scripts/test does)")
        pytest.skip("no arena binary (set ARENA_BIN)")
    return binary
