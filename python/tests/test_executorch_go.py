"""optalloc.executorch is a thin adapter over the Go runtime (device/executorch): on the same specs,
the adapter's placements and bufsizes are those `optalloc plan specs.json -o out.json` writes (the Go
CLI, run as `python -m optalloc`), and the library's input errors reach Python as ValueError naming
the spec."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest

from optalloc import cli
from optalloc import executorch as et

from etspecs import Graph, StorageSpec


def random_case(seed: int) -> tuple[int, int, Graph, list[StorageSpec]]:
    rng = random.Random(seed)
    alignment = rng.choice([1, 16, 64])
    specs: list[StorageSpec] = []
    for _ in range(rng.randrange(1, 30)):
        first = rng.randrange(20)
        bases = [s for s in specs if s.storage_base is None and s.nbytes >= 2 * alignment]
        if bases and rng.random() < 0.25:
            base = rng.choice(bases)
            room = base.realign(alignment)
            size = rng.randrange(0, room // 2)
            off = rng.randrange(0, room - math.ceil(size / alignment) * alignment + 1)
            specs.append(StorageSpec(size, first, first + rng.randrange(6), storage_base=base, storage_base_offset=off))
        else:
            specs.append(StorageSpec(rng.randrange(0, 4000), first, first + rng.randrange(8), rng.choice([None, 1, 2, 3])))
    inputs = rng.choice([None, [0, 32, 64], [0, 0, 0, 128]])
    return alignment, rng.choice([0, 16]), Graph(inputs), specs


def specs_file(alignment: int, padding: int, graph: Graph, specs: list[StorageSpec]) -> dict[str, Any]:
    """The specs as docs/formats.md describes the file, written here from the spec objects."""
    ids = {id(s): f"t{i}" for i, s in enumerate(specs)}
    out = []
    for s in specs:
        d: dict[str, Any] = {"id": ids[id(s)], "size": s.realign(alignment), "lifetime": list(s.lifetime),
                             "mem_id": s.mem_id}
        if s.storage_base is not None:
            d["storage_base"] = ids[id(s.storage_base)]
            d["storage_base_offset"] = s.storage_base_offset
        out.append(d)
    body: dict[str, Any] = {"alignment": alignment, "extra_padding": padding, "specs": out}
    if hasattr(graph, "input_mem_buffer_sizes"):
        body["input_mem_buffer_sizes"] = graph.input_mem_buffer_sizes
    return {"executorch": body}


@pytest.mark.parametrize("seed", range(8))
def test_adapter_gives_the_go_runtimes_placements(seed: int, tmp_path: Path) -> None:
    alignment, padding, graph, specs = random_case(seed)
    path, out = tmp_path / "specs.json", tmp_path / "out.json"
    path.write_text(json.dumps(specs_file(alignment, padding, graph, specs)))
    assert cli.main(["plan", str(path), "-o", str(out), "--threads", "1", "--time-limit", "5s", "--quiet"]) == 0
    go = json.loads(out.read_text())["executorch"]

    res = et.make_algorithm(time_limit=5.0, threads=1)(alignment, specs, graph, None, padding)
    assert res.bufsizes == go["bufsizes"]
    for s, g in zip(specs, go["specs"]):
        r = res.spec_dict[s]
        assert (r.mem_id, r.mem_obj_id, r.mem_offset) == (g["mem_id"], g["mem_obj_id"], g["mem_offset"])


def test_input_errors_name_the_spec(tmp_path: Path) -> None:
    base = StorageSpec(64, 0, 3)
    view = StorageSpec(64, 0, 1, storage_base=base, storage_base_offset=16)
    with pytest.raises(ValueError, match=r"spec Spec\(64, \[0, 1\]\): its 64 bytes at storage_base_offset 16"):
        et.make_planner(time_limit=1.0)(16, [base, view], Graph(None), None, 0)
    path = tmp_path / "specs.json"
    path.write_text(json.dumps(specs_file(16, 0, Graph(None), [base, view])))
    assert cli.main(["plan", str(path)]) == 2
