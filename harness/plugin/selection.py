"""Collection: stable case ids, expectation markers, unknown expectation ids, suite/case selection."""

from __future__ import annotations

from typing import Any

import pytest

from harness.cases import case_id_for, suite_of
from harness.expectations import Expectation
from harness.plugin.records import CASE_ID, SUITE
from harness.plugin.settings import RunSettings

__all__ = ["CASE", "EXPIRED", "ExpectationProblem", "select"]

CASE = pytest.StashKey[tuple[str, str]]()
EXPIRED = pytest.StashKey[Expectation]()
_EXPECTATIONS_SUITE = "expectations"


class _ExpectationError(Exception):
    pass


class ExpectationProblem(pytest.Item):
    """A synthetic failing case: an expectation entry names no known case."""

    def __init__(self, *, problem: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.problem = problem

    def runtest(self) -> None:
        raise _ExpectationError(self.problem)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, _ExpectationError):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[str, int, str]:
        return _EXPECTATIONS_SUITE, 0, self.name


def _label(item: pytest.Item, case_id: str, suite: str) -> None:
    item.stash[CASE] = (case_id, suite)
    item.user_properties.append((CASE_ID, case_id))
    item.user_properties.append((SUITE, suite))


def _apply(item: pytest.Item, expectation: Expectation, settings: RunSettings) -> None:
    if expectation.expired(settings.today):
        item.stash[EXPIRED] = expectation
    elif expectation.status == "xfail":
        item.add_marker(pytest.mark.xfail(reason=f"expected failure: {expectation.describe()}", strict=True))
    else:
        item.add_marker(pytest.mark.skip(reason=f"expected skip: {expectation.describe()}"))


def _selected(settings: RunSettings, case_id: str, suite: str) -> bool:
    if settings.only and suite not in settings.only:
        return False
    if suite in settings.skip:
        return False
    return not settings.cases or case_id in settings.cases


def select(session: pytest.Session, config: pytest.Config, items: list[pytest.Item], settings: RunSettings) -> set[str]:
    """Label, mark and select the conformance items in place; the known case ids."""
    known: set[str] = set()
    for item in items:
        case_id, suite = case_id_for(item), suite_of(item)
        if case_id is None or suite is None:
            continue
        _label(item, case_id, suite)
        known.add(case_id)
        expectation = settings.manifest.cases.get(case_id) if settings.manifest else None
        if expectation is not None:
            _apply(item, expectation, settings)
    if not known:
        return known
    if settings.manifest is not None:
        for case_id in settings.manifest.unknown(known):
            name = f"{_EXPECTATIONS_SUITE}/unknown[{case_id}]"
            problem = ExpectationProblem.from_parent(
                session,
                name=name,
                problem=f"expectation manifest names unknown case id {case_id!r}; remove or correct the entry",
            )
            _label(problem, name, _EXPECTATIONS_SUITE)
            items.append(problem)
    if settings.selects:
        keep: list[pytest.Item] = []
        dropped: list[pytest.Item] = []
        for item in items:
            info = item.stash.get(CASE, None)
            chosen = info is None or info[1] == _EXPECTATIONS_SUITE or _selected(settings, *info)
            (keep if chosen else dropped).append(item)
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = keep
    return known
