"""Statistics: what brp stats --json counts, over the logs that verify ok (one pass, the C observer).

The raw counts (_stats_zero, _stats_add, _stats_finish) are what libreplay.dask
adds up over the partitions of a cluster."""

from __future__ import annotations

import os
from typing import Any, Dict, Iterable, Optional, Union

from ._base import PathLike, _path, _raise, _str, expand_paths
from ._ffi import ffi as _ffi, lib as _lib
from ._verdict import _VERDICTS

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
