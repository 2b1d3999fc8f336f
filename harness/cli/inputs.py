"""Reading a command's input files: bounded while reading, then the strict decoder."""

from __future__ import annotations

from typing import Any

from reference.bounded_read import read_bounded
from reference.canonical import loads_strict

__all__ = ["InputError", "read_input", "read_json"]


class InputError(Exception):
    """An input file cannot be read (a usage error, not a contract rejection)."""


def read_input(path: str, *, max_bytes: int, context: str) -> bytes:
    """The bytes of ``path``; ``InputError`` when it cannot be opened, ``Serialization`` when over ``max_bytes``."""
    try:
        return read_bounded(path, max_bytes=max_bytes, context=context)
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None


def read_json(path: str, *, max_bytes: int, context: str) -> Any:
    """``read_input`` then the strict decoder (``Serialization`` on any rejection)."""
    return loads_strict(read_input(path, max_bytes=max_bytes, context=context), context=context, max_bytes=max_bytes)
