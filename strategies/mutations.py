"""Schema-directed mutations of a scenario document: one JSON path, one fixed mutation of its kind.

Every JSON path of a scenario is enumerated in document order and classified by the kind of its value
(integer, string, boolean, null, array, object). A fixed table of mutations applies to each kind:

* integer: ``0``, ``-1``, the first value past ``u32`` and past ``u64`` (the widest Rust integer types the
  contract uses), ``2**53 + 1`` (the first integer a float cannot hold), the value as a float;
* string: empty, 161 bytes (one past the portable-identity limit), a character outside the identity
  alphabet, an unknown spelling (an enum word that is not one, or an id that names nothing), upper case;
* boolean: flipped, or as the integer ``1``;
* null: replaced by ``0``, by a string, by an empty object;
* array: emptied, its first element duplicated (two entries with the same id when they carry one), its
  first two elements swapped (where they differ);
* object: each member removed in turn, an unknown member added, a member whose key is an id renamed to
  one that names nothing (a dangling map key).

Every value that is not ``null`` may also be replaced by ``null`` (a required member given as absent).
A *cell* is one (base scenario, path, mutation) triple; its id ``<base>:<path>:<mutation>`` is stable
across runs, so a suite keeps a fixed list of cells. The mutated document is the reference's to judge:
the cell carries no expected outcome.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from hypothesis import strategies as st

from strategies.budget import BASES, base_scenario

__all__ = [
    "MUTATION_NAMES",
    "MUTATION_OPERATORS",
    "Cell",
    "Path",
    "apply",
    "cell_from_id",
    "cells_of",
    "decoding_rules",
    "expected_kind",
    "format_path",
    "json_paths",
    "mutation_cells",
    "mutations_at",
    "operator_cells",
    "operator_of",
    "parse_path",
]

Path = tuple[str | int, ...]

#: A member name no decoder of the contract knows.
UNKNOWN_MEMBER: Final = "unexpected_member"
#: The suffix that turns an identity into one that names nothing (still a portable identity).
DANGLING_SUFFIX: Final = ".missing"
_U32_PAST: Final = 2**32
_U64_PAST: Final = 2**64
_FLOAT_EXACT_PAST: Final = 2**53 + 1
_LONG: Final = 161

Replace = Callable[[Any], Any]

_INTEGER: Final[Mapping[str, Replace]] = {
    "zero": lambda value: 0,
    "minus_one": lambda value: -1,
    "past_u32": lambda value: _U32_PAST,
    "past_u64": lambda value: _U64_PAST,
    "past_f64_exact": lambda value: _FLOAT_EXACT_PAST,
    "as_float": lambda value: float(value) + 0.5,
}
_STRING: Final[Mapping[str, Replace]] = {
    "empty": lambda value: "",
    "long": lambda value: (value + "a" * _LONG)[:_LONG] if value else "a" * _LONG,
    "outside_alphabet": lambda value: value + "!",
    "unknown_spelling": lambda value: value + DANGLING_SUFFIX,
    "upper": lambda value: value.upper(),
}
_BOOLEAN: Final[Mapping[str, Replace]] = {
    "flip": lambda value: not value,
    "as_integer": lambda value: 1,
}
_NULL: Final[Mapping[str, Replace]] = {
    "as_zero": lambda value: 0,
    "as_string": lambda value: "value",
    "as_object": lambda value: {},
}
_ARRAY: Final[Mapping[str, Replace]] = {
    "empty": lambda value: [],
    "duplicate_first": lambda value: [copy.deepcopy(value[0]), *value],
    "swap_first_two": lambda value: [value[1], value[0], *value[2:]],
}
_NULLED: Final = "null"

#: Every mutation name, by kind (object mutations are named per member: ``drop:<key>``, ``rekey:<key>``).
MUTATION_NAMES: Final[Mapping[str, tuple[str, ...]]] = {
    "integer": (*_INTEGER, _NULLED),
    "string": (*_STRING, _NULLED),
    "boolean": (*_BOOLEAN, _NULLED),
    "null": tuple(_NULL),
    "array": (*_ARRAY, _NULLED),
    "object": ("drop:<key>", "unknown_member", "rekey:<key>", _NULLED),
}
#: Every mutation operator, ``<kind>:<name>``: one mutation of one kind of value.
MUTATION_OPERATORS: Final[tuple[str, ...]] = tuple(
    f"{kind}:{name}" for kind, names in MUTATION_NAMES.items() for name in names
)


def kind_of(value: Any) -> str:
    """The JSON kind of ``value``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def json_paths(document: Any, prefix: Path = ()) -> Iterator[tuple[Path, Any]]:
    """Every (path, value) of ``document``, the document itself first, members in document order."""
    yield prefix, document
    if isinstance(document, dict):
        for key, value in document.items():
            yield from json_paths(value, (*prefix, key))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            yield from json_paths(value, (*prefix, index))


