"""The document-mutation table: stable cell ids, one change per cell, the chosen ``ci`` cells exist."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given

from strategies.budget import BASES, base_scenario
from strategies.mutation_cells import CI_CELLS
from strategies.mutations import (
    MUTATION_OPERATORS,
    Cell,
    cell_from_id,
    cells_of,
    decoding_rules,
    expected_kind,
    format_path,
    json_paths,
    kind_of,
    mutation_cells,
    mutations_at,
    operator_cells,
    operator_of,
    parse_path,
)


def _differences(left: object, right: object, path: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Paths where two JSON values differ (a changed container counts once, at its own path)."""
    if type(left) is not type(right):
        return [path]
    if isinstance(left, dict) and isinstance(right, dict):
        if set(left) != set(right):
            return [path]
        return [found for key in left for found in _differences(left[key], right[key], (*path, key))]
    if isinstance(left, list) and isinstance(right, list):
        if len(left) != len(right):
            return [path]
        return [
            found
            for index, pair in enumerate(zip(left, right, strict=True))
            for found in _differences(*pair, (*path, index))
        ]
    return [] if left == right else [path]


@pytest.mark.parametrize("base", BASES)
def test_cell_ids_round_trip(base: str) -> None:
    cells = list(cells_of(base))
    assert len({cell.id for cell in cells}) == len(cells)
    for cell in cells:
        assert cell_from_id(cell.id) == cell


def test_paths_with_escaped_members_round_trip() -> None:
    document = {"a/b": {"12": [{"x~y": 1}]}}
    for path, _ in json_paths(document):
        assert parse_path(format_path(path), document) == path


@given(cell=mutation_cells())
def test_a_cell_changes_its_path_only(cell: Cell) -> None:
    before = base_scenario(cell.base)
    after = cell.scenario()
    changed = _differences(before, after)
    assert changed, cell.id
    for path in changed:
        assert tuple(path[: len(cell.path)]) == cell.path, f"{cell.id} changed {path}"


def test_the_table_holds_every_kind() -> None:
    assert [name for name, _ in mutations_at(7)] == [
        "zero", "minus_one", "past_u32", "past_u64", "past_f64_exact", "as_float", "null",
    ]  # fmt: skip
    assert next(name for name, _ in mutations_at(0)) == "minus_one"
    assert [name for name, _ in mutations_at("f32")] == [
        "empty", "long", "outside_alphabet", "unknown_spelling", "upper", "null",
    ]  # fmt: skip
    assert [name for name, _ in mutations_at([1, 2])] == ["empty", "duplicate_first", "swap_first_two", "null"]
    assert [name for name, _ in mutations_at([1, 1])] == ["empty", "duplicate_first", "null"]
    assert [name for name, _ in mutations_at({"a.b": 1})] == ["drop:a.b", "unknown_member", "rekey:a.b", "null"]
    assert [name for name, _ in mutations_at(None)] == ["as_zero", "as_string", "as_object"]
    long = dict(mutations_at("x"))["long"]("x")
    assert len(long.encode()) == 161


def test_known_kinds_are_decoding_rules_outside_free_json() -> None:
    assert expected_kind(Cell("plan_fixture", ("catalog", "device", "ordinal"), "past_u64")) == "serialization"
    assert expected_kind(Cell("plan_fixture", ("family", "raw_config", "width"), "as_float")) is None
    assert expected_kind(Cell("plan_fixture", ("catalog", "device", "ordinal"), "zero")) is None


def test_a_cell_names_the_decoding_rule_its_mutation_decides_only() -> None:
    """An integer past ``u64`` is refused by the strict parser wherever an integer is declared (01.3.3); no other
    mutation names a rule, nor does one in free JSON, whose refusal ``expected_kind`` does not pin."""
    assert decoding_rules(Cell("plan_fixture", ("catalog", "device", "ordinal"), "past_u64")) == (
        "01.3.3/decode_integer_out_of_range",
    )
    assert decoding_rules(Cell("plan_fixture", ("family", "raw_config", "width"), "past_u64")) == ()
    for mutation in ("minus_one", "as_float", "past_u32", "zero", "null"):
        assert decoding_rules(Cell("plan_fixture", ("catalog", "device", "ordinal"), mutation)) == ()


def test_ci_cells_exist_and_are_distinct() -> None:
    assert len(set(CI_CELLS)) == len(CI_CELLS)
    for cell_id in CI_CELLS:
        mutated = cell_from_id(cell_id).scenario()
        assert json.dumps(mutated) != json.dumps(base_scenario(cell_id.split(":", 1)[0])), cell_id


def test_operator_cells_are_the_first_cell_of_each_operator() -> None:
    cells = operator_cells("plan_fixture")
    assert list(cells) == list(MUTATION_OPERATORS)
    table = list(cells_of("plan_fixture"))
    document = base_scenario("plan_fixture")
    for operator, cell in cells.items():
        assert operator_of(kind_of(_at(document, cell.path)), cell.mutation) == operator
        earlier = table[: table.index(cell)]
        assert all(operator_of(kind_of(_at(document, other.path)), other.mutation) != operator for other in earlier), (
            operator
        )
        assert cell_from_id(cell.id) == cell
    assert operator_of("object", "drop:catalog") == "object:drop:<key>"
    assert operator_of("object", "rekey:operation.x") == "object:rekey:<key>"


def _at(document: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        document = document[part]
    return document
