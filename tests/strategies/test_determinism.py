"""Under the ``ci`` profile every top-level strategy draws the same values on every run."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.canonical import canonical_bytes
from strategies.catalog_rejections import catalog_rejections
from strategies.json_values import json_values, malformed_json
from strategies.model_rejections import family_rejections
from strategies.policy import hostile_policies, policy_rejections

# The rejection strategies draw a complete valid draft first (family, catalog, policy), so checking
# them also checks the draft strategies without paying for a second pair of runs.
STRATEGIES: dict[str, tuple[st.SearchStrategy[Any], Callable[[Any], Any]]] = {
    "family_rejections": (family_rejections(), lambda r: [r.operator, r.original, r.document]),
    "catalog_rejections": (catalog_rejections(), lambda r: [r.operator, r.original, r.document]),
    "policy_rejections": (policy_rejections(), lambda r: [r.operator, r.original, r.document]),
    "hostile_policies": (hostile_policies(), lambda h: [h.hostility, h.document]),
    "malformed_json": (
        json_values().flatmap(lambda doc: malformed_json(doc, max_bytes=4096)),
        lambda m: [m.klass, m.data.hex()],
    ),
}


def _run(strategy: st.SearchStrategy[Any], key: Callable[[Any], Any]) -> list[bytes]:
    seen: list[bytes] = []

    @settings(settings.get_profile("ci"))
    @given(strategy)
    def collect(value: Any) -> None:
        seen.append(canonical_bytes(key(value)))

    collect()
    return seen


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_strategy_is_deterministic_under_the_ci_profile(name: str) -> None:
    strategy, key = STRATEGIES[name]
    first = _run(strategy, key)
    assert first == _run(strategy, key)
    assert len(set(first)) > 1, "the strategy must actually vary"
