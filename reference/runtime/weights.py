"""The deterministic weight source the reference runtime executes with (decision 08-runtime D5).

Source component ``c`` holds ``physical_bytes(c)`` bytes of the SHA-256 counter
stream ``sha256("vnext-conformance/weights/v1\\0" + c.id + "\\0" + u64_le(block))``,
block = 0, 1, ...; every external name of ``c`` reads from ``model.safetensors``.
"""

from __future__ import annotations

import hashlib
from typing import Final

from reference.model.prepared import PreparedModelFamily
from reference.weights.sources import InMemoryWeightSource, host_length

__all__ = ["WEIGHT_STREAM_DOMAIN", "deterministic_weight_source", "weight_stream"]

WEIGHT_STREAM_DOMAIN: Final = b"vnext-conformance/weights/v1\x00"


def weight_stream(component_id: str, length: int) -> bytes:
    """The first ``length`` bytes of the component's counter stream."""
    prefix = WEIGHT_STREAM_DOMAIN + component_id.encode("utf-8") + b"\x00"
    blocks = (length + 31) // 32
    data = b"".join(hashlib.sha256(prefix + i.to_bytes(8, "little")).digest() for i in range(blocks))
    return data[:length]


def deterministic_weight_source(family: PreparedModelFamily) -> InMemoryWeightSource:
    """One stream per source component of the family's weight schema."""
    return InMemoryWeightSource(
        {c.id: weight_stream(c.id.value, host_length(c)) for c in family.weight_schema.components}
    )
