"""libreplay: record, replay and verify matches of Buraco, from Python.

A thin layer over the public C API of libreplay (through cffi): the same
verdicts, rules, melds and export as the ``brp`` tool, as Python values.

    >>> import libreplay
    >>> libreplay.verify("samples/stbl-4p.brp")["verdict"]
    'ok'
    >>> libreplay.meld("8d JK 10d", rules="kzv")["points"]
    40

Errors are exceptions derived from :class:`Error`; each carries the library's
stable error code (``.code``, e.g. -5, and ``.name``, e.g. ``"EILLEGAL"``).
docs/python.md describes every function.
"""

from __future__ import annotations

import builtins
import datetime as _dt
import json
import os
import sqlite3
import tempfile
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from ._ffi import ffi as _ffi, lib as _lib

__all__ = [
    "Error", "InvalidArgument", "OutOfMemory", "IOFailure", "Corrupt", "IllegalMove", "NotFound",
    "Unsupported", "StateError", "ParseError", "LimitExceeded",
    "version", "rules", "profiles", "meld", "card", "verify", "verify_json_keys", "open", "matches",
    "expand_paths", "Match", "Deal", "Decision", "Claim", "Recorder", "shuffle", "stats",
    "export_sqlite", "merge_sqlite", "frames", "TABLES",
]

PathLike = Union[str, "os.PathLike[str]"]

# ---- errors -------------------------------------------------------------------------------------

_CODE_NAMES = {
    -1: "EINVAL", -2: "ENOMEM", -3: "EIO", -4: "ECORRUPT", -5: "EILLEGAL", -6: "ENOTFOUND",
    -7: "EUNSUPPORTED", -8: "ESTATE", -9: "EPARSE", -10: "ELIMIT",
}


class Error(Exception):
    """A failure reported by libreplay.

    ``code`` is the library's stable error code (enum rpl_error: a negative
    int whose meaning never changes), ``name`` its name without the ``RPL_``
    prefix, ``message`` the one-line detail."""

    code = 0

    def __init__(self, message: str, code: Optional[int] = None):
        if code is not None:
            self.code = code
        self.name = _CODE_NAMES.get(self.code, "E%d" % -self.code)
        self.message = message
        super().__init__(message)


class InvalidArgument(Error, ValueError):
    """RPL_EINVAL (-1): an argument is out of range or malformed."""
    code = -1


class OutOfMemory(Error, MemoryError):
    """RPL_ENOMEM (-2)."""
    code = -2


class IOFailure(Error, OSError):
    """RPL_EIO (-3): reading or writing a file failed."""
    code = -3


class Corrupt(Error):
    """RPL_ECORRUPT (-4): input data is damaged or not of this format."""
    code = -4


class IllegalMove(Error):
    """RPL_EILLEGAL (-5): a decision breaks a rule.

    ``rule`` is the stable rule code ("pile.frozen", docs/rules.md) and
    ``message`` the engine's one-line explanation."""
    code = -5

    def __init__(self, message: str, rule: str = "unknown", code: Optional[int] = None):
        super().__init__(message, code)
        self.rule = rule

    def __str__(self) -> str:
        return "%s: %s" % (self.rule, self.message)


class NotFound(Error, LookupError):
    """RPL_ENOTFOUND (-6): no such profile, parameter, seat or meld."""
    code = -6


class Unsupported(Error):
    """RPL_EUNSUPPORTED (-7): a newer format, or a feature this build lacks."""
    code = -7


class StateError(Error):
    """RPL_ESTATE (-8): the call is not valid in the object's state."""
    code = -8


class ParseError(Error, ValueError):
    """RPL_EPARSE (-9): a text could not be parsed."""
    code = -9


class LimitExceeded(Error):
    """RPL_ELIMIT (-10): a size or count exceeds a documented limit."""
    code = -10


_ERRORS = {c.code: c for c in (InvalidArgument, OutOfMemory, IOFailure, Corrupt, IllegalMove, NotFound,
                               Unsupported, StateError, ParseError, LimitExceeded)}


def _str(p) -> str:
    return _ffi.string(p).decode("utf-8", "replace") if p != _ffi.NULL else ""


def _raise(code: int, detail: str = "", cls=None) -> None:
    msg = detail or _str(_lib.rpl_strerror(code))
    raise (cls or _ERRORS.get(code, Error))(msg, code=code)


def _check(code: int, detail=None) -> int:
    if code < 0:
        _raise(code, detail() if callable(detail) else (detail or ""))
    return code


def _path(p: PathLike) -> bytes:
    return os.fsencode(os.fspath(p))


def version() -> str:
    """The C library's version, "MAJOR.MINOR.PATCH"."""
    return _str(_lib.rpl_version())


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


# ---- verification -------------------------------------------------------------------------------

_VERDICTS = ("ok", "illegal", "mismatch", "incomplete", "malformed", "tampered", "untrusted")


def _action_text(a) -> str:
    buf = _ffi.new("char[160]")
    _lib.rpl_action_format(a, buf, 160)
    return _str(buf)


def _score_dict(s) -> Dict[str, Any]:
    return {"melded": s.melded, "bonus": s.bonus,
            "canastras": {"dirty": s.canastras[1], "clean": s.canastras[2], "clean13": s.canastras[3],
                          "clean14": s.canastras[4], "dirty14": s.canastras[5]},
            "going_out": s.going_out, "hand": s.hand, "morto": s.morto, "total": s.total}


def _fingerprint(pk) -> str:
    """A public key's fingerprint (rpl_pubkey_fingerprint): 32 lower-case hex digits."""
    buf = _ffi.new("char[33]")
    _lib.rpl_pubkey_fingerprint(_ffi.addressof(pk), buf)
    return _str(buf)


