"""libreplay: record, replay and verify matches of Buraco, from Python.

A thin layer over the public C API of libreplay (through cffi): the same
verdicts, rules, melds and export as the ``brp`` tool, as Python values.

    >>> import libreplay
    >>> libreplay.verify("samples/stbl-4p.brp")["verdict"]
    'ok'
    >>> libreplay.meld("8d JK 10d", rules="kzv")["points"]
    40

Errors are exceptions derived from :class:`Error`; each carries the library's
stable error code (``.code``, e.g. -5, and ``.name``, e.g. ``"EILLEGAL"``).
docs/python.md describes every function.

The package is cut along its jobs, one module a job, each importing only
modules listed before it:

    _ffi.py       the C declarations and the loaded library (cffi, ABI mode)
    _errors.py    the exceptions, one a stable error code
    _base.py      C strings, paths and error codes into exceptions; expand_paths
    _rules.py     cards, decisions as text, rule profiles, melds
    _verdict.py   verify: the verdict as brp verify --json prints it
    _match.py     Match: reading a log, its deals and positions
    _recorder.py  Recorder and shuffle
    _stats.py     stats, and the raw counts libreplay.dask adds up
    _export.py    the SQLite export, merge, and the tables as DataFrames
    _integrity.py integrity: a corpus screened, as brp integrity
    dask.py       the same on a Dask cluster (imported on its own)

This file only hands the public names on; tests/python/test_api.py lists
them, so that a change of the API is a change of that test too.
"""

from ._base import PathLike, expand_paths, version  # PathLike: importable, not in __all__, as before
from ._errors import (Corrupt, Error, IllegalMove, InvalidArgument, IOFailure, LimitExceeded, NotFound,
                      OutOfMemory, ParseError, StateError, Unsupported)
from ._export import TABLES, VIEWS, export_sqlite, frames, merge_sqlite
from ._integrity import INTEGRITY_COLUMNS, integrity
from ._match import Claim, Deal, Decision, Match, matches, open
from ._recorder import Recorder, shuffle
from ._rules import card, meld, profiles, rules
from ._stats import stats
from ._verdict import verify, verify_json_keys

__all__ = [
    "Error", "InvalidArgument", "OutOfMemory", "IOFailure", "Corrupt", "IllegalMove", "NotFound",
    "Unsupported", "StateError", "ParseError", "LimitExceeded",
    "version", "rules", "profiles", "meld", "card", "verify", "verify_json_keys", "open", "matches",
    "expand_paths", "Match", "Deal", "Decision", "Claim", "Recorder", "shuffle", "stats",
    "export_sqlite", "merge_sqlite", "frames", "TABLES", "VIEWS", "integrity", "INTEGRITY_COLUMNS",
]
