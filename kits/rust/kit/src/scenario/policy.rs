//! The runtime policy document and the policy components (04 §1-§4; `schemas/policy/`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::catalog::DynamicStorageProfile;
use super::common::{nullable, ContractVersion, Identity, Presence, Sha256Text};
use crate::error::ErrorObject;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SchedulingDiscipline {
    FirstReady,
    Priority,
    Deadline,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AdmissionFitPolicy {
    ImmediateOnly,
    FullInputMustFit,
}

/// Kebab-case on the wire; `auto` is refused by `ResolvedRuntimePolicy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AttentionExecutionPolicy {
    Auto,
    Portable,
    NativeAdaptive,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExecutionDeterminismRequirement {
    BitwiseSameRuntime,
    BitwiseSameRuntimeWithReplay,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointCapacityPolicy {
    pub maximum_retained_bytes: u64,
}

/// `RuntimeMemoryPolicy`; `checkpoint_capacity` is omitted when absent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuntimeMemoryPolicy {
    pub capacity_bytes: u64,
    pub reserve_bytes: u64,
    pub maximum_active_sequences: u32,
    pub dynamic_storage_profile_order: Vec<DynamicStorageProfile>,
    #[serde(default, skip_serializing_if = "Presence::is_absent")]
    pub checkpoint_capacity: Presence<CheckpointCapacityPolicy>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdmissionPolicy {
    pub maximum_queue_depth: u32,
    pub maximum_scheduled_tokens: u64,
    pub sequence_fit_policy: AdmissionFitPolicy,
    pub allow_defer: bool,
    pub cancellation_check_interval_steps: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReusableExecutionCapacity {
    pub maximum_sequences: u32,
    pub maximum_tokens: u64,
    pub maximum_pages: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReusableExecutionBucket {
    /// `reusable-bucket/sha256/<hex>`
    pub bucket_id: String,
    pub class_id: String,
    pub capacity: ReusableExecutionCapacity,
}

/// Internally tagged by `topology`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "topology", rename_all = "snake_case", deny_unknown_fields)]
pub enum ReusableExecutionProgramShape {
    UniformDecode { request_capacity: u32, token_capacity: u64, query_tokens_per_sequence: u32 },
    Prefill { tokens_processed: u64, token_capacity: u64, total_prompt_tokens: u64 },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReusableExecutionProgramSpec {
    pub class_id: String,
    pub shape: ReusableExecutionProgramShape,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShapeSemantics {
    Exact,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CatalogMissPolicy {
    EagerFallback,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CatalogLifetime {
    StartupSealed,
    OnDemandBounded,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReusableExecutionProgramPolicy {
    pub shape_semantics: ShapeSemantics,
    pub catalog_miss_policy: CatalogMissPolicy,
    pub catalog_lifetime: CatalogLifetime,
    pub warmup_passes: u32,
    pub capture_passes: u32,
    pub replay_validation_passes: u32,
    pub programs: Vec<ReusableExecutionProgramSpec>,
}

/// `ReusableExecutionPolicy`; `program_policy` is omitted when absent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReusableExecutionPolicy {
    pub maximum_reusable_lanes: u32,
    pub buckets: Vec<ReusableExecutionBucket>,
    #[serde(default, skip_serializing_if = "Presence::is_absent")]
    pub program_policy: Presence<ReusableExecutionProgramPolicy>,
}

/// The `ResolvedRuntimePolicy` wire (04 §3.1), decoded by the contract's own decoder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResolvedRuntimePolicyWire {
    pub policy_id: Identity,
    pub version: ContractVersion,
    pub scheduling: SchedulingDiscipline,
    pub memory: RuntimeMemoryPolicy,
    pub admission: AdmissionPolicy,
    pub attention_execution: AttentionExecutionPolicy,
    pub execution_determinism: ExecutionDeterminismRequirement,
    #[serde(deserialize_with = "nullable")]
    pub reusable_execution: Option<ReusableExecutionPolicy>,
    pub fingerprint: Sha256Text,
}

/// The constructor fields of `ResolvedRuntimePolicy::new` (which decides whether they are valid).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResolvedPolicyFields {
    pub policy_id: String,
    pub version: ContractVersion,
    pub scheduling: SchedulingDiscipline,
    pub memory: RuntimeMemoryPolicy,
    pub admission: AdmissionPolicy,
    pub attention_execution: AttentionExecutionPolicy,
    pub execution_determinism: ExecutionDeterminismRequirement,
    #[serde(default, skip_serializing_if = "Presence::is_absent")]
    pub reusable_execution: Presence<ReusableExecutionPolicy>,
}

/// Seed 000's `AdversarialRuntimePolicy` serde form (04 §4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdversarialRuntimePolicy {
    pub maximum_active_sequences: u32,
    pub maximum_scheduled_tokens: u64,
    pub dynamic_storage_profile_order: Vec<DynamicStorageProfile>,
}

/// What each member of a custom `RuntimePolicy` returns (may disagree with its serialized form).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportedPolicyValues {
    pub version: ContractVersion,
    pub memory_capacity_bytes: u64,
    pub memory_reserve_bytes: u64,
    pub maximum_active_sequences: u32,
    pub maximum_scheduled_tokens: u64,
    pub attention_execution_policy: AttentionExecutionPolicy,
    pub execution_determinism_requirement: ExecutionDeterminismRequirement,
    pub dynamic_storage_profile_order: Vec<DynamicStorageProfile>,
    #[serde(deserialize_with = "nullable")]
    pub reusable_execution_policy: Option<ReusableExecutionPolicy>,
    #[serde(deserialize_with = "nullable")]
    pub checkpoint_capacity_policy: Option<CheckpointCapacityPolicy>,
}

/// The runtime policy document (`schemas/policy/document.json`), tagged by `kind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum PolicyDocument {
    /// A `ResolvedRuntimePolicy` wire.
    Resolved { wire: ResolvedRuntimePolicyWire },
    /// `ResolvedRuntimePolicy::new` arguments.
    ResolvedFields { fields: ResolvedPolicyFields },
    /// Seed 000's adversarial policy.
    Adversarial { serde: AdversarialRuntimePolicy },
    /// A custom policy: its serialized form, what its members report, and the error `validate()` raises.
    Declared {
        serialized: Value,
        reported: ReportedPolicyValues,
        #[serde(deserialize_with = "nullable")]
        validate_error: Option<ErrorObject>,
    },
}
