"""``RunResult``: one run as read back from its JSON-lines report, for the other report formats.

The JSON-lines report is the single record of a run; the Markdown summary, the HTML report and
the badge are rendered from it, so they can never disagree with it (and can be rendered again
later with ``vnext-conformance report``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reference.bounded_read import read_bounded

__all__ = ["RunResult"]

_MAX_REPORT_BYTES = 512 * 1024 * 1024
_FAILING = ("failed", "error")
_PASSING = ("passed", "xpassed")


@dataclass
class RunResult:
    """The header, case, rule and footer records of one report."""

    header: Mapping[str, Any]
    cases: Sequence[Mapping[str, Any]]
    rules: Sequence[Mapping[str, Any]] = ()
    footer: Mapping[str, Any] | None = None
    by_suite: dict[str, Counter[str]] = field(init=False)

    def __post_init__(self) -> None:
        self.by_suite = {}
        for case in self.cases:
            self.by_suite.setdefault(case["suite"], Counter())[case["outcome"]] += 1

    @classmethod
    def read(cls, path: Path | str) -> RunResult:
        """A report file (its ``.partial`` twin when the run was cut short before publishing it)."""
        data = read_bounded(path, max_bytes=_MAX_REPORT_BYTES, context="read conformance report")
        header: Mapping[str, Any] = {}
        cases: list[Mapping[str, Any]] = []
        rules: list[Mapping[str, Any]] = []
        footer: Mapping[str, Any] | None = None
        for line in data.decode("utf-8").splitlines():
            if not line.strip():
                continue
            record = json.loads(line)
            kind = record.get("record")
            if kind == "header":
                header = record
            elif kind == "case":
                cases.append(record)
            elif kind == "rule":
                rules.append(record)
            elif kind == "footer":
                footer = record
        return cls(header, cases, rules, footer)

    # ------------------------------------------------------------ figures

    def count(self, *outcomes: str) -> int:
        return sum(1 for case in self.cases if case["outcome"] in outcomes)

    @property
    def passed(self) -> int:
        return self.count(*_PASSING)

    @property
    def failures(self) -> list[Mapping[str, Any]]:
        return [case for case in self.cases if case["outcome"] in _FAILING]

    @property
    def complete(self) -> bool:
        return bool(self.footer and self.footer.get("complete"))

    @property
    def stopped(self) -> Mapping[str, Any] | None:
        return self.footer.get("stopped") if self.footer else None

    def verdict(self) -> str:
        """``passed``, ``failed``, ``unavailable`` or ``incomplete``."""
        stopped = self.stopped
        if stopped and stopped.get("kind") == "unavailable":
            return "unavailable"
        if self.failures:
            return "failed"
        if not self.complete:
            return "incomplete"
        return "passed"

    def backend_label(self) -> str:
        backend = self.header.get("backend") or {}
        description = backend.get("description")
        if description:
            impl = description["implementation"]
            return f"{impl['name']} {impl['version']} ({impl['language']})"
        return str(backend.get("spec", "unknown backend"))

    def rule_coverage(self) -> tuple[int, int] | None:
        rules = (self.footer or {}).get("rules")
        if not rules:
            return None
        return int(rules["exercised"]), int(rules["reachable"])

    def not_applicable_reasons(self) -> list[tuple[str, int]]:
        reasons: Counter[str] = Counter()
        for case in self.cases:
            why = case.get("not_applicable")
            if case["outcome"] == "not_applicable" and why:
                missing = why.get("missing") or []
                reasons[f"the backend lacks {', '.join(missing)}" if missing else str(why.get("reason", ""))] += 1
        return sorted(reasons.items(), key=lambda item: (-item[1], item[0]))
