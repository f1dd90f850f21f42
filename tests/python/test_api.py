"""The public API of the package, pinned: every name libreplay hands on, and what it is.

API was written from the package as it was before it was cut into modules
(all in __init__.py): each public name with its signature (parameters and
defaults, without annotations), each class with its bases and its public
members. A change of the API fails here and is then made on purpose: its
entry rewritten below, docs/python.md updated. Private names (a leading _)
may move between the package's modules freely.
"""

import ast
import dataclasses
import inspect
import os
import pickle
import types
import typing

import libreplay

API = {
    "Error": ["class(Exception)", "__init__(self, message, code=None)", "code = 0"],
    "InvalidArgument": ["class(Error, ValueError)", "code = -1"],
    "OutOfMemory": ["class(Error, MemoryError)", "code = -2"],
    "IOFailure": ["class(Error, OSError)", "code = -3"],
    "Corrupt": ["class(Error)", "code = -4"],
    "IllegalMove": [
        "class(Error)",
        "__init__(self, message, rule='unknown', code=None)",
        "__str__(self)",
        "code = -5",
    ],
    "NotFound": ["class(Error, LookupError)", "code = -6"],
    "Unsupported": ["class(Error)", "code = -7"],
    "StateError": ["class(Error)", "code = -8"],
    "ParseError": ["class(Error, ValueError)", "code = -9"],
    "LimitExceeded": ["class(Error)", "code = -10"],
    "version": "()",
    "rules": "(profile='stbl', **overrides)",
    "profiles": "()",
    "meld": "(cards, rules='stbl', end=None, **overrides)",
    "card": "(text)",
    "verify": "(path, rules=None, keys=None, base=None, unreadable=False)",
    "verify_json_keys": "()",
    "open": "(source)",
    "matches": "(paths)",
    "expand_paths": "(paths)",
    "Match": [
        "class(object)",
        "REVIEW_COLUMNS = ('deal', 'turn', 'decision', 'seat', 'played', 'best', 'greedy', 'value_played', "
        "'value_best', 'loss', 'se', 'samples', 'candidates', 'class', 'class_uncertain', 'win_loss', 'accuracy')",
        "__enter__(self)",
        "__exit__(self, *exc)",
        "__init__(self, source)",
        "__iter__(self)",
        "close(self)",
        "deals(self)",
        "position(self, deal, decision)",
        "review(self, strength=None, seed=1, seats=None)",
    ],
    "Deal": [
        "class(object)",
        "dataclass(frozen=False)",
        "__init__(self, number, hands, mortos, stock, decisions=<factory>, claims=<factory>)",
    ],
    "Decision": [
        "class(object)",
        "dataclass(frozen=True)",
        "__init__(self, seat, turn, kind, cards=(), side=None, meld=None, morto=None, end=None, text='')",
        "__str__(self)",
        "cards = ()",
        "end = None",
        "meld = None",
        "morto = None",
        "side = None",
        "text = ''",
    ],
    "Claim": ["class(object)", "dataclass(frozen=True)", "__init__(self, deal, score)"],
    "Recorder": [
        "class(object)",
        "__enter__(self)",
        "__exit__(self, exc_type, exc, tb)",
        "__init__(self, path, rules='stbl', players=4, names=None, first_dealer=0, start_time=None, "
        "metadata=None, checked=True, sync=False)",
        "abandon(self)",
        "claim(self, deal, score)",
        "close(self)",
        "deal(self, layout)",
        "flush(self)",
        "getvalue(self)",
        "play(self, decision)",
        "seat: property",
    ],
    "shuffle": "(players, seed)",
    "stats": "(paths, raw=False, base=None)",
    "export_sqlite": "(paths, db, actions=False, timeout_ms=-1, base=None)",
    "merge_sqlite": "(db, shards, timeout_ms=-1)",
    "frames": "(paths, actions=False, tables=('matches', 'match_players', 'match_meta', 'deals', "
              "'deal_scores', 'deal_seats', 'melds', 'actions'), views=('player_stats', 'seat_results'))",
    "TABLES": "('matches', 'match_players', 'match_meta', 'deals', 'deal_scores', 'deal_seats', 'melds', "
              "'actions')",
    "VIEWS": "('player_stats', 'seat_results')",
    "integrity": "(paths, *, pairs=False, player=None, seat=None, full=False, full_strength=None, samples=None, "
                 "permutations=None, level=0.01, seed=1)",
    "INTEGRITY_COLUMNS": "('player', 'partner', 'statistic', 'value', 'n', 'deals', 'matches', 'observed', "
                         "'expected', 'baseline', 'z', 'p', 'level', 'flagged', 'evidence')",
}