def _finding(d: Dict[str, Any], v, kind: int, blame: bool) -> None:
    """The keys of what the replay found (kind): the verdict's own, or those after "replay" in an
    untrusted one, where an illegal decision's seat and cards are given only in trusted bytes (blame)."""
    if kind == 1:  # illegal
        d.update(deal=v.deal, turn=v.turn)
        if blame:
            d.update(seat=v.seat, decision=_action_text(_ffi.addressof(v, "action")) if v.turn > 0 else "")
        d["rule"] = _str(_lib.rpl_rule_name(v.rule))
    elif kind == 2 and v.deal_commitment == 3:  # mismatch of the dealing (RPL_DEAL_MISMATCH)
        d.update(deal=v.deal_mismatch)  # 0: the seed itself
    elif kind == 2:  # mismatch of a claim
        d.update(deal=v.claim_deal, side=v.side, claimed=v.claimed, computed=v.computed)
        if v.claim_deal > 0:
            d["breakdown"] = _score_dict(v.breakdown)
    elif kind == 3:  # incomplete
        d.update(deal=v.deal, turn=v.turn)
    elif kind in (4, 5):  # malformed, tampered
        d["offset"] = int(v.offset)


def _verdict_dict(file: str, v) -> Dict[str, Any]:
    """struct rpl_verdict as the dict ``brp verify --json`` prints, key for key and in its order.

    The one place that maps the struct to the verdict: a field added to
    rpl_verdict and to tools/brp/cmd_verify.c's print_json is added here,
    and its key to verify_json_keys() (the order of the DataFrame columns
    of libreplay.dask.verify; test_verify.py fails on a key missing there)."""
    kind = v.kind
    d: Dict[str, Any] = {"file": file, "verdict": _str(_lib.rpl_verdict_name(kind))}
    if kind == 6:  # untrusted: what the replay found is a detail
        d["replay"] = _str(_lib.rpl_verdict_name(v.replay))
        _finding(d, v, v.replay, bool(v.replay_trusted))
        d["replay_trusted"] = bool(v.replay_trusted)
    else:
        _finding(d, v, kind, True)
    sr = v.signature
    signed = _str(_lib.rpl_signature_status_name(sr.status)) != "unsigned"
    key = None
    if signed:
        buf = _ffi.new("char[17]")
        _lib.rpl_key_id_format(sr.key.id, buf)
        key = _str(buf)
    d["signature"] = {"status": _str(_lib.rpl_signature_status_name(sr.status)), "key": key,
                      "fingerprint": _fingerprint(sr.key) if signed else None,
                      "trusted": bool(sr.trusted), "covered": int(sr.covered), "size": int(sr.size),
                      "trusted_key": _fingerprint(sr.trusted_key) if sr.trusted_covered > 0 else None,
                      "trusted_covered": int(sr.trusted_covered),
                      "id_clash": _fingerprint(sr.clash_key) if sr.id_clash else None,
                      "header_signed": bool(v.header_flags & 1)}  # RPL_LOG_SIGNED
    if kind != 4:
        d.update(deals=v.deals, decisions=v.actions, total=[v.total[0], v.total[1]], winner=v.winner,
                 recovered=bool(v.recovered))
    d["closed"] = bool(v.closed)
    d["match_id"] = _str(v.match_id) or None
    dealing = {"commitment": _str(_lib.rpl_deal_commitment_name(v.deal_commitment))}
    if v.deal_commitment != 0:
        dealing["digest"] = bytes(v.commitment).hex()
        dealing["protocol"] = v.commit_version
        dealing["player_seeds"] = v.player_seeds
        dealing["players"] = v.players
    d["dealing"] = dealing
    d["message"] = _str(v.message)
    return d


def verify_json_keys() -> Tuple[str, ...]:
    """Every key a verdict dict may have (the union over the kinds), in brp verify --json's order."""
    return ("file", "verdict", "replay", "deal", "turn", "seat", "decision", "rule", "side", "claimed",
            "computed", "breakdown", "offset", "replay_trusted", "signature", "deals", "decisions", "total",
            "winner", "recovered", "closed", "match_id", "dealing", "message")


def _keyring(keys: Union[PathLike, Iterable[PathLike]]) -> Any:
    """A C keyring holding every key of the files named by keys (freed with the object)."""
    if isinstance(keys, (str, bytes, os.PathLike)):
        keys = [keys]
    out = _ffi.new("rpl_keyring **")
    rc = _lib.rpl_keyring_new(out)
    if rc < 0:
        _raise(rc, _str(_lib.rpl_strerror(rc)))
    kr = _ffi.gc(out[0], _lib.rpl_keyring_free)
    for k in keys:
        rc = _lib.rpl_keyring_add_file(kr, _path(k))
        if rc < 0:
            _raise(rc, "%s: %s" % (os.fspath(k), _str(_lib.rpl_keyring_errmsg(kr)) or _str(_lib.rpl_strerror(rc))))
    return kr


def verify(path: PathLike, rules: Union[None, str, Dict[str, Any]] = None, keys: Any = None,
           base: Optional[str] = None, unreadable: bool = False) -> Dict[str, Any]:
    """Replay a log through the engine and judge it: the dict ``brp verify --json`` prints.

    rules: None to judge by the rules the log carries (brp verify's default),
    a profile name, or ``{"profile": "kzv", "overrides": {"target": 1500}}``
    to impose rules. A damaged log is a verdict ("malformed"), not an
    exception; a file that cannot be read raises :class:`IOFailure`.
    keys: trusted signing keys, as brp verify -K and --keyring take them: a
    path, or a list of paths, of minisign public key files or keyrings. With
    keys, a log is "untrusted" unless a trusted key signs all of it, whatever
    the replay found: that is then a detail ("replay", "replay_trusted"), and
    an illegal decision's seat is given only in bytes a trusted key signs.
    base: the directory a relative path is read from (default: the current
    one); "file" is the path as given.
    unreadable: True to get, for a file that cannot be read, the verdict
    ``brp verify --json`` prints for it (``"verdict": "unreadable"``, with
    ``closed``, ``match_id`` None and the ``message``) instead of an
    :class:`IOFailure`, as a batch over a corpus wants it."""
    r = _rules_arg(rules)
    v = _ffi.new("rpl_verdict *")
    full = os.path.join(base, path) if base is not None else path
    if keys is None:
        rc = _lib.rpl_verify_file(_path(full), r.ptr if r else _ffi.NULL, v)
    else:
        kr = _keyring(keys)
        rc = _lib.rpl_verify_file_trusted(_path(full), r.ptr if r else _ffi.NULL, kr, v, _ffi.NULL)
    if rc < 0:
        message = _str(v.message) or _str(_lib.rpl_strerror(rc))
        if unreadable and rc == IOFailure.code:
            return {"file": os.fspath(path), "verdict": "unreadable", "closed": False, "match_id": None,
                    "message": message}
        _raise(rc, "%s: %s" % (os.fspath(path), message))
    return _verdict_dict(os.fspath(path), v)


