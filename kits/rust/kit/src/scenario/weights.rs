//! The weight materializer selection document (05 §10; `schemas/weights/defs.json`).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use super::catalog::WeightFidelity;
use super::common::{ContractVersion, Identity, Presence};
use super::model::{ComponentRole, ElementType, PhysicalLayout, WeightComponentSpec, WeightEncoding, WeightSchema};

/// A materializer descriptor as declared (the registry validates version and fingerprint).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DescriptorShape {
    pub id: Identity,
    pub version: ContractVersion,
    pub implementation_fingerprint: String,
    pub fidelity: WeightFidelity,
    pub required_capabilities: Vec<Identity>,
}

/// `set_component`: the named component's fields that change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComponentEdit {
    pub id: Identity,
    #[serde(default, skip_serializing_if = "Presence::is_absent")]
    pub role: Presence<ComponentRole>,
    #[serde(default, skip_serializing_if = "Presence::is_absent")]
    pub external_names: Presence<Vec<String>>,
    #[serde(default, skip_serializing_if = "Presence::is_absent")]
    pub dimensions: Presence<Vec<u64>>,
    #[serde(default, skip_serializing_if = "Presence::is_absent")]
    pub encoding: Presence<WeightEncoding>,
    #[serde(default, skip_serializing_if = "Presence::is_absent")]
    pub required: Presence<bool>,
}

/// `set_tensor`: the named tensor's fields that change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TensorEdit {
    pub id: Identity,
    #[serde(default, skip_serializing_if = "Presence::is_absent")]
    pub dimensions: Presence<Vec<u64>>,
    #[serde(default, skip_serializing_if = "Presence::is_absent")]
    pub logical_element_type: Presence<ElementType>,
    #[serde(default, skip_serializing_if = "Presence::is_absent")]
    pub physical_layout: Presence<PhysicalLayout>,
    #[serde(default, skip_serializing_if = "Presence::is_absent")]
    pub required: Presence<bool>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RenameComponent {
    pub from: Identity,
    pub to: Identity,
}

/// One edit of the family's weight schema; edits apply in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
#[allow(clippy::large_enum_variant)] // a wire form: variants mirror the document's
pub enum SchemaEdit {
    SetFormatId(Identity),
    SetLayoutId(Identity),
    SetVersion(ContractVersion),
    SetComponent(ComponentEdit),
    SetTensor(TensorEdit),
    RenameComponent(RenameComponent),
    AddComponent(WeightComponentSpec),
    RemoveComponent(Identity),
    ReplaceSchema(WeightSchema),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecutionSchemaEdits {
    pub edits: Vec<SchemaEdit>,
}

/// How the materializer produces each execution component.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum MaterializeRule {
    Identity,
    ZeroPad,
    Concat,
    Fill(BTreeMap<Identity, u8>),
    Reject(String),
}

/// An adversarial perturbation of each materialized group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MaterializerFault {
    DropLast,
    DuplicateFirst,
    Reverse,
    SourcePayload,
}

/// One declared weight materializer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaterializerDocument {
    pub descriptor: DescriptorShape,
    pub execution_schema: ExecutionSchemaEdits,
    /// Absent or `null`: every execution component is its own source.
    #[serde(default, skip_serializing_if = "Presence::is_absent")]
    pub component_sources: Presence<BTreeMap<Identity, Vec<Identity>>>,
    pub materialize: MaterializeRule,
    /// Absent or `null`: honest.
    #[serde(default, skip_serializing_if = "Presence::is_absent")]
    pub fault: Presence<MaterializerFault>,
}

/// The materializer registry, in registration order (the identity materializer is implicit).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaterializerRegistryDocument {
    pub materializers: Vec<MaterializerDocument>,
}

/// The scenario's `weights` section: which materializer `select_exact` picks, and whether the
/// catalog is augmented with the registry's descriptors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeightSelectionDocument {
    pub registry: MaterializerRegistryDocument,
    pub materializer_id: Identity,
    pub augment_catalog: bool,
}
