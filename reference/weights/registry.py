"""``WeightMaterializerRegistry``: the process-local set of authorized implementations (05 §10.4).

Not serializable and not reconstructible from a catalog. The identity
materializer is always present; at most 63 more may be registered (a list of 64
or more is refused before anything else), each structurally valid and with a
unique id (the identity id included). ``select_exact`` is the only way to a
non-identity trusted plan, and it refuses approximate materializers.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType
from typing import Final

from reference.catalog.catalog import CapabilityCatalog
from reference.catalog.weight_materializer import (
    MAX_WEIGHT_MATERIALIZERS,
    WeightMaterializationFidelity,
    WeightMaterializerDescriptor,
)
from reference.errors import InvalidExecutionPlan
from reference.ids import WeightMaterializerId
from reference.model.prepared import PreparedModelFamily
from reference.weights.materializer import IdentityWeightMaterializer, WeightMaterializer
from reference.weights.plan import ExecutionWeightPlan
from reference.weights.trusted import TrustedExecutionWeightPlan

__all__ = ["MAX_NON_IDENTITY_WEIGHT_MATERIALIZERS", "WeightMaterializerRegistry"]

MAX_NON_IDENTITY_WEIGHT_MATERIALIZERS: Final = MAX_WEIGHT_MATERIALIZERS - 1


class WeightMaterializerRegistry:
    """Identity plus up to 63 registered materializers, keyed (and iterated) by id."""

    __slots__ = ("_materializers",)

    def __init__(self, materializers: Sequence[WeightMaterializer] = ()) -> None:
        """Length first (>= 64 refused), then identity, then each entry: ``validate_structure`` and a unique id."""
        if len(materializers) >= MAX_WEIGHT_MATERIALIZERS:
            raise InvalidExecutionPlan(
                reason=(
                    f"weight materializer registry exceeds {MAX_NON_IDENTITY_WEIGHT_MATERIALIZERS} non-identity entries"
                )  # rule: 03.11.6/registry_at_most_63, 05.10.4/registry_size_limit, 05.1/max_weight_materializers
            )
        identity = IdentityWeightMaterializer()
        entries: dict[WeightMaterializerId, WeightMaterializer] = {identity.descriptor().id: identity}
        for materializer in materializers:
            descriptor = materializer.descriptor()
            descriptor.validate_structure(
                # rule when 05.10.2/descriptor_version_major_nonzero: 03.11.6/registry_entry_structure
                # rule when 05.10.2/descriptor_version_major_nonzero: 05.10.4/registry_entry_structure
                # rule when 05.10.2/descriptor_fingerprint_canonical: 03.11.6/registry_entry_structure
                # rule when 05.10.2/descriptor_fingerprint_canonical: 05.10.4/registry_entry_structure
            )
            if descriptor.id in entries:
                duplicate = f"duplicate weight materializer `{descriptor.id}`"
                if descriptor.id == identity.descriptor().id:
                    raise InvalidExecutionPlan(
                        reason=duplicate  # rule: 03.11.6/registry_identity_is_duplicate, 05.10.4/registry_duplicate_id
                    )
                raise InvalidExecutionPlan(  # rule: 03.11.6/registry_duplicate_id, 05.10.4/registry_duplicate_id
                    reason=duplicate
                )
            entries[descriptor.id] = materializer
        self._materializers = MappingProxyType(dict(sorted(entries.items())))

    @classmethod
    def new(cls, materializers: Sequence[WeightMaterializer]) -> WeightMaterializerRegistry:
        return cls(materializers)

    @classmethod
    def identity_only(cls) -> WeightMaterializerRegistry:
        return cls(())

    def ids(self) -> tuple[WeightMaterializerId, ...]:
        return tuple(self._materializers)

    def descriptors(self) -> dict[WeightMaterializerId, WeightMaterializerDescriptor]:
        """id -> current descriptor of every retained implementation (identity included), sorted by id."""
        return {mid: m.descriptor() for mid, m in self._materializers.items()}

    def augment_catalog(self, catalog: CapabilityCatalog) -> CapabilityCatalog:
        """``catalog`` with its materializer map replaced by ``descriptors()`` (validated against the device)."""
        return catalog.with_weight_materializer_descriptors(self.descriptors())

    def select_exact(
        self,
        family: PreparedModelFamily,
        catalog: CapabilityCatalog,
        materializer_id: WeightMaterializerId,
    ) -> TrustedExecutionWeightPlan:
        """Registered; catalog descriptor present and equal; exact fidelity; device capabilities; then
        execution schema (normalized), component sources and ``ExecutionWeightPlan.from_materializer``."""
        materializer = self._materializers.get(materializer_id)
        if materializer is None:
            raise InvalidExecutionPlan(  # rule: 05.10.4/select_descriptor_equals_catalog, 05.10.4/select_catalog_lookup
                reason=f"weight materializer `{materializer_id}` is not registered"
            )
        descriptor = materializer.descriptor()
        if descriptor != catalog.weight_materializer(materializer_id):
            raise InvalidExecutionPlan(  # rule: 05.10.4/select_descriptor_equals_catalog, 05.10.4/select_catalog_lookup
                reason=f"weight materializer `{materializer_id}` differs from its capability catalog descriptor"
            )
        if descriptor.fidelity is not WeightMaterializationFidelity.EXACT:
            raise InvalidExecutionPlan(  # rule: 05.10.4/select_exact_fidelity
                reason=(
                    f"weight materializer `{materializer_id}` is approximate and requires explicit "
                    "numerical-quality approval"
                )
            )
        descriptor.validate_for_device(catalog.device)
        schema = materializer.execution_schema(family, catalog.device).normalize()
        sources = materializer.component_sources(family, schema)
        plan = ExecutionWeightPlan.from_materializer(family, descriptor, schema, sources)
        return TrustedExecutionWeightPlan._issue(plan, descriptor, materializer)
