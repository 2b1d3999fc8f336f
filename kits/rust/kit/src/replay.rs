//! Replay the checked-in corpus (`conformance/corpus/*.json`) and golden vectors
//! (`conformance/golden/plan_hashes.json`) against a backend, without Python.
//!
//! Each bundle pins its outcome (harness/bundles.py): `expect` is `{"result": {...}}` (equal
//! exactly), `{"error": {...}}` (the given fields equal; `message` never compared), or `null`
//! ("the reference's outcome"). For a `null` expectation the outcome must be pinned elsewhere
//! in the checked-in data: a `build_plan` bundle whose scenario is a golden vector's scenario
//! must produce that vector's plan hash and exact wire (its sha256 and length). A bundle with
//! neither is reported *unpinned*, which fails a replay: pin it (`python -m
//! conformance.seed_corpus`, a golden vector, or an `expect`) before promoting it.
//!
//! ```no_run
//! use vnext_conformance_kit::replay::{Corpus, InProcess};
//! use vnext_conformance_kit::{Backend, Implementation, Operation};
//!
//! struct MyBackend;
//! impl Backend for MyBackend {
//!     fn implementation(&self) -> Implementation {
//!         Implementation { name: "mine".into(), version: "0.1.0".into(), language: "rust".into() }
//!     }
//!     fn operations(&self) -> Vec<Operation> {
//!         vec![]
//!     }
//! }
//!
//! let corpus = Corpus::load("conformance/corpus", Some("conformance/golden/plan_hashes.json")).unwrap();
//! let report = corpus.replay(&mut InProcess(&mut MyBackend));
//! assert!(report.is_ok(), "{}", report.summary());
//! ```

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use crate::base64;
use crate::canonical::{canonical_bytes, is_canonical_sha256, parse_strict, sha256_hex};
use crate::client::ExecClient;
use crate::ops::{Backend, Operation, RevalidateParams, ScenarioParams};
use crate::protocol::{ContractIdentity, FailureCode, ReplyBody};
use crate::scenario::Scenario;
use crate::server::answer;

/// The largest bundle file read.
pub const MAX_BUNDLE_BYTES: usize = 64 * 1024 * 1024;
const BUNDLE_CONTEXT: &str = "decode scenario bundle";
const SEED_PREFIX: &str = "seed_";

/// A bundle's pinned outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Expect {
    /// The exact result object.
    Result(Map<String, Value>),
    /// `kind` plus any subset of the error's fields.
    Error(Map<String, Value>),
}

/// One replayable operation call (`schemas/protocol/bundle.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bundle {
    pub bundle_version: u32,
    pub case: String,
    pub operation: String,
    pub params: Map<String, Value>,
    #[serde(deserialize_with = "crate::scenario::common::nullable")]
    pub expect: Option<Expect>,
    pub note: String,
}

/// One golden plan-hash vector.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GoldenVector {
    pub name: String,
    pub plan_hash: String,
    pub wire_sha256: String,
    pub wire_bytes: u64,
    pub scenario: Value,
}

/// `conformance/golden/plan_hashes.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GoldenFile {
    pub golden_version: u32,
    pub contract: ContractIdentity,
    pub generator: String,
    pub vectors: Vec<GoldenVector>,
}

/// A bundle file: its name, its exact bytes and its decoded bundle.
#[derive(Debug, Clone)]
pub struct CorpusEntry {
    pub path: PathBuf,
    pub stem: String,
    pub bytes: Vec<u8>,
    pub bundle: Bundle,
}

/// What a bundle must produce.
#[derive(Debug, Clone, PartialEq)]
pub enum Expected {
    Result(Map<String, Value>),
    Error(Map<String, Value>),
    /// `build_plan` of a golden vector's scenario.
    GoldenPlan { name: String, plan_hash: String, wire_sha256: String, wire_bytes: u64 },
}

/// The verdict on one bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Passed,
    /// The backend does not list the bundle's operation.
    NotApplicable,
    Failed(String),
    /// `expect` is null and nothing checked in pins the outcome.
    Unpinned,
}

/// One bundle's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseReport {
    pub name: String,
    pub operation: String,
    pub verdict: Verdict,
}

/// The verdicts of one replay.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplayReport {
    pub cases: Vec<CaseReport>,
}

