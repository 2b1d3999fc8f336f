"""Every operator of every generator is registered, and every registered operator runs once per ``ci`` run.

Two audits per generator family:

* *registered*: the module is introspected (its functions by signature, or the names its operator table and
  its ``==`` dispatch spell) and every operator it defines must be in its registry, and the other way round;
* *reached*: every registered operator must be a case of a ``ci`` run against the backend. The case ids are
  the ones ``vnext-conformance list`` prints; an operator that is run inside a matrix case (the forged-plan
  kill matrix, the hash-sensitivity matrix) must apply to at least one of the matrix's fixed inputs, and one
  that is parametrized per base (node resolutions, registry faults) must have at least one case.

Generated variants drawn by Hypothesis run on top and are not counted here.
"""

from __future__ import annotations

import ast
import copy
import inspect
import re
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from conformance.suites import test_hash_stability, test_weights
from reference.api import ESTIMATE_BEHAVIORS
from reference.canonical import direct_bytes
from strategies import (
    budget,
    catalog_rejections,
    forgery_operators,
    json_values,
    malformed_wires,
    model_rejections,
    mutations,
    policy,
    resolution_rejections,
    respellings,
    semantic_changes,
)
from strategies.forgery import OPERATORS, forge_seeded, reference_targets
from strategies.scenario_cells import SCENARIO_CELLS
from strategies.wire_invariants import WIRE_CELLS
from tests.harness.helpers import ROOT, run_cli

# --------------------------------------------------------------------------- introspection


def _functions(module: ModuleType, *params: str, returns: str | None = None) -> set[Callable[..., Any]]:
    """The module's own functions taking exactly ``params`` (and returning ``returns``, when given)."""
    found = set()
    for value in vars(module).values():
        if not inspect.isfunction(value) or value.__module__ != module.__name__:
            continue
        if tuple(inspect.signature(value).parameters) != params:
            continue
        if returns is None or value.__annotations__.get("return") == returns:
            found.add(value)
    return found


@cache
def _tree(module: ModuleType) -> ast.Module:
    return ast.parse(Path(inspect.getfile(module)).read_text(encoding="utf-8"))


def _function(module: ModuleType, name: str) -> ast.FunctionDef:
    return next(node for node in ast.walk(_tree(module)) if isinstance(node, ast.FunctionDef) and node.name == name)


def _compared(module: ModuleType, function: str, variable: str) -> set[str]:
    """The strings ``variable`` is compared with (``variable == "..."``) in ``function``: its dispatch."""
    out = set()
    for node in ast.walk(_function(module, function)):
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id == variable:
            for op, right in zip(node.ops, node.comparators, strict=True):
                if isinstance(op, ast.Eq) and isinstance(right, ast.Constant) and isinstance(right.value, str):
                    out.add(right.value)
    return out


