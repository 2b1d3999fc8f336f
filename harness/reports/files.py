"""Report files that a reader never sees stale or half-written.

A report is written to ``<name>.<pid>.partial`` beside its final path (any previous report at
the final path is removed when the run starts) and renamed into place when it is complete or the
run ends, however it ends: a reader finds either no report or a whole one, and two runs writing
the same path never write into one file. A run killed outright leaves its ``.partial`` file,
which holds every record written so far.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["partial_path", "publish", "replace_with", "start", "write_text"]


def partial_path(path: Path) -> Path:
    """This process's file for the report ``path`` while it is written."""
    return path.with_name(f"{path.name}.{os.getpid()}.partial")


def start(path: Path) -> Path:
    """Prepare to write the report ``path``: remove a previous one; the path to write to instead."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    return partial_path(path)


def publish(path: Path) -> None:
    """Move the written ``.partial`` file into place (atomic on one file system)."""
    partial = partial_path(path)
    if partial.exists():
        os.replace(partial, path)


def write_text(path: Path, text: str) -> None:
    """Write a whole report at once: to its ``.partial`` file, then into place."""
    with start(path).open("w", encoding="utf-8") as out:
        out.write(text)
    publish(path)


def replace_with(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` through a temporary file of its own (concurrent writers of one path
    never share a temporary file; the last rename wins, and a reader sees one whole file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
