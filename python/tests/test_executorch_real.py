"""optalloc.executorch against ExecuTorch's own code (../shared/executorch, loaded with stand-in
modules for torch: tests/etload.py): the real MemoryPlanningAlgorithmSuite with optalloc's
algorithm in its list, the real apply_algo (what MemoryPlanningPass.run calls) with optalloc's
planner passed directly, and ExecuTorch's Verifier on the specs written."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any, Optional

import pytest

from optalloc import executorch as et

import etload
from etspecs import Spec, StorageSpec
from conftest import shared


class View(StorageSpec):
    def __init__(self, nbytes: int, first: int, last: int, base: Spec, offset: int) -> None:
        super().__init__(nbytes, first, last, storage_base=base, storage_base_offset=offset)


class Graph:
    """A graph module as apply_algo and the Verifier touch it."""

    def __init__(self) -> None:
        self.meta: dict[str, Any] = {}
        self.graph = SimpleNamespace(nodes=[])


@pytest.fixture(scope="module")
def mp() -> Any:
    """ExecuTorch's exir/memory_planning.py, its graph walks replaced by the specs given."""
    return etload.load(shared("executorch"))


def random_specs(seed: int, n: int = 40, mem_ids: tuple[Optional[int], ...] = (None,)) -> list[Spec]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        first = rng.randrange(30)
        out.append(Spec(rng.choice([1, 16, 100, 1000, 4096]) * rng.randint(1, 8), first,
                        first + rng.randrange(8), rng.choice(mem_ids)))
    return out


def verify(mp: Any, specs: list[Spec]) -> int:
    """ExecuTorch's Verifier.verify_storage_reuse over specs (its graph walk replaced)."""
    saved = mp.collect_specs_from_nodes
    mp.collect_specs_from_nodes = lambda *a, **k: list(specs)
    try:
        return mp.Verifier(Graph(), True, True, True).verify_storage_reuse()
    finally:
        mp.collect_specs_from_nodes = saved


def fits(specs: list[Spec], bufsizes: list[int]) -> None:
    for s in specs:
        assert s.mem_offset is not None and s.mem_offset >= 0, s
        assert s.mem_offset + s.allocated_memory <= bufsizes[s.mem_id], s


@pytest.mark.parametrize("seed", range(4))
def test_inside_the_suite(mp: Any, seed: int) -> None:
    specs = random_specs(seed, mem_ids=(None, 1, 2))
    suite = mp.MemoryPlanningAlgorithmSuite(algo_list=[et.make_algorithm(time_limit=2.0, threads=1)])
    bufsizes = suite(16, specs, Graph(), None, 0)
    fits(specs, bufsizes)
    verify(mp, specs)
    # ExecuTorch's own greedy on the same specs, through the same suite: never smaller.
    again = random_specs(seed, mem_ids=(None, 1, 2))
    greedy = mp.MemoryPlanningAlgorithmSuite(algo_list=[mp.greedy])(16, again, Graph(), None, 0)
    assert sum(bufsizes) <= sum(greedy)


