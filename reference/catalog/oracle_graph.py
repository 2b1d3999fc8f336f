"""The catalog's reference-oracle graph check (spec 03 §11.3, step g).

Pass 1 checks each reference target exists, satisfies the requested version
and has identical inputs, outputs and attributes. Pass 2 walks from every root
in ascending id order, marking nodes Visiting then Visited; re-entering a
Visiting node is a cycle and a single walk longer than 64 fresh nodes is too
deep. All failures are ``InvalidExecutionPlan``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from reference.catalog.operation import OperationDescriptor
from reference.errors import invalid_plan
from reference.ids import OperationId

__all__ = ["MAX_REFERENCE_ORACLE_DEPTH", "validate_reference_oracles"]

MAX_REFERENCE_ORACLE_DEPTH: Final = 64
_VISITING: Final = 1
_VISITED: Final = 2


def validate_reference_oracles(operations: Mapping[OperationId, OperationDescriptor]) -> None:
    """Run pass 1 then pass 2 over ``operations`` (keys ascending)."""
    ordered = sorted(operations)
    for operation_id in ordered:
        operation = operations[operation_id]
        target_id, version = operation.oracle.operation_id, operation.oracle.version
        if target_id is None or version is None:
            continue
        target = operations.get(target_id)
        if target is None:
            raise invalid_plan(  # rule: 03.11.3/oracle_target_missing
                f"operation `{operation_id}` references missing oracle operation `{target_id}`"
            )
        if not target.version.satisfies(version):
            raise invalid_plan(  # rule: 03.11.3/oracle_target_version
                f"operation `{operation_id}` references an incompatible oracle version of `{target_id}`"
            )
        if (
            operation.inputs != target.inputs
            or operation.outputs != target.outputs
            or operation.attributes != target.attributes
        ):
            raise invalid_plan(  # rule: 03.11.3/oracle_target_signature
                f"operation `{operation_id}` references oracle `{target_id}` with a different signature"
            )
    state: dict[OperationId, int] = {}
    for root in ordered:
        if state.get(root) == _VISITED:
            continue
        path: list[OperationId] = []
        current: OperationId | None = root
        while current is not None:
            mark = state.get(current)
            if mark == _VISITED:
                break
            if mark == _VISITING:
                cycle = f"reference oracle cycle through operation `{current}`"
                if path[-1] == current:
                    raise invalid_plan(cycle)  # rule: 03.11.3/oracle_self_reference_cycle
                raise invalid_plan(cycle)  # rule: 03.11.3/oracle_two_cycle
            if len(path) >= MAX_REFERENCE_ORACLE_DEPTH:
                raise invalid_plan(  # rule: 03.11.3/oracle_depth_64
                    f"reference oracle chain from `{root}` exceeds depth {MAX_REFERENCE_ORACLE_DEPTH}"
                )
            state[current] = _VISITING
            path.append(current)
            current = operations[current].oracle.operation_id
        for node in path:
            state[node] = _VISITED
