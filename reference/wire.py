"""Typed decoding of untrusted JSON values (spec 01 §5).

``WireObject`` reads one JSON object as a Rust struct with
``deny_unknown_fields``: every declared field must be present (``Option``
fields as explicit ``null``), unknown keys are refused, and each field is read
with a typed accessor. Every failure is ``Serialization(context, ...)`` with a
JSON path in the message.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from reference.errors import InvalidIdentity, Serialization, VNextError
from reference.ints import fits_i64, fits_uint

__all__ = ["WireObject", "read_enum", "read_list", "read_str", "read_uint"]

T = TypeVar("T")


def read_uint(raw: Any, *, bits: int, context: str, path: str) -> int:
    """An unsigned integer of ``bits`` bits; bools, floats and negatives are refused."""
    if not fits_uint(raw, bits):
        raise Serialization(context, f"{path}: expected u{bits}, got {_show(raw)}")
    return raw


def read_i64(raw: Any, *, context: str, path: str) -> int:
    if not fits_i64(raw):
        raise Serialization(context, f"{path}: expected i64, got {_show(raw)}")
    return raw


def read_str(raw: Any, *, context: str, path: str) -> str:
    if not isinstance(raw, str):
        raise Serialization(context, f"{path}: expected a string, got {_show(raw)}")
    return raw


def read_bool(raw: Any, *, context: str, path: str) -> bool:
    if type(raw) is not bool:
        raise Serialization(context, f"{path}: expected a boolean, got {_show(raw)}")
    return raw


def read_list(raw: Any, *, context: str, path: str, max_items: int | None = None) -> list[Any]:
    if not isinstance(raw, list):
        raise Serialization(context, f"{path}: expected an array, got {_show(raw)}")
    if max_items is not None and len(raw) > max_items:
        raise Serialization(context, f"{path}: {len(raw)} items exceed the limit {max_items}")
    return raw


def read_enum(raw: Any, allowed: Iterable[str], *, context: str, path: str) -> str:
    """A unit-variant enum spelled as its snake_case string."""
    choices = tuple(allowed)
    if not isinstance(raw, str) or raw not in choices:
        raise Serialization(context, f"{path}: unknown variant {_show(raw)}, expected one of {list(choices)}")
    return raw


def read_tagged(raw: Any, allowed: Iterable[str], *, context: str, path: str) -> tuple[str, Any]:
    """An externally tagged enum: a unit string, or a one-key object ``{variant: content}``."""
    choices = tuple(allowed)
    if isinstance(raw, str):
        if raw not in choices:
            raise Serialization(context, f"{path}: unknown variant {raw!r}")
        return raw, None
    if not isinstance(raw, dict) or len(raw) != 1:
        raise Serialization(context, f"{path}: expected an enum (string or single-key object), got {_show(raw)}")
    ((tag, content),) = raw.items()
    if tag not in choices:
        raise Serialization(context, f"{path}: unknown variant {tag!r}")
    return tag, content


def decode_with(
    build: Callable[[], T],
    *,
    context: str,
    path: str,
) -> T:
    """Run a constructor at a decode boundary: a contract error becomes ``Serialization``."""
    try:
        return build()
    except Serialization:
        raise
    except VNextError as exc:
        raise Serialization(context, f"{path}: {exc.message}") from None
    except (ValueError, TypeError) as exc:
        raise Serialization(context, f"{path}: {exc}") from None


class WireObject:
    """One JSON object decoded as a struct with ``deny_unknown_fields``."""

    __slots__ = ("_raw", "context", "path", "type_name")

    def __init__(
        self,
        raw: Any,
        fields: Sequence[str],
        *,
        type_name: str,
        context: str,
        path: str = "$",
        lenient: bool = False,
    ) -> None:
        if not isinstance(raw, dict):
            raise Serialization(context, f"{path}: {type_name} must be a JSON object, got {_show(raw)}")
        if not lenient:
            unknown = [key for key in raw if key not in fields]
            if unknown:
                raise Serialization(context, f"{path}: unknown field `{unknown[0]}` in {type_name}")
        missing = [name for name in fields if name not in raw]
        if missing:
            raise Serialization(context, f"{path}: missing field `{missing[0]}` in {type_name}")
        self._raw = raw
        self.context = context
        self.path = path
        self.type_name = type_name

    def at(self, name: str) -> str:
        return f"{self.path}.{name}"

    def raw(self, name: str) -> Any:
        return self._raw[name]

    def u16(self, name: str) -> int:
        return read_uint(self._raw[name], bits=16, context=self.context, path=self.at(name))

    def u32(self, name: str) -> int:
        return read_uint(self._raw[name], bits=32, context=self.context, path=self.at(name))

    def u64(self, name: str) -> int:
        return read_uint(self._raw[name], bits=64, context=self.context, path=self.at(name))

    def i64(self, name: str) -> int:
        return read_i64(self._raw[name], context=self.context, path=self.at(name))

    def string(self, name: str) -> str:
        return read_str(self._raw[name], context=self.context, path=self.at(name))

    def boolean(self, name: str) -> bool:
        return read_bool(self._raw[name], context=self.context, path=self.at(name))

    def array(self, name: str, max_items: int | None = None) -> list[Any]:
        return read_list(self._raw[name], context=self.context, path=self.at(name), max_items=max_items)

    def enum(self, name: str, allowed: Iterable[str]) -> str:
        return read_enum(self._raw[name], allowed, context=self.context, path=self.at(name))

    def optional(self, name: str, read: Callable[[Any, str], T]) -> T | None:
        """An ``Option`` field: explicit ``null`` or a value read by ``read(raw, path)``."""
        value = self._raw[name]
        return None if value is None else read(value, self.at(name))

    def identity(self, name: str, cls: Callable[[str], T]) -> T:
        """An identity field, validated with ``cls``; failures become ``Serialization``."""
        raw = self.string(name)
        try:
            return cls(raw)
        except (InvalidIdentity, VNextError, ValueError) as exc:
            raise Serialization(self.context, f"{self.at(name)}: invalid identity {raw!r}: {exc}") from None

    def nested(self, name: str, decode: Callable[[Any, str, str], T]) -> T:
        """A nested struct decoded with ``decode(raw, context, path)``."""
        return decode(self._raw[name], self.context, self.at(name))


def _show(raw: Any) -> str:
    text = repr(raw)
    return text if len(text) <= 60 else text[:57] + "..."
