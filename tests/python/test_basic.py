"""Rules, melds, errors: the same answers as brp rules --json and brp meld --json."""

import json

import pytest

import libreplay
from conftest import brp


def test_version_is_the_library_s():
    _, out = brp("--version")
    assert libreplay.version() in out


@pytest.mark.parametrize("profile", ["kzv", "stbl", "aberto"])
def test_rules_equal_brp_rules_json(profile):
    _, out = brp("rules", profile, "--json")
    want = json.loads(out)
    got = libreplay.rules(profile)
    assert {"profile": got["profile"], "params": got["params"]} == want
    assert list(got["params"]) == list(want["params"])
    assert got["overrides"] == {}


def test_rules_override():
    _, out = brp("rules", "aberto", "--set", "target=1500", "--set", "wild_mobility=floating", "--json")
    got = libreplay.rules("aberto", target=1500, wild_mobility="floating")
    assert got["params"] == json.loads(out)["params"]
    assert got["overrides"] == {"target": 1500, "wild_mobility": "floating"}


MELDS = [
    ("stbl", None, "8d JK 10d"), ("kzv", None, "8d JK 10d"), ("stbl", None, "Kh Ah 2h"),
    ("kzv", None, "Kh Ah 2h"), ("stbl", "low", "8s 9s JK"), ("stbl", None, "8c 8d 8h"),
    ("kzv", None, "Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh Ah"), ("aberto", None, "2c 3c 4c 2h 2s"),
    ("stbl", None, "5h 6h"),
]


@pytest.mark.parametrize("profile,end,cards", MELDS)
def test_meld_equals_brp_meld_json(profile, end, cards):
    args = ["meld", "--rules", profile, "--json"] + (["--end", end] if end else []) + cards.split()
    _, out = brp(*args)
    assert libreplay.meld(cards, rules=profile, end=end) == json.loads(out)
    assert libreplay.meld(cards.split(), rules=profile, end=end) == json.loads(out)


def test_errors_carry_stable_codes():
    with pytest.raises(libreplay.NotFound) as e:
        libreplay.rules("nope")
    assert (e.value.code, e.value.name) == (-6, "ENOTFOUND")
    with pytest.raises(libreplay.NotFound):
        libreplay.rules("stbl", no_such_param=1)
    with pytest.raises(libreplay.InvalidArgument) as e:
        libreplay.rules("stbl", target=-5)
    assert e.value.code == -1 and "target" in e.value.message
    with pytest.raises(libreplay.InvalidArgument):
        libreplay.meld("8d XX 10d")
    with pytest.raises(libreplay.IOFailure) as e:
        libreplay.verify("/nonexistent/x.brp")
    assert e.value.code == -3 and isinstance(e.value, OSError)
    with pytest.raises(libreplay.IOFailure):  # a trusted key file that does not exist
        libreplay.verify("samples/stbl-4p.brp", keys=["/nonexistent/k.pub"])
    assert issubclass(libreplay.IllegalMove, libreplay.Error)