def expand_paths(paths: Union[PathLike, Iterable[PathLike]]) -> Iterator[str]:
    """The logs brp finds in paths, in brp's order: a file as given, a directory
    walked for ``*.brp`` (entries sorted by name, bytewise, recursively).
    A generator: a corpus is never listed whole in memory."""
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    for p in paths:
        p = os.fspath(p)
        if os.path.isdir(p):
            yield from _walk(p.rstrip("/") or "/")
        else:
            yield p


def _walk(d: str) -> Iterator[str]:
    names = sorted(os.listdir(d), key=os.fsencode)
    for n in names:
        full = d + "/" + n
        if os.path.isdir(full):
            yield from _walk(full)
        elif n.endswith(".brp") and len(n) > 4 and os.path.isfile(full):
            yield full


# ---- reading ------------------------------------------------------------------------------------

_KINDS = {1: "draw", 2: "take", 3: "reject", 4: "meld", 5: "add", 6: "discard", 7: "morto"}
_KIND_IDS = {v: k for k, v in _KINDS.items()}


@dataclass(frozen=True)
class Decision:
    """One decision of a deal: who (seat), when (turn, 1-based in the deal),
    what (kind: draw take reject meld add discard morto; cards as texts), and
    for ``add`` the meld's side and index, for ``morto`` which one; ``end``
    is "low"/"high" when a wild was placed at an end explicitly. ``str()`` is
    the notation ("meld 5h 6h 7h")."""
    seat: int
    turn: int
    kind: str
    cards: Tuple[str, ...] = ()
    side: Optional[int] = None
    meld: Optional[int] = None
    morto: Optional[int] = None
    end: Optional[str] = None
    text: str = ""

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Claim:
    """Scores a platform claimed: for a deal (1-based), or the match (deal 0)."""
    deal: int
    score: Tuple[int, int]


@dataclass
class Deal:
    """One deal: its number, the layout as dealt (hands by seat, the two mortos,
    the stock, top card first; card texts) and its decisions in order."""
    number: int
    hands: List[List[str]]
    mortos: List[List[str]]
    stock: List[str]
    decisions: List[Decision] = field(default_factory=list)
    claims: List[Claim] = field(default_factory=list)


def _decision(ev) -> Decision:
    a = ev.action
    kind = _KINDS.get(a.kind, str(a.kind))
    cards = tuple(_card_name(a.cards[i]) for i in range(a.ncards))
    return Decision(seat=ev.seat, turn=ev.turn, kind=kind, cards=cards,
                    side=a.side if a.kind == 5 else None, meld=a.meld if a.kind == 5 else None,
                    morto=a.morto if a.kind == 7 else None,
                    end={1: "low", 2: "high"}.get(a.end) if a.kind in (4, 5) else None,
                    text=_action_text(_ffi.addressof(ev, "action")))


