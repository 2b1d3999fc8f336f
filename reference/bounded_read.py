"""Reading untrusted files with the size bound applied while reading, never after."""

from __future__ import annotations

import os
from pathlib import Path

from reference.errors import Serialization

__all__ = ["read_bounded"]

_CHUNK = 1 << 20


def read_bounded(path: str | os.PathLike[str], *, max_bytes: int, context: str) -> bytes:
    """The bytes of ``path``; ``Serialization(context)`` as soon as more than ``max_bytes`` are read.

    Works on pipes and devices (``/dev/zero`` is refused after ``max_bytes + 1`` bytes). A file
    that cannot be opened or read raises ``OSError``.
    """
    parts: list[bytes] = []
    total = 0
    with Path(path).open("rb") as handle:
        while total <= max_bytes:
            chunk = handle.read(min(_CHUNK, max_bytes + 1 - total))
            if not chunk:
                return b"".join(parts)
            parts.append(chunk)
            total += len(chunk)
    raise Serialization(context, f"input exceeds the limit of {max_bytes} bytes")  # rule: 01.5/input_read_bounded
