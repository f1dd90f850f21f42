"""libreplay.Recorder: a match recorded from Python is the log brp would write; a refused move raises."""

import datetime as dt
import os

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
    # the same match, written in the newest format version (7), where the sample is version 2 (its
    # text says [FormatVersion "2"], docs/format.md 19.2): what brp import writes of the text without
    # that tag (version 7 keeps of the stock only the order play revealed, and so its own identity)
    text = tmp_path / "newest.txt"
    text.write_text(brp("dump", path)[1].replace('[FormatVersion "2"]\n', ""))
    brp("import", text, "-o", tmp_path / "newest.brp", check_rc=0)
    assert brp("dump", out)[1] == brp("dump", tmp_path / "newest.brp")[1]
    assert libreplay.verify(out)["verdict"] == "ok"
    assert libreplay.verify(out)["match_id"] == libreplay.verify(tmp_path / "newest.brp")["match_id"]
    with libreplay.open(out) as again:
        assert again.format_version == 7


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
    rec = libreplay.Recorder(None)
    with pytest.raises(libreplay.ParseError):
        rec.play("drwa")  # refused before the engine sees it
    rec.abandon()
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


def _record(dest, m):
    """Record the match m reads into dest (a path, or None: memory); the recorder, closed."""
    rec = libreplay.Recorder(dest, rules={"profile": m.rules["profile"], "overrides": m.rules["overrides"]},
                             players=m.players, names=m.names, first_dealer=m.first_dealer,
                             start_time=m.start_time, metadata=m.metadata)
    growing = []
    for d in m.deals():
        rec.deal({"hands": d.hands, "mortos": d.mortos, "stock": d.stock})
        for x in d.decisions:
            rec.play(x.text)
            if dest is None and x.kind == "discard" and len(growing) < 3:
                growing.append(rec.getvalue())
        for c in d.claims:
            rec.claim(c.deal, c.score)
    for c in m.claims:
        if c.deal == 0:
            rec.claim(0, c.score)
    rec.close()
    return rec, growing


@pytest.mark.parametrize("path", ["samples/stbl-4p.brp", "samples/stbl-2p.brp"])
def test_a_recorder_into_memory_gives_the_bytes_of_a_file(samples, tmp_path, path):
    out = tmp_path / "file.brp"
    with libreplay.open(path) as m:
        _record(out, m)
    with libreplay.open(path) as m:
        rec, growing = _record(None, m)
    data = rec.getvalue()
    assert data == out.read_bytes()
    with pytest.raises(libreplay.StateError):
        libreplay.Recorder(tmp_path / "f.brp").getvalue()
    # the growing form as flushed: a valid, unclosed log, read from its bytes
    assert len(growing) == 3 and len(growing[0]) < len(growing[1]) < len(growing[2])
    with libreplay.open(growing[2]) as g:
        assert g.path == "-"
        decisions = sum(len(d.decisions) for d in g.deals())
        assert decisions > 0 and not g.recovered
    # the compact form read from bytes (and from a bytearray) is the file's match
    for source in (data, bytearray(data), memoryview(data)):
        with libreplay.open(source) as a, libreplay.open(out) as b:
            assert a.names == b.names and a.rules == b.rules
            assert [d.decisions for d in a.deals()] == [d.decisions for d in b.deals()]
            assert a.claims == b.claims


def test_bytes_that_are_no_log_are_refused_and_a_bytes_path_is_a_path(tmp_path):
    with pytest.raises(libreplay.Corrupt):
        libreplay.open(bytearray(b"not a log"))
    with pytest.raises(libreplay.Corrupt):
        libreplay.open(b"\x89BRP cut")
    with pytest.raises(libreplay.IOFailure):
        libreplay.open(os.fsencode(tmp_path / "missing.brp"))


def test_a_match_from_bytes_has_the_positions_of_its_file(samples):
    data = open("samples/stbl-2p.brp", "rb").read()
    with libreplay.open(data) as a, libreplay.open("samples/stbl-2p.brp") as b:
        for deal, decision in ((1, 0), (1, 5), (1, 40)):
            assert a.position(deal, decision) == b.position(deal, decision)
