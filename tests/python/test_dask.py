"""libreplay.dask on a LocalCluster of two worker processes: the one-machine results, a killed worker included."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import libreplay
import libreplay.dask as ldask
from conftest import ENV, brp, brp_json_lines


def test_verify_equals_brp_verify(cluster, samples, corpus):
    _, client = cluster
    paths = samples + ["nosuch.brp"] + corpus  # a missing file: brp's "unreadable" line
    df = ldask.verify(paths, client, partition_size=7)
    want = brp_json_lines("verify", "--json", *paths)
    got = ldask.verdicts(df)
    assert got == want
    assert [list(d) for d in got] == [list(d) for d in want]
    assert list(df.sort_values("file")["file"]) == sorted(d["file"] for d in want)


def test_stats_equal_brp_stats(cluster, samples, corpus):
    _, client = cluster
    _, out = brp("stats", "--json", *(samples + corpus))
    assert ldask.stats(samples + corpus, client, partition_size=5) == json.loads(out)
    assert ldask._json(ldask.stats(samples, client)) == brp("stats", "--json", *samples)[1].strip()


def _content(db):
    """Every table's rows with match ids replaced by the match's hash (ids are numbers of each database)."""
    con = sqlite3.connect(db)
    try:
        ids = dict(con.execute("SELECT match_id, hash FROM matches"))
        out = {}
        for t in libreplay.TABLES:
            cols = [c[1] for c in con.execute("PRAGMA table_info(%s)" % t)]
            rows = []
            for r in con.execute("SELECT * FROM %s" % t):
                r = list(r)
                if "match_id" in cols:
                    r[cols.index("match_id")] = ids[r[cols.index("match_id")]]
                rows.append(tuple(r))
            out[t] = sorted(rows, key=repr)
        return out
    finally:
        con.close()


def test_export_equals_brp_export(cluster, samples, corpus, tmp_path):
    _, client = cluster
    paths = samples + corpus
    brp("export", "-q", "--sqlite", tmp_path / "brp.db", *paths, check_rc=0)
    r = ldask.export_sqlite(paths, str(tmp_path / "dask.db"), client, partition_size=6)
    ok = sum(libreplay.verify(p)["verdict"] == "ok" for p in paths)
    assert r == {"logs": len(paths), "ok": ok, "added": len(paths)}
    assert _content(tmp_path / "dask.db") == _content(tmp_path / "brp.db")
    # the shards are merged in the order of the paths: even the match ids are brp's
    con = sqlite3.connect(tmp_path / "dask.db")
    got = con.execute("SELECT match_id, hash, file FROM matches ORDER BY match_id").fetchall()
    con.close()
    con = sqlite3.connect(tmp_path / "brp.db")
    assert got == con.execute("SELECT match_id, hash, file FROM matches ORDER BY match_id").fetchall()
    con.close()
    assert [f for f in os.listdir(tmp_path) if f.startswith(".shards")] == []
    again = ldask.export_sqlite(paths, str(tmp_path / "dask.db"), client)
    assert again["added"] == 0


def test_killed_worker_loses_and_duplicates_nothing(cluster, corpus, tmp_path):
    cl, client = cluster
    paths = corpus * 1  # 48 logs
    shard_dir = tmp_path / "shards"
    shard_dir.mkdir()
    brp("export", "-q", "--sqlite", tmp_path / "brp.db", *paths, check_rc=0)
    pids = client.run(os.getpid)
    result = {}

    def run():
        result["r"] = ldask.export_sqlite(paths, str(tmp_path / "dask.db"), client, shard_dir=str(shard_dir),
                                          partition_size=1)

    t = threading.Thread(target=run)
    t.start()
    victim = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and t.is_alive():
        done = [f for f in os.listdir(shard_dir) if f.endswith(".db") and not f.startswith(".")]
        if len(done) >= 2:
            victim = sorted(pids.values())[0]
            os.kill(victim, signal.SIGKILL)
            killed_at = len(done)
            break
        time.sleep(0.005)
    t.join(120)
    assert victim is not None, "the export ended before a worker could be killed"
    assert killed_at < len(paths), "the worker was killed after the last shard"
    assert result["r"]["logs"] == len(paths) and result["r"]["added"] == len(paths)
    assert _content(tmp_path / "dask.db") == _content(tmp_path / "brp.db")
    con = sqlite3.connect(tmp_path / "dask.db")
    assert con.execute("SELECT count(*), count(DISTINCT hash) FROM matches").fetchone() == (len(paths),) * 2
    con.close()


def test_cli_verify_local_2_prints_brp_verify_json(samples):
    p = subprocess.run([sys.executable, "-m", "libreplay.dask", "verify", "--local", "2", "samples/"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV, text=True, check=False)
    rc, want = brp("verify", "--json", "samples/")
    assert p.stdout == want
    assert p.returncode == rc == 3


def test_progress_is_dasks_own_bar_on_stderr(cluster, samples, capsys):
    _, client = cluster
    assert ldask.stats(samples, client, progress=True) == ldask.stats(samples, client)
    out, err = capsys.readouterr()
    assert out == "" and "100% Completed" in err


def test_cli_shows_progress_on_a_terminal_only(samples):
    import pty

    master, slave = pty.openpty()
    try:
        p = subprocess.run([sys.executable, "-m", "libreplay.dask", "stats", "--local", "1", "samples/"],
                           stdout=subprocess.PIPE, stderr=slave, env=ENV, text=True, check=False)
        os.close(slave)
        slave = -1
        err = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal's other end is closed: all is read
                break
            if not chunk:
                break
            err += chunk
    finally:
        if slave >= 0:
            os.close(slave)
        os.close(master)
    assert p.returncode == 0 and json.loads(p.stdout)["matches"] > 0
    assert b"100% Completed" in err
    q = subprocess.run([sys.executable, "-m", "libreplay.dask", "stats", "--local", "1", "samples/"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV, text=True, check=False)
    assert q.returncode == 0 and "Completed" not in q.stderr


def test_json_is_utf8_as_brp_writes_it():
    # a file name that is not UTF-8 reaches Python with lone surrogates: written U+FFFD, as brp does
    name = os.fsdecode(b"bad-\xe9.brp")
    assert ldask._json({"file": name}) == '{"file":"bad-\ufffd.brp"}'
    ldask._json({"file": name}).encode("utf-8")
