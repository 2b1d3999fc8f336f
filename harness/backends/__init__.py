"""Backends by ``--backend SPEC``, each reached through one ``Connection`` and a typed ``Client``.

* ``reference`` (default): the built-in reference, served in process;
* ``python:MODULE:FACTORY``: any in-process Python implementation, served in process;
* ``exec:COMMAND ...``: an out-of-process backend speaking harness/PROTOCOL.md.
"""

from __future__ import annotations

import enum
import shlex
from dataclasses import dataclass

from harness.backends.python import BackendLoadError, load_python_backend
from harness.backends.reference import CallTracer, ErrorObserver, ReferenceImplementation
from harness.connection.base import Connection
from harness.connection.client import Client
from harness.connection.exec import ExecConnection, ExecOptions
from harness.connection.inprocess import InProcessConnection
from harness.protocol.server import Server
from harness.protocol.validation import SchemaCheck

__all__ = [
    "DEFAULT_SPEC",
    "BackendLoadError",
    "BackendSpec",
    "CallTracer",
    "ErrorObserver",
    "SpecKind",
    "connect",
    "open_connection",
    "parse_spec",
]

DEFAULT_SPEC = "reference"


class SpecKind(enum.StrEnum):
    REFERENCE = "reference"
    PYTHON = "python"
    EXEC = "exec"


@dataclass(frozen=True, slots=True)
class BackendSpec:
    """A parsed ``--backend`` string."""

    kind: SpecKind
    target: str
    text: str
    argv: tuple[str, ...] = ()

    @property
    def in_process(self) -> bool:
        return self.kind is not SpecKind.EXEC


def parse_spec(text: str) -> BackendSpec:
    """Parse ``reference`` | ``python:MODULE:FACTORY`` | ``exec:COMMAND ...``; ``ValueError`` otherwise."""
    stripped = text.strip()
    if stripped == "reference":
        return BackendSpec(SpecKind.REFERENCE, "", stripped)
    scheme, sep, rest = stripped.partition(":")
    if sep and scheme == "python":
        if rest.count(":") < 1:
            raise ValueError(f"python backend spec must be python:MODULE:FACTORY, got {text!r}")
        return BackendSpec(SpecKind.PYTHON, rest, stripped)
    if sep and scheme == "exec":
        try:
            argv = shlex.split(rest)
        except ValueError as exc:
            raise ValueError(f"cannot parse exec command {rest!r}: {exc}") from None
        if not argv:
            raise ValueError("exec backend spec needs a command: exec:COMMAND ...")
        return BackendSpec(SpecKind.EXEC, rest, stripped, tuple(argv))
    raise ValueError(f"unknown backend spec {text!r}; use reference, python:MODULE:FACTORY or exec:COMMAND ...")


def implementation(
    spec: BackendSpec, observer: ErrorObserver | None = None, tracer: CallTracer | None = None
) -> object:
    """The in-process implementation a ``reference`` or ``python:`` spec names (``observer``, ``tracer``: the
    reference's)."""
    if spec.kind is SpecKind.REFERENCE:
        return ReferenceImplementation(observer, tracer)
    if spec.kind is SpecKind.PYTHON:
        return load_python_backend(spec.target)
    raise ValueError(f"{spec.text!r} is not an in-process backend")


def open_connection(
    spec: str | BackendSpec,
    options: ExecOptions | None = None,
    *,
    check: SchemaCheck | None = None,
    observer: ErrorObserver | None = None,
    tracer: CallTracer | None = None,
) -> Connection:
    """The connection ``spec`` names (not yet handshaken). ``BackendLoadError`` for an unloadable ``python:``.

    ``observer`` sees each contract error the built-in reference raises and ``tracer`` the functions of its
    answers (in process only)."""
    parsed = parse_spec(spec) if isinstance(spec, str) else spec
    options = options or ExecOptions()
    if parsed.kind is SpecKind.EXEC:
        return ExecConnection(parsed.argv, options, spec=parsed.text)
    server = Server(implementation(parsed, observer, tracer), max_request_bytes=options.max_request_bytes, check=check)
    return InProcessConnection(
        parsed.text, server, max_reply_bytes=options.max_reply_bytes, serve_args=["--backend", parsed.text]
    )


def connect(spec: str | BackendSpec, options: ExecOptions | None = None, *, check: SchemaCheck | None = None) -> Client:
    """A typed client of the backend ``spec`` names. The connection is opened at the first call."""
    return Client(open_connection(spec, options, check=check), check=check)
