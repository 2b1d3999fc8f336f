"""Assertions shared by the strategy tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from reference.errors import VNextError
from reference.model.config import json_equal
from strategies.cases import Rejection


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
