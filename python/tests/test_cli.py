"""CLI equivalence: the package and the Go CLI give the same peak on every shared benchmark, and
`python -m optalloc` keeps the Go CLI's summary line and exit codes (after MiniMalloc's test_cli.py)."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest

import optalloc
from optalloc import cli

from conftest import MINIMALLOC, shared

BENCHMARKS = sorted(p.name for p in MINIMALLOC.glob("*.csv")) if MINIMALLOC.exists() else []

# Deterministic planners, each instant: the same peak is expected to the byte.
PLANNERS = ["greedy-size", "firstfit-size", "tflm-greedy"]


def go_peak(go_cli: Path, path: Path, *flags: str) -> int:
    out = subprocess.run([str(go_cli), "plan", str(path), "--json", "-q", "--threads", "1", *flags],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    peak: int = json.loads(out.stdout)["peak"]
    return peak


def test_every_shared_benchmark_is_here() -> None:
    shared("benchmarks", "minimalloc")
    assert len(BENCHMARKS) == 12


@pytest.mark.parametrize("name", BENCHMARKS)
def test_same_peak_as_the_go_cli(go_cli: Path, name: str) -> None:
    path = MINIMALLOC / name
    p = optalloc.load(path)
    for method in PLANNERS:
        s = optalloc.solve(p, time_limit=10, method=method, threads=1)
        assert s.peak == go_peak(go_cli, path, "--method", method, "--time-limit", "10s"), method
        assert optalloc.verify(p, s.offsets).valid


@pytest.mark.parametrize("name", ["input.12.csv", "A.1048576.csv"])
def test_same_optimum_as_the_go_cli(go_cli: Path, name: str) -> None:
    path = shared("benchmarks", "minimalloc", name)
    # 30 s: proven in about 2 s on an idle machine; the margin is for a loaded one.
    s = optalloc.solve(optalloc.load(path), time_limit=30, threads=1)
    assert s.status == "optimal"
    assert s.peak == go_peak(go_cli, path, "--time-limit", "30s")


def test_cli_plan_summary_and_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = shared("benchmarks", "minimalloc", "input.12.csv")
    out = tmp_path / "plan.csv"
    assert cli.main(shlex.split(f"plan {path} --time-limit 5s --threads 1 -o {out}")) == 0
    err = capsys.readouterr().err
    assert err.startswith("peak=12 lower_bound=12 gap=0.00% status=optimal method=")
    assert cli.main(["verify", str(path), str(out)]) == 0
    assert capsys.readouterr().out == "valid: 5 buffers, peak=12\n"


def test_cli_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = shared("benchmarks", "minimalloc", "input.12.csv")
    assert cli.main(["plan", str(path), "--capacity", "11"]) == 1
    assert "status=infeasible" in capsys.readouterr().err
    assert cli.main(["plan", "nope.csv"]) == 2
    assert capsys.readouterr().err == "nope.csv: cannot open: no such file or directory\n"
    assert cli.main(["plan"]) == 2
    bad = tmp_path / "bad.csv"
    bad.write_text("id,offset\n" + "".join(f"{b.id},0\n" for b in optalloc.load(path).buffers))
    assert cli.main(["verify", str(path), str(bad)]) == 1
    assert "overlap:" in capsys.readouterr().out


def test_cli_agrees_with_go_cli_on_the_summary(go_cli: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = shared("benchmarks", "minimalloc", "B.1048576.csv")
    go = subprocess.run([str(go_cli), "plan", str(path), "--method", "greedy-size", "--threads", "1"],
                        capture_output=True, text=True)
    assert cli.main(["plan", str(path), "--method", "greedy-size", "--threads", "1"]) == go.returncode == 0
    ours = capsys.readouterr().err.split(" time=")[0]
    assert ours == go.stderr.strip().split(" time=")[0]


def test_python_m_optalloc_is_the_go_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 41: `python -m optalloc` has the Go CLI's output rules and commands, being it."""
    src = shared("benchmarks", "minimalloc", "input.12.csv")
    path = tmp_path / "in.csv"
    path.write_bytes(src.read_bytes())
    monkeypatch.chdir(tmp_path)
    assert cli.main(["plan", str(path), "--threads", "1", "-q", "-o", "-"]) == 0
    assert capsys.readouterr().out.startswith("id,lower,upper,size")
    assert not (tmp_path / "-").exists(), "-o - wrote a file named -"
    assert cli.main(["plan", str(path), "-o", str(path)]) == 2
    assert "is the input" in capsys.readouterr().err
    assert path.read_bytes() == src.read_bytes()
    assert cli.main(["plan", str(path), "-o", str(tmp_path / "no" / "plan.csv")]) == 2
    err = capsys.readouterr().err
    assert "does not exist" in err and "Traceback" not in err and err.count("\n") == 1
    assert cli.main(["plan", str(path), "-q", "--svg", str(tmp_path / "p.svg"), "--explain"]) == 0
    assert (tmp_path / "p.svg").read_text().startswith("<svg")
    assert cli.main(["plan", "/dev/zero"]) == 2
    assert "is a device" in capsys.readouterr().err
    model = shared("models", "tflite", "hello_world_int8.tflite")
    out = tmp_path / "planned.tflite"
    assert cli.main(["plan", str(model), "-q", "-o", str(out)]) == 0
    assert cli.main(["verify", str(out)]) == 0
    assert "offline part: valid" in capsys.readouterr().out