class Match:
    """A match log opened for reading: the header at once, the deals streamed.

    ``players`` (2 or 4), ``names`` (by seat, None when unnamed),
    ``rules`` (as :func:`rules` returns), ``first_dealer``, ``start_time``
    (an aware UTC datetime, or None when unknown), ``metadata`` (dict),
    ``format_version``. Iterating over ``deals()`` reads the log one deal at
    a time; ``claims`` holds the claimed scores read so far (all of them
    after the deals were read); ``recovered`` whether brp recover wrote it.
    ``source`` is a path, or the log's bytes (a bytearray or memoryview, or
    bytes that start with the log's magic byte 0x89 or hold a NUL, which no
    path does; other bytes are a path, as os.fspath takes them): a log kept in
    a database, read from a socket, or a memory :class:`Recorder`'s
    :meth:`Recorder.getvalue`, copied at once. ``path`` is then ``"-"``, as
    brp names a log that did not come from a file.
    Use it as a context manager, or call close()."""

    def __init__(self, source: Union[PathLike, bytes, bytearray, memoryview]):
        pp = _ffi.new("rpl_reader **")
        self._data: Optional[bytes] = None  # the log's bytes, when it did not come from a file
        if isinstance(source, (bytearray, memoryview)) or (
                isinstance(source, bytes) and (source[:1] == b"\x89" or b"\0" in source)):
            self.path = "-"
            self._data = data = bytes(source)
            rc = _lib.rpl_reader_open_memory(pp, data, len(data))
        else:
            self.path = os.fspath(source)
            rc = _lib.rpl_reader_open(pp, _path(source))
        if rc < 0:
            detail = _str(_lib.rpl_reader_errmsg(pp[0])) if pp[0] != _ffi.NULL else ""
            if pp[0] != _ffi.NULL:
                off = int(_lib.rpl_reader_offset(pp[0]))
                _lib.rpl_reader_free(pp[0])
                if rc == -4:
                    detail = "byte %d: %s" % (off, detail)
            _raise(rc, "%s: %s" % (self.path, detail or _str(_lib.rpl_strerror(rc))))
        self._rd = pp[0]
        info = _lib.rpl_reader_info(self._rd)
        self.players: int = info.nplayers
        self.names: List[Optional[str]] = [
            (_str(info.players[i]) or None) for i in range(info.nplayers)]
        self.rules: Dict[str, Any] = _rules_dict(info.rules)
        self.first_dealer: int = info.first_dealer
        self.start_time: Optional[_dt.datetime] = (
            _dt.datetime.fromtimestamp(info.start_time, _dt.timezone.utc) if info.start_time else None)
        self.metadata: Dict[str, str] = {
            _str(info.meta_keys[i]): _str(info.meta_values[i]) for i in range(info.nmeta)}
        self.format_version: int = _lib.rpl_reader_format_version(self._rd)
        self.claims: List[Claim] = []
        self.recovered = False
        self._pending: Optional[Deal] = None
        self._started = False

    def close(self) -> None:
        """Release the reader (also done when the object is collected)."""
        if self._rd is not None:
            _lib.rpl_reader_free(self._rd)
            self._rd = None

    def __enter__(self) -> "Match":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        return "<libreplay.Match %s: %s, %d players>" % (self.path, self.rules["profile"], self.players)

    def deals(self) -> Iterator[Deal]:
        """The deals in order, each with its decisions and deal claims; read
        once, as the file is read (a second call raises StateError). A
        damaged log raises :class:`Corrupt` where the damage is."""
        if self._started:
            raise StateError("the deals of a Match are read once")
        self._started = True
        ev = _ffi.new("rpl_event *")
        cur: Optional[Deal] = None
        while True:
            if self._rd is None:
                raise StateError("the match was closed")
            rc = _lib.rpl_reader_next(self._rd, ev)
            if rc == 0:
                break
            if rc < 0:
                off = int(_lib.rpl_reader_offset(self._rd))
                _raise(rc, "%s: byte %d: %s" % (self.path, off, _str(_lib.rpl_reader_errmsg(self._rd))))
            if ev.kind == 1:
                if cur is not None:
                    yield cur
                lay = ev.layout
                n = self.players
                cur = Deal(number=ev.deal,
                           hands=[[_card_name(lay.hand[s][i]) for i in range(11)] for s in range(n)],
                           mortos=[[_card_name(lay.morto[m][i]) for i in range(11)] for m in range(2)],
                           stock=[_card_name(lay.stock[i]) for i in range(108 - 11 * n - 22)])
            elif ev.kind == 2 and cur is not None:
                cur.decisions.append(_decision(ev))
            elif ev.kind == 3:
                c = Claim(ev.deal, (ev.score[0], ev.score[1]))
                self.claims.append(c)
                if ev.deal > 0 and cur is not None and cur.number == ev.deal:
                    cur.claims.append(c)
            elif ev.kind == 4:
                self.recovered = bool(ev.recovered)
        if cur is not None:
            yield cur

    def __iter__(self) -> Iterator[Deal]:
        return self.deals()

    def position(self, deal: int, decision: int) -> Dict[str, Any]:
        """The table after decision ``decision`` of deal ``deal`` (1-based), as
        ``brp show --json`` prints it: a dict parsed from the C library's own
        writer (``rpl_position_json``, the one brp uses), with every field of
        docs/view.md. ``decision`` counts the deal's decisions over its turns
        (the position's ``deal_decision``): 0 is the deal as dealt, 1 the table
        after its first decision, and so on; an illegal log's refused decision
        is a position too (``kind`` "refused", with its rule and message).
        The log is replayed by the engine (``rpl_positions_file``) up to that
        position; the same selection in brp is ``brp show --json --deal D
        --turn 0`` (decision 0) or ``--deal D --turn T --decision K`` (T and K:
        the position's ``turn`` and ``decision``), and ``notes`` holds what
        brp show then says (the refused decision, a damaged log or a deal that
        cannot start after the last position).

        Raises :class:`InvalidArgument` for a deal below 1 or a negative
        decision, :class:`NotFound` (RPL_ENOTFOUND) when the log holds no such
        position (a deal it does not reach, a decision past the deal's last
        one or past where the replay stops), :class:`StateError` after close(),
        :class:`IOFailure` when the file cannot be read."""
        if self._rd is None:
            raise StateError("the match was closed")
        if not isinstance(deal, int) or not isinstance(decision, int) or deal < 1 or decision < 0:
            raise InvalidArgument("a position is a deal from 1 and a decision from 0, not %r, %r"
                                  % (deal, decision))
        want = _ffi.new("rpl_position *")
        seen = {"found": False, "after": False, "deals": 0, "last": -1}

        def on_position(ctx, p):
            seen["deals"] = max(seen["deals"], p.deal)
            if seen["found"] or p.deal > deal:
                seen["after"] = seen["found"]
                return 1  # the position asked for is known, or cannot come: stop the replay
            if p.deal == deal:
                seen["last"] = p.deal_decision
                if p.deal_decision == decision:
                    _ffi.memmove(want, p, _ffi.sizeof("rpl_position"))
                    seen["found"] = True
            return 0

        fn = _ffi.callback("int(void *, const rpl_position *)", on_position, error=-1)
        v = _ffi.new("rpl_verdict *")
        if self._data is None:
            rc = _lib.rpl_positions_file(_path(self.path), _ffi.NULL, fn, _ffi.NULL, v)
        else:
            # a log from bytes: replayed from a reader of its own over them (rpl_positions_reader)
            pr = _ffi.new("rpl_reader **")
            _lib.rpl_reader_open_memory(pr, self._data, len(self._data))
            try:
                rc = _lib.rpl_positions_reader(pr[0], _ffi.NULL, fn, _ffi.NULL, v)
            finally:
                _lib.rpl_reader_free(pr[0])
        if rc < 0:
            _raise(rc, "%s: %s" % (self.path, _str(v.message) or _str(_lib.rpl_strerror(rc))))
        if not seen["found"]:
            if seen["deals"] < deal:
                detail = "the log has no deal %d (its positions stop in deal %d)" % (deal, seen["deals"])
            else:
                detail = "deal %d has no decision %d (its positions stop after decision %d)" % (
                    deal, decision, seen["last"])
            raise NotFound("%s: %s" % (self.path, detail))
        # brp show's notes for this selection (cmd_show.c): the refused decision; otherwise,
        # when nothing follows the position, why the replay stopped there
        notes = []
        if want.kind == 3:  # RPL_POS_REFUSED
            notes.append(b"deal %d, turn %d, seat %d: %s is illegal: %s: %s" % (
                want.deal, want.turn, want.seat, _action_text(_ffi.addressof(want, "action")).encode(),
                _ffi.string(_lib.rpl_rule_name(want.rule)), _ffi.string(want.message)))
        elif not seen["after"] and v.kind == 1 and v.turn == 0:  # illegal: a deal that cannot start
            notes.append(b"deal %d cannot start: %s" % (v.deal, _ffi.string(v.message)))
        elif not seen["after"] and v.kind == 4:  # malformed
            notes.append(b"the log is damaged: %s" % _ffi.string(v.message))
        keep = [_ffi.new("char[]", n) for n in notes]
        arr = _ffi.new("const char *[]", keep) if keep else _ffi.NULL
        info = _lib.rpl_reader_info(self._rd)
        n = _lib.rpl_position_json(want, info, arr, len(keep), _ffi.NULL, 0)
        buf = _ffi.new("char[]", n + 1)
        _lib.rpl_position_json(want, info, arr, len(keep), buf, n + 1)
        return json.loads(_ffi.string(buf, n).decode("utf-8", "replace"))


