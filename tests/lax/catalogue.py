"""The lax backends: one per rule family, each the reference with that family's checks disabled.

Every entry names the rule family it breaks, the patches that break it and the conformance suite whose
``ci`` run must fail against it (``select``: a pytest ``-k`` expression narrowing that suite to the
cases that catch it, for speed). ``python:tests.lax.catalogue:<name>`` serves one
(``vnext-conformance serve --backend ...``).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from reference.errors import AmbiguousModelFamilyRegistration, Serialization
from tests.lax.backend import LaxReference, Patch

__all__ = ["LAX", "Lax"]


@dataclass(frozen=True)
class Lax:
    """A lax backend: the ``family`` of checks it disables, how, and the suite selection that kills it."""

    family: str
    patches: tuple[Patch, ...]
    suite: str
    select: str | None = None

    @property
    def selection(self) -> str | None:
        """The ``-k`` expression the run uses: ``select``, else the suite's default selection."""
        return self.select if self.select is not None else SELECTIONS.get(self.suite)


#: Default case selections (pytest ``-k``) of the suites whose whole ``ci`` run is long.
SELECTIONS: dict[str, str] = {
    "forged_plans": "kill_matrix",
}


def _skip(original: Any) -> Callable[..., None]:
    """A check that accepts everything."""

    def accept(*args: Any, **kwargs: Any) -> None:
        return None

    return accept


def _true(original: Any) -> Callable[..., bool]:
    def equal(*args: Any, **kwargs: Any) -> bool:
        return True

    return equal


def _quadrupled(original: Any) -> Any:
    return original * 4


def _fields(**changes: Any) -> Callable[[Any], Callable[..., Any]]:
    """An error class whose instances carry ``changes`` in place of the fields they were built with."""

    def replacer(error_class: Any) -> Callable[..., Any]:
        def build(*args: Any, **kwargs: Any) -> Any:
            return error_class(*args, **{**kwargs, **changes})

        return build

    return replacer


def _rebuilt(original: Any) -> Callable[[Any, Any], Any]:
    """The rebuild comparison that trusts the rebuild: any decoded wire revalidates to the rebuilt plan."""

    def compare(unvalidated: Any, rebuilt: Any) -> Any:
        return rebuilt

    return compare


def _without(key: str) -> Callable[[Any], Callable[..., Any]]:
    """A fingerprint/hash function that leaves ``key`` out of the top-level object it digests."""

    def replacer(original: Any) -> Callable[..., Any]:
        def digest(value: Any, *args: Any, **kwargs: Any) -> Any:
            return original({k: v for k, v in value.items() if k != key}, *args, **kwargs)

        return digest

    return replacer


def _fingerprint_trusted(original: Any) -> Any:
    """``ResolvedRuntimePolicy.from_wire`` that accepts any carried fingerprint (it recomputes and uses its own)."""
    decode = original.__func__

    def from_wire(cls: Any, /, raw: Any, **kwargs: Any) -> Any:
        try:
            return decode(cls, raw, **kwargs)
        except Serialization as exc:
            found = re.search(r"fingerprint mismatch: expected ([0-9a-f]{64})", str(exc))
            if found is None or not isinstance(raw, dict):
                raise
            return decode(cls, {**raw, "fingerprint": found.group(1)}, **kwargs)

    return classmethod(from_wire)


def _first_match(original: Any) -> Callable[..., Any]:
    """A registry lookup that answers the first of several matching registrations instead of refusing."""

    def resolve(registry: Any, identity: Any) -> Any:
        try:
            return original(registry, identity)
        except AmbiguousModelFamilyRegistration:
            for registration in registry.registrations():
                if registration.family_id() == identity or identity in registration.external_metadata_ids():
                    return registration
            raise

    return resolve


def _swapped(error_class: Any) -> Callable[..., Any]:
    """``PlanHashMismatch`` with ``expected`` and ``actual`` exchanged."""

    def build(*, expected: str, actual: str) -> Any:
        return error_class(expected=actual, actual=expected)

    return build


def _context(context: str) -> Callable[[Any], Callable[..., Any]]:
    """``Serialization`` errors that name another decode context."""

    def replacer(error_class: Any) -> Callable[..., Any]:
        def build(_context: str, message_text: str) -> Any:
            return error_class(context, message_text)

        return build

    return replacer


def _first_choice_inference(original: Any) -> Callable[..., Any]:
    """Output inference that guesses: the first dtype, the range minimum, the first layout."""
    from reference.catalog.tensor_contract import ExactDimension, RangeDimension

    def infer(contract: Any, symbols: Any, node_id: Any) -> Any:
        dimensions = tuple(
            ExactDimension(d.minimum) if isinstance(d, RangeDimension) else d for d in contract.dimensions
        )
        narrowed = dataclasses.replace(
            contract,
            dimensions=dimensions,
            element_types=frozenset({min(contract.element_types, key=lambda e: e.value)}),
            layouts=contract.layouts[:1],
        )
        return original(narrowed, symbols, node_id)

    return infer


