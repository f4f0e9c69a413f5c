"""Shared fixtures: the repository, ../shared beside it, and the Go CLI built once."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
MINIMALLOC = SHARED / "benchmarks" / "minimalloc"


def shared(*parts: str) -> Path:
    """A path under ../shared, skipping the test when it is absent."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"{p} is absent (the shared data sits beside the repository)")
    return p


@pytest.fixture(scope="session")
def go_cli(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Go CLI, built from this repository."""
    go = shutil.which("go")
    if go is None:
        pytest.skip("no Go toolchain to build the CLI")
    out = tmp_path_factory.mktemp("cli") / "optalloc"
    subprocess.run([go, "build", "-o", str(out), "./cmd/optalloc"], cwd=ROOT, check=True)
    return out
