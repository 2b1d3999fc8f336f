//! The operations: one table row per operation gives its name, its [`Backend`] method, its
//! params type and its result type (harness/PROTOCOL.md §5, `schemas/protocol/operations.json`).
//!
//! Adding an operation is one row in `operations!` below plus its params and result types; the
//! trait method (defaulting to not implemented), the name table, the dispatch and the honesty
//! probe all come from the row.

use serde::de::{self, DeserializeOwned, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::fmt;

use crate::base64;
use crate::canonical::{is_canonical_sha256, sha256_hex};
use crate::error::VNextError;
use crate::protocol::{contract_limits, BackendDescription, ContractIdentity, Implementation};
use crate::scenario::{Scenario, SCENARIO_CONTEXT};

/// Bytes that travel as standard padded base64 (`wire_base64` fields). Decoding refuses
/// anything but canonical base64.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct WireBytes(pub Vec<u8>);

impl fmt::Debug for WireBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "WireBytes({} bytes)", self.0.len())
    }
}

impl From<Vec<u8>> for WireBytes {
    fn from(bytes: Vec<u8>) -> Self {
        Self(bytes)
    }
}

impl Serialize for WireBytes {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&base64::encode(&self.0))
    }
}

impl<'de> Deserialize<'de> for WireBytes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        base64::decode(&text).map(Self).map_err(|e| de::Error::custom(format!("not canonical base64: {e}")))
    }
}

/// A fingerprint or hash: exactly 64 lowercase hex characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Sha256Hex(String);

impl Sha256Hex {
    /// `Some` iff `text` is canonical sha256 hex.
    pub fn new(text: impl Into<String>) -> Option<Self> {
        let text = text.into();
        if is_canonical_sha256(&text) {
            Some(Self(text))
        } else {
            None
        }
    }

    /// The sha256 of `data`.
    pub fn of(data: &[u8]) -> Self {
        Self(sha256_hex(data))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Sha256Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Sha256Hex {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Self::new(text).ok_or_else(|| de::Error::custom("expected 64 lowercase hex characters"))
    }
}

/// The scenario object of a request, exactly as received.
///
/// The harness treats it as opaque; [`RawScenario::decode`] reads it into the kit's typed
/// [`Scenario`]. A backend that mirrors the contract's decode order reads sections itself with
/// [`crate::scenario::decode_section`] and the contexts in [`crate::scenario::contexts`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RawScenario(pub Map<String, Value>);

impl RawScenario {
    /// The JSON object.
    pub fn json(&self) -> &Map<String, Value> {
        &self.0
    }

    /// The typed scenario; a shape error is `Serialization{context: "decode scenario"}`.
    pub fn decode(&self) -> Result<Scenario, VNextError> {
        Scenario::from_value(&Value::Object(self.0.clone()))
            .map_err(|e| VNextError::serialization(SCENARIO_CONTEXT, e.to_string()))
    }
}

/// `describe` params: `{}`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DescribeParams {}

/// `{"scenario"}`: params of prepare_family, fingerprint_catalog, build_plan and select_weight_plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioParams {
    pub scenario: RawScenario,
}

/// `revalidate` params: decode `wire_base64` untrusted first, then revalidate against the scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RevalidateParams {
    pub scenario: RawScenario,
    pub wire_base64: WireBytes,
}

/// `compile_plan` params: the scenario and the compile options document
/// (`schemas/plan/compile_options.json`), exactly as received.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompilePlanParams {
    pub scenario: RawScenario,
    /// Any JSON; a value that is not an options document is `Serialization{context: "decode compile options"}`.
    pub options: Value,
}

/// `check_identity` params: which identity type (its `InvalidIdentity.kind`) and the string.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckIdentityParams {
    /// One of `schemas/protocol/identity_kinds.json`.
    pub identity_kind: String,
    pub value: String,
}

/// `decode_catalog` params: an untrusted CapabilityCatalog wire (PROTOCOL §5.6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecodeCatalogParams {
    pub wire_base64: WireBytes,
}

/// `lookup_engine_provider` params (PROTOCOL §5.7): the scenario, the engine provider id (for
/// `ProviderId::new`) and the required `ContractVersion` wire, exactly as received.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LookupEngineProviderParams {
    pub scenario: RawScenario,
    pub provider_id: String,
    /// Any JSON; a value that is not a ContractVersion is `Serialization{context: "decode contract version"}`.
    pub required_version: Value,
}

