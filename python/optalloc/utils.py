"""CSV in MiniMalloc's format: read, write, and convert.

    >>> import optalloc
    >>> p = optalloc.from_csv("id,lower,upper,size\\na,0,2,4\\nb,1,3,8\\n")
    >>> print(optalloc.to_csv(p, optalloc.solve(p, time_limit=1)), end="")
    id,lower,upper,size,offset
    a,0,2,4,8
    b,1,3,8,0
"""

from __future__ import annotations

import io
from os import PathLike
from typing import Optional, Union

from .problem import Problem, from_csv, load
from .solver import Solution

__all__ = ["read_csv", "write_csv", "to_csv", "from_csv"]


def read_csv(path: Union[str, PathLike[str]]) -> Problem:
    """Load a Problem from a CSV file (optalloc's reader: the columns of `optalloc plan`).

    Raises:
        ValueError: the file is missing or malformed ("file:line: what is wrong").
    """
    return load(path)


def to_csv(problem: Problem, solution: Optional[Solution] = None) -> str:
    """The problem as CSV: id,lower,upper,size, then alignment, hint and offset when used.

    Args:
        problem: the problem.
        solution: when given (with a plan), its offsets fill the offset column; otherwise the
            offset column holds the pins (-1 = free), if any.

    Raises:
        ValueError: the solution has no plan.
    """
    bs = problem.buffers
    if solution is not None and solution.peak is None:
        raise ValueError(f"no plan: status {solution.status}: {solution.reason}")
    cols = ["id", "lower", "upper", "size"]
    if any(b.alignment != 1 for b in bs):
        cols.append("alignment")
    if any(b.hint is not None for b in bs):
        cols.append("hint")
    if solution is not None or any(b.offset is not None for b in bs):
        cols.append("offset")
    out = io.StringIO()
    out.write(",".join(cols) + "\n")
    for b in bs:
        row = [str(b.id), str(b.lower), str(b.upper), str(b.size)]
        if "alignment" in cols:
            row.append(str(b.alignment))
        if "hint" in cols:
            row.append(str(b.hint if b.hint is not None else -1))
        if "offset" in cols:
            off = solution.offsets[b.id] if solution is not None else b.offset
            row.append(str(off if off is not None else -1))
        out.write(",".join(row) + "\n")
    return out.getvalue()


def write_csv(problem: Problem, path: Union[str, PathLike[str]], solution: Optional[Solution] = None) -> None:
    """Write to_csv(problem, solution) to path (readable by read_csv and `optalloc verify`)."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(to_csv(problem, solution))
