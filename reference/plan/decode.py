"""Untrusted plan wire decoding (spec 05 §9.1, 01 §3.6, 01 §5 rule 7).

``decode_untrusted(data)`` runs, in this order, and the first failure wins:

1. size: more than ``MAX_EXECUTION_PLAN_WIRE_BYTES`` (16 MiB, inclusive limit) is
   ``Serialization`` before any parsing;
2. strict JSON (``loads_strict``: duplicate keys are refused everywhere, decision
   D-05PW-1) and the header ``payload.schema = {major: u16, minor: u16}`` (other keys
   ignored at this stage); any failure is ``Serialization``;
3. ``schema != 8.1`` is ``UnsupportedPlanSchema`` with the wire's numbers, before any
   nested validation;
4. the full typed parse (deny_unknown_fields at every depth, nested validating
   decoders, canonical ``plan_hash``); any failure is ``Serialization``;
5. the canonical round trip: the typed value must re-serialize to exactly the parsed
   JSON value (key order aside), else ``Serialization``.

Decoding checks neither the hash nor ``plan_id``; that is revalidation's job. It is a pure
function of the bytes: the last few wires of at most ``MEMO_MAX_BYTES`` are remembered with
their plan or their rejection (raised again as the same error), and bytes equal to a wire the
reference itself wrote lately (``execution_plan.serialized_plan``) are that plan's payload and hash,
which is what the five steps give for them. Inside ``reference.recomputation.computed_directly()``
every wire is parsed.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Final, NoReturn

from reference.canonical import JsonValue, canonical_bytes, is_canonical_sha256, loads_if_plain, loads_strict
from reference.collector import collector_paused
from reference.errors import Serialization, UnsupportedPlanSchema, VNextError
from reference.ids import PlanHash
from reference.plan.execution_plan import ExecutionPlan, serialized_plan
from reference.plan.payload import EXECUTION_PLAN_SCHEMA, MAX_EXECUTION_PLAN_WIRE_BYTES, ExecutionPlanPayload
from reference.recomputation import memos_bypassed
from reference.versions import PlanSchemaVersion
from reference.wire import WireObject, read_uint

__all__ = [
    "DECODE_CONTEXT",
    "SKIPPED_WHEN_DEFAULT",
    "UnvalidatedExecutionPlan",
    "decode_untrusted",
    "read_plan_schema",
    "round_trip_difference",
]

DECODE_CONTEXT: Final = "decode untrusted execution plan"
#: Wires up to this size are remembered (the last ``MEMO_ENTRIES`` of them).
MEMO_MAX_BYTES: Final = 2 * 1024 * 1024
MEMO_ENTRIES: Final = 8
_RECENT: OrderedDict[bytes, UnvalidatedExecutionPlan | tuple[VNextError, TracebackType | None]] = OrderedDict()
_WIRE_FIELDS: Final = ("payload", "plan_hash")
_ROUND_TRIP_DIFFERS: Final = "execution plan wire contains unknown or non-canonical nested fields (round trip differs)"
#: Fields the encoder leaves out at their default (05 §8.2): written explicitly, they do not round-trip.
SKIPPED_WHEN_DEFAULT: Final = frozenset({"checkpoint_growth_ceiling_bytes", "checkpoint_capacity"})
#: The fields of a ``ContractVersion`` (a type without ``deny_unknown_fields``: only the round trip refuses extras).
_VERSION_FIELDS: Final = frozenset({"major", "minor"})


@dataclass(frozen=True, slots=True, eq=False)
class UnvalidatedExecutionPlan:
    """A well-formed but untrusted plan: not executable until ``revalidate`` rebuilds it.

    ``payload`` is the typed payload; ``plan_hash`` the carried (unchecked) hash.
    """

    payload: ExecutionPlanPayload
    plan_hash: PlanHash
    _canonical_payload: list[bytes] = field(default_factory=list, init=False, repr=False, compare=False)

    @classmethod
    def of_built(cls, plan: ExecutionPlan) -> UnvalidatedExecutionPlan:
        """What decoding a built plan's own wire gives: its payload and hash (canonical bytes shared)."""
        unvalidated = cls(plan.payload, plan.plan_hash)
        unvalidated._canonical_payload.append(plan.payload_canonical_bytes(context=DECODE_CONTEXT))
        return unvalidated

    def payload_canonical_bytes(self, *, context: str) -> bytes:
        """Canonical bytes of ``payload.to_wire()`` (computed once; the payload is immutable)."""
        if not self._canonical_payload:
            self._canonical_payload.append(canonical_bytes(self.payload.to_wire(), context=context, trusted=True))
        return self._canonical_payload[0]

    def schema(self) -> PlanSchemaVersion:
        return self.payload.schema

    def payload_wire(self) -> dict[str, JsonValue]:
        """The payload's JSON value (equal to the decoded wire's payload)."""
        return self.payload.to_wire()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, UnvalidatedExecutionPlan):
            return NotImplemented
        return self.plan_hash == other.plan_hash and self.payload == other.payload

    def __hash__(self) -> int:
        return hash(self.plan_hash)


