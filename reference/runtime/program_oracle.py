"""The value-level oracle: a plan's program outputs computed without any device memory.

It walks the plan nodes in order over a map ``value id -> bytes`` (inputs as
given, weights as the materialized component bytes in storage order, states
zero) applying ``exact_elementwise``; read-write inputs update their value. A
device runtime executing the plan must produce exactly these bytes.
"""

from __future__ import annotations

from collections.abc import Mapping

from reference.catalog.catalog import CapabilityCatalog
from reference.catalog.storage import ResolvedValueRole
from reference.errors import InvalidExecutionPlan
from reference.ids import ProgramValueId, WeightId
from reference.model.prepared import PreparedModelFamily
from reference.plan.execution_plan import ExecutionPlan
from reference.resolution.binding import ResolvedValueBinding
from reference.runtime.oracle import OperandValue, exact_elementwise, operation_salt, oracle_operation_id

__all__ = ["evaluate_program"]


def _length(binding: ResolvedValueBinding) -> int:
    return sum(c.length_bytes for c in binding.storage.components)


def _weight_bytes(binding: ResolvedValueBinding, payloads: Mapping[WeightId, bytes]) -> bytes:
    parts = []
    for c in binding.storage.components:
        if c.component_id is None or c.component_id not in payloads:
            raise InvalidExecutionPlan(  # rule: 03.13.2/program_oracle_harness_side
                reason=f"weight value `{binding.value_id}` has no materialized component"
            )
        parts.append(payloads[c.component_id])
    return b"".join(parts)


def evaluate_program(
    plan: ExecutionPlan,
    family: PreparedModelFamily,
    catalog: CapabilityCatalog,
    inputs: Mapping[ProgramValueId, bytes],
    weight_payloads: Mapping[WeightId, bytes],
) -> tuple[tuple[ProgramValueId, bytes], ...]:
    """Program outputs, in program order, of one zero-state request."""
    values: dict[ProgramValueId, bytes] = dict(inputs)
    states = {s.value_id for s in family.program.states}
    for node in plan.nodes:
        ins = sorted((b for b in node.values if b.role is ResolvedValueRole.INPUT), key=lambda b: b.ordinal)
        outs = sorted((b for b in node.values if b.role is ResolvedValueRole.OUTPUT), key=lambda b: b.ordinal)
        operands = []
        for b in ins:
            if b.value_id not in values:
                if b.weight is not None:
                    values[b.value_id] = _weight_bytes(b, weight_payloads)
                elif b.value_id in states:
                    values[b.value_id] = bytes(_length(b))
                else:
                    raise InvalidExecutionPlan(  # rule: 03.13.2/program_oracle_harness_side
                        reason=f"value `{b.value_id}` is read before it is produced"
                    )
            operands.append(OperandValue(b.tensor.element_type, b.access, values[b.value_id]))
        salt = operation_salt(oracle_operation_id(catalog, node.operation_id))
        results, updates = exact_elementwise(salt, operands, [(b.tensor.element_type, _length(b)) for b in outs])
        for b, data in zip(outs, results, strict=True):
            values[b.value_id] = data
        for k, data in updates.items():
            values[ins[k].value_id] = data
    return tuple((v, values[v]) for v in family.program.outputs)
