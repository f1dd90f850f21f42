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


def test_trusted_keys(tmp_path):
    """keys= is brp verify -K: signed by the trusted key ok, by another key or unsigned untrusted."""
    import subprocess
    from conftest import BRP
    for name in ("a", "b"):
        subprocess.run([BRP, "keygen", "-o", str(tmp_path / name)], check=True, capture_output=True)
    subprocess.run([BRP, "simulate", "-q", "-n", "2", "--seed", "5", "-k", str(tmp_path / "a.key"),
                    "-o", str(tmp_path / "signed")], check=True)
    subprocess.run([BRP, "simulate", "-q", "-n", "1", "--seed", "5", "-o", str(tmp_path / "plain")], check=True)
    paths = sorted(str(p) for p in (tmp_path / "signed").glob("*.brp")) + \
        sorted(str(p) for p in (tmp_path / "plain").glob("*.brp"))
    for key in ("a", "b"):
        pub = str(tmp_path / (key + ".pub"))
        want = brp_json_lines("verify", "--json", "-K", pub, *paths)
        got = [libreplay.verify(p, keys=pub) for p in paths]
        assert got == want
        assert [g["verdict"] for g in got] == (["ok", "ok", "untrusted"] if key == "a" else ["untrusted"] * 3)
    assert libreplay.verify(paths[0], keys=[str(tmp_path / "b.pub"), str(tmp_path / "a.pub")])["verdict"] == "ok"


def test_untrusted_bytes(tmp_path):
    """Bytes no trusted key signs get no verdict of their own: the replay's finding is a detail, its seat
    only in signed bytes; a log whose header says it is signed and whose signature was cut off is
    untrusted without keys; the dict is brp verify --json's, key for key."""
    import os
    import shutil
    import subprocess
    import zlib
    from conftest import BRP, SRCROOT
    subprocess.run([BRP, "keygen", "-o", str(tmp_path / "p")], check=True, capture_output=True)
    pub = str(tmp_path / "p.pub")
    signed = str(tmp_path / "signed.brp")
    shutil.copy(os.path.join(SRCROOT, "samples", "disputed", "meld-two-wilds.brp"), signed)
    subprocess.run([BRP, "sign", "-k", str(tmp_path / "p.key"), signed], check=True, capture_output=True)
    data = open(signed, "rb").read()
    junk = b"x\x02ab"  # an optional section after the signature
    appended = str(tmp_path / "appended.brp")
    with open(appended, "wb") as f:
        f.write(data + junk + zlib.crc32(junk).to_bytes(4, "little"))
    for path, verdict, seat in ((signed, "illegal", 1), (appended, "untrusted", 1)):
        got = libreplay.verify(path, keys=pub)
        want = brp_json_lines("verify", "--json", "-K", pub, path)
        assert [got] == want and list(got) == list(want[0])
        assert got["verdict"] == verdict and got["seat"] == seat and got["decision"] == "meld 2c 3c 4c 2h 2s"
        assert set(got) <= set(libreplay.verify_json_keys())
    got = libreplay.verify(appended, keys=pub)
    assert got["replay"] == "illegal" and got["replay_trusted"] is True
    assert got["signature"]["trusted"] is False and got["signature"]["trusted_covered"] == len(data)
    # unsigned: the replay's finding names no seat
    got = libreplay.verify(os.path.join(SRCROOT, "samples", "disputed", "meld-two-wilds.brp"), keys=pub)
    assert got["verdict"] == "untrusted" and got["replay"] == "illegal" and got["replay_trusted"] is False
    assert (got["deal"], got["turn"], got["rule"]) == (2, 2, "meld.wilds")
    assert "seat" not in got and "decision" not in got and "seat" not in got["message"]
    # a log whose header declares it signed, its signature cut off: untrusted without keys
    subprocess.run([BRP, "simulate", "-q", "-n", "1", "--seed", "5", "-k", str(tmp_path / "p.key"),
                    "-o", str(tmp_path / "sim")], check=True)
    data = open(str(tmp_path / "sim" / "match-000001.brp"), "rb").read()
    stripped = str(tmp_path / "stripped.brp")
    with open(stripped, "wb") as f:
        f.write(data[:-112])
    got = libreplay.verify(stripped)
    want = brp_json_lines("verify", "--json", stripped)
    assert [got] == want and list(got) == list(want[0])
    assert got["verdict"] == "untrusted" and got["replay"] == "ok" and got["signature"]["header_signed"] is True
    assert libreplay.verify(str(tmp_path / "sim" / "match-000001.brp"))["verdict"] == "ok"


def test_unreadable(tmp_path):
    """A file that cannot be read raises IOFailure, or, with unreadable=True, is brp verify --json's line."""
    import pytest
    missing = str(tmp_path / "nosuch.brp")
    with pytest.raises(libreplay.IOFailure) as e:
        libreplay.verify(missing)
    assert e.value.code == -3 and missing in str(e.value)
    got = libreplay.verify(missing, unreadable=True)
    want = brp_json_lines("verify", "--json", missing)
    assert [got] == want and list(got) == list(want[0])