impl ReplayReport {
    /// `(passed, not_applicable, failed, unpinned)`.
    pub fn counts(&self) -> (usize, usize, usize, usize) {
        let mut counts = (0, 0, 0, 0);
        for case in &self.cases {
            match case.verdict {
                Verdict::Passed => counts.0 += 1,
                Verdict::NotApplicable => counts.1 += 1,
                Verdict::Failed(_) => counts.2 += 1,
                Verdict::Unpinned => counts.3 += 1,
            }
        }
        counts
    }

    /// True iff nothing failed and everything was pinned.
    pub fn is_ok(&self) -> bool {
        let (_, _, failed, unpinned) = self.counts();
        failed == 0 && unpinned == 0
    }

    /// One line per failed or unpinned bundle, then the totals.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        for case in &self.cases {
            match &case.verdict {
                Verdict::Failed(why) => out.push_str(&format!("FAILED {} ({}): {why}\n", case.name, case.operation)),
                Verdict::Unpinned => out.push_str(&format!("UNPINNED {} ({})\n", case.name, case.operation)),
                _ => {}
            }
        }
        let (passed, na, failed, unpinned) = self.counts();
        out.push_str(&format!(
            "{} bundles: {passed} passed, {na} not applicable, {failed} failed, {unpinned} unpinned\n",
            self.cases.len()
        ));
        out
    }
}

/// Something bundles can be replayed against.
pub trait Target {
    /// The operations the backend lists in `describe`.
    fn operations(&mut self) -> Vec<Operation>;
    /// One call, as the reply body the backend answered.
    fn call(&mut self, op: &str, params: Map<String, Value>) -> Result<ReplyBody, String>;
}

/// A [`Backend`] called in-process, through the same dispatch as the protocol loop.
pub struct InProcess<'a, B: Backend + ?Sized>(pub &'a mut B);

impl<B: Backend + ?Sized> Target for InProcess<'_, B> {
    fn operations(&mut self) -> Vec<Operation> {
        self.0.operations()
    }

    fn call(&mut self, op: &str, params: Map<String, Value>) -> Result<ReplyBody, String> {
        Ok(answer(self.0, op, params))
    }
}

impl Target for ExecClient {
    fn operations(&mut self) -> Vec<Operation> {
        ExecClient::operations(self)
    }

    fn call(&mut self, op: &str, params: Map<String, Value>) -> Result<ReplyBody, String> {
        self.request(op, params).map_err(|e| e.to_string())
    }
}

/// The bundles of a corpus directory and, optionally, the golden vectors.
#[derive(Debug, Clone)]
pub struct Corpus {
    pub entries: Vec<CorpusEntry>,
    pub golden: Option<GoldenFile>,
}

