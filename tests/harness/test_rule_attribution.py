"""A case is credited with the rules of the oracle's refusals once it asked the backend too.

The raise site of a contract error is found in its traceback; the census behind the lookup is cached in a
file named by the sources' digest, rebuilt when missing or malformed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.reach import attribution
from conformance.reach.sites import census, reference_root
from harness.backends import reference as reference_backend
from harness.backends.reference import ReferenceImplementation
from harness.cases import CURRENT_RULES, CheckedRules, backend_asked, computed, observe
from harness.plugin.oracle_trace import OracleTracer, ValueRuleIndex
from harness.rules import RuleCatalogue
from reference import api
from reference.model.state import StateSpec

from .helpers import ROOT, cases, read_jsonl, run_cli


def _refusal() -> api.VNextError:
    with pytest.raises(api.VNextError) as info:
        api.check_identity("capability", "")
    return info.value


def test_the_rules_of_a_refusal_are_those_of_its_raise_site() -> None:
    error = _refusal()
    source = (ROOT / "reference/ids.py").read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(source, 1) if "raise InvalidIdentity(identity_kind=cls.KIND" in text)
    assert [site.location for site in attribution.raise_sites(error)] == [f"reference/ids.py:{line}"]
    assert attribution.error_rules(error) == ("01.1.1/identity_empty",)


def test_a_wrapped_refusal_credits_the_nested_site_too() -> None:
    with pytest.raises(api.VNextError) as info:
        api.build_plan({"scenario_version": 2})
    sites = attribution.raise_sites(info.value)
    assert sites and all(site.rules for site in sites)
    assert set(attribution.error_rules(info.value)) == {rule for site in sites for rule in site.rules}


def _state_spec_refusal(extra: dict[str, object], drop: str | None = None) -> api.VNextError:
    raw: dict[str, object] = {
        "id": "state.k",
        "value_id": "value.k",
        "tensor": {},
        "lifetime": "request",
        "capacity_demand": {},
        "initialization": "zeroed",
        **extra,
    }
    if drop is not None:
        del raw[drop]
    with pytest.raises(api.VNextError) as info:
        StateSpec.decode_parts(raw, "test")
    return info.value


def test_a_shared_decoder_refusal_credits_the_rule_of_the_passage_it_went_through() -> None:
    unknown = attribution.error_rules(_state_spec_refusal({"extra": 1}))
    assert unknown == ("01.3.6/decode_unknown_field", "02.1/deny_unknown_state_spec")
    missing = attribution.error_rules(_state_spec_refusal({}, drop="tensor"))
    assert missing == ("03.1/derived_struct_missing_field",)  # another refusal of the same call: not its rule


def test_a_memoized_refusal_is_raised_from_its_first_site() -> None:
    scenario = {"scenario_version": 2}
    with pytest.raises(api.VNextError) as first:
        api.build_plan(scenario)
    with pytest.raises(api.VNextError) as again:
        api.build_plan(scenario)
    assert attribution.raise_sites(again.value) == attribution.raise_sites(first.value)
    assert attribution.raise_sites(first.value)


def test_observed_rules_count_only_once_the_backend_was_asked() -> None:
    checked = CheckedRules(tuple, ["a"])
    token = CURRENT_RULES.set(checked)
    try:
        observe(["b", "a"])
        assert checked.checked() == ("a",)
        backend_asked("check_identity")
        assert checked.checked() == ("a", "b")
    finally:
        CURRENT_RULES.reset(token)
    observe(["c"])  # outside a case: nothing to credit, no error
    assert checked.checked() == ("a", "b")


def test_the_reference_shows_each_refusal_to_its_observer_and_still_raises_it() -> None:
    seen: list[api.VNextError] = []
    observed = ReferenceImplementation(seen.append)
    with pytest.raises(api.VNextError) as info:
        observed.check_identity("capability", "")
    assert seen == [info.value] and info.value.__traceback__ is not None
    observed.check_identity("capability", "capability.a")
    assert len(seen) == 1
    assert ReferenceImplementation().check_identity is api.check_identity


def test_computed_rules_count_only_for_an_operation_the_backend_was_asked() -> None:
    checked = CheckedRules(tuple)
    token = CURRENT_RULES.set(checked)
    try:
        computed("build_plan", ["v"])
        computed("revalidate", ["w"])
        backend_asked("revalidate")
        assert checked.checked() == ("w",)
        backend_asked("build_plan")
        assert checked.checked() == ("v", "w")
    finally:
        CURRENT_RULES.reset(token)


def _catalogue() -> RuleCatalogue:
    return RuleCatalogue.load((ROOT / "conformance" / "rules").glob("*.json"))


def test_a_watched_oracle_call_is_credited_with_the_value_rules_of_the_functions_it_ran() -> None:
    catalogue = _catalogue()
    index = ValueRuleIndex(catalogue, ROOT)
    scenario = json.loads((ROOT / "conformance/corpus/seed_estimate_correct.json").read_text())["params"]["scenario"]
    oracle = ReferenceImplementation(tracer=OracleTracer(lambda: index))
    for _ in range(2):  # the second build is memoized, and a watched call computes it again
        checked = CheckedRules(catalogue.expand)
        token = CURRENT_RULES.set(checked)
        try:
            oracle.build_plan(scenario)
            oracle.build_plan(scenario)  # beyond the watched calls of the case: not watched
            assert checked.traced == {"build_plan": 1}
            assert checked.checked() == ()
            backend_asked("build_plan")
            credited = checked.checked()
        finally:
            CURRENT_RULES.reset(token)
        assert "05.1/identity_materializer_constants" in credited
        assert all(catalogue.by_id[rule].kind is None for rule in credited)
        assert all("build_plan" in catalogue.by_id[rule].observable_through for rule in credited)
    assert index.rules_of("describe", [(str(ROOT / "reference/plan/decode.py"), "_check_size")]) == ()


def test_a_request_watched_once_credits_the_same_functions_without_being_watched_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[frozenset[tuple[str, str]]] = []
    profiled: list[str] = []
    real = reference_backend._run_profiled

    def counted(function: Any, args: Any, kwargs: Any) -> Any:
        profiled.append(function.__name__)
        return real(function, args, kwargs)

    class Tracer:
        def wants(self, operation: str) -> bool:
            return True

        def ran(self, operation: str, functions: frozenset[tuple[str, str]]) -> None:
            seen.append(functions)

    monkeypatch.setattr(reference_backend, "_run_profiled", counted)
    monkeypatch.setattr(reference_backend, "_WATCHED", type(reference_backend._WATCHED)())
    oracle = ReferenceImplementation(tracer=Tracer())
    oracle.check_identity("capability", "capability.watched")
    oracle.check_identity("capability", "capability.watched")
    assert profiled == ["check_identity"] and len(seen) == 2 and seen[0] == seen[1]
    assert any(name.endswith("_portable_reason") for _, name in seen[0])
    oracle.check_identity("capability", "capability.other")
    assert profiled == ["check_identity", "check_identity"]
    for _ in range(2):  # a refusal credits no function: it is never watched
        with pytest.raises(api.VNextError):
            oracle.check_identity("capability", "not portable")
    assert profiled == ["check_identity"] * 2 and len(seen) == 3


def test_a_call_outside_a_case_or_under_another_profiler_is_not_watched() -> None:
    seen: list[str] = []

    class Tracer:
        def wants(self, operation: str) -> bool:
            return True

        def ran(self, operation: str, functions: frozenset[tuple[str, str]]) -> None:
            seen.append(operation)

    oracle = ReferenceImplementation(tracer=Tracer())
    oracle.check_identity("capability", "capability.a")
    assert seen == ["check_identity"]
    previous = sys.getprofile()
    sys.setprofile(lambda *_: None)
    try:
        oracle.check_identity("capability", "capability.a")
    finally:
        sys.setprofile(previous)
    assert seen == ["check_identity"]
    assert not OracleTracer(lambda: ValueRuleIndex(_catalogue(), ROOT)).wants("build_plan")


def test_the_census_cache_is_the_census_and_is_rebuilt_when_broken(tmp_path: Path) -> None:
    expected = census()
    assert attribution.cached_census(directory=tmp_path) == expected
    (written,) = tmp_path.glob("census-*.json")
    assert written.name == f"census-{attribution.census_digest(reference_root())}.json"
    assert attribution.cached_census(directory=tmp_path) == expected
    for broken in ("{", "[]x", json.dumps({"path": 1}), json.dumps([{"path": "x"}])):
        written.write_text(broken, encoding="utf-8")
        assert attribution.cached_census(directory=tmp_path) == expected
    assert json.loads(written.read_text(encoding="utf-8"))  # rewritten whole


def test_a_stale_cache_file_is_not_read(tmp_path: Path) -> None:
    (tmp_path / "census-0000.json").write_text("[]", encoding="utf-8")
    assert attribution.cached_census(directory=tmp_path) == census()


def test_an_unwritable_cache_directory_only_costs_the_scan(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    assert attribution.cached_census(directory=blocker / "below") == census()


def test_a_run_credits_matrix_cases_with_the_rules_of_their_refusals(tmp_path: Path) -> None:
    """``test_resolution_rejection_matrix`` declares no rule; each cell is credited with what the oracle refused."""
    report = tmp_path / "r.jsonl"
    proc = run_cli(
        "run", "--profile", "ci", "-n", "0", "--report-json", str(report),
        *(f"--case=rejection_matrix/test_resolution_rejection_matrix[plan_fixture-{cell}]"
          for cell in ("capability_absent", "dimension_grown", "drop_resolution")),
        cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    records = cases(read_jsonl(report))
    assert len(records) == 3
    for case_id, record in records.items():
        assert record["rules"], f"{case_id} is credited with no rule"
