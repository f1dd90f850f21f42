"""The SQLite export and merge (export.h), and the export's tables as pandas DataFrames."""

from __future__ import annotations

import os
import sqlite3
import tempfile
from typing import Any, Dict, Iterable, Optional, Sequence, Union

from ._base import PathLike, _check, _path, _raise, _str, expand_paths
from ._ffi import ffi as _ffi, lib as _lib

TABLES = ("matches", "match_players", "match_meta", "deals", "deal_scores", "deal_seats", "melds", "actions")
# the views analysts query (docs/schema.md), with the order of their rows
VIEWS = ("player_stats", "seat_results")
_VIEW_ORDER = {"player_stats": "name", "seat_results": "match_id, seat"}
# columns of a time as text (ISO 8601 UTC): a timestamp in a frame
_TIMES = {"start_time"}


def export_sqlite(paths: Union[PathLike, Iterable[PathLike]], db: PathLike, actions: bool = False,
                  timeout_ms: int = -1, base: Optional[str] = None) -> Dict[str, int]:
    """Export the logs in paths into the SQLite database db, as ``brp export
    --sqlite`` does (one transaction; one row a copy of a match, and a copy
    already there adds nothing: docs/schema.md, "Copies"). actions=True also
    stores every decision. Returns
    ``{"logs", "added", "ok"}``: the logs read, those new to db, those ok.
    base: the directory relative paths are read from (default: the current
    one); the file names stored are the paths as given, as brp stores them."""
    pp = _ffi.new("rpl_export_db **")
    rc = _lib.rpl_export_db_open(pp, _path(db), timeout_ms)
    h = pp[0]
    try:
        if rc < 0:
            _raise(rc, "%s: %s" % (os.fspath(db), _str(_lib.rpl_export_db_errmsg(h)) if h != _ffi.NULL else ""))
        _check(_lib.rpl_export_db_begin(h), lambda: _str(_lib.rpl_export_db_errmsg(h)))
        added = _ffi.new("int *")
        counts = {"logs": 0, "added": 0, "ok": 0}
        mp = _ffi.new("rpl_export_match **")
        for p in (paths if base is not None else expand_paths(paths)):
            rc = _load(mp, p, base, 1 if actions else 0)
            try:
                if rc < 0:
                    _raise(rc, "%s: %s" % (p, _str(_lib.rpl_export_match_errmsg(mp[0]))
                                           if mp[0] != _ffi.NULL else ""))
                rc = _lib.rpl_export_db_add(h, mp[0], added)
                if rc < 0:
                    _raise(rc, "%s: %s" % (p, _str(_lib.rpl_export_db_errmsg(h))))
                counts["logs"] += 1
                counts["added"] += added[0]
                if _lib.rpl_export_match_verdict(mp[0]).kind == 0:
                    counts["ok"] += 1
            finally:
                _lib.rpl_export_match_free(mp[0])
                mp[0] = _ffi.NULL
        _check(_lib.rpl_export_db_commit(h), lambda: _str(_lib.rpl_export_db_errmsg(h)))
        return counts
    finally:
        _lib.rpl_export_db_free(h)


def _load(mp, path: str, base: Optional[str], flags: int) -> int:
    """rpl_export_match_load, reading path under base (when relative) but naming the match path."""
    if base is None or os.path.isabs(path):
        return _lib.rpl_export_match_load(mp, _path(path), flags)
    try:
        with open(os.path.join(base, path), "rb") as f:
            data = f.read()
    except OSError as e:
        _raise(-3, "%s: %s" % (path, e.strerror))
    return _lib.rpl_export_match_load_memory(mp, _path(path), data, len(data), flags)


