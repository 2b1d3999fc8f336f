"""Small decoding helpers shared by the model wire types.

``Fields`` reads one JSON object as a serde struct: ``required`` keys must be
present, ``optional`` keys (Rust ``Option`` / ``#[serde(default)]``) may be
absent, and with ``deny`` any other key is refused. Every failure is
``Serialization(context, "<path>: ...")``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from reference.errors import Serialization, VNextError
from reference.ids import Identity, NumericalProfileIdError
from reference.versions import ContractVersion
from reference.wire import read_bool, read_i64, read_list, read_str, read_uint

__all__ = ["Fields", "read_identity", "read_tagged_enum", "read_u64_list", "read_u32_list", "reraise"]

T = TypeVar("T")
IdT = TypeVar("IdT", bound=Identity)


class Fields:
    """A JSON object viewed as a struct (see module docstring)."""

    __slots__ = ("context", "path", "raw")

    def __init__(
        self,
        raw: Any,
        required: Sequence[str],
        optional: Sequence[str] = (),
        *,
        deny: bool,
        type_name: str,
        context: str,
        path: str,
    ) -> None:
        if not isinstance(raw, dict):
            raise Serialization(context, f"{path}: {type_name} must be a JSON object")
        if deny:
            for key in raw:
                if key not in required and key not in optional:
                    raise Serialization(context, f"{path}: unknown field `{key}` in {type_name}")
        for key in required:
            if key not in raw:
                raise Serialization(context, f"{path}: missing field `{key}` in {type_name}")
        self.raw: dict[str, Any] = raw
        self.context = context
        self.path = path

    def at(self, name: str) -> str:
        return f"{self.path}.{name}"

    def has(self, name: str) -> bool:
        """True when the key is present and not null."""
        return self.raw.get(name) is not None

    def get(self, name: str) -> Any:
        return self.raw.get(name)

    def u8(self, name: str) -> int:
        return read_uint(self.raw[name], bits=8, context=self.context, path=self.at(name))

    def u16(self, name: str) -> int:
        return read_uint(self.raw[name], bits=16, context=self.context, path=self.at(name))

    def u32(self, name: str) -> int:
        return read_uint(self.raw[name], bits=32, context=self.context, path=self.at(name))

    def u64(self, name: str) -> int:
        return read_uint(self.raw[name], bits=64, context=self.context, path=self.at(name))

    def i64(self, name: str) -> int:
        return read_i64(self.raw[name], context=self.context, path=self.at(name))

    def string(self, name: str) -> str:
        return read_str(self.raw[name], context=self.context, path=self.at(name))

    def boolean(self, name: str) -> bool:
        return read_bool(self.raw[name], context=self.context, path=self.at(name))

    def array(self, name: str) -> list[Any]:
        return read_list(self.raw[name], context=self.context, path=self.at(name))

    def identity(self, name: str, cls: type[IdT]) -> IdT:
        return read_identity(self.raw[name], cls, context=self.context, path=self.at(name))

    def version(self, name: str) -> ContractVersion:
        return ContractVersion.from_wire(self.raw[name], context=self.context)

    def u64_list(self, name: str) -> tuple[int, ...]:
        return read_u64_list(self.raw[name], context=self.context, path=self.at(name))

    def u32_list(self, name: str) -> tuple[int, ...]:
        return read_u32_list(self.raw[name], context=self.context, path=self.at(name))

    def nested(self, name: str, decode: Callable[[Any, str, str], T]) -> T:
        return decode(self.raw[name], self.context, self.at(name))

    def optional(self, name: str, decode: Callable[[Any, str, str], T]) -> T | None:
        value = self.raw.get(name)
        return None if value is None else decode(value, self.context, self.at(name))

    def items(self, name: str, decode: Callable[[Any, str, str], T]) -> tuple[T, ...]:
        values = self.array(name)
        return tuple(decode(value, self.context, f"{self.at(name)}[{index}]") for index, value in enumerate(values))


def read_identity(raw: Any, cls: type[IdT], *, context: str, path: str) -> IdT:
    """An identity string validated by ``cls``; any failure is ``Serialization``."""
    text = read_str(raw, context=context, path=path)
    try:
        return cls(text)
    except (VNextError, NumericalProfileIdError) as exc:
        raise Serialization(context, f"{path}: invalid {cls.__name__} {text!r}: {exc}") from None


def read_u64_list(raw: Any, *, context: str, path: str) -> tuple[int, ...]:
    values = read_list(raw, context=context, path=path)
    return tuple(read_uint(v, bits=64, context=context, path=f"{path}[{i}]") for i, v in enumerate(values))


def read_u32_list(raw: Any, *, context: str, path: str) -> tuple[int, ...]:
    values = read_list(raw, context=context, path=path)
    return tuple(read_uint(v, bits=32, context=context, path=f"{path}[{i}]") for i, v in enumerate(values))


def read_tagged_enum(
    raw: Any,
    units: Iterable[str],
    structs: Iterable[str],
    *,
    context: str,
    path: str,
) -> tuple[str, Any]:
    """An externally tagged enum: a unit variant string, or ``{variant: content}``.

    A unit variant written as ``{variant: null}`` is accepted (serde_json does),
    never emitted.
    """
    unit_names = tuple(units)
    struct_names = tuple(structs)
    if isinstance(raw, str):
        if raw in unit_names:
            return raw, None
        raise Serialization(context, f"{path}: unknown or non-unit variant {raw!r}")
    if isinstance(raw, dict) and len(raw) == 1:
        ((tag, content),) = raw.items()
        if tag in struct_names:
            return tag, content
        if tag in unit_names and content is None:
            return tag, None
        raise Serialization(context, f"{path}: unknown variant {tag!r}")
    raise Serialization(context, f"{path}: expected an enum (string or single-key object)")


def reraise(context: str, path: str, build: Callable[[], T]) -> T:
    """Run a validating constructor at a decode boundary; contract errors become Serialization."""
    try:
        return build()
    except Serialization:
        raise
    except VNextError as exc:
        raise Serialization(context, f"{path}: {exc.message}") from None


__all__ += ["read_bool", "read_list", "read_str", "read_uint"]
