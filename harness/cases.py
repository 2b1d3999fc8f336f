"""Stable case ids, and the *not applicable* outcome as a structured value.

A case id is ``<suite>/<test name>`` where the suite is the test module's name without
``test_`` (``describe/test_limits_match_contract``, ``corpus/test_bundle[3f2a...]``). It does
not depend on where the suites are installed, so expectation manifests and reproduction
commands stay valid.

*Not applicable* is raised as ``NotApplicable`` (a pytest skip carrying the reason and the
operations the backend lacks); the plugin records it as such, never by parsing skip text.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Final, NoReturn

import pytest

__all__ = [
    "CheckedRules",
    "NotApplicable",
    "NotApplicableReason",
    "backend_asked",
    "case_id_for",
    "computed",
    "exercise",
    "known_suites",
    "not_applicable",
    "observe",
    "suite_of",
    "suite_of_module",
]

SUITES_PACKAGE: Final = "conformance.suites"


@dataclass(frozen=True, slots=True)
class NotApplicableReason:
    """Why a case does not apply to the backend: a sentence and the operations it lacks."""

    reason: str
    missing: tuple[str, ...] = ()

    def to_wire(self) -> dict[str, Any]:
        return {"reason": self.reason, "missing": list(self.missing)}

    @classmethod
    def from_wire(cls, raw: dict[str, Any]) -> NotApplicableReason:
        return cls(str(raw["reason"]), tuple(str(op) for op in raw.get("missing", ())))


class NotApplicable(pytest.skip.Exception):  # type: ignore[misc,name-defined]
    """The case does not apply to the backend under test."""

    def __init__(self, why: NotApplicableReason) -> None:
        super().__init__(msg=f"not applicable: {why.reason}", allow_module_level=False)
        self.why = why


def not_applicable(reason: str, *, missing: Sequence[str] = ()) -> NoReturn:
    """End the current case as *not applicable* (the backend lacks what it needs)."""
    raise NotApplicable(NotApplicableReason(reason, tuple(missing)))


def suite_of_module(module_name: str) -> str | None:
    """``conformance.suites.test_describe`` -> ``describe``; ``None`` for non-suite modules."""
    package, _, leaf = module_name.rpartition(".")
    if package != SUITES_PACKAGE or not leaf.startswith("test_"):
        return None
    return leaf[len("test_") :]


def suite_of(item: Any) -> str | None:
    """The suite of a collected pytest item, or ``None`` when it is not a conformance case."""
    module = getattr(item, "module", None)
    name = getattr(module, "__name__", None)
    return suite_of_module(name) if isinstance(name, str) else None


def case_id_for(item: Any) -> str | None:
    """``<suite>/<Class.>test_name[params]`` for a conformance item, else ``None``."""
    suite = suite_of(item)
    if suite is None:
        return None
    cls = getattr(item, "cls", None)
    prefix = f"{cls.__name__}." if cls is not None else ""
    return f"{suite}/{prefix}{item.name}"


def known_suites() -> list[str]:
    """Suite names: the ``test_*.py`` modules of ``conformance.suites``, sorted."""
    root = resources.files("conformance") / "suites"
    return sorted(
        child.name[len("test_") : -len(".py")]
        for child in root.iterdir()
        if child.name.startswith("test_") and child.name.endswith(".py")
    )


@dataclass
class CheckedRules:
    """The rules the running case has said it checks (ids expanded by ``expand``), and those it showed it checks:
    the rules of each refusal the reference oracle raised (``observed``), which count once the case has also
    asked the backend under test something (``asked``), and the value rules of the functions an oracle answer of
    an operation was computed with (``computed``), which count once the case has asked the backend under test
    that same operation. A case that compared nothing is credited nothing."""

    expand: Callable[[Sequence[str]], tuple[str, ...]]
    ids: list[str] = field(default_factory=list)
    observed: list[str] = field(default_factory=list)
    asked: set[str] = field(default_factory=set)
    computed: dict[str, list[str]] = field(default_factory=dict)
    traced: dict[str, int] = field(default_factory=dict)

    def checked(self) -> tuple[str, ...]:
        """The declared rules, then the observed and computed ones the backend was asked for (each once, in order)."""
        found = list(self.ids)
        if self.asked:
            found.extend(self.observed)
            for operation, rules in self.computed.items():
                if operation in self.asked:
                    found.extend(rules)
        return tuple(dict.fromkeys(found))


CURRENT_RULES: contextvars.ContextVar[CheckedRules | None] = contextvars.ContextVar("vnext_rules", default=None)


def observe(rule_ids: Sequence[str]) -> None:
    """The reference oracle refused an input of the running case at a site implementing ``rule_ids``."""
    current = CURRENT_RULES.get()
    if current is not None:
        current.observed.extend(rule_ids)


def computed(operation: str, rule_ids: Sequence[str]) -> None:
    """The reference oracle answered ``operation`` for the running case through functions implementing ``rule_ids``."""
    current = CURRENT_RULES.get()
    if current is not None:
        current.computed.setdefault(operation, []).extend(rule_ids)


def backend_asked(operation: str) -> None:
    """The running case sent ``operation`` to the backend under test."""
    current = CURRENT_RULES.get()
    if current is not None:
        current.asked.add(operation)


def exercise(*rule_ids: str) -> None:
    """Declare, from inside a case, that it checks these rules (ids or ``fnmatch`` patterns).

    Use it where the rules depend on the case's parameters (an operator of a matrix names the
    rule it breaks). Unknown ids fail the case.
    """
    current = CURRENT_RULES.get()
    if current is not None:
        current.ids.extend(current.expand(rule_ids))
