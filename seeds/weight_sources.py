"""The seed's test weight sources (seed 002).

* ``ZeroWeightSource``: zero bytes for any component with one external name.
* ``RecordingWeightSource``: wraps another source, records requested ids in order and
  optionally refuses ids outside an allow-list (the seed's strict source).
"""

from __future__ import annotations

from collections.abc import Iterable

from reference.errors import InvalidExecutionPlan
from reference.ids import WeightId
from reference.model.weight_encoding import WeightComponentSpec
from reference.weights.payload import WeightComponentPayload, WeightComponentSource
from reference.weights.sources import DEFAULT_SOURCE_FILE, host_length

__all__ = ["RecordingWeightSource", "ZeroWeightSource"]


class ZeroWeightSource:
    """Zero-filled bytes from ``model.safetensors`` under the component's first external name."""

    def component(self, component: WeightComponentSpec) -> WeightComponentPayload:
        if not component.external_names:
            raise InvalidExecutionPlan(reason=f"test weight component `{component.id}` has no external name")
        return WeightComponentPayload.new(
            component,
            component.external_names[0],
            DEFAULT_SOURCE_FILE,
            component.dimensions,
            component.physical_element_type(),
            bytes(host_length(component)),
        )


class RecordingWeightSource:
    """Records every requested component id; refuses ids outside ``allowed`` when it is given."""

    def __init__(self, inner: WeightComponentSource, allowed: Iterable[WeightId | str] | None = None) -> None:
        self._inner = inner
        self._allowed = (
            None if allowed is None else frozenset(a if isinstance(a, WeightId) else WeightId(a) for a in allowed)
        )
        self.requested: list[WeightId] = []

    def component(self, component: WeightComponentSpec) -> WeightComponentPayload:
        if self._allowed is not None and component.id not in self._allowed:
            raise InvalidExecutionPlan(reason=f"strict source rejects derived execution component `{component.id}`")
        self.requested.append(component.id)
        return self._inner.component(component)
