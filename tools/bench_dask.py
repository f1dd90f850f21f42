#!/usr/bin/python3
"""Benchmark of libreplay.dask against brp on one machine (docs/performance.md).

    meson devenv -C build /usr/bin/python3 tools/bench_dask.py [--matches N] [--rounds R]

Simulates a corpus (N matches over every profile and table size, default
1200), starts two LocalClusters (1 and 2 worker processes, one thread each)
and times, interleaved round by round so that the machine's other load
falls on every variant alike: brp verify -j 2, libreplay.dask.verify on 1
and 2 workers, brp export --sqlite -j 2, libreplay.dask.export_sqlite on 1
and 2 workers. Prints the median of each (seconds, wall clock), the ratios,
the cluster start-up time and the load average.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from distributed import Client, LocalCluster

import libreplay
import libreplay.dask as ldask


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--matches", type=int, default=1200)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--brp", default=os.path.join(os.path.dirname(__file__), "..", "build", "tools", "brp"))
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench-dask-")
    per = a.matches // 6
    for rules in ("kzv", "stbl", "aberto"):
        for players in (2, 4):
            subprocess.run([a.brp, "simulate", "--rules", rules, "--players", str(players), "--matches", str(per),
                            "--bot", "mixed", "--seed", "5", "-j", "2", "-o",
                            os.path.join(tmp, "corpus", "%s-%d" % (rules, players))], check=True,
                           stdout=subprocess.DEVNULL)
    paths = list(libreplay.expand_paths([os.path.join(tmp, "corpus")]))
    t0 = time.monotonic()
    clusters = {}
    for n in (1, 2):
        cl = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address=None)
        clusters[n] = (cl, Client(cl))
    startup = (time.monotonic() - t0) / 2
    times = {k: [] for k in ("brp verify -j 2", "dask verify 1", "dask verify 2", "brp export -j 2",
                             "dask export 1", "dask export 2")}
    loads = []

    def timed(key, fn):
        t = time.monotonic()
        fn()
        times[key].append(time.monotonic() - t)

    def rm(db):
        if os.path.exists(db):
            os.unlink(db)

    db = os.path.join(tmp, "out.db")
    for r in range(a.rounds):
        loads.append(os.getloadavg()[0])
        timed("brp verify -j 2", lambda: subprocess.run([a.brp, "verify", "-q", "-j", "2", *paths], check=True))
        for n in (1, 2):
            timed("dask verify %d" % n, lambda: ldask.verify(paths, clusters[n][1]))
        rm(db)
        timed("brp export -j 2", lambda: subprocess.run([a.brp, "export", "-q", "-j", "2", "--sqlite", db, *paths],
                                                        check=True))
        for n in (1, 2):
            rm(db)
            timed("dask export %d" % n, lambda: ldask.export_sqlite(paths, db, clusters[n][1]))
    med = {k: statistics.median(v) for k, v in times.items()}
    print("corpus: %d matches, %d rounds interleaved; load average at each round: %s"
          % (len(paths), a.rounds, " ".join("%.1f" % x for x in loads)))
    print("cluster start-up (mean of the two): %.2f s" % startup)
    for k, v in med.items():
        print("%-18s median %.2f s  (%s)" % (k, v, " ".join("%.2f" % x for x in times[k])))
    print("verify: 2 workers / 1 worker speed-up %.2f; dask 2 workers / brp -j 2 time %.2f"
          % (med["dask verify 1"] / med["dask verify 2"], med["dask verify 2"] / med["brp verify -j 2"]))
    print("export: 2 workers / 1 worker speed-up %.2f; dask 2 workers / brp -j 2 time %.2f"
          % (med["dask export 1"] / med["dask export 2"], med["dask export 2"] / med["brp export -j 2"]))
    for cl, client in clusters.values():
        client.close()
        cl.close()
    subprocess.run(["rm", "-rf", tmp], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
