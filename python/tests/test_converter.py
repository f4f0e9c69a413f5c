"""CSV in and out, after formats/csv/csv_test.go (TestReadCSVDialect, TestWriteCSVThenReadCSVRoundTrips)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import optalloc

B = optalloc.Buffer


def test_read_csv_dialect() -> None:
    # Columns in any order, the aliases of the CLI's reader, "end" inclusive, no final newline.
    p = optalloc.from_csv("size,buffer_id,start,end\n4,a,0,1\n8,b,1,2")
    assert p.buffers == [B("a", 0, 2, 4), B("b", 1, 3, 8)]


def test_read_csv_line_numbers() -> None:
    with pytest.raises(ValueError, match=r'^mem\.csv:3: buffer "b"'):
        optalloc.from_csv("id,lower,upper,size\na,0,2,4\nb,0,2,-1\n", name="mem.csv")


def test_write_csv_then_read_csv_round_trips(tmp_path: Path) -> None:
    p = optalloc.Problem([B("a", 0, 2, 4, alignment=4), B("b", 1, 3, 8, offset=16), B("c", 3, 5, 2, hint=0)])
    path = tmp_path / "p.csv"
    optalloc.write_csv(p, path)
    assert optalloc.read_csv(path).buffers == p.buffers


def test_write_csv_with_plan_writes_offsets(tmp_path: Path) -> None:
    p = optalloc.Problem([B("a", 0, 2, 4), B("b", 1, 3, 8)])
    s = optalloc.solve(p, time_limit=1.0, threads=1)
    assert optalloc.to_csv(p, s) == f"id,lower,upper,size,offset\na,0,2,4,{s.offsets['a']}\nb,1,3,8,{s.offsets['b']}\n"
    path = tmp_path / "plan.csv"
    optalloc.write_csv(p, path, s)
    # Read back, the offsets are pins that the plan honours.
    q = optalloc.read_csv(path)
    assert {b.id: b.offset for b in q.buffers} == s.offsets


def test_loaded_problem_keeps_what_buffers_do_not_show(tmp_path: Path) -> None:
    # A gap (the buffer is absent during [1, 3)) is not a Buffer field: an unchanged loaded
    # problem is solved from its file, so b may share a's bytes during the gap.
    path = tmp_path / "gaps.csv"
    path.write_text("id,lower,upper,size,gaps\na,0,4,8,1-3\nb,1,3,8,\n")
    p = optalloc.load(path)
    assert optalloc.solve(p, time_limit=1.0).peak == 8
    # Issue 41: a loaded problem is held in the library, never read again; edits go to it.
    path.write_text("id,lower,upper,size\na,0,4,8\nb,1,3,8\n")  # the file changes: not re-read
    assert optalloc.solve(p, time_limit=1.0).peak == 8
    p.buffers = [dataclasses.replace(b) for b in p.buffers]  # equal Buffers: the gap stays
    assert optalloc.solve(p, time_limit=1.0).peak == 8
    p.buffers = [p.buffers[0], dataclasses.replace(p.buffers[1], offset=8)]  # a pin: the gap stays
    s = optalloc.solve(p, time_limit=1.0)
    assert s.peak == 16 and s.offsets["b"] == 8 and optalloc.verify(p, s.offsets).valid
    with pytest.raises(ValueError, match="size is the loaded file's"):
        p.buffers = [p.buffers[0], dataclasses.replace(p.buffers[1], size=16)]
        optalloc.solve(p, time_limit=1.0)
    q = optalloc.Problem(p.buffers)  # a new problem from the Buffers: planned from them, without the gap
    assert optalloc.solve(q, time_limit=1.0).peak == 24


def test_plans_are_written_by_the_library(tmp_path: Path) -> None:
    """Issue 41: the pool column and quoted ids, as optalloc's own reader reads them; the input is
    never written over, a .tflite model gets its plan back."""
    B = optalloc.Buffer
    p = optalloc.Problem([B("conv,1", 0, 2, 64, pool="sram"), B("b", 1, 3, 64), B("c", 1, 3, 64)],
                         pools=[optalloc.Pool("sram", 64), optalloc.Pool("dram")])
    s = optalloc.solve(p, time_limit=1.0, threads=1)
    text = optalloc.to_csv(p, s)
    assert text.splitlines()[1].startswith('"conv,1",') and "pool" in text.splitlines()[0]
    out = tmp_path / "plan.csv"
    optalloc.write_csv(p, out, s)
    assert out.read_text() == text
    back = optalloc.read_csv(out)
    assert [b.id for b in back.buffers] == ["conv,1", "b", "c"]
    for name in ("plan.txt", "plan"):
        with pytest.raises(ValueError, match="suffix"):
            optalloc.write(p, s, tmp_path / name)
    csvin = tmp_path / "in.csv"
    csvin.write_text("id,lower,upper,size\na,0,2,8\n")
    q = optalloc.load(csvin)
    with pytest.raises(ValueError, match="is the input"):
        optalloc.write(q, optalloc.solve(q, time_limit=1.0), csvin)
    assert csvin.read_text() == "id,lower,upper,size\na,0,2,8\n"
    with pytest.raises(ValueError, match="invalid"):
        bad = optalloc.Solution(offsets={"conv,1": 0, "b": 0, "c": 0}, peak=64, lower_bound=64, status="feasible")
        optalloc.write(p, bad, tmp_path / "bad.csv")
    assert not (tmp_path / "bad.csv").exists()

