"""Classes of hostile input, each a way to spoil a valid document of any entry point.

A class turns the entry point's valid *base document* (a scenario, a plan wire, a bundle, a
manifest, a request) into one or more ``Variant`` texts: the whole text spoiled (an empty file,
a byte-order mark, 10^5 nested arrays) or one value of it replaced (a ``-0`` at an integer,
a lone surrogate in a string, a duplicate key in an object), at positions sampled at every
depth. ``expect`` says what a strict reader must do with it: ``REFUSED`` (the strict decoder
refuses it: ``serialization`` with the entry point's decode context), ``TYPED`` (valid JSON:
any typed outcome, never a crash) or ``UNREADABLE`` (the file cannot be opened: a usage error).
``embedded`` is what a server answers when the spoiled text is the ``scenario`` member of an
otherwise valid request line: the contract error (``decode_error``) or ``bad_request`` when the
line as a whole is no longer a JSON object.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

Path = tuple[str | int, ...]
MIB = 1024 * 1024
#: Positions tried per nesting depth for the classes that replace one value.
PER_DEPTH = 1
BOM = b"\xef\xbb\xbf"


class Expect(enum.Enum):
    REFUSED = "refused"
    TYPED = "typed"
    UNREADABLE = "unreadable"


class Special(enum.Enum):
    """Files that are not regular documents."""

    SPARSE_1GIB = "a 1 GiB sparse file"
    DEV_ZERO = "/dev/zero"
    FIFO = "a FIFO fed without end"
    DIRECTORY = "a directory"
    MISSING = "a path that does not exist"


@dataclass(frozen=True)
class Variant:
    """One spoiled text; ``where`` is the path of the spoiled value (``()``: the whole text)."""

    data: bytes
    where: Path = ()
    special: Special | None = None


@dataclass(frozen=True)
class Base:
    """An entry point's valid document and its byte cap; ``inner`` is the path of a document embedded in it
    that is decoded on its own (a request's scenario), so nesting inside it counts from there."""

    document: Any
    cap: int
    inner: Path | None = None

    def containers_above(self, path: Path) -> int:
        """How many containers enclose the value at ``path`` in the document that decodes it."""
        inner = self.inner
        if inner is not None and path[: len(inner)] == inner:
            return len(path) - len(inner)
        return len(path)  # every step of a path enters one container


Variants = Callable[[Base], Iterator[Variant]]


@dataclass(frozen=True)
class BadInput:
    name: str
    variants: Variants
    expect: Expect
    #: The answer to a request line whose ``scenario`` member is spoiled this way; ``None``: no such line.
    embedded: str | None = "decode_error"
    #: Every variant is at least this many bytes (the output of a refusal must stay far below it).
    large: bool = False

    @property
    def file_only(self) -> bool:
        return self.embedded is None


# --------------------------------------------------------------------------- writing documents

Edit = Callable[[Path, Any], bytes | None]


def text(value: Any, edit: Edit | None = None, path: Path = ()) -> bytes:
    """Compact JSON text of ``value``; ``edit(path, value)`` may replace any value's text."""
    if edit is not None:
        replaced = edit(path, value)
        if replaced is not None:
            return replaced
    if isinstance(value, dict):
        members = [json.dumps(key).encode() + b":" + text(item, edit, (*path, key)) for key, item in value.items()]
        return b"{" + b",".join(members) + b"}"
    if isinstance(value, list):
        return b"[" + b",".join(text(item, edit, (*path, index)) for index, item in enumerate(value)) + b"]"
    return json.dumps(value).encode()


def walk(value: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from walk(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from walk(item, (*path, index))


def depth_of(value: Any) -> int:
    """Nesting depth: 0 for a scalar, 1 for ``[]`` or ``{}``."""
    deepest = 0
    for path, item in walk(value):
        if isinstance(item, dict | list):
            deepest = max(deepest, len(path) + 1)
    return deepest


def positions(document: Any, accept: Callable[[Any], bool], per_depth: int = PER_DEPTH) -> list[Path]:
    """Paths of values ``accept`` takes: the first (and last, for ``per_depth`` 2) of each nesting depth."""
    by_depth: dict[int, list[Path]] = {}
    for path, value in walk(document):
        if accept(value):
            by_depth.setdefault(len(path), []).append(path)
    chosen: list[Path] = []
    for depth in sorted(by_depth):
        found = by_depth[depth]
        picks = [found[0], found[-1]] if per_depth >= 2 else [found[0]]
        for path in picks[:per_depth]:
            if path not in chosen:
                chosen.append(path)
    return chosen


def is_int(value: Any) -> bool:
    return type(value) is int


def is_str(value: Any) -> bool:
    return type(value) is str


def is_dict(value: Any) -> bool:
    return type(value) is dict and bool(value)


def is_list(value: Any) -> bool:
    return type(value) is list


def is_any(value: Any) -> bool:
    return True


def _targets(document: Any, accept: Callable[[Any], bool], stand_in: Any, per_depth: int) -> list[tuple[Path, Any]]:
    """Where to spoil: the accepted values, or (a document without any) ``stand_in`` put in place of a
    member at each depth, so an array class still spoils a document that holds no array."""
    found = positions(document, accept, per_depth)
    if found:
        values = dict(walk(document))
        return [(path, values[path]) for path in found]
    return [(path, stand_in) for path in positions(document, is_any, per_depth) if path]


def _spoiled(document: Any, where: Path, value: Any, replacement: Callable[[Path, Any], bytes]) -> Variant:
    return Variant(text(document, lambda path, _old: replacement(path, value) if path == where else None), where)


def replace_at(
    accept: Callable[[Any], bool], replacement: Callable[[Path, Any], bytes], stand_in: Any = None
) -> Variants:
    """Variants replacing one accepted value at a time (sampled per depth) by ``replacement``."""

    def variants(base: Base) -> Iterator[Variant]:
        for where, value in _targets(base.document, accept, stand_in, PER_DEPTH):
            yield _spoiled(base.document, where, value, replacement)

    return variants


def constant(data: bytes) -> Callable[[Path, Any], bytes]:
    return lambda _path, _value: data


def whole(make: Callable[[Base], bytes]) -> Variants:
    return lambda base: iter([Variant(make(base))])


def special(kind: Special) -> Variants:
    return lambda base: iter([Variant(b"", special=kind)])


def nested(depth: int, leaf: bytes = b"0") -> bytes:
    return b"[" * depth + leaf + b"]" * depth


def _object_with(value: Any, first: bytes, *, drop_first: bool = False) -> bytes:
    members = [json.dumps(key).encode() + b":" + text(item) for key, item in value.items()]
    if drop_first:
        members = members[1:]
    return b"{" + b",".join([first, *members] if first else members) + b"}"


def _duplicate_first(_path: Path, value: Any) -> bytes:
    key, item = next(iter(value.items()))
    return _object_with(value, json.dumps(key).encode() + b":" + text(item))


def _duplicate_first_escaped(_path: Path, value: Any) -> bytes:
    key, item = next(iter(value.items()))
    escaped = b'"\\u%04x' % ord(key[0]) + json.dumps(key).encode()[2:] if key else b'""'
    return _object_with(value, escaped + b":" + text(item))


def _wrong_type(_path: Path, value: Any) -> bytes:
    if isinstance(value, bool):
        return b'"true"'
    if isinstance(value, int):
        return b'"%d"' % value
    if isinstance(value, str):
        return b"17"
    if isinstance(value, list):
        return b'{"0":1}'
    if isinstance(value, dict):
        return b"[]"
    return b"[null]"


def _deep_to(total: int) -> Variants:
    """Each value in turn replaced by arrays nested so that its document reaches nesting ``total`` there."""

    def variants(base: Base) -> Iterator[Variant]:
        for where, value in _targets(base.document, is_any, None, PER_DEPTH):
            deep = nested(total - base.containers_above(where))
            yield _spoiled(base.document, where, value, lambda _path, _value, deep=deep: deep)

    return variants


def _surrogate_key(_path: Path, value: Any) -> bytes:
    return _object_with(value, b'"\\ud800x":0')


def _unknown_field(_path: Path, value: Any) -> bytes:
    return _object_with(value, b'"zz_unknown_field":0')


def _missing_first(_path: Path, value: Any) -> bytes:
    return _object_with(value, b"", drop_first=True)


def _trailing_comma_object(_path: Path, value: Any) -> bytes:
    return text(value)[:-1] + b",}"


def _trailing_comma_array(_path: Path, value: Any) -> bytes:
    return text(value)[:-1] + (b",]" if value else b"1,]")


def _long_string(_path: Path, _value: Any) -> bytes:
    return b'"' + b"a" * (15 * MIB) + b'"'


def _long_key(_path: Path, value: Any) -> bytes:
    return _object_with(value, b'"' + b"k" * (15 * MIB) + b'":0')


def _many_members(_path: Path, value: Any) -> bytes:
    extra = b",".join(b'"m%d":0' % index for index in range(50_000))
    return _object_with(value, extra)


def _long_array(_path: Path, _value: Any) -> bytes:
    return b"[" + b",".join([b"0"] * 200_000) + b"]"


def _padded(document: bytes, spaces: int) -> bytes:
    """``document`` with ``spaces`` spaces inside its closing bracket (so they belong to the value)."""
    return document[:-1] + b" " * spaces + document[-1:]


def _first(accept: Callable[[Any], bool], replacement: Callable[[Path, Any], bytes], stand_in: Any = None) -> Variants:
    """Like ``replace_at`` but at the shallowest accepted position only (for the costly classes)."""

    def variants(base: Base) -> Iterator[Variant]:
        for where, value in _targets(base.document, accept, stand_in, 1)[:1]:
            yield _spoiled(base.document, where, value, replacement)

    return variants


def _root_object(replacement: Callable[[Path, Any], bytes]) -> Variants:
    def variants(base: Base) -> Iterator[Variant]:
        if isinstance(base.document, dict):
            yield Variant(replacement((), base.document))

    return variants


R, T = Expect.REFUSED, Expect.TYPED

CLASSES: tuple[BadInput, ...] = (
    # ------------------------------------------------------------------ the whole text
    BadInput("empty", whole(lambda base: b""), R, "bad_request"),
    BadInput("whitespace-only", whole(lambda base: b" \t \r  "), R, "bad_request"),
    BadInput("byte-order-mark", whole(lambda base: BOM + text(base.document)), R),
    BadInput("utf-16", whole(lambda base: text(base.document).decode().encode("utf-16")), R),
    BadInput("nul-before", whole(lambda base: b"\x00" + text(base.document)), R),
    BadInput("truncated", whole(lambda base: text(base.document)[: len(text(base.document)) // 2]), R, "bad_request"),
    BadInput("trailing-data", whole(lambda base: text(base.document) + b" {}"), R),
    BadInput("trailing-garbage", whole(lambda base: text(base.document) + b"x"), R),
    BadInput("comment", whole(lambda base: b"/* note */" + text(base.document)), R),
    BadInput("single-quoted", whole(lambda base: text(base.document).replace(b'"', b"'")), R),
    BadInput("nesting-127", whole(lambda base: nested(127)), T),
    BadInput("nesting-128", whole(lambda base: nested(128)), R),
    BadInput("nesting-129", whole(lambda base: nested(129)), R),
    BadInput("nesting-100000", whole(lambda base: nested(100_000)), R),
    BadInput("unclosed-100000", whole(lambda base: b"[" * 100_000), R, "bad_request"),
    BadInput("root-array", whole(lambda base: b"[]"), T),
    BadInput("root-string", whole(lambda base: b'"scenario"'), T),
    BadInput("root-number", whole(lambda base: b"0"), T),
    BadInput("root-null", whole(lambda base: b"null"), T),
    BadInput("root-true", whole(lambda base: b"true"), T),
    BadInput("empty-object", whole(lambda base: b"{}"), T),
    BadInput("over-the-cap", whole(lambda base: _padded(text(base.document), base.cap + 1)), R, large=True),
    # ------------------------------------------------------------------ one value, at every depth
    BadInput("invalid-utf8", replace_at(is_str, constant(b'"\xff"')), R),
    BadInput("overlong-utf8", replace_at(is_str, constant(b'"\xc0\xaf"')), R),
    BadInput("utf8-surrogate", replace_at(is_str, constant(b'"\xed\xa0\x80"')), R),
    BadInput("lone-surrogate-escape", replace_at(is_str, constant(b'"\\ud800"')), R),
    BadInput("lone-low-surrogate-escape", replace_at(is_str, constant(b'"a\\udc00"')), R),
    BadInput("reversed-surrogate-pair", replace_at(is_str, constant(b'"\\udc00\\ud800"')), R),
    BadInput("surrogate-in-key", replace_at(is_dict, _surrogate_key), R),
    BadInput("raw-control-character", replace_at(is_str, constant(b'"a\x01b"')), R),
    BadInput("invalid-escape", replace_at(is_str, constant(b'"\\x41"')), R),
    BadInput("unterminated-string", replace_at(is_str, constant(b'"abc')), R, "bad_request"),
    BadInput("duplicate-key", replace_at(is_dict, _duplicate_first), R),
    BadInput("duplicate-key-escaped", replace_at(is_dict, _duplicate_first_escaped), R),
    BadInput("minus-zero", replace_at(is_int, constant(b"-0")), R),
    BadInput("two-to-the-64", replace_at(is_int, constant(b"18446744073709551616")), R),
    BadInput("below-i64-min", replace_at(is_int, constant(b"-9223372036854775809")), R),
    BadInput("u64-max", replace_at(is_int, constant(b"18446744073709551615")), T),
    BadInput("i64-min", replace_at(is_int, constant(b"-9223372036854775808")), T),
    BadInput("huge-float", replace_at(is_int, constant(b"1e400")), R),
    BadInput("huge-negative-float", replace_at(is_int, constant(b"-1e400")), R),
    BadInput("tiny-float", replace_at(is_int, constant(b"1e-400")), T),
    BadInput("negative-zero-float", replace_at(is_int, constant(b"-0.0")), T),
    BadInput("integral-float", replace_at(is_int, constant(b"1.0")), T),
    BadInput("nan", replace_at(is_int, constant(b"NaN")), R),
    BadInput("infinity", replace_at(is_int, constant(b"Infinity")), R),
    BadInput("negative-infinity", replace_at(is_int, constant(b"-Infinity")), R),
    BadInput("hundred-thousand-digits", replace_at(is_int, constant(b"9" * 100_000)), R),
    BadInput("leading-zero", replace_at(is_int, constant(b"01")), R),
    BadInput("plus-sign", replace_at(is_int, constant(b"+1")), R),
    BadInput("hex-number", replace_at(is_int, constant(b"0x10")), R),
    BadInput("bare-fraction", replace_at(is_int, constant(b".5")), R),
    BadInput("misspelled-literal", replace_at(is_any, constant(b"True")), R),
    BadInput("trailing-comma-object", replace_at(is_dict, _trailing_comma_object), R),
    BadInput("trailing-comma-array", replace_at(is_list, _trailing_comma_array, []), R),
    BadInput("deep-inside-127", _deep_to(127), T),
    BadInput("deep-inside-128", _deep_to(128), R),
    BadInput("wrong-type", replace_at(is_any, _wrong_type), T),
    BadInput("null", replace_at(is_any, constant(b"null")), T),
    BadInput("unknown-field", replace_at(is_dict, _unknown_field), T),
    BadInput("missing-field", replace_at(is_dict, _missing_first), T),
    BadInput("string-of-15-mib", _first(is_str, _long_string), T, large=True),
    BadInput("key-of-15-mib", _root_object(_long_key), T, large=True),
    BadInput("50000-members", _root_object(_many_members), T),
    BadInput("200000-item-array", _first(is_list, _long_array, []), T),
    # ------------------------------------------------------------------ files that are not documents
    BadInput("sparse-1-gib", special(Special.SPARSE_1GIB), R, None, large=True),
    BadInput("dev-zero", special(Special.DEV_ZERO), R, None, large=True),
    BadInput("endless-fifo", special(Special.FIFO), R, None, large=True),
    BadInput("directory", special(Special.DIRECTORY), Expect.UNREADABLE, None),
    BadInput("missing-file", special(Special.MISSING), Expect.UNREADABLE, None),
)

BY_NAME = {bad.name: bad for bad in CLASSES}
assert len(BY_NAME) == len(CLASSES), "class names are unique"
