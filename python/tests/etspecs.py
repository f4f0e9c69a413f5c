"""Stand-ins for ExecuTorch's TensorSpec and graph module as its memory-planning code and
optalloc.executorch touch them: one copy for the ExecuTorch tests."""
from __future__ import annotations

import math
from typing import Any, Optional


class Spec:
    """A TensorSpec: nbytes, an inclusive lifetime, mem_id, realign (an older version's spec: no
    storage_base attribute at all)."""

    def __init__(self, nbytes: int, first: int, last: int, mem_id: Optional[int] = None) -> None:
        self.nbytes = nbytes
        self.lifetime = [first, last]
        self.mem_id = mem_id
        self.alignment = 1
        self.mem_obj_id: Optional[int] = None
        self.mem_offset: Optional[int] = None
        self.inplace_base: Any = None

    def realign(self, alignment: int) -> int:
        self.alignment = alignment
        return self.allocated_memory

    @property
    def allocated_memory(self) -> int:
        return math.ceil(self.nbytes / self.alignment) * self.alignment

    def __repr__(self) -> str:
        return f"Spec({self.nbytes}, {self.lifetime})"


class StorageSpec(Spec):
    """A newer version's spec, which may live inside another spec's bytes."""

    def __init__(self, nbytes: int, first: int, last: int, mem_id: Optional[int] = None,
                 storage_base: Optional[Spec] = None, storage_base_offset: int = 0) -> None:
        super().__init__(nbytes, first, last, mem_id)
        self.storage_base = storage_base
        self.storage_base_offset = storage_base_offset


class Graph:
    """A graph module as the algorithm sees it: input_mem_buffer_sizes when given."""

    def __init__(self, input_mem_buffer_sizes: Optional[list[int]] = None) -> None:
        if input_mem_buffer_sizes is not None:
            self.input_mem_buffer_sizes = input_mem_buffer_sizes
