"""The game's vocabulary: cards, decisions as text, rule profiles and melds (card.h, rules.h, meld.h, game.h)."""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

from ._base import _check, _raise, _str
from ._errors import InvalidArgument
from ._ffi import ffi as _ffi, lib as _lib


# ---- cards --------------------------------------------------------------------------------------

def card(text: str) -> int:
    """The card id (0..52) of one card's text ("8d", "10h", "Th", "JK", "8♦")."""
    b = text.encode("utf-8")
    out = _ffi.new("rpl_card *")
    if _lib.rpl_card_parse(b, len(b), out) < 0:
        raise InvalidArgument("not a card: %r" % text)
    return int(out[0])


def _cards(cards: Union[str, Iterable[Union[str, int]]]) -> List[int]:
    if isinstance(cards, str):
        cards = cards.split()
    return [c if isinstance(c, int) else card(c) for c in cards]


def _card_name(c: int) -> str:
    return _str(_lib.rpl_card_name(c))


# ---- decisions ----------------------------------------------------------------------------------

_KINDS = {1: "draw", 2: "take", 3: "reject", 4: "meld", 5: "add", 6: "discard", 7: "morto"}
_KIND_IDS = {v: k for k, v in _KINDS.items()}


def _action_text(a) -> str:
    buf = _ffi.new("char[160]")
    _lib.rpl_action_format(a, buf, 160)
    return _str(buf)


# ---- rules --------------------------------------------------------------------------------------

def profiles() -> List[str]:
    """The rule profiles the library knows ("kzv", "stbl", "aberto")."""
    p = _lib.rpl_rules_profiles()
    out, i = [], 0
    while p[i] != _ffi.NULL:
        out.append(_str(p[i]))
        i += 1
    return out


class _Rules:
    """An owned rpl_rules handle (internal)."""

    def __init__(self, profile: str, overrides: Optional[Dict[str, Any]] = None):
        pp = _ffi.new("rpl_rules **")
        _check(_lib.rpl_rules_new(pp, profile.encode()), "no rule profile %r (try %s)"
               % (profile, ", ".join(profiles())))
        self.ptr = _ffi.gc(pp[0], _lib.rpl_rules_free)
        for name, value in (overrides or {}).items():
            if isinstance(value, bool):
                value = "true" if value else "false"
            rc = _lib.rpl_rules_set(self.ptr, str(name).encode(), str(value).encode())
            if rc < 0:
                _raise(rc, _str(_lib.rpl_rules_errmsg(self.ptr)) or "%s=%s" % (name, value))


def _rules_arg(r) -> Optional[_Rules]:
    if r is None:
        return None
    if isinstance(r, _Rules):
        return r
    if isinstance(r, str):
        return _Rules(r)
    if isinstance(r, dict):  # {"profile": ..., "params"/overrides...}
        return _Rules(r.get("profile", "stbl"), r.get("overrides", r.get("set")))
    raise InvalidArgument("rules must be a profile name or a dict, not %r" % (r,))


def _rules_dict(r) -> Dict[str, Any]:
    count = _lib.rpl_rules_param_count()
    params: Dict[str, Any] = {}
    overrides: Dict[str, Any] = {}
    v = _ffi.new("int *")
    buf = _ffi.new("char[64]")
    for i in range(count):
        p = _lib.rpl_rules_param_info(i)
        name = _str(p.name)
        _lib.rpl_rules_get_id(r, p.id, v)
        _lib.rpl_rules_get(r, p.name, buf, 64)
        val: Any = bool(v[0]) if p.kind == 0 else int(v[0]) if p.kind == 1 else _str(buf)
        params[name] = val
        if _lib.rpl_rules_is_override(r, p.id) == 1:
            overrides[name] = val
    return {"profile": _str(_lib.rpl_rules_profile(r)), "params": params, "overrides": overrides}


def rules(profile: str = "stbl", **overrides: Any) -> Dict[str, Any]:
    """Every parameter of a rule profile, as ``brp rules --json`` prints it.

    Returns ``{"profile": "stbl", "params": {name: value}, "overrides": {...}}``
    with booleans, ints and enumerated values as strings; keyword arguments
    override parameters (``rules("aberto", target=1500)``). Raises
    :class:`NotFound` for an unknown profile or parameter,
    :class:`InvalidArgument` for a value out of range."""
    return _rules_dict(_Rules(profile, overrides).ptr)


# ---- melds --------------------------------------------------------------------------------------

_ENDS = {None: 0, "default": 0, "low": 1, "high": 2}


def meld(cards: Union[str, Sequence[Union[str, int]]], rules: str = "stbl", end: Optional[str] = None,
         **overrides: Any) -> Dict[str, Any]:
    """Whether cards laid together form one new meld, as ``brp meld --json`` says.

    cards: "8d JK 10d" or a list of card texts or ids. A valid meld gives
    ``{"valid": True, "clean", "length", "points", "bonus", "category",
    "arrangement": [{"pos", "card", "wild"[, "as"]}...]}``; an invalid one
    ``{"valid": False, "reason", "rule"}`` (no exception: a negative answer is
    an answer). end: "low" or "high" for a wild that could sit at either end."""
    r = _Rules(rules, overrides)
    ids = _cards(cards)
    if end not in _ENDS:
        raise InvalidArgument("end must be 'low' or 'high', not %r" % (end,))
    arr = _ffi.new("rpl_card[]", ids or [0])
    res = _ffi.new("rpl_meld_check_result *")
    _check(_lib.rpl_meld_check(r.ptr, arr, len(ids), _ENDS[end], res), "bad cards")
    if not res.valid:
        return {"valid": False, "reason": _str(res.reason), "rule": _str(_lib.rpl_rule_name(res.rule))}
    m = res.meld
    arrangement = []
    for i in range(m.length):
        a: Dict[str, Any] = {"pos": m.lo + i, "card": _card_name(m.card[i]), "wild": bool(m.wild[i])}
        if m.wild[i]:
            a["as"] = _card_name(_lib.rpl_meld_natural(m.suit, m.lo + i))
        arrangement.append(a)
    return {"valid": True, "clean": bool(m.clean), "length": m.length, "points": m.points, "bonus": m.bonus,
            "category": _str(_lib.rpl_canastra_name(m.category)), "arrangement": arrangement}
