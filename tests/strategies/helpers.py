"""Assertions shared by the strategy tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from reference import api
from reference.errors import VNextError
from reference.model.config import json_equal
from strategies.cases import Rejection
from strategies.scenario_cells import ScenarioCell


def assert_rejected(rejection: Rejection, build: Callable[[Any], Any]) -> VNextError:
    """``build(document)`` raises exactly the expected kind (and pinned fields); the operator changed the input."""
    assert not json_equal(rejection.document, rejection.original), f"{rejection.operator} left the document unchanged"
    with pytest.raises(VNextError) as info:
        build(rejection.document)
    error = info.value
    assert error.kind == rejection.expected_kind, (rejection.operator, rejection.rule, error)
    produced = error.to_dict()
    for name, value in rejection.fields.items():
        assert produced.get(name) == value, (rejection.operator, name, produced)
    return error


def assert_cell_refused(cell: ScenarioCell, *extra: Any) -> VNextError:
    """The reference refuses ``cell`` (its arguments, then ``extra``) with its kind, its reason and every pinned
    field; the error, for the caller's further checks."""
    with pytest.raises(VNextError) as info:
        getattr(api, cell.operation)(*cell.arguments(), *extra)
    error = info.value
    assert error.kind == cell.kind, (cell.name, error)
    assert cell.reason in error.message, (cell.name, error.message)
    produced = error.to_dict()
    for name, value in cell.fields.items():
        assert produced.get(name) == value, (cell.name, name, produced)
    return error
