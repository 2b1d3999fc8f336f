"""The reference's public facade: the one adapter between the conformance harness and the
reference planning layers, and the oracle values the conformance suites compare against.

The harness's reference backend calls only the planning operations below. Each planning
operation takes an opaque *scenario* document (a JSON object defined by the
planning layers) and returns plain values or raises a ``VNextError``. An
operation whose layer has not landed yet raises ``OperationNotSupported``; once
it is implemented, decorate it with ``@implemented`` so ``supported_operations()``
(and therefore the backend's ``describe``) announces it.

Rules every implementation here must keep (they are the harness protocol's rules):

* a contract failure raises the contract's ``VNextError`` variant;
* a malformed scenario document raises a ``VNextError`` too (normally
  ``Serialization("decode scenario", ...)``), never a bare Python exception;
* ``revalidate`` and ``revalidate_family`` decode the wire first
  (``decode_untrusted``: size, parse, typed decode) and only then build the trusted
  dependencies from the scenario, so decode-stage rejections do not depend on the
  scenario; ``compile_plan`` likewise decodes its options before the scenario;
* wire results are the exact bytes the contract's ``to_json`` writes.

The suites read the reference through this module too: the contract's error catalogue, the
canonical JSON helpers, the plan decoder and memory-plan invariants, the policy document
decoder, the estimate behaviours and the runtime oracle of a scenario.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from reference.canonical import canonical_bytes, direct_bytes, fingerprint, loads_strict, sha256_hex
from reference.catalog.compatibility import ProviderCompatibilityRequest
from reference.catalog.untrusted import CATALOG_WIRE_CONTEXT, decode_catalog_wire
from reference.catalog.weight_materializer import MAX_WEIGHT_MATERIALIZERS
from reference.documents.compile_options import COMPILE_OPTIONS_CONTEXT
from reference.documents.policy import policy_from_document
from reference.documents.registry import ESTIMATE_BEHAVIORS
from reference.documents.weights import weight_plan_selection
from reference.errors import (
    InvalidExecutionPlan,
    InvalidIdentity,
    PlanHashMismatch,
    Serialization,
    UnsupportedPlanSchema,
    VNextError,
)
from reference.identity_check import IDENTITY_KINDS
from reference.identity_check import check_identity as _check_identity
from reference.ids import ProgramValueId, ProviderId
from reference.model.prepared import MAX_PREPARED_MODEL_FAMILY_WIRE_BYTES
from reference.plan.decode import UnvalidatedExecutionPlan, decode_untrusted
from reference.plan.memory import MAX_EXECUTION_PLAN_RESOURCE_ROWS, MemoryPlan
from reference.plan.memory import invariants as memory_invariants
from reference.plan.payload import EXECUTION_PLAN_SCHEMA, MAX_EXECUTION_PLAN_WIRE_BYTES
from reference.runtime.executor import OUT_OF_PLAN_PROBES
from reference.runtime.executor import replay_digest as _replay_digest
from reference.runtime.result import ExecuteResult
from reference.runtime.script import REFUSALS as DEVICE_RUNTIME_REFUSALS
from reference.runtime.script import SCRIPT_CONTEXT as DEVICE_RUNTIME_SCRIPT_CONTEXT
from reference.runtime.script import StepAnswer, decode_script, run_script
from reference.scenario.compile import compile_scenario_plan
from reference.scenario.document import MAX_SCENARIO_BYTES, SCENARIO_CONTEXT, ScenarioDocument
from reference.scenario.execute import ScenarioPlan, default_inputs, execute_scenario, oracle_outputs, scenario_plan
from reference.scenario.family import revalidate_scenario_family
from reference.scenario.memo import computed_directly
from reference.scenario.plan import build_scenario_plan, revalidate_scenario_wire
from reference.scenario.sections import SCENARIO_CATALOGS, SCENARIO_FAMILIES, scenario_weights
from reference.versions import ContractVersion

__all__ = [
    "ESTIMATE_BEHAVIORS",
    "IDENTITY_KINDS",
    "MAX_EXECUTION_PLAN_WIRE_BYTES",
    "OUT_OF_PLAN_PROBES",
    "CATALOG_WIRE_CONTEXT",
    "COMPATIBILITY_REQUEST_CONTEXT",
    "COMPILE_OPTIONS_CONTEXT",
    "DEVICE_RUNTIME_REFUSALS",
    "DEVICE_RUNTIME_SCRIPT_CONTEXT",
    "CONTRACT_VERSION_CONTEXT",
    "CONTRACT_CRATE",
    "CONTRACT_MODULE",
    "CONTRACT_VERSION",
    "EXECUTION_PLAN_SCHEMA",
    "IMPLEMENTATION_LANGUAGE",
    "IMPLEMENTATION_NAME",
    "LIMITS",
    "MAX_SCENARIO_BYTES",
    "SCENARIO_CONTEXT",
    "PLANNING_OPERATIONS",
    "ExecuteResult",
    "InvalidExecutionPlan",
    "InvalidIdentity",
    "MemoryPlan",
    "OperationNotSupported",
    "PlanHashMismatch",
    "PreparedFamily",
    "Scenario",
    "ScenarioPlan",
    "StepAnswer",
    "Serialization",
    "UnsupportedPlanSchema",
    "UnvalidatedExecutionPlan",
    "VNextError",
    "WeightPlanSelection",
    "build_plan",
    "canonical_bytes",
    "check_identity",
    "compile_plan",
    "computed_directly",
    "decode_catalog",
    "decode_untrusted",
    "default_inputs",
    "device_runtime_script",
    "direct_bytes",
    "execute",
    "fingerprint",
    "fingerprint_catalog",
    "implemented",
    "parse_scenario",
    "loads_strict",
    "lookup_engine_provider",
    "memory_invariants",
    "oracle_outputs",
    "policy_from_document",
    "prepare_family",
    "provider_compatibility",
    "replay_digest",
    "revalidate",
    "revalidate_family",
    "scenario_plan",
    "select_weight_plan",
    "sha256_hex",
    "supported_operations",
]

Scenario = Mapping[str, Any]
"""A scenario document: an opaque JSON object owned by the planning layers."""

IMPLEMENTATION_NAME: Final = "vnext-conformance-reference"
IMPLEMENTATION_LANGUAGE: Final = "python"
CONTRACT_CRATE: Final = "ferrum-interfaces"
CONTRACT_VERSION: Final = "0.12.2"
CONTRACT_MODULE: Final = "vnext"

#: Contract byte and count limits the reference enforces (01 §3.6, 02 §7.4, 05 §1), read from the modules
#: that enforce them.
LIMITS: Final[Mapping[str, int]] = {
    "max_execution_plan_wire_bytes": MAX_EXECUTION_PLAN_WIRE_BYTES,
    "max_prepared_model_family_wire_bytes": MAX_PREPARED_MODEL_FAMILY_WIRE_BYTES,
    "max_execution_plan_resource_rows": MAX_EXECUTION_PLAN_RESOURCE_ROWS,
    "max_weight_materializers": MAX_WEIGHT_MATERIALIZERS,
}

#: The planning operations, in protocol order (``describe`` is always supported).
PLANNING_OPERATIONS: Final = (
    "prepare_family",
    "fingerprint_catalog",
    "build_plan",
    "revalidate",
    "select_weight_plan",
    "revalidate_family",
    "compile_plan",
    "check_identity",
    # catalog-side operations (decision H-30)
    "decode_catalog",
    "lookup_engine_provider",
    "provider_compatibility",
    "execute",
    "device_runtime_script",
)


class OperationNotSupported(Exception):
    """The backend does not implement ``operation``; suites needing it are *not applicable*."""

    def __init__(self, operation: str) -> None:
        super().__init__(f"operation {operation!r} is not supported by this backend")
        self.operation = operation

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.operation,))


@dataclass(frozen=True, slots=True)
class PreparedFamily:
    """``prepare_family`` result: the prepared family's wire bytes and its fingerprint (02 §7)."""

    wire: bytes
    fingerprint: str


