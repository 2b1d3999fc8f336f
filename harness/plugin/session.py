"""``BackendSession``: the connection to the backend under test and the reference oracle, per process.

The backend is connected once per process (each pytest-xdist worker has its own). A
connection that fails is remembered: every later case meets the same backend, which answers
with an ``unavailable`` fault recorded on the connection, so each case reports the cause.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Mapping
from typing import Any

import jsonschema

import schemas
from harness.backends import DEFAULT_SPEC, BackendLoadError, CallTracer, ErrorObserver, open_connection
from harness.connection.base import Connection
from harness.connection.client import Client
from harness.connection.exec import ExecConnection
from harness.connection.faults import BackendFault, Fault
from harness.plugin.settings import RunSettings
from harness.protocol.description import BackendDescription
from harness.under_test import BackendUnderTest

__all__ = ["BackendSession"]


class BackendSession:
    """Lazily connected backend under test and oracle."""

    def __init__(self, settings: RunSettings) -> None:
        self.settings = settings
        self._connection: Connection | None = None
        self._under_test: BackendUnderTest | None = None
        self._oracle: BackendUnderTest | None = None
        #: Sees each refusal of the oracle (set by the run before the first case).
        self.oracle_observer: ErrorObserver | None = None
        #: Watches the functions of the oracle's answers (set by the run before the first case).
        self.oracle_tracer: CallTracer | None = None
        self._load_error: BackendLoadError | None = None
        self._fresh: list[Client] = []

    def connection(self) -> Connection:
        """The backend's connection (created, not necessarily handshaken); ``BackendLoadError`` if unloadable."""
        if self._load_error is not None:
            raise self._load_error
        if self._connection is None:
            try:
                self._connection = open_connection(
                    self.settings.spec, self.settings.exec_options, check=self.settings.check
                )
            except BackendLoadError as exc:
                self._load_error = exc
                raise
        return self._connection

    def description(self) -> BackendDescription:
        """Handshake (once); ``BackendFault`` for every call after a failed handshake."""
        return self.connection().open()

    def under_test(self) -> BackendUnderTest:
        if self._under_test is None:
            connection = self.connection()
            description = connection.open()
            self._under_test = BackendUnderTest(
                Client(connection, check=self.settings.check),
                description,
                spec=self.settings.spec.text,
                fresh=self._start_fresh,
            )
        return self._under_test

    def oracle(self) -> BackendUnderTest:
        if self._oracle is None:
            connection = open_connection(
                DEFAULT_SPEC, check=self.settings.check, observer=self.oracle_observer, tracer=self.oracle_tracer
            )
            self._oracle = BackendUnderTest(
                Client(connection, check=self.settings.check),
                connection.open(),
                spec=DEFAULT_SPEC,
                role="reference oracle",
            )
        return self._oracle

    def _start_fresh(self, environment: Mapping[str, str]) -> Client:
        """The backend under test served by a new process whose environment has ``environment`` changed."""
        connection = self.connection()
        options = dataclasses.replace(self.settings.exec_options, env={**os.environ, **environment})
        client = Client(ExecConnection(connection.serve_command(), options), check=self.settings.check)
        self._fresh.append(client)
        return client

    # ------------------------------------------------------------ per-case side data

    def fault_mark(self) -> int:
        return len(self._connection.faults) if self._connection is not None else 0

    def faults_since(self, mark: int) -> list[Fault]:
        return list(self._connection.faults[mark:]) if self._connection is not None else []

    def stderr_mark(self) -> int:
        log = self._connection.stderr if self._connection is not None else None
        return log.mark() if log is not None else 0

    def stderr_since(self, mark: int) -> str:
        log = self._connection.stderr if self._connection is not None else None
        return log.since(mark) if log is not None else ""

    def stderr_tail(self) -> str:
        return self._connection.stderr_tail() if self._connection is not None else ""

    def header_block(self) -> dict[str, Any]:
        """The report header's backend block: spec plus description, or why it could not be had."""
        block: dict[str, Any] = {"spec": self.settings.spec.text, "description": None, "error": None}
        try:
            wire = self.description().to_wire()
            problem = jsonschema.exceptions.best_match(schemas.validator("protocol/describe.json").iter_errors(wire))
            if problem is None:
                block["description"] = wire
            else:
                where = "/".join(str(part) for part in problem.absolute_path) or "(root)"
                block["error"] = {"kind": "invalid_description", "detail": f"{where}: {problem.message[:300]}"}
        except BackendFault as exc:
            block["error"] = exc.fault.to_wire()
        except BackendLoadError as exc:
            block["error"] = {"kind": "load_failed", "detail": str(exc)}
        return block

    def close(self) -> None:
        for client in self._fresh:
            with contextlib.suppress(Exception):
                client.close()
        self._fresh.clear()
        connection, self._connection = self._connection, None
        self._under_test = None
        if connection is not None:
            with contextlib.suppress(Exception):
                connection.close()
        oracle, self._oracle = self._oracle, None
        if oracle is not None:
            with contextlib.suppress(Exception):
                oracle.close()
