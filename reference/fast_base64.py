"""Base64 text at the speed of a vectorised codec (``pybase64``), when it is installed.

``write_base64`` is standard padded base64 (RFC 4648 §4). ``canonical_base64`` only decides the plainly
canonical case and answers None for anything else, so ``wire.read_base64`` (the definition) still decides
and words every refusal; without ``pybase64`` both fall back to the standard library.
"""

from __future__ import annotations

import base64
import binascii
from types import ModuleType

__all__ = ["canonical_base64", "write_base64"]

_FAST: ModuleType | None
try:
    import pybase64 as _FAST
except ImportError:  # pragma: no cover - the package is a dependency; this keeps a bare install working
    _FAST = None


def write_base64(data: bytes | bytearray | memoryview) -> str:
    """Standard padded base64 text of ``data``."""
    if _FAST is not None:
        return str(_FAST.b64encode_as_string(data))
    return base64.b64encode(data).decode("ascii")


def canonical_base64(text: str | bytes | memoryview) -> bytes | None:
    """The bytes ``text`` spells when it is canonical standard padded base64 (only the alphabet, padding at
    the end, the length a multiple of four, zero unused bits in a padded last quantum); None when it is not
    or no fast decoder is installed, for the full check to decide.

    Every quantum but a padded last one decodes one to one, so the text is canonical when the last
    quantum re-encodes to itself.
    """
    if _FAST is None:
        return None
    try:
        data: bytes = _FAST.b64decode(text, validate=True)
    except (binascii.Error, ValueError, TypeError):
        return None
    size = len(data)
    if len(text) != 4 * ((size + 2) // 3):
        return None
    if size % 3:
        last = text[-4:]
        spelled = last.encode("ascii") if isinstance(last, str) else bytes(last)
        if _FAST.b64encode(data[-(size % 3) :]) != spelled:
            return None
    return data
