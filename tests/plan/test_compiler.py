"""``ProgramPlanCompiler`` (spec 05 §7.13): weight arenas and the alignment fixed point."""

from __future__ import annotations

import pytest

from reference.ids import NodeId, ProgramValueId
from reference.model.element import ElementType
from reference.model.tensor import ProgramTensorSpec
from reference.plan.compiler import ProgramPlanCompileOptions, ProgramPlanCompiler
from reference.plan.memory import BufferUsage, compiler_resource_id
from seeds.catalogs import catalog
from seeds.policies import policy
from seeds.resolution import planning_registry
from tests.plan.helpers import family, raises_kind

INPUTS = {ProgramValueId("value.input"): ProgramTensorSpec((4,), ElementType.F32)}


def _compile(behavior: str, options: ProgramPlanCompileOptions | None = None) -> tuple[object, int]:
    cat = catalog()
    registry = planning_registry(cat, 64, 32, behavior)
    compilation = ProgramPlanCompiler.compile(
        family(), cat, policy(4096), registry.planning(), options or ProgramPlanCompileOptions(INPUTS)
    )
    return compilation, registry.estimator_calls


@pytest.mark.parametrize(("behavior", "alignment", "min_calls"), [("arena_alignment64", 64, 3), ("correct", 16, 2)])
def test_arena_alignment_fixed_point(behavior: str, alignment: int, min_calls: int) -> None:
    compilation, calls = _compile(behavior)
    plan = compilation.plan  # type: ignore[attr-defined]
    node = plan.nodes[0]
    assert node.provider_resources.value_alignment_bytes == alignment
    assert calls >= min_calls
    fingerprint = family().fingerprint()
    arena = compiler_resource_id("weight-arena", fingerprint, '"f32"')
    weight = next(b for b in node.values if b.usage is BufferUsage.WEIGHTS)
    assert [c.resource_id for c in weight.storage.components] == [arena]
    assert all(c.offset_bytes % alignment == 0 for c in weight.storage.components)
    (row,) = [a for a in plan.memory.static_allocations if a.resource_id == arena]
    assert row.size_bytes == max(16, alignment) and row.alignment_bytes == alignment


def test_compiler_storages_and_ids() -> None:
    compilation, _ = _compile("correct")
    fingerprint = family().fingerprint()
    node = compilation.plan.nodes[0]  # type: ignore[attr-defined]
    ids = {b.value_id.value: b.storage.components[0].resource_id for b in node.values}
    assert ids["value.input"] == compiler_resource_id("activation", fingerprint, "value.input")
    assert ids["value.output"] == compiler_resource_id("activation", fingerprint, "value.output")
    assert ids["value.state"] == compiler_resource_id("state", fingerprint, "state.cache")
    assert compilation.value_tensors[ProgramValueId("value.output")].dimensions == (4,)  # type: ignore[attr-defined]


def test_compiler_option_rejections() -> None:
    error = raises_kind("invalid_execution_plan", lambda: _compile("correct", ProgramPlanCompileOptions({})))
    assert "every program input requires an explicit canonical tensor capacity" in error.to_dict()["reason"]
    unknown = ProgramPlanCompileOptions(
        {**INPUTS, ProgramValueId("value.unknown"): ProgramTensorSpec((4,), ElementType.F32)}
    )
    raises_kind("invalid_execution_plan", lambda: _compile("correct", unknown))
    wrong_node = ProgramPlanCompileOptions(INPUTS, preferred_providers={NodeId("node.none"): None})  # type: ignore[dict-item]
    raises_kind("invalid_execution_plan", lambda: _compile("correct", wrong_node))
    wrong_shape = ProgramPlanCompileOptions({ProgramValueId("value.input"): ProgramTensorSpec((5,), ElementType.F32)})
    raises_kind("invalid_execution_plan", lambda: _compile("correct", wrong_shape))
