//! The model family document and the model-layer wire forms (02; `schemas/model/`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

use super::common::{nullable, CanonicalRational, ContractVersion, Identity, Presence, Sha256Text};

/// `ElementType`, in declaration order (its `Ord` is the contract's set order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ElementType {
    Bool,
    U8,
    U32,
    I8,
    I32,
    F16,
    Bf16,
    F32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum BlockedTensorPadding {
    Exact,
    ZeroFill { physical_dimensions: Vec<u64> },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum TensorLayout {
    Contiguous,
    Strided { byte_strides: Vec<u64> },
    Blocked { block: Vec<u64>, axis_order: Vec<u32>, padding: BlockedTensorPadding },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProgramTensorSpec {
    pub dimensions: Vec<u64>,
    pub element_type: ElementType,
    pub layout: TensorLayout,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum StateCapacityDemand {
    FixedPerScope,
    TokenScaled { bytes_per_token: u64, maximum_tokens: u64 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckpointContents {
    PrefixPositions,
    BoundaryValue,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckpointInputDependency {
    ExactTokenPrefix,
    EntireTokenInput,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum StateCheckpointCapability {
    CompletedBoundary {
        contract_version: ContractVersion,
        contents: CheckpointContents,
        input_dependency: CheckpointInputDependency,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StateLifetime {
    Request,
    Sequence,
    Step,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum StateInitialization {
    /// `"none"`
    #[serde(rename = "none")]
    Uninitialized,
    #[serde(rename = "zero")]
    Zero,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateSpec {
    pub id: Identity,
    pub value_id: Identity,
    pub tensor: ProgramTensorSpec,
    pub lifetime: StateLifetime,
    pub capacity_demand: StateCapacityDemand,
    pub initialization: StateInitialization,
    #[serde(default, skip_serializing_if = "Presence::is_absent")]
    pub checkpoint: Presence<StateCheckpointCapability>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum SemanticValue {
    Bool(bool),
    Integer(i64),
    Unsigned(u64),
    Rational(CanonicalRational),
    Text(String),
    Integers(Vec<i64>),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum WorkSpec {
    Fixed,
    Tokens { value_id: Identity, axis: u32 },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProgramNode {
    pub id: Identity,
    pub operation_id: Identity,
    pub required_version: ContractVersion,
    pub work: WorkSpec,
    pub inputs: Vec<Identity>,
    pub outputs: Vec<Identity>,
    pub attributes: BTreeMap<Identity, SemanticValue>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProgramBlock {
    pub id: String,
    pub nodes: Vec<ProgramNode>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeightReference {
    pub weight_id: Identity,
    pub value_id: Identity,
    pub tensor: ProgramTensorSpec,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProgramCheckpointInputs {
    pub contract_version: ContractVersion,
    pub token_input: Identity,
    pub conditioning_inputs: Vec<Identity>,
    #[serde(default, skip_serializing_if = "Presence::is_absent")]
    pub output_only_inputs: Presence<Vec<Identity>>,
}

/// `ModelProgram` (02 §8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelProgram {
    pub family_id: Identity,
    pub inputs: Vec<Identity>,
    pub blocks: Vec<ProgramBlock>,
    pub states: Vec<StateSpec>,
    pub weights: Vec<WeightReference>,
    pub outputs: Vec<Identity>,
    #[serde(default, skip_serializing_if = "Presence::is_absent")]
    pub checkpoint_inputs: Presence<ProgramCheckpointInputs>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ComponentRole {
    Values,
    PackedValues,
    Scales,
    ZeroPoints,
    Indices,
    Permutation,
    Codebook,
    Metadata,
}

/// Internally tagged by `kind`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum QuantizationGrouping {
    Fixed { size: u32 },
    WholeAxis {},
    Block2d { block_shape: Vec<u32> },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuantizationPacking {
    Linear,
    Interleaved,
    Tiled,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuantizationSpec {
    pub format_id: Identity,
    pub bits_per_weight: u8,
    pub grouping: QuantizationGrouping,
    pub packing: QuantizationPacking,
    pub scale_type: ElementType,
    #[serde(deserialize_with = "nullable")]
    pub zero_point_type: Option<ElementType>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockQuantizationSpec {
    pub format_id: Identity,
    pub logical_values_per_block: u64,
    pub bytes_per_block: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum WeightEncoding {
    Dense { element_type: ElementType },
    DenseAffine { element_type: ElementType, scale: CanonicalRational, bias: CanonicalRational },
    Quantized(QuantizationSpec),
    BlockQuantized(BlockQuantizationSpec),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeightComponentSpec {
    pub id: Identity,
    pub role: ComponentRole,
    pub external_names: Vec<String>,
    pub dimensions: Vec<u64>,
    pub encoding: WeightEncoding,
    pub required: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum WeightPadding {
    Exact,
    ZeroFill { padded_dimensions: Vec<u64> },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum StorageLayout {
    Contiguous {
        padding: WeightPadding,
    },
    Strided {
        strides_in_elements: Vec<u64>,
        padding: WeightPadding,
    },
    Tiled {
        tile_shape: Vec<u64>,
        axis_order: Vec<u32>,
        tile_strides_in_elements: Vec<u64>,
        padding: WeightPadding,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComponentBinding {
    pub component_id: Identity,
    pub storage: StorageLayout,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AxisComponent {
    pub component: ComponentBinding,
    pub axis: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompositePart {
    pub layout: PhysicalLayout,
    pub logical_offsets: Vec<u64>,
    pub extents: Vec<u64>,
}

/// `WeightPhysicalLayout`: how a logical weight tensor is stored in components (02 §5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
#[allow(clippy::large_enum_variant)] // a wire form: variants mirror the contract's
pub enum PhysicalLayout {
    Dense {
        component_id: Identity,
    },
    Stored {
        component: ComponentBinding,
    },
    Composite {
        parts: Vec<CompositePart>,
    },
    Quantized {
        packed_values: ComponentBinding,
        packed_dimensions: Vec<u64>,
        scales: ComponentBinding,
        #[serde(deserialize_with = "nullable")]
        zero_points: Option<ComponentBinding>,
        #[serde(deserialize_with = "nullable")]
        zero_point_packed_dimensions: Option<Vec<u64>>,
        #[serde(deserialize_with = "nullable")]
        axis_indices: Option<AxisComponent>,
        #[serde(deserialize_with = "nullable")]
        permutation: Option<AxisComponent>,
        #[serde(deserialize_with = "nullable")]
        codebook: Option<ComponentBinding>,
        group_axis: u32,
        group_padding: WeightPadding,
    },
    QuantizedBlockGrid {
        packed_values: ComponentBinding,
        packed_dimensions: Vec<u64>,
        scales: ComponentBinding,
        block_axes: Vec<u32>,
    },
    BlockQuantized {
        blocks: ComponentBinding,
        block_axis: u32,
        block_padding: WeightPadding,
    },
    AxisReshapePermutation {
        values: Box<PhysicalLayout>,
        axis: u32,
        logical_offset: u64,
        extent: u64,
        reshape: Vec<u64>,
        stored_axis_order: Vec<u32>,
    },
    Indexed {
        indices: AxisComponent,
        values: Box<PhysicalLayout>,
        source_axis_extent: u64,
    },
    ExpertStack {
        experts: Vec<PhysicalLayout>,
        expert_axis: u32,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeightTensorSpec {
    pub id: Identity,
    pub dimensions: Vec<u64>,
    pub logical_element_type: ElementType,
    pub physical_layout: PhysicalLayout,
    pub required: bool,
}

/// `WeightSchema` (02 §5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeightSchema {
    pub format_id: Identity,
    pub layout_id: Identity,
    pub version: ContractVersion,
    pub components: Vec<WeightComponentSpec>,
    pub tensors: Vec<WeightTensorSpec>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NumericalOperationContract {
    pub operation_id: Identity,
    pub version: ContractVersion,
    #[serde(deserialize_with = "nullable")]
    pub multiplication_type: Option<ElementType>,
    #[serde(deserialize_with = "nullable")]
    pub accumulation_type: Option<ElementType>,
}

/// `NumericalExecutionProfile` (02 §7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NumericalExecutionProfile {
    pub id: Identity,
    pub version: ContractVersion,
    pub family_id: Identity,
    pub primary_activation: Identity,
    pub boundaries: BTreeMap<Identity, ElementType>,
    pub states: Vec<StateSpec>,
    pub operations: Vec<NumericalOperationContract>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FamilyNumericalProfiles {
    pub version: ContractVersion,
    pub profiles: Vec<NumericalExecutionProfile>,
    pub auto_preference: Vec<Identity>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpecialTokenRole {
    Bos,
    Eos,
    Pad,
    Stop,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpecialTokenCollision {
    pub first: SpecialTokenRole,
    pub second: SpecialTokenRole,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CollisionPolicy {
    pub allowed: Vec<SpecialTokenCollision>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpecialTokens {
    #[serde(deserialize_with = "nullable")]
    pub bos_token_id: Option<u32>,
    pub eos_token_ids: Vec<u32>,
    #[serde(deserialize_with = "nullable")]
    pub pad_token_id: Option<u32>,
    pub collision_policy: CollisionPolicy,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TemplateMetadata {
    pub template: String,
    pub source_file: String,
    pub sha256: Sha256Text,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSemanticMetadata {
    pub template: TemplateMetadata,
    pub special_tokens: SpecialTokens,
}

/// The JSON type a declared config field must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConfigFieldType {
    U64,
    I64,
    String,
    Bool,
    F64,
    Json,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigField {
    pub name: String,
    #[serde(rename = "type")]
    pub field_type: ConfigFieldType,
}

/// The typed config a declarative family parses: its fields, the `field` its parse errors
/// name, and the canonical value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FamilyConfig {
    pub fields: Vec<ConfigField>,
    pub parse_error_field: String,
    pub value: Map<String, Value>,
}

/// The declarative model family document (`schemas/model/family_document.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FamilyDocument {
    /// 1
    pub document_version: u32,
    pub family_id: Identity,
    pub external_metadata_ids: Vec<Identity>,
    pub selected_external_metadata_id: Identity,
    pub config: FamilyConfig,
    pub weight_schema: WeightSchema,
    pub numerical_profiles: FamilyNumericalProfiles,
    pub program: ModelProgram,
    #[serde(default, skip_serializing_if = "Presence::is_absent")]
    pub programs_by_profile: Presence<BTreeMap<Identity, ModelProgram>>,
    #[serde(default, skip_serializing_if = "Presence::is_absent")]
    pub specialized_weight_schemas: Presence<BTreeMap<Identity, WeightSchema>>,
    pub semantic_metadata: ModelSemanticMetadata,
}
