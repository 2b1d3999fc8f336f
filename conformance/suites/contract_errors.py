"""Comparing contract errors field by field: the kind and every field the contract pins.

Free-text fields (``message``, and the ``reason`` of kinds whose reason is the implementation's
words) are not compared; every other field of the error object is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from reference.api import VNextError

__all__ = ["FREE_TEXT", "error_of", "pinned"]

#: Error fields whose text is the implementation's own, per kind (``message`` always is).
FREE_TEXT: Final[dict[str, frozenset[str]]] = {
    "invalid_model_config": frozenset({"reason"}),
    "invalid_execution_plan": frozenset({"reason"}),
    "invalid_resolved_model_plan": frozenset({"reason"}),
    "unsupported_operation": frozenset({"reason"}),
}


def pinned(error: VNextError) -> dict[str, Any]:
    """The error object without its free-text fields."""
    raw = error.to_dict()
    free = FREE_TEXT.get(error.kind, frozenset()) | {"message"}
    return {key: value for key, value in raw.items() if key not in free}


def error_of(call: Callable[[], Any]) -> dict[str, Any] | None:
    """The pinned fields of the contract error ``call`` raises, or ``None`` when it succeeds."""
    try:
        call()
    except VNextError as exc:
        return pinned(exc)
    return None
