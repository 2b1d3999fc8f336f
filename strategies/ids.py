"""Identity strategies (spec 01 §1): readable portable ids, sets of distinct ids, hostile strings.

Generated ids look like ``<prefix>.<word>`` (``node.a``, ``operation.b3``) so
failing examples stay readable; they shrink towards ``<prefix>.a``. The full
portable alphabet (``A-Za-z0-9._:/-``) is exercised by ``portable_strings``.
"""

from __future__ import annotations

import hashlib
from typing import Final, TypeVar

from hypothesis import strategies as st

from reference.ids import (
    IDENTITY_MAX_BYTES,
    REASON_CHARSET,
    REASON_EMPTY,
    REASON_TOO_LONG,
    Identity,
)

__all__ = [
    "PORTABLE_ALPHABET",
    "distinct_identities",
    "hex_digests",
    "id_strings",
    "identities",
    "non_portable_strings",
    "portable_strings",
]

PORTABLE_ALPHABET: Final = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:/-"
_WORD_ALPHABET: Final = "abcdefghijklmnopqrstuvwxyz0123456789"

IdT = TypeVar("IdT", bound=Identity)


def portable_strings(min_size: int = 1, max_size: int = IDENTITY_MAX_BYTES) -> st.SearchStrategy[str]:
    """Any string accepted by the §1.1 identity rule (1..=160 bytes of ``A-Za-z0-9._:/-``)."""
    return st.text(alphabet=PORTABLE_ALPHABET, min_size=min_size, max_size=max_size)


def _words() -> st.SearchStrategy[str]:
    return st.text(alphabet=_WORD_ALPHABET, min_size=1, max_size=3)


def id_strings(prefix: str) -> st.SearchStrategy[str]:
    """Readable portable ids ``<prefix>.<word>``."""
    return _words().map(lambda word: f"{prefix}.{word}")


def identities(cls: type[IdT], prefix: str) -> st.SearchStrategy[IdT]:
    """Identities of ``cls`` spelled ``<prefix>.<word>``."""
    return id_strings(prefix).map(cls)


def distinct_identities(
    cls: type[IdT], prefix: str, min_size: int = 1, max_size: int = 3
) -> st.SearchStrategy[list[IdT]]:
    """A list of distinct identities (in draw order; callers sort when order must not matter)."""
    return st.lists(id_strings(prefix), min_size=min_size, max_size=max_size, unique=True).map(
        lambda values: [cls(v) for v in values]
    )


def hex_digests() -> st.SearchStrategy[str]:
    """Canonical sha256 strings: either one repeated hex digit (seed style) or a real digest."""
    return st.one_of(
        st.sampled_from("0123456789abcdef").map(lambda digit: digit * 64),
        st.binary(max_size=8).map(lambda data: hashlib.sha256(data).hexdigest()),
    )


def non_portable_strings() -> st.SearchStrategy[tuple[str, str]]:
    """Strings the §1.1 rule refuses, paired with the ``InvalidIdentity`` reason (first failing check)."""
    charset = st.tuples(
        portable_strings(0, 8),
        st.sampled_from([" ", "\t", "\n", "*", "\u00e9", "\u00a0", "\u2028", "\\", '"', "+", "@", "\x00"]),
        portable_strings(0, 8),
    ).map(lambda parts: ("".join(parts), REASON_CHARSET))
    too_long = st.integers(IDENTITY_MAX_BYTES + 1, IDENTITY_MAX_BYTES + 40).map(
        lambda size: ("a" * size, REASON_TOO_LONG)
    )
    # Multi-byte characters count in bytes: 81 two-byte chars are 162 bytes (length fails before charset).
    wide = st.integers(81, 100).map(lambda size: ("\u00e9" * size, REASON_TOO_LONG))
    return st.one_of(st.just(("", REASON_EMPTY)), charset, too_long, wide)
