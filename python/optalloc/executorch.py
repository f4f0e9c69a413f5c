"""optalloc as ExecuTorch's memory planner.

    from executorch.exir.passes import MemoryPlanningPass
    import optalloc.executorch
    # Directly as the pass's planner:
    pass_ = MemoryPlanningPass(memory_planning_algo=optalloc.executorch.make_planner(time_limit=10.0))
    # Or as one algorithm among others in ExecuTorch's suite (the smallest total wins):
    from executorch.exir.memory_planning import MemoryPlanningAlgorithmSuite, greedy
    suite = MemoryPlanningAlgorithmSuite(algo_list=[greedy, optalloc.executorch.make_algorithm(time_limit=10.0)])
    pass_ = MemoryPlanningPass(memory_planning_algo=suite)

ExecuTorch calls both as ``f(alignment, specs, graph_module, graph_signature, extra_padding)``, but
expects different things back. What make_planner returns (and ``planner``) is what
MemoryPlanningPass wants: it writes ``mem_id``, ``mem_offset`` and ``mem_obj_id`` into every spec
and returns the buffer sizes (``List[int]``), as ``MemoryPlanningAlgorithmSuite.__call__`` does.
What make_algorithm returns (and ``algorithm``) is what goes into the suite's ``algo_list``: it
returns ``MemoryAlgoResult(spec_dict, bufsizes)`` (a dataclass with the same fields when executorch
is not importable) and writes nothing into the specs: the suite writes the winner's values back.
Malformed specs raise ValueError naming the spec and the field.

What it respects (notes/runtimes.md): a spec's size is ``spec.realign(alignment)`` then
``spec.allocated_memory``; ``lifetime = [first, last]`` is inclusive (planned as [first, last + 1));
``mem_id`` None means 1; one plan per mem_id, starting at ``graph_module.input_mem_buffer_sizes[k]``
when that list exists; ``bufsizes[0]`` stays 0 and each used entry is that arena's end plus
``extra_padding``; specs whose byte ranges overlap (a connected group) share a ``mem_obj_id``,
others get distinct ones, as ExecuTorch's verifier wants; a storage-backed spec (``storage_base``)
is not placed on its own: it takes its base's mem_id and mem_obj_id at the base's offset plus
``storage_base_offset``, and its base is planned live over its own and its children's lifetimes.
If optalloc's plan of an arena were larger than the shared-objects greedy ExecuTorch uses by
default, that greedy's layout is used instead, so the total is never above it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional

from .problem import Problem
from .solver import solve

__all__ = ["MemoryAlgoResult", "SpecAllocResult", "algorithm", "make_algorithm", "make_planner", "planner"]

MAX_MEM_ID = 255
"""The largest mem_id accepted: a mem_id indexes the program's list of planned buffers, one per
memory, and bufsizes holds an entry for every id up to the largest."""


@dataclass
class SpecAllocResult:
    """Where one spec goes: ExecuTorch's SpecAllocResult, used when executorch is not importable."""

    mem_id: int
    mem_obj_id: int
    mem_offset: int


@dataclass
class MemoryAlgoResult:
    """ExecuTorch's MemoryAlgoResult: every spec's placement and each arena's size (index 0 is 0)."""

    spec_dict: dict[Any, Any] = field(default_factory=dict)
    bufsizes: list[int] = field(default_factory=list)


def _types() -> tuple[Any, Any]:
    try:
        from executorch.exir.memory_planning import (  # type: ignore
            MemoryAlgoResult as R,
            SpecAllocResult as S,
        )

        return R, S
    except Exception:
        return MemoryAlgoResult, SpecAllocResult


@dataclass
class _Root:
    """A spec placed on its own, with the lifetime it must cover (its children's too)."""

    spec: Any
    mem_id: int
    size: int
    first: int
    last: int


def _root_of(spec: Any) -> tuple[Any, int]:
    """The spec whose bytes spec lives in (itself when not storage-backed) and the byte delta."""
    delta, cur, seen = 0, spec, set()
    while (base := getattr(cur, "storage_base", None)) is not None:
        if id(cur) in seen:
            raise ValueError("storage_base specs form a cycle")
        seen.add(id(cur))
        delta += int(getattr(cur, "storage_base_offset", 0) or 0)
        cur = base
    return cur, delta


def _lifetime(spec: Any) -> tuple[int, int]:
    lt = getattr(spec, "lifetime", None)
    if lt is None or len(lt) != 2 or lt[0] is None or lt[1] is None:
        raise ValueError(f"spec {spec!r} has no lifetime [first, last]")
    first = _int(lt[0], f"spec {spec!r}: lifetime[0]", 0)
    return first, _int(lt[1], f"spec {spec!r}: lifetime[1]", first)


