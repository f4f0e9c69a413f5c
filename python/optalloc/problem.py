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
        if capacity is not None:
            _int(capacity, "capacity", 0)
        # A loaded problem is held in the library (_held) with what its Buffers do not show
        # (aliases, gaps, kinds); _snapshot is its buffers and pools as last sent there.
        self._held: Optional[_lib.ProblemHandle] = None
        self._snapshot: Optional[tuple[tuple[Buffer, ...], list[Pool]]] = None
        self.warnings: list[str] = []

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
            ValueError: the columns have different lengths, or a value is not an integer of
                int64's range (a float, NaN, a wrong dtype or shape), naming the argument.
        """
        cols = {"lower": _int64s(lower, "lower"), "upper": _int64s(upper, "upper"),
                "size": _int64s(size, "size")}
        if alignment is not None:
            cols["alignment"] = _int64s(alignment, "alignment")
        if offset is not None:
            cols["offset"] = _int64s(offset, "offset")
        if capacity is not None:
            _int(capacity, "capacity", 0)
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

    def _handle(self) -> Any:
        """A handle holding the problem, for one call (a with block): the library problem a
        loaded problem holds, with the edits made since sent to it; else a new one, closed at
        the end of the block."""
        if self._held is not None:
            self._sync_held()
            return _Borrowed(self._held)
        h = _lib.ProblemHandle()
        try:
            if self._buffers is None and self._columns is not None:
                self._add_columns(h)
            else:
                self._add_buffers(h)
        except BaseException:
            h.close()
            raise
        return h

    def _sync_held(self) -> None:
        """Send the edits of a loaded problem to the library problem it holds: pins (offset),
        hints and pools of buffers, and pools appended. Its buffers' ids, lifetimes, sizes and
        alignments are the file's: another value is a ValueError, since the library problem
        carries what a Buffer does not show (aliases, gaps, kinds) and could not follow."""
        assert self._held is not None and self._snapshot is not None
        snap, pools = self._snapshot
        bs = self.buffers
        if len(bs) != len(snap):
            raise ValueError(f"a loaded problem keeps its {len(snap)} buffers (now {len(bs)}): to plan others, "
                             "make a new Problem(buffers) (what a Buffer does not show, aliases and gaps, is then lost)")
        if self.pools[:len(pools)] != pools:
            raise ValueError("a loaded problem's pools can be appended to, not changed")
        h, L = self._held.h, _lib.lib()
        for q in self.pools[len(pools):]:
            _check_pool(q)
            _lib.check(L.optalloc_problem_add_pool(h, q.name.encode(), q.capacity, q.alignment), h)
        for i, (a, b) in enumerate(zip(snap, bs)):
            if a is b:
                continue
            for f in ("id", "lower", "upper", "size", "alignment"):
                if getattr(a, f) != getattr(b, f):
                    raise ValueError(f"buffer {a.id!r}: {f} is the loaded file's ({getattr(a, f)!r}, now "
                                     f"{getattr(b, f)!r}); pins (offset), hints and pools can change; to plan "
                                     "other buffers make a new Problem(buffers)")
            if a.offset != b.offset:
                off = -1 if b.offset is None else _int(b.offset, f"buffer {b.id!r}: offset", 0)
                _lib.check(L.optalloc_problem_pin(h, i, off), h)
            if a.hint != b.hint:
                hint = -1 if b.hint is None else _int(b.hint, f"buffer {b.id!r}: hint", 0)
                _lib.check(L.optalloc_problem_hint(h, i, hint), h)
            if a.pool != b.pool:
                _lib.check(L.optalloc_problem_set_pool(h, i, (b.pool or "").encode()), h)
        self._snapshot = (tuple(bs), list(self.pools))

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
        cols = [array.array("q", [_int(getattr(b, f), f"buffer {b.id!r}: {f}") for b in bs])
                for f in ("lower", "upper", "size", "alignment")]
        for b in bs:
            for f in ("offset", "hint"):
                if getattr(b, f) is not None:
                    _int(getattr(b, f), f"buffer {b.id!r}: {f}", 0)
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
            _check_pool(q)
            _lib.check(_lib.lib().optalloc_problem_add_pool(h.h, q.name.encode(), q.capacity, q.alignment), h.h)


INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def _int(value: Any, what: str, low: int = INT64_MIN, high: int = INT64_MAX) -> int:
    """value as an int in [low, high]; ValueError naming what for anything else (a float, even an
    integral one, a bool, a string, NaN, a value out of range): nothing is wrapped or truncated."""
    if isinstance(value, (bool, float)) or not hasattr(value, "__index__"):
        raise ValueError(f"{what} must be an integer, not {value!r}")
    v = value.__index__()
    if v < low or v > high:
        raise ValueError(f"{what} must be between {low} and {high}, not {v}")
    return int(v)


def _int64s(col: Any, what: str = "column") -> Any:
    """A column as contiguous int64 values: a NumPy array as it is when it already is (no copy),
    converted once otherwise; any other sequence as an array('q'). ValueError for a float or
    other non-integer dtype, a shape other than one dimension, or a value out of int64's range."""
    if hasattr(col, "__array_interface__"):
        import numpy as np

        a = np.asarray(col)
        if a.ndim != 1:
            raise ValueError(f"{what} must be one-dimensional, not of shape {a.shape}")
        if a.dtype.kind not in "iu":
            raise ValueError(f"{what} must hold integers, not {a.dtype}")
        if a.dtype.kind == "u" and a.size and int(a.max()) > INT64_MAX:
            raise ValueError(f"{what}: {int(a.max())} is past int64")
        return np.ascontiguousarray(a, dtype=np.int64)
    if isinstance(col, (str, bytes)) or not hasattr(col, "__iter__"):
        raise ValueError(f"{what} must be a sequence of integers, not {col!r}")
    return array.array("q", [_int(v, f"{what}[{i}]") for i, v in enumerate(col)])


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