@dataclass(frozen=True, slots=True)
class WeightPlanSelection:
    """``select_weight_plan`` result: the ``ExecutionWeightPlan`` wire bytes and fingerprint (05 §10.7)."""

    wire: bytes
    fingerprint: str


F = TypeVar("F", bound=Callable[..., Any])
_IMPLEMENTED: set[str] = set()


def implemented(fn: F) -> F:
    """Mark a planning operation below as implemented (its name must be a planning operation)."""
    name = fn.__name__
    if name not in PLANNING_OPERATIONS:
        raise ValueError(f"{name!r} is not a planning operation")
    _IMPLEMENTED.add(name)
    return fn


def supported_operations() -> tuple[str, ...]:
    """``describe`` plus every implemented planning operation, sorted."""
    return tuple(sorted({"describe", *_IMPLEMENTED}))


def parse_scenario(data: bytes) -> Any:
    """A scenario document's JSON from its bytes: the size cap, then the strict decoder (``decode scenario``)."""
    return loads_strict(data, context=SCENARIO_CONTEXT, max_bytes=MAX_SCENARIO_BYTES)


# --------------------------------------------------------------------------- operations
# Replace a body and add ``@implemented`` when the layer lands.


@implemented
def prepare_family(scenario: Scenario) -> PreparedFamily:
    """Prepare the scenario's model family (02 §6) and return its wire and fingerprint."""

    family = SCENARIO_FAMILIES(ScenarioDocument.from_wire(scenario))
    return PreparedFamily(wire=family.to_json_bytes(), fingerprint=family.fingerprint())


