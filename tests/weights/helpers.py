"""Shared builders for the weight-materializer tests."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import pytest

from reference.catalog.catalog import CapabilityCatalog
from reference.errors import VNextError
from reference.model.prepared import PreparedModelFamily
from reference.weights import WeightMaterializer, WeightMaterializerRegistry
from seeds.catalogs import catalog
from seeds.weights import split_family, synthetic_family


def raises_kind(kind: str, fn: Callable[[], Any]) -> VNextError:
    """Run ``fn`` and assert it raises the contract error ``kind``."""
    with pytest.raises(VNextError) as info:
        fn()
    assert info.value.kind == kind, info.value
    return info.value


@cache
def family() -> PreparedModelFamily:
    """The seed TestFamily (one dense f32 [4] component)."""
    return synthetic_family()


@cache
def split() -> PreparedModelFamily:
    """Two-component family for the derived-components materializer."""
    return split_family()


@cache
def base_catalog() -> CapabilityCatalog:
    return catalog()


def registry_and_catalog(*materializers: WeightMaterializer) -> tuple[WeightMaterializerRegistry, CapabilityCatalog]:
    registry = WeightMaterializerRegistry(list(materializers))
    return registry, registry.augment_catalog(base_catalog())
