"""The scenario document (schema ``schemas/scenario.json``).

Wire form of version 1 (every key required; unknown keys refused)::

    {"scenario_version": 1,
     "name": <short label, informational>,
     "family": {"document": <family document>, "raw_config": <JSON>, "numerical_profile": <id>},
     "catalog": <catalog document>,
     "policy": <policy document>,
     "registry": <planning registry document>,
     "resolutions": [{"node_id": <id>, "values": [<ResolvedValueBinding>...],
                      "required_capabilities": [<id>...], "preferred_provider": <id>|null}...],
     "weights": null | <weight materializer selection document>,
     "completion_retention": [<program value id>...]}

Version 2 is version 1 plus two required keys (decision H-20)::

     "family_registry": [<family document>...],
     "resolution_registries": [<u32>...]

``family_registry`` lists the registrations of the model-family registry that revalidates
prepared families (02 §4.4, §7.5), in order; in version 1 that registry holds exactly one
registration, of ``family.document``. ``resolution_registries`` gives, per resolution, the
planning-registry instance that resolves it: every instance is built from ``registry``, and
distinct instances are distinct registry authorities (05 §3 step 4); in version 1 every
resolution uses instance 0.

Decoding checks only this outer shape; each section is decoded by its own
layer when a planning step needs it, so a section's contract errors keep their
kinds and the section order of the rebuild is the contract's, not ours.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from reference.canonical import JsonValue, canonical_bytes, loads_strict
from reference.errors import Serialization
from reference.wire import WireObject

__all__ = [
    "MAX_SCENARIO_BYTES",
    "REGISTRIES_SCENARIO_VERSION",
    "SCENARIO_CONTEXT",
    "SCENARIO_VERSION",
    "SCENARIO_VERSIONS",
    "ScenarioDocument",
]

SCENARIO_VERSION: Final = 1
#: The version that adds ``family_registry`` and ``resolution_registries``.
REGISTRIES_SCENARIO_VERSION: Final = 2
SCENARIO_VERSIONS: Final = (SCENARIO_VERSION, REGISTRIES_SCENARIO_VERSION)
SCENARIO_CONTEXT: Final = "decode scenario"
MAX_SCENARIO_BYTES: Final = 16 * 1024 * 1024
_FIELDS: Final = (
    "scenario_version",
    "name",
    "family",
    "catalog",
    "policy",
    "registry",
    "resolutions",
    "weights",
    "completion_retention",
)
_REGISTRIES_FIELDS: Final = (*_FIELDS, "family_registry", "resolution_registries")
_FAMILY_FIELDS: Final = ("document", "raw_config", "numerical_profile")


@dataclass(frozen=True, slots=True)
class ScenarioDocument:
    """A decoded scenario: the outer shape checked, sections kept as JSON."""

    name: str
    family_document: Mapping[str, Any]
    raw_config: JsonValue
    numerical_profile: str
    catalog: Mapping[str, Any]
    policy: Mapping[str, Any]
    registry: Mapping[str, Any]
    resolutions: tuple[Mapping[str, Any], ...]
    weights: Mapping[str, Any] | None
    completion_retention: tuple[str, ...]
    version: int = SCENARIO_VERSION
    family_registry: tuple[Mapping[str, Any], ...] | None = None
    """Version 2: the family documents of the registrations; ``None`` in version 1."""
    resolution_registries: tuple[int, ...] | None = None
    """Version 2: the planning-registry instance of each resolution; ``None`` in version 1."""

    @classmethod
    def from_wire(cls, raw: Any, *, context: str = SCENARIO_CONTEXT) -> ScenarioDocument:
        """Check the outer shape; any failure is ``Serialization``."""
        declared = raw.get("scenario_version") if isinstance(raw, dict) else None
        registries = type(declared) is int and declared == REGISTRIES_SCENARIO_VERSION
        fields = _REGISTRIES_FIELDS if registries else _FIELDS
        obj = WireObject(raw, fields, type_name="ScenarioDocument", context=context)
        version = obj.u32("scenario_version")
        if version not in SCENARIO_VERSIONS:
            raise Serialization(  # rule: 01.5/document_format_refused
                context, f"$.scenario_version: unsupported scenario version {version}"
            )
        family = WireObject(
            obj.raw("family"), _FAMILY_FIELDS, type_name="ScenarioFamily", context=context, path="$.family"
        )
        resolutions = obj.array("resolutions")
        for i, item in enumerate(resolutions):
            if not isinstance(item, dict):
                raise Serialization(  # rule: 01.5/struct_wrong_json_type
                    context, f"$.resolutions[{i}]: expected a JSON object"
                )
        retention = [
            _string(item, context, f"$.completion_retention[{i}]")
            for i, item in enumerate(obj.array("completion_retention"))
        ]
        weights = obj.raw("weights")
        if weights is not None and not isinstance(weights, dict):
            raise Serialization(  # rule: 01.5/struct_wrong_json_type
                context, "$.weights: expected null or a JSON object"
            )
        family_registry = None
        resolution_registries = None
        if registries:
            family_registry = tuple(
                _object(item, context, f"$.family_registry[{i}]") for i, item in enumerate(obj.array("family_registry"))
            )
            resolution_registries = obj.uints("resolution_registries", 32)
            if len(resolution_registries) != len(resolutions):
                raise Serialization(  # rule: 01.5/document_format_refused
                    context,
                    f"$.resolution_registries: {len(resolution_registries)} entries for {len(resolutions)} resolutions",
                )
        return cls(
            name=obj.string("name"),
            family_document=_object(family.raw("document"), context, "$.family.document"),
            raw_config=family.raw("raw_config"),
            numerical_profile=family.string("numerical_profile"),
            catalog=_object(obj.raw("catalog"), context, "$.catalog"),
            policy=_object(obj.raw("policy"), context, "$.policy"),
            registry=_object(obj.raw("registry"), context, "$.registry"),
            resolutions=tuple(resolutions),
            weights=weights,
            completion_retention=tuple(retention),
            version=version,
            family_registry=family_registry,
            resolution_registries=resolution_registries,
        )

    @classmethod
    def from_json(cls, data: bytes | str) -> ScenarioDocument:
        """Strict JSON decode (size cap first), then ``from_wire``."""
        return cls.from_wire(loads_strict(data, context=SCENARIO_CONTEXT, max_bytes=MAX_SCENARIO_BYTES))

    def to_wire(self) -> dict[str, JsonValue]:
        wire: dict[str, JsonValue] = {
            "scenario_version": self.version,
            "name": self.name,
            "family": {
                "document": dict(self.family_document),
                "raw_config": self.raw_config,
                "numerical_profile": self.numerical_profile,
            },
            "catalog": dict(self.catalog),
            "policy": dict(self.policy),
            "registry": dict(self.registry),
            "resolutions": [dict(item) for item in self.resolutions],
            "weights": None if self.weights is None else dict(self.weights),
            "completion_retention": list(self.completion_retention),
        }
        if self.version == REGISTRIES_SCENARIO_VERSION:
            wire["family_registry"] = [dict(item) for item in self.family_registry or ()]
            wire["resolution_registries"] = list(self.resolution_registries or ())
        return wire

    def registry_instance(self, index: int) -> int:
        """The planning-registry instance that resolves resolution ``index`` (0 in version 1)."""
        return 0 if self.resolution_registries is None else self.resolution_registries[index]

    def canonical_bytes(self) -> bytes:
        """The canonical bytes of the scenario (the name of a counterexample bundle hashes these)."""
        return canonical_bytes(self.to_wire(), context="serialize scenario")


def _object(raw: Any, context: str, path: str) -> Mapping[str, Any]:
    if not isinstance(raw, dict):
        raise Serialization(context, f"{path}: expected a JSON object")  # rule: 01.5/struct_wrong_json_type
    return raw


def _string(raw: Any, context: str, path: str) -> str:
    if not isinstance(raw, str):
        raise Serialization(context, f"{path}: expected a string")  # rule: 01.5/struct_wrong_json_type
    return raw
