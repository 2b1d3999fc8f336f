"""pytest plugin (entry point ``pytest11``): the ``--backend`` option."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("vnext-conformance")
    group.addoption("--backend", default="reference", help="backend spec: reference | python:MOD:FACTORY | exec:CMD")
