"""``BackendDescription``: what a backend says about itself in ``describe``.

Decoding checks structure only (types, required keys, no unknown keys); whether
the values conform (contract identity, limits, operation names) is what the
``describe`` conformance suite checks, so a wrong value fails a case rather
than the connection.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from reference.errors import Serialization
from reference.versions import PlanSchemaVersion
from reference.wire import WireObject, read_str, read_uint

__all__ = ["BackendDescription", "ContractIdentity", "Implementation"]

_CONTEXT = "decode backend description"


@dataclass(frozen=True, slots=True)
class Implementation:
    """Who implements the backend: free-form name, version and language."""

    name: str
    version: str
    language: str

    def to_wire(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "language": self.language}

    @classmethod
    def from_wire(cls, raw: Any, *, context: str = _CONTEXT, path: str = "$") -> Implementation:
        obj = WireObject(raw, ("name", "version", "language"), type_name="Implementation", context=context, path=path)
        return cls(obj.string("name"), obj.string("version"), obj.string("language"))


@dataclass(frozen=True, slots=True)
class ContractIdentity:
    """The contract the backend implements: crate, semver version, module and plan schema."""

    crate: str
    version: str
    module: str
    plan_schema: PlanSchemaVersion

    def to_wire(self) -> dict[str, Any]:
        return {
            "crate": self.crate,
            "version": self.version,
            "module": self.module,
            "plan_schema": self.plan_schema.to_wire(),
        }

    @classmethod
    def from_wire(cls, raw: Any, *, context: str = _CONTEXT, path: str = "$") -> ContractIdentity:
        obj = WireObject(
            raw, ("crate", "version", "module", "plan_schema"), type_name="ContractIdentity", context=context, path=path
        )
        schema_raw = obj.raw("plan_schema")
        WireObject(
            schema_raw, ("major", "minor"), type_name="PlanSchemaVersion", context=context, path=obj.at("plan_schema")
        )
        parsed = PlanSchemaVersion.from_wire(schema_raw, context=context)
        plan_schema = PlanSchemaVersion(parsed.major, parsed.minor)
        return cls(obj.string("crate"), obj.string("version"), obj.string("module"), plan_schema)


@dataclass(frozen=True, slots=True)
class BackendDescription:
    """The ``describe`` result: implementation, contract, supported operations, limits."""

    implementation: Implementation
    contract: ContractIdentity
    operations: tuple[str, ...]
    limits: Mapping[str, int] = field(default_factory=dict)

    def supports(self, operation: str) -> bool:
        return operation in self.operations

    def to_wire(self) -> dict[str, Any]:
        return {
            "implementation": self.implementation.to_wire(),
            "contract": self.contract.to_wire(),
            "operations": list(self.operations),
            "limits": {name: self.limits[name] for name in sorted(self.limits)},
        }

    @classmethod
    def from_wire(cls, raw: Any, *, context: str = _CONTEXT, path: str = "$") -> BackendDescription:
        obj = WireObject(
            raw,
            ("implementation", "contract", "operations", "limits"),
            type_name="BackendDescription",
            context=context,
            path=path,
        )
        implementation = Implementation.from_wire(
            obj.raw("implementation"), context=context, path=obj.at("implementation")
        )
        contract = ContractIdentity.from_wire(obj.raw("contract"), context=context, path=obj.at("contract"))
        operations = tuple(
            read_str(item, context=context, path=f"{obj.at('operations')}[{i}]")
            for i, item in enumerate(obj.array("operations", max_items=1024))
        )
        limits_raw = obj.raw("limits")
        if not isinstance(limits_raw, dict):
            raise Serialization(context, f"{obj.at('limits')}: expected an object")
        limits = {
            str(name): read_uint(value, bits=64, context=context, path=f"{obj.at('limits')}.{name}")
            for name, value in limits_raw.items()
        }
        return cls(implementation, contract, operations, limits)
