"""Shared builders for the resolution tests (seed 000 shapes)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest

from reference.catalog import CapabilityCatalog
from reference.errors import VNextError
from reference.model.prepared import PreparedModelFamily
from reference.policy.resolved import ResolvedRuntimePolicy
from seeds.catalogs import catalog
from seeds.families import TestRegistry
from seeds.policies import policy


def raises_kind(kind: str, fn: Callable[[], Any]) -> VNextError:
    """Run ``fn`` and assert it raises the contract error ``kind``."""
    with pytest.raises(VNextError) as info:
        fn()
    assert info.value.kind == kind, info.value
    return info.value


@functools.cache
def family() -> PreparedModelFamily:
    return TestRegistry().prepare()


@functools.cache
def seed_catalog() -> CapabilityCatalog:
    return catalog()


@functools.cache
def seed_policy() -> ResolvedRuntimePolicy:
    return policy(4096)