def format_path(path: Path) -> str:
    """``/``-separated path; a member name that is all digits or holds ``/`` or ``~`` is escaped."""
    parts = []
    for part in path:
        if isinstance(part, int):
            parts.append(str(part))
        else:
            escaped = part.replace("~", "~0").replace("/", "~1")
            parts.append("~2" + escaped if escaped.isdigit() else escaped)
    return "/".join(parts)


def parse_path(text: str, document: Any) -> Path:
    """The path ``format_path`` wrote, read against ``document`` (an index where the value is an array)."""
    out: list[str | int] = []
    node = document
    for raw in text.split("/") if text else []:
        if isinstance(node, list):
            index = int(raw)
            out.append(index)
            node = node[index]
        else:
            key = raw[2:] if raw.startswith("~2") else raw
            key = key.replace("~1", "/").replace("~0", "~")
            out.append(key)
            node = node[key]
    return tuple(out)


def _dropping(key: str) -> Replace:
    return lambda obj: {k: v for k, v in obj.items() if k != key}


def _renaming(key: str) -> Replace:
    return lambda obj: {(k + DANGLING_SUFFIX if k == key else k): v for k, v in obj.items()}


def _object_mutations(value: Mapping[str, Any]) -> Iterator[tuple[str, Replace]]:
    for key in value:
        yield f"drop:{key}", _dropping(key)
    if UNKNOWN_MEMBER not in value:
        yield "unknown_member", lambda obj: {**obj, UNKNOWN_MEMBER: 0}
    for key in value:
        if "." in key and key + DANGLING_SUFFIX not in value:
            yield f"rekey:{key}", _renaming(key)


def mutations_at(value: Any) -> Iterator[tuple[str, Replace]]:
    """The applicable mutations of a value: (name, replacement function), in table order.

    A mutation that would leave the value unchanged (an upper-case spelling of an upper-case word, a swap
    of two equal elements) does not apply.
    """
    kind = kind_of(value)
    table: Mapping[str, Replace]
    if kind == "object":
        yield from _object_mutations(value)
    elif kind == "array":
        for name, replace in _ARRAY.items():
            if name == "empty" and not value:
                continue
            if name == "duplicate_first" and not value:
                continue
            if name == "swap_first_two" and (len(value) < 2 or value[0] == value[1]):
                continue
            yield name, replace
    else:
        table = {"integer": _INTEGER, "string": _STRING, "boolean": _BOOLEAN, "null": _NULL}.get(kind, {})
        for name, replace in table.items():
            if replace(value) == value and type(replace(value)) is type(value):
                continue
            yield name, replace
    if kind != "null":
        yield _NULLED, lambda old: None


def apply(document: Any, path: Path, replace: Replace) -> Any:
    """A deep copy of ``document`` with the value at ``path`` replaced by ``replace(value)``."""
    out = copy.deepcopy(document)
    if not path:
        return replace(out)
    parent = out
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = replace(parent[path[-1]])
    return out


@dataclass(frozen=True, slots=True)
class Cell:
    """One mutated scenario: the base it comes from, the mutated path and the mutation's name."""

    base: str
    path: Path
    mutation: str

    @property
    def id(self) -> str:
        return f"{self.base}:{format_path(self.path)}:{self.mutation}"

    @property
    def section(self) -> str:
        """The top-level member of the scenario the mutation is in (``scenario`` for the document)."""
        return str(self.path[0]) if self.path else "scenario"

    def scenario(self) -> dict[str, Any]:
        """The base scenario with this cell's mutation applied."""
        document = _base(self.base)
        value: Any = document
        for part in self.path:
            value = value[part]
        for name, replace in mutations_at(value):
            if name == self.mutation:
                mutated = apply(document, self.path, replace)
                assert isinstance(mutated, dict)
                return mutated
        raise KeyError(f"{self.id}: no such mutation")