def _check_size(size: int) -> None:
    if size > MAX_EXECUTION_PLAN_WIRE_BYTES:
        raise Serialization(  # rule: 05.1/wire_size_limit_inclusive, 05.9.1/step1_size_before_parse
            DECODE_CONTEXT, f"execution plan wire size {size} exceeds limit {MAX_EXECUTION_PLAN_WIRE_BYTES}"
        )


def read_plan_schema(raw: Any, *, context: str = DECODE_CONTEXT) -> PlanSchemaVersion:
    """The header ``{"payload": {"schema": {"major": u16, "minor": u16}}}``; other keys are ignored."""
    if not isinstance(raw, dict):
        raise Serialization(  # rule: 05.9.1/step2_header_shape
            context, "$: an execution plan wire must be a JSON object"
        )
    payload = raw.get("payload")
    if "payload" not in raw or not isinstance(payload, dict):
        raise Serialization(context, "$.payload: missing or not a JSON object")  # rule: 01.3.6/decode_header_errors
    schema = payload.get("schema")
    if "schema" not in payload or not isinstance(schema, dict):
        raise Serialization(  # rule: 01.3.6/decode_header_errors, 05.9.1/step2_header_shape
            context, "$.payload.schema: missing or not a JSON object"
        )
    for name in ("major", "minor"):
        if name not in schema:
            raise Serialization(  # rule: 01.3.6/decode_header_errors, 05.9.1/step2_header_shape
                context, f"$.payload.schema: missing field `{name}`"
            )
    major = _header_number(schema, "major", context)
    minor = _header_number(schema, "minor", context)
    return PlanSchemaVersion(major, minor)


def _header_number(schema: dict[str, Any], name: str, context: str) -> int:
    """One ``u16`` of the header: a number of the wrong type or outside ``u16`` is step 2's refusal."""
    return read_uint(  # rule when 01.5/unsigned_rejects_out_of_range: 05.9.1/step2_header_numbers
        schema[name],  # rule when 01.5/unsigned_rejects_float: 05.9.1/step2_header_numbers
        bits=16,  # rule when 01.5/unsigned_rejects_negative: 05.9.1/step2_header_numbers
        context=context,  # rule when 01.5/unsigned_rejects_bool: 05.9.1/step2_header_numbers
        path=f"$.payload.schema.{name}",  # rule when 01.5/struct_wrong_json_type: 05.9.1/step2_header_numbers
    )


def check_plan_schema(schema: PlanSchemaVersion) -> None:
    """``schema != 8.1`` (major or minor; no compatibility rule) -> ``UnsupportedPlanSchema``."""
    if schema != EXECUTION_PLAN_SCHEMA:
        raise UnsupportedPlanSchema(  # rule: 01.3.6/decode_schema_mismatch, 05.9.1/step3_unsupported_schema
            expected_major=EXECUTION_PLAN_SCHEMA.major,
            expected_minor=EXECUTION_PLAN_SCHEMA.minor,
            actual_major=schema.major,
            actual_minor=schema.minor,
        )


@collector_paused
def decode_untrusted(data: bytes | bytearray | memoryview) -> UnvalidatedExecutionPlan:
    """``ExecutionPlan::decode_untrusted``: size, strict JSON + header, schema, typed parse, round trip."""
    raw_bytes = bytes(data)
    if memos_bypassed():
        return _decode(raw_bytes)
    if len(raw_bytes) > MEMO_MAX_BYTES:
        return _decode_or_built(raw_bytes)
    found = _RECENT.get(raw_bytes)
    if found is not None:
        _RECENT.move_to_end(raw_bytes)
        if isinstance(found, tuple):
            error, traceback = found
            raise error.with_traceback(traceback)
        return found
    try:
        result = _decode_or_built(raw_bytes)
    except VNextError as exc:
        _remember(raw_bytes, (exc, exc.__traceback__))
        raise
    _remember(raw_bytes, result)
    return result


