"""Weight-component encoding wires the family cell tables share (02 §8.2), each with one spec's fields to change."""

from __future__ import annotations

from typing import Any, Final

__all__ = ["block_quantized", "dense", "dense_affine", "quantized"]

_ONE: Final = {"numerator": 1, "denominator": 1}


def dense(element_type: str) -> dict[str, Any]:
    return {"dense": {"element_type": element_type}}


def quantized(**changes: Any) -> dict[str, Any]:
    """A 4-bit, fixed-group-4, linear quantization with f16 scales and no zero points, ``changes`` applied."""
    spec = {"format_id": "quantization-format.test", "bits_per_weight": 4, "grouping": {"kind": "fixed", "size": 4},
            "packing": "linear", "scale_type": "f16", "zero_point_type": None}  # fmt: skip
    return {"quantized": {**spec, **changes}}


def block_quantized(**changes: Any) -> dict[str, Any]:
    """A 32-values-in-18-bytes block quantization, ``changes`` applied."""
    spec = {"format_id": "quantization-format.block", "logical_values_per_block": 32, "bytes_per_block": 18}
    return {"block_quantized": {**spec, **changes}}


def dense_affine(element_type: str) -> dict[str, Any]:
    """Dense values with a unit scale and bias."""
    return {"dense_affine": {"element_type": element_type, "scale": dict(_ONE), "bias": dict(_ONE)}}