def open(source: Union[PathLike, bytes, bytearray, memoryview]) -> Match:  # noqa: A001 - the issue's name
    """Open a match log for reading, from a path or from its bytes: see :class:`Match`."""
    return Match(source)


def matches(paths: Union[PathLike, Iterable[PathLike]]) -> Iterator[Match]:
    """Each log found in paths (see :func:`expand_paths`) opened in turn; the
    previous one is closed when the next is opened, so iterating over a
    corpus holds one match at a time."""
    for p in expand_paths(paths):
        m = Match(p)
        try:
            yield m
        finally:
            m.close()


# ---- recording ----------------------------------------------------------------------------------

def shuffle(players: int, seed: int) -> Dict[str, List[List[str]]]:
    """A shuffled deal for players (2 or 4), the same for the same seed on every
    machine (the simulator's): ``{"hands", "mortos", "stock"}`` as card texts,
    ready for :meth:`Recorder.deal`."""
    if players not in (2, 4):
        raise InvalidArgument("players must be 2 or 4")
    rng = _ffi.new("rpl_rng *")
    _lib.rpl_rng_seed(rng, seed & 0xFFFFFFFFFFFFFFFF)
    lay = _ffi.new("rpl_layout *")
    _lib.rpl_layout_shuffle(lay, players, rng)
    return {"hands": [[_card_name(lay.hand[s][i]) for i in range(11)] for s in range(players)],
            "mortos": [[_card_name(lay.morto[m][i]) for i in range(11)] for m in range(2)],
            "stock": [_card_name(lay.stock[i]) for i in range(108 - 11 * players - 22)]}


def _parse_action(text: str):
    """A decision's notation ("meld 5h 6h 7h >", "add 1.0 8h", "morto 0") as an rpl_action."""
    words = text.replace(",", " ").split()
    if not words or words[0] not in _KIND_IDS:
        raise ParseError("unknown decision %r" % text)
    a = _ffi.new("rpl_action *")
    kind = _KIND_IDS[words[0]]
    a.kind = kind
    rest = words[1:]
    if kind == 5:
        try:
            side, idx = rest[0].split(".")
            a.side, a.meld = int(side), int(idx)
        except (IndexError, ValueError):
            raise ParseError("add needs S.I (side.meld): %r" % text) from None
        rest = rest[1:]
    if kind == 7:
        if len(rest) != 1 or rest[0] not in ("0", "1"):
            raise ParseError("morto needs 0 or 1: %r" % text)
        a.morto = int(rest[0])
        return a
    if kind in (4, 5) and rest and rest[-1] in ("<", ">"):
        a.end = 1 if rest[-1] == "<" else 2
        rest = rest[:-1]
    cards = _cards(rest)
    if kind in (1, 2, 3) and cards:
        raise ParseError("%s takes no card: %r" % (words[0], text))
    if kind == 6 and len(cards) != 1:
        raise ParseError("discard takes one card: %r" % text)
    if kind in (4, 5) and not 1 <= len(cards) <= 14:
        raise ParseError("%s takes 1 to 14 cards: %r" % (words[0], text))
    a.ncards = len(cards)
    for i, c in enumerate(cards):
        a.cards[i] = c
    return a


