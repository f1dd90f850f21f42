"""Match.review() is brp review --json's decisions as a pandas DataFrame (issue 24).

On a two- and a four-player sample, at a small strength, the frame has one row a decision brp review
--json reviews with the same strength and seed, with the same values (brp review rounds them: compared
as it prints them); the same from the log's bytes; seats= reviews those seats only; the review
stored by brp export --review holds the same decisions; arguments out of range raise InvalidArgument.
"""

import os
import sqlite3

import pandas as pd
import pytest

import libreplay
from conftest import SRCROOT, brp, brp_json_lines

STRENGTH, SEED = 3, 7
LOGS = ("samples/stbl-2p.brp", "samples/stbl-4p.brp")


def _as_printed(df):
    """The frame's rows as brp review --json prints them (one decimal, win_loss two)."""
    out = []
    for r in df.itertuples(index=False):
        out.append((r.deal, r.turn, r.decision, r.seat, r.played, r.best, r.greedy, "%.1f" % r.value_played,
                    "%.1f" % r.value_best, "%.1f" % r.loss, "%.1f" % r.se, r.samples, r.candidates, r[13],
                    r.class_uncertain, "%.2f" % r.win_loss, "%.1f" % r.accuracy))
    return out


def _brp_review(path, *args):
    objs = brp_json_lines("review", "--json", "--strength", STRENGTH, "--seed", SEED, *args, path)
    return [(o["deal"], o["turn"], o["decision"], o["seat"], o["played"], o["best"], o["greedy"],
             "%.1f" % o["value_played"], "%.1f" % o["value_best"], "%.1f" % o["loss"], "%.1f" % o["se"],
             o["samples"], o["candidates"], o["class"], o["class_uncertain"], "%.2f" % o["win_loss"],
             "%.1f" % o["accuracy"]) for o in objs
            if "summary" not in o and "verdict" not in o and "review" not in o]


@pytest.mark.parametrize("log", LOGS)
def test_review_is_brp_review(log):
    path = os.path.join(SRCROOT, log)
    with libreplay.open(path) as m:
        df = m.review(strength=STRENGTH, seed=SEED)
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == list(libreplay.Match.REVIEW_COLUMNS)
    want = _brp_review(path)
    assert len(want) > 0
    assert _as_printed(df) == want
    # the first judgement's, the second's, or the second's extended near a class line (docs/review.md, section 2)
    assert set(df["samples"]) <= {STRENGTH, 2 * STRENGTH, 2 * 4 * STRENGTH}
    # from the log's bytes: the same frame
    with open(path, "rb") as f, libreplay.open(f.read()) as m:
        assert m.review(strength=STRENGTH, seed=SEED).equals(df)


def test_review_seats_and_export(tmp_path):
    path = os.path.join(SRCROOT, LOGS[1])
    with libreplay.open(path) as m:
        df = m.review(strength=STRENGTH, seed=SEED, seats=[1, 3])
        assert set(df["seat"]) == {1, 3}
        assert _as_printed(df) == _brp_review(path, "--seat", "1", "--seat", "3")
        whole = m.review(strength=STRENGTH, seed=SEED)
    # brp export --review stores the same decisions, with the same values
    db = tmp_path / "r.db"
    brp("export", "-q", "--sqlite", db, "--review-strength", STRENGTH, "--review-seed", SEED, path, check_rc=0)
    con = sqlite3.connect(str(db))
    stored = pd.read_sql_query("SELECT deal, turn, decision, seat, played, best, greedy, value_played, value_best, "
                               "loss, se, samples, candidates, class, uncertain AS class_uncertain, win_loss, "
                               "accuracy FROM decision_values ORDER BY deal, number", con)
    con.close()
    stored["class_uncertain"] = stored["class_uncertain"].astype(bool)
    assert stored.to_dict("records") == whole.to_dict("records")


def test_review_arguments():
    with libreplay.open(os.path.join(SRCROOT, LOGS[0])) as m:
        for bad in ({"strength": 1}, {"strength": 1001}, {"strength": "8"}, {"seed": -1}, {"seats": [2]},
                    {"seats": []}):
            with pytest.raises(libreplay.InvalidArgument):
                m.review(**bad)
    m.close()
    with pytest.raises(libreplay.StateError):
        m.review(strength=STRENGTH)
