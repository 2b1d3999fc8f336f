//! The checked-in corpus and golden vectors, read natively: their data is consistent, every
//! scenario round-trips through the kit's types, and the replayer tells right from wrong.

use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;

use vnext_conformance_kit::canonical::canonical_bytes;
use vnext_conformance_kit::replay::{compare, Corpus, Expect, Expected, InProcess, Verdict};
use vnext_conformance_kit::{
    Backend, Implementation, OpError, OpResult, Operation, PlanWire, RevalidateParams, ScenarioParams, VNextError,
    WireBytes,
};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

fn corpus() -> Corpus {
    let root = repo();
    Corpus::load(root.join("conformance/corpus"), Some(root.join("conformance/golden/plan_hashes.json"))).unwrap()
}

fn implementation() -> Implementation {
    Implementation { name: "kit-test".into(), version: "0.0.0".into(), language: "rust".into() }
}

#[test]
fn checked_in_data_is_consistent() {
    let corpus = corpus();
    assert!(corpus.entries.len() >= 30, "the corpus has {} bundles", corpus.entries.len());
    assert!(corpus.golden.as_ref().map_or(0, |g| g.vectors.len()) >= 10);
    let problems = corpus.check();
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn every_corpus_and_golden_scenario_round_trips_through_the_kit_types() {
    let corpus = corpus();
    let checked = corpus.scenarios().iter().filter(|(_, s)| s.as_object().map_or(false, |o| !o.is_empty())).count();
    assert!(checked >= 40, "only {checked} scenarios");
    let problems = corpus.scenario_round_trip_problems();
    assert!(problems.is_empty(), "{problems:#?}");
}

struct ListsNothing;

impl Backend for ListsNothing {
    fn implementation(&self) -> Implementation {
        implementation()
    }
    fn operations(&self) -> Vec<Operation> {
        Vec::new()
    }
}

#[test]
fn a_backend_listing_nothing_is_not_applicable_everywhere() {
    let corpus = corpus();
    let report = corpus.replay(&mut InProcess(&mut ListsNothing));
    assert_eq!(report.counts(), (0, corpus.entries.len(), 0, 0));
    assert!(report.is_ok());
}

/// Answers every listed operation with `serialization`/`decode scenario`.
struct RefusesEverything;

impl Backend for RefusesEverything {
    fn implementation(&self) -> Implementation {
        implementation()
    }
    fn operations(&self) -> Vec<Operation> {
        vec![Operation::BuildPlan, Operation::Revalidate]
    }
    fn build_plan(&mut self, _: ScenarioParams) -> OpResult<PlanWire> {
        Err(VNextError::serialization("decode scenario", "refused").into())
    }
    fn revalidate(&mut self, _: RevalidateParams) -> OpResult<vnext_conformance_kit::PlanHash> {
        Err(VNextError::serialization("decode scenario", "refused").into())
    }
}

#[test]
fn wrong_outcomes_fail_their_bundles() {
    let corpus = corpus();
    let report = corpus.replay(&mut InProcess(&mut RefusesEverything));
    let refusal = VNextError::serialization("decode scenario", "refused").comparable();
    for (entry, case) in corpus.entries.iter().zip(&report.cases) {
        // Independently of the replayer: the refusal matches only an error pin it satisfies.
        let satisfied = match &entry.bundle.expect {
            Some(Expect::Error(want)) => {
                want.iter().filter(|(k, _)| k.as_str() != "message").all(|(k, v)| refusal.get(k) == Some(v))
            }
            _ => false,
        };
        let expected_pass = satisfied;
        assert_eq!(matches!(case.verdict, Verdict::Passed), expected_pass, "{}: {:?}", case.name, case.verdict);
        assert!(matches!(case.verdict, Verdict::Passed | Verdict::Failed(_)), "{}: {:?}", case.name, case.verdict);
    }
    assert!(!report.is_ok());
}

/// Answers `build_plan` with the pinned outcome of its scenario, optionally with one wire byte changed.
struct PinnedPlans {
    by_scenario: BTreeMap<Vec<u8>, Result<Vec<u8>, VNextError>>,
    corrupt: bool,
}

impl PinnedPlans {
    fn new(corpus: &Corpus, corrupt: bool) -> Self {
        let mut by_scenario = BTreeMap::new();
        for entry in &corpus.entries {
            if entry.bundle.operation != "build_plan" {
                continue;
            }
            let key = canonical_bytes(&entry.bundle.params["scenario"]).unwrap();
            let answer = match &entry.bundle.expect {
                Some(Expect::Result(result)) => {
                    let text = result["wire_base64"].as_str().unwrap();
                    Ok(vnext_conformance_kit::base64::decode(text).unwrap())
                }
                // The bundles pin the kind only; any fields will do.
                Some(Expect::Error(error)) => Err(match error["kind"].as_str() {
                    Some("invalid_execution_plan") => VNextError::invalid_execution_plan("pinned"),
                    Some("unsupported_operation") => VNextError::UnsupportedOperation {
                        node_id: None,
                        operation_id: "pinned".into(),
                        device_id: "pinned".into(),
                        reason: "pinned".into(),
                    },
                    other => panic!("{}: no pinned answer for the error kind {other:?}", entry.stem),
                }),
                None => continue,
            };
            by_scenario.insert(key, answer);
        }
        Self { by_scenario, corrupt }
    }
}

impl Backend for PinnedPlans {
    fn implementation(&self) -> Implementation {
        implementation()
    }
    fn operations(&self) -> Vec<Operation> {
        vec![Operation::BuildPlan]
    }
    fn build_plan(&mut self, params: ScenarioParams) -> OpResult<PlanWire> {
        let key = canonical_bytes(&Value::Object(params.scenario.json().clone())).map_err(OpError::Contract)?;
        match self.by_scenario.get(&key) {
            Some(Ok(wire)) => {
                let mut wire = wire.clone();
                if self.corrupt {
                    let last = wire.len() - 3;
                    wire[last] ^= 1;
                }
                Ok(PlanWire { wire_base64: WireBytes(wire) })
            }
            Some(Err(error)) => Err(error.clone().into()),
            None => Err(VNextError::serialization("decode scenario", "unknown scenario").into()),
        }
    }
}

#[test]
fn pinned_outcomes_pass_and_a_changed_byte_fails() {
    let corpus = corpus();
    let plan_bundles = corpus.entries.iter().filter(|e| e.bundle.operation == "build_plan").count();
    let results = corpus
        .entries
        .iter()
        .filter(|e| e.bundle.operation == "build_plan" && matches!(e.bundle.expect, Some(Expect::Result(_))))
        .count();
    assert!(results > 0 && plan_bundles > results);

    let honest = corpus.replay(&mut InProcess(&mut PinnedPlans::new(&corpus, false)));
    assert_eq!(honest.counts(), (plan_bundles, corpus.entries.len() - plan_bundles, 0, 0), "{}", honest.summary());

    let corrupt = corpus.replay(&mut InProcess(&mut PinnedPlans::new(&corpus, true)));
    let (passed, _, failed, _) = corrupt.counts();
    assert_eq!((passed, failed), (plan_bundles - results, results), "{}", corrupt.summary());
}

fn object(value: Value) -> Map<String, Value> {
    value.as_object().unwrap().clone()
}

#[test]
fn comparison_rules() {
    use vnext_conformance_kit::protocol::ReplyBody;
    use vnext_conformance_kit::ErrorObject;
    let error = |e: VNextError| ReplyBody::Error(ErrorObject { message: Some(e.to_string()), error: e });
    let schema = VNextError::UnsupportedPlanSchema { expected_major: 8, expected_minor: 1, actual_major: 9, actual_minor: 1 };
    let pinned = Expected::Error(object(json!({"kind": "unsupported_plan_schema", "actual_major": 9})));
    assert!(compare(&pinned, &error(schema.clone())).is_ok());
    let other = VNextError::UnsupportedPlanSchema { expected_major: 8, expected_minor: 1, actual_major: 3, actual_minor: 0 };
    assert!(compare(&pinned, &error(other)).is_err());
    let ctx = Expected::Error(object(json!({"kind": "serialization", "context": "decode untrusted execution plan", "message": "ignored"})));
    assert!(compare(&ctx, &error(VNextError::serialization("decode untrusted execution plan", "x"))).is_ok());
    assert!(compare(&ctx, &error(VNextError::serialization("decode scenario", "x"))).is_err());
    let result = Expected::Result(object(json!({"plan_hash": "0".repeat(64)})));
    assert!(compare(&result, &ReplyBody::Result(object(json!({"plan_hash": "0".repeat(64)})))).is_ok());
    assert!(compare(&result, &ReplyBody::Result(object(json!({"plan_hash": "1".repeat(64)})))).is_err());
    assert!(compare(&result, &error(schema)).is_err());
    assert!(compare(&pinned, &ReplyBody::Result(Map::new())).is_err());
}
