//! The catalog document and the planning registry document (03; `schemas/catalog/types.json`).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use super::common::{CanonicalRational, ContractVersion, Identity, Presence, Sha256Text};
use super::model::ElementType;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum DimensionConstraint {
    Exact(u64),
    Symbol(String),
    Range { minimum: u64, maximum: u64 },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum StrideConstraint {
    ExactBytes(u64),
    Symbol(String),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum LayoutConstraint {
    Contiguous,
    Strided { strides: Vec<StrideConstraint> },
    Blocked { block: Vec<u64>, axis_order: Vec<u32> },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TensorAccess {
    Read,
    Write,
    ReadWrite,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum AliasPolicy {
    NoAlias,
    MayAlias { tensor_index: u32 },
    MustAlias { tensor_index: u32 },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TensorContract {
    pub dimensions: Vec<DimensionConstraint>,
    pub element_types: Vec<ElementType>,
    pub layouts: Vec<LayoutConstraint>,
    pub access: TensorAccess,
    pub alias: AliasPolicy,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum AttributeConstraint {
    /// `"none"`
    #[serde(rename = "none")]
    Unconstrained,
    BoolEquals(bool),
    IntegerRange { minimum: i64, maximum: i64 },
    UnsignedRange { minimum: u64, maximum: u64 },
    RationalRange { minimum: CanonicalRational, maximum: CanonicalRational },
    TextChoices { values: Vec<String> },
    IntegerListLength { minimum: u32, maximum: u32 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttributeValueKind {
    Bool,
    Integer,
    Unsigned,
    Rational,
    Text,
    Integers,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttributeSpec {
    pub value_kind: AttributeValueKind,
    pub required: bool,
    pub constraint: AttributeConstraint,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttributeSchema {
    pub entries: BTreeMap<Identity, AttributeSpec>,
}

/// Whether an operation forbids, allows or needs a workspace class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResourceNeed {
    Forbidden,
    Optional,
    Required,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResourceRequirements {
    pub minimum_value_alignment_bytes: u64,
    pub scratch: ResourceNeed,
    pub binding: ResourceNeed,
    pub persistent: ResourceNeed,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum OracleSpec {
    OperationDefined,
    Exact,
    AbsoluteTolerance { tolerance: CanonicalRational },
    RelativeTolerance { tolerance: CanonicalRational },
    ReferenceOperation { operation_id: Identity, version: ContractVersion },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderRequirement {
    pub minimum_version: ContractVersion,
    pub required_capabilities: Vec<Identity>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProfilePhase {
    Load,
    Prepare,
    Forward,
    Prefill,
    Decode,
    Transfer,
    Synchronize,
}

/// `OperationDescriptor` (03 §4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperationDescriptor {
    pub id: Identity,
    pub version: ContractVersion,
    pub inputs: Vec<TensorContract>,
    pub outputs: Vec<TensorContract>,
    pub attributes: AttributeSchema,
    pub resources: ResourceRequirements,
    pub oracle: OracleSpec,
    pub provider: ProviderRequirement,
    pub profile_phase: ProfilePhase,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum DynamicStorageAllocator {
    LinearArena,
    FixedBlockArena { block_bytes: u64 },
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum DynamicStorageView {
    Contiguous,
    PagedRegions { block_bytes: u64 },
}

/// `DynamicStorageProfile` (03 §6.2); the policy sections use the same form.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DynamicStorageProfile {
    pub allocator: DynamicStorageAllocator,
    pub view: DynamicStorageView,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DynamicStorageRequirement {
    pub accepted_profiles: Vec<DynamicStorageProfile>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResolvedValueRole {
    Input,
    Output,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderStorageBindingRequirement {
    pub role: ResolvedValueRole,
    pub ordinal: u32,
    pub storage: DynamicStorageRequirement,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Repeatability {
    BitwiseSameRuntime,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplayEquivalence {
    Ineligible,
    BitwiseEagerEquivalent,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderExecutionSemantics {
    pub contract_version: ContractVersion,
    pub contract_fingerprint: Sha256Text,
    pub repeatability: Repeatability,
    pub replay_equivalence: ReplayEquivalence,
}

/// `OperationProviderDescriptor` (03 §7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperationProviderDescriptor {
    pub provider_id: Identity,
    pub operation_id: Identity,
    pub operation_fingerprint: Sha256Text,
    pub provider_implementation_fingerprint: Sha256Text,
    pub execution_semantics: ProviderExecutionSemantics,
    pub version: ContractVersion,
    pub device_id: Identity,
    pub capabilities: Vec<Identity>,
    pub accepted_weight_formats: Vec<Identity>,
    pub accepted_quantization_formats: Vec<Identity>,
    pub dynamic_storage_bindings: Vec<ProviderStorageBindingRequirement>,
    pub resource_estimator_id: String,
    pub resource_estimator_version: ContractVersion,
    pub resource_estimator_implementation_fingerprint: Sha256Text,
}

/// `EngineProviderDescriptor` (03 §8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineProviderDescriptor {
    pub provider_id: Identity,
    pub contract_version: ContractVersion,
    pub implementation_fingerprint: Sha256Text,
    pub device_id: Identity,
    pub capabilities: Vec<Identity>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeviceClass {
    Host,
    Accelerator,
    Reference,
}

/// `DeviceDescriptor` (03 §9).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceDescriptor {
    pub id: Identity,
    pub class: DeviceClass,
    pub ordinal: u32,
    pub total_memory_bytes: u64,
    pub runtime_implementation_fingerprint: Sha256Text,
    pub capabilities: Vec<Identity>,
    pub dynamic_storage_profiles: Vec<DynamicStorageProfile>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WeightFidelity {
    Exact,
    Approximate,
}

/// `WeightMaterializerDescriptor` (05 §10).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeightMaterializerDescriptor {
    pub id: Identity,
    pub version: ContractVersion,
    pub implementation_fingerprint: String,
    pub fidelity: WeightFidelity,
    pub required_capabilities: Vec<Identity>,
}

/// The arguments of `CapabilityCatalog::new` (03 §11.2), then the materializer map when given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogDocument {
    pub device: DeviceDescriptor,
    pub operations: Vec<OperationDescriptor>,
    pub providers: BTreeMap<Identity, Vec<OperationProviderDescriptor>>,
    pub engine_providers: Vec<EngineProviderDescriptor>,
    /// Absent or `null`: the identity materializer only.
    #[serde(default, skip_serializing_if = "Presence::is_absent")]
    pub weight_materializers: Presence<BTreeMap<Identity, WeightMaterializerDescriptor>>,
}

/// One declared operation contract of the planning registry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContractSpec {
    pub operation_id: Identity,
    pub reject_signature: bool,
}

/// The seed's `EstimateBehavior` (04 §10), in declaration order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EstimateBehavior {
    Correct,
    ArenaAlignment64,
    TokenScaledScratch,
    WrongEstimatorId,
    WrongEstimatorVersion,
    WrongImplementation,
    WrongInput,
    InvalidAlignment,
    MissingScratch,
}

/// One declared resource estimator of the planning registry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EstimatorSpec {
    pub provider_id: Identity,
    pub behavior: EstimateBehavior,
    pub scratch_bytes: u64,
    pub persistent_bytes: u64,
    #[serde(default, skip_serializing_if = "Presence::is_absent")]
    pub scratch_bytes_by_node: Presence<BTreeMap<Identity, u64>>,
    /// The declared estimate (then `behavior` only shapes the identity and claimed input, and
    /// both byte counts are 0).
    #[serde(default, skip_serializing_if = "Presence::is_absent")]
    pub estimate: Presence<EstimateDocument>,
}

/// One bucket of a `bounded_shape_buckets` formula (numbers unchecked).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShapeBucketDocument {
    pub maximum_sequences: u32,
    pub maximum_tokens: u64,
    pub maximum_pages: u64,
    pub bytes: u64,
}

/// A `ProviderWorkspaceSizeFormula` spelled like its wire; the formula constructor checks the
/// numbers when the estimator answers (04 §7.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum FormulaDocument {
    Fixed { bytes: u64 },
    ActualSequences { bytes_per_sequence: u64 },
    Tokens { bytes_per_token: u64 },
    Affine { fixed_bytes: u64, bytes_per_sequence: u64, bytes_per_token: u64 },
    Pages { bytes_per_page: u64, maximum_pages: u64 },
    BoundedShapeBuckets { buckets: Vec<ShapeBucketDocument> },
}

/// `ProviderWorkspaceScope` (04 §7.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkspaceScope {
    Plan,
    Request,
    Sequence,
    Step,
    Invocation,
}

/// `ProviderWorkspaceReusePolicy` (04 §7.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkspaceReusePolicy {
    OverwriteBeforeRead,
    ZeroBeforeUse,
    Preserve,
}

/// The `ProviderWorkspaceRequirement::from_formula` arguments of one workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceDocument {
    pub size_formula: FormulaDocument,
    pub alignment_bytes: u64,
    pub scope: WorkspaceScope,
    pub reuse_policy: WorkspaceReusePolicy,
    pub storage: DynamicStorageRequirement,
}

/// The estimate a declared estimator answers with (`reference/documents/workspace_estimate.py`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EstimateDocument {
    pub value_alignment_bytes: u64,
    #[serde(deserialize_with = "crate::scenario::common::nullable")]
    pub scratch: Option<WorkspaceDocument>,
    #[serde(deserialize_with = "crate::scenario::common::nullable")]
    pub persistent: Option<WorkspaceDocument>,
    #[serde(deserialize_with = "crate::scenario::common::nullable")]
    pub binding: Option<WorkspaceDocument>,
}

/// The planning registry document: operation contracts and resource estimators.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegistryDocument {
    pub contracts: Vec<ContractSpec>,
    pub estimators: Vec<EstimatorSpec>,
}
