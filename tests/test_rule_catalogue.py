"""The rule catalogue (conformance/rules/): schema-valid, ids unique, every reference resolvable."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

from conformance.rules import catalogue, sheet_paths
from harness.protocol.operations import OPERATIONS
from harness.rules import RuleStatus, RuleTally, UnknownRule
from reference.errors import ERROR_KINDS

ROOT = Path(__file__).resolve().parents[1]


@cache
def _definitions(path: str) -> frozenset[str]:
    """Qualified names defined at module level and in classes of ``path``."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    names: set[str] = set()

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(prefix + child.name)
                walk(child, f"{prefix}{child.name}.")
            elif prefix == "" and isinstance(child, ast.Assign | ast.AnnAssign):
                targets = child.targets if isinstance(child, ast.Assign) else [child.target]
                names.update(target.id for target in targets if isinstance(target, ast.Name))

    walk(tree, "")
    return frozenset(names)


def test_the_catalogue_covers_the_five_sheets() -> None:
    rules = catalogue().rules
    assert [path.name[:2] for path in sheet_paths()] == ["01", "02", "03", "04", "05"]
    assert len(rules) > 1500
    assert {rule.sheet for rule in rules} == {"01", "02", "03", "04", "05"}


def test_kinds_operations_and_unreachability_are_consistent() -> None:
    for rule in catalogue().rules:
        if rule.kind is not None:
            assert rule.kind in ERROR_KINDS, rule.id
        assert set(rule.observable_through) <= set(OPERATIONS), rule.id
        if not rule.reachable:
            assert rule.internal or rule.needs, f"{rule.id} is unreachable without saying why"
        assert rule.id.startswith(rule.section[:2]), rule.id


def test_every_reference_location_exists() -> None:
    missing = []
    for rule in catalogue().rules:
        for location in rule.reference:
            path, _, name = location.partition(":")
            if not (ROOT / path).is_file() or (name and name not in _definitions(path)):
                missing.append(f"{rule.id}: {location}")
    assert not missing, missing[:20]


def test_patterns_expand_and_typos_are_refused() -> None:
    cat = catalogue()
    assert set(cat.expand(["05.9.*"])) == {rule.id for rule in cat.rules if rule.id.startswith("05.9.")}
    some = cat.rules[0].id
    assert cat.expand([some, some]) == (some,)
    with pytest.raises(UnknownRule):
        cat.expand(["05.9.5/no_such_rule"])
    with pytest.raises(UnknownRule):
        cat.expand(["99.*"])


def test_tally_statuses() -> None:
    cat = catalogue()
    reachable = [rule for rule in cat.rules if rule.reachable][:3]
    unreachable = next(rule for rule in cat.rules if not rule.reachable)
    tally = RuleTally(cat)
    tally.add("a/x", "passed", [reachable[0].id, reachable[1].id])
    tally.add("a/y", "failed", [reachable[1].id])
    tally.add("a/z", "not_applicable", [reachable[2].id])
    assert tally.status(reachable[0]) is RuleStatus.PASSED
    assert tally.status(reachable[1]) is RuleStatus.FAILED
    assert tally.status(reachable[2]) is RuleStatus.NOT_APPLICABLE
    assert tally.status(unreachable) is RuleStatus.UNREACHABLE
    assert tally.coverage() == (2, len(cat.reachable()))
    assert sum(tally.counts().values()) == len(cat.rules)
