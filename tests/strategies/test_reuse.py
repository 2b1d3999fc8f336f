"""``reusable`` hands back one strategy per factory and argument tuple, and draws as the factory's own."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from strategies._reuse import reusable


@reusable
@st.composite
def _pairs(draw: st.DrawFn, low: object, values: object = ()) -> tuple[int, object]:
    return draw(st.integers(0, 3)), low


def test_equal_hashable_arguments_give_the_same_strategy_object() -> None:
    assert _pairs(1) is _pairs(1)
    assert _pairs(1, values=(2, 3)) is _pairs(1, values=(2, 3))
    assert _pairs(1) is not _pairs(2)


def test_arguments_of_other_types_give_other_strategies() -> None:
    assert _pairs(1) is not _pairs(True)
    assert _pairs(1) is not _pairs(1.0)


def test_unhashable_arguments_build_a_new_strategy_each_time() -> None:
    first, second = _pairs(1, values=[2]), _pairs(1, values=[2])
    assert first is not second


@given(st.data())
def test_a_remembered_strategy_draws_what_a_fresh_one_draws(data: st.DataObject) -> None:
    drawn = data.draw(_pairs(7))
    assert drawn[1] == 7 and 0 <= drawn[0] <= 3
    assert data.draw(_pairs(7, values=[1]))[1] == 7
