"""The fast base64 codec decides exactly what the standard library's definition decides (``wire.read_base64``)."""

from __future__ import annotations

import base64
import binascii
import string
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.protocol.codecs import ProtocolError, WireParam
from reference import fast_base64
from reference.errors import Serialization
from reference.fast_base64 import canonical_base64, write_base64
from reference.wire import read_base64


def _definition(text: str) -> bytes | None:
    """Canonical standard padded base64, as the standard library reads and re-spells it."""
    try:
        data = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        return None
    return data if base64.b64encode(data).decode("ascii") == text else None


def _flip(text: str, position: int, letter: str) -> str:
    return text[:position] + letter + text[position + 1 :] if text else letter


_LETTERS = string.ascii_letters + string.digits + "+/="
_ODD_LETTERS = _LETTERS + ' \n-_é\\"'
#: Texts near canonical ones: a canonical text with one letter replaced, cut, extended or padded again.
_texts = st.one_of(
    st.binary(max_size=40).map(write_base64),
    st.tuples(st.binary(min_size=1, max_size=40).map(write_base64), st.integers(0, 60), st.sampled_from(_ODD_LETTERS))
    .map(lambda args: _flip(args[0], args[1] % len(args[0]), args[2])),
    st.binary(max_size=40).map(write_base64).flatmap(lambda t: st.integers(0, len(t)).map(lambda cut: t[:cut])),
    st.tuples(st.binary(max_size=40).map(write_base64), st.sampled_from(["=", "==", "A", "A=", "AA==", "\n"]))
    .map("".join),
    st.text(alphabet=_LETTERS, max_size=12),
    st.text(max_size=8),
)  # fmt: skip


def test_the_fast_codec_is_installed() -> None:
    assert fast_base64._FAST is not None


@given(st.binary(max_size=200))
def test_write_base64_is_standard_padded_base64(data: bytes) -> None:
    assert write_base64(data) == base64.b64encode(data).decode("ascii")


@given(_texts)
def test_canonical_base64_accepts_exactly_the_canonical_texts(text: str) -> None:
    want = _definition(text)
    assert canonical_base64(text) == want
    assert canonical_base64(text.encode("utf-8")) == want
    assert canonical_base64(memoryview(text.encode("utf-8"))) == want


@pytest.mark.parametrize("text", ["", "AA==", "AQ==", "AB==", "AR==", "AAB=", "AAA=", "ABCD==", "ABCD=", "A===", "ABC"])
def test_canonical_base64_edges(text: str) -> None:
    assert canonical_base64(text) == _definition(text)


def _outcome(text: str) -> object:
    try:
        return read_base64(text, context="test", path="$")
    except Serialization as exc:
        return exc.to_dict()


@contextmanager
def _without_fast_codec() -> Iterator[None]:
    saved, fast_base64._FAST = fast_base64._FAST, None
    try:
        yield
    finally:
        fast_base64._FAST = saved


@given(_texts)
def test_read_base64_answers_as_without_the_fast_codec(text: str) -> None:
    fast = _outcome(text)
    with _without_fast_codec():
        assert _outcome(text) == fast


def _param_outcome(raw: bytes) -> object:
    try:
        return WireParam("wire").decode(raw)
    except ProtocolError as exc:
        return str(exc)


@given(st.one_of(_texts.map(lambda t: b'"' + t.encode("utf-8") + b'"'), st.binary(max_size=30)))
def test_a_wire_parameter_decodes_as_without_the_fast_codec(raw: bytes) -> None:
    fast = _param_outcome(raw)
    with _without_fast_codec():
        assert _param_outcome(raw) == fast
