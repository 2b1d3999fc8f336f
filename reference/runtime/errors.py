"""The reference runtime's ``Error`` type and the two submission/fence failure wrappers (spec 03 §13.1).

``DeviceRuntimeError`` is the runtime's own error (displayable; ``describe_error``
turns it into a ``DeviceErrorReport``). It is not a ``VNextError``: contract
rule violations found while encoding (bounds, element types) are raised as
``InvalidExecutionPlan`` by the data types; the runtime raises its own error for
device-state failures (foreign handles, dead buffers, unsupported requests).
"""

from __future__ import annotations

__all__ = ["DefinitelyNotSubmitted", "DeviceRuntimeError", "FenceIndeterminate"]


class DeviceRuntimeError(Exception):
    """A runtime failure: ``str(err)`` is its message."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class DefinitelyNotSubmitted(Exception):
    """``submit`` enqueued nothing; resources may be released and the submit retried."""

    def __init__(self, error: DeviceRuntimeError) -> None:
        super().__init__(f"definitely not submitted: {error}")
        self.error = error


class FenceIndeterminate(Exception):
    """A blocking wait could not prove quiescence; nothing may be released."""

    def __init__(self, error: DeviceRuntimeError) -> None:
        super().__init__(f"fence indeterminate: {error}")
        self.error = error
