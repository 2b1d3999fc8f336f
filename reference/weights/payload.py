"""Validated physical bytes of one weight component, and the source protocol (seed 002 imports).

A ``WeightComponentPayload`` can only be built through ``new`` or
``from_ordered_sources``, which check it against a ``WeightComponentSpec``:
ordered external names equal the spec's (multi-source order is identity), one
relative source file per name, dimensions, physical element type and the exact
byte length. Bytes are held as a read-only ``memoryview`` so a source can lend
its buffer (mmap, numpy array) without a copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

import numpy as np

from reference.errors import InvalidExecutionPlan
from reference.ids import WeightId
from reference.model.element import ElementType
from reference.model.weight_encoding import WeightComponentSpec

__all__ = ["WeightBytes", "WeightComponentPayload", "WeightComponentSource", "as_byte_view", "valid_source_file"]

WeightBytes = bytes | bytearray | memoryview | np.ndarray[Any, Any]
"""Anything that can back a payload: host bytes or a C-contiguous numpy array."""

_AUTHORITY: Final = object()


def as_byte_view(data: WeightBytes) -> memoryview:
    """A read-only, byte-addressed view of ``data`` sharing its memory (no copy)."""
    if isinstance(data, np.ndarray) and not data.flags.c_contiguous:
        raise InvalidExecutionPlan(  # rule: 05.10.6/weight_bytes_contiguous
            reason="weight bytes must be one contiguous host buffer"
        )
    view = memoryview(data)  # type: ignore[arg-type]
    if not view.c_contiguous:
        raise InvalidExecutionPlan(  # rule: 05.10.6/weight_bytes_contiguous
            reason="weight bytes must be one contiguous host buffer"
        )
    if view.format != "B" or view.ndim != 1:
        view = view.cast("B")
    return view.toreadonly()


def valid_source_file(name: str) -> bool:
    """A relative path: non-empty, no leading ``/``, no ``\\``, no empty, ``.`` or ``..`` segment."""
    return (
        bool(name)
        and not name.startswith("/")
        and "\\" not in name
        and all(part not in ("", ".", "..") for part in name.split("/"))
    )


@dataclass(frozen=True, slots=True, eq=False)
class WeightComponentPayload:
    """Bytes of one component plus the identity they were checked against."""

    component_id: WeightId
    external_names: tuple[str, ...]
    source_files: tuple[str, ...]
    dimensions: tuple[int, ...]
    element_type: ElementType
    data: memoryview
    _authority: object = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self._authority is not _AUTHORITY:
            raise TypeError("WeightComponentPayload is built by new() or from_ordered_sources()")

    @classmethod
    def new(
        cls,
        component: WeightComponentSpec,
        external_name: str,
        source_file: str,
        dimensions: Sequence[int],
        element_type: ElementType,
        data: WeightBytes,
    ) -> WeightComponentPayload:
        """One external name from one file (``from_ordered_sources`` with singletons)."""
        return cls.from_ordered_sources(component, [external_name], [source_file], dimensions, element_type, data)

    @classmethod
    def from_ordered_sources(
        cls,
        component: WeightComponentSpec,
        external_names: Sequence[str],
        source_files: Sequence[str],
        dimensions: Sequence[int],
        element_type: ElementType,
        data: WeightBytes,
    ) -> WeightComponentPayload:
        """Check names (in order), files, dimensions, physical type and byte length against ``component``."""
        view = as_byte_view(data)
        names = tuple(external_names)
        files = tuple(source_files)
        sources_match = (
            bool(names)
            and names == component.external_names
            and len(names) == len(files)
            and all(valid_source_file(f) for f in files)
        )
        expected = component.physical_bytes()
        if (
            not sources_match
            or tuple(dimensions) != component.dimensions
            or element_type is not component.physical_element_type()
            or view.nbytes != expected
        ):
            raise InvalidExecutionPlan(
                reason=(  # rule: 05.10.6/materialize_payload_fields
                    f"weight component `{component.id}` payload differs from its schema identity, "
                    "source, shape, type, or byte length"
                )
            )
        return cls(component.id, names, files, tuple(dimensions), element_type, view, _AUTHORITY)

    def external_name(self) -> str:
        return self.external_names[0]

    def source_file(self) -> str:
        return self.source_files[0]

    def to_bytes(self) -> bytes:
        """A copy of the payload bytes."""
        return self.data.tobytes()

    def shares_memory_with(self, buffer: WeightBytes) -> bool:
        """True when this payload borrows ``buffer`` rather than owning a copy."""
        return bool(np.shares_memory(np.asarray(self.data), np.asarray(as_byte_view(buffer))))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WeightComponentPayload):
            return NotImplemented
        return (
            self.component_id == other.component_id
            and self.external_names == other.external_names
            and self.source_files == other.source_files
            and self.dimensions == other.dimensions
            and self.element_type is other.element_type
            and self.data == other.data
        )

    def __hash__(self) -> int:
        return hash((self.component_id, self.external_names, self.dimensions, self.data.nbytes))


class WeightComponentSource(Protocol):
    """Backend-neutral source of schema-addressed physical components (checkpoint reader)."""

    def component(self, component: WeightComponentSpec) -> WeightComponentPayload:
        """The validated payload of ``component`` (borrowed where possible)."""
        ...
