"""Typed decoding of untrusted JSON values (spec 01 §5).

``WireObject`` reads one JSON object as a Rust struct: every declared field must
be present (an ``Option`` field as explicit ``null``), ``optional`` fields
(``#[serde(default)]``) may be absent, and unknown keys are refused unless the
struct is ``lenient`` (no ``deny_unknown_fields``). Each field is read with a
typed accessor. Every failure is ``Serialization(context, ...)`` with a JSON path
in the message.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Iterable, Sequence
from enum import StrEnum
from typing import Any, Self, TypeVar

from reference.errors import Serialization, VNextError, clip, preview
from reference.fast_base64 import canonical_base64
from reference.ints import U16_MAX, U32_MAX, U64_MAX, fits_i64, fits_uint
from reference.versions import ContractVersion

__all__ = [
    "U16_MAX",
    "U32_MAX",
    "U64_MAX",
    "WireEnum",
    "WireObject",
    "decode_with",
    "read_bool",
    "read_enum",
    "read_i64",
    "read_identity",
    "read_list",
    "read_str",
    "read_tagged",
    "read_tagged_enum",
    "read_uint",
    "read_uints",
]

T = TypeVar("T")


def read_uint(raw: Any, *, bits: int, context: str, path: str) -> int:
    """An unsigned integer of ``bits`` bits; bools, floats and negatives are refused.

    Each way of not being one is refused at its own site, all with the same message.
    """
    if fits_uint(raw, bits):
        return raw
    message = f"{path}: expected u{bits}, got {_show(raw)}"
    if type(raw) is bool:
        raise Serialization(context, message)  # rule: 01.5/unsigned_rejects_bool, 04.0/unsigned_fields_range_checked
    if type(raw) is float:
        raise Serialization(context, message)  # rule: 01.5/unsigned_rejects_float, 04.0/unsigned_fields_range_checked
    if type(raw) is int and raw < 0:
        raise Serialization(  # rule: 01.5/unsigned_rejects_negative, 04.0/unsigned_fields_range_checked
            context, message
        )
    if type(raw) is int:
        raise Serialization(  # rule: 01.5/unsigned_rejects_out_of_range, 04.0/unsigned_fields_range_checked
            context, message
        )
    raise Serialization(context, message)  # rule: 01.5/struct_wrong_json_type


def read_i64(raw: Any, *, context: str, path: str) -> int:
    if not fits_i64(raw):
        raise Serialization(context, f"{path}: expected i64, got {_show(raw)}")  # rule: 01.5/struct_wrong_json_type
    return raw


def read_uints(raw: Any, *, bits: int, context: str, path: str) -> tuple[int, ...]:
    """A ``Vec<u{bits}>`` as a tuple."""
    items = read_list(raw, context=context, path=path)
    return tuple(read_uint(item, bits=bits, context=context, path=f"{path}[{i}]") for i, item in enumerate(items))


def read_str(raw: Any, *, context: str, path: str) -> str:
    if not isinstance(raw, str):
        raise Serialization(  # rule: 01.5/struct_wrong_json_type
            context, f"{path}: expected a string, got {_show(raw)}"
        )
    return raw


def read_bool(raw: Any, *, context: str, path: str) -> bool:
    if type(raw) is not bool:
        raise Serialization(  # rule: 01.5/struct_wrong_json_type
            context, f"{path}: expected a boolean, got {_show(raw)}"
        )
    return raw


def read_list(raw: Any, *, context: str, path: str, max_items: int | None = None) -> list[Any]:
    if not isinstance(raw, list):
        raise Serialization(  # rule: 01.5/struct_wrong_json_type
            context, f"{path}: expected an array, got {_show(raw)}"
        )
    if max_items is not None and len(raw) > max_items:
        raise Serialization(  # rule: 01.5/decoded_array_capped
            context, f"{path}: {len(raw)} items exceed the limit {max_items}"
        )
    return raw


def read_enum(raw: Any, allowed: Iterable[str], *, context: str, path: str) -> str:
    """A unit-variant enum spelled as its snake_case string."""
    choices = tuple(allowed)
    if not isinstance(raw, str) or raw not in choices:
        raise Serialization(  # rule: 01.5/enum_variant_shape
            context, f"{path}: unknown variant {_show(raw)}, expected one of {list(choices)}"
        )
    return raw


def read_tagged(raw: Any, allowed: Iterable[str], *, context: str, path: str) -> tuple[str, Any]:
    """An externally tagged enum: a unit string, or a one-key object ``{variant: content}``."""
    choices = tuple(allowed)
    if isinstance(raw, str):
        if raw not in choices:
            raise Serialization(context, f"{path}: unknown variant {_show(raw)}")  # rule: 01.5/enum_variant_shape
        return raw, None
    if not isinstance(raw, dict) or len(raw) != 1:
        raise Serialization(  # rule: 01.5/enum_variant_shape
            context, f"{path}: expected an enum (string or single-key object), got {_show(raw)}"
        )
    ((tag, content),) = raw.items()
    if tag not in choices:
        raise Serialization(context, f"{path}: unknown variant {_show(tag)}")  # rule: 01.5/enum_variant_shape
    return tag, content


def read_tagged_enum(
    raw: Any,
    units: Iterable[str],
    structs: Iterable[str],
    *,
    context: str,
    path: str,
) -> tuple[str, Any]:
    """An externally tagged enum with unit and struct variants told apart: a unit variant's string,
    or ``{variant: content}`` for a struct variant (``{unit: null}`` is accepted, as serde_json does)."""
    unit_names = tuple(units)
    struct_names = tuple(structs)
    if isinstance(raw, str):
        if raw in unit_names:
            return raw, None
        raise Serialization(  # rule: 01.5/enum_variant_shape
            context, f"{path}: unknown or non-unit variant {_show(raw)}"
        )
    if isinstance(raw, dict) and len(raw) == 1:
        ((tag, content),) = raw.items()
        if tag in struct_names:
            return tag, content
        if tag in unit_names and content is None:
            return tag, None
        raise Serialization(context, f"{path}: unknown variant {_show(tag)}")  # rule: 01.5/enum_variant_shape
    raise Serialization(  # rule: 01.5/enum_variant_shape
        context, f"{path}: expected an enum (string or single-key object)"
    )


def read_identity(raw: Any, cls: Callable[[str], T], *, context: str, path: str) -> T:
    """An identity string validated by ``cls``; any failure is ``Serialization``."""
    text = read_str(raw, context=context, path=path)
    try:
        return cls(text)
    except (VNextError, ValueError) as exc:
        raise Serialization(  # rule: 01.3.6/decode_invalid_identity, 01.1.1/identity_decode_validates
            context, f"{path}: invalid identity {_show(text)}: {exc}"
        ) from None


def decode_with(build: Callable[[], T], *, context: str, path: str, argument_errors: bool = True) -> T:
    """Run a validating constructor at a decode boundary: a contract error becomes ``Serialization``,
    and so does a ``ValueError`` / ``TypeError`` argument error unless ``argument_errors`` is false."""
    try:
        return build()
    except Serialization:
        raise
    except VNextError as exc:
        raise Serialization(  # rule: 01.5/validating_wire_constructor_errors_are_serialization
            context, f"{path}: {exc.message}"
        ) from None
    except (ValueError, TypeError) as exc:
        if not argument_errors:
            raise
        raise Serialization(  # rule: 01.5/validating_wire_constructor_errors_are_serialization
            context, f"{path}: {exc}"
        ) from None


class WireEnum(StrEnum):
    """A unit-variant enum whose wire form is exactly its value string."""

    def to_wire(self) -> str:
        return self.value

    @classmethod
    def from_wire(cls, raw: Any, *, context: str, path: str = "$") -> Self:
        """Decode the exact spelling; anything else is ``Serialization``."""
        return cls(read_enum(raw, [member.value for member in cls], context=context, path=path))


def read_base64(raw: Any, *, context: str, path: str) -> bytes:
    """Exact bytes from canonical standard padded base64 (RFC 4648 §4); anything else is ``Serialization``."""
    if not isinstance(raw, str):
        raise Serialization(  # rule: 01.5/struct_wrong_json_type
            context, f"{path}: expected a base64 string, got {_show(raw)}"
        )
    plain = canonical_base64(raw)
    if plain is not None:
        return plain
    try:
        data = base64.b64decode(raw.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise Serialization(context, f"{path}: invalid base64") from None  # rule: 01.5/base64_bytes_canonical
    if base64.b64encode(data).decode("ascii") != raw:
        raise Serialization(  # rule: 01.5/base64_bytes_canonical
            context, f"{path}: base64 is not canonical (padding or trailing bits)"
        )
    return data


#: ``(fields, optional)`` -> (required names, allowed names), for the constant field tuples of the decoders.
_FIELD_SETS: dict[tuple[Sequence[str], Sequence[str]], tuple[frozenset[str], frozenset[str]]] = {}


def _field_sets(fields: Sequence[str], optional: Sequence[str]) -> tuple[frozenset[str], frozenset[str]]:
    key = (fields, optional)
    try:
        found = _FIELD_SETS.get(key)
    except TypeError:  # a list of names: not cached
        return frozenset(fields), frozenset((*fields, *optional))
    if found is None:
        found = _FIELD_SETS[key] = (frozenset(fields), frozenset((*fields, *optional)))
    return found


class WireObject:
    """One JSON object decoded as a Rust struct (see the module docstring)."""

    __slots__ = ("_raw", "context", "path", "type_name")

    def __init__(
        self,
        raw: Any,
        fields: Sequence[str],
        optional: Sequence[str] = (),
        *,
        type_name: str,
        context: str,
        path: str = "$",
        lenient: bool = False,
    ) -> None:
        if not isinstance(raw, dict):
            raise Serialization(  # rule: 01.5/struct_wrong_json_type
                context, f"{path}: {type_name} must be a JSON object, got {_show(raw)}"
            )
        required, allowed = _field_sets(fields, optional)
        if not lenient and not allowed.issuperset(raw):
            unknown = [key for key in raw if key not in fields and key not in optional]
            raise Serialization(  # rule: 01.3.6/decode_unknown_field
                context, f"{path}: unknown field `{clip(unknown[0], 80)}` in {type_name}"
            )
        if not raw.keys() >= required:
            missing = [name for name in fields if name not in raw]
            raise Serialization(  # rule: 03.1/derived_struct_missing_field
                context, f"{path}: missing field `{missing[0]}` in {type_name}"
            )
        self._raw: dict[str, Any] = raw
        self.context = context
        self.path = path
        self.type_name = type_name

    def at(self, name: str) -> str:
        """The JSON path of field ``name``."""
        return f"{self.path}.{name}"

    def raw(self, name: str) -> Any:
        """The undecoded value of a present field."""
        return self._raw[name]

    def get(self, name: str) -> Any:
        """The undecoded value, ``None`` when the field is absent."""
        return self._raw.get(name)

    def has(self, name: str) -> bool:
        """True when the field is present and not ``null``."""
        return self._raw.get(name) is not None

    def __contains__(self, name: str) -> bool:
        """True when the field is present (``null`` included)."""
        return name in self._raw

    # Each accessor takes a well-typed value as it is; anything else goes to its reader, which words the
    # refusal with the field's path (built only then).

    def u8(self, name: str) -> int:
        return self._uint(name, 8, 0xFF)

    def u16(self, name: str) -> int:
        return self._uint(name, 16, U16_MAX)

    def u32(self, name: str) -> int:
        return self._uint(name, 32, U32_MAX)

    def u64(self, name: str) -> int:
        return self._uint(name, 64, U64_MAX)

    def _uint(self, name: str, bits: int, largest: int) -> int:
        value = self._raw[name]
        if type(value) is int and 0 <= value <= largest:
            return value
        return read_uint(value, bits=bits, context=self.context, path=self.at(name))

    def i64(self, name: str) -> int:
        return read_i64(self._raw[name], context=self.context, path=self.at(name))

    def uints(self, name: str, bits: int) -> tuple[int, ...]:
        """A ``Vec<u{bits}>`` field."""
        return read_uints(self._raw[name], bits=bits, context=self.context, path=self.at(name))

    def string(self, name: str) -> str:
        value = self._raw[name]
        if type(value) is str:
            return value
        return read_str(value, context=self.context, path=self.at(name))

    def boolean(self, name: str) -> bool:
        value = self._raw[name]
        if type(value) is bool:
            return value
        return read_bool(value, context=self.context, path=self.at(name))

    def array(self, name: str, max_items: int | None = None) -> list[Any]:
        value = self._raw[name]
        if type(value) is list and (max_items is None or len(value) <= max_items):
            return value
        return read_list(value, context=self.context, path=self.at(name), max_items=max_items)

    def enum(self, name: str, allowed: Iterable[str]) -> str:
        return read_enum(self._raw[name], allowed, context=self.context, path=self.at(name))

    def identity(self, name: str, cls: Callable[[str], T]) -> T:
        """An identity field validated with ``cls``; failures become ``Serialization``."""
        value = self._raw[name]
        if type(value) is str:
            try:
                return cls(value)
            except (VNextError, ValueError):
                pass  # the reader below words the refusal
        return read_identity(value, cls, context=self.context, path=self.at(name))

    def version(self, name: str) -> ContractVersion:
        return ContractVersion.from_wire(self._raw[name], context=self.context)

    def nested(self, name: str, decode: Callable[[Any, str, str], T]) -> T:
        """A nested value decoded with ``decode(raw, context, path)``."""
        return decode(self._raw[name], self.context, self.at(name))

    def optional(self, name: str, decode: Callable[[Any, str, str], T]) -> T | None:
        """An ``Option`` field: absent or ``null`` is ``None``, else ``decode(raw, context, path)``."""
        value = self._raw.get(name)
        return None if value is None else decode(value, self.context, self.at(name))

    def items(self, name: str, decode: Callable[[Any, str, str], T]) -> tuple[T, ...]:
        """An array field, each item decoded with ``decode(raw, context, path)``."""
        values = self.array(name)
        return tuple(decode(value, self.context, f"{self.at(name)}[{index}]") for index, value in enumerate(values))


def _show(raw: Any) -> str:
    """A short, bounded preview of an untrusted value (no full ``repr``: values may be huge or deep)."""
    return preview(raw, 60)
