"""Edits of JSON documents at named places: the one edit kit of the cell tables.

A place is a path whose steps are member names, array indices or selectors (``{"node_id": "node.main"}``:
the first array item with those members). An edit is ``set`` a value (a missing last member is added),
``add`` to an integer (or a decimal string), ``swap`` the first two items of an array, ``dup`` its first
item, ``drop`` the item at an index, ``append`` an item, ``delete`` a member, or ``apply`` a function to
the value found there. Documents are never changed in place: the edited containers are copies.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from strategies.cases import copy_json

__all__ = ["Edit", "Step", "apply_edits"]

Step = str | int | Mapping[str, Any]

_OPERATORS: Final = frozenset({"set", "add", "swap", "dup", "drop", "append", "delete", "apply"})


@dataclass(frozen=True, slots=True)
class Edit:
    """``op`` (with ``arg``) at ``path``; ``delete`` removes the member ``arg`` of the object at ``path``."""

    path: tuple[Step, ...]
    op: str
    arg: Any = None

    def __post_init__(self) -> None:
        if self.op not in _OPERATORS:
            raise ValueError(f"unknown edit operator {self.op!r}")
        if self.op == "apply" and not callable(self.arg):
            raise ValueError("apply needs a function")


def _step(container: Any, step: Step) -> Any:
    """The key or index ``step`` names in ``container``."""
    if isinstance(step, Mapping):
        assert isinstance(container, list), f"selector {dict(step)} on a non-array"
        for index, item in enumerate(container):
            if isinstance(item, dict) and all(item.get(k) == v for k, v in step.items()):
                return index
        raise LookupError(f"no array item matches {dict(step)}")
    return step


def _edited(value: Any, op: str, arg: Any) -> Any:
    if op == "set":
        return copy_json(arg)
    if op == "apply":
        function: Callable[[Any], Any] = arg
        return function(copy_json(value))
    if op == "delete":
        assert isinstance(value, dict), "delete on a non-object"
        return {k: v for k, v in value.items() if k != arg}
    if op == "add":
        if isinstance(value, str):
            return str(int(value) + arg)
        assert isinstance(value, int) and not isinstance(value, bool), "add on a non-integer"
        return value + arg
    assert isinstance(value, list), f"{op} on a non-array"
    if op == "swap":
        return [value[1], value[0], *value[2:]]
    if op == "dup":
        return [value[0], *value]
    if op == "append":
        return [*value, copy_json(arg)]
    items = list(value)
    del items[arg]
    return items


def _apply(raw: Any, path: tuple[Step, ...], op: str, arg: Any) -> Any:
    if not path:
        return _edited(raw, op, arg)
    key = _step(raw, path[0])
    copied = list(raw) if isinstance(raw, list) else dict(raw)
    if op == "set" and len(path) == 1 and isinstance(raw, dict) and key not in raw:
        copied[key] = copy_json(arg)
    else:
        copied[key] = _apply(raw[key], path[1:], op, arg)
    return copied


def apply_edits(document: Any, edits: Iterable[Edit]) -> Any:
    """``document`` with every edit applied in order (``document`` itself is left as it was)."""
    for edit in edits:
        document = _apply(document, edit.path, edit.op, edit.arg)
    return document