@implemented
def fingerprint_catalog(scenario: Scenario) -> str:
    """``CapabilityCatalog::fingerprint()`` (direct mode, 01 §3.5) of the scenario's catalog."""

    return SCENARIO_CATALOGS(ScenarioDocument.from_wire(scenario)).fingerprint()


@implemented
def build_plan(scenario: Scenario) -> bytes:
    """``ExecutionPlan::build`` then ``to_json``: the exact plan wire bytes (05 §3, §8)."""

    return build_scenario_plan(scenario).to_json()


@implemented
def revalidate(scenario: Scenario, wire: bytes) -> str:
    """Decode ``wire`` untrusted, then revalidate it against the scenario (05 §9); the plan hash."""

    return revalidate_scenario_wire(scenario, wire).plan_hash.value


@implemented
def select_weight_plan(scenario: Scenario) -> WeightPlanSelection:
    """``WeightMaterializerRegistry::select_exact`` for the scenario's selection (05 §10.4).

    With ``weights: null`` the trusted plan is the identity plan of the family.
    """

    doc = ScenarioDocument.from_wire(scenario)
    family = SCENARIO_FAMILIES(doc)
    _, trusted = scenario_weights(doc, family, SCENARIO_CATALOGS(doc))
    wire, fingerprint = weight_plan_selection(trusted)
    return WeightPlanSelection(wire=wire, fingerprint=fingerprint)


@implemented
def revalidate_family(scenario: Scenario, wire: bytes) -> str:
    """Decode ``wire`` as an untrusted PreparedModelFamily, then revalidate it against the scenario's
    family registry (02 §7.4-§7.5); the rebuilt family's ``fingerprint()``."""

    return revalidate_scenario_family(scenario, wire).fingerprint()


@implemented
def compile_plan(scenario: Scenario, options: Any) -> bytes:
    """``ProgramPlanCompiler::compile`` of the scenario's program with the compile options (05 §7.13),
    then ``to_json``: the exact plan wire bytes."""

    return compile_scenario_plan(scenario, options).plan.to_json()


@implemented
def check_identity(identity_kind: str, value: str) -> None:
    """Build the identity of ``identity_kind`` (an ``InvalidIdentity.kind`` of ``IDENTITY_KINDS``) from
    ``value`` (01 §1.1-§1.3); its ``InvalidIdentity`` when ``value`` is not one."""

    _check_identity(identity_kind, value)