def _decode_or_built(raw_bytes: bytes) -> UnvalidatedExecutionPlan:
    """The plan whose own wire ``raw_bytes`` is, when the reference wrote it lately; else the five steps."""
    built = serialized_plan(raw_bytes)
    return UnvalidatedExecutionPlan.of_built(built) if built is not None else _decode(raw_bytes)


def decoded_as(raw_bytes: bytes, plan: ExecutionPlan) -> UnvalidatedExecutionPlan | None:
    """What ``decode_untrusted(raw_bytes)`` returns when the wire spells ``plan``'s own payload (members in any
    order, any whitespace) with a canonical hash, found without the typed parse; ``None`` for any other wire.

    Such a wire passes every step: its size is within the cap, the strict reader takes it (``loads_if_plain``),
    its schema is the plan's, and a payload canonically equal to a built plan's decodes to that payload (the
    round trip of a built plan). Anything else, a malformed hash included, is left to the five steps.
    """
    if len(raw_bytes) > MAX_EXECUTION_PLAN_WIRE_BYTES or memos_bypassed():
        return None
    plain = loads_if_plain(raw_bytes)
    if plain is None:
        return None
    (value,) = plain
    if not (isinstance(value, dict) and value.keys() == {"payload", "plan_hash"}):
        return None
    carried = value["plan_hash"]
    if not is_canonical_sha256(carried):
        return None
    canonical = plan.payload_canonical_bytes(context=DECODE_CONTEXT)
    if canonical_bytes(value["payload"], context=DECODE_CONTEXT) != canonical:
        return None
    unvalidated = UnvalidatedExecutionPlan(plan.payload, PlanHash(carried))
    unvalidated._canonical_payload.append(canonical)
    return unvalidated


def _remember(raw_bytes: bytes, outcome: UnvalidatedExecutionPlan | tuple[VNextError, TracebackType | None]) -> None:
    _RECENT[raw_bytes] = outcome
    while len(_RECENT) > MEMO_ENTRIES:
        _RECENT.popitem(last=False)


@collector_paused
def _decode(raw_bytes: bytes) -> UnvalidatedExecutionPlan:
    _check_size(len(raw_bytes))
    raw = loads_strict(  # rule when 01.3.3/decode_minus_zero_integer_field: 01.3.6/decode_type_error
        raw_bytes,  # rule when 01.3.3/decode_integer_out_of_range: 01.3.6/decode_type_error
        context=DECODE_CONTEXT,
        max_bytes=MAX_EXECUTION_PLAN_WIRE_BYTES,
    )
    check_plan_schema(read_plan_schema(raw))
    obj = WireObject(  # rule when 01.3.6/decode_unknown_field: 05.8.1/plan_wire_unknown_top_level_key
        raw, _WIRE_FIELDS, type_name="ExecutionPlan", context=DECODE_CONTEXT
    )
    payload = ExecutionPlanPayload.from_wire(  # rule when 01.5/unsigned_rejects_float: 01.3.6/decode_type_error
        obj.raw("payload"),  # rule when 01.5/unsigned_rejects_bool: 01.3.6/decode_type_error
        context=DECODE_CONTEXT,  # rule when 01.5/struct_wrong_json_type: 01.3.6/decode_type_error
        path="$.payload",
    )
    plan_hash = PlanHash.from_wire(obj.raw("plan_hash"), context=DECODE_CONTEXT)
    payload_wire = payload.to_wire()
    canonical_payload = canonical_bytes(payload_wire, context=DECODE_CONTEXT, trusted=True)
    # The canonical bytes of {"payload": ..., "plan_hash": ...}: keys sorted, compact, the payload's spliced in.
    typed_bytes = b'{"payload":' + canonical_payload + b',"plan_hash":' + canonical_bytes(plan_hash.value) + b"}"
    if typed_bytes != canonical_bytes(raw, context=DECODE_CONTEXT):
        _round_trip_differs(raw, {"payload": payload_wire, "plan_hash": plan_hash.value})
    unvalidated = UnvalidatedExecutionPlan(payload, plan_hash)
    unvalidated._canonical_payload.append(canonical_payload)
    return unvalidated


