"""Identity of this suite and of the contract it checks."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from importlib import metadata
from typing import Final

from reference import api

__all__ = ["CONTRACT_IDENTITY", "CONTRACT_LIMITS", "RUN_PLUGIN_NAME", "SUITE_NAME", "suite_version"]

SUITE_NAME: Final = "vnext-conformance"
#: The name a conformance run's plugin object is registered under with pytest.
RUN_PLUGIN_NAME: Final = "vnext-conformance-run"

#: The contract a conforming backend must report in ``describe`` (plan schema 05 §1).
CONTRACT_IDENTITY: Final[Mapping[str, object]] = {
    "crate": api.CONTRACT_CRATE,
    "version": api.CONTRACT_VERSION,
    "module": api.CONTRACT_MODULE,
    "plan_schema": api.EXECUTION_PLAN_SCHEMA.to_wire(),
}

#: Limits a conforming backend must report, with the contract's values.
CONTRACT_LIMITS: Final[Mapping[str, int]] = dict(api.LIMITS)


@cache
def suite_version() -> str:
    """The installed package version, or the source tree's when not installed."""
    try:
        return metadata.version(SUITE_NAME)
    except metadata.PackageNotFoundError:
        return "0.1.0"
