"""``Outcome``: what one operation call produced, in protocol form, for comparisons.

Either ``result`` (the protocol result object) or ``error`` (the error object without its
informational ``message``; ``serialization``'s ``message`` is a contract field but free text,
so it is dropped too).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from harness.protocol.envelope import clip
from reference.errors import VNextError

__all__ = ["Outcome", "error_fields"]


def error_fields(error: VNextError) -> dict[str, Any]:
    """The comparable part of an error object: ``kind`` and the structured fields."""
    out = error.to_dict()
    out.pop("message", None)
    return out


@dataclass(frozen=True, slots=True)
class Outcome:
    """``kind`` is ``result`` or ``error``; ``value`` the protocol object."""

    kind: Literal["result", "error"]
    value: dict[str, Any]

    def to_wire(self) -> dict[str, Any]:
        return {self.kind: self.value}

    def matches(self, expect: Mapping[str, Any]) -> bool:
        """``expect`` is ``{"result": obj}`` (exact) or ``{"error": fields}`` (every given field equal)."""
        if "result" in expect:
            return self.kind == "result" and self.value == expect["result"]
        wanted = {k: v for k, v in expect["error"].items() if k != "message"}
        return self.kind == "error" and all(k in self.value and self.value[k] == v for k, v in wanted.items())

    def describe(self) -> str:
        if self.kind == "error":
            fields = ", ".join(f"{k}={clip(repr(v), 120)}" for k, v in self.value.items() if k != "kind")
            return f"error {self.value.get('kind')}({fields})"
        return "result " + clip(repr(self.value), 300)
