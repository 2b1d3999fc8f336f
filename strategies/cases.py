"""The values adversarial strategies produce, and JSON path helpers to build them.

* ``Rejection``: a document a valid strategy produced, mutated by one named
  operator so that exactly one contract rule refuses it; carries the expected
  error ``kind`` (and the error fields the contract pins, when any).
* ``MalformedJson``: document *bytes* broken at the JSON level; every class is
  refused by the strict decoder with kind ``serialization``.

Paths are tuples of object keys / array indexes; helpers never mutate their
input (they deep-copy), so one drawn document can feed many operators.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar, cast

from reference.canonical import JsonValue

__all__ = [
    "SERIALIZATION",
    "JsonPath",
    "MalformedJson",
    "Rejection",
    "copy_json",
    "get_at",
    "iter_paths",
    "replaced",
    "updated",
]

SERIALIZATION: Final = "serialization"

_T = TypeVar("_T")

JsonPath = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Rejection:
    """``document`` must be refused with ``expected_kind`` because it breaks ``rule``.

    ``operator`` names the mutation, ``original`` is the valid document it was
    derived from, ``fields`` holds error fields the contract pins (e.g.
    ``{"field": "weight_schema.components"}``), ``extra`` operator inputs a test
    may need (e.g. the raw config for a family).
    """

    operator: str
    rule: str
    expected_kind: str
    document: JsonValue
    original: JsonValue
    fields: Mapping[str, JsonValue] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class MalformedJson:
    """Bytes of a document broken by one malformed-JSON class; always ``serialization``."""

    klass: str
    rule: str
    data: bytes
    original: JsonValue
    expected_kind: str = SERIALIZATION


def copy_json(value: _T) -> _T:
    """A deep copy of a JSON document: every dict and list rebuilt, immutable scalars shared.

    What ``copy.deepcopy`` gives for plain JSON, at a third of its cost (no memo of shared parts: a
    document is a tree); any other container is left to ``copy.deepcopy``.
    """
    return cast(_T, _copy(value))


def _copy(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        return {key: _copy(item) for key, item in value.items()}
    if kind is list:
        return [_copy(item) for item in value]
    if kind is str or kind is int or kind is bool or value is None or kind is float:
        return value
    return copy.deepcopy(value)


def get_at(document: JsonValue, path: JsonPath) -> Any:
    """The value at ``path``."""
    value: Any = document
    for step in path:
        value = value[step]
    return value


def replaced(document: JsonValue, path: JsonPath, value: JsonValue) -> JsonValue:
    """A deep copy of ``document`` with the value at ``path`` replaced (root when ``path`` is empty)."""
    if not path:
        return copy_json(value)
    out = copy_json(document)
    parent = get_at(out, path[:-1])
    parent[path[-1]] = copy_json(value)
    return out


def updated(document: JsonValue, path: JsonPath, **changes: JsonValue) -> JsonValue:
    """A deep copy with the object at ``path`` updated by ``changes``."""
    out = copy_json(document)
    get_at(out, path).update(copy_json(changes))
    return out


def iter_paths(document: JsonValue, path: JsonPath = ()) -> Iterator[tuple[JsonPath, JsonValue]]:
    """Every (path, value) pair in document order, containers before their children."""
    stack: list[tuple[JsonPath, Any]] = [(path, document)]
    while stack:
        here, value = stack.pop()
        yield here, value
        if isinstance(value, dict):
            stack.extend(reversed([((*here, key), child) for key, child in value.items()]))
        elif isinstance(value, list):
            stack.extend(reversed([((*here, index), child) for index, child in enumerate(value)]))
