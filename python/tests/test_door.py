"""Issue 41 from Python: every bad value is a ValueError naming the argument (nothing wrapped or
truncated), devices are refused, and a .tflite model gets its plan written back by the library
(optalloc verify accepts it; the real TFLite Micro runtime runs it with the stated head)."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import optalloc
from optalloc.solver import _milliseconds

from conftest import SHARED, shared

B = optalloc.Buffer


@pytest.mark.parametrize("kwargs,name", [
    ({"capacity": 2**64 + 3}, "capacity"),
    ({"capacity": -1}, "capacity"),
    ({"capacity": 16.0}, "capacity"),
    ({"threads": 2**40}, "threads"),
    ({"threads": 1.5}, "threads"),
    ({"seed": "1"}, "seed"),
    ({"time_limit": math.nan}, "time_limit"),
    ({"time_limit": -1}, "time_limit"),
    ({"time_limit": "10"}, "time_limit"),
    ({"method": 3}, "method"),
])
def test_bad_solve_arguments_are_value_errors(kwargs: dict[str, Any], name: str) -> None:
    p = optalloc.Problem([B("a", 0, 2, 4)])
    with pytest.raises(ValueError, match=name):
        optalloc.solve(p, **kwargs)


def test_a_short_time_limit_is_a_limit() -> None:
    # 0.1 ms rounded to 0 ms meant no limit at all
    assert _milliseconds(0.0001) == 1 and _milliseconds(0) == 0 and _milliseconds(2.5) == 2500


@pytest.mark.parametrize("column,name", [
    (np.array([15.9, 1.0]), "lower"),
    (np.array([np.nan, 1.0]), "lower"),
    (np.array([[0, 1], [2, 3]]), "lower"),
    (np.array([2**64 - 1, 0], dtype=np.uint64), "lower"),
    ([0.5, 1], r"lower\[0\]"),
    ([True, 1], r"lower\[0\]"),
    ([2**63, 1], r"lower\[0\]"),
    ("01", "lower"),
])
def test_bad_columns_are_value_errors(column: Any, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        optalloc.Problem.from_arrays(column, [2, 3], [4, 4])


@pytest.mark.parametrize("buf,name", [
    (B("a", 0, 2.5, 4), "upper"),  # type: ignore[arg-type]
    (B("a", 0, 2, 2**64 + 4), "size"),
    (B("a", 0, 2, 4, offset=-3), "offset"),
    (B("a", 0, 2, 4, hint=1.5), "hint"),  # type: ignore[arg-type]
])
def test_bad_buffers_are_value_errors(buf: Any, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        optalloc.solve(optalloc.Problem([buf]), time_limit=1)


def test_bad_verify_offsets_are_value_errors() -> None:
    p = optalloc.Problem([B("a", 0, 2, 4)])
    for offsets in ([0.5], np.array([0.5]), {"a": 2**64}):
        with pytest.raises(ValueError, match="offsets"):
            optalloc.verify(p, offsets)


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/urandom"])
def test_devices_are_refused(path: str) -> None:
    with pytest.raises(ValueError, match="is a device"):
        optalloc.load(path)


def test_tflite_write_back(tmp_path: Path, go_cli: Path) -> None:
    src = shared("models", "tflite", "keyword_scrambled_8bit.tflite")
    model = tmp_path / "m.tflite"
    model.write_bytes(src.read_bytes())
    p = optalloc.load(model)
    s = optalloc.solve(p, time_limit=5, threads=1)
    assert s.peak == 672  # the device's head (TFLite Micro's own layout kept; cmd/optalloc's TestFallbackOnARealModel)
    with pytest.raises(ValueError, match="is the input"):
        optalloc.write(p, s, model)
    assert model.read_bytes() == src.read_bytes()
    out = tmp_path / "planned.tflite"
    optalloc.write(p, s, out)
    r = subprocess.run([str(go_cli), "verify", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "offline part: valid" in r.stdout
    tflm = SHARED / "tflm" / "tflm_run"
    if tflm.exists():
        run = subprocess.run([str(tflm), str(out)], capture_output=True, text=True)
        assert "result ok" in run.stdout, run.stdout + run.stderr
        head = [line for line in run.stdout.splitlines() if line.startswith("arena_head ")]
        assert head == [f"arena_head {s.peak}"]


@pytest.mark.parametrize("name", ["hello_world_int8.tflite", "keyword_scrambled_8bit.tflite",
                                  "micro_speech_quantized.tflite", "person_detect.tflite"])
@pytest.mark.parametrize("suffix", [".tflite", ".csv", ".json"])
def test_same_bytes_as_the_go_cli(tmp_path: Path, go_cli: Path, name: str, suffix: str) -> None:
    """The CLI, and the library from Python, write the same bytes for the same model and method."""
    model = shared("models", "tflite", name)
    ours, theirs = tmp_path / f"py{suffix}", tmp_path / f"go{suffix}"
    r = subprocess.run([str(go_cli), "plan", str(model), "-q", "--threads", "1", "--time-limit", "5s",
                        "-o", str(theirs)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    p = optalloc.load(model)
    optalloc.write(p, optalloc.solve(p, time_limit=5, threads=1), ours)
    assert ours.read_bytes() == theirs.read_bytes()


def test_load_for_a_target() -> None:
    """--target from Python: the CMSIS-NN LSTM asks for 3 gate buffers, the reference one for 4."""
    src = shared("models", "tflite", "trained_lstm_int8.tflite")
    ref = optalloc.load(src)
    m4 = optalloc.load(src, target="cortex-m4")
    assert sum(b.id.startswith("s") and "/" in b.id for b in ref.buffers) == 4
    assert sum(b.id.startswith("s") and "/" in b.id for b in m4.buffers) == 3
    assert optalloc.solve(m4, time_limit=2.0).peak == 1488
    with pytest.raises(ValueError, match="unknown target"):
        optalloc.load(src, target="cortex-m99")
    with pytest.raises(ValueError, match="target must be a string"):
        optalloc.load(src, target=4)  # type: ignore[arg-type]