def _same(left: Any, right: Any) -> bool:
    """JSON value equality as serde_json's ``Value`` has it (``1 != 1.0 != true``; key order aside)."""
    return canonical_bytes(left, context=DECODE_CONTEXT) == canonical_bytes(right, context=DECODE_CONTEXT)


def round_trip_difference(raw: Any, typed: Any) -> str | None:
    """What first tells the parsed wire ``raw`` from its typed re-serialization ``typed`` (depth first, keys in
    ascending order), or ``None`` when they are equal: ``omitted`` (a key the encoder writes is missing),
    ``skipped_default`` (a key the encoder leaves out at its default is written), ``version_key`` (an extra key
    of a ``ContractVersion``), ``unknown_key`` (any other extra key), ``unsorted_set`` (an array the typed
    value holds sorted and de-duplicated) or ``value`` (any other value the encoder writes differently)."""
    if type(raw) is dict and type(typed) is dict:
        extra = sorted(set(raw) - set(typed))
        if extra:
            if extra[0] in SKIPPED_WHEN_DEFAULT:
                return "skipped_default"
            return "version_key" if set(typed) == _VERSION_FIELDS else "unknown_key"
        if set(typed) - set(raw):
            return "omitted"
        for key in sorted(raw):
            found = round_trip_difference(raw[key], typed[key])
            if found is not None:
                return found
        return None
    if _same(raw, typed):
        return None
    if type(raw) is list and type(typed) is list:
        by_bytes = {canonical_bytes(item, context=DECODE_CONTEXT): item for item in raw}
        if _same([by_bytes[key] for key in sorted(by_bytes)], typed):
            return "unsorted_set"
        if len(raw) == len(typed):
            for left, right in zip(raw, typed, strict=True):
                found = round_trip_difference(left, right)
                if found is not None:
                    return found
    return "value"


def _round_trip_differs(raw: Any, typed: Any) -> NoReturn:
    """Decode step 5: the typed value does not re-serialize to the parsed wire; one refusal per reason."""
    difference = round_trip_difference(raw, typed)
    if difference == "omitted":
        raise Serialization(  # rule: 05.9.1/step5_round_trip_omitted_option_key, 01.5/reserialization_rejects_omitted_option, 01.3.6/decode_reserialization_differs  # noqa: E501
            DECODE_CONTEXT, _ROUND_TRIP_DIFFERS
        )
    if difference == "skipped_default":
        raise Serialization(  # rule: 05.9.1/step5_round_trip_explicit_skipped_default, 01.5/reserialization_rejects_non_canonical_value, 01.3.6/decode_reserialization_differs  # noqa: E501
            DECODE_CONTEXT, _ROUND_TRIP_DIFFERS
        )
    if difference == "version_key":
        raise Serialization(  # rule: 01.2/contract_version_extra_keys_rejected_in_reserialized_wires, 05.9.1/step5_round_trip_unknown_nested_key, 01.5/reserialization_rejects_unknown_nested_key, 01.3.6/decode_reserialization_differs  # noqa: E501
            DECODE_CONTEXT, _ROUND_TRIP_DIFFERS
        )
    if difference == "unknown_key":
        raise Serialization(  # rule: 05.9.1/step5_round_trip_unknown_nested_key, 01.5/reserialization_rejects_unknown_nested_key, 01.3.6/decode_reserialization_differs  # noqa: E501
            DECODE_CONTEXT, _ROUND_TRIP_DIFFERS
        )
    if difference == "unsorted_set":
        raise Serialization(  # rule: 05.9.1/step5_round_trip_unsorted_set_array, 01.5/reserialization_rejects_non_canonical_value, 01.3.6/decode_reserialization_differs  # noqa: E501
            DECODE_CONTEXT, _ROUND_TRIP_DIFFERS
        )
    raise Serialization(  # rule: 01.5/reserialization_rejects_non_canonical_value, 01.3.6/decode_reserialization_differs  # noqa: E501
        DECODE_CONTEXT, _ROUND_TRIP_DIFFERS
    )
