"""integrity: a corpus screened for play that hidden cards would explain, as brp integrity does
(docs/integrity.md), one row a line of ``brp integrity --json``."""
from typing import Any, Dict, Iterable, List, Optional, Union

from ._base import PathLike, _check, _path, _raise, _str, expand_paths
from ._errors import InvalidArgument
from ._ffi import ffi as _ffi, lib as _lib

# the columns of integrity(): brp integrity --json's keys, the player and the pair's second apart
INTEGRITY_COLUMNS = ("player", "partner", "statistic", "value", "n", "deals", "matches", "observed", "expected",
                     "baseline", "z", "p", "level", "flagged", "evidence")


def _options(samples, permutations, level, seed, seat, full, full_strength):
    o = _ffi.new("rpl_integrity_options *")
    _lib.rpl_integrity_options_init(o)

    def whole(name, v, lo, hi):
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            raise InvalidArgument("%s: an integer from %d to %d, not %r" % (name, lo, hi, v))
        return v

    if samples is not None:
        o.samples = whole("samples", samples, 1, 4096)
    if permutations is not None:
        o.permutations = whole("permutations", permutations, 99, 1000000)
    if not isinstance(level, (int, float)) or isinstance(level, bool) or not 0 < level <= 0.5:
        raise InvalidArgument("level: a number above 0 and at most 0.5, not %r" % (level,))
    o.level = level
    o.seed = whole("seed", seed, 0, (1 << 64) - 1)
    if seat is not None:
        o.seats = 1 << whole("seat", seat, 0, 3)
    if full:
        o.full = 1
        if full_strength is not None:
            o.full_samples = whole("full_strength", full_strength, 2, 1000)
    return o


def _screen(path: str, o) -> Optional[Dict[str, Any]]:
    """One log's decisions, players and group; None when it does not verify ok (brp integrity leaves it out)."""
    pr = _ffi.new("rpl_reader **")
    rc = _lib.rpl_reader_open(pr, _path(path))
    rd = pr[0]
    try:
        if rc < 0:
            _raise(rc, "%s: %s" % (path, _str(_lib.rpl_reader_errmsg(rd)) if rd != _ffi.NULL else ""))
        info = _lib.rpl_reader_info(rd)
        names = [_str(info.players[s]) if info.players[s] != _ffi.NULL else "" for s in range(info.nplayers)]
        group = _str(_lib.rpl_rules_profile(info.rules)) if info.rules != _ffi.NULL else ""
        kept: List[Any] = []

        def keep(ctx, d):
            c = _ffi.new("rpl_integrity_decision *")
            _ffi.memmove(c, d, _ffi.sizeof("rpl_integrity_decision"))
            kept.append(c)
            return 0

        fn = _ffi.callback("int(void *, const rpl_integrity_decision *)", keep, error=-1)
        v = _ffi.new("rpl_verdict *")
        _check(_lib.rpl_integrity_reader(rd, _ffi.NULL, o, fn, _ffi.NULL, v), path)
        if v.kind != 0:  # RPL_VERDICT_OK
            return None
        return {"names": names, "group": group, "decisions": kept}
    finally:
        _lib.rpl_reader_free(rd)


def integrity(paths: Union[PathLike, Iterable[PathLike]], *, pairs: bool = False, player: Optional[str] = None,
              seat: Optional[int] = None, full: bool = False, full_strength: Optional[int] = None,
              samples: Optional[int] = None, permutations: Optional[int] = None, level: float = 0.01,
              seed: int = 1):
    """The integrity screen of the logs in paths (files, or directories walked as brp walks them), as
    ``brp integrity --json [--pairs] [--full]`` prints it: a pandas DataFrame, one row a line, by
    evidence (the smallest p first), with the columns INTEGRITY_COLUMNS (``player`` whose decisions;
    ``partner`` whose hand for a pair, else None; ``evidence`` a list of dicts: log, deal, turn, decision,
    number, residual, view). A log that does not verify ok is left out. The same logs, in the same
    order, with the same options give the same frame as brp integrity on every machine.

    Raises :class:`InvalidArgument` for an option out of range, :class:`IOFailure` and the others
    of a log that cannot be read."""
    import pandas as pd

    o = _options(samples, permutations, level, seed, seat, full, full_strength)
    pin = _ffi.new("rpl_integrity **")
    _check(_lib.rpl_integrity_new(pin, o), "integrity options")
    corpus = _ffi.gc(pin[0], _lib.rpl_integrity_free)
    logs: List[str] = []
    for path in expand_paths(paths):
        got = _screen(path, o)
        if got is None:
            continue
        names = [_ffi.new("char[]", n.encode("utf-8", "surrogateescape")) for n in got["names"]]
        arr = _ffi.new("const char *[]", names)
        ds = _ffi.new("rpl_integrity_decision[]", max(1, len(got["decisions"])))
        for i, d in enumerate(got["decisions"]):
            ds[i] = d[0]
        _check(_lib.rpl_integrity_add(corpus, len(logs), arr, len(names), got["group"].encode(), ds,
                                      len(got["decisions"])), path)
        logs.append(path)
    n = _check(_lib.rpl_integrity_finish(corpus), "integrity")
    line = _ffi.new("rpl_integrity_line *")
    rows = []
    for i in range(n):
        _check(_lib.rpl_integrity_line_get(corpus, i, line), "integrity")
        a = _str(line.player)
        b = _str(line.partner) if line.partner != _ffi.NULL else None
        if (b is not None and not pairs) or (player is not None and player not in (a, b)):
            continue
        ev = []
        for k in range(line.nevidence):
            w = line.evidence[k]
            ev.append({"log": logs[w.match], "deal": w.deal, "turn": w.turn, "decision": w.step, "number": w.number,
                       "residual": w.residual, "view": "#d=%d&t=%d&n=%d" % (w.deal, w.turn, w.step)})
        rows.append((a, b, _str(_lib.rpl_integrity_stat_name(line.stat)), line.value, line.decisions, line.deals,
                     line.matches, line.observed, line.expected, line.baseline, line.z, line.p, line.level,
                     bool(line.flagged), ev))
    return pd.DataFrame(rows, columns=list(INTEGRITY_COLUMNS))
