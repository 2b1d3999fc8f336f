"""Per-case side data carried on pytest reports (structured values, safe across xdist workers).

The worker that runs a case attaches, at teardown, the faults its connection recorded during
the case, the counterexample bundles written and the backend's stderr; a *not applicable*
outcome is attached to the phase report that raised it. The process that reports (the xdist
controller, or the only process) reads them back with ``case_data``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from harness.cases import NotApplicableReason
from harness.connection.faults import Fault

__all__ = ["CASE_ID", "EXAMPLES", "NOT_APPLICABLE", "RULES", "SUITE", "CaseData", "case_data", "properties"]

CASE_ID: Final = "vnext_case_id"
SUITE: Final = "vnext_suite"
NOT_APPLICABLE: Final = "vnext_not_applicable"
RULES: Final = "vnext_rules"
EXAMPLES: Final = "vnext_examples"
_FAULT: Final = "vnext_fault"
_COUNTEREXAMPLE: Final = "vnext_counterexample"
_STDERR: Final = "vnext_backend_stderr"
_STDERR_LIMIT: Final = 8192


@dataclass
class CaseData:
    """What one case left besides its outcome."""

    case_id: str | None = None
    suite: str | None = None
    not_applicable: NotApplicableReason | None = None
    faults: list[Fault] = field(default_factory=list)
    counterexamples: list[str] = field(default_factory=list)
    backend_stderr: str = ""
    rules: list[str] = field(default_factory=list)
    examples: int | None = None


def properties(
    *,
    faults: Iterable[Fault],
    counterexamples: Iterable[str],
    stderr: str,
    rules: Iterable[str],
    examples: int | None = None,
) -> list[tuple[str, Any]]:
    """The user properties that carry a case's side data (``examples``: of a generated case)."""
    out: list[tuple[str, Any]] = [(_FAULT, fault.to_wire()) for fault in faults]
    if examples is not None:
        out.append((EXAMPLES, examples))
    checked = sorted(set(rules))
    if checked:
        out.append((RULES, checked))
    out += [(_COUNTEREXAMPLE, path) for path in counterexamples]
    if stderr:
        out.append((_STDERR, stderr[-_STDERR_LIMIT:]))
    return out


def case_data(props: Iterable[tuple[str, Any]]) -> CaseData:
    """Read the side data back from a report's user properties."""
    data = CaseData()
    for name, value in props:
        if name == CASE_ID:
            data.case_id = str(value)
        elif name == SUITE:
            data.suite = str(value)
        elif name == NOT_APPLICABLE and isinstance(value, dict):
            data.not_applicable = NotApplicableReason.from_wire(value)
        elif name == _FAULT and isinstance(value, dict):
            data.faults.append(Fault.from_wire(value))
        elif name == _COUNTEREXAMPLE:
            data.counterexamples.append(str(value))
        elif name == _STDERR:
            data.backend_stderr = str(value)
        elif name == RULES and isinstance(value, list):
            data.rules.extend(str(rule) for rule in value)
        elif name == EXAMPLES and isinstance(value, int):
            data.examples = value
    return data
