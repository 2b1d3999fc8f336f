"""The rule catalogue's data: one JSON document per contract sheet (schema ``schemas/rules/catalogue.json``).

Every rule of the contract has a stable id ``<sheet>.<section>/<what>``; cases declare the rules
they check, and each run reports every rule's status (``harness.rules``).
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path

from harness.rules import RuleCatalogue, sheets_in

__all__ = ["catalogue", "sheet_paths"]


def sheet_paths() -> list[Path]:
    return sheets_in(Path(str(resources.files("conformance") / "rules")))


@cache
def catalogue() -> RuleCatalogue:
    """Every rule, in sheet order."""
    return RuleCatalogue.load(sheet_paths())
