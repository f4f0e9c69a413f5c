"""Builds optalloc's C library with Go and ships it inside the package.

``pip install ./python`` runs this: the build_py step calls
``go build -buildmode=c-shared -o <build>/optalloc/liboptalloc.so ./capi`` and
``go build -o <build>/optalloc/optalloc-cli ./cmd/optalloc`` (what ``python -m optalloc``
runs) in the Go module above this directory (or in $OPTALLOC_GO_ROOT), as MiniMalloc's build
compiles its C++. Go 1.26 must be on PATH (or in $GO).
"""

import os
import re
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent


def go_root() -> Path:
    """The Go module holding capi/: $OPTALLOC_GO_ROOT, else the nearest parent."""
    env = os.environ.get("OPTALLOC_GO_ROOT")
    if env:
        return Path(env)
    for d in HERE.parents:
        if (d / "go.mod").is_file() and (d / "capi").is_dir():
            return d
    raise SystemExit(
        "optalloc: cannot find the Go module (go.mod and capi/) above "
        f"{HERE}; set OPTALLOC_GO_ROOT to the optalloc repository"
    )


def version() -> str:
    """The C library's version (capi/export.go), in PEP 440 form: 0.1.0-dev -> 0.1.0.dev0."""
    src = (go_root() / "capi" / "export.go").read_text()
    m = re.search(r'const version = "([^"]+)"', src)
    if not m:
        raise SystemExit("optalloc: no version in capi/export.go")
    v = m.group(1)
    return v.replace("-dev", ".dev0") if v.endswith("-dev") else v


class BuildWithGo(build_py):
    """build_py, then the C library into the package."""

    def run(self) -> None:
        super().run()
        go = os.environ.get("GO") or shutil.which("go")
        if not go:
            raise SystemExit("optalloc: building the package needs Go (go on PATH, or $GO)")
        out = Path(self.build_lib).resolve() / "optalloc"
        out.mkdir(parents=True, exist_ok=True)
        cmd = [go, "build", "-buildmode=c-shared", "-o", str(out / "liboptalloc.so"), "./capi"]
        print("optalloc:", " ".join(cmd))
        subprocess.check_call(cmd, cwd=go_root())
        # The Go CLI itself, which `python -m optalloc` runs (optalloc/cli.py).
        cmd = [go, "build", "-o", str(out / "optalloc-cli"), "./cmd/optalloc"]
        print("optalloc:", " ".join(cmd))
        subprocess.check_call(cmd, cwd=go_root())


class BinaryDistribution(Distribution):
    """A platform wheel: it carries a shared library."""

    def has_ext_modules(self) -> bool:
        return True


setup(version=version(), cmdclass={"build_py": BuildWithGo}, distclass=BinaryDistribution)
