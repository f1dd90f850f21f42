"""Recording a match as it is played, every decision checked (log.h's recorder), and the shuffled deal."""

from __future__ import annotations

import datetime as _dt
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from ._base import PathLike, _path, _raise, _str
from ._errors import IllegalMove, InvalidArgument, ParseError, StateError
from ._ffi import ffi as _ffi, lib as _lib
from ._rules import _KIND_IDS, _card_name, _cards, _rules_arg


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
