"""libreplay.frames: DataFrames with the rows, columns and types brp export --sqlite writes."""

import sqlite3

import pandas as pd

import libreplay
from conftest import brp


VIEW_ORDER = {"player_stats": "name", "seat_results": "match_id, seat"}


def _tables(db):
    con = sqlite3.connect(db)
    try:
        out = {}
        for t in libreplay.TABLES + libreplay.VIEWS:
            info = con.execute("PRAGMA table_info(%s)" % t).fetchall()
            pk = [c[1] for c in sorted((c for c in info if c[5]), key=lambda c: c[5])]
            order = VIEW_ORDER.get(t) or ", ".join(pk) or "rowid"
            rows = con.execute("SELECT * FROM %s ORDER BY %s" % (t, order)).fetchall()
            out[t] = ([c[1] for c in info], [c[2] for c in info], rows)
        return out
    finally:
        con.close()


def _py(v):
    if v is pd.NA or v is pd.NaT or (isinstance(v, float) and v != v):
        return None
    if isinstance(v, pd.Timestamp):  # start_time: a timestamp, written back as the schema's text
        return v.strftime("%Y-%m-%dT%H:%M:%SZ")
    return v.item() if hasattr(v, "item") else v


def _compare(paths, tmp_path, actions=False):
    db = tmp_path / "brp.db"
    brp("export", "-q", "--sqlite", db, *(["--actions"] if actions else []), *paths, check_rc=0)
    want = _tables(db)
    got = libreplay.frames(paths, actions=actions)
    assert set(got) == set(libreplay.TABLES + libreplay.VIEWS)
    for t, (cols, decls, rows) in want.items():
        df = got[t]
        assert list(df.columns) == cols, t
        for i, (c, decl) in enumerate(zip(cols, decls)):
            if not decl:  # a view's computed column: typed by its values
                kinds = {type(r[i]) for r in rows if r[i] is not None}
                decl = "INT" if kinds and kinds <= {int} else "REAL" if kinds and kinds <= {int, float} else ""
            kind = ("datetime64[ns, UTC]" if c == "start_time" else "Int64" if "INT" in decl else
                    "float64" if "REAL" in decl else "string")
            assert str(df[c].dtype) == kind, (t, c, str(df[c].dtype))
        assert [tuple(_py(v) for v in r) for r in df.itertuples(index=False)] == rows, t
    return got


def test_frames_equal_the_sqlite_export(samples, corpus, tmp_path):
    got = _compare(samples + corpus, tmp_path)
    assert len(got["matches"]) == len(samples) + len(corpus)
    assert len(got["deals"]) > 0 and len(got["melds"]) > 0 and len(got["actions"]) == 0
    # start_time a timestamp; the views have frames of their own, typed
    assert str(got["matches"]["start_time"].dtype) == "datetime64[ns, UTC]"
    assert got["matches"]["start_time"].notna().any()
    assert len(got["player_stats"]) > 0 and len(got["seat_results"]) > 0
    assert str(got["player_stats"]["wins"].dtype) == "Int64"
    assert str(got["player_stats"]["win_rate"].dtype) == "float64"
    assert str(got["seat_results"]["name"].dtype) == "string"


def test_frames_with_actions(samples, tmp_path):
    got = _compare(["samples/stbl-4p.brp", "samples/kzv-4p.brp"], tmp_path, actions=True)
    assert len(got["actions"]) == 160 + 259