fn read_bounded(path: &Path) -> Result<Vec<u8>, String> {
    let size = fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?.len();
    if size > MAX_BUNDLE_BYTES as u64 {
        return Err(format!("{}: {size} bytes exceeds {MAX_BUNDLE_BYTES}", path.display()));
    }
    fs::read(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn canonical_key(value: &Value) -> Option<Vec<u8>> {
    canonical_bytes(value).ok()
}

impl Corpus {
    /// Load every `*.json` bundle under `dir` (sorted by name) and the golden file if given.
    pub fn load(dir: impl AsRef<Path>, golden: Option<impl AsRef<Path>>) -> Result<Self, String> {
        let dir = dir.as_ref();
        let mut paths: Vec<PathBuf> = fs::read_dir(dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| path.extension().map_or(false, |ext| ext == "json"))
            .collect();
        paths.sort();
        let mut entries = Vec::new();
        for path in paths {
            let bytes = read_bounded(&path)?;
            let raw = parse_strict(&bytes, BUNDLE_CONTEXT, Some(MAX_BUNDLE_BYTES))
                .map_err(|e| format!("{}: {e}", path.display()))?;
            let bundle: Bundle = serde_json::from_value(raw).map_err(|e| format!("{}: {e}", path.display()))?;
            let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            entries.push(CorpusEntry { path, stem, bytes, bundle });
        }
        let golden = match golden {
            None => None,
            Some(path) => {
                let bytes = read_bounded(path.as_ref())?;
                let raw = parse_strict(&bytes, "decode golden vectors", Some(MAX_BUNDLE_BYTES))
                    .map_err(|e| format!("{}: {e}", path.as_ref().display()))?;
                Some(serde_json::from_value(raw).map_err(|e| format!("{}: {e}", path.as_ref().display()))?)
            }
        };
        Ok(Self { entries, golden })
    }

    fn golden_by_scenario(&self) -> BTreeMap<Vec<u8>, &GoldenVector> {
        let mut out = BTreeMap::new();
        for vector in self.golden.iter().flat_map(|g| g.vectors.iter()) {
            if let Some(key) = canonical_key(&vector.scenario) {
                out.insert(key, vector);
            }
        }
        out
    }

    /// What `entry` must produce, or `None` when nothing checked in pins it.
    pub fn expected(&self, entry: &CorpusEntry) -> Option<Expected> {
        match &entry.bundle.expect {
            Some(Expect::Result(result)) => Some(Expected::Result(result.clone())),
            Some(Expect::Error(error)) => Some(Expected::Error(error.clone())),
            None if entry.bundle.operation == "build_plan" => {
                let key = canonical_key(entry.bundle.params.get("scenario")?)?;
                self.golden_by_scenario().get(&key).map(|v| Expected::GoldenPlan {
                    name: v.name.clone(),
                    plan_hash: v.plan_hash.clone(),
                    wire_sha256: v.wire_sha256.clone(),
                    wire_bytes: v.wire_bytes,
                })
            }
            None => None,
        }
    }

    /// Replay every bundle against `target`.
    pub fn replay(&self, target: &mut dyn Target) -> ReplayReport {
        let declared = target.operations();
        let cases = self
            .entries
            .iter()
            .map(|entry| {
                let operation = entry.bundle.operation.clone();
                let verdict = self.verdict(entry, &declared, target);
                CaseReport { name: entry.stem.clone(), operation, verdict }
            })
            .collect();
        ReplayReport { cases }
    }

    fn verdict(&self, entry: &CorpusEntry, declared: &[Operation], target: &mut dyn Target) -> Verdict {
        let op = match Operation::from_name(&entry.bundle.operation) {
            Some(op) => op,
            None => return Verdict::Failed(format!("unknown operation {:?}", entry.bundle.operation)),
        };
        if op != Operation::Describe && !declared.contains(&op) {
            return Verdict::NotApplicable;
        }
        let expected = match self.expected(entry) {
            Some(expected) => expected,
            None => return Verdict::Unpinned,
        };
        match target.call(op.name(), entry.bundle.params.clone()) {
            Err(e) => Verdict::Failed(format!("exchange failed: {e}")),
            Ok(actual) => match compare(&expected, &actual) {
                Ok(()) => Verdict::Passed,
                Err(why) => Verdict::Failed(why),
            },
        }
    }

    /// Problems with the checked-in data itself, found natively: file canonical form and
    /// names, params shapes, self-consistency of pinned plan wires, golden vectors agreeing
    /// with the corpus, and unpinned bundles. Empty when all is well.
    pub fn check(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for entry in &self.entries {
            let name = &entry.stem;
            let raw = match parse_strict(&entry.bytes, BUNDLE_CONTEXT, None) {
                Ok(raw) => raw,
                Err(e) => {
                    problems.push(format!("{name}: {e}"));
                    continue;
                }
            };
            match canonical_bytes(&raw) {
                Ok(canonical) if canonical == entry.bytes => {}
                Ok(_) => problems.push(format!("{name}: the file is not in canonical form")),
                Err(e) => problems.push(format!("{name}: {e}")),
            }
            if name.starts_with(SEED_PREFIX) {
                if &entry.bundle.case != name {
                    problems.push(format!("{name}: a seed bundle must be named after its case"));
                }
            } else if *name != sha256_hex(&entry.bytes) {
                problems.push(format!("{name}: a promoted bundle must be named by the sha256 of its bytes"));
            }
            if entry.bundle.bundle_version != 1 {
                problems.push(format!("{name}: bundle_version must be 1"));
            }
            problems.extend(params_problem(&entry.bundle).map(|p| format!("{name}: {p}")));
            if let (Some(Expect::Result(result)), "build_plan") = (&entry.bundle.expect, entry.bundle.operation.as_str())
            {
                if let Err(why) = plan_wire_consistent(result) {
                    problems.push(format!("{name}: pinned plan wire: {why}"));
                }
            }
            if self.expected(entry).is_none() {
                problems.push(format!("{name}: unpinned (expect is null and no golden vector has its scenario)"));
            }
        }
        if let Some(golden) = &self.golden {
            problems.extend(self.golden_problems(golden));
        }
        problems
    }

    fn golden_problems(&self, golden: &GoldenFile) -> Vec<String> {
        let mut problems = Vec::new();
        if golden.golden_version != 1 {
            problems.push("golden: golden_version must be 1".to_string());
        }
        if golden.contract != ContractIdentity::suite() {
            problems.push(format!("golden: pinned to {:?}, the kit speaks {:?}", golden.contract, ContractIdentity::suite()));
        }
        let pinned: BTreeMap<Vec<u8>, &Map<String, Value>> = self
            .entries
            .iter()
            .filter(|e| e.bundle.operation == "build_plan")
            .filter_map(|e| match &e.bundle.expect {
                Some(Expect::Result(result)) => Some((canonical_key(e.bundle.params.get("scenario")?)?, result)),
                _ => None,
            })
            .collect();
        for vector in &golden.vectors {
            let name = &vector.name;
            if !is_canonical_sha256(&vector.plan_hash) || !is_canonical_sha256(&vector.wire_sha256) {
                problems.push(format!("golden {name}: hashes must be lowercase sha256 hex"));
            }
            let key = match canonical_key(&vector.scenario) {
                Some(key) => key,
                None => {
                    problems.push(format!("golden {name}: the scenario has no canonical form"));
                    continue;
                }
            };
            if let Some(result) = pinned.get(&key) {
                let expected = Expected::GoldenPlan {
                    name: name.clone(),
                    plan_hash: vector.plan_hash.clone(),
                    wire_sha256: vector.wire_sha256.clone(),
                    wire_bytes: vector.wire_bytes,
                };
                if let Err(why) = compare(&expected, &ReplyBody::Result((*result).clone())) {
                    problems.push(format!("golden {name} disagrees with the corpus bundle of its scenario: {why}"));
                }
            }
        }
        problems
    }

    /// Every scenario of the corpus and the golden vectors: `(name, scenario JSON)`.
    pub fn scenarios(&self) -> Vec<(String, Value)> {
        let mut out: Vec<(String, Value)> = self
            .entries
            .iter()
            .filter_map(|e| e.bundle.params.get("scenario").map(|s| (e.stem.clone(), s.clone())))
            .collect();
        for vector in self.golden.iter().flat_map(|g| g.vectors.iter()) {
            out.push((format!("golden/{}", vector.name), vector.scenario.clone()));
        }
        out
    }

    /// Scenarios that do not decode into the kit's types or do not re-encode to the same
    /// canonical bytes. The decode-stage `revalidate` bundles carry `{}` and are skipped.
    pub fn scenario_round_trip_problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for (name, value) in self.scenarios() {
            if value.as_object().map_or(false, Map::is_empty) {
                continue;
            }
            match round_trip(&value) {
                Ok(()) => {}
                Err(why) => problems.push(format!("{name}: {why}")),
            }
        }
        problems
    }
}

/// Decode `value` into [`Scenario`] and check it re-encodes to the same canonical bytes.
pub fn round_trip(value: &Value) -> Result<(), String> {
    let scenario = Scenario::from_value(value).map_err(|e| format!("does not decode: {e}"))?;
    let again = scenario.canonical_bytes().map_err(|e| e.to_string())?;
    let original = canonical_bytes(value).map_err(|e| e.to_string())?;
    if again == original {
        Ok(())
    } else {
        Err("re-encodes to different canonical bytes".to_string())
    }
}

fn params_problem(bundle: &Bundle) -> Option<String> {
    let params = Value::Object(bundle.params.clone());
    let result = match Operation::from_name(&bundle.operation)? {
        Operation::Describe => serde_json::from_value::<crate::ops::DescribeParams>(params).map(|_| ()),
        Operation::Revalidate => serde_json::from_value::<RevalidateParams>(params).map(|_| ()),
        Operation::Execute => serde_json::from_value::<crate::ops::ExecuteParams>(params).map(|_| ()),
        _ => serde_json::from_value::<ScenarioParams>(params).map(|_| ()),
    };
    result.err().map(|e| format!("params do not have the {} shape: {e}", bundle.operation))
}

/// A pinned `build_plan` result is a plan wire whose hash and id are its own (01 §3.6).
fn plan_wire_consistent(result: &Map<String, Value>) -> Result<(), String> {
    let text = result.get("wire_base64").and_then(Value::as_str).ok_or("no wire_base64")?;
    let wire = base64::decode(text).map_err(|e| e.to_string())?;
    let plan = parse_strict(&wire, "decode untrusted execution plan", None).map_err(|e| e.to_string())?;
    let plan_hash = plan.get("plan_hash").and_then(Value::as_str).ok_or("no plan_hash")?;
    let mut payload = plan.get("payload").and_then(Value::as_object).ok_or("no payload")?.clone();
    let plan_id = payload.remove("plan_id").ok_or("no payload.plan_id")?;
    let recomputed = sha256_hex(&canonical_bytes(&Value::Object(payload)).map_err(|e| e.to_string())?);
    if recomputed != plan_hash {
        return Err(format!("plan_hash {plan_hash} is not sha256(canonical(payload - plan_id)) {recomputed}"));
    }
    if plan_id != Value::String(format!("plan/sha256/{plan_hash}")) {
        return Err(format!("payload.plan_id {plan_id} is not plan/sha256/{plan_hash}"));
    }
    if !wire.starts_with(b"{\"payload\":") {
        return Err("the wire does not start with its payload (direct mode)".to_string());
    }
    Ok(())
}

/// Whether `actual` is the `expected` outcome.
pub fn compare(expected: &Expected, actual: &ReplyBody) -> Result<(), String> {
    match (expected, actual) {
        (_, ReplyBody::Failure(failure)) => Err(match failure.code {
            FailureCode::NotImplemented => "the backend answered not_implemented for an operation it lists".into(),
            code => format!("failure {code}: {}", failure.message),
        }),
        (Expected::Result(want), ReplyBody::Result(got)) => {
            if want == got {
                Ok(())
            } else {
                Err(format!("result {} differs from the pinned result", Short(&Value::Object(got.clone()))))
            }
        }
        (Expected::Error(want), ReplyBody::Error(got)) => {
            let got = got.error.comparable();
            for (key, value) in want.iter().filter(|(k, _)| k.as_str() != "message") {
                if got.get(key) != Some(value) {
                    return Err(format!(
                        "error {} differs from the pinned error {} in {key}",
                        Short(&Value::Object(got.clone())),
                        Short(&Value::Object(want.clone()))
                    ));
                }
            }
            Ok(())
        }
        (Expected::GoldenPlan { name, plan_hash, wire_sha256, wire_bytes }, ReplyBody::Result(got)) => {
            let text = got.get("wire_base64").and_then(Value::as_str).ok_or("result has no wire_base64")?;
            let wire = base64::decode(text).map_err(|e| format!("wire_base64: {e}"))?;
            if sha256_hex(&wire) != *wire_sha256 || wire.len() as u64 != *wire_bytes {
                return Err(format!("the plan wire is not golden vector {name}'s exact bytes"));
            }
            let plan = parse_strict(&wire, "decode untrusted execution plan", None).map_err(|e| e.to_string())?;
            if plan.get("plan_hash").and_then(Value::as_str) != Some(plan_hash.as_str()) {
                return Err(format!("plan_hash differs from golden vector {name}"));
            }
            Ok(())
        }
        (Expected::Error(want), ReplyBody::Result(got)) => Err(format!(
            "result {} where the error {} is pinned",
            Short(&Value::Object(got.clone())),
            Short(&Value::Object(want.clone()))
        )),
        (_, ReplyBody::Error(got)) => Err(format!(
            "error {} where a result is pinned",
            Short(&Value::Object(got.error.comparable()))
        )),
    }
}

/// A JSON value cut to a readable length.
struct Short<'a>(&'a Value);

impl fmt::Display for Short<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.0.to_string();
        if text.len() <= 200 {
            f.write_str(&text)
        } else {
            let cut = (0..=197).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
            write!(f, "{}...", &text[..cut])
        }
    }
}
