"""libreplay.frames: DataFrames with the rows, columns and types brp export --sqlite writes."""

import sqlite3

import pandas as pd

import libreplay
from conftest import brp


def _tables(db):
    con = sqlite3.connect(db)
    try:
        out = {}
        for t in libreplay.TABLES:
            info = con.execute("PRAGMA table_info(%s)" % t).fetchall()
            pk = [c[1] for c in sorted((c for c in info if c[5]), key=lambda c: c[5])]
            rows = con.execute("SELECT * FROM %s ORDER BY %s" % (t, ", ".join(pk) or "rowid")).fetchall()
            out[t] = ([c[1] for c in info], [c[2] for c in info], rows)
        return out
    finally:
        con.close()


def _py(v):
    return None if v is pd.NA or (isinstance(v, float) and v != v) else (v.item() if hasattr(v, "item") else v)


def _compare(paths, tmp_path, actions=False):
    db = tmp_path / "brp.db"
    brp("export", "-q", "--sqlite", db, *(["--actions"] if actions else []), *paths, check_rc=0)
    want = _tables(db)
    got = libreplay.frames(paths, actions=actions)
    assert set(got) == set(libreplay.TABLES)
    for t, (cols, decls, rows) in want.items():
        df = got[t]
        assert list(df.columns) == cols, t
        for c, decl in zip(cols, decls):
            kind = "Int64" if "INT" in decl else "float64" if "REAL" in decl else "string"
            assert str(df[c].dtype) == kind, (t, c)
        assert [tuple(_py(v) for v in r) for r in df.itertuples(index=False)] == rows, t
    return got


def test_frames_equal_the_sqlite_export(samples, corpus, tmp_path):
    got = _compare(samples + corpus, tmp_path)
    assert len(got["matches"]) == len(samples) + len(corpus)
    assert len(got["deals"]) > 0 and len(got["melds"]) > 0 and len(got["actions"]) == 0


def test_frames_with_actions(samples, tmp_path):
    got = _compare(["samples/stbl-4p.brp", "samples/kzv-4p.brp"], tmp_path, actions=True)
    assert len(got["actions"]) == 160 + 259
