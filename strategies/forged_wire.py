"""A forged plan wire and what it is made from: the target plan, the forgery, the choices, the sealing.

A ``ForgeryOperator`` takes a ``PlanTarget`` (a scenario and the plan wire the reference built for
it) and a ``Chooser`` and returns a ``Forgery`` (the forged bytes, the scenario to revalidate them
against, the rule that must reject them and the expected error kind), or ``None`` when it does not
apply. The chooser abstracts every choice, so one operator serves Hypothesis (``DrawChooser``) and
the deterministic kill matrix (``SeededChooser``). Sealing is the seed's ``rehash_plan_json``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from hypothesis import strategies as st

from reference.canonical import JsonValue, canonical_bytes, direct_bytes, sha256_hex
from strategies.cases import JsonPath, get_at, iter_paths, replaced

__all__ = [
    "DECODE_CONTEXT",
    "DECODE_CONTEXT_RULE",
    "INVALID_PLAN",
    "MAX_WIRE",
    "MISMATCH",
    "SERIALIZATION",
    "UNSUPPORTED",
    "Chooser",
    "DrawChooser",
    "Forgery",
    "ForgeryOperator",
    "PlanTarget",
    "SeededChooser",
    "forgery",
    "pattern",
    "payload_leaves",
    "pick",
    "rehash_plan_json",
    "seal",
    "with_raw",
    "with_raw_bytes",
]

MAX_WIRE: Final = 16 * 1024 * 1024
#: The context of every decode-stage ``Serialization`` of a plan wire (05 §1).
DECODE_CONTEXT: Final = "decode untrusted execution plan"
#: The rule a pinned decode context checks.
DECODE_CONTEXT_RULE: Final = "05.1/decode_serialization_context"
SERIALIZATION: Final = "serialization"
INVALID_PLAN: Final = "invalid_execution_plan"
MISMATCH: Final = "plan_hash_mismatch"
UNSUPPORTED: Final = "unsupported_plan_schema"
_SENTINEL: Final = "__vnext_forgery_sentinel__"


# --------------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True)
class PlanTarget:
    """A scenario and the plan wire the reference built for it."""

    name: str
    scenario: dict[str, Any]
    wire: bytes

    def raw(self) -> dict[str, Any]:
        """A fresh parse of the wire (callers may mutate it)."""
        value: dict[str, Any] = json.loads(self.wire)
        return value


@dataclass(frozen=True, slots=True)
class Forgery:
    """``wire_bytes`` revalidated against ``scenario`` must fail with ``expected_kind`` (and the pinned ``fields``)
    because of ``rule``; ``rules`` are the catalogue rules that answer checks."""

    operator: str
    rule: str
    expected_kind: str
    wire_bytes: bytes
    scenario: dict[str, Any]
    target: str = ""
    detail: str = ""
    fields: Mapping[str, JsonValue] = field(default_factory=dict)
    rules: tuple[str, ...] = ()

    def expected_error(self) -> dict[str, JsonValue]:
        """The error object a bundle expects (kind plus pinned fields)."""
        return {"kind": self.expected_kind, **self.fields}


class Chooser(Protocol):
    """Every choice an operator makes."""

    def below(self, size: int) -> int:
        """An index in ``[0, size)`` (``size >= 1``)."""
        ...

    def integer(self, low: int, high: int) -> int:
        """An integer in ``[low, high]``."""
        ...


class DrawChooser:
    """Choices drawn by Hypothesis (they shrink towards index 0 / ``low``)."""

    def __init__(self, draw: st.DrawFn) -> None:
        self._draw = draw

    def below(self, size: int) -> int:
        return self._draw(st.integers(0, size - 1))

    def integer(self, low: int, high: int) -> int:
        return self._draw(st.integers(low, high))


class SeededChooser:
    """Deterministic choices from a seed (the kill matrix)."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def below(self, size: int) -> int:
        return self._random.randrange(size)

    def integer(self, low: int, high: int) -> int:
        return self._random.randint(low, high)


