"""``RunResult``: one run as read back from its JSON-lines report, for the other report formats.

The JSON-lines report is the single record of a run; the Markdown summary, the HTML report and
the badge are rendered from it, so they can never disagree with it (and can be rendered again
later with ``vnext-conformance report``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import schemas
from reference.bounded_read import read_bounded
from reference.canonical import loads_strict
from reference.errors import Serialization

__all__ = ["RECORD_KINDS", "ReportError", "RunResult"]

_MAX_REPORT_BYTES = 512 * 1024 * 1024
_CONTEXT = "read conformance report"
_SCHEMA = "protocol/report.json"
_FAILING = ("failed", "error")
_PASSING = ("passed", "xpassed")
#: The record kinds of a JSON-lines report (``schemas/protocol/report.json``).
RECORD_KINDS = ("header", "case", "rule", "footer")


class ReportError(ValueError):
    """A file that is not a JSON-lines report: too large, not strict JSON, or a record of the wrong shape."""


@cache
def _record_validators() -> dict[str, Any]:
    """A validator per record kind: the branch of the report schema's ``oneOf`` for that kind."""
    branches = schemas.load(_SCHEMA)["oneOf"]
    out: dict[str, Any] = {}
    for index, branch in enumerate(branches):
        out[branch["properties"]["record"]["const"]] = schemas.validator(f"{_SCHEMA}#/oneOf/{index}")
    return out


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
    def read(cls, path: Path | str, *, validate: bool = False, max_bytes: int | None = None) -> RunResult:
        """A report file: read with its size bound applied while reading, each line through the strict decoder.

        ``ReportError`` (one line, with the line number) for a file over ``max_bytes`` (default 512 MiB), a line
        that is not strict JSON, or a record that is not an object of a known kind; with ``validate``, also for a
        record its schema (``schemas/protocol/report.json``) refuses. ``OSError`` when the file cannot be read."""
        limit = _MAX_REPORT_BYTES if max_bytes is None else max_bytes
        try:
            data = read_bounded(path, max_bytes=limit, context=_CONTEXT)
        except Serialization:
            raise ReportError(f"larger than the {limit} bytes a report may have") from None
        validators = _record_validators() if validate else None
        header: Mapping[str, Any] = {}
        cases: list[Mapping[str, Any]] = []
        rules: list[Mapping[str, Any]] = []
        footer: Mapping[str, Any] | None = None
        for number, line in enumerate(data.split(b"\n"), start=1):
            if not line.strip():
                continue
            try:
                record = loads_strict(line, context=_CONTEXT)
            except Serialization as exc:
                raise ReportError(f"line {number}: {exc.to_dict().get('message', 'not strict JSON')}") from None
            if not isinstance(record, dict) or record.get("record") not in RECORD_KINDS:
                kinds = ", ".join(RECORD_KINDS)
                raise ReportError(f"line {number}: not a report record (an object whose record is one of {kinds})")
            if validators is not None:
                problem = next(iter(validators[record["record"]].iter_errors(record)), None)
                if problem is not None:
                    where = "".join(f"[{step!r}]" for step in problem.absolute_path)
                    raise ReportError(f"line {number}: {record['record']} record{where}: {problem.message[:200]}")
            kind = record["record"]
            if kind == "header":
                header = record
            elif kind == "case":
                cases.append(record)
            elif kind == "rule":
                rules.append(record)
            else:
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
