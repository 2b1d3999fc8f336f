"""The checked-in seed corpus and golden vectors equal what the fixtures and the reference produce now."""

from __future__ import annotations

from conformance import seed_corpus
from conformance.golden.__main__ import main as golden_main
from reference.api import ESTIMATE_BEHAVIORS


def test_seed_corpus_is_current() -> None:
    assert seed_corpus.main(["--check"]) == 0, "run: python -m conformance.seed_corpus --write"


def test_seed_corpus_covers_the_issue_list() -> None:
    stems = set(seed_corpus.seed_cases())
    required = {
        "seed_plan_fixture_0",
        "seed_plan_fixture_policy_4096_256_4",
        "seed_sequential_scratch",
        "seed_paged_storage",
    }
    required |= {f"seed_graph_{s}" for s in seed_corpus.GRAPH_SCENARIOS}
    required |= {f"seed_estimate_{b}" for b in ESTIMATE_BEHAVIORS}
    assert required <= stems


def test_golden_vectors_are_current() -> None:
    assert golden_main(["--check"]) == 0, "run: python -m conformance.golden --write"
