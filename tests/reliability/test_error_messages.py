"""Error messages clip what they echo: a huge or deep untrusted value never makes a huge message or a recursion.

The structured fields keep their values whole (conformance matches on them); only the free text
(``message``, ``repr``, ``Serialization.message_text``) is bounded.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest

from reference.errors import MAX_MESSAGE_CHARS, PREVIEW_CHARS, InvalidIdentity, Serialization, clip, preview
from reference.wire import WireObject, read_tagged

MIB = 1024 * 1024
HUGE = "v" * (15 * MIB)


def _deep(depth: int) -> Any:
    value: Any = 0
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


@pytest.mark.parametrize(
    "value",
    [HUGE, HUGE.encode(), 10**5000, -(10**5000), _deep(100_000), [HUGE] * 1000, {HUGE: HUGE}, list(range(10**5))],
    ids=["str", "bytes", "big-int", "big-negative-int", "deep", "many-huge", "huge-key", "long-list"],
)
def test_a_preview_is_bounded_whatever_the_value(value: Any) -> None:
    assert sys.getrecursionlimit() < 100_000  # the deep value could not be walked recursively
    text = preview(value)
    assert 0 < len(text) <= PREVIEW_CHARS
    assert len(preview(value, 60)) <= 60


def test_a_short_value_is_shown_whole() -> None:
    assert preview("abc") == "'abc'"
    assert preview([1, {"a": None}]) == "[1, {'a': None}]"
    assert clip("abcdef", 4) == "a..." and clip("abc", 4) == "abc"


def test_a_serialization_message_is_clipped() -> None:
    error = Serialization("decode scenario", "unknown variant " + HUGE)
    assert len(error.message_text) == MAX_MESSAGE_CHARS and error.message_text.endswith("...")
    assert error.message_text.startswith("unknown variant vvv")
    assert len(error.message) <= MAX_MESSAGE_CHARS + 64


def test_a_field_keeps_its_value_but_the_message_does_not_repeat_it() -> None:
    error = InvalidIdentity(identity_kind="model_id", value=HUGE, reason="too long")
    assert error.value == HUGE  # the contract field, whole
    assert len(error.message) < 2 * PREVIEW_CHARS + 100
    assert len(repr(error)) < 2 * PREVIEW_CHARS + 100


def test_a_wire_error_echoing_a_deep_or_huge_value_is_small() -> None:
    for raw in (_deep(100_000), {"a": 1, "b": HUGE}):
        with pytest.raises(Serialization) as info:
            read_tagged(raw, ("Only",), context="decode scenario", path="$.x")
        assert len(info.value.message_text) <= 200
    with pytest.raises(Serialization) as unknown:
        WireObject({"a": 1, HUGE: 0}, ("a",), type_name="T", context="decode scenario", path="$")
    assert len(unknown.value.message_text) <= 200
    with pytest.raises(Serialization) as variant:
        read_tagged(HUGE, ("Only",), context="decode scenario", path="$.x")
    assert len(variant.value.message_text) <= 200
