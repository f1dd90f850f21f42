"""The exceptions: one class a stable error code of the library (enum rpl_error, common.h).

Pure Python: nothing here calls the library, so that every other module can
raise them (_base.py turns a code the library returns into one of them).
"""

from __future__ import annotations

from typing import Optional

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