class Recorder:
    """Record a match as it is played, every decision checked by the engine.

        with libreplay.Recorder("m.brp", rules="stbl", players=4,
                                names=["ana", "bia", "caio", "duda"]) as rec:
            rec.deal(libreplay.shuffle(4, seed=7))
            rec.play("draw")
            rec.play("discard Kc")

    A refused decision raises :class:`IllegalMove` (``.rule``, ``.message``)
    and is not recorded; the recorder stays usable. Each :meth:`play` is
    flushed to the file at the end of the turn (a ``discard``) so a crashed
    server loses at most the turn in progress (brp recover salvages the
    rest). Leaving the ``with`` block closes the log (its compact form); an
    exception inside it leaves the growing form, as a crash would.
    rules: a profile name or ``{"profile": ..., "overrides": {...}}``;
    start_time: a datetime (aware, or naive meaning UTC) or Unix seconds;
    metadata: a dict of strings.

    path None records into memory (rpl_recorder_open_memory): the same bytes
    a file would hold, returned by :meth:`getvalue` (the growing form as last
    flushed while recording or after :meth:`abandon`, the compact form after
    :meth:`close`), for a server that stores logs in a database."""

    def __init__(self, path: Optional[PathLike], rules: Union[str, Dict[str, Any]] = "stbl", players: int = 4,
                 names: Optional[Sequence[Optional[str]]] = None, first_dealer: int = 0,
                 start_time: Union[None, int, _dt.datetime] = None, metadata: Optional[Dict[str, str]] = None,
                 checked: bool = True, sync: bool = False):
        self.path = os.fspath(path) if path is not None else None
        self._data: Optional[bytes] = None
        r = _rules_arg(rules)
        names = list(names or [])
        if len(names) > players:
            raise InvalidArgument("%d names for %d players" % (len(names), players))
        keep = []
        info = _ffi.new("rpl_match_info *")
        info.rules = r.ptr
        info.nplayers = players
        for i, n in enumerate(names):
            if n:
                keep.append(_ffi.new("char[]", n.encode("utf-8")))
                info.players[i] = keep[-1]
        info.first_dealer = first_dealer
        if isinstance(start_time, _dt.datetime):
            if start_time.tzinfo is None:
                start_time = start_time.replace(tzinfo=_dt.timezone.utc)
            start_time = int(start_time.timestamp())
        info.start_time = int(start_time or 0)
        meta = list((metadata or {}).items())
        keys = [_ffi.new("char[]", str(k).encode()) for k, _ in meta]
        vals = [_ffi.new("char[]", str(v).encode()) for _, v in meta]
        ka = _ffi.new("const char *[]", keys or [_ffi.NULL])
        va = _ffi.new("const char *[]", vals or [_ffi.NULL])
        info.nmeta = len(meta)
        info.meta_keys = ka
        info.meta_values = va
        flags = (0 if checked else 1) | (2 if sync else 0)
        pp = _ffi.new("rpl_recorder **")
        if path is None:
            rc = _lib.rpl_recorder_open_memory(pp, info, flags, _ffi.NULL)
        else:
            rc = _lib.rpl_recorder_open(pp, _path(path), info, flags)
        if rc < 0:
            detail = _str(_lib.rpl_recorder_errmsg(pp[0])) if pp[0] != _ffi.NULL else ""
            _lib.rpl_recorder_free(pp[0])
            detail = detail or _str(_lib.rpl_strerror(rc))
            _raise(rc, "%s: %s" % (self.path, detail) if self.path is not None else detail)
        self._rec = pp[0]
        self._rules = r
        self.players = players

    def _fail(self, rc: int) -> None:
        msg = _str(_lib.rpl_recorder_errmsg(self._rec))
        if rc == -5:
            raise IllegalMove(msg, rule=_str(_lib.rpl_rule_name(_lib.rpl_recorder_rule(self._rec))))
        _raise(rc, msg)

    def _live(self):
        if self._rec is None:
            raise StateError("the recorder is closed")
        return self._rec

    @property
    def seat(self) -> int:
        """The seat whose decision comes next (-1 before the first deal)."""
        return _lib.rpl_recorder_seat(self._live())

    def deal(self, layout: Dict[str, Sequence[Sequence[str]]]) -> None:
        """Start the next deal from its layout: ``{"hands": [[11 cards] by seat],
        "mortos": [[11], [11]], "stock": [42 or 64 cards, top first]}`` (as
        :func:`shuffle` gives). Raises IllegalMove (deal.layout,
        deal.not_over, turn.match_over)."""
        lay = _ffi.new("rpl_layout *")
        hands, mortos, stock = layout["hands"], layout["mortos"], layout["stock"]
        if len(hands) != self.players or any(len(h) != 11 for h in hands) or len(mortos) != 2 \
                or any(len(m) != 11 for m in mortos) or len(stock) != 108 - 11 * self.players - 22:
            raise InvalidArgument("a layout has %d hands of 11, 2 mortos of 11 and %d stock cards"
                                  % (self.players, 108 - 11 * self.players - 22))
        for s, h in enumerate(hands):
            for i, c in enumerate(_cards(h)):
                lay.hand[s][i] = c
        for m, mo in enumerate(mortos):
            for i, c in enumerate(_cards(mo)):
                lay.morto[m][i] = c
        for i, c in enumerate(_cards(stock)):
            lay.stock[i] = c
        rc = _lib.rpl_recorder_deal(self._live(), lay)
        if rc < 0:
            self._fail(rc)

    def play(self, decision: str) -> None:
        """Record one decision of the seat to move, in notation ("draw", "take",
        "meld 5h 6h 7h", "add 0.1 8h <", "discard Kc", "morto 0"). A refused
        one raises :class:`IllegalMove` and records nothing. A discard (the
        end of a turn) flushes the log to the file."""
        a = _parse_action(decision)
        rec = self._live()
        rc = _lib.rpl_recorder_action(rec, a)
        if rc < 0:
            self._fail(rc)
        if a.kind == 6:
            self.flush()

    def claim(self, deal: int, score: Tuple[int, int]) -> None:
        """The scores the platform claims for a deal (1-based), or for the match (0)."""
        s = _ffi.new("int32_t[2]", list(score))
        rc = _lib.rpl_recorder_claim(self._live(), deal, s)
        if rc < 0:
            self._fail(rc)

    def flush(self) -> None:
        """Write what was decided since the last flush to the file."""
        rc = _lib.rpl_recorder_flush(self._live())
        if rc < 0:
            self._fail(rc)

    def _lent(self) -> Optional[bytes]:
        """A copy of what rpl_recorder_log lends (None when it lends nothing)."""
        data = _ffi.new("const uint8_t **")
        n = _ffi.new("size_t *")
        if _lib.rpl_recorder_log(data, n, self._rec) < 0:
            return None
        return bytes(_ffi.buffer(data[0], n[0]))

    def getvalue(self) -> bytes:
        """A memory recorder's log (path None): as last flushed while the match
        is recorded (a valid, unclosed log), the compact form once closed."""
        if self.path is not None:
            raise StateError("a recorder into a file: its log is the file %s" % self.path)
        if self._rec is not None:
            return self._lent() or b""
        return self._data or b""

    def close(self) -> None:
        """Finish the log: rewritten in its compact form, closed."""
        if self._rec is None:
            return
        rc = _lib.rpl_recorder_close(self._rec)
        try:
            if rc < 0:
                self._fail(rc)
        finally:
            if self.path is None:
                self._data = self._lent()
            _lib.rpl_recorder_free(self._rec)
            self._rec = None

    def abandon(self) -> None:
        """Release the recorder without closing: the file keeps its growing form
        (a memory recorder's :meth:`getvalue` too)."""
        if self._rec is not None:
            if self.path is None:
                self._data = self._lent()
            _lib.rpl_recorder_free(self._rec)
            self._rec = None

    def __enter__(self) -> "Recorder":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abandon()

    def __del__(self) -> None:
        try:
            self.abandon()
        except Exception:
            pass


