"""``decode_untrusted`` remembers its last few wires: the same plan, or the same rejection; and bytes equal to
a wire the reference wrote lately are that plan's payload and hash, exactly what parsing them gives."""

from __future__ import annotations

import json

import pytest

from reference.errors import VNextError
from reference.plan import decode as decode_module
from reference.plan import execution_plan as execution_plan_module
from reference.plan import revalidate as revalidate_module
from reference.plan.decode import decode_untrusted
from reference.plan.execution_plan import ExecutionPlan, forget_serialized, serialized_plan
from reference.scenario.plan import build_scenario_plan, revalidate_scenario_wire
from strategies.forged_wire import PlanTarget
from strategies.forgery import forge_seeded, reference_targets


def _rejection(wire: bytes) -> dict[str, object]:
    with pytest.raises(VNextError) as caught:
        decode_untrusted(wire)
    return caught.value.to_dict()


@pytest.fixture(autouse=True)
def _fresh_memos() -> None:
    decode_module._RECENT.clear()


def test_the_same_bytes_decode_to_the_same_plan_and_equal_a_fresh_decode() -> None:
    target = reference_targets()[0]
    first = decode_untrusted(target.wire)
    assert decode_untrusted(bytearray(target.wire)) is first
    fresh = decode_module._decode(target.wire)
    assert fresh == first and fresh.payload.to_wire() == first.payload.to_wire()


@pytest.mark.parametrize("operator", ["unknown_field", "schema_version", "malformed:trailing_data"])
def test_a_remembered_rejection_is_the_same_error(operator: str) -> None:
    forged = forge_seeded(operator, reference_targets()[0], 0)
    assert forged is not None
    first = _rejection(forged.wire_bytes)
    assert forged.wire_bytes in decode_module._RECENT
    assert _rejection(forged.wire_bytes) == first
    with pytest.raises(VNextError) as fresh:
        decode_module._decode(forged.wire_bytes)
    assert fresh.value.to_dict() == first


def test_only_small_wires_are_remembered_and_only_a_few(monkeypatch: pytest.MonkeyPatch) -> None:
    target = reference_targets()[1]
    monkeypatch.setattr(decode_module, "MEMO_MAX_BYTES", len(target.wire) - 1)
    decode_module._RECENT.clear()
    assert decode_untrusted(target.wire) is not decode_untrusted(target.wire)
    assert not decode_module._RECENT
    monkeypatch.undo()
    for index in range(decode_module.MEMO_ENTRIES + 3):
        _rejection(b"[" * (index + 1))
    assert len(decode_module._RECENT) == decode_module.MEMO_ENTRIES


def _built(target: PlanTarget) -> ExecutionPlan:
    """The target's plan, its wire written (so remembered) by ``to_json`` just now."""
    plan = build_scenario_plan(target.scenario)
    assert plan.to_json() == target.wire
    return plan


@pytest.mark.parametrize("target", reference_targets(), ids=lambda target: target.name)
def test_a_wire_the_reference_wrote_decodes_to_its_plan_exactly_as_a_parse_does(target: PlanTarget) -> None:
    _built(target)
    remembered = serialized_plan(target.wire)
    assert remembered is not None and remembered.to_json() == target.wire
    recognised = decode_untrusted(target.wire)
    assert recognised.payload is remembered.payload
    parsed = decode_module._decode(target.wire)
    assert parsed == recognised
    assert parsed.payload.to_wire() == recognised.payload.to_wire()
    context = decode_module.DECODE_CONTEXT
    assert parsed.payload_canonical_bytes(context=context) == recognised.payload_canonical_bytes(context=context)


def test_other_bytes_of_the_same_plan_are_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    target = reference_targets()[0]
    _built(target)
    parsed: list[bytes] = []
    real = decode_module._decode

    def watched(raw: bytes) -> decode_module.UnvalidatedExecutionPlan:
        parsed.append(raw)
        return real(raw)

    monkeypatch.setattr(decode_module, "_decode", watched)
    spaced = target.wire.replace(b":", b": ", 1)
    assert decode_untrusted(spaced) == decode_untrusted(target.wire)
    assert parsed == [spaced]


def test_forgotten_wires_are_parsed_and_only_so_many_wire_bytes_are_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = reference_targets()[:2]
    _built(first)
    assert serialized_plan(first.wire) is not None
    forget_serialized()
    assert serialized_plan(first.wire) is None
    monkeypatch.setattr(execution_plan_module, "SERIALIZED_MEMO_BYTES", len(first.wire) + len(second.wire) - 1)
    _built(first)
    _built(second)
    assert serialized_plan(first.wire) is None, "the older wire leaves once the memo holds too many bytes"
    newest = serialized_plan(second.wire)
    assert newest is not None and newest.to_json() == second.wire


def _spellings(target: PlanTarget) -> list[bytes]:
    """The target's wire spelled otherwise: members reordered, whitespace, other hashes, and near misses."""
    raw = target.raw()
    payload, plan_hash = raw["payload"], raw["plan_hash"]
    reordered = {key: payload[key] for key in reversed(list(payload))}
    other_hash = "0" * 64 if plan_hash != "0" * 64 else "1" * 64
    return [
        json.dumps({"plan_hash": plan_hash, "payload": reordered}).encode(),
        json.dumps(raw, indent=2).encode(),
        json.dumps({"payload": payload, "plan_hash": other_hash}).encode(),
        json.dumps({"payload": payload, "plan_hash": plan_hash.upper()}).encode(),
        json.dumps({"payload": payload, "plan_hash": plan_hash, "extra": 1}).encode(),
        json.dumps({"payload": {**payload, "plan_id": "plan/sha256/" + other_hash}, "plan_hash": plan_hash}).encode(),
        json.dumps({"payload": payload, "plan_hash": plan_hash, "plan_hash ": plan_hash}).encode(),
        target.wire[:-1] + b',"plan_hash":"' + plan_hash.encode() + b'"}',
        target.wire + b" " * 3,
    ]


def _outcome(target: PlanTarget, wire: bytes) -> object:
    try:
        return ("accepted", revalidate_scenario_wire(target.scenario, wire).plan_hash.value)
    except VNextError as error:
        return ("refused", error.to_dict())


@pytest.mark.parametrize("target", reference_targets(), ids=lambda target: target.name)
def test_a_spelling_of_the_rebuilt_payload_is_answered_as_the_five_steps_answer(
    target: PlanTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    wires = _spellings(target)
    taken = [decode_module.decoded_as(wire, build_scenario_plan(target.scenario)) is not None for wire in wires]
    assert taken == [True, True, True, False, False, False, False, False, True]
    fast = [_outcome(target, wire) for wire in wires]
    monkeypatch.setattr(revalidate_module, "decoded_as", lambda *_: None)
    decode_module._RECENT.clear()
    assert [_outcome(target, wire) for wire in wires] == fast
    assert fast[2][0] == "refused" and fast[2][1]["kind"] == "plan_hash_mismatch"  # type: ignore[index]