# Importable from libreplay but not in __all__ (not taken by "from libreplay import *"), as before.
OUTSIDE_ALL = {"PathLike"}


def _signature(f):
    """f's parameters with their kinds and defaults, without annotations."""
    sig = inspect.signature(f)
    params = [p.replace(annotation=inspect.Parameter.empty) for p in sig.parameters.values()]
    return str(sig.replace(parameters=params, return_annotation=inspect.Signature.empty))


def _describe(obj):
    """A function's signature, a class's bases and public members, a constant's value."""
    if not isinstance(obj, type):
        return _signature(obj) if callable(obj) else repr(obj)
    out = ["class(%s)" % ", ".join(b.__name__ for b in obj.__bases__)]
    if dataclasses.is_dataclass(obj):
        out.append("dataclass(frozen=%s)" % obj.__dataclass_params__.frozen)
    for name, member in sorted(vars(obj).items()):
        if name.startswith("_") and name not in ("__init__", "__iter__", "__enter__", "__exit__", "__str__"):
            continue
        if isinstance(member, property):
            out.append("%s: property" % name)
        elif callable(member):
            out.append("%s%s" % (name, _signature(member)))
        else:
            out.append("%s = %r" % (name, member))
    return out


def test_all_is_the_api():
    assert len(libreplay.__all__) == len(set(libreplay.__all__))
    assert set(libreplay.__all__) == set(API)


def test_public_attributes_are_all_and_nothing_else():
    # submodules (libreplay.dask, once imported) are not names the package hands on
    public = {n for n, v in vars(libreplay).items() if not n.startswith("_") and not isinstance(v, types.ModuleType)}
    assert public == set(API) | OUTSIDE_ALL


def test_each_name_is_what_it_was():
    got = {n: _describe(getattr(libreplay, n)) for n in libreplay.__all__}
    for n in API:
        assert got[n] == API[n], n


def test_public_objects_survive_a_pickle():
    # what a Dask worker sends back: a failure, and the objects a deal is made of
    e = pickle.loads(pickle.dumps(libreplay.IllegalMove("the pile is frozen", rule="pile.frozen")))
    assert type(e) is libreplay.IllegalMove and (e.code, e.name, e.rule) == (-5, "EILLEGAL", "pile.frozen")
    assert str(e) == "pile.frozen: the pile is frozen"
    e = pickle.loads(pickle.dumps(libreplay.IOFailure("x.brp: no such file")))
    assert isinstance(e, OSError) and e.code == -3
    d = libreplay.Decision(seat=1, turn=2, kind="meld", cards=("5h", "6h", "7h"), text="meld 5h 6h 7h")
    c = libreplay.Claim(1, (1220, 275))
    deal = libreplay.Deal(1, [["Ah"] * 11] * 4, [["2c"] * 11] * 2, ["3d"] * 42, [d], [c])
    assert pickle.loads(pickle.dumps((d, c, deal))) == (d, c, deal)
    for cls in (libreplay.Decision, libreplay.Deal, libreplay.Claim):
        assert typing.get_type_hints(cls)  # the annotations resolve


def test_a_module_imports_only_those_listed_before_it():
    # the order is the list in __init__.py's docstring; _config.py is written by meson install
    order = [line.split()[0] for line in libreplay.__doc__.splitlines()
             if line.startswith("    _") or line.startswith("    dask.py")]
    here = os.path.dirname(libreplay.__file__)
    assert sorted(order) == sorted(f for f in os.listdir(here)
                                   if f.endswith(".py") and f not in ("__init__.py", "_config.py"))
    for i, name in enumerate(order):
        with open(os.path.join(here, name), encoding="utf-8") as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom) or not (node.level == 1 or node.module.startswith("libreplay")):
                continue
            modules = [node.module.rsplit(".", 1)[-1]] if node.module else [a.name for a in node.names]
            for m in modules:
                assert m == "_config" or m + ".py" in order[:i], "%s imports %s, not listed before it" % (name, m)
