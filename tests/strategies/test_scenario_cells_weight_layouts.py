"""``strategies.scenario_cells.weight_layouts``: each cell is refused by the reference at the raise site of its own
rule, the layouts the cells start from are accepted, and each cell breaks that one check only: the layout
validator with the check taken out (as a backend without it would compute) no longer refuses the cell."""

from __future__ import annotations

import ast
import io
import re
import tokenize
import types
from pathlib import Path
from typing import Final

import pytest

from conformance.reach.attribution import error_rules
from reference import api
from reference.errors import VNextError
from reference.model import layout_validation, weight_schema
from strategies.budget import base_scenario
from strategies.json_edits import apply_edits
from strategies.scenario_cells import weight_layouts
from strategies.scenario_cells.cell import ScenarioCell

from .helpers import assert_cell_refused

_CELLS: Final = weight_layouts.CELLS
_SOURCE: Final = Path(layout_validation.__file__).read_text(encoding="utf-8")
_PAIRED: Final = (("strict=True", "strict=False"),)
_LENGTHS_UNCHECKED: Final = (("len(strides) != len(dims) or ", ""), *_PAIRED)
#: How a backend without the check computes on, beyond not raising at the check's sites: lists of two lengths
#: paired as far as both go, a span walk that never compares a stride with the span so far, a round-up that cannot
#: overflow for a multiple.
_LENIENT: Final[dict[str, tuple[tuple[str, str], ...]]] = {
    "02.8.7/zero_fill_rank": _PAIRED,
    "02.8.7/tiled_tile_rank": _PAIRED,
    "02.8.7/grouped_zero_fill_minimal": _PAIRED,
    "02.8.7/span_rejects_overlap": (("        if stride < span:\n            return SpanFault.OVERLAP\n", ""),),
    "02.8.7/span_rejects_malformed": _LENGTHS_UNCHECKED,
    "02.8.7/tiled_strides_rank": _LENGTHS_UNCHECKED,
    "02.8.7/grouped_not_computable": (
        ("rounded = checked_round_up(shape[axis], group)", "rounded = -(-shape[axis] // group) * group"),
    ),
}


@pytest.mark.parametrize("cell", _CELLS, ids=lambda c: c.name)
def test_the_reference_refuses_each_cell_at_its_rules_site(cell: ScenarioCell) -> None:
    error = assert_cell_refused(cell)
    assert cell.rule in error_rules(error), f"{cell.name} is refused at a site of {error_rules(error)}"


@pytest.mark.parametrize("name", sorted(weight_layouts.ACCEPTED))
def test_the_layouts_the_cells_start_from_are_accepted(name: str) -> None:
    api.build_plan(apply_edits(base_scenario("plan_fixture"), weight_layouts._laid(weight_layouts.ACCEPTED[name])))


def test_the_tiled_worked_example_is_accepted() -> None:
    api.prepare_family(apply_edits(base_scenario("plan_fixture"), weight_layouts.TILED_WORKED_EXAMPLE))


def _without(rule: str) -> str:
    """The layout validator's source with every raise annotated with ``rule`` replaced by ``pass``."""
    comments = {
        token.start[0]: token.string
        for token in tokenize.generate_tokens(io.StringIO(_SOURCE).readline)
        if token.type == tokenize.COMMENT
    }
    lines = _SOURCE.splitlines(keepends=True)
    found = 0
    for node in ast.walk(ast.parse(_SOURCE)):
        if not isinstance(node, ast.Raise) or node.end_lineno is None:
            continue
        span = range(node.lineno, node.end_lineno + 1)
        annotated = (re.search(r"#\s*rule:\s*([^#]*)", comments.get(line, "")) for line in span)
        rules = next((match.group(1) for match in annotated if match), "")
        if rule in (part.strip() for part in rules.split(",")):
            found += 1
            lines[node.lineno - 1] = " " * node.col_offset + "pass\n"
            for index in range(node.lineno, node.end_lineno):
                lines[index] = "\n"
    assert found, f"no raise site of {rule}"
    source = "".join(lines)
    for old, new in _LENIENT.get(rule, ()):
        assert old in source, (rule, old)
        source = source.replace(old, new)
    return source


@pytest.mark.parametrize("cell", _CELLS, ids=lambda c: c.name)
def test_each_cell_breaks_only_its_own_check(cell: ScenarioCell, monkeypatch: pytest.MonkeyPatch) -> None:
    lenient = types.ModuleType(layout_validation.__name__)
    exec(compile(_without(cell.rule), layout_validation.__file__, "exec"), lenient.__dict__)
    monkeypatch.setattr(weight_schema, "LayoutValidator", lenient.LayoutValidator)
    with api.computed_directly():
        try:
            getattr(api, cell.operation)(*cell.arguments())
        except VNextError as error:
            pytest.fail(f"{cell.name}: without {cell.rule} the reference still refuses it: {error}")
        except (AttributeError, IndexError):
            pass  # the validator's own code leans on the check taken out (a missing component, a part's rank)
