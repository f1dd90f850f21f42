"""libreplay.open reads what brp dump writes: the header, each deal's layout, every decision, the claims."""

import datetime as dt
import re

import pytest

import libreplay
from conftest import brp

LOGS = ["samples/stbl-4p.brp", "samples/kzv-4p.brp", "samples/aberto-4p.brp", "samples/stbl-2p.brp",
        "samples/disputed/claim-deal.brp", "samples/disputed/recovered.brp"]


def _text(m, deals):
    """The parts of the notation the match object holds, in brp dump's form."""
    lines = []
    for d in deals:
        lines.append("deal %d" % d.number)
        lines += ["hand %d: %s" % (s, " ".join(sorted(h, key=libreplay.card))) for s, h in enumerate(d.hands)]
        lines += ["morto %d: %s" % (i, " ".join(mo)) for i, mo in enumerate(d.mortos)]
        lines.append("stock: " + " ".join(d.stock))
        turn = None
        for x in d.decisions:
            if (x.turn, x.seat) != turn:
                lines.append("%d. %d: %s" % (x.turn, x.seat, x.text))
                turn = (x.turn, x.seat)
            else:
                lines[-1] += ", " + x.text
        lines += ["claim %d: %d %d" % (c.deal, *c.score) for c in d.claims]
    lines += ["claim match: %d %d" % c.score for c in m.claims if c.deal == 0]
    return lines


@pytest.mark.parametrize("path", LOGS)
def test_match_equals_brp_dump(samples, path):
    _, dump = brp("dump", path)
    want = [l for l in dump.splitlines() if l and not l.startswith("[") and not l.startswith("end")]
    with libreplay.open(path) as m:
        deals = list(m.deals())
        assert _text(m, deals) == want
        tags = dict(re.findall(r'^\[(\w+) "([^"]*)"', dump, re.M))
        assert m.rules["profile"] == tags["Profile"]
        assert m.players == int(tags["Players"])
        assert m.first_dealer == int(tags["FirstDealer"])
        seats = re.findall(r'^\[Seat "(\d)" "([^"]*)"\]', dump, re.M)
        assert [(str(i), n) for i, n in enumerate(m.names) if n] == seats
        meta = re.findall(r'^\[Meta "([^"]*)" "([^"]*)"\]', dump, re.M)
        assert list(m.metadata.items()) == meta
        if "Start" in tags:
            assert m.start_time == dt.datetime.strptime(tags["Start"], "%Y-%m-%dT%H:%M:%SZ").replace(
                tzinfo=dt.timezone.utc)
        assert m.recovered == ("end recovered" in dump)
        for rule, value in re.findall(r'^\[Rule "(\w+)" "([^"]*)"\]', dump, re.M):
            assert str(m.rules["params"][rule]).lower() == value
            assert rule in m.rules["overrides"]
        with pytest.raises(libreplay.StateError):
            list(m.deals())


def test_decision_fields():
    with libreplay.open("samples/stbl-4p.brp") as m:
        ds = [x for d in m.deals() for x in d.decisions]
    adds = [x for x in ds if x.kind == "add"]
    assert adds and all(x.side in (0, 1) and x.meld is not None for x in adds)
    assert all(len(x.cards) == 1 for x in ds if x.kind == "discard")
    assert all(x.cards == () for x in ds if x.kind in ("draw", "take"))
    assert str(ds[0]) == ds[0].text


def test_damaged_logs_raise_where():
    with pytest.raises(libreplay.Corrupt) as e:
        libreplay.open("samples/disputed/not-a-log.brp")
    # the byte said once: the library's message says it, nothing adds it again
    assert e.value.code == -4 and e.value.message.count("byte 0") == 1
    assert e.value.message == "samples/disputed/not-a-log.brp: byte 0: not a .brp match log (bad magic)"
    with libreplay.open("samples/disputed/damaged-byte.brp") as m:
        with pytest.raises(libreplay.Corrupt) as e:
            list(m.deals())
    assert e.value.message.count("byte 298") == 1


def test_an_empty_file_is_said_empty(tmp_path):
    (tmp_path / "empty.brp").write_bytes(b"")
    for source in (str(tmp_path / "empty.brp"), bytearray()):
        with pytest.raises(libreplay.Corrupt) as e:
            libreplay.open(source)
        assert "empty" in e.value.message and "magic" not in e.value.message


def test_matches_iterates_a_corpus_one_at_a_time(samples):
    seen = []
    for m in libreplay.matches(["samples/stbl-4p.brp", "samples/kzv-4p.brp"]):
        seen.append((m.path, m.rules["profile"]))
    assert seen == [("samples/stbl-4p.brp", "stbl"), ("samples/kzv-4p.brp", "kzv")]