@pytest.mark.parametrize("seed", range(4))
def test_passed_directly_to_the_pass(mp: Any, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """apply_algo is what MemoryPlanningPass.run calls with memory_planning_algo; its walks of the
    graph (lifetimes, specs, submodules, free calls) are replaced by the specs given."""
    specs = random_specs(seed)
    monkeypatch.setattr(mp, "update_all_tensors_lifetime", lambda *a: None)
    monkeypatch.setattr(mp, "collect_specs_from_nodes", lambda *a, **k: list(specs))
    monkeypatch.setattr(mp, "_apply_algo_to_submodules", lambda *a: [])
    monkeypatch.setattr(mp, "_contains_xnnpack_delegate", lambda *a: False)
    monkeypatch.setattr(mp, "insert_calls_to_free", lambda *a: None)
    g = Graph()
    bufsizes = mp.apply_algo(et.make_planner(time_limit=2.0, threads=1), g, 16, None)
    assert g.meta["non_const_buffer_sizes"] == bufsizes
    fits(specs, bufsizes)
    verify(mp, specs)


def test_the_algorithm_is_not_a_planner(mp: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """What docs/python.md showed before (make_algorithm straight into the pass) leaves every spec
    unplaced: the reason for two names."""
    specs = random_specs(0, n=5)
    monkeypatch.setattr(mp, "update_all_tensors_lifetime", lambda *a: None)
    monkeypatch.setattr(mp, "collect_specs_from_nodes", lambda *a, **k: list(specs))
    monkeypatch.setattr(mp, "_apply_algo_to_submodules", lambda *a: [])
    monkeypatch.setattr(mp, "_contains_xnnpack_delegate", lambda *a: False)
    monkeypatch.setattr(mp, "insert_calls_to_free", lambda *a: None)
    with pytest.raises(TypeError):
        mp.apply_algo(et.make_algorithm(time_limit=1.0, threads=1), Graph(), 16, None)
    assert all(s.mem_offset is None for s in specs)


def test_views_live_inside_their_base(mp: Any) -> None:
    base = Spec(256, 0, 3)
    view = View(64, 1, 5, base, 128)
    other = Spec(128, 4, 6)
    specs: list[Spec] = [base, view, other]
    bufsizes = et.make_planner(time_limit=1.0, threads=1)(16, specs, Graph(), None, 0)
    assert view.mem_offset == base.mem_offset + 128 and view.mem_obj_id == base.mem_obj_id
    fits(specs, bufsizes)


def malformed() -> list[tuple[str, Any, str]]:
    base = Spec(64, 0, 3)
    return [
        ("a view larger than its base", [base, View(64, 0, 1, base, 16)], "storage_base"),
        ("a negative view offset", [base, View(16, 0, 1, base, -16)], "storage_base_offset"),
        ("mem_id 0", [Spec(16, 0, 1, 0)], "mem_id"),
        ("mem_id -1", [Spec(16, 0, 1, -1)], "mem_id"),
        ("mem_id 10**8", [Spec(16, 0, 1, 10**8)], "mem_id"),
        ("a float mem_id", [Spec(16, 0, 1, 1.5)], "mem_id"),  # type: ignore[arg-type]
        ("a lifetime backwards", [Spec(16, 3, 1)], "lifetime[1]"),
        ("a negative lifetime", [Spec(16, -2, 1)], "lifetime[0]"),
        ("a non-integral lifetime", [Spec(16, 0.5, 1)], "lifetime[0]"),  # type: ignore[arg-type]
    ]


@pytest.mark.parametrize("name,specs,field", malformed(), ids=[m[0] for m in malformed()])
def test_malformed_specs_raise_value_error(name: str, specs: list[Spec], field: str) -> None:
    for f in (et.make_algorithm(time_limit=1.0), et.make_planner(time_limit=1.0)):
        with pytest.raises(ValueError, match=field.replace("[", r"\[")):
            f(16, specs, Graph(), None, 0)
    assert all(s.mem_offset is None for s in specs)


@pytest.mark.parametrize("alignment,padding,inputs,field", [
    (0, 0, None, "alignment"), (16, -8, None, "extra_padding"), (16, 0, [0, -64], "input_mem_buffer_sizes"),
])
def test_malformed_arguments_raise_value_error(alignment: int, padding: int, inputs: Any, field: str) -> None:
    g = Graph()
    if inputs is not None:
        g.input_mem_buffer_sizes = inputs  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match=field):
        et.make_planner(time_limit=1.0)(alignment, [Spec(16, 0, 1)], g, None, padding)


def test_the_verifier_is_real(mp: Any) -> None:
    """The Verifier the tests run rejects what ExecuTorch rejects: two specs live together on the
    same bytes, and overlapping specs with different mem_obj_ids."""
    a, b = Spec(64, 0, 2, 1), Spec(64, 1, 3, 1)
    for s, obj in ((a, 0), (b, 0)):
        s.mem_offset, s.mem_obj_id = 0, obj
    with pytest.raises(etload.InternalError, match="storage overlap"):
        verify(mp, [a, b])
    b.lifetime, b.mem_obj_id = [3, 4], 1
    with pytest.raises(etload.InternalError, match="mem_obj_id mismatch"):
        verify(mp, [a, b])
    b.mem_obj_id = 0
    assert verify(mp, [a, b]) == 1
