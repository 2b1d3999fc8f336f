"""Fixtures for the Rust kit's tests: the built binaries and their long-running tools."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .kit import LineProcess, binary


@pytest.fixture(scope="session")
def vnext_kit() -> Path:
    """``vnext-kit``: replay, check, roundtrip and serde-json."""
    return binary("vnext-kit")


@pytest.fixture(scope="session")
def kit_example() -> Path:
    """``vnext-kit-example``: the example backend."""
    return binary("vnext-kit-example")


@pytest.fixture(scope="module")
def roundtrip(vnext_kit: Path) -> Iterator[LineProcess]:
    process = LineProcess([str(vnext_kit), "roundtrip"])
    yield process
    assert process.close() == 0


@pytest.fixture(scope="module")
def serde_json_writer(vnext_kit: Path) -> Iterator[LineProcess]:
    process = LineProcess([str(vnext_kit), "serde-json"])
    yield process
    assert process.close() == 0