# ---- statistics ---------------------------------------------------------------------------------

_STAT_KEYS = ("matches", "deals", "turns", "actions", "bytes", "pile_taken", "pile_frozen", "rejects",
              "morto_direct", "morto_indirect", "morto_to_stock", "ended_out", "ended_stock",
              "vulnerable_open")


def _stats_zero() -> Dict[str, Any]:
    z: Dict[str, Any] = {k: 0 for k in _STAT_KEYS}
    z["canastras"] = {_str(_lib.rpl_canastra_name(k)): 0 for k in range(1, 6)}
    z["verdicts"] = {k: 0 for k in _VERDICTS}  # the kinds brp stats --json prints (ok..untrusted)
    return z


def _stats_add(to: Dict[str, Any], c: Dict[str, Any]) -> Dict[str, Any]:
    for k in _STAT_KEYS:
        to[k] += c[k]
    for k in to["canastras"]:
        to["canastras"][k] += c["canastras"][k]
    for k in to["verdicts"]:
        to["verdicts"][k] += c["verdicts"][k]
    return to


def _stats_finish(c: Dict[str, Any]) -> Dict[str, Any]:
    """The dict in brp stats --json's order, bytes_per_decision included."""
    out = {k: c[k] for k in ("matches", "deals", "turns")}
    out["decisions"] = c["actions"]
    out["bytes"] = c["bytes"]
    out["bytes_per_decision"] = round(c["bytes"] / c["actions"], 4) if c["actions"] else 0.0
    for k in _STAT_KEYS[5:]:
        out[k] = c[k]
    out["canastras"] = dict(c["canastras"])
    out["verdicts"] = dict(c["verdicts"])
    return out


def _stats_one(path: str, base: Optional[str] = None) -> Dict[str, Any]:
    """One log's raw counts, verified and counted in one pass (the C observer)."""
    one = _stats_zero()
    st = _ffi.new("rpl_deal_stats *")
    sc = _ffi.new("rpl_score *")

    @_ffi.callback("int(void *, const rpl_event *, const rpl_game *)")
    def after(ctx, ev, g):
        if ev.kind != 2:
            return 0
        one["actions"] += 1
        if _lib.rpl_game_phase(g) >= 4:
            _lib.rpl_game_deal_stats(g, st)
            one["deals"] += 1
            for k in ("turns", "pile_taken", "pile_frozen", "rejects", "morto_direct", "morto_indirect",
                      "morto_to_stock", "vulnerable_open"):
                one[k] += getattr(st, k)
            if st.end == 1:
                one["ended_out"] += 1
            elif st.end == 2:
                one["ended_stock"] += 1
            for s in (0, 1):
                _lib.rpl_game_deal_score(g, s, sc)
                for k, name in enumerate(("dirty", "clean", "clean13", "clean14", "dirty14"), 1):
                    one["canastras"][name] += sc.canastras[k]
        return 0

    obs = _ffi.new("rpl_verify_observer *")
    obs.after = after
    v = _ffi.new("rpl_verdict *")
    full = os.path.join(base, path) if base is not None else path
    rc = _lib.rpl_verify_file_observe(_path(full), _ffi.NULL, v, obs)
    if rc < 0:
        _raise(rc, "%s: %s" % (path, _str(v.message) or _str(_lib.rpl_strerror(rc))))
    c = _stats_zero()
    if _VERDICTS[v.kind] in c["verdicts"]:
        c["verdicts"][_VERDICTS[v.kind]] = 1
    if v.kind != 0:
        return c
    one["matches"] = 1
    one["bytes"] = int(v.bytes)
    one["verdicts"] = c["verdicts"]
    return one


def stats(paths: Union[PathLike, Iterable[PathLike]], raw: bool = False,
          base: Optional[str] = None) -> Dict[str, Any]:
    """What ``brp stats --json`` prints for the logs in paths: matches, deals,
    turns, decisions, bytes and every kind of event, counted over the logs
    that verify ok, and the count of each verdict. raw=True gives the raw
    counts instead (decisions as "actions", no bytes_per_decision), so that
    partial counts can be added up. base: the
    directory relative paths are read from (default: the current one)."""
    total = _stats_zero()
    for p in (paths if base is not None else expand_paths(paths)):
        _stats_add(total, _stats_one(p, base))
    return total if raw else _stats_finish(total)


# ---- export and pandas --------------------------------------------------------------------------

TABLES = ("matches", "match_players", "match_meta", "deals", "deal_scores", "deal_seats", "melds", "actions")


