"""``ProviderExecutionSemantics`` (spec 03 §7) and the ``ExecutionDeterminismRequirement`` a
runtime policy holds them to (§7.4).

Only the two presets exist (the general constructor is private). The contract
fingerprint is sha256 over ``tag || 0x00 || major u16le || minor u16le ||
repeatability byte || replay byte``; a wire must carry exactly that value.
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass
from typing import Any, Final

from reference.canonical import is_canonical_sha256
from reference.catalog._common import OrderedEnum
from reference.errors import Serialization
from reference.versions import ContractVersion
from reference.wire import WireEnum, WireObject

__all__ = [
    "PROVIDER_EXECUTION_SEMANTICS_TAG",
    "ExecutionDeterminismRequirement",
    "PROVIDER_EXECUTION_SEMANTICS_VERSION",
    "ProviderExecutionRepeatability",
    "ProviderExecutionSemantics",
    "ProviderReplayEquivalence",
    "accepts_execution_semantics",
]

PROVIDER_EXECUTION_SEMANTICS_VERSION: Final = ContractVersion(1, 0)
PROVIDER_EXECUTION_SEMANTICS_TAG: Final = b"ferrum.runtime-vnext.provider-execution-semantics.v1"


class ProviderExecutionRepeatability(OrderedEnum):
    BITWISE_SAME_RUNTIME = "bitwise_same_runtime"


class ProviderReplayEquivalence(OrderedEnum):
    INELIGIBLE = "ineligible"
    BITWISE_EAGER_EQUIVALENT = "bitwise_eager_equivalent"


_REPEATABILITY_BYTE = {ProviderExecutionRepeatability.BITWISE_SAME_RUNTIME: 1}
_REPLAY_BYTE = {ProviderReplayEquivalence.INELIGIBLE: 0, ProviderReplayEquivalence.BITWISE_EAGER_EQUIVALENT: 1}


def semantics_fingerprint(
    version: ContractVersion, repeatability: ProviderExecutionRepeatability, replay: ProviderReplayEquivalence
) -> str:
    """The §7.2 domain-separated sha256 (lowercase hex)."""
    material = (
        PROVIDER_EXECUTION_SEMANTICS_TAG
        + b"\x00"
        + struct.pack("<HH", version.major, version.minor)
        + bytes([_REPEATABILITY_BYTE[repeatability], _REPLAY_BYTE[replay]])
    )
    return hashlib.sha256(material).hexdigest()


@dataclass(frozen=True, slots=True, init=False)
class ProviderExecutionSemantics:
    """Bitwise repeatability and replay eligibility a provider declares. Use the two presets."""

    contract_version: ContractVersion
    contract_fingerprint: str
    repeatability: ProviderExecutionRepeatability
    replay_equivalence: ProviderReplayEquivalence

    def __init__(self, replay_equivalence: ProviderReplayEquivalence) -> None:
        repeatability = ProviderExecutionRepeatability.BITWISE_SAME_RUNTIME
        version = PROVIDER_EXECUTION_SEMANTICS_VERSION
        object.__setattr__(self, "contract_version", version)
        object.__setattr__(
            self, "contract_fingerprint", semantics_fingerprint(version, repeatability, replay_equivalence)
        )
        object.__setattr__(self, "repeatability", repeatability)
        object.__setattr__(self, "replay_equivalence", replay_equivalence)

    @classmethod
    def bitwise_eager_only(cls) -> ProviderExecutionSemantics:
        return cls(ProviderReplayEquivalence.INELIGIBLE)

    @classmethod
    def bitwise_eager_and_replay(cls) -> ProviderExecutionSemantics:
        return cls(ProviderReplayEquivalence.BITWISE_EAGER_EQUIVALENT)

    def to_wire(self) -> dict[str, Any]:
        return {
            "contract_version": self.contract_version.to_wire(),
            "contract_fingerprint": self.contract_fingerprint,
            "repeatability": self.repeatability.to_wire(),
            "replay_equivalence": self.replay_equivalence.to_wire(),
        }

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode provider execution semantics", path: str = "$"
    ) -> ProviderExecutionSemantics:
        """deny_unknown_fields; version exactly 1.0; the fingerprint must be canonical and recomputed equal."""
        fields = ("contract_version", "contract_fingerprint", "repeatability", "replay_equivalence")
        obj = WireObject(
            raw,
            fields,
            # rule when 01.3.6/decode_unknown_field: 03.7.3/semantics_deny_unknown
            type_name="ProviderExecutionSemantics",
            context=context,  # rule when 03.1/derived_struct_missing_field: 03.7.3/semantics_deny_unknown
            path=path,
        )
        version = ContractVersion.from_wire(obj.raw("contract_version"), context=context)
        claimed = obj.string("contract_fingerprint")
        if not is_canonical_sha256(claimed):
            raise Serialization(  # rule: 03.7.3/semantics_fingerprint_canonical
                context, f"{obj.at('contract_fingerprint')}: not a canonical sha256"
            )
        ProviderExecutionRepeatability.from_wire(
            obj.raw("repeatability"), context=context, path=obj.at("repeatability")
        )
        replay = ProviderReplayEquivalence.from_wire(
            obj.raw("replay_equivalence"), context=context, path=obj.at("replay_equivalence")
        )
        if version != PROVIDER_EXECUTION_SEMANTICS_VERSION:
            raise Serialization(  # rule: 03.7.3/semantics_version_exact
                context, f"{obj.at('contract_version')}: unsupported provider execution semantics version"
            )
        value = (
            cls.bitwise_eager_only()
            if replay is ProviderReplayEquivalence.INELIGIBLE
            else cls.bitwise_eager_and_replay()
        )
        if value.contract_fingerprint != claimed:
            raise Serialization(  # rule: 03.7.3/semantics_fingerprint_recomputed
                context, f"{obj.at('contract_fingerprint')}: fingerprint does not match the semantics"
            )
        return value


_BITWISE_SAME_RUNTIME = "bitwise_same_runtime"
_BITWISE_EAGER_EQUIVALENT = "bitwise_eager_equivalent"


def _semantics_wire(semantics: Any) -> dict[str, Any]:
    wire = semantics.to_wire() if hasattr(semantics, "to_wire") else semantics
    if not isinstance(wire, dict):
        raise TypeError("execution semantics must be a ProviderExecutionSemantics or its wire object")
    return wire


def accepts_execution_semantics(requirement: ExecutionDeterminismRequirement, semantics: Any) -> bool:
    """Whether ``semantics`` (an object with ``to_wire()`` or its wire dict) meets ``requirement``."""
    wire = _semantics_wire(semantics)
    if wire.get("repeatability") != _BITWISE_SAME_RUNTIME:
        return False
    if requirement is ExecutionDeterminismRequirement.BITWISE_SAME_RUNTIME:
        return True
    return wire.get("replay_equivalence") == _BITWISE_EAGER_EQUIVALENT


class ExecutionDeterminismRequirement(WireEnum):
    """Minimum repeatability every selected provider must prove."""

    BITWISE_SAME_RUNTIME = "bitwise_same_runtime"
    BITWISE_SAME_RUNTIME_WITH_REPLAY = "bitwise_same_runtime_with_replay"

    def requires_replay_equivalence(self) -> bool:
        return self is ExecutionDeterminismRequirement.BITWISE_SAME_RUNTIME_WITH_REPLAY

    def accepts(self, semantics: Any) -> bool:
        """Repeatability must be bitwise_same_runtime; the replay variant also needs
        replay_equivalence bitwise_eager_equivalent. ``semantics`` is a provider's
        ProviderExecutionSemantics (anything with ``to_wire()``) or its wire dict."""
        return accepts_execution_semantics(self, semantics)
