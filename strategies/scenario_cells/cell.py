"""One targeted scenario cell: a base scenario edited so that one contract check fails, with the operation
that meets it, the kind the rule names and a fragment of the reference's message."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from strategies.budget import BASES, base_scenario
from strategies.json_edits import Edit, apply_edits

__all__ = ["OPERATIONS", "ScenarioCell"]

#: The operations a cell can be sent to, each with its arguments after the scenario.
OPERATIONS: Final = frozenset({"build_plan", "select_weight_plan", "prepare_family", "fingerprint_catalog",
                               "compile_plan", "execute"})  # fmt: skip


@dataclass(frozen=True, slots=True)
class ScenarioCell:
    """``base`` with ``edits`` applied (or what ``make`` returns), sent to ``operation``: the reference must refuse
    it with ``kind`` and every field of ``fields``, its message must carry ``reason``, and ``rule`` names the check.
    """

    name: str
    rule: str
    kind: str
    reason: str
    base: str = "plan_fixture"
    edits: tuple[Edit, ...] = ()
    make: Callable[[], dict[str, Any]] | None = None
    operation: str = "build_plan"
    options: Any = None
    fields: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.operation not in OPERATIONS:
            raise ValueError(f"{self.name}: unknown operation {self.operation!r}")
        if self.base not in BASES:
            raise ValueError(f"{self.name}: unknown base scenario {self.base!r}")
        if (self.make is None) == (not self.edits):
            raise ValueError(f"{self.name}: a cell has edits of its base or a make function, not both or neither")
        if (self.operation == "compile_plan") != (self.options is not None):
            raise ValueError(f"{self.name}: compile_plan cells, and only they, carry options")

    def scenario(self) -> dict[str, Any]:
        """A fresh copy of the cell's scenario document."""
        if self.make is not None:
            return self.make()
        edited: dict[str, Any] = apply_edits(base_scenario(self.base), self.edits)
        return edited

    def arguments(self) -> tuple[Any, ...]:
        """The operation's arguments: the scenario, then the compile options where the operation takes them."""
        scenario = self.scenario()
        return (scenario, self.options) if self.operation == "compile_plan" else (scenario,)
