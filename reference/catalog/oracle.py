"""``OracleSpec`` (spec 03 §5.1): how an operation's outputs are judged.

``operation_defined`` | ``exact`` | ``{"absolute_tolerance": {"tolerance": R}}`` |
``{"relative_tolerance": {"tolerance": R}}`` |
``{"reference_operation": {"operation_id", "version"}}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reference.catalog._common import read_struct_variant, read_unit_or_tagged
from reference.errors import Serialization
from reference.ids import OperationId
from reference.model.semantic_value import CanonicalRational
from reference.versions import ContractVersion

__all__ = ["ORACLE_KINDS", "OracleSpec"]

ORACLE_KINDS = ("operation_defined", "exact", "absolute_tolerance", "relative_tolerance", "reference_operation")


@dataclass(frozen=True, slots=True)
class OracleSpec:
    """One oracle. ``tolerance`` for the tolerance variants; ``operation_id``/``version`` for a reference."""

    kind: str
    tolerance: CanonicalRational | None = None
    operation_id: OperationId | None = None
    version: ContractVersion | None = None

    def __post_init__(self) -> None:
        if self.kind not in ORACLE_KINDS:
            raise TypeError(f"unknown oracle {self.kind!r}")
        if (self.tolerance is not None) != self.is_tolerance:
            raise TypeError("tolerance is required exactly for tolerance oracles")
        if ((self.operation_id is not None) or (self.version is not None)) != self.is_reference or (
            self.is_reference and (self.operation_id is None or self.version is None)
        ):
            raise TypeError("operation_id and version are required exactly for reference oracles")

    @classmethod
    def operation_defined(cls) -> OracleSpec:
        return cls("operation_defined")

    @classmethod
    def exact(cls) -> OracleSpec:
        return cls("exact")

    @classmethod
    def absolute_tolerance(cls, tolerance: CanonicalRational) -> OracleSpec:
        return cls("absolute_tolerance", tolerance=tolerance)

    @classmethod
    def relative_tolerance(cls, tolerance: CanonicalRational) -> OracleSpec:
        return cls("relative_tolerance", tolerance=tolerance)

    @classmethod
    def reference_operation(cls, operation_id: OperationId, version: ContractVersion) -> OracleSpec:
        return cls("reference_operation", operation_id=operation_id, version=version)

    @property
    def is_tolerance(self) -> bool:
        return self.kind in ("absolute_tolerance", "relative_tolerance")

    @property
    def is_reference(self) -> bool:
        return self.kind == "reference_operation"

    def to_wire(self) -> Any:
        if self.tolerance is not None:
            return {self.kind: {"tolerance": self.tolerance.to_wire()}}
        if self.operation_id is not None and self.version is not None:
            return {self.kind: {"operation_id": self.operation_id.value, "version": self.version.to_wire()}}
        return self.kind

    @classmethod
    def from_wire(cls, raw: Any, *, context: str = "decode oracle spec", path: str = "$") -> OracleSpec:
        tag, content = read_unit_or_tagged(raw, ORACLE_KINDS, context=context, path=path)
        at = f"{path}.{tag}"
        if tag in ("operation_defined", "exact"):
            if content is not None:
                raise Serialization(  # rule: 01.5/enum_variant_shape
                    context, f"{path}: unit variant `{tag}` takes no content"
                )
            return cls.operation_defined() if tag == "operation_defined" else cls.exact()
        if content is None:
            raise Serialization(context, f"{path}: variant `{tag}` needs content")  # rule: 01.5/enum_variant_shape
        if tag == "reference_operation":
            obj = read_struct_variant(content, ("operation_id", "version"), variant=tag, context=context, path=path)
            return cls.reference_operation(
                OperationId.from_wire(obj["operation_id"], context=context),
                ContractVersion.from_wire(obj["version"], context=context),
            )
        obj = read_struct_variant(content, ("tolerance",), variant=tag, context=context, path=path)
        return cls(
            tag,
            # rule when 01.5/validating_wire_constructor_errors_are_serialization: 03.4/rational_zero_denominator
            tolerance=CanonicalRational.from_wire(obj["tolerance"], context=context, path=f"{at}.tolerance"),
        )
