"""What node resolution reads of a trusted execution weight plan (spec 05 §10.6, decision D-04R-14).

Resolution sits below the weights layer, so it names the witness by the two
members it uses: ``validate_against_catalog(family, catalog)`` and
``plan().schema()``, the execution schema weight bindings are checked against.
``reference.weights.TrustedExecutionWeightPlan`` is the implementation; the plan
build re-checks every binding against the witness it is given, so a resolution
made for another schema never reaches a plan.
"""

from __future__ import annotations

from typing import Protocol

from reference.catalog.catalog import CapabilityCatalog
from reference.model.prepared import PreparedModelFamily
from reference.model.weight_schema import WeightSchema

__all__ = ["ExecutionWeightSchemaSource", "ExecutionWeightWitness"]


class ExecutionWeightSchemaSource(Protocol):
    """An execution weight plan: its (normalized) execution schema."""

    def schema(self) -> WeightSchema: ...


class ExecutionWeightWitness(Protocol):
    """A trusted execution weight plan as resolution sees it."""

    def plan(self) -> ExecutionWeightSchemaSource: ...

    def validate_against_catalog(self, family: PreparedModelFamily, catalog: CapabilityCatalog) -> None: ...
