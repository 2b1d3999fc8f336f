"""Document mutations: one JSON path of a base scenario broken by one fixed mutation of its kind.

Each cell (``strategies.mutations``: ``<base>:<path>:<mutation>``) is the base scenario with one value
replaced (an integer by 0, -1, a value past ``u32`` / ``u64`` / exact floats, or a float; a string by an
empty, over-long, out-of-alphabet or unknown spelling; an array emptied, its first element duplicated or
its first two swapped; an object member removed, an unknown member added or an id key renamed; any value
by ``null``), sent verbatim to ``build_plan``. The reference is the oracle: the backend's answer must be
the reference's, the same error kind and every pinned field (``contract_errors.pinned``), or the same
plan bytes when the reference accepts the document. The reference must answer a contract error, never
crash; where the decoding rule is known (an integer past ``u64``, a negative, a float or a boolean where
an unsigned integer is declared) its kind must be the rule's, and a cell whose mutation alone decides the rule
before any operation runs (an integer past ``u64``) is credited with it (``strategies.mutations.decoding_rules``).

The ``ci`` profile runs the fixed cell list ``strategies.mutation_cells.CI_CELLS`` (the cells reaching
raise sites no other suite reaches, chosen by ``bench/mutation_cells.py``) and, so that every mutation
runs at least once, the first cell of ``plan_fixture`` for each mutation operator (``<kind>:<name>``,
``strategies.mutations.MUTATION_OPERATORS``); generated cells drawn from the full table of every base run
on top and scale with the profile.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given

from conformance.suites.contract_errors import pinned
from harness.cases import exercise
from harness.protocol.codecs import RawJson
from harness.under_test import BackendUnderTest
from reference.api import VNextError
from reference.errors import ERROR_KINDS
from strategies.mutation_cells import CI_CELLS
from strategies.mutations import Cell, cell_from_id, decoding_rules, expected_kind, mutation_cells, operator_cells

pytestmark = pytest.mark.requires("build_plan")


def _sent(cell: Cell) -> RawJson:
    """The mutated scenario as JSON text (sent verbatim: values past ``u64`` included)."""
    return RawJson(json.dumps(cell.scenario(), ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def _answer(under: BackendUnderTest, scenario: RawJson) -> tuple[str, Any]:
    """``("plan", wire bytes)`` or ``("error", pinned fields)``."""
    try:
        return "plan", under.build_plan(scenario)
    except VNextError as exc:
        return "error", pinned(exc)


def check_cell(backend: BackendUnderTest, oracle: BackendUnderTest, cell: Cell) -> None:
    exercise(*decoding_rules(cell))
    scenario = _sent(cell)
    want = _answer(oracle, scenario)
    if want[0] == "error":
        kind = want[1]["kind"]
        assert kind in ERROR_KINDS, f"{cell.id}: the reference answers {want[1]}"
    expected = expected_kind(cell)
    if expected is not None:
        assert want[0] == "error" and want[1]["kind"] == expected, (
            f"{cell.id}: the reference answers {want[1] if want[0] == 'error' else 'a plan'}; the rule says {expected}"
        )
    got = _answer(backend, scenario)
    if want[0] == "plan":
        assert got[0] == "plan", f"{cell.id}: the reference builds a plan; the backend gives {got[1]}"
        assert got[1] == want[1], f"{cell.id}: the backend's plan wire differs from the reference's"
    else:
        assert got[0] == "error", f"{cell.id}: the backend builds a plan; the reference gives {want[1]}"
        assert got[1] == want[1], f"{cell.id}: the backend gives {got[1]}, the reference {want[1]}"


@pytest.mark.parametrize("cell_id", CI_CELLS, ids=list(CI_CELLS))
def test_document_mutation(backend: BackendUnderTest, oracle: BackendUnderTest, cell_id: str) -> None:
    check_cell(backend, oracle, cell_from_id(cell_id))


#: The base whose first cell per mutation operator runs once per run (every operator applies in it).
OPERATOR_BASE = "plan_fixture"


@pytest.mark.parametrize("operator", list(operator_cells(OPERATOR_BASE)))
def test_document_mutation_operator(backend: BackendUnderTest, oracle: BackendUnderTest, operator: str) -> None:
    check_cell(backend, oracle, operator_cells(OPERATOR_BASE)[operator])


@given(cell=mutation_cells())
def test_generated_document_mutation(backend: BackendUnderTest, oracle: BackendUnderTest, cell: Cell) -> None:
    check_cell(backend, oracle, cell)
