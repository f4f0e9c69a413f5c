"""optalloc.executorch with spec objects carrying ExecuTorch's fields (notes/runtimes.md), on random
problems and on problems taken from the shared models; checked with ExecuTorch's verifier rules and
against the shared-objects greedy ExecuTorch uses by default, implemented here from the notes."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Optional

import pytest

import optalloc
from optalloc import executorch as et

from conftest import ROOT, SHARED
from etspecs import Graph, Spec, StorageSpec


def greedy_total(alignment: int, specs: list[Spec], graph: Any, extra_padding: int) -> list[int]:
    """ExecuTorch's default greedy (notes/runtimes.md): shared objects by size, largest first, each
    spec joins the object of closest size whose specs' inclusive lifetimes are all disjoint from
    its own; objects end to end from input_mem_buffer_sizes[k]; + extra_padding."""
    objs: dict[int, list[list[Any]]] = {}
    for s in sorted(specs, key=lambda s: -s.realign(alignment)):
        mem = s.mem_id if s.mem_id is not None else 1
        size, (a, b) = s.allocated_memory, s.lifetime
        free = [o for o in objs.setdefault(mem, []) if all(b < x or y < a for x, y in o[1])]
        if free:
            o = min(free, key=lambda o: abs(o[0] - size))
            o[0] = max(o[0], size)
            o[1].append((a, b))
        else:
            objs[mem].append([size, [(a, b)]])
    if not objs:
        return [0, 0]
    inputs = getattr(graph, "input_mem_buffer_sizes", None)
    out = [0] * (max(objs) + 1)
    for mem, os_ in objs.items():
        base = inputs[mem] if inputs is not None and len(inputs) > mem else 0
        out[mem] = base + sum(o[0] for o in os_) + extra_padding
    return out


def check_rules(alignment: int, specs: list[Spec], graph: Any, extra_padding: int, res: Any) -> None:
    """ExecuTorch's verifier rules, and what the notes say of bufsizes."""
    assert set(res.spec_dict) >= set(specs)
    assert res.bufsizes[0] == 0
    inputs = getattr(graph, "input_mem_buffer_sizes", None)
    for s in specs:
        assert s.mem_offset is None and s.mem_obj_id is None, "the specs are not written"
        r = res.spec_dict[s]
        assert r.mem_id == (s.mem_id if s.mem_id is not None else 1)
        base = inputs[r.mem_id] if inputs is not None and len(inputs) > r.mem_id else 0
        assert r.mem_offset >= base
        assert (r.mem_offset - base) % alignment == 0
        assert r.mem_offset + s.allocated_memory + extra_padding <= res.bufsizes[r.mem_id]
    root = {id(s): id(getattr(s, "storage_base", None) or s) for s in specs}
    for i, s in enumerate(specs):
        for t in specs[i + 1:]:
            a, b = res.spec_dict[s], res.spec_dict[t]
            if a.mem_id != b.mem_id or s.allocated_memory == 0 or t.allocated_memory == 0:
                continue
            if a.mem_offset < b.mem_offset + t.allocated_memory and b.mem_offset < a.mem_offset + s.allocated_memory:
                assert a.mem_obj_id == b.mem_obj_id, "overlapping byte ranges share a mem_obj_id"
                if root[id(s)] != root[id(t)]:
                    assert s.lifetime[1] < t.lifetime[0] or t.lifetime[1] < s.lifetime[0], \
                        "overlapping byte ranges, overlapping lifetimes"


def run(specs: list[Spec], alignment: int = 16, graph: Any = None, extra_padding: int = 0,
        against_greedy: bool = True) -> Any:
    graph = graph if graph is not None else Graph()
    res = et.make_algorithm(time_limit=2.0, threads=1)(alignment, specs, graph, None, extra_padding)
    check_rules(alignment, specs, graph, extra_padding, res)
    if against_greedy:  # the greedy here knows no storage_base
        assert sum(res.bufsizes) <= sum(greedy_total(alignment, specs, graph, extra_padding))
    return res


def random_specs(rng: random.Random, n: int, mem_ids: list[Optional[int]]) -> list[Spec]:
    specs = []
    for _ in range(n):
        first = rng.randrange(30)
        specs.append(Spec(rng.choice([0, rng.randrange(1, 5000)]), first, first + rng.randrange(8),
                          rng.choice(mem_ids)))
    return specs


