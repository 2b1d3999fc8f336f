"""``WeightTensorSpec`` and ``WeightSchema``: validate, normalize, fingerprint, queries (spec 02 §8.1, §8.4-8.11).

Decoding is structural only (unknown keys ignored); ``validate(family_id)`` runs
the complete ordered rule list and ``normalize()`` returns the canonical list
order. The fingerprint hashes the declaration-order JSON as given (no implicit
normalization).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from reference.canonical import JsonValue, direct_fingerprint
from reference.errors import InvalidExecutionPlan, InvalidModelConfig, UnknownWeightLayout
from reference.ids import QuantizationFormatId, WeightFormatId, WeightId, WeightLayoutId
from reference.ints import check_bool, check_uints, checked_add, checked_mul, checked_product, rust_trim
from reference.model.element import FLOAT_TYPES, NARROW_INDEX_TYPES, SCALE_TYPES, ElementType
from reference.model.layout_traversal import (
    LayoutBudgetBreach,
    layout_budget_breach,
    layout_budget_failure,
    normalize_layout,
    physical_component_id_set,
)
from reference.model.layout_validation import LayoutValidator
from reference.model.program import ModelProgram
from reference.model.weight_encoding import (
    BlockQuantized,
    Dense,
    DenseAffine,
    PhysicalWeightComponentRef,
    Quantized,
    WeightComponentRole,
    WeightComponentSpec,
    WeightEncoding,
    quantization_format_id,
)
from reference.model.weight_layout import PhysicalWeightLayout, decode_physical_layout
from reference.versions import ContractVersion
from reference.wire import WireObject

__all__ = ["WeightSchema", "WeightTensorSpec", "physical_component_ids"]


@dataclass(frozen=True, slots=True)
class WeightTensorSpec:
    """One logical weight the program sees: shape, logical dtype, physical layout tree."""

    id: WeightId
    dimensions: tuple[int, ...]
    logical_element_type: ElementType
    physical_layout: PhysicalWeightLayout
    required: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "dimensions", check_uints(self.dimensions, 64, "dimensions"))
        check_bool(self.required, "required")

    def logical_elements(self) -> int:
        elements = checked_product(self.dimensions)
        if elements is None:
            raise InvalidExecutionPlan(  # rule: 02.8.4/logical_bytes_overflow
                reason=f"weight `{self.id}` element count overflows u64"
            )
        return elements

    def logical_bytes(self) -> int:
        total = checked_mul(self.logical_elements(), self.logical_element_type.size_bytes)
        if total is None:
            raise InvalidExecutionPlan(  # rule: 02.8.4/logical_bytes_overflow
                reason=f"weight `{self.id}` byte size overflows u64"
            )
        return total

    def to_wire(self) -> JsonValue:
        return {
            "id": self.id.to_wire(),
            "dimensions": list(self.dimensions),
            "logical_element_type": self.logical_element_type.to_wire(),
            "physical_layout": self.physical_layout.to_wire(),
            "required": self.required,
        }

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$") -> WeightTensorSpec:
        f = WireObject(
            raw,
            ("id", "dimensions", "logical_element_type", "physical_layout", "required"),
            lenient=True,
            type_name="WeightTensorSpec",
            context=context,
            path=path,
        )
        return cls(
            f.identity("id", WeightId),
            f.uints("dimensions", 64),
            ElementType.from_wire(f.raw("logical_element_type"), context=context, path=f.at("logical_element_type")),
            f.nested("physical_layout", decode_physical_layout),
            f.boolean("required"),
        )


def physical_component_ids(layout: PhysicalWeightLayout) -> frozenset[WeightId]:
    """Budget pass, then every component id bound in the tree; budget failure is ``InvalidExecutionPlan``."""
    failure = layout_budget_failure(layout)
    if failure is not None:
        raise InvalidExecutionPlan(reason=failure)  # rule: 02.8.5/physical_component_ids_budget_error
    return physical_component_id_set(layout)


def _role_accepts(role: WeightComponentRole, encoding: WeightEncoding) -> bool:
    if role is WeightComponentRole.SCALES:
        return isinstance(encoding, Dense) and encoding.element_type in SCALE_TYPES
    if role in (WeightComponentRole.ZERO_POINTS, WeightComponentRole.INDICES, WeightComponentRole.PERMUTATION):
        return isinstance(encoding, Dense) and encoding.element_type in NARROW_INDEX_TYPES
    if role is WeightComponentRole.PACKED_VALUES:
        return isinstance(encoding, Quantized | BlockQuantized)
    return True


@dataclass(frozen=True, slots=True)
class WeightSchema:
    """Format/layout ids, version, physical components and logical tensors."""

    format_id: WeightFormatId
    layout_id: WeightLayoutId
    version: ContractVersion
    components: tuple[WeightComponentSpec, ...]
    tensors: tuple[WeightTensorSpec, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "components", tuple(self.components))
        object.__setattr__(self, "tensors", tuple(self.tensors))

    # ------------------------------------------------------------------ wire

    def to_wire(self) -> JsonValue:
        return {
            "format_id": self.format_id.to_wire(),
            "layout_id": self.layout_id.to_wire(),
            "version": self.version.to_wire(),
            "components": [c.to_wire() for c in self.components],
            "tensors": [t.to_wire() for t in self.tensors],
        }

    @classmethod
    def from_wire(cls, raw: Any, context: str = "decode weight schema", path: str = "$") -> WeightSchema:
        """Structural decode (unknown keys ignored, no validation)."""
        f = WireObject(
            raw,
            ("format_id", "layout_id", "version", "components", "tensors"),
            lenient=True,
            type_name="WeightSchema",
            context=context,
            path=path,
        )
        return cls(
            f.identity("format_id", WeightFormatId),
            f.identity("layout_id", WeightLayoutId),
            f.version("version"),
            f.items("components", WeightComponentSpec.from_wire),
            f.items("tensors", WeightTensorSpec.from_wire),
        )

    def fingerprint(self) -> str:
        """sha256 of the declaration-order JSON exactly as it is (normalize first for the canonical hash)."""
        return direct_fingerprint(self.to_wire(), context="fingerprint weight schema")

    # ------------------------------------------------------------------ normalize / validate

    def normalize(self) -> WeightSchema:
        """Components by id, each tensor's layout normalized (composite parts by offsets), tensors by id."""
        components = sorted(self.components, key=lambda c: c.id)
        tensors = sorted(
            (replace(t, physical_layout=normalize_layout(t.physical_layout)) for t in self.tensors),
            key=lambda t: t.id,
        )
        return replace(self, components=tuple(components), tensors=tuple(tensors))

    def validate(self, family_id: str) -> None:
        """The complete ordered rule list of spec 02 §8.6 (first failure wins)."""
        if self.version.major == 0:
            raise UnknownWeightLayout(  # rule: 02.8.6/version_major_zero
                family_id=family_id, layout_id=self.layout_id.value
            )
        if not self.components:
            raise UnknownWeightLayout(  # rule: 02.8.6/no_components
                family_id=family_id, layout_id=self.layout_id.value
            )
        if not self.tensors:
            raise UnknownWeightLayout(  # rule: 02.8.6/no_tensors
                family_id=family_id, layout_id=self.layout_id.value
            )
        for tensor in self.tensors:
            self._check_budget(family_id, tensor)
        components = self._validate_components(family_id)
        referenced: set[WeightId] = set()
        tensor_ids: set[WeightId] = set()
        for tensor in self.tensors:
            invalid = f"tensor `{tensor.id}` is duplicated or has empty/zero dimensions"
            if tensor.id in tensor_ids:
                raise InvalidModelConfig(  # rule: 02.8.6/duplicate_tensor_id
                    family_id=family_id, field="weight_schema.tensors", reason=invalid
                )
            if not tensor.dimensions:
                raise InvalidModelConfig(  # rule: 02.8.6/empty_tensor_dimensions
                    family_id=family_id, field="weight_schema.tensors", reason=invalid
                )
            if 0 in tensor.dimensions:
                raise InvalidModelConfig(  # rule: 02.8.6/zero_tensor_dimension
                    family_id=family_id, field="weight_schema.tensors", reason=invalid
                )
            tensor_ids.add(tensor.id)
            validator = LayoutValidator(family_id, tensor.id, components, referenced)
            validator.validate(tensor.physical_layout, tensor.dimensions, tensor.logical_element_type)
        for component in self.components:
            if component.required and component.id not in referenced:
                raise InvalidModelConfig(  # rule: 02.8.6/required_component_unreferenced
                    family_id=family_id,
                    field="weight_schema.components",
                    reason=f"required component `{component.id}` is not referenced by any tensor",
                )

    @staticmethod
    def _check_budget(family_id: str, tensor: WeightTensorSpec) -> None:
        """Step 2 for one tensor: the budget pass of its layout tree (02 §8.5)."""
        breach = layout_budget_breach(tensor.physical_layout)
        if breach is None:
            return
        field = f"weight_schema.tensors.{tensor.id}.physical_layout"
        if breach is LayoutBudgetBreach.DEPTH:
            raise InvalidModelConfig(  # rule: 02.8.6/budget_per_tensor_first, 02.8.5/budget_depth_16
                family_id=family_id, field=field, reason=breach.failure
            )
        if breach is LayoutBudgetBreach.NODES:
            raise InvalidModelConfig(  # rule: 02.8.6/budget_per_tensor_first, 02.8.5/budget_nodes_4096
                family_id=family_id, field=field, reason=breach.failure
            )
        raise InvalidModelConfig(  # rule: 02.8.6/budget_per_tensor_first, 02.8.5/budget_push_test
            family_id=family_id, field=field, reason=breach.failure
        )

    def _validate_components(self, family_id: str) -> dict[WeightId, WeightComponentSpec]:
        def fail(field: str, reason: str) -> InvalidModelConfig:
            return InvalidModelConfig(family_id=family_id, field=field, reason=reason)

        by_id: dict[WeightId, WeightComponentSpec] = {}
        names: set[str] = set()
        abis: dict[QuantizationFormatId, WeightEncoding] = {}
        for component in self.components:
            shape = f"component `{component.id}` is duplicated or empty"
            if component.id in by_id:
                raise fail("weight_schema.components", shape)  # rule: 02.8.6/duplicate_component_id
            if not component.external_names:
                raise fail("weight_schema.components", shape)  # rule: 02.8.6/empty_external_names
            if not component.dimensions:
                raise fail("weight_schema.components", shape)  # rule: 02.8.6/empty_component_dimensions
            for name in component.external_names:
                naming = f"external name {name!r} is blank or duplicated"
                if not rust_trim(name):
                    raise fail("weight_schema.components", naming)  # rule: 02.8.6/blank_external_name
                if name in names:
                    raise fail("weight_schema.components", naming)  # rule: 02.8.6/duplicate_external_name
                names.add(name)
            if 0 in component.dimensions:
                raise fail(  # rule: 02.8.6/zero_component_dimension
                    "weight_schema.components", f"component `{component.id}` has a zero dimension"
                )
            encoding = component.encoding
            if isinstance(encoding, Quantized | BlockQuantized):
                encoding.spec.validate()
            format_id = quantization_format_id(encoding)
            if format_id is not None:
                known = abis.setdefault(format_id, encoding)
                if known != encoding:
                    raise fail(  # rule: 02.8.6/conflicting_quantization_abi
                        "weight_schema.components.encoding",
                        f"quantization format `{format_id}` has conflicting physical ABIs",
                    )
            if isinstance(encoding, DenseAffine):
                affine = "dense_affine needs role values and a float type"
                if component.role is not WeightComponentRole.VALUES:
                    raise fail("weight_schema.components.encoding", affine)  # rule: 02.8.6/dense_affine_role_values
                if encoding.element_type not in FLOAT_TYPES:
                    raise fail("weight_schema.components.encoding", affine)  # rule: 02.8.6/dense_affine_float_type
            try:
                component.physical_bytes()
            except InvalidExecutionPlan as exc:
                raise fail(  # rule: 02.8.6/component_bytes_overflow
                    "weight_schema.components.dimensions", exc.reason
                ) from None
            if not _role_accepts(component.role, encoding):
                refused = f"component `{component.id}` role {component.role.value} does not accept its encoding"
                role = component.role
                if role is WeightComponentRole.SCALES:
                    raise fail("weight_schema.components.encoding", refused)  # rule: 02.8.6/role_scales_encoding
                if role is WeightComponentRole.ZERO_POINTS:
                    raise fail("weight_schema.components.encoding", refused)  # rule: 02.8.6/role_zero_points_encoding
                if role is WeightComponentRole.INDICES:
                    raise fail("weight_schema.components.encoding", refused)  # rule: 02.8.6/role_indices_encoding
                if role is WeightComponentRole.PERMUTATION:
                    raise fail("weight_schema.components.encoding", refused)  # rule: 02.8.6/role_permutation_encoding
                raise fail(  # rule: 02.8.6/role_packed_values_encoding
                    "weight_schema.components.encoding", refused
                )
            by_id[component.id] = component
        return by_id

    # ------------------------------------------------------------------ queries

    def component(self, component_id: WeightId) -> WeightComponentSpec | None:
        return next((c for c in self.components if c.id == component_id), None)

    def tensor(self, weight_id: WeightId) -> WeightTensorSpec | None:
        """The first tensor with that id, or None."""
        return next((t for t in self.tensors if t.id == weight_id), None)

    def quantization_formats(self) -> tuple[QuantizationFormatId, ...]:
        """Sorted set of quantization format ids of every quantized/block-quantized component."""
        found = {fid for fid in (quantization_format_id(c.encoding) for c in self.components) if fid is not None}
        return tuple(sorted(found))

    def physical_component_refs(self, weight_id: WeightId) -> tuple[WeightComponentSpec, ...]:
        """The tensor's components in schema list order; unknown weight or mismatch is ``InvalidExecutionPlan``."""
        tensor = self.tensor(weight_id)
        if tensor is None:
            raise InvalidExecutionPlan(  # rule: 02.8.9/component_refs_unknown_weight
                reason=f"unknown logical weight `{weight_id}`"
            )
        ids = physical_component_ids(tensor.physical_layout)
        found = tuple(c for c in self.components if c.id in ids)
        if len(found) != len(ids):
            raise InvalidExecutionPlan(  # rule: 02.8.9/component_refs_unknown_weight
                reason=f"logical weight `{weight_id}` references unknown components"
            )
        return found

    def physical_bytes(self, weight_id: WeightId) -> int:
        total = 0
        for component in self.physical_component_refs(weight_id):
            next_total = checked_add(total, component.physical_bytes())
            if next_total is None:
                raise InvalidExecutionPlan(  # rule: 02.8.9/component_refs_unknown_weight
                    reason=f"logical weight `{weight_id}` byte size overflows u64"
                )
            total = next_total
        return total

    def physical_resource_requirements(self, weight_id: WeightId) -> tuple[PhysicalWeightComponentRef, ...]:
        return tuple(PhysicalWeightComponentRef.of(c) for c in self.physical_component_refs(weight_id))

    def validate_program_references(self, family_id: str, program: ModelProgram) -> None:
        """Program weight references vs tensors (spec 02 §8.11); errors are ``InvalidModelConfig``."""
        if program.family_id.value != family_id:
            raise InvalidModelConfig(  # rule: 02.8.11/refs_program_family
                family_id=family_id, field="program.family_id", reason="program family differs"
            )
        tensors: dict[WeightId, WeightTensorSpec] = {}
        for candidate in self.tensors:
            tensors.setdefault(candidate.id, candidate)
        referenced = {w.weight_id for w in program.weights}
        unknown = sorted(w for w in referenced if w not in tensors)
        if unknown:
            raise InvalidModelConfig(  # rule: 02.8.11/refs_unknown_tensor
                family_id=family_id, field="program.weights", reason=f"program references unknown weight `{unknown[0]}`"
            )
        for tensor in self.tensors:
            if tensor.required and tensor.id not in referenced:
                raise InvalidModelConfig(  # rule: 02.8.11/refs_required_unreferenced
                    family_id=family_id,
                    field="program.weights",
                    reason=f"required weight `{tensor.id}` is not referenced by the program",
                )
        for reference in program.weights:
            tensor = tensors[reference.weight_id]
            if (
                reference.tensor.dimensions != tensor.dimensions
                or reference.tensor.element_type is not tensor.logical_element_type
            ):
                raise InvalidModelConfig(  # rule: 02.8.11/refs_shape_dtype
                    family_id=family_id,
                    field=f"program.weights.{reference.weight_id}.tensor",
                    reason="program weight tensor differs from the schema tensor",
                )
