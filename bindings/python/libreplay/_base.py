"""The plumbing every module shares: C strings, paths, error codes into exceptions.

Beside _ffi.py, which declares the C API and loads the library: these are the
few helpers that stand between a C call and Python values in every module,
and the walk over a corpus (expand_paths), brp's, that every batch call uses.
"""

from __future__ import annotations

import os
from typing import Iterable, Iterator, Union

from ._errors import _ERRORS, Error
from ._ffi import ffi as _ffi, lib as _lib

PathLike = Union[str, "os.PathLike[str]"]


def _str(p) -> str:
    return _ffi.string(p).decode("utf-8", "replace") if p != _ffi.NULL else ""


def _raise(code: int, detail: str = "", cls=None) -> None:
    msg = detail or _str(_lib.rpl_strerror(code))
    raise (cls or _ERRORS.get(code, Error))(msg, code=code)


def _check(code: int, detail=None) -> int:
    if code < 0:
        _raise(code, detail() if callable(detail) else (detail or ""))
    return code


def _path(p: PathLike) -> bytes:
    return os.fsencode(os.fspath(p))


def version() -> str:
    """The C library's version, "MAJOR.MINOR.PATCH"."""
    return _str(_lib.rpl_version())


def expand_paths(paths: Union[PathLike, Iterable[PathLike]]) -> Iterator[str]:
    """The logs brp finds in paths, in brp's order: a file as given, a directory
    walked for ``*.brp`` (entries sorted by name, bytewise, recursively).
    A generator: a corpus is never listed whole in memory."""
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    for p in paths:
        p = os.fspath(p)
        if os.path.isdir(p):
            yield from _walk(p.rstrip("/") or "/")
        else:
            yield p


def _walk(d: str) -> Iterator[str]:
    names = sorted(os.listdir(d), key=os.fsencode)
    for n in names:
        full = d + "/" + n
        if os.path.isdir(full):
            yield from _walk(full)
        elif n.endswith(".brp") and len(n) > 4 and os.path.isfile(full):
            yield full