@pytest.mark.parametrize("seed", range(12))
def test_random_problems(seed: int) -> None:
    rng = random.Random(seed)
    mem_ids: list[Optional[int]] = [None] if seed % 3 == 0 else [None, 1, 2]
    specs = random_specs(rng, rng.randrange(1, 60), mem_ids)
    graph = Graph([0, 100, 48]) if seed % 2 else Graph()
    run(specs, alignment=rng.choice([1, 16, 64]), graph=graph, extra_padding=rng.choice([0, 32]))


def test_no_specs() -> None:
    res = et.algorithm(16, [], Graph(), None)
    assert res.bufsizes == [0, 0] and res.spec_dict == {}


def test_fields_and_padding_hand_checked() -> None:
    # Inclusive lifetimes: a [0, 1] and b [1, 2] are live together at node 1; c [2, 3] is not
    # live with a. Sizes realigned to 16: a 16, b 32, c 16.
    a, b, c = Spec(10, 0, 1), Spec(20, 1, 2), Spec(16, 2, 3, mem_id=1)
    res = run([a, b, c], alignment=16, graph=Graph([0, 64]), extra_padding=8)
    assert res.bufsizes == [0, 64 + 48 + 8]
    assert res.spec_dict[a].mem_offset != res.spec_dict[b].mem_offset


def test_a_greedy_worse_case() -> None:
    # Two halves of a 64-byte object: the greedy puts one in it and opens a second object for
    # the other (96 bytes); offsets put both inside the first 64 bytes.
    specs = [Spec(64, 0, 0), Spec(32, 1, 1), Spec(32, 1, 1)]
    res = run(specs, alignment=1)
    assert res.bufsizes[1] == 64
    assert greedy_total(1, specs, Graph(), 0) == [0, 96]


def test_storage_base_specs() -> None:
    base = StorageSpec(256, 2, 4)
    view = StorageSpec(64, 5, 7, storage_base=base, storage_base_offset=128)
    other = StorageSpec(256, 5, 6)
    old_style = Spec(64, 0, 9)  # no storage_base attribute at all
    res = run([base, view, other, old_style], alignment=16, against_greedy=False)
    rb, rv, ro = res.spec_dict[base], res.spec_dict[view], res.spec_dict[other]
    assert (rv.mem_id, rv.mem_obj_id, rv.mem_offset) == (rb.mem_id, rb.mem_obj_id, rb.mem_offset + 128)
    # The base is live over its view's lifetime too, so it cannot share bytes with other.
    assert rb.mem_offset + 256 <= ro.mem_offset or ro.mem_offset + 256 <= rb.mem_offset


def model_specs(path: Path, dims: Optional[dict[str, int]] = None) -> list[Spec]:
    """Specs from a model's buffers: [lower, upper) becomes the inclusive [lower, upper - 1]."""
    p = optalloc.load(path, dims)
    return [Spec(b.size, b.lower, b.upper - 1) for b in p.buffers]


MODELS = sorted((SHARED / "models" / "tflite").glob("*.tflite")) + [ROOT / "examples" / "resnet18.graph.json"]


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.name)
def test_shared_models(path: Path) -> None:
    if not path.exists():
        pytest.skip(f"{path} is absent")
    run(model_specs(path), alignment=16)


def test_shared_onnx_model() -> None:
    path = SHARED / "models" / "onnx" / "silero_vad_v5.onnx"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    specs = model_specs(path, {"input:0": 1, "input:1": 576, "state:1": 1, "sr": 16000})
    res = run(specs, alignment=64, extra_padding=16)
    assert len(res.spec_dict) == len(specs)


def test_fallback_types_have_executorch_fields() -> None:
    r = et.SpecAllocResult(mem_id=1, mem_obj_id=0, mem_offset=16)
    m = et.MemoryAlgoResult(spec_dict={"x": r}, bufsizes=[0, 32])
    assert (r.mem_id, r.mem_obj_id, r.mem_offset, m.bufsizes) == (1, 0, 16, [0, 32])


def test_executorch_classes_when_importable() -> None:
    mp = pytest.importorskip("executorch.exir.memory_planning")
    res = run([Spec(10, 0, 1), Spec(20, 1, 2)])
    assert isinstance(res, mp.MemoryAlgoResult)
    assert all(isinstance(r, mp.SpecAllocResult) for r in res.spec_dict.values())
