"""Match.position(deal, decision) is brp show --json at the same step: the same object, key for key.

On every sample and on two simulated matches of each profile and table size, for every deal, at the
deal as dealt, after its first decision, in its middle and at its last position (a refused decision
included), the dict equals json.loads of `brp show --json --deal D --turn 0` (decision 0) or `--deal
D --turn T --decision K`; the last position also equals `brp show --json --deal D` (the deal's end).
Out-of-range steps raise the library's codes.
"""

import json
import os
from collections import defaultdict

import pytest

import libreplay
from conftest import brp


def _show(path, *args):
    rc, out = brp("show", "--json", *map(str, args), path)
    assert rc in (0, 1), (path, args, rc)
    lines = out.splitlines()
    assert len(lines) == 1, (path, args, out)
    return json.loads(lines[0])


def _turns(path):
    """The (turn, seat, notation) of each decision of each deal as the reader reads them (independent
    of positions), as far as the log reads."""
    turns = {}
    with libreplay.open(path) as m:
        try:
            for d in m.deals():
                turns[d.number] = [(x.turn, x.seat, str(x)) for x in d.decisions]
        except libreplay.Corrupt:
            pass
    return turns


def _check_log(path, seen):
    last_pos = _show(path)  # no selection: the last position of the log
    turns = _turns(path)
    with libreplay.open(path) as m:
        for deal in range(1, last_pos["deal"] + 1):
            end = _show(path, "--deal", deal)
            assert end["deal"] == deal
            last = end["deal_decision"]
            got = m.position(deal, last)
            assert got == end
            assert list(got) == list(end)  # every key, in brp's order
            for n in sorted({0, min(1, last), last // 2, last}):
                p = m.position(deal, n)
                assert p["deal"] == deal and p["deal_decision"] == n
                if n == 0:
                    assert p["kind"] == "dealt"
                    want = _show(path, "--deal", deal, "--turn", 0)
                else:
                    want = _show(path, "--deal", deal, "--turn", p["turn"], "--decision", p["decision"])
                    if deal in turns and n <= len(turns[deal]):  # the n-th decision the reader reads
                        assert (p["turn"], p["seat"], p["action"]) == turns[deal][n - 1]
                assert p == want, (path, deal, n)
                assert list(p) == list(want)
                seen["kinds"].add(p["kind"])
                seen["notes"].update(p["notes"])
            with pytest.raises(libreplay.NotFound) as e:
                m.position(deal, last + 1)
            assert e.value.code == -6 and e.value.name == "ENOTFOUND"
        with pytest.raises(libreplay.NotFound):
            m.position(last_pos["deal"] + 1, 0)
        with pytest.raises(libreplay.InvalidArgument) as e:
            m.position(0, 0)
        assert e.value.code == -1
        with pytest.raises(libreplay.InvalidArgument):
            m.position(1, -1)


def test_every_sample(samples):
    seen = {"kinds": set(), "notes": set()}
    checked = 0
    for path in samples:
        try:
            libreplay.open(path).close()
        except libreplay.Corrupt:
            # a log whose header does not read: brp show refuses it too
            rc, _ = brp("show", "--json", path)
            assert rc == 3
            continue
        _check_log(path, seen)
        checked += 1
    assert checked >= 15
    # the disputed samples reach every kind of position and the notes of brp show
    assert seen["kinds"] == {"dealt", "decision", "refused"}
    assert any(" is illegal: " in n for n in seen["notes"]), seen["notes"]
    assert any(n.startswith("the log is damaged: ") for n in seen["notes"]), seen["notes"]


def test_simulated_matches(corpus):
    by_dir = defaultdict(list)
    for p in corpus:
        by_dir[os.path.dirname(p)].append(p)
    assert len(by_dir) == 6  # kzv, stbl, aberto at 2 and 4 players
    seen = {"kinds": set(), "notes": set()}
    for d, paths in sorted(by_dir.items()):
        for path in paths[:2]:
            _check_log(path, seen)
    assert {"dealt", "decision"} <= seen["kinds"]


def test_closed_match_and_reading_alongside(samples):
    path = "samples/kzv-4p.brp"
    m = libreplay.open(path)
    deals = list(m.deals())  # reading the deals does not disturb the positions
    p = m.position(2, 3)
    assert p["deal"] == 2 and p["deal_decision"] == 3
    assert p["action"] == str(deals[1].decisions[2])
    m.close()
    with pytest.raises(libreplay.StateError):
        m.position(1, 0)