def _unchecked_payloads(original: Any) -> Callable[..., Any]:
    """Materialize a group and return whatever the materializer gives (no count or field checks)."""

    def materialize(self: Any, family: Any, source: Any, execution_components: Any) -> Any:
        planned_by_id = {component.id: component for component in self._plan.schema().components}
        planned = [planned_by_id[requested.id] for requested in execution_components]
        family_components = {component.id: component for component in family.weight_schema.components}
        sources = [family_components[i] for i in self._plan.component_sources()[planned[0].id]]
        return list(self._materializer.materialize_components(source, sources, planned))

    return materialize


def _lenient_decoder(original: Any) -> Any:
    """A JSON reader that keeps the last of repeated keys, reads ``-0`` as 0 and takes NaN and Infinity."""
    return json.JSONDecoder(parse_int=int)


def skip(*targets: str) -> tuple[Patch, ...]:
    return tuple(Patch(target, _skip) for target in targets)


def local(target: str, replacer: Callable[[Any], Any]) -> Patch:
    """Replace only at ``target`` (a name one module looks up), not wherever the same object is bound."""
    return Patch(target, replacer, everywhere=False)


def _requirement_may_be_empty(original: Any) -> Callable[..., None]:
    """``DynamicStorageRequirement.__init__`` accepting an empty profile list."""

    def init(self: Any, profiles: Any) -> None:
        object.__setattr__(self, "accepted_profiles", tuple(sorted(set(profiles))))

    return init


