"""Loads ExecuTorch's own memory-planning code (../shared/executorch) with small stand-in modules
for the imports it makes (torch, torch.fx, executorch.exir.*), as ../shared/executorch/README.md says:
only the names the code touches at import time exist, as empty classes; nothing is copied."""
from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path


class _Meta(type):
    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _dummy(name)

    def __getitem__(cls, item):
        return cls


def _dummy(name):
    return _Meta(name, (), {})


class _Stub(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        v = _dummy(name)
        setattr(self, name, v)
        return v


class InternalError(Exception):
    pass


def internal_assert(cond, msg=""):
    if not cond:
        raise InternalError(msg)


def load(root: Path):
    names = ["torch", "torch.fx", "torch.export", "torch.export.exported_program", "torch.utils",
             "torch.utils._pytree", "executorch", "executorch.exir", "executorch.exir.memory",
             "executorch.exir.control_flow", "executorch.exir.delegate", "executorch.exir.error",
             "executorch.exir.operator", "executorch.exir.operator.convert", "executorch.exir.schema",
             "executorch.exir.tensor", "executorch.exir.sym_util"]
    saved = {n: sys.modules.get(n) for n in names + ["executorch.exir.memory_planning"]}
    mods = {n: _Stub(n) for n in names}
    for n, m in mods.items():
        parent, _, child = n.rpartition(".")
        if parent:
            setattr(mods[parent], child, m)
    mods["executorch.exir.error"].InternalError = InternalError
    mods["executorch.exir.error"].internal_assert = internal_assert
    mods["torch.utils._pytree"].tree_flatten = lambda x: ([x], None)
    sys.modules.update(mods)
    try:
        spec = importlib.util.spec_from_file_location("executorch.exir.memory_planning",
                                                      root / "exir" / "memory_planning.py")
        mp = importlib.util.module_from_spec(spec)
        sys.modules["executorch.exir.memory_planning"] = mp
        spec.loader.exec_module(mp)
    finally:
        for n, m in saved.items():
            if m is None:
                sys.modules.pop(n, None)
            else:
                sys.modules[n] = m
    return mp
