"""ctypes bindings of liboptalloc, the C API in capi/ (docs/c.md).

The library is opened on first use, not at import, so that importing optalloc and then
forking stays safe (the Go runtime does not survive a fork; a process that has used the
library must not fork and keep using it). ctypes.CDLL releases the GIL during every call.
"""

from __future__ import annotations

import ctypes
import os
import threading
from ctypes import POINTER, c_char_p, c_int, c_int32, c_int64, c_size_t, c_void_p
from pathlib import Path
from typing import Any, Optional, TypeVar

ABI = 1
"""The optalloc_abi() this package was written for."""

OK, FAILURE, BAD_INPUT = 0, 1, 2
STATUSES = ("optimal", "feasible", "infeasible", "unknown")

c_uintptr = c_size_t  # uintptr_t: ctypes has no name for it; the same width on the platforms Go builds for

_lock = threading.Lock()
_lib: Optional[ctypes.CDLL] = None

_P64 = POINTER(c_int64)
_P32 = POINTER(c_int32)
_U = c_uintptr
_SIGNATURES: dict[str, tuple[Any, list[Any]]] = {
    "optalloc_version": (c_char_p, []),
    "optalloc_abi": (c_int, []),
    "optalloc_handle_count": (c_int, [POINTER(c_size_t)]),
    "optalloc_error": (c_void_p, [_U]),
    "optalloc_string_free": (None, [c_void_p]),
    "optalloc_problem_new": (c_int, [POINTER(_U)]),
    "optalloc_problem_load": (c_int, [_U, c_char_p, POINTER(c_char_p), c_size_t]),
    "optalloc_problem_set_target": (c_int, [_U, c_char_p, c_char_p]),
    "optalloc_problem_load_bytes": (
        c_int,
        [_U, c_char_p, c_size_t, c_char_p, POINTER(c_char_p), c_size_t],
    ),
    "optalloc_problem_add_buffers": (
        c_int,
        [_U, c_size_t, POINTER(c_char_p), c_void_p, c_void_p, c_void_p, c_void_p],
    ),
    "optalloc_problem_pin": (c_int, [_U, c_size_t, c_int64]),
    "optalloc_problem_hint": (c_int, [_U, c_size_t, c_int64]),
    "optalloc_problem_pins": (c_int, [_U, c_size_t, c_void_p]),
    "optalloc_problem_pools": (c_int, [_U, c_size_t, c_void_p]),
    "optalloc_problem_add_pool": (c_int, [_U, c_char_p, c_int64, c_int64]),
    "optalloc_problem_set_pool": (c_int, [_U, c_size_t, c_char_p]),
    "optalloc_problem_buffer_count": (c_int, [_U, POINTER(c_size_t)]),
    "optalloc_problem_columns": (
        c_int,
        [_U, c_size_t, c_void_p, c_void_p, c_void_p, c_void_p, c_void_p, c_void_p],
    ),
    "optalloc_problem_ids": (c_int, [_U, POINTER(c_void_p), POINTER(c_size_t)]),
    "optalloc_problem_free": (c_int, [_U]),
    "optalloc_verify": (
        c_int,
        [_U, c_size_t, c_void_p, c_void_p, POINTER(c_size_t), POINTER(c_void_p)],
    ),
    "optalloc_solver_new": (c_int, [POINTER(_U)]),
    "optalloc_solver_set_method": (c_int, [_U, c_char_p]),
    "optalloc_solver_set_time_limit_ms": (c_int, [_U, c_int64]),
    "optalloc_solver_set_capacity": (c_int, [_U, c_int64]),
    "optalloc_solver_set_threads": (c_int, [_U, c_int]),
    "optalloc_solver_set_seed": (c_int, [_U, c_int64]),
    "optalloc_solver_set_work": (c_int, [_U, c_int64]),
    "optalloc_solver_solve": (c_int, [_U, _U, POINTER(_U)]),
    "optalloc_solver_cancel": (c_int, [_U]),
    "optalloc_solver_free": (c_int, [_U]),
    "optalloc_result_status": (c_int, [_U, POINTER(c_int)]),
    "optalloc_result_peak": (c_int, [_U, _P64]),
    "optalloc_result_lower_bound": (c_int, [_U, _P64]),
    "optalloc_result_method": (c_int, [_U, POINTER(c_void_p)]),
    "optalloc_result_reason": (c_int, [_U, POINTER(c_void_p)]),
    "optalloc_result_offsets": (c_int, [_U, c_size_t, c_void_p, c_void_p]),
    "optalloc_result_pool_name": (c_int, [_U, c_int32, POINTER(c_void_p)]),
    "optalloc_result_write": (c_int, [_U, c_char_p]),
    "optalloc_result_free": (c_int, [_U]),
    "optalloc_problem_warnings": (c_int, [_U, POINTER(c_void_p), POINTER(c_size_t)]),
    "optalloc_problem_write_plan": (c_int, [_U, c_size_t, c_void_p, c_void_p, c_char_p]),
    "optalloc_problem_encode_plan": (
        c_int,
        [_U, c_size_t, c_void_p, c_void_p, c_char_p, POINTER(c_void_p), POINTER(c_size_t)],
    ),
}


