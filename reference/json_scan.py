"""Structural scan of untrusted JSON text, in bounded memory, before any parser builds objects.

``max_depth`` measures array/object nesting; ``root_members`` locates the members of a root
object (key text and value span). Both read the bytes in fixed-size chunks with vectorised
passes, so memory stays constant per input byte and a too-deep or too-large input is refused
without materialising it. The scan only *locates* structure: every key and value it finds is
still parsed by the strict decoder, and the text between them must be exactly the JSON
punctuation, so an input the scan misreads can only be refused, never accepted. Where the
package was built with a compiler (``reference.compiled``), one pass in C answers the common
case (a depth below the limit, a cleanly closed root object) and the chunked passes answer the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Final

import numpy as np
import numpy.typing as npt

from reference.compiled import compiled_checks

__all__ = ["CHUNK_BYTES", "Member", "ScanError", "max_depth", "root_members"]

CHUNK_BYTES: Final = 1 << 18
#: ``reference/_jsonscan.c`` (``text_facts``, ``root_separators``), or None: then only the chunked passes run.
_COMPILED: ModuleType | None = compiled_checks()
_NO_LIMIT: Final = 1 << 62
_QUOTE: Final = 0x22
_BACKSLASH: Final = 0x5C
_STEP: Final = np.zeros(256, dtype=np.int8)
_STEP[ord("[")] = 1
_STEP[ord("{")] = 1
_STEP[ord("]")] = -1
_STEP[ord("}")] = -1
_INTERESTING: Final = np.zeros(256, dtype=np.bool_)
for _char in b'[]{},:"\\':
    _INTERESTING[_char] = True
_WHITESPACE: Final = b" \t\n\r"


class ScanError(ValueError):
    """The text is not shaped as the scan requires (unbalanced, not an object, too many members)."""


@dataclass(frozen=True, slots=True)
class Member:
    """One member of the root object: the key's JSON text, the value's byte span and nesting depth."""

    key: bytes
    start: int
    end: int
    depth: int


@dataclass(slots=True)
class _Carry:
    """What one chunk hands to the next."""

    in_string: bool = False
    backslashes: int = 0
    depth: int = 0


def _chunk_structure(chunk: npt.NDArray[np.uint8], carry: _Carry) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.int64]]:
    """Positions of the structural bytes outside strings in ``chunk``, and the depth after each.

    Works on the sparse array of interesting bytes (brackets, separators, quotes, backslashes),
    so its cost is one pass over the chunk plus work proportional to the structure. A quote
    ends or starts a string unless an odd run of backslashes stands right before it.
    """
    size = chunk.shape[0]
    positions = np.flatnonzero(_INTERESTING[chunk])
    count = positions.shape[0]
    chars = chunk[positions]
    backslash = chars == _BACKSLASH
    adjacent = np.zeros(count, dtype=np.bool_)  # element k directly follows a backslash
    if count:
        adjacent[0] = positions[0] == 0 and carry.backslashes > 0
        adjacent[1:] = backslash[:-1] & (positions[1:] == positions[:-1] + 1)
    index = np.arange(count, dtype=np.int64)
    run_start = np.maximum.accumulate(np.where(backslash & ~adjacent, index, -1)) if count else index
    # length of the backslash run ending at element k (meaningful where ``backslash``)
    run_length = np.where(run_start < 0, index + 1 + carry.backslashes, index - run_start + 1)
    quote = chars == _QUOTE
    preceding = np.zeros(count, dtype=np.int64)  # backslashes right before element k
    if count:
        preceding[1:] = np.where(adjacent[1:], run_length[:-1], 0)
        preceding[0] = carry.backslashes if adjacent[0] else 0
    real_quote = quote & (preceding % 2 == 0)
    parity = (np.cumsum(real_quote, dtype=np.int64) - real_quote + int(carry.in_string)) % 2
    structural = ~(quote | backslash) & (parity == 0)
    outside = positions[structural]
    depths = carry.depth + np.cumsum(_STEP[chars[structural]], dtype=np.int64)
    carry.backslashes = int(run_length[-1]) if count and backslash[-1] and positions[-1] == size - 1 else 0
    carry.in_string = bool((int(real_quote.sum()) + int(carry.in_string)) % 2)
    if depths.shape[0]:
        carry.depth = int(depths[-1])
    return outside, depths


def _chunks(data: bytes, chunk_bytes: int) -> list[tuple[int, npt.NDArray[np.uint8]]]:
    view = np.frombuffer(data, dtype=np.uint8)
    return [(offset, view[offset : offset + chunk_bytes]) for offset in range(0, len(data), chunk_bytes)]


def max_depth(data: bytes, *, limit: int | None = None, chunk_bytes: int = CHUNK_BYTES) -> int:
    """The deepest array/object nesting of ``data``; stops early once ``limit`` is reached.

    Brackets inside strings do not count. For text that is not JSON the figure is only an
    upper bound of what a parser would meet before it fails.
    """
    if _COMPILED is not None and chunk_bytes == CHUNK_BYTES:
        deepest_below_limit: int = _COMPILED.text_facts(data, _NO_LIMIT if limit is None else limit)[0]
        if deepest_below_limit >= 0:
            return deepest_below_limit
    carry = _Carry()
    deepest = 0
    for _, chunk in _chunks(data, chunk_bytes):
        _, depths = _chunk_structure(chunk, carry)
        if depths.size:
            deepest = max(deepest, int(depths.max()))
            if limit is not None and deepest >= limit:
                return deepest
    return deepest


def _strip(data: bytes, start: int, end: int) -> tuple[int, int]:
    while start < end and data[start] in _WHITESPACE:
        start += 1
    while end > start and data[end - 1] in _WHITESPACE:
        end -= 1
    return start, end


def root_members(data: bytes, *, max_members: int, chunk_bytes: int = CHUNK_BYTES) -> list[Member]:
    """The members of the root object of ``data``, in text order; ``ScanError`` when not an object.

    Each member carries the nesting depth of its value (0 for a scalar, 1 for ``[]``...), so a
    caller can refuse a too-deep value before parsing it. Duplicate keys are returned as they
    are (the caller decodes keys and refuses repeats). More than ``max_members`` members is
    ``ScanError`` as soon as the scan sees it.
    """
    begin, finish = _strip(data, 0, len(data))
    if begin >= finish or data[begin] != ord("{"):
        raise ScanError("expected a JSON object")
    if _COMPILED is not None and chunk_bytes == CHUNK_BYTES:
        found: list[tuple[int, int, int]] | None = _COMPILED.root_separators(data, max_members)
        if found is not None:
            return _members(data, begin + 1, found)
    carry = _Carry()
    # (position, byte, deepest level since the previous separator) of ',' ':' and the closing '}'
    separators: list[tuple[int, int, int]] = []
    running = 0
    close = -1
    for offset, chunk in _chunks(data, chunk_bytes):
        positions, depths = _chunk_structure(chunk, carry)
        if positions.size == 0:
            continue
        if int(depths.min()) < 0:
            raise ScanError("unbalanced brackets")
        closing = np.flatnonzero(depths == 0)
        limit = int(closing[0]) + 1 if closing.size else positions.size
        depths, positions = depths[:limit], positions[:limit]
        bytes_ = chunk[positions]
        boundary = np.flatnonzero(((depths == 1) & ((bytes_ == ord(",")) | (bytes_ == ord(":")))) | (depths == 0))
        starts = np.concatenate(([0], boundary + 1))
        starts = starts[starts < depths.size]
        deepest = np.maximum.reduceat(depths, starts) if starts.size else np.zeros(0, dtype=np.int64)
        for number, index in enumerate(boundary.tolist()):
            level = max(running, int(deepest[number])) if number == 0 else int(deepest[number])
            separators.append((offset + int(positions[index]), int(bytes_[index]), level))
            running = 0
        tail = int(deepest[-1]) if starts.size > boundary.size else 0
        running = max(running, tail) if boundary.size == 0 else tail
        if len(separators) > 2 * max_members + 1:
            raise ScanError(f"more than {max_members} members")
        if closing.size:
            close = offset + int(positions[-1])
            break
    if close < 0:
        raise ScanError("the root object is not closed")
    if _strip(data, close + 1, len(data))[0] != len(data):
        raise ScanError("trailing characters after the root object")
    return _members(data, begin + 1, separators)


def _members(data: bytes, start: int, separators: list[tuple[int, int, int]]) -> list[Member]:
    members: list[Member] = []
    cursor = start
    colon = -1
    close = separators[-1][0]
    for position, byte, level in separators:
        if byte == ord(":"):
            if colon >= 0:
                raise ScanError("a member has two ':'")
            colon = position
            continue
        if colon < 0:
            if not members and position == close and _strip(data, cursor, close)[0] == close:
                return members  # {}
            raise ScanError("a member lacks ':'")
        key_start, key_end = _strip(data, cursor, colon)
        value_start, value_end = _strip(data, colon + 1, position)
        if key_start == key_end or value_start == value_end:
            raise ScanError("a member lacks its key or its value")
        members.append(Member(data[key_start:key_end], value_start, value_end, max(level - 1, 0)))
        cursor, colon = position + 1, -1
    return members