def _shared_objects(roots: list[_Root]) -> tuple[list[int], int]:
    """ExecuTorch's default greedy (shared objects by size): offsets and the arena size.

    Largest first, each spec joins the shared object of closest size whose specs are all
    disjoint from it in (inclusive) lifetime, growing it, or opens a new one; the objects are
    then laid end to end.
    """
    order = sorted(range(len(roots)), key=lambda i: -roots[i].size)
    objs: list[dict[str, Any]] = []
    obj_of = [0] * len(roots)
    for i in order:
        r = roots[i]
        best = None
        for k, o in enumerate(objs):
            if all(r.last < a or b < r.first for a, b in o["lifetimes"]):
                if best is None or abs(o["size"] - r.size) < abs(objs[best]["size"] - r.size):
                    best = k
        if best is None:
            objs.append({"size": r.size, "lifetimes": [(r.first, r.last)]})
            best = len(objs) - 1
        else:
            objs[best]["size"] = max(objs[best]["size"], r.size)
            objs[best]["lifetimes"].append((r.first, r.last))
        obj_of[i] = best
    starts, top = [], 0
    for o in objs:
        starts.append(top)
        top += o["size"]
    return [starts[obj_of[i]] for i in range(len(roots))], top


def _plan_arena(roots: list[_Root], alignment: int, time_limit: float, method: str,
                threads: int, seed: int) -> tuple[list[int], int]:
    """Offsets (from 0) and the peak of one arena's roots: optalloc's plan, or the greedy's
    layout when that is smaller."""
    g_offsets, g_peak = _shared_objects(roots)
    p = Problem.from_arrays([r.first for r in roots], [r.last + 1 for r in roots],
                            [r.size for r in roots], [max(alignment, 1)] * len(roots))
    s = solve(p, time_limit=time_limit, method=method, threads=threads, seed=seed)
    if s.peak is None or s.peak > g_peak:
        return g_offsets, g_peak
    return [s.offsets[i] for i in range(len(roots))], s.peak


def _groups(offsets: list[int], sizes: list[int]) -> list[int]:
    """A group number per buffer: buffers whose byte ranges overlap, directly or through
    others, share one; zero-size buffers overlap nothing."""
    out = [0] * len(offsets)
    order = sorted(range(len(offsets)), key=lambda i: (offsets[i], -sizes[i]))
    group, end = -1, None
    for i in order:
        if sizes[i] <= 0:
            continue
        if end is None or offsets[i] >= end:
            group += 1
            end = offsets[i] + sizes[i]
        else:
            end = max(end, offsets[i] + sizes[i])
        out[i] = group
    for i in range(len(offsets)):
        if sizes[i] <= 0:
            group += 1
            out[i] = group
    return out


def _int(value: Any, what: str, low: int = 0, high: Optional[int] = None) -> int:
    """value as an int in [low, high], or ValueError naming what."""
    if isinstance(value, bool) or not isinstance(value, int):
        if not (hasattr(value, "__index__") and not isinstance(value, float)):
            raise ValueError(f"{what} must be an integer, not {value!r}")
        value = value.__index__()
    if value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise ValueError(f"{what} must be {bound}, not {value}")
    return int(value)


def _check(alignment: int, specs: list[Any], graph_module: Any, extra_padding: int) -> None:
    """ValueError for what ExecuTorch's planners would turn into impossible placements."""
    _int(alignment, "alignment", 1)
    _int(extra_padding, "extra_padding", 0)
    inputs = getattr(graph_module, "input_mem_buffer_sizes", None)
    if isinstance(inputs, list):
        for k, v in enumerate(inputs):
            _int(v, f"graph_module.input_mem_buffer_sizes[{k}]", 0)
    for spec in specs:
        mem_id = getattr(spec, "mem_id", None)
        if mem_id is not None:
            _int(mem_id, f"spec {spec!r}: mem_id", 1, MAX_MEM_ID)
        _lifetime(spec)
        base = getattr(spec, "storage_base", None)
        if base is not None:
            delta = _int(getattr(spec, "storage_base_offset", 0) or 0, f"spec {spec!r}: storage_base_offset", 0)
            if delta + _int(spec.allocated_memory, f"spec {spec!r}: allocated_memory") > \
                    _int(base.allocated_memory, f"spec {base!r}: allocated_memory"):
                raise ValueError(f"spec {spec!r}: its {spec.allocated_memory} bytes at storage_base_offset "
                                 f"{delta} pass the end of its storage_base's {base.allocated_memory}")


