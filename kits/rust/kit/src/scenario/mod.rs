//! Typed scenario documents (`schemas/scenario.json` and the schemas it references).
//!
//! These are *shape* types: every object refuses unknown keys (`deny_unknown_fields`), enums
//! use the contract's spellings, integers their contract widths, and optional keys keep
//! whether they were written ([`Presence`]), so a scenario decodes and re-encodes to the same
//! canonical bytes. Value rules (identity syntax, ranges, uniqueness, cross references) are
//! the contract's: build your contract types from these and let their constructors report the
//! contract's errors.

pub mod catalog;
pub mod common;
pub mod model;
pub mod policy;
pub mod resolution;
pub mod weights;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use catalog::{CatalogDocument, RegistryDocument};
pub use common::{is_portable_identity, CanonicalRational, ContractVersion, Identity, Presence};
pub use model::FamilyDocument;
pub use policy::PolicyDocument;
pub use resolution::NodeResolutionRequest;
pub use weights::WeightSelectionDocument;

use crate::canonical::to_canonical_bytes;
use crate::error::VNextError;

/// The context of a malformed scenario (`Serialization{context}`).
pub const SCENARIO_CONTEXT: &str = contexts::SCENARIO;

/// The contexts the reference reports when a section fails to decode.
pub mod contexts {
    /// The outer shape, `resolutions`, `weights` and `completion_retention`.
    pub const SCENARIO: &str = "decode scenario";
    /// `family.document`.
    pub const FAMILY_DOCUMENT: &str = "decode model family document";
    /// `catalog`.
    pub const CATALOG_DOCUMENT: &str = "decode catalog document";
    /// `policy`.
    pub const POLICY_DOCUMENT: &str = "decode runtime policy document";
    /// `registry`.
    pub const REGISTRY_DOCUMENT: &str = "decode registry document";
}

/// `family`: the family document, the raw config it is prepared with, and the numerical profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFamily {
    pub document: FamilyDocument,
    /// Any JSON; the family's typed config parsing decides.
    pub raw_config: Value,
    pub numerical_profile: String,
}

/// One planning case (`schemas/scenario.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// 1, or 2 with `family_registry` and `resolution_registries` (decision H-20)
    pub scenario_version: u32,
    pub name: String,
    pub family: ScenarioFamily,
    pub catalog: CatalogDocument,
    pub policy: PolicyDocument,
    pub registry: RegistryDocument,
    pub resolutions: Vec<NodeResolutionRequest>,
    #[serde(deserialize_with = "common::nullable")]
    pub weights: Option<WeightSelectionDocument>,
    pub completion_retention: Vec<Identity>,
    /// Version 2: the registrations of the model-family registry, one family document each.
    #[serde(default, skip_serializing_if = "Presence::is_absent")]
    pub family_registry: Presence<Vec<FamilyDocument>>,
    /// Version 2: per resolution, the planning-registry instance that resolves it.
    #[serde(default, skip_serializing_if = "Presence::is_absent")]
    pub resolution_registries: Presence<Vec<u32>>,
}

impl Scenario {
    /// Decode a scenario JSON value.
    pub fn from_value(value: &Value) -> Result<Self, serde_json::Error> {
        Self::deserialize(value)
    }

    /// The scenario as a JSON value.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Canonical bytes of the scenario (sorted keys, compact).
    pub fn canonical_bytes(&self) -> Result<Vec<u8>, VNextError> {
        to_canonical_bytes(self, "serialize scenario")
    }
}

/// Decode one section with the context the reference reports for it (see [`contexts`]).
pub fn decode_section<T: DeserializeOwned>(value: &Value, context: &str) -> Result<T, VNextError> {
    T::deserialize(value).map_err(|e| VNextError::serialization(context, e.to_string()))
}
