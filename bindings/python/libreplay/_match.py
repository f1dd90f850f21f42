"""Reading a log: the match, its deals, decisions and claims (log.h's reader), and its positions (position.h)."""

from __future__ import annotations

import datetime as _dt
import json
import os
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple, Union

from ._base import PathLike, _path, _raise, _str, expand_paths
from ._errors import InvalidArgument, NotFound, StateError
from ._ffi import ffi as _ffi, lib as _lib
from ._rules import _KINDS, _action_text, _card_name, _rules_dict


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
                _lib.rpl_reader_free(pp[0])  # the detail says the byte (rpl_reader_errmsg)
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
                _raise(rc, "%s: %s" % (self.path, _str(_lib.rpl_reader_errmsg(self._rd))))
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

    # the columns of review(): brp review --json's decision objects (cmd_review.c)
    REVIEW_COLUMNS = ("deal", "turn", "decision", "seat", "played", "best", "greedy", "value_played",
                      "value_best", "loss", "se", "samples", "candidates", "class", "class_uncertain",
                      "win_loss", "accuracy")

    def review(self, strength: Optional[int] = None, seed: int = 1, seats: Optional[Iterable[int]] = None):
        """What each decision cost its seat (docs/review.md): a pandas
        DataFrame, one row a decision reviewed, in the log's order, with the
        columns of ``brp review --json``'s decision objects (deal, turn,
        decision: its number in the turn, seat, played, best, greedy,
        value_played, value_best, loss, se, samples, candidates, class: None
        or "inaccuracy", "mistake", "blunder", class_uncertain, win_loss,
        accuracy), the values unrounded. ``strength`` is the samples a
        decision (2 to 1000; None: the library's default, 24), ``seed`` the
        samples' seed, ``seats`` the seats to review (None: every seat). The
        same log, strength and seed give the same frame as ``brp review
        --json --strength S --seed N`` on every machine. The log is replayed
        by the engine (``rpl_review_one`` on the game before each decision,
        as brp review does) as far as it verifies: an illegal log up to its
        refused decision, a damaged one up to the damage.

        Raises :class:`InvalidArgument` for a strength, seed or seat out of
        range, :class:`StateError` after close(), :class:`IOFailure` when the
        file cannot be read."""
        import pandas as pd

        if self._rd is None:
            raise StateError("the match was closed")
        opt = _ffi.new("rpl_review_options *")
        _lib.rpl_review_options_init(opt)
        if strength is not None:
            if not isinstance(strength, int) or isinstance(strength, bool) or not 2 <= strength <= 1000:
                raise InvalidArgument("strength: samples a decision, 2 to 1000, not %r" % (strength,))
            opt.samples = strength
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 1 << 64:
            raise InvalidArgument("seed: an integer from 0 to 2^64 - 1, not %r" % (seed,))
        opt.seed = seed
        if seats is not None:
            mask = 0
            for s in seats:
                if not isinstance(s, int) or isinstance(s, bool) or not 0 <= s < self.players:
                    raise InvalidArgument("seats: seats from 0 to %d, not %r" % (self.players - 1, s))
                mask |= 1 << s
            if not mask:
                raise InvalidArgument("seats: no seat given")
            opt.seats = mask
        pr = _ffi.new("rpl_reviewer **")
        rc = _lib.rpl_reviewer_new(pr, opt)
        if rc < 0:
            _raise(rc, "review options out of range")
        rv = pr[0]
        rows: List[Tuple[Any, ...]] = []
        where = {"deal": 0, "turn": 0, "in_turn": 0, "error": 0}
        d = _ffi.new("rpl_review_decision *")

        def before(ctx, ev, g):
            # as brp review's collect (cmd_review.c): count the decision in its turn, then review it
            if ev.kind != 2:  # RPL_EV_ACTION
                return 0
            if ev.deal != where["deal"] or ev.turn != where["turn"]:
                where["in_turn"] = 0
            where["deal"], where["turn"] = ev.deal, ev.turn
            where["in_turn"] += 1
            if seats is not None and not (opt.seats >> ev.seat) & 1:
                return 0
            played = _ffi.addressof(ev, "action")
            if _lib.rpl_game_check(g, played, _ffi.NULL) != 0:
                return 0  # the refused decision: the verdict names it
            r = _lib.rpl_review_one(d, rv, g, played)
            if r < 0:
                where["error"] = r
                return r
            if r == 1:
                cls = _lib.rpl_review_class_name(d.cls)
                rows.append((d.deal, ev.turn, where["in_turn"], d.seat, _action_text(_ffi.addressof(d, "played")),
                             _action_text(_ffi.addressof(d, "best")), _action_text(_ffi.addressof(d, "greedy")),
                             d.value_played, d.value_best, d.loss, d.se, d.samples, d.candidates,
                             _str(cls) if cls != _ffi.NULL else None, bool(d.uncertain), d.win_loss, d.accuracy))
            return 0

        fn = _ffi.callback("int(void *, const rpl_event *, const rpl_game *)", before, error=-1)
        obs = _ffi.new("rpl_verify_observer *", {"ctx": _ffi.NULL, "before": fn, "after": _ffi.NULL})
        v = _ffi.new("rpl_verdict *")
        try:
            if self._data is None:
                rc = _lib.rpl_verify_file_observe(_path(self.path), _ffi.NULL, v, obs)
            else:
                pr2 = _ffi.new("rpl_reader **")
                _lib.rpl_reader_open_memory(pr2, self._data, len(self._data))
                try:
                    rc = _lib.rpl_verify_reader_observe(pr2[0], _ffi.NULL, v, obs)
                finally:
                    _lib.rpl_reader_free(pr2[0])
        finally:
            _lib.rpl_reviewer_free(rv)
        if where["error"]:
            rc = where["error"]
        if rc < 0:
            _raise(rc, "%s: %s" % (self.path, _str(v.message) or _str(_lib.rpl_strerror(rc))))
        return pd.DataFrame.from_records(rows, columns=list(self.REVIEW_COLUMNS))


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
