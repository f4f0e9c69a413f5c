"""optalloc: offline memory planning for neural networks.

Every buffer has a lifetime [lower, upper) and a size; solve gives each an offset so that
buffers alive at the same time never share bytes, with the smallest peak it can find, a lower
bound and, when they meet, a proof of optimality. An independent verifier checks every plan.

    >>> import optalloc
    >>> p = optalloc.Problem([optalloc.Buffer("a", 0, 2, 4), optalloc.Buffer("b", 1, 3, 8)])
    >>> s = optalloc.solve(p, time_limit=1.0)
    >>> s.status, s.peak, s.offsets
    ('optimal', 12, {'a': 8, 'b': 0})

The work is done by optalloc's C library (liboptalloc.so, shipped inside this package),
opened on first use. optalloc.executorch holds a memory-planning algorithm for ExecuTorch.
"""

from __future__ import annotations

from typing import Any

from .problem import Buffer, Pool, Problem, from_csv, load
from .solver import Solution, Solver, Verification, solve, verify
from .utils import read_csv, to_csv, write, write_csv

__all__ = [
    "Buffer",
    "Pool",
    "Problem",
    "Solution",
    "Solver",
    "Verification",
    "from_csv",
    "load",
    "read_csv",
    "solve",
    "to_csv",
    "verify",
    "write",
    "write_csv",
]


def __getattr__(name: str) -> Any:
    # __version__ comes from the library (optalloc_version()), read on first use.
    if name == "__version__":
        from . import _lib

        return _lib.version()
    raise AttributeError(f"module 'optalloc' has no attribute {name!r}")
