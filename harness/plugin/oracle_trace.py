"""The value rules an oracle answer was computed with: rules whose ``reference`` names a function that ran.

A rule with no error kind (a value, order or acceptance rule) states what a correct answer holds, and its
``reference`` names the functions of ``reference/`` that compute it (``path:Qualified.name``; a class name
stands for its methods). When the oracle answers an operation of a case through one of them and the case asks
the backend under test that same operation, the case compared the backend against that rule's value and is
credited with it (``harness.cases.computed``). Watching a call costs a few times the call, so only the first
``TRACED_CALLS`` oracle calls of each operation in a case are watched; the choice depends only on the case's
own order of calls, never on other cases or workers.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Final

from harness.backends.reference import FunctionName
from harness.cases import CURRENT_RULES, computed
from harness.rules import RuleCatalogue

__all__ = ["TRACED_CALLS", "OracleTracer", "ValueRuleIndex"]

#: Oracle calls watched per operation and case.
TRACED_CALLS: Final = 1


class ValueRuleIndex:
    """Reachable rules without an error kind, by the source file and qualified name their ``reference`` gives."""

    def __init__(self, catalogue: RuleCatalogue, root: Path) -> None:
        self._order = {rule.id: position for position, rule in enumerate(catalogue.rules)}
        self._through = {rule.id: frozenset(rule.observable_through) for rule in catalogue.rules}
        self._by_file: dict[str, dict[str, list[str]]] = {}
        for rule in catalogue.rules:
            if rule.kind is not None or not rule.reachable:
                continue
            for location in rule.reference:
                path, _, name = location.partition(":")
                if name:
                    filename = os.path.realpath(root / path)
                    self._by_file.setdefault(filename, {}).setdefault(name, []).append(rule.id)
        self._real: dict[str, str] = {}

    def rules_of(self, operation: str, functions: Iterable[FunctionName]) -> tuple[str, ...]:
        """The indexed rules observable through ``operation`` that one of ``functions`` implements, in sheet order."""
        found: set[str] = set()
        for filename, qualname in functions:
            names = self._names_in(filename)
            if not names:
                continue
            parts = qualname.split(".")
            for end in range(1, len(parts) + 1):
                found.update(names.get(".".join(parts[:end]), ()))
        return tuple(sorted((rule for rule in found if operation in self._through[rule]), key=self._order.__getitem__))

    def _names_in(self, filename: str) -> Mapping[str, list[str]] | None:
        real = self._real.get(filename)
        if real is None:
            real = self._real[filename] = os.path.realpath(filename)
        return self._by_file.get(real)


class OracleTracer:
    """The run's ``CallTracer``: watches the first oracle calls of each operation in a case and credits them."""

    def __init__(self, index: Callable[[], ValueRuleIndex | None], limit: int = TRACED_CALLS) -> None:
        self._index = index
        self._limit = limit

    def wants(self, operation: str) -> bool:
        current = CURRENT_RULES.get()
        if current is None:
            return False
        watched = current.traced.get(operation, 0)
        if watched >= self._limit or self._index() is None:
            return False
        current.traced[operation] = watched + 1
        return True

    def ran(self, operation: str, functions: frozenset[FunctionName]) -> None:
        index = self._index()
        if index is not None:
            computed(operation, index.rules_of(operation, functions))
