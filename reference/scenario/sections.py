"""Decoding the sections of a scenario into contract objects, each by its own layer."""

from __future__ import annotations

from reference.catalog.catalog import CapabilityCatalog
from reference.catalog.documents import catalog_from_document
from reference.errors import Serialization
from reference.ids import NumericalProfileId, NumericalProfileIdError
from reference.model.declarative import DeclarativeFamily
from reference.model.prepared import PreparedModelFamily
from reference.model.registration import TypedFamilyRegistration
from reference.policy.document import policy_from_document
from reference.policy.runtime_policy import RuntimePolicy
from reference.scenario.document import SCENARIO_CONTEXT, ScenarioDocument

__all__ = ["scenario_catalog", "scenario_family", "scenario_policy"]


def scenario_family(scenario: ScenarioDocument) -> PreparedModelFamily:
    """Define and prepare the scenario's declarative family with its numerical profile (02 §6)."""
    provider = DeclarativeFamily.from_document(scenario.family_document)
    try:
        profile = NumericalProfileId(scenario.numerical_profile)
    except NumericalProfileIdError as exc:
        raise Serialization(SCENARIO_CONTEXT, f"$.family.numerical_profile: {exc}") from None
    return TypedFamilyRegistration(provider).prepare_with_profile(scenario.raw_config, profile)


def scenario_catalog(scenario: ScenarioDocument) -> CapabilityCatalog:
    """``CapabilityCatalog::new`` from the scenario's catalog document (03 §11.2)."""
    return catalog_from_document(scenario.catalog)


def scenario_policy(scenario: ScenarioDocument) -> RuntimePolicy:
    """The runtime policy the scenario's policy document describes (04 §1-§4)."""
    return policy_from_document(scenario.policy)