def export_sqlite(paths: Union[PathLike, Iterable[PathLike]], db: PathLike, actions: bool = False,
                  timeout_ms: int = -1, base: Optional[str] = None) -> Dict[str, int]:
    """Export the logs in paths into the SQLite database db, as ``brp export
    --sqlite`` does (one transaction; one row a copy of a match, and a copy
    already there adds nothing: docs/schema.md, "Copies"). actions=True also
    stores every decision. Returns
    ``{"logs", "added", "ok"}``: the logs read, those new to db, those ok.
    base: the directory relative paths are read from (default: the current
    one); the file names stored are the paths as given, as brp stores them."""
    pp = _ffi.new("rpl_export_db **")
    rc = _lib.rpl_export_db_open(pp, _path(db), timeout_ms)
    h = pp[0]
    try:
        if rc < 0:
            _raise(rc, "%s: %s" % (os.fspath(db), _str(_lib.rpl_export_db_errmsg(h)) if h != _ffi.NULL else ""))
        _check(_lib.rpl_export_db_begin(h), lambda: _str(_lib.rpl_export_db_errmsg(h)))
        added = _ffi.new("int *")
        counts = {"logs": 0, "added": 0, "ok": 0}
        mp = _ffi.new("rpl_export_match **")
        for p in (paths if base is not None else expand_paths(paths)):
            rc = _load(mp, p, base, 1 if actions else 0)
            try:
                if rc < 0:
                    _raise(rc, "%s: %s" % (p, _str(_lib.rpl_export_match_errmsg(mp[0]))
                                           if mp[0] != _ffi.NULL else ""))
                rc = _lib.rpl_export_db_add(h, mp[0], added)
                if rc < 0:
                    _raise(rc, "%s: %s" % (p, _str(_lib.rpl_export_db_errmsg(h))))
                counts["logs"] += 1
                counts["added"] += added[0]
                if _lib.rpl_export_match_verdict(mp[0]).kind == 0:
                    counts["ok"] += 1
            finally:
                _lib.rpl_export_match_free(mp[0])
                mp[0] = _ffi.NULL
        _check(_lib.rpl_export_db_commit(h), lambda: _str(_lib.rpl_export_db_errmsg(h)))
        return counts
    finally:
        _lib.rpl_export_db_free(h)


def _load(mp, path: str, base: Optional[str], flags: int) -> int:
    """rpl_export_match_load, reading path under base (when relative) but naming the match path."""
    if base is None or os.path.isabs(path):
        return _lib.rpl_export_match_load(mp, _path(path), flags)
    try:
        with builtins.open(os.path.join(base, path), "rb") as f:
            data = f.read()
    except OSError as e:
        _raise(-3, "%s: %s" % (path, e.strerror))
    return _lib.rpl_export_match_load_memory(mp, _path(path), data, len(data), flags)


def merge_sqlite(db: PathLike, shards: Iterable[PathLike], timeout_ms: int = -1) -> int:
    """Merge export databases (shards) into db, as ``brp merge`` does
    (rpl_export_db_merge: the copies of matches db lacks, with all their
    rows). Returns the number of rows (copies) added."""
    pp = _ffi.new("rpl_export_db **")
    rc = _lib.rpl_export_db_open(pp, _path(db), timeout_ms)
    h = pp[0]
    total = 0
    try:
        if rc < 0:
            _raise(rc, "%s: %s" % (os.fspath(db), _str(_lib.rpl_export_db_errmsg(h)) if h != _ffi.NULL else ""))
        added = _ffi.new("int *")
        for s in shards:
            rc = _lib.rpl_export_db_merge(h, _path(s), added)
            if rc < 0:
                _raise(rc, "%s: %s" % (os.fspath(s), _str(_lib.rpl_export_db_errmsg(h))))
            total += added[0]
        return total
    finally:
        _lib.rpl_export_db_free(h)


def _frames_from_db(db: PathLike, tables: Sequence[str] = TABLES):
    """Each table of an export database as a DataFrame, in primary key order, with dtypes from the declared column types (INTEGER: Int64,
    REAL: float64, TEXT: string; nullable)."""
    import pandas as pd

    con = sqlite3.connect("file:%s?mode=ro" % os.fspath(db), uri=True)
    try:
        out = {}
        for t in tables:
            cols = con.execute("PRAGMA table_info(%s)" % t).fetchall()
            pk = [c[1] for c in sorted((c for c in cols if c[5]), key=lambda c: c[5])]
            order = ", ".join(pk) if pk else "rowid"
            df = pd.read_sql_query("SELECT * FROM %s ORDER BY %s" % (t, order), con)
            for _, name, decl, *_rest in cols:
                decl = (decl or "").upper()
                if "INT" in decl:
                    df[name] = df[name].astype("Int64")
                elif "REAL" in decl or "FLOA" in decl or "DOUB" in decl:
                    df[name] = df[name].astype("float64")
                else:
                    df[name] = df[name].astype("string")
            out[t] = df
        return out
    finally:
        con.close()


def frames(paths: Union[PathLike, Iterable[PathLike]], actions: bool = False,
           tables: Sequence[str] = TABLES) -> Dict[str, Any]:
    """The logs in paths as pandas DataFrames, one per table of the SQLite
    export (docs/schema.md): ``matches``, ``match_players``, ``match_meta``,
    ``deals``, ``deal_scores``, ``deal_seats``, ``melds``, ``actions`` (rows
    only with actions=True). The rows are what ``brp export --sqlite`` writes
    for the same logs (the C exporter writes a temporary database that is
    read back), columns as the schema has them, dtypes nullable (Int64,
    string, float64)."""
    with tempfile.TemporaryDirectory(prefix="libreplay-frames-") as d:
        db = os.path.join(d, "export.db")
        export_sqlite(paths, db, actions=actions)
        return _frames_from_db(db, tables)
