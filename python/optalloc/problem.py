"""Buffers and problems: plain values, copied into the library when solved or verified.

    >>> import optalloc
    >>> p = optalloc.Problem([optalloc.Buffer("a", 0, 2, 4), optalloc.Buffer("b", 1, 3, 8)])
    >>> optalloc.solve(p, time_limit=1.0).peak
    12
"""

from __future__ import annotations

import array
import ctypes
from dataclasses import dataclass
from os import PathLike, fspath
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

from . import _lib

Dims = Union[Mapping[str, int], Sequence[str], None]


@dataclass(frozen=True)
class Buffer:
    """One buffer to place: live on [lower, upper) (time steps), size bytes.

    The fields are the columns of optalloc's CSV (MiniMalloc's, plus pool).

    Args:
        id: the buffer's name; Solution.offsets is keyed by it.
        lower: first time step at which the buffer is live.
        upper: first time step at which it is no longer live (upper > lower).
        size: bytes.
        alignment: the offset must be a multiple of it (1 = none).
        offset: a pinned offset, or None.
        hint: a preferred offset, honoured when it costs nothing, or None.
        pool: the name of the only pool the buffer may live in, or None (any).
    """

    id: Any
    lower: int
    upper: int
    size: int
    alignment: int = 1
    offset: Optional[int] = None
    hint: Optional[int] = None
    pool: Optional[str] = None


@dataclass(frozen=True)
class Pool:
    """A memory: name, capacity in bytes (0 = unbounded), alignment of every offset (0 = none).

    Pools are listed fastest first; without pools a problem has one unbounded pool, "default".
    """

    name: str
    capacity: int = 0
    alignment: int = 0