def _table(module: ModuleType, function: str, variable: str) -> dict[str, ast.expr]:
    """The entries of the operator table ``variable`` of ``function``: its dict literal and ``table[...] =``."""
    out: dict[str, ast.expr] = {}
    for node in ast.walk(_function(module, function)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []  # fmt: skip
        for target in targets:
            value = getattr(node, "value", None)
            if isinstance(target, ast.Name) and target.id == variable and isinstance(value, ast.Dict):
                for key, item in zip(value.keys, value.values, strict=True):
                    assert isinstance(key, ast.Constant) and isinstance(key.value, str), ast.dump(key)
                    out[key.value] = item
            if (
                isinstance(target, ast.Subscript)
                and isinstance(target.value, ast.Name)
                and target.value.id == variable
                and isinstance(target.slice, ast.Constant)
                and value is not None
            ):
                out[target.slice.value] = value
    return out


def _named(module: ModuleType, callees: Iterable[str]) -> set[str]:
    """The operator names spelled as the first argument of a call to one of ``callees`` anywhere in the module."""
    wanted = set(callees)
    out = set()
    for node in ast.walk(_tree(module)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in wanted and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                out.add(first.value)
    return out


def _entry_names(entries: dict[str, ast.expr]) -> dict[str, str]:
    """Table key -> the operator name its entry's call spells first (where it spells one)."""
    out = {}
    for key, item in entries.items():
        body = item.body if isinstance(item, ast.Lambda) else item
        if isinstance(body, ast.Call) and body.args:
            first = body.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                out[key] = first.value
    return out


# --------------------------------------------------------------------------- registered


def test_every_catalog_operator_is_registered() -> None:
    entries = _table(catalog_rejections, "catalog_rejections", "table")
    assert set(entries) == set(catalog_rejections.CATALOG_OPERATORS)
    assert _named(catalog_rejections, ["_rejection", "Rejection"]) == set(catalog_rejections.CATALOG_OPERATORS)
    assert all(key == name for key, name in _entry_names(entries).items()), _entry_names(entries)
    assert len(catalog_rejections.CATALOG_OPERATORS) == len(set(catalog_rejections.CATALOG_OPERATORS))


def test_every_family_operator_is_registered() -> None:
    defined = _functions(model_rejections, "draw", "case")
    registered = model_rejections.FAMILY_OPERATORS
    assert defined == set(registered.values())
    assert all(function.__name__ == f"_{name}" for name, function in registered.items())
    assert set(model_rejections.OPERATOR_NEEDS) <= set(registered)


def test_every_policy_operator_is_registered() -> None:
    entries = _table(policy, "policy_rejections", "table")
    registered = set(policy.POLICY_OPERATORS)
    assert set(entries) == registered
    assert _named(policy, ["_rmp", "Rejection"]) == registered
    assert all(key == name for key, name in _entry_names(entries).items()), _entry_names(entries)
    # every helper that builds a rejection is one of the table's entries
    helpers = {name for name, value in vars(policy).items() if inspect.isfunction(value)
               and value.__annotations__.get("return") == "Rejection" and name != "_rmp"}  # fmt: skip
    used = {node.id for item in entries.values() for node in ast.walk(item) if isinstance(node, ast.Name)}
    assert helpers <= used, helpers - used


def test_every_hostile_policy_is_registered() -> None:
    assert _compared(policy, "hostile_policies", "hostility") == set(policy.HOSTILE_POLICY_OPERATORS)


def test_every_resolution_operator_is_registered() -> None:
    defined = _functions(resolution_rejections, "resolutions", returns="bool")
    registered = resolution_rejections.RESOLUTION_OPERATORS
    assert defined == set(registered.values())
    assert all(function.__name__ == f"_{name}" for name, function in registered.items())


def test_every_semantic_change_and_respelling_is_registered() -> None:
    changes = {change for _, _, change in semantic_changes.SEMANTIC_CHANGES.values()}
    assert _functions(semantic_changes, "s", returns="Scenario | None") == changes
    rewrites = {rewrite for _, rewrite in respellings.RESPELLINGS.values()}
    assert _functions(respellings, "s", "shuffle") == rewrites


def test_every_forgery_operator_is_registered() -> None:
    forges = {operator.forge for operator in OPERATORS.values()}
    assert _functions(forgery_operators, "chooser", "target") <= forges
    assert _functions(forgery_operators, "chooser", "target") == {
        operator.forge for operator in forgery_operators.BASE_OPERATORS if "<locals>" not in operator.forge.__qualname__
    }
    # every operator factory makes at least one registered operator
    for module in (forgery_operators, malformed_wires):
        factories = {
            name
            for name, value in vars(module).items()
            if inspect.isfunction(value)
            and value.__module__ == module.__name__
            and "Forgery" in str(value.__annotations__.get("return"))
            and tuple(inspect.signature(value).parameters) != ("chooser", "target")
        }
        made = {forge.__qualname__.split(".")[0] for forge in forges}
        assert factories and factories <= made, (module.__name__, factories - made)
    names = [operator.name for operator in (*forgery_operators.BASE_OPERATORS, *malformed_wires.MALFORMED_OPERATORS)]
    assert len(names) == len(set(names)) == len(OPERATORS)


def test_every_malformed_json_class_is_an_operator() -> None:
    classes = set(json_values.MALFORMED_CLASSES)
    assert _compared(malformed_wires, "_malformed_bytes", "klass") == classes - {"oversize"}
    assert {name.removeprefix("malformed:") for name in OPERATORS if name.startswith("malformed:")} == classes
    assert set(_table(json_values, "malformed_json", "makers")) == classes


def test_every_registry_fault_and_numeric_edge_is_registered() -> None:
    assert _compared(budget, "registry_fault", "fault") == set(budget.REGISTRY_FAULTS)
    assert _compared(budget, "edge_cases", "edge") == set(budget.EDGE_KINDS)


def test_every_document_mutation_is_an_operator() -> None:
    found = set()
    for base in budget.BASES:
        for path, value in mutations.json_paths(budget.base_scenario(base)):
            if path:
                found |= {
                    mutations.operator_of(mutations.kind_of(value), name) for name, _ in mutations.mutations_at(value)
                }
    assert found == set(mutations.MUTATION_OPERATORS)


# --------------------------------------------------------------------------- reached by the ci run


@pytest.fixture(scope="module")
def case_ids() -> frozenset[str]:
    """The case ids of a ``ci`` run with no selection (``vnext-conformance list``)."""
    done = run_cli("list", cwd=ROOT, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    ids = frozenset(done.stdout.split())
    assert len(ids) > 1000
    return ids


def _missing(case_ids: frozenset[str], expected: Iterable[str]) -> list[str]:
    return sorted(set(expected) - case_ids)


def test_every_rejection_matrix_operator_is_a_case(case_ids: frozenset[str]) -> None:
    matrix = "rejection_matrix/test_{}_rejection_matrix[{}]"
    expected = [matrix.format("catalog", op) for op in catalog_rejections.CATALOG_OPERATORS]
    expected += [matrix.format("family", op) for op in model_rejections.FAMILY_OPERATORS]
    expected += [matrix.format("policy", op) for op in policy.POLICY_OPERATORS]
    expected += [f"rejection_matrix/test_hostile_policy_matrix[{op}]" for op in policy.HOSTILE_POLICY_OPERATORS]
    assert not _missing(case_ids, expected)


def test_every_resolution_operator_has_a_case(case_ids: frozenset[str]) -> None:
    pattern = re.compile(r"^rejection_matrix/test_resolution_rejection_matrix\[(\w+)-(\w+)\]$")
    reached = {match.group(2) for case in case_ids if (match := pattern.match(case))}
    assert reached == set(resolution_rejections.RESOLUTION_OPERATORS)


def test_every_registry_fault_numeric_edge_and_estimate_behaviour_is_a_case(case_ids: frozenset[str]) -> None:
    assert not _missing(
        case_ids,
        [
            f"estimators/test_registry_fault_is_rejected_like_the_reference[{f}-plan_fixture]"
            for f in budget.REGISTRY_FAULTS
        ],
    )
    assert not _missing(
        case_ids, [f"memory_budget/test_numeric_edges_give_the_reference_outcome[{e}]" for e in budget.EDGE_KINDS]
    )
    assert not _missing(
        case_ids, [f"estimators/test_estimate_behavior_outcome[{b}-plan_fixture]" for b in ESTIMATE_BEHAVIORS]
    )


def test_every_weight_selection_rejection_is_a_case(case_ids: frozenset[str]) -> None:
    expected = [f"weights/test_rejections_match_reference[{param.id}]" for param in test_weights._rejections()]
    expected += [f"weights/test_selection_cells_match_the_reference[{cell}]" for cell in test_weights.SELECTION_CELLS]
    expected += [
        f"weights/test_a_faulty_materializer_is_refused_when_weights_are_materialized[{fault}-padded_dense]"
        for fault in test_weights.MATERIALIZE_FAULTS
    ]
    assert len(expected) >= 18 and not _missing(case_ids, expected)


def test_every_document_mutation_operator_is_a_case(case_ids: frozenset[str]) -> None:
    expected = [f"document_mutations/test_document_mutation_operator[{op}]" for op in mutations.MUTATION_OPERATORS]
    assert not _missing(case_ids, expected)


def test_every_cell_of_the_cell_matrices_is_a_case(case_ids: frozenset[str]) -> None:
    assert not _missing(case_ids, [f"plan_wire_matrix/test_plan_wire_invariant_matrix[{c.name}]" for c in WIRE_CELLS])
    cells = [case for case in case_ids if case.startswith("scenario_cells/")]
    named = {re.sub(r"^.*\[(.*)\]$", r"\1", case) for case in cells}
    assert {cell.name for cell in SCENARIO_CELLS} <= named


def test_every_forgery_operator_runs_in_the_kill_matrix(case_ids: frozenset[str]) -> None:
    assert "forged_plans/test_kill_matrix" in case_ids
    never = [op for op in sorted(OPERATORS) if all(forge_seeded(op, target) is None for target in reference_targets())]
    assert not never, f"operators the kill matrix never applies: {never}"
    generated = [f"forged_plans/test_forgery_is_rejected[{op}]" for op in OPERATORS if op != "malformed:oversize"]
    assert not _missing(case_ids, generated)


def test_every_semantic_change_and_respelling_runs_in_the_sensitivity_matrix(case_ids: frozenset[str]) -> None:
    bases = {name: make().scenario for name, make in test_hash_stability.MATRIX_BASES.items()}
    assert not _missing(case_ids, [f"hash_stability/test_sensitivity_matrix[{name}]" for name in bases])
    for operator in semantic_changes.SEMANTIC_CHANGES:
        applies = [name for name, base in bases.items() if semantic_changes.semantically_changed(base, operator)]
        assert applies, f"semantic change {operator} applies to no base of the sensitivity matrix"
    for operator, (_, rewrite) in respellings.RESPELLINGS.items():
        changes = [
            name
            for name, base in bases.items()
            if direct_bytes(rewrite(copy.deepcopy(base), respellings.reverse_shuffler)) != direct_bytes(base)
        ]
        assert changes, f"respelling {operator} changes the input of no base of the sensitivity matrix"
