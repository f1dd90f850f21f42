"""Fixtures of the Python tests: brp, the samples, a simulated corpus, a Dask cluster.

meson test sets BRP (the built brp), BRP_SRCROOT (the source tree),
BRP_LAYOUT (the layout printer), PYTHONPATH and LIBREPLAY_LIBRARY.
"""

import json
import os
import subprocess

import pytest

BRP = os.environ.get("BRP", "brp")
SRCROOT = os.environ.get("BRP_SRCROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
ENV = dict(os.environ, LC_ALL="C", TZ="UTC")


def brp(*args, check_rc=None, cwd=None):
    """Run brp; returns (rc, stdout)."""
    p = subprocess.run([BRP, *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV,
                       cwd=cwd, check=False, text=True)
    if check_rc is not None:
        assert p.returncode == check_rc, p.stderr
    return p.returncode, p.stdout


def brp_json_lines(*args):
    _, out = brp(*args)
    return [json.loads(line) for line in out.splitlines()]


@pytest.fixture(scope="session")
def samples():
    """Every log in samples/, in brp's order, as paths relative to the source root (cwd set there)."""
    os.chdir(SRCROOT)  # the paths brp prints are the paths given
    import libreplay
    return list(libreplay.expand_paths(["samples"]))


@pytest.fixture(scope="session")
def corpus(tmp_path_factory):
    """A simulated corpus: 8 matches of every profile and table size, and the samples' disputed logs."""
    d = tmp_path_factory.mktemp("corpus")
    for rules in ("kzv", "stbl", "aberto"):
        for players in (2, 4):
            brp("simulate", "--rules", rules, "--players", players, "--matches", 8, "--bot", "mixed",
                "--seed", 11, "-o", d / ("%s-%d" % (rules, players)), check_rc=0)
    import libreplay
    return [str(p) for p in libreplay.expand_paths([str(d)])]


@pytest.fixture(scope="session")
def cluster():
    """A LocalCluster of two worker processes on loopback, and its client."""
    distributed = pytest.importorskip("distributed")
    cl = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None)
    client = distributed.Client(cl)
    try:
        yield cl, client
    finally:
        client.close()
        cl.close()