def pick(chooser: Chooser, items: Sequence[Any]) -> Any:
    """One of ``items``, chosen by ``chooser``."""
    return items[chooser.below(len(items))]


# --------------------------------------------------------------------------- sealing


def rehash_plan_json(raw: dict[str, Any]) -> dict[str, Any]:
    """Seed ``rehash_plan_json``: drop ``payload.plan_id``, hash the canonical rest, write id and hash back."""
    payload = {k: v for k, v in raw["payload"].items() if k != "plan_id"}
    digest = sha256_hex(canonical_bytes(payload))
    sealed = dict(raw)
    sealed["payload"] = {**raw["payload"], "plan_id": "plan/sha256/" + digest}
    sealed["plan_hash"] = digest
    return sealed


def seal(raw: dict[str, Any], rehash: bool) -> bytes:
    """Compact bytes of ``raw``, re-sealed first (as a forger would) when ``rehash``."""
    return direct_bytes(rehash_plan_json(raw) if rehash else raw)


def with_raw(document: Any, path: JsonPath, text: str) -> bytes:
    """Compact bytes (document key order) with the value at ``path`` written as the raw JSON ``text``."""
    marked = replaced(document, path, _SENTINEL)
    encoded = json.dumps(marked, ensure_ascii=False, separators=(",", ":"))
    return encoded.replace(json.dumps(_SENTINEL), text, 1).encode("utf-8")


def with_raw_bytes(document: Any, replacements: Sequence[tuple[JsonPath, Callable[[Any], bytes]]]) -> bytes:
    """Compact bytes (document key order) with the value at each path written as the raw bytes its function makes
    of it (a duplicated member, ``-0``, ``NaN``, invalid UTF-8, ...); the paths must not nest."""
    marked = document
    for index, (path, _) in enumerate(replacements):
        marked = replaced(marked, path, f"{_SENTINEL}{index}")
    out = direct_bytes(marked)
    for index, (path, text) in enumerate(replacements):
        token = json.dumps(f"{_SENTINEL}{index}").encode()
        if out.count(token) != 1:
            raise ValueError(f"raw replacement {index} at {path!r} does not land once")
        out = out.replace(token, text(get_at(document, path)), 1)
    return out


def pattern(path: JsonPath) -> tuple[str, ...]:
    """``path`` with every array index written ``*``."""
    return tuple("*" if isinstance(step, int) else step for step in path)


def payload_leaves(raw: dict[str, Any]) -> list[tuple[JsonPath, Any]]:
    """Leaves of the payload a forger may edit (not ``plan_id`` or the ``schema`` header)."""
    return [
        (path, value)
        for path, value in iter_paths(raw)
        if len(path) >= 2
        and path[0] == "payload"
        and path[1] not in ("plan_id", "schema")
        and not isinstance(value, dict | list)
    ]


@dataclass(frozen=True, slots=True)
class ForgeryOperator:
    """A named forgery; ``forge`` returns ``None`` when the target has nothing to forge this way."""

    name: str
    rule: str
    forge: Callable[[Chooser, PlanTarget], Forgery | None]


def forgery(
    operator: str,
    rule: str,
    kind: str,
    wire: bytes,
    target: PlanTarget,
    detail: str = "",
    *,
    rules: Sequence[str] = (),
    **fields: JsonValue,
) -> Forgery:
    """The ``Forgery`` of ``target`` by ``operator``, pinning ``fields`` of the expected error (a decode-stage
    ``Serialization`` pins its context too) and checking the catalogue ``rules``."""
    if kind == SERIALIZATION:
        fields = {"context": DECODE_CONTEXT, **fields}
        rules = (*rules, DECODE_CONTEXT_RULE)
    return Forgery(
        operator, rule, kind, wire, target.scenario, target.name, detail, fields, tuple(dict.fromkeys(rules))
    )
