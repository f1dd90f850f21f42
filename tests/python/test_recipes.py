"""The README's recipes for a corpus on many machines, as far as one machine allows:
GNU parallel for real, and the Kubernetes Indexed Job's per-index script run for two indexes."""

import os
import shutil
import subprocess

from conftest import BRP, ENV, SRCROOT, brp
from test_dask import _content


def test_gnu_parallel_shards_merged_equal_one_export(corpus, tmp_path):
    assert shutil.which("parallel"), "GNU parallel is missing (tools/dev.sh installs it)"
    (tmp_path / "all.list").write_text("".join(p + "\n" for p in corpus))
    script = """
        set -e
        split -n l/4 all.list shard.
        parallel --will-cite -j 2 '"$BRP" export -q --sqlite {}.db --from-list {}' ::: shard.??
        "$BRP" merge -q games.db shard.??.db
    """
    subprocess.run(["sh", "-c", script], cwd=tmp_path, env=dict(ENV, BRP=BRP), check=True)
    brp("export", "-q", "--sqlite", tmp_path / "one.db", *corpus, check_rc=0)
    assert _content(tmp_path / "games.db") == _content(tmp_path / "one.db")
    # verification the same way: the verdicts, in shard order, are brp verify's
    out = subprocess.run(["sh", "-c", "parallel --will-cite -k -j 2 '\"$BRP\" verify --json --from-list {}' ::: shard.??"],
                         cwd=tmp_path, env=dict(ENV, BRP=BRP), stdout=subprocess.PIPE, text=True).stdout
    assert out == brp("verify", "--json", *corpus)[1]


def test_kubernetes_indexed_job_script_for_two_indexes(corpus, tmp_path):
    (tmp_path / "all.list").write_text("".join(p + "\n" for p in corpus))
    out = tmp_path / "shards"
    out.mkdir()
    script = os.path.join(SRCROOT, "tools", "k8s-export-shard.sh")
    for index in (0, 1):
        env = dict(ENV, JOB_COMPLETION_INDEX=str(index), SHARDS="2", LIST=str(tmp_path / "all.list"),
                   OUT=str(out), BRP=BRP)
        subprocess.run([script], env=env, check=True)
    assert sorted(os.listdir(out)) == ["shard-0.db", "shard-1.db"]
    brp("merge", tmp_path / "games.db", out / "shard-0.db", out / "shard-1.db", check_rc=0)
    brp("export", "-q", "--sqlite", tmp_path / "one.db", *corpus, check_rc=0)
    assert _content(tmp_path / "games.db") == _content(tmp_path / "one.db")


def test_dask_scheduler_and_workers_as_separate_processes(samples, corpus, tmp_path):
    """The multi-host recipe on loopback: dask-scheduler and dask-worker processes, the CLI with --scheduler."""
    import socket
    import sys

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    addr = "tcp://127.0.0.1:%d" % port
    env = dict(ENV)
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                               "--port", str(port), "--dashboard-address", "127.0.0.1:0"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)]
    try:
        procs.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", addr, "--nworkers", "2",
                                       "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env))
        from distributed import Client
        with Client(addr, timeout=60) as c:
            c.wait_for_workers(2, timeout=60)
        cli = [sys.executable, "-m", "libreplay.dask"]
        p = subprocess.run(cli + ["verify", "--scheduler", addr, "samples/"], stdout=subprocess.PIPE, env=env,
                           text=True, check=False, cwd=SRCROOT)
        assert p.stdout == brp("verify", "--json", "samples/")[1] and p.returncode == 3
        p = subprocess.run(cli + ["stats", "--scheduler", addr, *corpus], stdout=subprocess.PIPE, env=env,
                           text=True, check=True)
        assert p.stdout == brp("stats", "--json", *corpus)[1]
        p = subprocess.run(cli + ["export", "--scheduler", addr, "--sqlite", str(tmp_path / "games.db"),
                                  "--shard-dir", str(tmp_path / "shards"), "--partition-size", "10", *corpus],
                           stdout=subprocess.PIPE, env=env, text=True, check=True)
        want = brp("export", "--sqlite", tmp_path / "one.db", *corpus)[1]
        assert p.stdout == want
        assert _content(tmp_path / "games.db") == _content(tmp_path / "one.db")
        assert os.listdir(tmp_path / "shards") == []
    finally:
        for pr in reversed(procs):
            pr.terminate()
        for pr in reversed(procs):
            try:
                pr.wait(30)
            except subprocess.TimeoutExpired:
                pr.kill()
                pr.wait()