/// `provider_compatibility` params (PROTOCOL §5.8): the scenario and the
/// ProviderCompatibilityRequest wire, exactly as received.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderCompatibilityParams {
    pub scenario: RawScenario,
    /// Any JSON; a value the request's deserializer refuses is
    /// `Serialization{context: "decode provider compatibility request"}`.
    pub request: Value,
}

/// `device_runtime_script` params (PROTOCOL §5.9): the scenario and the script, exactly as received.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceRuntimeScriptParams {
    pub scenario: RawScenario,
    /// Any JSON; a value that is not a script is `Serialization{context: "decode device runtime script"}`.
    pub script: Value,
}

/// `execute` params (PROTOCOL §5.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecuteParams {
    pub scenario: RawScenario,
    /// program input id -> its bytes
    pub inputs: BTreeMap<String, WireBytes>,
    pub replays: u32,
}

/// `prepare_family` result: the PreparedModelFamily wire (02 §7) and its `fingerprint()`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreparedFamily {
    pub wire_base64: WireBytes,
    pub fingerprint: Sha256Hex,
}

/// `fingerprint_catalog` result: `CapabilityCatalog::fingerprint()`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogFingerprint {
    pub fingerprint: Sha256Hex,
}

/// `revalidate_family` result: `fingerprint()` of the family the registry rebuilt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FamilyFingerprint {
    pub fingerprint: Sha256Hex,
}

/// `check_identity` result: `{}` (the string is an identity of that kind).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdentityChecked {}

/// `build_plan` and `compile_plan` result: the exact bytes of `ExecutionPlan::to_json()`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanWire {
    pub wire_base64: WireBytes,
}

/// `lookup_engine_provider` and `provider_compatibility` result: the exact bytes of
/// `serde_json::to_vec` of the descriptor or report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JsonWire {
    pub wire_base64: WireBytes,
}

/// `device_runtime_script` result: one answer per step (a value, a contract error object or a refusal,
/// PROTOCOL §5.9), in step order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepAnswers {
    pub answers: Vec<Value>,
}

/// `revalidate` result: the revalidated plan's hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanHash {
    pub plan_hash: Sha256Hex,
}

/// `select_weight_plan` result: the ExecutionWeightPlan JSON and its `fingerprint()`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeightPlan {
    pub wire_base64: WireBytes,
    pub fingerprint: Sha256Hex,
}

/// Peak held bytes of every buffer usage class.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeakBytesByUsage {
    pub activations: u64,
    pub binding: u64,
    pub persistent: u64,
    pub scratch: u64,
    pub state: u64,
    pub transfer: u64,
    pub weights: u64,
}

/// What the device runtime actually held (`schemas/runtime/ledger_report.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LedgerReport {
    pub peak_bytes: u64,
    pub peak_bytes_by_usage: PeakBytesByUsage,
    pub granted_allocations: u64,
    pub refused_allocations: u64,
    pub final_resident_bytes: u64,
}

/// `execute` result (`schemas/runtime/execute_result.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecuteResult {
    pub outputs: BTreeMap<String, WireBytes>,
    pub ledger: LedgerReport,
    pub replay_digests: Vec<Sha256Hex>,
}

/// Why an operation produced no result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpError {
    /// The contract error the contract names for this input (an `error` reply).
    Contract(VNextError),
    /// The method is not overridden (the trait default).
    NotImplemented,
    /// A failure outside the contract (a `failure`/`internal` reply).
    Internal(String),
}

impl From<VNextError> for OpError {
    fn from(error: VNextError) -> Self {
        Self::Contract(error)
    }
}

/// What an operation method returns.
pub type OpResult<T> = Result<T, OpError>;

/// How one operation call ended, before it becomes a reply.
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    Result(Map<String, Value>),
    Error(VNextError),
    /// The params did not have the operation's shape.
    BadRequest(String),
    NotImplemented,
    Internal(String),
}

