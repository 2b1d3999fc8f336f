"""Stable case ids and the *not applicable* outcome.

A case id is ``<suite>/<test name>`` where the suite is the test module's name
without ``test_`` (``describe/test_limits_match_contract``,
``corpus/test_bundle[3f2a...]``). It does not depend on where the suites are
installed, so expectation manifests and reproduction commands stay valid.

*Not applicable* is a skip whose reason starts with ``NOT_APPLICABLE_PREFIX``;
reports classify it separately from skips and xfails.
"""

from __future__ import annotations

from importlib import resources
from typing import Any, Final, NoReturn

import pytest

__all__ = [
    "NOT_APPLICABLE_PREFIX",
    "case_id_for",
    "is_not_applicable_text",
    "known_suites",
    "not_applicable",
    "suite_of",
    "suite_of_module",
]

NOT_APPLICABLE_PREFIX: Final = "not applicable: "
SUITES_PACKAGE: Final = "conformance.suites"


def not_applicable(reason: str) -> NoReturn:
    """End the current case as *not applicable* (the backend lacks what it needs)."""
    pytest.skip(NOT_APPLICABLE_PREFIX + reason)


def is_not_applicable_text(text: str) -> bool:
    """True iff a skip message marks *not applicable* (pytest may prefix ``Skipped: ``)."""
    stripped = text.strip()
    if stripped.startswith("Skipped: "):
        stripped = stripped[len("Skipped: ") :]
    return stripped.startswith(NOT_APPLICABLE_PREFIX)


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