def _plan(alignment: int, specs: Iterable[Any], graph_module: Any, extra_padding: int,
          time_limit: float, method: str, threads: int, seed: int) -> Any:
    result_type, alloc_type = _types()
    specs = list(specs)
    roots: dict[int, _Root] = {}  # id(root spec) -> _Root
    placed: list[tuple[Any, Any, int]] = []  # (spec, root spec, delta)
    _int(alignment, "alignment", 1)
    for spec in specs:
        spec.realign(alignment)
    _check(alignment, specs, graph_module, extra_padding)
    for spec in specs:
        _int(spec.allocated_memory, f"spec {spec!r}: allocated_memory")
        root, delta = _root_of(spec)
        first, last = _lifetime(spec)
        r = roots.get(id(root))
        if r is None:
            if root is not spec:
                root.realign(alignment)
            rf, rl = _lifetime(root)
            mem_id = getattr(root, "mem_id", None)
            r = _Root(root, 1 if mem_id is None else int(mem_id), int(root.allocated_memory), rf, rl)
            roots[id(root)] = r
        r.first, r.last = min(r.first, first), max(r.last, last)
        placed.append((spec, root, delta))
    by_mem: dict[int, list[_Root]] = {}
    for r in roots.values():
        by_mem.setdefault(r.mem_id, []).append(r)
    if not by_mem:
        return result_type(spec_dict={}, bufsizes=[0, 0])
    inputs = getattr(graph_module, "input_mem_buffer_sizes", None)
    bufsizes = [0] * (max(by_mem) + 1)
    where: dict[int, tuple[int, int, int]] = {}  # id(root spec) -> (mem_id, mem_obj_id, offset)
    deadline = time.monotonic() + time_limit
    for k, mem_id in enumerate(sorted(by_mem)):
        rs = by_mem[mem_id]
        base = int(inputs[mem_id]) if isinstance(inputs, list) and len(inputs) > mem_id else 0
        share = max((deadline - time.monotonic()) / (len(by_mem) - k), 0.001) if time_limit > 0 else 0
        offsets, peak = _plan_arena(rs, alignment, share, method, threads, seed)
        groups = _groups(offsets, [r.size for r in rs])
        for r, off, g in zip(rs, offsets, groups):
            where[id(r.spec)] = (mem_id, g, base + off)
        bufsizes[mem_id] = base + peak + extra_padding
    spec_dict = {}
    for spec, root, delta in placed:
        mem_id, obj, off = where[id(root)]
        spec_dict[spec] = alloc_type(mem_id=mem_id, mem_obj_id=obj, mem_offset=off + delta)
    for r in roots.values():  # a base that is not among the specs is planned too
        if r.spec not in spec_dict:
            mem_id, obj, off = where[id(r.spec)]
            spec_dict[r.spec] = alloc_type(mem_id=mem_id, mem_obj_id=obj, mem_offset=off)
    return result_type(spec_dict=spec_dict, bufsizes=bufsizes)


def make_algorithm(time_limit: float = 10.0, method: str = "auto", threads: int = 0,
                   seed: int = 1) -> Callable[..., Any]:
    """An ExecuTorch memory-planning algorithm with these solve settings.

    Args:
        time_limit: seconds for the whole call, shared among the arenas (mem_ids).
        method: as optalloc.solve ("auto", "heuristic", a planner name, ...).
        threads: concurrent workers (0 = all cores; 1 = deterministic plans).
        seed: the seed of randomised planners.

    Returns:
        ``algo(alignment, specs, graph_module, graph_signature, extra_padding=0)`` returning a
        MemoryAlgoResult, for MemoryPlanningPass(memory_planning_algo=...) or
        MemoryPlanningAlgorithmSuite(algo_list=[...]).
    """

    def optalloc(alignment: int, specs: Iterable[Any], graph_module: Any = None,
                 graph_signature: Optional[Any] = None, extra_padding: int = 0) -> Any:
        """Plan specs with optalloc (see optalloc.executorch).

        Raises:
            ValueError: a spec without a lifetime, a cycle of storage_base specs, or bad input.
        """
        return _plan(alignment, specs, graph_module, extra_padding, time_limit, method, threads, seed)

    return optalloc


algorithm = make_algorithm()
"""The algorithm with the default settings (10 s, method auto), for MemoryPlanningAlgorithmSuite."""


def make_planner(time_limit: float = 10.0, method: str = "auto", threads: int = 0,
                 seed: int = 1) -> Callable[..., list[int]]:
    """A planner for MemoryPlanningPass(memory_planning_algo=...), with these solve settings.

    Args:
        time_limit, method, threads, seed: as for make_algorithm.

    Returns:
        ``planner(alignment, specs, graph_module, graph_signature, extra_padding=0)``: it plans as
        make_algorithm's algorithm, writes ``mem_id``, ``mem_offset`` and ``mem_obj_id`` into every
        spec (as MemoryPlanningAlgorithmSuite writes its winner's) and returns the buffer sizes.
    """
    algo = make_algorithm(time_limit, method, threads, seed)

    def optalloc(alignment: int, specs: Iterable[Any], graph_module: Any = None,
                 graph_signature: Optional[Any] = None, extra_padding: int = 0) -> list[int]:
        """Plan specs with optalloc and write the placements into them (see optalloc.executorch).

        Raises:
            ValueError: a malformed spec (see make_algorithm).
        """
        res = algo(alignment, specs, graph_module, graph_signature, extra_padding)
        for spec, where in res.spec_dict.items():
            spec.mem_id = where.mem_id
            spec.mem_offset = where.mem_offset
            spec.mem_obj_id = where.mem_obj_id
        return list(res.bufsizes)

    return optalloc


planner = make_planner()
"""The planner with the default settings (10 s, method auto), for MemoryPlanningPass."""
