"""The rule catalogue: every rule of the contract with a stable id, and each run's outcome per rule.

The catalogue's data (``conformance/rules/*.json``, schema ``schemas/rules/catalogue.json``) is
handed to the plugin by the suites. A case declares the rules it checks (``@pytest.mark.rules``
with ids or ``fnmatch`` patterns, or ``harness.cases.exercise(...)`` from inside the case); at
the end of a run every rule gets one status:

* ``failed``: a case that checks it failed;
* ``passed``: it was checked and every case that checks it passed;
* ``not_applicable``: every case that checks it was not applicable to the backend;
* ``not_exercised``: no case checked it in this run (deselected, or no case declares it);
* ``unreachable``: no operation can expose a backend breaking it (the catalogue says why).
"""

from __future__ import annotations

import enum
import fnmatch
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import schemas
from reference.bounded_read import read_bounded

__all__ = ["Rule", "RuleCatalogue", "RuleClass", "RuleStatus", "RuleTally", "UnknownRule", "sheets_in"]

_MAX_SHEET_BYTES = 16 * 1024 * 1024
#: The file names of the catalogue's sheets in its directory, one per contract sheet (``01-....json``).
_SHEET_GLOB = "[0-9][0-9]-*.json"


def sheets_in(directory: Path) -> list[Path]:
    """The catalogue's sheet files in ``directory``, in sheet order."""
    return sorted(directory.glob(_SHEET_GLOB))


class RuleClass(enum.StrEnum):
    REJECTION = "rejection"
    ORDER = "order"
    VALUE = "value"
    LIMIT = "limit"
    ACCEPTANCE = "acceptance"


class RuleStatus(enum.StrEnum):
    FAILED = "failed"
    PASSED = "passed"
    NOT_APPLICABLE = "not_applicable"
    NOT_EXERCISED = "not_exercised"
    UNREACHABLE = "unreachable"


class UnknownRule(ValueError):
    """A case names a rule id (or pattern) that the catalogue does not have."""


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule of the contract."""

    id: str
    section: str
    statement: str
    rule_class: RuleClass
    kind: str | None
    fields: Mapping[str, Any]
    observable_through: tuple[str, ...]
    needs: str | None
    internal: str | None
    reference: tuple[str, ...]
    gap: str | None = None

    @property
    def sheet(self) -> str:
        return self.id[:2]

    @property
    def reachable(self) -> bool:
        """True when some operation of the protocol can expose a backend breaking it."""
        return bool(self.observable_through) and self.internal is None

    def why_unreachable(self) -> str:
        if self.internal:
            return f"internal: {self.internal}"
        return f"needs {self.needs}" if self.needs else "no operation observes it"

    @classmethod
    def from_wire(cls, raw: Mapping[str, Any]) -> Rule:
        return cls(
            id=raw["id"],
            section=raw["section"],
            statement=raw["statement"],
            rule_class=RuleClass(raw["class"]),
            kind=raw["kind"],
            fields=dict(raw["fields"]),
            observable_through=tuple(raw["observable_through"]),
            needs=raw["needs"],
            internal=raw["internal"],
            reference=tuple(raw["reference"]),
            gap=raw.get("gap"),
        )


@dataclass(frozen=True)
class RuleCatalogue:
    """Every rule, in sheet order."""

    rules: tuple[Rule, ...]
    by_id: Mapping[str, Rule] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        by_id: dict[str, Rule] = {}
        for rule in self.rules:
            if rule.id in by_id:
                raise ValueError(f"rule id {rule.id!r} appears twice")
            by_id[rule.id] = rule
        object.__setattr__(self, "by_id", by_id)

    @classmethod
    def load(cls, paths: Iterable[Path]) -> RuleCatalogue:
        """Read and check the sheets at ``paths`` (schema-valid, ids unique)."""
        validator = schemas.validator("rules/catalogue.json")
        rules: list[Rule] = []
        for path in sorted(paths):
            document = json.loads(read_bounded(path, max_bytes=_MAX_SHEET_BYTES, context="decode rule catalogue"))
            validator.validate(document)
            rules.extend(Rule.from_wire(raw) for raw in document["rules"])
        return cls(tuple(rules))

    def expand(self, names: Iterable[str]) -> tuple[str, ...]:
        """Rule ids for ids or ``fnmatch`` patterns; ``UnknownRule`` for a name that matches nothing."""
        out: dict[str, None] = {}
        for name in names:
            if name in self.by_id:
                out[name] = None
                continue
            matched = [rule.id for rule in self.rules if fnmatch.fnmatchcase(rule.id, name)]
            if not matched or not any(char in name for char in "*?["):
                raise UnknownRule(f"no rule {name!r} in the catalogue")
            out.update(dict.fromkeys(matched))
        return tuple(out)

    def reachable(self) -> tuple[Rule, ...]:
        return tuple(rule for rule in self.rules if rule.reachable)


@dataclass
class RuleTally:
    """What the finished cases of one run say about each rule."""

    catalogue: RuleCatalogue
    cases: dict[str, dict[str, str]] = field(default_factory=dict)  # rule id -> case id -> case outcome

    def add(self, case_id: str, outcome: str, rule_ids: Sequence[str]) -> None:
        for rule_id in rule_ids:
            self.cases.setdefault(rule_id, {})[case_id] = outcome

    def status(self, rule: Rule) -> RuleStatus:
        outcomes = set(self.cases.get(rule.id, {}).values())
        if outcomes & {"failed", "error", "xpassed"}:
            return RuleStatus.FAILED
        if outcomes & {"passed", "xfailed"}:
            return RuleStatus.PASSED
        if "not_applicable" in outcomes:
            return RuleStatus.NOT_APPLICABLE
        return RuleStatus.NOT_EXERCISED if rule.reachable else RuleStatus.UNREACHABLE

    def statuses(self) -> dict[str, RuleStatus]:
        return {rule.id: self.status(rule) for rule in self.catalogue.rules}

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys((status.value for status in RuleStatus), 0)
        for status in self.statuses().values():
            out[status.value] += 1
        return out

    def coverage(self) -> tuple[int, int]:
        """``(exercised, reachable)``: reachable rules a case checked (passed or failed), and all reachable rules."""
        reachable = self.catalogue.reachable()
        exercised = sum(self.status(rule) in (RuleStatus.PASSED, RuleStatus.FAILED) for rule in reachable)
        return exercised, len(reachable)
