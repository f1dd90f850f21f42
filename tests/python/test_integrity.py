"""libreplay.integrity() is brp integrity --json's lines as a pandas DataFrame (issue 25).

On a corpus with a planted peeker and on the samples: the frame has one row a line of brp integrity
--json --pairs with the same options, in the same order, with the same values and evidence; pairs=False
keeps the players' lines only, player= one player's; full=True adds one hindsight line a player; a log
that does not verify ok is left out; options out of range raise InvalidArgument.
"""

import os

import pytest

import libreplay
from conftest import SRCROOT, brp, brp_json_lines

KEYS = ("statistic", "value", "n", "deals", "matches", "observed", "expected", "z", "p", "level", "flagged")


def _rows(df):
    out = []
    for r in df.to_dict("records"):
        subject = ("pair", r["player"], r["partner"]) if r["partner"] is not None else ("player", r["player"])
        out.append((subject, r["statistic"], round(r["value"], 6), r["n"], r["deals"], r["matches"],
                    round(r["observed"], 4), round(r["expected"], 4), round(r["z"], 4), float("%.6g" % r["p"]),
                    float("%.6g" % r["level"]), r["flagged"],
                    [(e["log"], e["deal"], e["turn"], e["decision"], e["number"], round(e["residual"], 4), e["view"])
                     for e in r["evidence"]]))
    return out


def _brp(*args):
    out = []
    for o in brp_json_lines("integrity", "--json", *args):
        subject = ("pair", o["pair"][0], o["pair"][1]) if "pair" in o else ("player", o["player"])
        out.append((subject, o["statistic"], o["value"], o["n"], o["deals"], o["matches"], o["observed"],
                    o["expected"], o["z"], o["p"], o["level"], o["flagged"],
                    [(e["log"], e["deal"], e["turn"], e["decision"], e["number"], e["residual"], e["view"])
                     for e in o["evidence"]]))
    return out


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("integrity") / "peek")
    brp("simulate", "-q", "-b", "peeker,greedy,greedy,greedy", "-n", 24, "-t", 0, "--seed", 9, "-o", d, check_rc=0)
    return d


def test_the_same_lines_as_brp(corpus):
    df = libreplay.integrity(corpus, pairs=True)
    assert list(df.columns) == list(libreplay.INTEGRITY_COLUMNS)
    assert _rows(df) == _brp("--pairs", corpus)
    peek = df[(df.statistic == "peek") & (df.player == "peeker-0")].iloc[0]
    assert peek.flagged and peek.evidence and peek.evidence[0]["view"].startswith("#d=1&t=")
    # players only, one player, another seed
    assert _rows(libreplay.integrity(corpus)) == _brp(corpus)
    assert _rows(libreplay.integrity(corpus, pairs=True, player="greedy-2")) == _brp("--pairs", "--player",
                                                                                     "greedy-2", corpus)
    assert _rows(libreplay.integrity(corpus, seed=5, samples=8)) == _brp("--seed", 5, "--samples", 8, corpus)


def test_samples_and_what_is_left_out(samples):
    # the samples that read, one of them illegal (left out by both); a log that cannot be read raises
    logs = [p for p in samples if "/disputed/" not in p] + ["samples/disputed/pile-frozen.brp"]
    assert _rows(libreplay.integrity(logs, pairs=True)) == _brp("--pairs", *logs)
    with pytest.raises(libreplay.Corrupt):
        libreplay.integrity(["samples/disputed/not-a-log.brp"])


def test_full(corpus):
    logs = sorted(os.path.join(corpus, f) for f in os.listdir(corpus))[:3]
    df = libreplay.integrity(logs, full=True, full_strength=3)
    assert sorted(df[df.statistic == "hindsight"].player) == ["greedy-1", "greedy-2", "greedy-3", "peeker-0"]
    assert _rows(df) == _brp("--full", "--full-strength", 3, *logs)


@pytest.mark.parametrize("kw", [{"samples": 0}, {"permutations": 5}, {"level": 0}, {"level": 0.7},
                                {"seed": -1}, {"seat": 4}, {"full": True, "full_strength": 1}])
def test_out_of_range(corpus, kw):
    with pytest.raises(libreplay.InvalidArgument):
        libreplay.integrity(corpus, **kw)
