"""Solving and verifying.

    >>> import optalloc
    >>> p = optalloc.load("../shared/benchmarks/minimalloc/A.1048576.csv")
    >>> s = optalloc.solve(p, time_limit=10)
    >>> s.status, s.peak, s.lower_bound
    ('optimal', 1048576, 1048576)
    >>> optalloc.verify(p, s.offsets).valid
    True
"""

from __future__ import annotations

import array
import ctypes
import math
import threading
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence, Union

from . import _lib
from .problem import Problem, _int, _int64s, _ptr


@dataclass(frozen=True)
class Solution:
    """The outcome of solve: a plan (when one was found), its peak and what is proven.

    Attributes:
        offsets: buffer id -> offset (empty without a plan).
        peak: max(offset + size) of the largest pool, None without a plan.
        lower_bound: no plan has a smaller peak.
        status: "optimal" (peak == lower bound), "feasible" (a plan, optimality not proven),
            "infeasible" (proven: nothing fits the capacity), "unknown" (no plan within the
            capacity found, none refuted).
        method: the planner or engine that found the plan.
        reason: why the status is infeasible or unknown ("" otherwise).
        pools: buffer id -> pool name (empty without a plan).
    """

    offsets: dict[Any, int]
    peak: Optional[int]
    lower_bound: int
    status: str
    method: str = ""
    reason: str = ""
    pools: dict[Any, str] = field(default_factory=dict)
    _offsets: "array.array[int]" = field(default_factory=lambda: array.array("q"), repr=False, compare=False)

    def offsets_array(self) -> Any:
        """The offsets in buffer order as a NumPy int64 array (a view, not a copy).

        Raises:
            ValueError: there is no plan.
        """
        import numpy as np

        if self.peak is None:
            raise ValueError(f"no plan: status {self.status}: {self.reason}")
        return np.frombuffer(self._offsets, dtype=np.int64)


