"""The validator, after verify/check_test.go (TestCheckAcceptsTheBasePlan, TestCheckReportsEachKind)."""

from __future__ import annotations

import pytest

import optalloc

B = optalloc.Buffer


def base() -> optalloc.Problem:
    return optalloc.Problem([B("a", 0, 2, 4), B("b", 1, 3, 8, alignment=8), B("c", 2, 4, 4, offset=8)],
                            pools=[optalloc.Pool("sram", 16)])


def test_check_accepts_the_base_plan() -> None:
    v = optalloc.verify(base(), {"a": 8, "b": 0, "c": 8})
    assert v.valid and bool(v) and v.violations == []


@pytest.mark.parametrize("name,offsets,kind", [
    ("overlap", {"a": 0, "b": 0, "c": 8}, "overlap"),
    ("misaligned", {"a": 8, "b": 4, "c": 12}, "misaligned"),
    ("pin moved", {"a": 8, "b": 0, "c": 0}, "pin-moved"),
    ("out of capacity", {"a": 16, "b": 0, "c": 8}, "out-of-capacity"),
])
def test_check_reports_each_kind(name: str, offsets: dict[str, int], kind: str) -> None:
    v = optalloc.verify(base(), offsets)
    assert not v.valid
    assert any(line.startswith(kind + ":") for line in v.violations), v.violations


def test_offsets_in_order_or_by_id() -> None:
    assert optalloc.verify(base(), [8, 0, 8]).valid
    with pytest.raises(ValueError, match="no offset for buffer 'c'"):
        optalloc.verify(base(), {"a": 8, "b": 0})
    with pytest.raises(ValueError, match="2 offsets for 3 buffers"):
        optalloc.verify(base(), [8, 0])
