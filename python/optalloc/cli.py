"""`python -m optalloc`: the Go CLI itself, shipped in the package (every command, flag, message,
exit code and output rule are the Go CLI's: it is the same program).

    $ python -m optalloc plan ../shared/benchmarks/minimalloc/A.1048576.csv --time-limit 10s -o plan.csv
    peak=1048576 lower_bound=1048576 gap=0.00% status=optimal method=bnb time=3.510s
    $ python -m optalloc verify ../shared/benchmarks/minimalloc/A.1048576.csv plan.csv

``pip install ./python`` builds ``optalloc-cli`` (``go build ./cmd/optalloc``) beside the C library;
$OPTALLOC_CLI names another build. Exit codes: 0 success; 1 infeasible, unknown, an invalid plan or
a failed check; 2 bad usage or bad input.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Optional


def executable() -> Path:
    """The Go CLI this package runs: $OPTALLOC_CLI, else the one shipped in the package."""
    env = os.environ.get("OPTALLOC_CLI")
    return Path(env) if env else Path(__file__).resolve().parent / "optalloc-cli"


def _fd(stream: object) -> Optional[int]:
    """stream's file descriptor, None when it has none (a captured stream in tests)."""
    try:
        return stream.fileno()  # type: ignore[attr-defined,no-any-return]
    except (AttributeError, OSError, ValueError):
        return None


def main(argv: Optional[list[str]] = None) -> int:
    """Run the Go CLI with argv (default: sys.argv[1:]) and return its exit code.

    Its standard streams are this process's; where sys.stdout or sys.stderr has no file descriptor
    (captured, as in tests), the CLI's output is copied into them when it ends. Ctrl-C reaches the
    CLI (the same process group), which keeps its best plan and exits; its code is returned.
    """
    args = sys.argv[1:] if argv is None else list(argv)
    exe = executable()
    if not exe.is_file():
        print(f"python -m optalloc: the Go CLI is not in this installation ({exe}); reinstall the "
              "package with Go on PATH, or set OPTALLOC_CLI", file=sys.stderr)
        return 2
    if not os.access(exe, os.X_OK):
        try:
            exe.chmod(0o755)  # an installer that dropped the executable bit
        except OSError:
            pass
    out_fd, err_fd = _fd(sys.stdout), _fd(sys.stderr)
    for s in (sys.stdout, sys.stderr):
        s.flush()
    proc = subprocess.Popen([str(exe), *args],
                            stdout=subprocess.PIPE if out_fd is None else None,
                            stderr=subprocess.PIPE if err_fd is None else None)
    try:
        out, err = proc.communicate()
    except KeyboardInterrupt:
        out, err = proc.communicate()
    if out:
        sys.stdout.write(out.decode("utf-8", "replace"))
    if err:
        sys.stderr.write(err.decode("utf-8", "replace"))
    return proc.returncode