class Problem:
    """Buffers to place, and optionally a capacity to fit under and pools.

    Args:
        buffers: the buffers (a copy of the iterable is kept).
        capacity: with a capacity, solve decides whether a plan fits under it.
        pools: the memories, fastest first; empty means one unbounded pool.

    The buffers may also come as columns (NumPy arrays or sequences): see from_arrays.
    """

    def __init__(
        self,
        buffers: Iterable[Buffer] = (),
        capacity: Optional[int] = None,
        pools: Iterable[Pool] = (),
    ) -> None:
        self._buffers: Optional[list[Buffer]] = list(buffers)
        self.capacity = capacity
        self.pools = list(pools)
        self._columns: Optional[dict[str, Any]] = None
        self._origin: Optional[tuple[str, list[str], tuple[Buffer, ...], list[Pool]]] = None

    @classmethod
    def from_arrays(
        cls,
        lower: Any,
        upper: Any,
        size: Any,
        alignment: Any = None,
        ids: Optional[Sequence[Any]] = None,
        capacity: Optional[int] = None,
        offset: Any = None,
    ) -> "Problem":
        """Make a problem from columns: NumPy arrays (int64 and contiguous: not copied here) or sequences.

        Args:
            lower, upper, size: one value per buffer.
            alignment: one value per buffer, or None (no alignment).
            ids: one id per buffer, or None (the buffers' indices 0, 1, ...).
            capacity: as for Problem.
            offset: one pin per buffer (negative: free), or None.

        Raises:
            ValueError: the columns have different lengths.
        """
        cols = {"lower": _int64s(lower), "upper": _int64s(upper), "size": _int64s(size)}
        if alignment is not None:
            cols["alignment"] = _int64s(alignment)
        if offset is not None:
            cols["offset"] = _int64s(offset)
        n = len(cols["lower"])
        if any(len(c) != n for c in cols.values()) or (ids is not None and len(ids) != n):
            raise ValueError("the columns have different lengths")
        p = cls(capacity=capacity)
        p._buffers = None
        p._columns = cols
        p._columns["ids"] = list(ids) if ids is not None else None
        return p

    @property
    def buffers(self) -> list[Buffer]:
        """The buffers (made from the columns on first use for a problem from_arrays)."""
        if self._buffers is None:
            c = self._columns
            assert c is not None
            n = len(c["lower"])
            ids = c["ids"] if c["ids"] is not None else range(n)
            al, pin = c.get("alignment"), c.get("offset")
            self._buffers = [
                Buffer(ids[i], int(c["lower"][i]), int(c["upper"][i]), int(c["size"][i]),
                       int(al[i]) if al is not None else 1,
                       int(pin[i]) if pin is not None and pin[i] >= 0 else None)
                for i in range(n)
            ]
            self._columns = None
        return self._buffers

    @buffers.setter
    def buffers(self, value: Iterable[Buffer]) -> None:
        self._buffers = list(value)
        self._columns = None

    def __len__(self) -> int:
        if self._buffers is None and self._columns is not None:
            return len(self._columns["lower"])
        return len(self.buffers)

    def ids(self) -> list[Any]:
        """The buffer ids in order."""
        if self._buffers is None and self._columns is not None:
            ids = self._columns["ids"]
            return list(ids) if ids is not None else list(range(len(self._columns["lower"])))
        return [b.id for b in self.buffers]

    def __repr__(self) -> str:
        return f"Problem({len(self)} buffers, capacity={self.capacity!r}, pools={self.pools!r})"

    def _handle(self) -> _lib.ProblemHandle:
        """A new handle holding a copy of the problem (the caller closes it)."""
        h = _lib.ProblemHandle()
        try:
            if self._origin is not None and self._unchanged():
                path, dims, _, _ = self._origin
                _load_into(h, path, dims)
            elif self._buffers is None and self._columns is not None:
                self._add_columns(h)
            else:
                self._add_buffers(h)
        except BaseException:
            h.close()
            raise
        return h

    def _unchanged(self) -> bool:
        """Whether the buffers and pools are still those load() read (then the file is re-read)."""
        assert self._origin is not None
        _, _, snapshot, pools = self._origin
        bs = self._buffers
        return (bs is not None and len(bs) == len(snapshot) and pools == self.pools
                and all(a is b for a, b in zip(bs, snapshot)))

    def _add_columns(self, h: _lib.ProblemHandle) -> None:
        c = self._columns
        assert c is not None
        n = len(c["lower"])
        ids = None
        if c["ids"] is not None:
            ids = (ctypes.c_char_p * n)(*[str(i).encode() for i in c["ids"]])
        al = c.get("alignment")
        _lib.check(_lib.lib().optalloc_problem_add_buffers(
            h.h, n, ids, _ptr(c["lower"]), _ptr(c["upper"]), _ptr(c["size"]),
            _ptr(al) if al is not None else None), h.h)
        if c.get("offset") is not None:
            _lib.check(_lib.lib().optalloc_problem_pins(h.h, n, _ptr(c["offset"])), h.h)
        self._add_pools(h)

    def _add_buffers(self, h: _lib.ProblemHandle) -> None:
        bs = self.buffers
        n = len(bs)
        ids = (ctypes.c_char_p * n)(*[str(b.id).encode() for b in bs])
        cols = [array.array("q", [getattr(b, f) for b in bs]) for f in ("lower", "upper", "size", "alignment")]
        L = _lib.lib()
        _lib.check(L.optalloc_problem_add_buffers(h.h, n, ids, *[_ptr(c) for c in cols]), h.h)
        self._add_pools(h)
        if any(b.offset is not None for b in bs):
            pins = array.array("q", [-1 if b.offset is None else b.offset for b in bs])
            _lib.check(L.optalloc_problem_pins(h.h, n, _ptr(pins)), h.h)
        for i, b in enumerate(bs):
            if b.hint is not None:
                _lib.check(L.optalloc_problem_hint(h.h, i, b.hint), h.h)
            if b.pool is not None:
                _lib.check(L.optalloc_problem_set_pool(h.h, i, b.pool.encode()), h.h)

    def _add_pools(self, h: _lib.ProblemHandle) -> None:
        for q in self.pools:
            _lib.check(_lib.lib().optalloc_problem_add_pool(h.h, q.name.encode(), q.capacity, q.alignment), h.h)


