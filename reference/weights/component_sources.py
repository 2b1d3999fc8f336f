"""Component-source maps: execution component id -> ordered source component ids (seed 002).

The map is a ``BTreeMap`` upstream: keys are unique and serialized in sorted
order; each value keeps its order (multi-source order is semantic). The default
(identity) map sends every execution component to ``[same id]`` and refuses an
execution component that is not a source component: a materializer that derives
new components must declare their provenance.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from reference.errors import InvalidExecutionPlan, Serialization
from reference.ids import WeightId
from reference.model.prepared import PreparedModelFamily
from reference.model.weight_schema import WeightSchema
from reference.wire import read_list

__all__ = [
    "ComponentSources",
    "component_sources_from_wire",
    "component_sources_to_wire",
    "freeze_component_sources",
    "identity_component_sources",
]

ComponentSources = Mapping[WeightId, tuple[WeightId, ...]]


def freeze_component_sources(sources: Mapping[WeightId, Sequence[WeightId]]) -> ComponentSources:
    """An immutable, key-sorted copy with tuple values."""
    for key, values in sources.items():
        if not isinstance(key, WeightId) or not all(isinstance(v, WeightId) for v in values):
            raise TypeError("component sources map WeightId -> sequence of WeightId")
    return MappingProxyType({key: tuple(sources[key]) for key in sorted(sources)})


def identity_component_sources(family: PreparedModelFamily, execution_schema: WeightSchema) -> ComponentSources:
    """``{id: [id]}`` for every execution component; a derived (non-source) id is ``InvalidExecutionPlan``."""
    source_ids = {component.id for component in family.weight_schema.components}
    mapping: dict[WeightId, tuple[WeightId, ...]] = {}
    for component in execution_schema.components:
        if component.id not in source_ids:
            raise InvalidExecutionPlan(  # rule: 05.10.3/identity_component_sources_default
                reason=f"weight materializer must declare sources for derived component `{component.id}`"
            )
        mapping[component.id] = (component.id,)
    return freeze_component_sources(mapping)


def component_sources_to_wire(sources: ComponentSources) -> dict[str, Any]:
    """Keys in sorted order, values in their declared order."""
    return {key.value: [v.value for v in sources[key]] for key in sorted(sources)}


def component_sources_from_wire(raw: Any, context: str, path: str) -> ComponentSources:
    """A JSON object of identity -> array of identities (any key order; sorted on decode)."""
    if not isinstance(raw, dict):
        raise Serialization(  # rule: 01.5/struct_wrong_json_type
            context, f"{path}: component_sources must be a JSON object"
        )
    mapping: dict[WeightId, tuple[WeightId, ...]] = {}
    for key, values in raw.items():
        key_id = WeightId.from_wire(key, context=context)
        items = read_list(values, context=context, path=f"{path}.{key}")
        mapping[key_id] = tuple(WeightId.from_wire(v, context=context) for v in items)
    return freeze_component_sources(mapping)