LAX: dict[str, Lax] = {
    # fingerprints and hashes
    "catalog_fingerprint_ignores_engines": Lax(
        "01 §3.5 catalog fingerprint material",
        (local("reference.catalog.catalog:direct_fingerprint", _without("engine_providers")),),
        "family_catalog",
        select="catalog_fingerprint",
    ),
    "family_fingerprint_ignores_metadata": Lax(
        "02 §6 prepared family fingerprint material",
        (local("reference.model.prepared:direct_fingerprint", _without("metadata")),),
        "family_catalog",
        select="prepared_family_equals_reference or test_family_fingerprint_vector",
    ),
    "weight_plan_fingerprint_ignores_sources": Lax(
        "05 §10 execution weight plan fingerprint material",
        (local("reference.weights.plan:fingerprint", _without("component_sources")),),
        "weights",
    ),
    "plan_hash_ignores_memory": Lax(
        "05 §8 plan hash material",
        (Patch("reference.plan.payload:plan_hash_of_material", _without("memory")),),
        "hash_stability",
        select="golden_vector and plan_fixture_0",
    ),
    # error fields: the kind right, a pinned field wrong
    "plan_hash_mismatch_fields_swapped": Lax(
        "05 §9.5 PlanHashMismatch expected/actual",
        (local("reference.plan.revalidate:PlanHashMismatch", _swapped),),
        "forged_plans",
    ),
    "unsupported_plan_schema_fields_wrong": Lax(
        "05 §8 UnsupportedPlanSchema expected version",
        (local("reference.plan.decode:UnsupportedPlanSchema", _fields(expected_minor=0)),),
        "forged_plans",
    ),
    "family_decode_context_wrong": Lax(
        "02 §7.4 Serialization context of the family wire decode",
        (local("reference.model.prepared:Serialization", _context("decode prepared family")),),
        "family_revalidation",
    ),
    # 01 identities and catalog
    "identity_grammar_unchecked": Lax(
        "01 §1.1 identity grammar", skip("reference.ids:Identity._validate"), "identities"
    ),
    "identity_single_range_unchecked": Lax(
        "01 §1.2 single-range identities (attributes, oracles)",
        skip("reference.ids:_SingleRangeIdentity._validate"),
        "identities",
    ),
    "family_registry_ambiguity_ignored": Lax(
        "02 §4.4 ambiguous internal family registration",
        (Patch("reference.model.registry:resolve", _first_match),),
        "family_revalidation",
    ),
    "family_registry_external_ambiguity_ignored": Lax(
        "02 §4.4 ambiguous external metadata registration",
        (Patch("reference.model.registry:resolve_external", _first_match),),
        "family_revalidation",
    ),
    "family_registry_ambiguity_count_wrong": Lax(
        "01 §6 AmbiguousModelFamilyRegistration matches",
        (local("reference.model.registry:AmbiguousModelFamilyRegistration", _fields(matches=1)),),
        "family_revalidation",
    ),
    "family_registry_unknown_id_wrong": Lax(
        "01 §6 UnknownModelFamily family_id",
        (local("reference.model.registry:UnknownModelFamily", _fields(family_id="family.other")),),
        "family_revalidation",
    ),
    "catalog_device_unchecked": Lax(
        "01 §3 device descriptor",
        skip("reference.catalog.device:DeviceDescriptor.validate"),
        "rejection_matrix",
        select="catalog_rejection_matrix",
    ),
    "catalog_operation_unchecked": Lax(
        "01 §3 operation descriptor",
        skip("reference.catalog.operation:OperationDescriptor.validate"),
        "rejection_matrix",
        select="catalog_rejection_matrix",
    ),
    "catalog_oracles_unchecked": Lax(
        "01 §3 reference oracle graph",
        skip("reference.catalog.oracle_graph:validate_reference_oracles"),
        "rejection_matrix",
        select="catalog_rejection_matrix",
    ),
    "catalog_materializer_unchecked": Lax(
        "05 §10 weight materializer descriptor",
        skip(
            "reference.catalog.weight_materializer:WeightMaterializerDescriptor.validate_structure",
            "reference.catalog.weight_materializer:validate_weight_materializer_descriptors",
        ),
        "rejection_matrix",
        select="catalog_rejection_matrix",
    ),
    # 02 model family
    "family_program_unchecked": Lax(
        "02 §4 model program",
        skip("reference.model.program:ModelProgram._validate"),
        "rejection_matrix",
        select="family_rejection_matrix",
    ),
    "family_weight_schema_unchecked": Lax(
        "02 §5 weight schema",
        skip(
            "reference.model.weight_schema:WeightSchema.validate",
            "reference.model.weight_schema:WeightSchema.validate_program_references",
        ),
        "rejection_matrix",
        select="family_rejection_matrix",
    ),
    "family_metadata_unchecked": Lax(
        "02 §3 semantic metadata",
        skip("reference.model.metadata:validate_metadata"),
        "rejection_matrix",
        select="family_rejection_matrix",
    ),
    "family_numerical_unchecked": Lax(
        "02 §4 numerical execution profile",
        skip(
            "reference.model.numerical:NumericalExecutionProfile.validate",
            "reference.model.numerical:NumericalExecutionProfile.validate_program",
        ),
        "rejection_matrix",
        select="family_rejection_matrix",
    ),
    "family_config_leftovers_accepted": Lax(
        "02 §6 raw config consumed", skip("reference.model.config:validate_raw_config_consumed"), "family_catalog"
    ),
    "family_revalidation_accepts_drift": Lax(
        "02 §7.5 rebuilt equality", (local("reference.model.revalidate:json_equal", _true),), "family_revalidation"
    ),
    "family_decode_not_canonical": Lax(
        "02 §7.4 re-serialisation equality",
        (local("reference.model.prepared:json_equal", _true),),
        "family_revalidation",
    ),
    "family_wire_size_uncapped": Lax(
        "02 §7.4 wire size cap",
        (local("reference.model.prepared:MAX_PREPARED_MODEL_FAMILY_WIRE_BYTES", _quadrupled),),
        "family_revalidation",
    ),
    "family_revalidation_error_field_wrong": Lax(
        "02 §7.5 InvalidModelConfig field of a revalidation failure",
        (local("reference.model.revalidate:InvalidModelConfig", _fields(field="program")),),
        "family_revalidation",
    ),
    # 03 providers and resolution
    "unsupported_operation_device_wrong": Lax(
        "03 UnsupportedOperation device_id",
        (local("reference.catalog.compatibility:UnsupportedOperation", _fields(device_id="device.other")),),
        "rejection_matrix",
        select="resolution_rejection_matrix and capability_absent",
    ),
    "resolution_contract_unchecked": Lax(
        "03 provider resource contract",
        skip(
            "reference.resolution.node_resolution:validate_resource_contract",
            "reference.resolution.node_resolution:_check_contract",
        ),
        "estimators",
    ),
    # 04 policy
    "policy_rows_unchecked": Lax(
        "04 §3.2 ResolvedRuntimePolicy::new rows",
        skip("reference.policy.resolved:_check_fields"),
        "rejection_matrix",
        select="policy_rejection_matrix",
    ),
    "policy_fingerprint_ignored": Lax(
        "04 §3 policy wire fingerprint recomputation",
        (Patch("reference.policy.resolved:ResolvedRuntimePolicy.from_wire", _fingerprint_trusted),),
        "rejection_matrix",
        select="policy_rejection_matrix and fingerprint",
    ),
    # 05 plan
    "plan_rebuild_not_compared": Lax(
        "05 §9.5 semantic rebuild equality",
        (Patch("reference.plan.revalidate:compare_with_rebuild", _rebuilt),),
        "forged_plans",
    ),
    "plan_schema_unchecked": Lax(
        "05 §8 plan schema version", skip("reference.plan.decode:check_plan_schema"), "forged_plans"
    ),
    "weight_plan_unchecked": Lax(
        "05 §10 execution weight plan",
        skip(
            "reference.weights.plan:ExecutionWeightPlan.validate_structure",
            "reference.weights.plan:ExecutionWeightPlan.validate_against_family",
        ),
        "weights",
    ),
    "weight_binding_unchecked": Lax(
        "05 resolved weight binding",
        skip(
            "reference.resolution.weight_binding:ResolvedWeightBinding.validate_logical_contract",
            "reference.resolution.binding:validate_resolved_weight_storage",
        ),
        "rejection_matrix",
        select="resolution_rejection_matrix",
    ),
    # document mutations: decoding and constructor checks of the scenario's sections
    "tensor_contract_unchecked": Lax(
        "03 §3.2 tensor contract validation",
        skip("reference.catalog.tensor_contract:TensorContract.validate"),
        "document_mutations",
        select="test_document_mutation and catalog",
    ),
    "resolved_tensor_unchecked": Lax(
        "03 resolved tensor spec validation",
        skip("reference.model.tensor:validate_resolved_tensor"),
        "document_mutations",
        select="test_document_mutation and resolutions",
    ),
    "storage_requirement_may_be_empty": Lax(
        "03 §6.1 dynamic storage requirement construction",
        (Patch("reference.catalog.storage:DynamicStorageRequirement.__init__", _requirement_may_be_empty),),
        "document_mutations",
        select="test_document_mutation and accepted_profiles",
    ),
    # compiler, reusable program policies and materialized weights (05 §7.13, 04 §2.4, 05 §10.6)
    "compiler_output_inference_guesses": Lax(
        "05 §7.13 step 1 unambiguous output inference",
        (local("reference.plan.compiler:_infer", _first_choice_inference),),
        "compile_plan",
        select="compiler_rule_cells",
    ),
    "reusable_program_policy_unchecked": Lax(
        "04 §2.4 reusable program policy validation",
        skip("reference.policy.reusable:ReusableExecutionProgramPolicy.validate"),
        "compile_plan",
        select="reusable_policy_cells",
    ),
    "materialized_payloads_unchecked": Lax(
        "05 §10.6 materialized payload count and fields",
        (Patch("reference.weights.trusted:TrustedExecutionWeightPlan.materialize_components", _unchecked_payloads),),
        "weights",
        select="faulty_materializer",
    ),
    # 05 plan wire invariants checked while decoding (plan_wire_matrix)
    "memory_plan_unchecked": Lax(
        "05 §7.11 MemoryPlan validation on decode",
        skip("reference.plan.memory.plan:MemoryPlan.validate"),
        "plan_wire_matrix",
        select="invariant_matrix and memory_",
    ),
    "dynamic_pool_local_rules_unchecked": Lax(
        "05 §7.8 dynamic pool local rules on decode",
        skip("reference.plan.memory.pool:DynamicBackingPoolSpec.validate_local"),
        "plan_wire_matrix",
        select="invariant_matrix and pool_",
    ),
    "reusable_memory_plan_unchecked": Lax(
        "05 §7.14 reusable execution memory plan on decode",
        skip("reference.plan.memory.reusable:ReusableExecutionMemoryPlan.validate_local"),
        "plan_wire_matrix",
        select="invariant_matrix and reusable_",
    ),
    "checkpoint_growth_unchecked": Lax(
        "05 §7.12 checkpoint growth against the capacity policy on decode",
        (local("reference.plan.memory.pools:validate_checkpoint_pool_ceiling", _skip),),
        "plan_wire_matrix",
        select="invariant_matrix and growth",
    ),
    "json_reader_lenient": Lax(
        "01 §3.3 strict JSON reader (repeated keys, -0, NaN)",
        (Patch("reference.canonical:_DECODER", _lenient_decoder),),
        "plan_wire_matrix",
        select="invariant_matrix and (strict_ or header_duplicate)",
    ),
    "plan_round_trip_unchecked": Lax(
        "01 §5 rule 7 canonical round trip of the plan wire",
        (Patch("reference.plan.decode:_round_trip_differs", _skip),),
        "plan_wire_matrix",
        select="invariant_matrix and (extra_key or unknown_key or omitted or zero_checkpoint or capabilities)",
    ),
}


def __getattr__(name: str) -> Callable[[], LaxReference]:
    """``python:tests.lax.catalogue:<name>``: the factory of the lax backend ``name``."""
    if name not in LAX:
        raise AttributeError(name)
    entry = LAX[name]
    return lambda: LaxReference(name, entry.patches)
