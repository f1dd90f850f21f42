"""libreplay on a Dask cluster: verify, export and count corpora that outgrow one machine.

Each function takes the user's ``distributed.Client`` and only submits work
to it: the paths are cut into partitions (a dask.bag), each partition runs
on a worker, which calls the C library on the logs of its partition, and the
results come back to the caller. The workers must see the logs at the same
paths (shared storage; a relative path is read from the caller's current
directory, which the workers must see under the same name), and
``export_sqlite``'s shard directory too.

    python3 -m libreplay.dask verify --local 2 samples/
    python3 -m libreplay.dask export --scheduler tcp://10.0.0.1:8786 --sqlite games.db /shared/corpus/

A partition that fails because its worker died is run again by Dask on
another worker (distributed's allowed-failures); an export shard is written
under a temporary name and renamed into place only once committed, and the
merge adds a match by its hash, so a rerun neither loses nor duplicates a
match.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import uuid
from typing import Any, Dict, Iterable, List, Optional, Sequence

import dask.bag as db

import libreplay
from libreplay._stats import _stats_add, _stats_finish, _stats_zero

__all__ = ["verify", "export_sqlite", "stats", "main"]

DEFAULT_PARTITION = 64


def _bag(paths: Iterable[str], partition_size: int):
    listed = list(libreplay.expand_paths(paths))
    if not listed:
        raise libreplay.NotFound("no .brp log found in the arguments")
    return listed, db.from_sequence(listed, partition_size=max(1, partition_size))


def _verify_partition(paths: List[str], rules, base: str) -> List[Dict[str, Any]]:
    return [libreplay.verify(p, rules=rules, base=base, unreadable=True) for p in paths]


_INT_KEYS = ("deal", "turn", "seat", "side", "claimed", "computed", "offset", "deals", "decisions", "winner")


def _result(client, collection, progress: bool):
    """The collection computed on the cluster; with progress, Dask's own progress bar
    (distributed.progress) drawn on standard error while it runs, so that results on
    standard output never share a line with it."""
    future = client.compute(collection)
    if progress:
        from distributed import progress as bar

        with contextlib.redirect_stdout(sys.stderr):
            bar(future, notebook=False)
    return future.result()


def verify(paths, client, rules=None, partition_size: int = DEFAULT_PARTITION, progress: bool = False):
    """Verdicts of the logs in paths, computed on the cluster's workers.

    Returns a pandas DataFrame, one row a log in the order brp verify gives
    (directories walked as it walks them), one column per key of
    ``brp verify --json`` (a key a verdict lacks is missing: <NA>; numbers
    are Int64, texts string, total a list, breakdown and signature dicts,
    recovered and closed bool, match_id a str or None for JSON's null).
    ``verdicts(df)`` gives back the dicts. progress: Dask's progress bar on
    standard error while the workers run."""
    import pandas as pd

    _, bag = _bag(paths, partition_size)
    rows = _result(client, bag.map_partitions(_verify_partition, rules, os.getcwd()), progress)
    known = libreplay.verify_json_keys()
    seen = {k for r in rows for k in r}
    cols = [k for k in known if k in seen] + sorted(seen - set(known))
    data = {}
    for c in cols:
        col = pd.Series([r.get(c, pd.NA) for r in rows], dtype=object)
        if c in _INT_KEYS:
            col = col.astype("Int64")
        elif c in ("file", "verdict", "decision", "rule", "message"):
            col = col.astype("string")
        data[c] = col
    return pd.DataFrame(data, columns=cols)


def verdicts(df) -> List[Dict[str, Any]]:
    """The rows of verify()'s DataFrame as the dicts libreplay.verify gives (missing keys dropped)."""
    import pandas as pd

    out = []
    for rec in df.to_dict("records"):
        d = {}
        for k, v in rec.items():
            if v is None or isinstance(v, (list, dict)):  # None: a JSON null (match_id); <NA>: no such key
                d[k] = v
            elif not pd.isna(v):
                d[k] = v.item() if hasattr(v, "item") else v
        out.append(d)
    return out


def _stats_partition(paths: List[str], base: str) -> List[Dict[str, Any]]:
    return [libreplay.stats(paths, raw=True, base=base)]


def stats(paths, client, partition_size: int = DEFAULT_PARTITION, progress: bool = False) -> Dict[str, Any]:
    """``brp stats --json``'s counts for the logs in paths, each partition counted
    on a worker, the counts added up here (progress: as verify's)."""
    _, bag = _bag(paths, partition_size)
    parts = _result(client, bag.map_partitions(_stats_partition, os.getcwd()), progress)
    total = _stats_zero()
    for p in parts:
        _stats_add(total, p)
    return _stats_finish(total)


def _export_partition(paths: List[str], shard_dir: str, actions: bool, base: str):
    """Export one partition into its own shard database: written under a unique
    temporary name, committed, then renamed to the partition's name. A rerun of
    the partition (its worker died) writes the same shard again."""
    first = paths[0] if paths else ""
    name = "shard-%s.db" % uuid.uuid5(uuid.NAMESPACE_URL, "\0".join(paths)).hex
    final = os.path.join(shard_dir, name)
    tmp = os.path.join(shard_dir, ".%s.%s.part" % (name, uuid.uuid4().hex))
    try:
        counts = libreplay.export_sqlite(paths, tmp, actions=actions, base=base)
        os.replace(tmp, final)
    finally:
        for f in (tmp, tmp + "-journal"):
            if os.path.exists(f):
                os.unlink(f)
    return [{"shard": final, "first": first, **counts}]


def export_sqlite(paths, out_db, client, actions: bool = False, shard_dir: Optional[str] = None,
                  partition_size: int = DEFAULT_PARTITION, keep_shards: bool = False,
                  progress: bool = False) -> Dict[str, int]:
    """Export the logs in paths into the SQLite database out_db on the cluster.

    Each partition exports its own shard database with the C exporter on a
    worker (into shard_dir, which every worker and this process must see:
    by default a new directory beside out_db); the shards are then merged
    here, in the order of the paths, with rpl_export_db_merge, so out_db
    holds what ``brp export --sqlite out_db PATH...`` writes. Returns
    ``{"logs", "ok", "added"}`` (added: matches new to out_db). progress: as
    verify's, over the partitions' exports."""
    _, bag = _bag(paths, partition_size)
    own = shard_dir is None
    if own:
        shard_dir = tempfile.mkdtemp(prefix=".shards-", dir=os.path.dirname(os.path.abspath(out_db)))
    os.makedirs(shard_dir, exist_ok=True)
    try:
        parts = _result(client, bag.map_partitions(_export_partition, shard_dir, actions, os.getcwd()), progress)
        added = libreplay.merge_sqlite(out_db, [p["shard"] for p in parts])
        result = {"logs": sum(p["logs"] for p in parts), "ok": sum(p["ok"] for p in parts), "added": added}
        if not keep_shards:
            for p in parts:
                os.unlink(p["shard"])
        return result
    finally:
        if own and not keep_shards:
            for f in os.listdir(shard_dir):
                os.unlink(os.path.join(shard_dir, f))
            os.rmdir(shard_dir)


# ---- the command line ---------------------------------------------------------------------------

def _json_string(s: str) -> str:
    """A JSON string as brp writes it (tools/brp/util.c: brp_json_string): a byte that
    was not UTF-8 (a path's, kept by Python as a lone surrogate) as U+FFFD."""
    out = ['"']
    for ch in s:
        if 0xD800 <= ord(ch) <= 0xDFFF:
            ch = "\ufffd"
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch in "\b\f\n\r\t":
            out.append({"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _json(v: Any, floats: str = "%.4f") -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return floats % v
    if isinstance(v, str):
        return _json_string(v)
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(_json(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(_json_string(k) + ":" + _json(x) for k, x in v.items()) + "}"
    raise TypeError(type(v))


def _client(args):
    from distributed import Client, LocalCluster

    if args.scheduler:
        return Client(args.scheduler), None
    cluster = LocalCluster(n_workers=args.local, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None)
    return Client(cluster), cluster


def main(argv: Optional[Sequence[str]] = None) -> int:
    """python3 -m libreplay.dask verify|stats|export (--scheduler ADDR | --local N) PATH..."""
    ap = argparse.ArgumentParser(prog="python3 -m libreplay.dask",
                                 description="Verify, count or export match logs on a Dask cluster.")
    ap.add_argument("command", choices=("verify", "stats", "export"))
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--scheduler", metavar="ADDR", help="a running scheduler, tcp://HOST:8786")
    where.add_argument("--local", metavar="N", type=int, help="start a local cluster of N worker processes")
    ap.add_argument("--partition-size", type=int, default=DEFAULT_PARTITION, metavar="N",
                    help="logs a task (default %d)" % DEFAULT_PARTITION)
    ap.add_argument("--sqlite", metavar="DB", help="export: the database to write")
    ap.add_argument("--shard-dir", metavar="DIR", help="export: where workers write their shards "
                    "(shared storage; default: beside DB)")
    ap.add_argument("--actions", action="store_true", help="export: also every decision")
    ap.add_argument("--from-list", metavar="FILE", help="also the paths listed in FILE, one a line")
    ap.add_argument("-q", "--quiet", action="store_true",
                    help="no progress bar (shown on standard error when it is a terminal)")
    ap.add_argument("paths", nargs="*", metavar="PATH")
    args = ap.parse_intermixed_args(argv)
    if args.command == "export" and not args.sqlite:
        ap.error("export needs --sqlite DB")
    if args.local is not None and args.local < 1:
        ap.error("--local needs at least 1 worker")
    paths = list(args.paths)
    if args.from_list:
        with open(args.from_list, encoding="utf-8") as f:
            paths += [line.rstrip("\n") for line in f if line.strip()]
    if paths == ["-"]:
        paths = [line.rstrip("\n") for line in sys.stdin if line.strip()]
    if not paths:
        ap.error("no log given")
    bar = not args.quiet and sys.stderr.isatty()  # Dask's own bar, as brp's progress line: a terminal only
    client, cluster = _client(args)
    try:
        if args.command == "verify":
            worst = 0
            for d in verdicts(verify(paths, client, partition_size=args.partition_size, progress=bar)):
                print(_json(d))
                rc = 0 if d["verdict"] == "ok" else 3 if d["verdict"] in ("malformed", "unreadable") else 1
                worst = max(worst, rc)
            return worst
        if args.command == "stats":
            print(_json(stats(paths, client, partition_size=args.partition_size, progress=bar)))
            return 0
        r = export_sqlite(paths, args.sqlite, client, actions=args.actions, shard_dir=args.shard_dir,
                          partition_size=args.partition_size, progress=bar)
        print("%d logs: %d added, %d already in the database; %d ok, %d not ok"
              % (r["logs"], r["added"], r["logs"] - r["added"], r["ok"], r["logs"] - r["ok"]))
        return 0
    except libreplay.Error as e:
        print("python3 -m libreplay.dask %s: %s" % (args.command, e), file=sys.stderr)
        return 3
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


if __name__ == "__main__":
    sys.exit(main())