@implemented
def execute(scenario: Scenario, inputs: Mapping[str, bytes], replays: int) -> ExecuteResult:
    """Optional: build the scenario's plan and run it ``replays`` times on the reference numpy runtime.

    ``inputs`` maps every program input id to its bytes. The result holds each
    program output's bytes, the runtime ledger and one output digest per replay
    (harness/PROTOCOL.md §5.2, decision 08-runtime).
    """

    return execute_scenario(scenario, inputs, replays)


# --------------------------------------------------------------------------- device_runtime_script


@implemented
def device_runtime_script(scenario: Scenario, script: Any) -> tuple[StepAnswer, ...]:
    """Optional: run a scripted DeviceRuntime call sequence (03 §13.1, §13.3); each step's value or contract error.

    The script is decoded first (``decode device runtime script``), then the scenario's catalog; the
    runtime steps run on the reference runtime of the catalog's device (harness/PROTOCOL.md §5.9).
    """

    steps = decode_script(script)
    device = SCENARIO_CATALOGS(ScenarioDocument.from_wire(scenario)).device
    return run_script(steps, device, lambda: scenario_plan(scenario).plan.memory)


# --------------------------------------------------------------------------- catalog-side operations (H-30)
# decode_catalog, lookup_engine_provider and provider_compatibility (harness/PROTOCOL.md §5.9-§5.8).

#: The context of a ``required_version`` that is not a ``ContractVersion`` (01 §2).
CONTRACT_VERSION_CONTEXT: Final = "decode contract version"
#: The context of a ``ProviderCompatibilityRequest`` wire's rejections (03 §11.4).
COMPATIBILITY_REQUEST_CONTEXT: Final = "decode provider compatibility request"


@implemented
def decode_catalog(wire: bytes) -> str:
    """``serde_json::from_slice::<CapabilityCatalog>`` of an untrusted wire (03 §11.1): struct fields
    deny unknown and duplicated names, a ``BTreeMap`` keeps the last value of a repeated key (every
    value still decoded), a missing ``weight_materializers`` is the identity-only map, then
    ``from_maps`` steps a-i; every failure is ``serialization`` / ``decode capability catalog``.
    The decoded catalog's ``fingerprint()``."""

    return decode_catalog_wire(bytes(wire)).fingerprint()


@implemented
def lookup_engine_provider(scenario: Scenario, provider_id: str, required_version: Any) -> bytes:
    """``CapabilityCatalog::engine_provider(id, required_version)`` on the scenario's catalog (03 §11.4):
    the engine provider descriptor's struct-order JSON. The id (``ProviderId::new``) and the version
    (context ``decode contract version``) are decoded before the scenario."""

    identity = ProviderId(provider_id)
    version = ContractVersion.from_wire(required_version, context=CONTRACT_VERSION_CONTEXT)
    catalog = SCENARIO_CATALOGS(ScenarioDocument.from_wire(scenario))
    engine = catalog.engine_provider(identity, version)
    return direct_bytes(engine.to_wire(), context="serialize engine provider descriptor")


@implemented
def provider_compatibility(scenario: Scenario, request: Any) -> bytes:
    """``CapabilityCatalog::provider_compatibility(request)`` on the scenario's catalog (03 §11.4): the
    report's struct-order JSON. The request wire is decoded first (``deny_unknown_fields``, major
    version not 0; context ``decode provider compatibility request``), then the scenario."""

    decoded = ProviderCompatibilityRequest.from_wire(request, context=COMPATIBILITY_REQUEST_CONTEXT)
    catalog = SCENARIO_CATALOGS(ScenarioDocument.from_wire(scenario))
    report = catalog.provider_compatibility(decoded)
    return direct_bytes(report.to_wire(), context="serialize provider compatibility report")


# --------------------------------------------------------------------------- oracle values for the suites


def replay_digest(outputs: Sequence[tuple[str, bytes]]) -> str:
    """The digest a runtime reports per replay: SHA-256 over ``id \\0 u64_le(len) bytes`` of every
    program output, in program order."""
    return _replay_digest([(ProgramValueId(value_id), data) for value_id, data in outputs])
