"""Case outcomes and the JSON-lines report (schemas/protocol/report.json).

One ``header`` record, one ``case`` record per finished case, one ``footer``
record with totals. Records are flushed as they are written to ``<path>.<pid>.partial``,
which is renamed to ``<path>`` when the run ends (``harness.reports.files``).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, TextIO

from harness.reports import files
from harness.rules import RuleTally

__all__ = ["FAILING", "OUTCOMES", "REPORT_VERSION", "CaseRecord", "JsonlReport", "Totals"]

REPORT_VERSION: Final = 1
OUTCOMES: Final = ("passed", "failed", "error", "not_applicable", "xfailed", "xpassed", "skipped")
#: Outcomes that fail a run.
FAILING: Final = frozenset({"failed", "error"})
_MAX_DETAILS: Final = 20_000


@dataclass
class CaseRecord:
    """One finished case as written to the report."""

    case_id: str
    suite: str
    nodeid: str
    outcome: str = "passed"
    duration_s: float = 0.0
    message: str = ""
    details: str = ""
    faults: list[dict[str, Any]] = field(default_factory=list)
    backend_stderr: str = ""
    counterexamples: list[str] = field(default_factory=list)
    reproduce: str = ""
    not_applicable: dict[str, Any] | None = None
    rules: list[str] = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)
    examples: int | None = None
    """Examples a generated case executed (``None``: not a generated case)."""

    def to_wire(self) -> dict[str, Any]:
        return {
            "record": "case",
            "case_id": self.case_id,
            "suite": self.suite,
            "nodeid": self.nodeid,
            "outcome": self.outcome,
            "duration_s": round(self.duration_s, 6),
            "message": self.message,
            "details": self.details[-_MAX_DETAILS:],
            "faults": self.faults,
            "backend_stderr": self.backend_stderr[-_MAX_DETAILS:],
            "counterexamples": self.counterexamples,
            "reproduce": self.reproduce,
            "not_applicable": self.not_applicable,
            "rules": self.rules,
            "examples": self.examples,
            "properties": {name: self.properties[name][-_MAX_DETAILS:] for name in sorted(self.properties)},
        }


@dataclass
class Totals:
    """Outcome counts per suite."""

    by_suite: dict[str, dict[str, int]] = field(default_factory=dict)

    def add(self, suite: str, outcome: str) -> None:
        row = self.by_suite.setdefault(suite, dict.fromkeys(OUTCOMES, 0))
        row[outcome] += 1

    def total(self) -> dict[str, int]:
        out = dict.fromkeys(OUTCOMES, 0)
        for row in self.by_suite.values():
            for name, count in row.items():
                out[name] += count
        return out

    def failed(self) -> int:
        total = self.total()
        return sum(total[name] for name in FAILING)


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


class JsonlReport:
    """Writer of one JSON-lines report file (written as ``.partial``, renamed into place by ``close``).

    Records are ASCII JSON (non-ASCII text escaped), so any text a backend sends stays valid.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._file: TextIO | None = files.start(self.path).open("w", encoding="ascii")
        self.header_written = False
        self.footer_written = False

    def _write(self, record: Mapping[str, Any]) -> None:
        if self._file is None:
            return
        self._file.write(json.dumps(record, ensure_ascii=True, separators=(",", ":")) + "\n")
        self._file.flush()

    def header(
        self,
        *,
        suite: Mapping[str, str],
        contract: Mapping[str, Any],
        backend: Mapping[str, Any],
        profile: str,
        seed: int | None,
        derandomize: bool,
        argv: Sequence[str],
    ) -> None:
        if self.header_written:
            return
        self._write(
            {
                "record": "header",
                "report_version": REPORT_VERSION,
                "suite": dict(suite),
                "contract": dict(contract),
                "backend": dict(backend),
                "profile": profile,
                "seed": seed,
                "derandomize": derandomize,
                "argv": list(argv),
                "started_at": _now(),
            }
        )
        self.header_written = True

    def case(self, record: CaseRecord) -> None:
        self._write(record.to_wire())

    def rules(self, tally: RuleTally) -> None:
        """One ``rule`` record per rule of the catalogue: its status and the cases that checked it."""
        for rule in tally.catalogue.rules:
            cases = tally.cases.get(rule.id, {})
            self._write(
                {
                    "record": "rule",
                    "rule_id": rule.id,
                    "status": tally.status(rule).value,
                    "cases": sorted(cases),
                    "unreachable": None if rule.reachable else rule.why_unreachable(),
                }
            )

    def footer(
        self,
        totals: Totals,
        *,
        exit_status: int,
        complete: bool,
        faults: Mapping[str, int],
        rules: RuleTally | None = None,
        stopped: Mapping[str, str] | None = None,
    ) -> None:
        if self.footer_written:
            return
        exercised, reachable = rules.coverage() if rules is not None else (0, 0)
        self._write(
            {
                "record": "footer",
                "totals": totals.total(),
                "by_suite": {name: totals.by_suite[name] for name in sorted(totals.by_suite)},
                "backend_faults": {name: faults[name] for name in sorted(faults)},
                "rules": None
                if rules is None
                else {"by_status": rules.counts(), "exercised": exercised, "reachable": reachable},
                "exit_status": exit_status,
                "complete": complete,
                "stopped": None if stopped is None else dict(stopped),
                "finished_at": _now(),
            }
        )
        self.footer_written = True

    def close(self) -> None:
        """Close the file and move it into place."""
        if self._file is not None:
            self._file.close()
            self._file = None
            files.publish(self.path)