def load(path: Union[str, PathLike[str]], dims: Dims = None, target: Optional[str] = None,
         kernels: Optional[str] = None) -> Problem:
    """Load a problem from any file `optalloc plan` reads.

    Args:
        path: a .csv (MiniMalloc's), .json problem, .graph.json model graph, .tflite or .onnx
            model, or .events trace.
        dims: ONNX symbolic dimensions, as --dim: {"batch": 1} or ["batch=1"].
        target: a TFLite model's device, as --target: "host" (default: TFLite Micro's
            reference kernels) or a Cortex-M ("cortex-m4", "cortex-m55", ...: CMSIS-NN's
            kernels on that CPU's code path), whose kernels' scratch buffers are planned.
        kernels: as --kernels, "reference" or "cmsis-nn" to override the target's.

    Returns:
        The problem, held in the library as read (the file is not read again): what a Buffer
        does not show (aliases, gaps, kinds) is kept. Its pins (offset), hints and pools may be
        edited and pools appended; its lifetimes, sizes and alignments stay the file's.
        ``warnings`` lists the lines the CLI prints as "warning: ...".

    Raises:
        ValueError: the file is missing, malformed or a device (the CLI's one-line message).
    """
    spath = fspath(path)
    d = _dim_strings(dims)
    for name, v in (("target", target), ("kernels", kernels)):
        if v is not None and not isinstance(v, str):
            raise ValueError(f"{name} must be a string, not {v!r}")
    h = _lib.ProblemHandle()
    try:
        if target or kernels:
            t, k = (target or "").encode(), (kernels or "").encode()
            _lib.check(_lib.lib().optalloc_problem_set_target(h.h, t, k), h.h)
        _load_into(h, spath, d)
        bs = _read_back(h)
        warnings = _warnings(h)
    except BaseException:
        h.close()
        raise
    p = Problem(bs)
    p._held, p._snapshot, p.warnings = h, (tuple(p.buffers), []), warnings
    return p


def _warnings(h: _lib.ProblemHandle) -> list[str]:
    p, n = ctypes.c_void_p(), ctypes.c_size_t()
    _lib.check(_lib.lib().optalloc_problem_warnings(h.h, ctypes.byref(p), ctypes.byref(n)), h.h)
    return [line for line in _lib.take_string(p.value).split("\n") if line]


class _Borrowed:
    """A held handle lent for one call: leaving the with block does not free it."""

    def __init__(self, handle: _lib.ProblemHandle) -> None:
        self._handle = handle

    @property
    def h(self) -> int:
        return self._handle.h

    def __enter__(self) -> "_Borrowed":
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def _check_pool(q: Pool) -> None:
    if not isinstance(q.name, str) or not q.name:
        raise ValueError(f"pool name must be a non-empty string, not {q.name!r}")
    _int(q.capacity, f"pool {q.name!r}: capacity", 0)
    _int(q.alignment, f"pool {q.name!r}: alignment", 0)


def from_csv(text: str, name: str = "<csv>") -> Problem:
    """Read a problem from CSV text in MiniMalloc's format (as optalloc's CSV reader does).

    Raises:
        ValueError: malformed CSV ("name:line: what is wrong").
    """
    data = text.encode()
    with _lib.ProblemHandle() as h:
        _lib.check(_lib.lib().optalloc_problem_load_bytes(h.h, data, len(data), name.encode(), None, 0), h.h)
        return Problem(_read_back(h))