@functools.cache
def _base(name: str) -> dict[str, Any]:
    """The named base scenario, read only (``apply`` copies it)."""
    return base_scenario(name)


def cells_of(base: str, sections: Sequence[str] | None = None) -> Iterator[Cell]:
    """Every cell of ``base``: each path of each section (all sections by default), each mutation."""
    document = _base(base)
    for path, value in json_paths(document):
        if not path or (sections is not None and path[0] not in sections):
            continue
        for name, _ in mutations_at(value):
            yield Cell(base, path, name)


def operator_of(kind: str, mutation: str) -> str:
    """The operator (``MUTATION_OPERATORS``) a mutation of a value of ``kind`` is: ``drop:<key>`` for any key."""
    for prefix in ("drop:", "rekey:"):
        if mutation.startswith(prefix):
            return f"{kind}:{prefix}<key>"
    return f"{kind}:{mutation}"


@functools.cache
def operator_cells(base: str) -> Mapping[str, Cell]:
    """One cell of ``base`` per mutation operator that applies in it: the first in document order."""
    out: dict[str, Cell] = {}
    for path, value in json_paths(_base(base)):
        if not path:
            continue
        for name, _ in mutations_at(value):
            out.setdefault(operator_of(kind_of(value), name), Cell(base, path, name))
    return {operator: out[operator] for operator in MUTATION_OPERATORS if operator in out}


def cell_from_id(cell_id: str) -> Cell:
    """The cell an id names (``<base>:<path>:<mutation>``); the mutation may itself hold a ``:``."""
    base, rest = cell_id.split(":", 1)
    text, mutation = rest.split(":", 1)
    if ":" in mutation and not mutation.startswith(("drop:", "rekey:")):
        raise ValueError(f"{cell_id}: a path holding ':' is not supported")
    return Cell(base, parse_path(text, _base(base)), mutation)


#: Mutations whose decoding rule is known wherever the scenario declares an unsigned integer or a fixed
#: type: a value past ``u64`` (01.3.3), a float or a boolean where an integer is declared (01.3.6), a
#: negative value where an unsigned one is (01.5: every integer of the base scenarios is unsigned).
_SERIALIZATION_MUTATIONS: Final = frozenset({"past_u64", "as_float", "as_integer", "minus_one"})
#: Paths whose values are free JSON checked by a family's own schema, not by the typed decoder.
_FREE_JSON: Final[tuple[Path, ...]] = (("family", "raw_config"), ("family", "document", "config", "value"))


def expected_kind(cell: Cell) -> str | None:
    """The error kind the decoding rule names for ``cell``, when one rule decides it."""
    if cell.mutation not in _SERIALIZATION_MUTATIONS:
        return None
    if any(cell.path[: len(prefix)] == prefix for prefix in _FREE_JSON):
        return None
    return "serialization"


#: The catalogue rule a mutation's refusal checks wherever ``expected_kind`` names its kind, when one rule decides it
#: before any typed decoder reads the value: an integer past ``u64`` is a float to serde, refused wherever an integer
#: is declared (01.3.3), however wide. (A negative, a float or an integer past ``u32`` is refused by the typed
#: decoder of its field, whose raise site names its own rule.)
_DECODING_RULES: Final[Mapping[str, str]] = {"past_u64": "01.3.3/decode_integer_out_of_range"}


def decoding_rules(cell: Cell) -> tuple[str, ...]:
    """The catalogue rules the refusal of ``cell`` checks by its mutation alone (``_DECODING_RULES``): none unless
    ``expected_kind`` names the kind its refusal must have."""
    rule = _DECODING_RULES.get(cell.mutation)
    return (rule,) if rule is not None and expected_kind(cell) is not None else ()


@functools.cache
def _table(base: str) -> tuple[Cell, ...]:
    return tuple(cells_of(base))


def mutation_cells() -> st.SearchStrategy[Cell]:
    """A cell of the full table: any base, any path, any mutation that applies to it."""
    return st.sampled_from(BASES).flatmap(lambda base: st.sampled_from(_table(base)))
