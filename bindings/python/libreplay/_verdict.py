"""Verification: the verdict of a log (log.h's rpl_verify_*), as the dict brp verify --json prints."""

from __future__ import annotations

import os
from typing import Any, Dict, Iterable, Optional, Tuple, Union

from ._base import PathLike, _path, _raise, _str
from ._errors import IOFailure
from ._ffi import ffi as _ffi, lib as _lib
from ._rules import _action_text, _rules_arg

_VERDICTS = ("ok", "illegal", "mismatch", "incomplete", "malformed", "tampered", "untrusted")


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
