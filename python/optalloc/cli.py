"""`python -m optalloc`: the Go CLI's plan and verify, with its flags, summary line and exit codes.

    $ python -m optalloc plan ../shared/benchmarks/minimalloc/A.1048576.csv --time-limit 10s -o plan.csv
    peak=1048576 lower_bound=1048576 gap=0.00% status=optimal method=bnb time=3.510s
    $ python -m optalloc verify ../shared/benchmarks/minimalloc/A.1048576.csv plan.csv
    valid: 154 buffers, peak=1048576

Exit codes: 0 success; 1 infeasible, unknown or an invalid plan; 2 bad usage or bad input.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from typing import Optional

from .problem import load
from .solver import solve, verify
from .utils import write_csv


def _seconds(s: str) -> float:
    """A --time-limit: Go's duration syntax for the common units (10s, 500ms, 2m), or seconds."""
    for unit, mult in (("ms", 0.001), ("s", 1.0), ("m", 60.0), ("h", 3600.0)):
        if s.endswith(unit) and not (unit == "s" and s.endswith("ms")):
            return float(s[: -len(unit)]) * mult
    return float(s)


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m optalloc", description="optalloc's plan and verify in Python")
    sub = ap.add_subparsers(dest="command", required=True)
    plan = sub.add_parser("plan", help="plan a problem")
    plan.add_argument("input")
    plan.add_argument("--capacity", type=int, default=0)
    plan.add_argument("--time-limit", type=_seconds, default=10.0)
    plan.add_argument("--method", default="auto")
    plan.add_argument("--threads", type=int, default=0)
    plan.add_argument("--seed", type=int, default=1)
    plan.add_argument("--dim", action="append", default=[])
    plan.add_argument("-o", "--output", default="")
    plan.add_argument("--json", action="store_true")
    plan.add_argument("-q", "--quiet", action="store_true")
    ver = sub.add_parser("verify", help="check a plan (a CSV with id and offset columns)")
    ver.add_argument("problem")
    ver.add_argument("plan")
    ver.add_argument("--dim", action="append", default=[])
    return ap


def main(argv: Optional[list[str]] = None) -> int:
    """Run the CLI with argv (sys.argv[1:] when None) and return its exit code.

    Returns:
        0 on success, 1 when infeasible/unknown or the plan is invalid, 2 on bad usage or input.
    """
    try:
        args = _parser().parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0) and 2
    start = time.monotonic()
    try:
        if args.command == "plan":
            return _plan(args, start)
        return _verify(args)
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2


def _plan(args: argparse.Namespace, start: float) -> int:
    p = load(args.input, args.dim)
    s = solve(p, time_limit=args.time_limit, method=args.method, capacity=args.capacity or None,
              threads=args.threads, seed=args.seed)
    if s.peak is not None and args.output:
        write_csv(p, args.output, s)
    elapsed = time.monotonic() - start
    if not args.quiet:
        peak = gap = method = "none"
        if s.peak is not None:
            g = (s.peak - s.lower_bound) / s.lower_bound * 100 if s.lower_bound > 0 and s.peak > 0 else 0.0
            peak, gap, method = str(s.peak), f"{g:.2f}%", s.method
        print(f"peak={peak} lower_bound={s.lower_bound} gap={gap} status={s.status} method={method} "
              f"time={elapsed:.3f}s", file=sys.stderr)
    if args.json:
        print(json.dumps({"input": args.input, "buffers": len(p), "peak": s.peak, "lower_bound": s.lower_bound,
                          "status": s.status, "method": s.method, "time_seconds": elapsed}, indent=1))
    if s.status in ("infeasible", "unknown"):
        print(f"optalloc plan: {s.status}: {s.reason}", file=sys.stderr)
        return 1
    return 0


def _verify(args: argparse.Namespace) -> int:
    p = load(args.problem, args.dim)
    try:
        with open(args.plan, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        raise ValueError(f"{args.plan}: cannot open: {e.strerror}") from e
    if rows and ("id" not in rows[0] or "offset" not in rows[0]):
        raise ValueError(f"{args.plan}: want id and offset columns")
    offsets = {r["id"]: int(r["offset"]) for r in rows}
    v = verify(p, offsets)
    if v.valid:
        peak = max((offsets[b.id] + b.size for b in p.buffers if b.size > 0), default=0)
        print(f"valid: {len(p)} buffers, peak={peak}")
        return 0
    for line in v.violations:
        print(line)
    print(f"optalloc verify: the plan is invalid: {len(v.violations)} violations", file=sys.stderr)
    return 1
