"""``decode_untrusted`` remembers its last few wires: the same plan, or the same rejection."""

from __future__ import annotations

import pytest

from reference.errors import VNextError
from reference.plan import decode as decode_module
from reference.plan.decode import decode_untrusted
from strategies.forgery import forge_seeded, reference_targets


def _rejection(wire: bytes) -> dict[str, object]:
    with pytest.raises(VNextError) as caught:
        decode_untrusted(wire)
    return caught.value.to_dict()


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