def merge_sqlite(db: PathLike, shards: Iterable[PathLike], timeout_ms: int = -1) -> int:
    """Merge export databases (shards) into db, as ``brp merge`` does
    (rpl_export_db_merge: the copies of matches db lacks, with all their
    rows). Returns the number of rows (copies) added."""
    pp = _ffi.new("rpl_export_db **")
    rc = _lib.rpl_export_db_open(pp, _path(db), timeout_ms)
    h = pp[0]
    total = 0
    try:
        if rc < 0:
            _raise(rc, "%s: %s" % (os.fspath(db), _str(_lib.rpl_export_db_errmsg(h)) if h != _ffi.NULL else ""))
        added = _ffi.new("int *")
        for s in shards:
            rc = _lib.rpl_export_db_merge(h, _path(s), added)
            if rc < 0:
                _raise(rc, "%s: %s" % (os.fspath(s), _str(_lib.rpl_export_db_errmsg(h))))
            total += added[0]
        return total
    finally:
        _lib.rpl_export_db_free(h)


def _typed(df, name: str, decl: str, rows) -> None:
    """Column name of df with a nullable dtype: from the declared type (INTEGER: Int64, REAL: float64,
    TEXT: string), or for a view's computed column (no declared type) from its values; a time
    (_TIMES) as a UTC timestamp."""
    import pandas as pd

    decl = decl.upper()
    if not decl:  # a view's computed column: what SQLite holds in it
        kinds = {type(r[name]) for r in rows if r[name] is not None}
        decl = "INTEGER" if kinds and kinds <= {int} else "REAL" if kinds and kinds <= {int, float} else "TEXT"
    if name in _TIMES:
        df[name] = pd.to_datetime(df[name], utc=True, format="%Y-%m-%dT%H:%M:%SZ")
    elif "INT" in decl:
        df[name] = df[name].astype("Int64")
    elif "REAL" in decl or "FLOA" in decl or "DOUB" in decl:
        df[name] = df[name].astype("float64")
    else:
        df[name] = df[name].astype("string")


def _frames_from_db(db: PathLike, tables: Sequence[str] = TABLES, views: Sequence[str] = VIEWS):
    """Each table of an export database as a DataFrame, in primary key order, and each view, in the
    order of _VIEW_ORDER; dtypes nullable (_typed)."""
    import pandas as pd

    con = sqlite3.connect("file:%s?mode=ro" % os.fspath(db), uri=True)
    con.row_factory = sqlite3.Row
    try:
        out = {}
        for t in list(tables) + list(views):
            cols = con.execute("PRAGMA table_info(%s)" % t).fetchall()
            if t in _VIEW_ORDER:
                order = _VIEW_ORDER[t]
            else:
                pk = [c[1] for c in sorted((c for c in cols if c[5]), key=lambda c: c[5])]
                order = ", ".join(pk) if pk else "rowid"
            rows = con.execute("SELECT * FROM %s ORDER BY %s" % (t, order)).fetchall()
            df = pd.DataFrame([tuple(r) for r in rows], columns=[c[1] for c in cols])
            for c in cols:
                _typed(df, c[1], c[2] or "", rows)
            out[t] = df
        return out
    finally:
        con.close()


def frames(paths: Union[PathLike, Iterable[PathLike]], actions: bool = False,
           tables: Sequence[str] = TABLES, views: Sequence[str] = VIEWS) -> Dict[str, Any]:
    """The logs in paths as pandas DataFrames, one per table of the SQLite
    export (docs/schema.md): ``matches``, ``match_players``, ``match_meta``,
    ``deals``, ``deal_scores``, ``deal_seats``, ``melds``, ``actions`` (rows
    only with actions=True), and one per view: ``player_stats`` (by name),
    ``seat_results`` (by match and seat). The rows are what ``brp export
    --sqlite`` writes for the same logs (the C exporter writes a temporary
    database that is read back), columns as the schema has them, dtypes
    nullable (Int64, string, float64); ``start_time`` is a UTC timestamp
    (datetime64[ns, UTC]; NaT when unknown)."""
    with tempfile.TemporaryDirectory(prefix="libreplay-frames-") as d:
        db = os.path.join(d, "export.db")
        export_sqlite(paths, db, actions=actions)
        return _frames_from_db(db, tables, views)
