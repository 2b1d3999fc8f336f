"""Connectors, chosen with one ``--backend SPEC`` string.

* ``reference`` (default): the built-in reference, in process;
* ``python:MODULE:FACTORY``: any in-process Python backend (MODULE may be a ``.py`` path);
* ``exec:COMMAND ...``: an out-of-process backend speaking harness/PROTOCOL.md.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Literal

from harness.backend import Backend
from harness.backends.exec import ExecBackend, ExecOptions
from harness.backends.python import load_python_backend
from harness.backends.reference import ReferenceBackend

__all__ = ["DEFAULT_SPEC", "BackendSpec", "ExecBackend", "ExecOptions", "ReferenceBackend", "connect", "parse_spec"]

DEFAULT_SPEC = "reference"


@dataclass(frozen=True, slots=True)
class BackendSpec:
    """A parsed ``--backend`` string."""

    kind: Literal["reference", "python", "exec"]
    target: str
    text: str


def parse_spec(text: str) -> BackendSpec:
    """Parse ``reference`` | ``python:MODULE:FACTORY`` | ``exec:COMMAND ...``; ``ValueError`` otherwise."""
    stripped = text.strip()
    if stripped == "reference":
        return BackendSpec("reference", "", stripped)
    scheme, sep, rest = stripped.partition(":")
    if sep and scheme == "python":
        if rest.count(":") < 1:
            raise ValueError(f"python backend spec must be python:MODULE:FACTORY, got {text!r}")
        return BackendSpec("python", rest, stripped)
    if sep and scheme == "exec":
        try:
            argv = shlex.split(rest)
        except ValueError as exc:
            raise ValueError(f"cannot parse exec command {rest!r}: {exc}") from None
        if not argv:
            raise ValueError("exec backend spec needs a command: exec:COMMAND ...")
        return BackendSpec("exec", rest, stripped)
    raise ValueError(f"unknown backend spec {text!r}; use reference, python:MODULE:FACTORY or exec:COMMAND ...")


def connect(spec: str | BackendSpec, options: ExecOptions | None = None) -> Backend:
    """Build the backend ``spec`` names. An exec backend is started lazily, at its first call."""
    parsed = parse_spec(spec) if isinstance(spec, str) else spec
    if parsed.kind == "reference":
        return ReferenceBackend()
    if parsed.kind == "python":
        return load_python_backend(parsed.target)
    return ExecBackend(parsed.target, options)
