"""CSV in MiniMalloc's format: read, write, and convert.

    >>> import optalloc
    >>> p = optalloc.from_csv("id,lower,upper,size\\na,0,2,4\\nb,1,3,8\\n")
    >>> print(optalloc.to_csv(p, optalloc.solve(p, time_limit=1)), end="")
    id,lower,upper,size,offset
    a,0,2,4,8
    b,1,3,8,0
"""

from __future__ import annotations

import array
import csv
import ctypes
import io
from os import PathLike, fspath
from typing import Any, Optional, Union

from . import _lib
from .problem import Problem, _int, _ptr, from_csv, load
from .solver import Solution

__all__ = ["read_csv", "write", "write_csv", "to_csv", "from_csv"]


def read_csv(path: Union[str, PathLike[str]]) -> Problem:
    """Load a Problem from a CSV file (optalloc's reader: the columns of `optalloc plan`).

    Raises:
        ValueError: the file is missing or malformed ("file:line: what is wrong").
    """
    return load(path)


def _plan_columns(problem: Problem, solution: Solution) -> tuple[Any, Any]:
    """The solution's offsets and pool indices in buffer order."""
    if solution.peak is None:
        raise ValueError(f"no plan: status {solution.status}: {solution.reason}")
    ids = problem.ids()
    missing = [i for i in ids if i not in solution.offsets]
    if missing:
        raise ValueError(f"the solution has no offset for buffer {missing[0]!r}: it is not of this problem")
    offs = array.array("q", [_int(solution.offsets[i], f"offset of {i!r}") for i in ids])
    names = [q.name for q in problem.pools] or ["default"]
    pools = array.array("i", [names.index(solution.pools[i]) if solution.pools.get(i) in names else 0
                              for i in ids])
    return offs, pools


def write(problem: Problem, solution: Solution, path: Union[str, PathLike[str]]) -> None:
    """Write solution's plan to path by its suffix, with the library's writer (`optalloc plan -o`'s).

    .csv: the input columns plus offset (and pool with several pools); .json: a JSON plan;
    .tflite: a copy of the loaded TFLite model carrying the plan as its offline plan; .svg, .html:
    a picture. Atomic; never onto a file the problem was loaded from, never a device.

    Raises:
        ValueError: no plan, an invalid plan (verify rejects it), an unknown suffix, or a path
            that must not be written (the library's one-line message).
    """
    offs, pools = _plan_columns(problem, solution)
    with problem._handle() as h:
        _lib.check(_lib.lib().optalloc_problem_write_plan(
            h.h, len(offs), _ptr(offs), _ptr(pools), fspath(path).encode()), h.h)


def to_csv(problem: Problem, solution: Optional[Solution] = None) -> str:
    """The problem as CSV: with a solution, the plan as the library writes it (`optalloc plan -o
    x.csv`: the input columns, offset, and pool with several pools; ids quoted where needed);
    without, id,lower,upper,size, then alignment, hint and offset (the pins) when used.

    Raises:
        ValueError: the solution has no plan, or is not a valid plan of problem.
    """
    if solution is not None:
        offs, pools = _plan_columns(problem, solution)
        L = _lib.lib()
        with problem._handle() as h:
            p, n = ctypes.c_void_p(), ctypes.c_size_t()
            _lib.check(L.optalloc_problem_encode_plan(h.h, len(offs), _ptr(offs), _ptr(pools), b"-",
                                                      ctypes.byref(p), ctypes.byref(n)), h.h)
            return _lib.take_string(p.value)
    bs = problem.buffers
    cols = ["id", "lower", "upper", "size"]
    if any(b.alignment != 1 for b in bs):
        cols.append("alignment")
    if any(b.hint is not None for b in bs):
        cols.append("hint")
    if any(b.offset is not None for b in bs):
        cols.append("offset")
    if any(b.pool is not None for b in bs):
        cols.append("pool")
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(cols)
    for b in bs:
        row = [str(b.id), str(b.lower), str(b.upper), str(b.size)]
        if "alignment" in cols:
            row.append(str(b.alignment))
        if "hint" in cols:
            row.append(str(b.hint if b.hint is not None else -1))
        if "offset" in cols:
            row.append(str(b.offset if b.offset is not None else -1))
        if "pool" in cols:
            row.append(b.pool or "")
        w.writerow(row)
    return out.getvalue()


def write_csv(problem: Problem, path: Union[str, PathLike[str]], solution: Optional[Solution] = None) -> None:
    """Write the problem, or with a solution its plan, as CSV to path.

    With a solution this is write(problem, solution, path), path ending in .csv: the library's
    writer and its rules (atomic, never onto the input). Without, to_csv(problem).

    Raises:
        ValueError: as write, or a path not ending in .csv.
    """
    if not fspath(path).lower().endswith(".csv"):
        raise ValueError(f"{fspath(path)}: write_csv writes .csv files (write() chooses by suffix)")
    if solution is not None:
        write(problem, solution, path)
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(to_csv(problem))