def library_path() -> Path:
    """The shared library to open: $OPTALLOC_LIBRARY, else the one shipped in the package."""
    env = os.environ.get("OPTALLOC_LIBRARY")
    return Path(env) if env else Path(__file__).resolve().parent / "liboptalloc.so"


def lib() -> ctypes.CDLL:
    """Open the library on first use and check its ABI.

    Raises:
        ImportError: the library is missing or has another ABI.
    """
    global _lib
    with _lock:
        if _lib is None:
            path = library_path()
            try:
                handle = ctypes.CDLL(str(path))
            except OSError as e:
                raise ImportError(f"optalloc: cannot open {path}: {e}") from e
            for name, (restype, argtypes) in _SIGNATURES.items():
                f = getattr(handle, name)
                f.restype, f.argtypes = restype, argtypes
            abi = handle.optalloc_abi()
            if abi != ABI:
                raise ImportError(f"optalloc: {path} has ABI {abi}; this package needs {ABI}")
            _lib = handle
        return _lib


def take_string(p: Optional[int]) -> str:
    """Decode a string the library returned and free it."""
    if not p:
        return ""
    try:
        return ctypes.string_at(p).decode("utf-8", "replace")
    finally:
        lib().optalloc_string_free(p)


def error(handle: int) -> str:
    """The message of the last failed call on handle."""
    return take_string(lib().optalloc_error(handle))


def check(rc: int, handle: int) -> None:
    """Raise for a failed call: ValueError for bad input (code 2), RuntimeError otherwise."""
    if rc == OK:
        return
    msg = error(handle)
    if rc == BAD_INPUT:
        raise ValueError(msg)
    raise RuntimeError(msg)


def handle_count() -> int:
    """The number of live handles in the library (a leak check)."""
    n = c_size_t()
    check(lib().optalloc_handle_count(ctypes.byref(n)), 0)
    return n.value


_H = TypeVar("_H", bound="Handle")


class Handle:
    """A live handle of the library, freed once by close() (or at exit of a with block)."""

    _free_name = ""

    def __init__(self, new: str) -> None:
        h = c_uintptr()
        check(getattr(lib(), new)(ctypes.byref(h)), 0)
        self._h = h.value

    @property
    def h(self) -> int:
        """The raw handle; ValueError once closed (as a closed file)."""
        if not self._h:
            raise ValueError(f"{type(self).__name__} is closed")
        return self._h

    def close(self) -> None:
        """Free the handle; a second close does nothing."""
        h, self._h = self._h, 0
        if h:
            check(getattr(lib(), self._free_name)(h), 0)

    def __enter__(self: _H) -> _H:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


class ProblemHandle(Handle):
    """A problem inside the library."""

    _free_name = "optalloc_problem_free"

    def __init__(self) -> None:
        super().__init__("optalloc_problem_new")


class ResultHandle(Handle):
    """A solve's result inside the library."""

    _free_name = "optalloc_result_free"

    def __init__(self, h: int) -> None:
        self._h = h


def version() -> str:
    """optalloc_version(): the module version of the library."""
    v: bytes = lib().optalloc_version()
    return v.decode()
