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
Malformed specs raise ValueError naming the spec and the field (the library's message; a spec
is named by its repr).

This module is a thin adapter: it collects the specs into ExecuTorch's specs JSON
(docs/formats.md), hands it to the library (``optalloc_executorch_plan``), which plans with
ExecuTorch's rules in Go (package device/executorch, the same runtime as
``optalloc plan specs.json``), and returns what the library gives back. What the rules are
(notes/runtimes.md): a spec's size is ``spec.realign(alignment)`` then
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

import ctypes
import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional

from . import _lib
from .solver import Solver

__all__ = ["MemoryAlgoResult", "SpecAllocResult", "algorithm", "make_algorithm", "make_planner", "planner"]


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


def _number(value: Any) -> Any:
    """A value for the JSON: an integer-like object (a NumPy integer) as an int; anything else
    as it is (the library says what is wrong with it)."""
    if isinstance(value, bool) or value is None or isinstance(value, (int, float, str)):
        return value
    if hasattr(value, "__index__"):
        return value.__index__()
    return str(value)


def _alignment(alignment: Any) -> int:
    """The alignment, checked here because spec.realign(alignment) runs before the library."""
    if isinstance(alignment, bool) or not hasattr(alignment, "__index__") or isinstance(alignment, float):
        raise ValueError(f"alignment must be an integer, not {alignment!r}")
    a = alignment.__index__()
    if a < 1:
        raise ValueError(f"alignment must be at least 1, not {a}")
    return int(a)


def specs_json(alignment: int, specs: Iterable[Any], graph_module: Any = None,
               extra_padding: int = 0) -> tuple[str, list[Any]]:
    """ExecuTorch's call as the specs JSON the library reads (docs/formats.md), and the spec
    objects in the order of its "specs" (their ids are their positions). Each spec (and each
    storage_base that is not among the specs) is realigned first.

    Raises:
        ValueError: an alignment that is not an integer >= 1.
    """
    alignment = _alignment(alignment)
    order: list[Any] = []
    index: dict[int, int] = {}

    def add(spec: Any) -> None:
        if id(spec) not in index:
            index[id(spec)] = len(order)
            order.append(spec)

    for spec in specs:
        add(spec)
    k = 0
    while k < len(order):  # bases that are not among the specs are planned too
        base = getattr(order[k], "storage_base", None)
        if base is not None:
            add(base)
        k += 1
    out = []
    for i, spec in enumerate(order):
        spec.realign(alignment)
        lt = getattr(spec, "lifetime", None)
        lifetime = [_number(v) for v in lt] if isinstance(lt, (list, tuple)) else _number(lt)
        d: dict[str, Any] = {"id": str(i), "size": _number(spec.allocated_memory), "lifetime": lifetime,
                             "mem_id": _number(getattr(spec, "mem_id", None))}
        base = getattr(spec, "storage_base", None)
        if base is not None:
            d["storage_base"] = str(index[id(base)])
            off = getattr(spec, "storage_base_offset", None)
            d["storage_base_offset"] = 0 if off is None else _number(off)
        out.append(d)
    body: dict[str, Any] = {"alignment": alignment, "extra_padding": _number(extra_padding), "specs": out}
    inputs = getattr(graph_module, "input_mem_buffer_sizes", None)
    if isinstance(inputs, (list, tuple)):
        body["input_mem_buffer_sizes"] = [_number(v) for v in inputs]
    return json.dumps({"executorch": body}), order


_SPEC_ID = re.compile(r'spec "(\d+)"')


def _plan(alignment: int, specs: Iterable[Any], graph_module: Any, extra_padding: int,
          time_limit: float, method: str, threads: int, seed: int) -> Any:
    result_type, alloc_type = _types()
    text, order = specs_json(alignment, specs, graph_module, extra_padding)
    L = _lib.lib()
    f = L.optalloc_executorch_plan
    f.restype = ctypes.c_int
    f.argtypes = [_lib.c_uintptr, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p),
                  ctypes.POINTER(ctypes.c_size_t)]
    data = text.encode()
    with Solver(time_limit=time_limit, method=method, threads=threads, seed=seed) as solver:
        h = solver._handle.h
        out, n = ctypes.c_void_p(), ctypes.c_size_t()
        rc = f(h, data, len(data), ctypes.byref(out), ctypes.byref(n))
        if rc != _lib.OK:
            msg = _SPEC_ID.sub(lambda m: f"spec {order[int(m.group(1))]!r}", _lib.error(h))
            if rc == _lib.BAD_INPUT:
                raise ValueError(msg)
            raise RuntimeError(msg)
        try:
            plan = json.loads(ctypes.string_at(out, n.value))["executorch"]
        finally:
            L.optalloc_string_free(out)
    spec_dict = {}
    for spec, where in zip(order, plan["specs"]):
        spec_dict[spec] = alloc_type(mem_id=where["mem_id"], mem_obj_id=where["mem_obj_id"],
                                     mem_offset=where["mem_offset"])
    return result_type(spec_dict=spec_dict, bufsizes=list(plan["bufsizes"]))


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
            ValueError: a malformed spec or argument (the library's message, naming the spec
                and the field).
            RuntimeError: a failure inside the library.
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