fn invoke<P: DeserializeOwned, R: Serialize>(params: Map<String, Value>, method: impl FnOnce(P) -> OpResult<R>) -> Call {
    let params: P = match serde_json::from_value(Value::Object(params)) {
        Ok(params) => params,
        Err(e) => return Call::BadRequest(e.to_string()),
    };
    match method(params) {
        Ok(result) => match serde_json::to_value(result) {
            Ok(Value::Object(result)) => Call::Result(result),
            Ok(_) => Call::Internal("result is not a JSON object".to_string()),
            Err(e) => Call::Internal(format!("result has no JSON form: {e}")),
        },
        Err(OpError::Contract(error)) => Call::Error(error),
        Err(OpError::NotImplemented) => Call::NotImplemented,
        Err(OpError::Internal(message)) => Call::Internal(message),
    }
}

fn probe_scenario() -> Value {
    json!({"scenario": {}})
}

macro_rules! operations {
    ($(
        $(#[$doc:meta])*
        $variant:ident = $name:literal, fn $method:ident($params:ty) -> $result:ty, probe: $probe:expr;
    )*) => {
        /// A protocol operation.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Operation {
            /// Answered by the kit from [`Backend::implementation`], [`Backend::operations`] and [`Backend::limits`].
            Describe,
            $( $(#[$doc])* $variant, )*
        }

        impl Operation {
            /// Every operation, in protocol order.
            pub const ALL: &'static [Operation] = &[Operation::Describe, $(Operation::$variant),*];

            /// The protocol name.
            pub fn name(self) -> &'static str {
                match self {
                    Operation::Describe => "describe",
                    $( Operation::$variant => $name, )*
                }
            }

            /// The operation with this protocol name.
            pub fn from_name(name: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|op| op.name() == name)
            }

            /// Params carrying the empty scenario `{}`: every implemented operation must answer
            /// them with a contract error (decision H-5), the default method with not implemented.
            pub fn probe_params(self) -> Map<String, Value> {
                let value = match self {
                    Operation::Describe => json!({}),
                    $( Operation::$variant => $probe, )*
                };
                match value {
                    Value::Object(map) => map,
                    _ => Map::new(),
                }
            }
        }

        /// A vnext planning backend.
        ///
        /// Override the methods of the operations you implement and list exactly those in
        /// [`Backend::operations`]; every other method keeps its default, which answers
        /// not implemented. The kit answers `describe` itself. [`crate::testing::check_operations`]
        /// verifies that the list and the overridden methods agree; put it in your tests.
        pub trait Backend {
            /// `describe.implementation`: who you are.
            fn implementation(&self) -> Implementation;

            /// The operations you implement (besides `describe`, which the kit answers).
            fn operations(&self) -> Vec<Operation>;

            /// `describe.contract`; the suite's contract unless you implement another.
            fn contract(&self) -> ContractIdentity {
                ContractIdentity::suite()
            }

            /// `describe.limits`: the contract limits you enforce, under their contract names.
            fn limits(&self) -> BTreeMap<String, u64> {
                contract_limits()
            }

            $(
                $(#[$doc])*
                fn $method(&mut self, params: $params) -> OpResult<$result> {
                    let _ = params;
                    Err(OpError::NotImplemented)
                }
            )*
        }

        /// Decode `params` for `op`, call the backend's method, encode its result.
        pub fn call_operation<B: Backend + ?Sized>(backend: &mut B, op: Operation, params: Map<String, Value>) -> Call {
            match op {
                Operation::Describe => invoke(params, |_: DescribeParams| Ok(describe(&*backend))),
                $( Operation::$variant => invoke(params, |p: $params| backend.$method(p)), )*
            }
        }
    };
}

operations! {
    /// `{"scenario"}` -> the PreparedModelFamily wire and fingerprint (02 §6-§7).
    PrepareFamily = "prepare_family", fn prepare_family(ScenarioParams) -> PreparedFamily, probe: probe_scenario();
    /// `{"scenario"}` -> `CapabilityCatalog::fingerprint()` (03 §11.5).
    FingerprintCatalog = "fingerprint_catalog", fn fingerprint_catalog(ScenarioParams) -> CatalogFingerprint, probe: probe_scenario();
    /// `{"scenario"}` -> `ExecutionPlan::build(...)` then `to_json()` (05).
    BuildPlan = "build_plan", fn build_plan(ScenarioParams) -> PlanWire, probe: probe_scenario();
    /// `{"scenario", "wire_base64"}` -> the revalidated plan's hash (05 §9).
    Revalidate = "revalidate", fn revalidate(RevalidateParams) -> PlanHash, probe: json!({"scenario": {}, "wire_base64": ""});
    /// `{"scenario"}` -> the selected ExecutionWeightPlan and its fingerprint (05 §10).
    SelectWeightPlan = "select_weight_plan", fn select_weight_plan(ScenarioParams) -> WeightPlan, probe: probe_scenario();
    /// `{"scenario", "wire_base64"}` -> decode an untrusted PreparedModelFamily wire, revalidate it against the scenario's family registry (02 §7.4-§7.5): the rebuilt family's fingerprint.
    RevalidateFamily = "revalidate_family", fn revalidate_family(RevalidateParams) -> FamilyFingerprint, probe: json!({"scenario": {}, "wire_base64": ""});
    /// `{"scenario", "options"}` -> `ProgramPlanCompiler::compile` then `to_json()` (05 §7.13).
    CompilePlan = "compile_plan", fn compile_plan(CompilePlanParams) -> PlanWire, probe: json!({"scenario": {}, "options": {}});
    /// `{"identity_kind", "value"}` -> `{}`, or the identity constructor's InvalidIdentity (01 §1.1-§1.3).
    CheckIdentity = "check_identity", fn check_identity(CheckIdentityParams) -> IdentityChecked, probe: json!({"identity_kind": "node", "value": ""});
    /// `{"wire_base64"}` -> decode an untrusted CapabilityCatalog wire (03 §11.1): its `fingerprint()`.
    DecodeCatalog = "decode_catalog", fn decode_catalog(DecodeCatalogParams) -> CatalogFingerprint, probe: json!({"wire_base64": ""});
    /// `{"scenario", "provider_id", "required_version"}` -> `CapabilityCatalog::engine_provider` (03 §11.4): the descriptor's JSON.
    LookupEngineProvider = "lookup_engine_provider", fn lookup_engine_provider(LookupEngineProviderParams) -> JsonWire, probe: json!({"scenario": {}, "provider_id": "", "required_version": {}});
    /// `{"scenario", "request"}` -> `CapabilityCatalog::provider_compatibility` (03 §11.4): the report's JSON.
    ProviderCompatibility = "provider_compatibility", fn provider_compatibility(ProviderCompatibilityParams) -> JsonWire, probe: json!({"scenario": {}, "request": {}});
    /// Optional: run the scenario's plan on a device runtime (PROTOCOL §5.2).
    Execute = "execute", fn execute(ExecuteParams) -> ExecuteResult, probe: json!({"scenario": {}, "inputs": {}, "replays": 1});
    /// Optional: `{"scenario", "script"}` -> one answer per scripted DeviceRuntime step (03 §13; PROTOCOL §5.9).
    DeviceRuntimeScript = "device_runtime_script", fn device_runtime_script(DeviceRuntimeScriptParams) -> StepAnswers, probe: json!({"scenario": {}, "script": []});
}

/// The backend's `describe` result: `describe` plus its operations, sorted and unique.
pub fn describe<B: Backend + ?Sized>(backend: &B) -> BackendDescription {
    let mut operations: Vec<String> = std::iter::once(Operation::Describe)
        .chain(backend.operations())
        .map(|op| op.name().to_string())
        .collect();
    operations.sort();
    operations.dedup();
    BackendDescription {
        implementation: backend.implementation(),
        contract: backend.contract(),
        operations,
        limits: backend.limits(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for op in Operation::ALL {
            assert_eq!(Operation::from_name(op.name()), Some(*op));
        }
        assert_eq!(Operation::from_name("handshake"), None);
    }

    #[test]
    fn sha256_hex_is_validated() {
        assert!(Sha256Hex::new("a".repeat(64)).is_some());
        assert!(Sha256Hex::new("A".repeat(64)).is_none());
        assert!(serde_json::from_value::<Sha256Hex>(json!("abc")).is_err());
    }

    #[test]
    fn wire_bytes_refuse_non_canonical_base64() {
        assert_eq!(serde_json::from_value::<WireBytes>(json!("AAE=")).unwrap().0, vec![0, 1]);
        assert!(serde_json::from_value::<WireBytes>(json!("AAF=")).is_err());
        assert_eq!(serde_json::to_value(WireBytes(vec![0, 1])).unwrap(), json!("AAE="));
    }
}
