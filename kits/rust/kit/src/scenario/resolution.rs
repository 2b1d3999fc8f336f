//! Node resolution requests and resolved value bindings (04 §5-§7; `schemas/resolution/`).

use serde::{Deserialize, Serialize};

use super::catalog::{AliasPolicy, ResolvedValueRole, TensorAccess};
use super::common::{nullable, ContractVersion, Identity};
use super::model::{ComponentRole, ElementType, PhysicalLayout, TensorLayout, WeightEncoding};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BufferUsage {
    Weights,
    Activations,
    State,
    Persistent,
    Binding,
    Scratch,
    Transfer,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResolvedTensorSpec {
    pub dimensions: Vec<u64>,
    pub element_type: ElementType,
    pub layout: TensorLayout,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StorageComponent {
    #[serde(deserialize_with = "nullable")]
    pub component_id: Option<Identity>,
    pub resource_id: Identity,
    pub offset_bytes: u64,
    pub length_bytes: u64,
    pub element_type: ElementType,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResolvedValueStorage {
    pub components: Vec<StorageComponent>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeightComponentLayout {
    pub component_id: Identity,
    pub role: ComponentRole,
    pub physical_dimensions: Vec<u64>,
    pub encoding: WeightEncoding,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResolvedWeightBinding {
    pub weight_id: Identity,
    pub format_id: Identity,
    pub layout_id: Identity,
    pub schema_version: ContractVersion,
    pub physical_layout: PhysicalLayout,
    pub components: Vec<WeightComponentLayout>,
}

/// `ResolvedValueBinding` (04 §6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResolvedValueBinding {
    pub value_id: Identity,
    pub role: ResolvedValueRole,
    pub ordinal: u32,
    pub tensor: ResolvedTensorSpec,
    pub access: TensorAccess,
    pub alias: AliasPolicy,
    pub usage: BufferUsage,
    #[serde(deserialize_with = "nullable")]
    pub weight: Option<ResolvedWeightBinding>,
    pub storage: ResolvedValueStorage,
}

/// One node's resolution request: its value bindings, required capabilities and preferred provider.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeResolutionRequest {
    pub node_id: Identity,
    pub values: Vec<ResolvedValueBinding>,
    pub required_capabilities: Vec<Identity>,
    #[serde(deserialize_with = "nullable")]
    pub preferred_provider: Option<Identity>,
}
