"""Decoding the sections of a scenario into contract objects, each by its own layer."""

from __future__ import annotations

from typing import Final

from reference.canonical import JsonValue
from reference.catalog.catalog import CapabilityCatalog
from reference.documents.catalog import catalog_from_document
from reference.documents.family import DeclarativeFamily
from reference.documents.policy import policy_from_document
from reference.documents.weights import WeightSelectionDocument
from reference.errors import Serialization
from reference.ids import NumericalProfileId, NumericalProfileIdError
from reference.model.prepared import PreparedModelFamily
from reference.model.registration import TypedFamilyRegistration
from reference.model.registry import ModelFamilyRegistry, StaticFamilyRegistry
from reference.policy.runtime_policy import RuntimePolicy
from reference.scenario.document import SCENARIO_CONTEXT, ScenarioDocument
from reference.scenario.memo import ScenarioMemo
from reference.weights.trusted import TrustedExecutionWeightPlan

__all__ = [
    "SCENARIO_CATALOGS",
    "SCENARIO_FAMILIES",
    "scenario_catalog",
    "scenario_family",
    "scenario_family_registry",
    "scenario_policy",
    "scenario_weights",
]


def scenario_family(scenario: ScenarioDocument) -> PreparedModelFamily:
    """Define and prepare the scenario's declarative family with its numerical profile (02 §6)."""
    provider = DeclarativeFamily.from_document(scenario.family_document)
    try:
        profile = NumericalProfileId(scenario.numerical_profile)
    except NumericalProfileIdError as exc:
        raise Serialization(  # rule: 01.1.3/numerical_profile_id_decode_error
            SCENARIO_CONTEXT, f"$.family.numerical_profile: {exc}"
        ) from None
    return TypedFamilyRegistration(provider).prepare_with_profile(scenario.raw_config, profile)


def scenario_family_registry(scenario: ScenarioDocument) -> ModelFamilyRegistry:
    """The model-family registry of the scenario (02 §4.4): one registration per listed family document
    (version 2, in order), or exactly one registration of ``family.document`` (version 1)."""
    documents = (scenario.family_document,) if scenario.family_registry is None else scenario.family_registry
    return StaticFamilyRegistry(
        [TypedFamilyRegistration(DeclarativeFamily.from_document(document)) for document in documents]
    )


def scenario_catalog(scenario: ScenarioDocument) -> CapabilityCatalog:
    """``CapabilityCatalog::new`` from the scenario's catalog document (03 §11.2)."""
    return catalog_from_document(scenario.catalog)


def _family_section(doc: ScenarioDocument) -> JsonValue:
    return {"document": dict(doc.family_document), "raw_config": doc.raw_config, "profile": doc.numerical_profile}


#: The prepared family and the catalog of a scenario, each memoized by its own section: scenarios (and
#: operations) that differ only in other sections share them.
SCENARIO_FAMILIES: Final = ScenarioMemo(scenario_family, key=_family_section)
SCENARIO_CATALOGS: Final = ScenarioMemo(scenario_catalog, key=lambda doc: dict(doc.catalog))


def scenario_policy(scenario: ScenarioDocument) -> RuntimePolicy:
    """The runtime policy the scenario's policy document describes (04 §1-§4)."""
    return policy_from_document(scenario.policy)


def scenario_weights(
    scenario: ScenarioDocument, family: PreparedModelFamily, catalog: CapabilityCatalog
) -> tuple[CapabilityCatalog, TrustedExecutionWeightPlan]:
    """The catalog the plan is built against and the trusted execution weight plan (05 §10).

    ``weights: null`` selects the identity materializer against the catalog as
    given; otherwise the selection document builds its registry, augments the
    catalog when it says so, and runs ``select_exact``.
    """
    if scenario.weights is None:
        return catalog, TrustedExecutionWeightPlan.identity(family)
    document = WeightSelectionDocument.from_wire(scenario.weights, context=SCENARIO_CONTEXT, path="$.weights")
    selection = document.select(family, catalog)
    return selection.catalog, selection.trusted
