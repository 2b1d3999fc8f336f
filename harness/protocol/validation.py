"""Optional JSON Schema checks at the protocol boundary (``--validate-protocol``; always on in the project's tests).

Each operation's ``params`` and ``result`` objects are checked against
``schemas/protocol/operations/<name>.json`` (``$defs/params``, ``$defs/result``); a mismatch is a
``ProtocolError`` naming the operation and the schema path, so it is handled like any other
malformed message on that side of the connection.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jsonschema
import orjson

import schemas
from harness.protocol.codecs import ProtocolError, RawJson
from harness.protocol.operations import Operation

__all__ = ["SchemaCheck"]


def _plain(value: Any) -> Any:
    """``value`` with verbatim JSON texts parsed back, so a schema can see them."""
    if isinstance(value, RawJson):
        try:
            return orjson.loads(value.data)
        except orjson.JSONDecodeError:
            return None
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


@dataclass(frozen=True, slots=True)
class SchemaCheck:
    """Validates params and results when ``enabled``."""

    enabled: bool = False

    def _validate(self, operation: Operation[Any], part: str, instance: Any) -> None:
        validator = schemas.validator(f"{operation.schema}#/$defs/{part}")
        error = jsonschema.exceptions.best_match(validator.iter_errors(_plain(instance)))
        if error is not None:
            where = "/".join(str(item) for item in error.absolute_path) or "(root)"
            raise ProtocolError(
                f"{operation.name} {part} do not match {operation.schema} at {where}: {error.message[:200]}"
            )

    def params_object(self, operation: Operation[Any], params: dict[str, Any]) -> None:
        if self.enabled:
            self._validate(operation, "params", params)

    def params(self, operation: Operation[Any], args: tuple[Any, ...]) -> None:
        if self.enabled:
            self._validate(operation, "params", operation.encode_params(args))

    def result(self, operation: Operation[Any], result: dict[str, Any]) -> None:
        if self.enabled:
            self._validate(operation, "result", result)