class Solver:
    """Solves problems with fixed options; holds a library handle (close() or a with block).

    Args:
        time_limit: seconds per solve (0 = no limit).
        method: "auto", "exact", "heuristic", "bnb", "sat" or a planner name (as plan --method).
        capacity: decide whether a plan fits under this many bytes (None = minimise the peak).
        threads: concurrent workers (0 = all cores).
        seed: the seed of randomised planners (same input, options and seed: same plan).
        work: a work budget instead of wall time (0 = off), as `optalloc plan --work`.

    Raises:
        ValueError: a time limit that is not a number >= 0 (NaN, a string), a capacity, thread
            count, seed or work budget that is not an integer in range (floats included), naming the argument.
    """

    def __init__(self, time_limit: float = 10.0, method: str = "auto", capacity: Optional[int] = None,
                 threads: int = 0, seed: int = 1, work: int = 0) -> None:
        ms = _milliseconds(time_limit)
        if not isinstance(method, str):
            raise ValueError(f"method must be a string, not {method!r}")
        cap = 0 if capacity is None else _int(capacity, "capacity", 0)
        thr = _int(threads, "threads", 0, (1 << 31) - 1)
        sd = _int(seed, "seed")
        wk = _int(work, "work", 0)
        self._handle = _SolverHandle()
        h, L = self._handle.h, _lib.lib()
        try:
            _lib.check(L.optalloc_solver_set_time_limit_ms(h, ms), h)
            _lib.check(L.optalloc_solver_set_method(h, method.encode()), h)
            _lib.check(L.optalloc_solver_set_capacity(h, cap), h)
            _lib.check(L.optalloc_solver_set_threads(h, thr), h)
            _lib.check(L.optalloc_solver_set_seed(h, sd), h)
            _lib.check(L.optalloc_solver_set_work(h, wk), h)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Free the solver (not while it solves)."""
        self._handle.close()

    def __enter__(self) -> "Solver":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def cancel(self) -> None:
        """Stop the running solve (it returns its best plan so far) and every later one.

        Safe from any thread.
        """
        h = self._handle.h
        _lib.check(_lib.lib().optalloc_solver_cancel(h), h)

    def solve(self, problem: Problem) -> Solution:
        """Solve problem; Ctrl-C cancels the solve and raises KeyboardInterrupt.

        The solve runs in a worker thread (the GIL is released during it) while this thread
        waits, so that a KeyboardInterrupt reaches Python: the solve is then cancelled and
        waited for and its result freed before the KeyboardInterrupt propagates.

        Raises:
            ValueError: bad input (the CLI's one-line message).
            RuntimeError: a failure inside the library.
            KeyboardInterrupt: Ctrl-C during the solve.
        """
        with problem._handle() as ph:
            out: dict[str, Any] = {}
            sh = self._handle.h

            finished = threading.Event()

            def work() -> None:
                try:
                    r = _lib.c_uintptr()
                    out["rc"] = _lib.lib().optalloc_solver_solve(sh, ph.h, ctypes.byref(r))
                    out["r"] = r.value
                finally:
                    finished.set()

            worker = threading.Thread(target=work, name="optalloc-solve", daemon=True)
            worker.start()
            # The worker's end is an event, not Thread.join: on Python 3.11 a
            # KeyboardInterrupt inside join() marks a running thread as
            # stopped (threading's bpo-45274 handler), so a join after it
            # returned at once, before the solve had stopped and made the
            # result, which then leaked.
            try:
                while not finished.wait(0.1):
                    pass
            except BaseException:
                self.cancel()
                _wait(finished)
                _lib.ResultHandle(out.get("r", 0)).close()
                raise
            with _lib.ResultHandle(out.get("r", 0)) as rh:
                _lib.check(out["rc"], sh)
                return _solution(rh, problem.ids())


def _milliseconds(seconds: Any) -> int:
    """A time limit in whole milliseconds, rounded up so that a positive limit is never 0 (no
    limit); ValueError for anything but a finite number >= 0."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds) \
            or seconds < 0:
        raise ValueError(f"time_limit must be a number of seconds >= 0, not {seconds!r}")
    ms = math.ceil(seconds * 1000)
    if ms > (1 << 63) - 1:
        raise ValueError(f"time_limit {seconds!r} is past int64 milliseconds")
    return int(ms)


class _SolverHandle(_lib.Handle):
    _free_name = "optalloc_solver_free"

    def __init__(self) -> None:
        super().__init__("optalloc_solver_new")


def _wait(done: threading.Event) -> None:
    """Wait for done even if more Ctrl-Cs come (the solve stops soon after its cancel)."""
    while True:
        try:
            done.wait()
            return
        except KeyboardInterrupt:
            continue


def _solution(rh: _lib.ResultHandle, ids: Sequence[Any]) -> Solution:
    L, h = _lib.lib(), rh.h
    st, peak, lb = ctypes.c_int(), ctypes.c_int64(), ctypes.c_int64()
    _lib.check(L.optalloc_result_status(h, ctypes.byref(st)), h)
    _lib.check(L.optalloc_result_peak(h, ctypes.byref(peak)), h)
    _lib.check(L.optalloc_result_lower_bound(h, ctypes.byref(lb)), h)
    method, reason = ctypes.c_void_p(), ctypes.c_void_p()
    _lib.check(L.optalloc_result_method(h, ctypes.byref(method)), h)
    _lib.check(L.optalloc_result_reason(h, ctypes.byref(reason)), h)
    status = _lib.STATUSES[st.value]
    offs: array.array[int] = array.array("q")
    offsets: dict[Any, int] = {}
    pools: dict[Any, str] = {}
    if peak.value >= 0:
        n = len(ids)
        offs = array.array("q", bytes(8 * n))
        pidx = array.array("i", bytes(4 * n))
        _lib.check(L.optalloc_result_offsets(h, n, _ptr(offs), _ptr(pidx)), h)
        names: dict[int, str] = {}
        for q in set(pidx):
            p = ctypes.c_void_p()
            _lib.check(L.optalloc_result_pool_name(h, q, ctypes.byref(p)), h)
            names[q] = _lib.take_string(p.value)
        offsets = dict(zip(ids, offs))
        pools = {i: names[q] for i, q in zip(ids, pidx)}
    return Solution(offsets=offsets, peak=peak.value if peak.value >= 0 else None, lower_bound=lb.value,
                    status=status, method=_lib.take_string(method.value),
                    reason=_lib.take_string(reason.value), pools=pools, _offsets=offs)


def solve(problem: Problem, time_limit: float = 10.0, method: str = "auto",
          capacity: Optional[int] = None, threads: int = 0, seed: int = 1, work: int = 0) -> Solution:
    """Plan problem: offsets with the smallest peak found, the lower bound and the status.

    Args:
        problem: the problem (its capacity applies unless capacity is given).
        time_limit: seconds (0 = no limit); the best plan found by then is returned.
        method: "auto" (heuristics, then the exact race), "exact", "heuristic", "bnb", "sat" or
            a planner name, as `optalloc plan --method`.
        capacity: decide whether a plan fits in this many bytes instead of minimising.
        threads: concurrent workers (0 = all cores).
        seed: the seed of randomised planners.
        work: a work budget instead of wall time (0 = off), as `optalloc plan --work`: the same
            plan on any machine (time_limit is then only a safety net).

    Returns:
        A Solution; infeasible and unknown are statuses, not exceptions.

    Raises:
        ValueError: bad input, with the CLI's one-line message.
        KeyboardInterrupt: Ctrl-C (the solve is cancelled first; nothing leaks).
    """
    cap = capacity if capacity is not None else problem.capacity
    with Solver(time_limit, method, cap, threads, seed, work) as s:
        return s.solve(problem)


@dataclass(frozen=True)
class Verification:
    """The outcome of verify: valid when there is no violation (it is truthy then)."""

    violations: list[str]

    @property
    def valid(self) -> bool:
        """No violation."""
        return not self.violations

    def __bool__(self) -> bool:
        return self.valid


def verify(problem: Problem, offsets: Union[Mapping[Any, int], Sequence[int], Any],
           pools: Optional[Mapping[Any, str]] = None) -> Verification:
    """Check a plan independently of the planners, as `optalloc verify` does.

    Args:
        problem: the problem.
        offsets: buffer id -> offset, or one offset per buffer in order (a NumPy array too).
        pools: buffer id -> pool name (None: every buffer in the first pool).

    Returns:
        The violations, one line each ("overlap: ...", "misaligned: ...").

    Raises:
        ValueError: a buffer without an offset, or a bad problem (the CLI's message).
    """
    ids = problem.ids()
    if isinstance(offsets, Mapping):
        missing = [i for i in ids if i not in offsets]
        if missing:
            raise ValueError(f"no offset for buffer {missing[0]!r}")
        col = array.array("q", [_int(offsets[i], f"offsets[{i!r}]") for i in ids])
    else:
        col = _int64s(offsets, "offsets")
    pidx = None
    if pools is not None:
        names = [q.name for q in problem.pools] or ["default"]
        pidx = array.array("i", [names.index(pools[i]) if pools[i] in names else -1 for i in ids])
    with problem._handle() as h:
        L = _lib.lib()
        n, lines = ctypes.c_size_t(), ctypes.c_void_p()
        _lib.check(L.optalloc_verify(h.h, len(col), _ptr(col), _ptr(pidx) if pidx else None,
                                     ctypes.byref(n), ctypes.byref(lines)), h.h)
        text = _lib.take_string(lines.value)
    return Verification([line for line in text.split("\n") if line])

