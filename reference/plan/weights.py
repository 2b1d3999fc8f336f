"""Semantic checks of a node's bindings against the execution weight schema (spec 05 §3.1 step 9).

Resolution and the build run one check: ``validate_semantic_binding`` of the
resolution layer with the trusted execution weight plan's schema (the family's
schema under the identity plan). A weight binding must be read-only ``weights``
usage over the program tensor, name exactly that weight's execution components
(length and dtype) and carry ``ResolvedWeightBinding.from_schema(schema, weight)``
(decision D-04R-14).
"""

from __future__ import annotations

from reference.model.prepared import PreparedModelFamily
from reference.model.weight_schema import WeightSchema
from reference.resolution.binding import ResolvedValueBinding
from reference.resolution.semantic import validate_semantic_binding

__all__ = ["check_binding_semantics"]


def check_binding_semantics(family: PreparedModelFamily, schema: WeightSchema, binding: ResolvedValueBinding) -> None:
    """Weights against ``schema``; states and activations against the family program."""
    validate_semantic_binding(family, binding, schema)
