//! An example backend built on vnext-conformance-kit.
//!
//! Without a planner it can honestly implement only `describe` ([`DescribeOnly`]): every
//! planning operation needs the contract's constructors and planner (a real backend calls
//! ferrum-interfaces there). [`Forwarding`] shows the rest of the kit at work: it lists what
//! another protocol server lists and forwards each call to it, through the kit's typed params,
//! results and errors, after checking that the kit's scenario types keep every scenario intact.

use serde_json::Value;
use vnext_conformance_kit::canonical::canonical_bytes;
use vnext_conformance_kit::client::{ClientError, ExecClient};
use vnext_conformance_kit::{
    Backend, CatalogFingerprint, CheckIdentityParams, CompilePlanParams, DecodeCatalogParams, DeviceRuntimeScriptParams,
    ExecuteParams,
    ExecuteResult, FamilyFingerprint, IdentityChecked, Implementation, JsonWire, LookupEngineProviderParams, OpError,
    OpResult, Operation, PlanHash, PlanWire, PreparedFamily, ProviderCompatibilityParams, RawScenario,
    RevalidateParams, ScenarioParams, StepAnswers, WeightPlan,
};

/// `describe.implementation` of this example.
pub fn implementation() -> Implementation {
    Implementation {
        name: "vnext-kit-example".to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        language: "rust".to_string(),
    }
}

/// Implements nothing but `describe`: suites that need an operation report *not applicable*.
#[derive(Debug, Default)]
pub struct DescribeOnly;

impl Backend for DescribeOnly {
    fn implementation(&self) -> Implementation {
        implementation()
    }

    fn operations(&self) -> Vec<Operation> {
        Vec::new()
    }
}

/// Lists what another protocol server lists and forwards every call to it.
pub struct Forwarding {
    server: ExecClient,
}

impl Forwarding {
    /// Start `argv` (e.g. `vnext-conformance serve`) and handshake with it.
    pub fn spawn(argv: &[String]) -> Result<Self, ClientError> {
        Ok(Self { server: ExecClient::spawn(argv)? })
    }

    /// A scenario the kit's types decode must re-encode to its own canonical bytes; one they
    /// cannot decode is malformed and goes to the server unchanged, which answers the
    /// contract's error for it.
    fn check_round_trip(scenario: &RawScenario) -> OpResult<()> {
        let typed = match scenario.decode() {
            Ok(typed) => typed,
            Err(_) => return Ok(()),
        };
        let original = canonical_bytes(&Value::Object(scenario.json().clone()));
        let again = typed.canonical_bytes();
        match (original, again) {
            (Ok(a), Ok(b)) if a == b => Ok(()),
            _ => Err(OpError::Internal("the kit's scenario types changed this scenario's canonical bytes".into())),
        }
    }

    fn forward<R: serde::de::DeserializeOwned>(
        &mut self,
        op: Operation,
        scenario: &RawScenario,
        params: &impl serde::Serialize,
    ) -> OpResult<R> {
        Self::check_round_trip(scenario)?;
        self.server.call(op, params)
    }
}

impl Backend for Forwarding {
    fn implementation(&self) -> Implementation {
        implementation()
    }

    fn operations(&self) -> Vec<Operation> {
        self.server.operations().into_iter().filter(|op| *op != Operation::Describe).collect()
    }

    fn prepare_family(&mut self, params: ScenarioParams) -> OpResult<PreparedFamily> {
        self.forward(Operation::PrepareFamily, &params.scenario, &params)
    }

    fn fingerprint_catalog(&mut self, params: ScenarioParams) -> OpResult<CatalogFingerprint> {
        self.forward(Operation::FingerprintCatalog, &params.scenario, &params)
    }

    fn build_plan(&mut self, params: ScenarioParams) -> OpResult<PlanWire> {
        self.forward(Operation::BuildPlan, &params.scenario, &params)
    }

    fn revalidate(&mut self, params: RevalidateParams) -> OpResult<PlanHash> {
        self.forward(Operation::Revalidate, &params.scenario, &params)
    }

    fn select_weight_plan(&mut self, params: ScenarioParams) -> OpResult<WeightPlan> {
        self.forward(Operation::SelectWeightPlan, &params.scenario, &params)
    }

    fn revalidate_family(&mut self, params: RevalidateParams) -> OpResult<FamilyFingerprint> {
        self.forward(Operation::RevalidateFamily, &params.scenario, &params)
    }

    fn compile_plan(&mut self, params: CompilePlanParams) -> OpResult<PlanWire> {
        self.forward(Operation::CompilePlan, &params.scenario, &params)
    }

    fn check_identity(&mut self, params: CheckIdentityParams) -> OpResult<IdentityChecked> {
        self.server.call(Operation::CheckIdentity, &params)
    }

    fn decode_catalog(&mut self, params: DecodeCatalogParams) -> OpResult<CatalogFingerprint> {
        self.server.call(Operation::DecodeCatalog, &params)
    }

    fn lookup_engine_provider(&mut self, params: LookupEngineProviderParams) -> OpResult<JsonWire> {
        self.forward(Operation::LookupEngineProvider, &params.scenario, &params)
    }

    fn provider_compatibility(&mut self, params: ProviderCompatibilityParams) -> OpResult<JsonWire> {
        self.forward(Operation::ProviderCompatibility, &params.scenario, &params)
    }

    fn execute(&mut self, params: ExecuteParams) -> OpResult<ExecuteResult> {
        self.forward(Operation::Execute, &params.scenario, &params)
    }

    fn device_runtime_script(&mut self, params: DeviceRuntimeScriptParams) -> OpResult<StepAnswers> {
        self.forward(Operation::DeviceRuntimeScript, &params.scenario, &params)
    }
}