def _int64s(col: Any) -> Any:
    """A column as contiguous int64 values: a NumPy array as it is when it already is (no copy),
    converted once otherwise; any other sequence as an array('q')."""
    if hasattr(col, "__array_interface__"):
        import numpy as np

        return np.ascontiguousarray(col, dtype=np.int64)
    return array.array("q", col)


def _ptr(col: Any) -> Optional[int]:
    """The address of a column made by _int64s (or an array('q'), or an int32/int64 NumPy array)."""
    if len(col) == 0:
        return None
    if isinstance(col, array.array):
        return col.buffer_info()[0]
    return int(col.__array_interface__["data"][0])


def _dim_strings(dims: Dims) -> list[str]:
    if dims is None:
        return []
    if isinstance(dims, Mapping):
        return [f"{k}={v}" for k, v in dims.items()]
    return [str(d) for d in dims]


def _load_into(h: _lib.ProblemHandle, path: str, dims: list[str]) -> None:
    arr = (ctypes.c_char_p * len(dims))(*[d.encode() for d in dims])
    _lib.check(_lib.lib().optalloc_problem_load(h.h, path.encode(), arr, len(dims)), h.h)


def _read_back(h: _lib.ProblemHandle) -> list[Buffer]:
    """The buffers of a problem handle, as Buffers."""
    L = _lib.lib()
    n = ctypes.c_size_t()
    _lib.check(L.optalloc_problem_buffer_count(h.h, ctypes.byref(n)), h.h)
    cols = [array.array("q", bytes(8 * n.value)) for _ in range(6)]
    _lib.check(L.optalloc_problem_columns(h.h, n.value, *[_ptr(c) for c in cols]), h.h)
    p, length = ctypes.c_void_p(), ctypes.c_size_t()
    _lib.check(L.optalloc_problem_ids(h.h, ctypes.byref(p), ctypes.byref(length)), h.h)
    try:
        raw = ctypes.string_at(p.value, length.value) if p.value and length.value else b""
    finally:
        L.optalloc_string_free(p)
    ids = raw.decode("utf-8", "replace").split("\0")[:-1]
    lo, up, sz, al, pin, hint = cols
    return [
        Buffer(ids[i], lo[i], up[i], sz[i], al[i],
               pin[i] if pin[i] >= 0 else None, hint[i] if hint[i] >= 0 else None)
        for i in range(n.value)
    ]


def load(path: Union[str, PathLike[str]], dims: Dims = None) -> Problem:
    """Load a problem from any file `optalloc plan` reads.

    Args:
        path: a .csv (MiniMalloc's), .json problem, .graph.json model graph, .tflite or .onnx
            model, or .events trace.
        dims: ONNX symbolic dimensions, as --dim: {"batch": 1} or ["batch=1"].

    Returns:
        The problem. While its buffers and pools are left as loaded, solve() and verify() read
        the file again, so what a Buffer does not show (aliases, gaps, kinds) is kept.

    Raises:
        ValueError: the file is missing or malformed (the CLI's one-line message).
    """
    spath = fspath(path)
    d = _dim_strings(dims)
    with _lib.ProblemHandle() as h:
        _load_into(h, spath, d)
        bs = _read_back(h)
    p = Problem(bs)
    p._origin = (spath, d, tuple(p.buffers), [])
    return p


def from_csv(text: str, name: str = "<csv>") -> Problem:
    """Read a problem from CSV text in MiniMalloc's format (as optalloc's CSV reader does).

    Raises:
        ValueError: malformed CSV ("name:line: what is wrong").
    """
    data = text.encode()
    with _lib.ProblemHandle() as h:
        _lib.check(_lib.lib().optalloc_problem_load_bytes(h.h, data, len(data), name.encode(), None, 0), h.h)
        return Problem(_read_back(h))
