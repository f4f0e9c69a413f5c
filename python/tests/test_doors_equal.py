"""Issue 41, "Done when": the CLI, the C API and Python give the same peak and write the same bytes
(.csv, .json, and .tflite for a TFLite model) for the same input and method, on every shared model
and trace. The C door is capi/ctest/doors.c, built by .ci/doors (its path in OPTALLOC_DOORS_C); the
corpus runner is compared with the CLI in Go (cmd/optalloc/output_doors_test.go)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import optalloc

from conftest import SHARED

# Deterministic settings: answers that do not depend on wall time. Two planners on every input, and
# auto with a small work budget on one thread on the inputs of at most MAX_AUTO buffers (5 to 20 s
# each above it, three doors over). Seed 1 is every door's default.
METHODS = [("freelist", 0), ("firstfit-peak", 0), ("auto", 2000)]
MAX_AUTO = 160

# Symbolic dimensions the ONNX model needs (docs/onnx.md).
DIMS = {"silero_vad_v5.onnx": ["input:0=1", "input:1=576", "state:1=1", "sr=16000"]}


def _inputs() -> list[Path]:
    files: list[Path] = []
    for folder, glob in [("models/tflite", "*.tflite"), ("models/onnx", "*.onnx"),
                         ("benchmarks/traces", "*.csv"), ("benchmarks/minimalloc", "*.csv")]:
        files += sorted((SHARED / folder).glob(glob))
    return files


INPUTS = _inputs()


@pytest.fixture(scope="module")
def c_door() -> Path:
    p = os.environ.get("OPTALLOC_DOORS_C")
    if not p:
        pytest.skip("OPTALLOC_DOORS_C is not set (.ci/doors builds capi/ctest/doors.c)")
    return Path(p)


@pytest.mark.skipif(not INPUTS, reason="the shared models and traces are absent")
@pytest.mark.parametrize("path", INPUTS, ids=[p.name for p in INPUTS])
def test_every_door_writes_the_same_bytes(tmp_path: Path, go_cli: Path, c_door: Path, path: Path) -> None:
    dims = DIMS.get(path.name, [])
    dim_args = [a for d in dims for a in ("--dim", d)]
    try:
        problem = optalloc.load(path, dims=dims or None)
    except ValueError as e:
        # Not a problem (a plan file, say): every door refuses it with the same line.
        r = subprocess.run([str(go_cli), "plan", str(path), "-q", "-o", str(tmp_path / "p.csv")],
                           capture_output=True, text=True)
        assert r.returncode == 2 and r.stderr.strip() == str(e)
        c = subprocess.run([str(c_door), *dim_args, str(path), "freelist", "0", str(tmp_path / "c.csv")],
                           capture_output=True, text=True)
        assert c.returncode == 2 and str(e) in c.stderr
        return
    suffixes = [".csv", ".json"] + ([".tflite"] if path.suffix == ".tflite" else [])
    for method, work in METHODS:
        if method == "auto" and len(problem.buffers) > MAX_AUTO:
            continue
        where = f"{path.name} {method}"
        s = optalloc.solve(problem, time_limit=0, method=method, threads=1, seed=1, work=work)
        outs = {door: [tmp_path / f"{method}.{door}{x}" for x in suffixes] for door in ("go", "c", "py")}
        c = subprocess.run([str(c_door), *dim_args, str(path), method, str(work), *map(str, outs["c"])],
                           capture_output=True, text=True)
        assert c.returncode == 0, c.stderr
        assert c.stdout.split() == ["peak", str(s.peak)], where
        for x, go_out, py_out in zip(suffixes, outs["go"], outs["py"]):
            args = [str(go_cli), "plan", str(path), *dim_args, "--method", method, "--threads", "1",
                    "--time-limit", "0", "--work", str(work), "-o", str(go_out)]
            r = subprocess.run(args, capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            assert f"peak={s.peak} " in r.stderr, (where, r.stderr)
            optalloc.write(problem, s, py_out)
        for i, x in enumerate(suffixes):
            go_bytes = outs["go"][i].read_bytes()
            assert outs["c"][i].read_bytes() == go_bytes, f"{where} {x}: C and the CLI differ"
            assert outs["py"][i].read_bytes() == go_bytes, f"{where} {x}: Python and the CLI differ"


@pytest.mark.parametrize("work", [-1, 1.5, "10", 2**64])
def test_bad_work_is_a_value_error(work: object) -> None:
    p = optalloc.Problem([optalloc.Buffer("a", 0, 2, 4)])
    with pytest.raises(ValueError, match="work"):
        optalloc.solve(p, work=work)  # type: ignore[arg-type]

