"""libreplay.verify gives exactly brp verify --json's object, on every sample and a simulated corpus."""

import libreplay
from conftest import brp_json_lines


def _same(paths, *brp_args):
    want = brp_json_lines("verify", "--json", *brp_args, *paths)
    assert len(want) == len(paths)
    rules = None
    if brp_args:
        rules = brp_args[1]
    for path, w in zip(paths, want):
        got = libreplay.verify(path, rules=rules)
        assert got == w
        assert list(got) == list(w)  # every key, in brp's order


def test_every_sample(samples):
    assert len(samples) >= 16
    _same(samples)
    kinds = {libreplay.verify(p)["verdict"] for p in samples}
    assert kinds == {"ok", "illegal", "mismatch", "incomplete", "malformed"}


def test_simulated_corpus(corpus):
    _same(corpus)


def test_imposed_rules(samples):
    _same(samples, "--rules", "kzv")


def test_json_keys_cover_every_verdict(samples):
    keys = set(libreplay.verify_json_keys())
    for p in samples:
        assert set(libreplay.verify(p)) <= keys
