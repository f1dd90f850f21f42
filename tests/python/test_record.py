"""libreplay.Recorder: a match recorded from Python is the log brp would write; a refused move raises."""

import datetime as dt

import pytest

import libreplay
from conftest import brp


@pytest.mark.parametrize("path", ["samples/stbl-4p.brp", "samples/kzv-4p.brp", "samples/stbl-2p.brp"])
def test_rerecording_a_sample_gives_its_text(samples, tmp_path, path):
    out = tmp_path / "again.brp"
    with libreplay.open(path) as m:
        overrides = m.rules["overrides"]
        with libreplay.Recorder(out, rules={"profile": m.rules["profile"], "overrides": overrides},
                                players=m.players, names=m.names, first_dealer=m.first_dealer,
                                start_time=m.start_time, metadata=m.metadata) as rec:
            for d in m.deals():
                rec.deal({"hands": d.hands, "mortos": d.mortos, "stock": d.stock})
                for x in d.decisions:
                    if x.kind != "morto":  # a morto pick-up is the seat that emptied its hand
                        assert rec.seat == x.seat
                    rec.play(x.text)
                for c in d.claims:
                    rec.claim(c.deal, c.score)
            for c in m.claims:
                if c.deal == 0:
                    rec.claim(0, c.score)
    assert brp("dump", out)[1] == brp("dump", path)[1]
    assert libreplay.verify(out)["verdict"] == "ok"


def test_refused_move_raises_illegal_move_and_records_nothing(tmp_path):
    out = tmp_path / "m.brp"
    with libreplay.Recorder(out, rules="stbl", players=4, names=["ana", "bia", "caio", "duda"],
                            start_time=dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc)) as rec:
        layout = libreplay.shuffle(4, seed=7)
        rec.deal(layout)
        seat = rec.seat
        with pytest.raises(libreplay.IllegalMove) as e:
            rec.play("discard " + layout["hands"][seat][0])
        assert e.value.rule == "turn.must_draw" and e.value.code == -5 and e.value.message
        with pytest.raises(libreplay.IllegalMove) as e:
            rec.play("take")
        assert e.value.rule == "pile.empty"
        rec.play("draw")
        rec.play("discard " + layout["hands"][seat][0])
        assert rec.seat == (seat + 1) % 4
    v = libreplay.verify(out)
    assert (v["verdict"], v["decisions"]) == ("incomplete", 2)
    m = libreplay.open(out)
    assert m.names == ["ana", "bia", "caio", "duda"]
    assert m.start_time == dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc)
    m.close()


def test_bad_input_is_an_error_with_a_code(tmp_path):
    with pytest.raises(libreplay.ParseError):
        libreplay._parse_action("drwa")
    with pytest.raises(libreplay.NotFound):
        libreplay.Recorder(tmp_path / "x.brp", rules="nope")
    with pytest.raises(libreplay.IOFailure):
        libreplay.Recorder(tmp_path / "no" / "such" / "x.brp")


def test_crash_leaves_a_growing_log_that_brp_recovers(tmp_path):
    out = tmp_path / "crash.brp"
    layout = libreplay.shuffle(2, seed=3)
    with pytest.raises(RuntimeError):
        with libreplay.Recorder(out, rules="stbl", players=2) as rec:
            rec.deal(layout)
            rec.play("draw")
            s = rec.seat
            hand = sorted(layout["hands"][s] + [layout["stock"][0]], key=libreplay.card)
            rec.play("discard " + hand[0])
            raise RuntimeError("the server died")
    rc, _ = brp("recover", out, "-o", tmp_path / "saved.brp")
    assert rc == 0
    v = libreplay.verify(tmp_path / "saved.brp")
    assert v["verdict"] == "incomplete" and v["decisions"] == 2 and v["recovered"]
