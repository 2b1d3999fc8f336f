"""The edit kit of the cell tables: each operator at a place, documents never changed in place."""

from __future__ import annotations

import pytest

from strategies.json_edits import Edit, apply_edits


def _one(doc: object, path: tuple, op: str, arg: object = None) -> object:
    return apply_edits(doc, [Edit(path, op, arg)])


def test_edit_operators() -> None:
    doc = {"a": [{"id": "x", "n": 1}, {"id": "y", "n": "7"}], "b": {"c": 1}}
    assert _one(doc, ("a", {"id": "y"}, "n"), "add", 2)["a"][1]["n"] == "9"  # type: ignore[index]
    assert _one(doc, ("a", 0, "n"), "add", -1)["a"][0]["n"] == 0  # type: ignore[index]
    assert _one(doc, ("a",), "swap")["a"] == [doc["a"][1], doc["a"][0]]  # type: ignore[index]
    assert _one(doc, ("a",), "dup")["a"] == [doc["a"][0], *doc["a"]]  # type: ignore[index]
    assert _one(doc, ("a",), "drop", -1)["a"] == [doc["a"][0]]  # type: ignore[index]
    assert _one(doc, ("a",), "append", 5)["a"] == [*doc["a"], 5]  # type: ignore[index]
    assert _one(doc, ("b",), "delete", "c")["b"] == {}  # type: ignore[index]
    assert _one(doc, ("b", "d"), "set", [1])["b"] == {"c": 1, "d": [1]}  # type: ignore[index]
    assert _one(doc, ("b", "c"), "apply", lambda v: v * 10)["b"] == {"c": 10}  # type: ignore[index]
    assert doc == {"a": [{"id": "x", "n": 1}, {"id": "y", "n": "7"}], "b": {"c": 1}}


def test_edits_apply_in_order() -> None:
    doc = {"n": 1}
    assert apply_edits(doc, [Edit(("n",), "add", 2), Edit(("n",), "apply", lambda v: v * 5)]) == {"n": 15}


def test_bad_places_and_operators_are_refused() -> None:
    doc = {"a": [{"id": "x"}]}
    with pytest.raises(LookupError):
        _one(doc, ("a", {"id": "z"}, "n"), "set", 0)
    with pytest.raises(ValueError, match="unknown edit operator"):
        Edit((), "rotate")
    with pytest.raises(ValueError, match="needs a function"):
        Edit((), "apply", 3)
