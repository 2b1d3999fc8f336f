//! `VNextError`, the contract's error catalogue (01 §6), and its protocol form (`schemas/error.json`).
//!
//! The error object is `{"kind": <variant in snake_case>, <fields>..., "message": <text>}`.
//! Field names are the Rust field names, except the three the protocol renames so they cannot
//! shadow the variant `kind` or a Rust keyword: `InvalidIdentity.kind` and
//! `AmbiguousModelFamilyRegistration.identity_kind` are `identity_kind`,
//! `DynamicAdmissionContract.kind` is `fault_kind`, and the transition errors' `from` is
//! `from_state`. This mirror uses the protocol names as its Rust field names, so what you read
//! in the enum is what goes on the wire. `Serialization`'s own `message` field fills the
//! `message` slot; every other variant gets its `Display` text there. Conformance compares
//! `kind` and the fields, never `message`.

use serde::de::{self, Deserializer};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;

macro_rules! vnext_errors {
    ($(
        $(#[$doc:meta])*
        $variant:ident = $kind:literal { $($field:ident : $ty:ty),* $(,)? }
    ),* $(,)?) => {
        /// A contract error; one variant per `VNextError` variant, in declaration order.
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum VNextError {
            $( $(#[$doc])* $variant { $($field: $ty),* }, )*
        }

        /// Every error `kind`, in the contract's declaration order.
        pub const ERROR_KINDS: &[&str] = &[$($kind),*];

        impl VNextError {
            /// The variant name in snake_case (the error object's `kind`).
            pub fn kind(&self) -> &'static str {
                match self { $( Self::$variant { .. } => $kind, )* }
            }

            /// The structured fields under their protocol names (for `Serialization`, `context` and `message`).
            pub fn fields(&self) -> Map<String, Value> {
                let mut out = Map::new();
                match self {
                    $( Self::$variant { $($field),* } => {
                        $( out.insert(stringify!($field).to_string(), field_value($field)); )*
                    } )*
                }
                out
            }

            /// The field names of the variant with this `kind`, in declaration order.
            pub fn field_names(kind: &str) -> Option<&'static [&'static str]> {
                match kind {
                    $( $kind => Some(&[$(stringify!($field)),*]), )*
                    _ => None,
                }
            }

            fn from_fields(kind: &str, fields: &mut Map<String, Value>) -> Result<Self, String> {
                match kind {
                    $( $kind => Ok(Self::$variant { $($field: take::<$ty>(fields, stringify!($field))?),* }), )*
                    other => Err(format!("unknown error kind {other:?}")),
                }
            }
        }
    };
}

fn field_value<T: Serialize>(value: &T) -> Value {
    // Strings, optional strings and integers always have a JSON form.
    serde_json::to_value(value).unwrap_or(Value::Null)
}

fn take<T: for<'de> Deserialize<'de>>(fields: &mut Map<String, Value>, name: &str) -> Result<T, String> {
    let raw = fields.remove(name).ok_or_else(|| format!("missing field `{name}`"))?;
    serde_json::from_value(raw).map_err(|e| format!("field `{name}`: {e}"))
}

vnext_errors! {
    /// An identity constructor rejected its input (01 §1); `identity_kind` is the type's kind string.
    InvalidIdentity = "invalid_identity" { identity_kind: String, value: String, reason: String },
    UnknownModelFamily = "unknown_model_family" { family_id: String },
    UnknownExternalModelMetadata = "unknown_external_model_metadata" { metadata_id: String },
    /// `identity_kind` is `internal family` or `external metadata`; `matches >= 2`.
    AmbiguousModelFamilyRegistration = "ambiguous_model_family_registration" {
        identity_kind: String, identity: String, matches: u64,
    },
    InvalidModelConfig = "invalid_model_config" { family_id: String, field: String, reason: String },
    UnknownWeightLayout = "unknown_weight_layout" { family_id: String, layout_id: String },
    /// `node_id` is `Some` when the check is node-scoped.
    IncompatibleOperationVersion = "incompatible_operation_version" {
        node_id: Option<String>, operation_id: String,
        required_major: u16, required_minor: u16, available_major: u16, available_minor: u16,
    },
    UnsupportedOperation = "unsupported_operation" {
        node_id: Option<String>, operation_id: String, device_id: String, reason: String,
    },
    InvalidExecutionPlan = "invalid_execution_plan" { reason: String },
    WeightMaterializerQualityApprovalRequired = "weight_materializer_quality_approval_required" {
        materializer_id: String,
    },
    /// `fault_kind` is the contract's `kind` field (a `DynamicAdmissionFaultKind` in snake_case).
    DynamicAdmissionContract = "dynamic_admission_contract" { fault_kind: String, reason: String },
    DeviceCapacityUnavailable = "device_capacity_unavailable" { pressure: String },
    DynamicPoolResidentUnavailable = "dynamic_pool_resident_unavailable" { pressure: String },
    DynamicResourceAdmissionRequired = "dynamic_resource_admission_required" {
        descriptor_count: u64, minimum_sequence_bytes: u64,
    },
    UnsupportedPlanSchema = "unsupported_plan_schema" {
        expected_major: u16, expected_minor: u16, actual_major: u16, actual_minor: u16,
    },
    /// `expected` is the recomputed or rebuilt hash, `actual` the carried one.
    PlanHashMismatch = "plan_hash_mismatch" { expected: String, actual: String },
    /// `from_state` is the contract's `from` field.
    InvalidResourceTransition = "invalid_resource_transition" {
        resource_id: String, from_state: String, action: String,
    },
    /// `from_state` is the contract's `from` field.
    InvalidLeaseTransition = "invalid_lease_transition" { lease_id: String, from_state: String, action: String },
    InvalidResolvedModelPlan = "invalid_resolved_model_plan" { field: String, reason: String },
    /// A decode or encode boundary failed; `context` is a fixed string and is compared, `message` is not.
    Serialization = "serialization" { context: String, message: String },
}

impl VNextError {
    /// `Serialization{context, message}`.
    pub fn serialization(context: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Serialization { context: context.into(), message: message.into() }
    }

    /// `InvalidExecutionPlan{reason}`.
    pub fn invalid_execution_plan(reason: impl Into<String>) -> Self {
        Self::InvalidExecutionPlan { reason: reason.into() }
    }

    /// The error object: `kind`, the fields, then `message` (this error's `Display` text unless
    /// the variant has its own `message` field).
    pub fn to_object(&self) -> Map<String, Value> {
        ErrorObject { error: self.clone(), message: Some(self.to_string()) }.to_map()
    }

    /// `kind` and the structured fields without `message`: the part conformance compares.
    pub fn comparable(&self) -> Map<String, Value> {
        let mut out = self.fields();
        out.remove("message");
        out.insert("kind".to_string(), Value::String(self.kind().to_string()));
        out
    }
}

impl fmt::Display for VNextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Self::Serialization { context, message } = self {
            return write!(f, "{context}: {message}");
        }
        write!(f, "{}", self.kind())?;
        let fields = self.fields();
        let names = Self::field_names(self.kind()).unwrap_or(&[]);
        for (i, name) in names.iter().enumerate() {
            let value = fields.get(*name).cloned().unwrap_or(Value::Null);
            write!(f, "{}{name}={value}", if i == 0 { ": " } else { ", " })?;
        }
        Ok(())
    }
}

impl std::error::Error for VNextError {}

impl Serialize for VNextError {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_object().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for VNextError {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        ErrorObject::deserialize(deserializer).map(|object| object.error)
    }
}

/// An error object exactly as written: the error and its informational `message`, if any.
///
/// `schemas/error.json` makes `message` optional for every variant but `serialization`; this
/// type keeps whether it was there, so decoding and re-encoding gives back the same object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorObject {
    pub error: VNextError,
    /// The `message` text; for `serialization` it is the variant's own field and this is `None`.
    pub message: Option<String>,
}

impl ErrorObject {
    /// The object as a JSON map.
    pub fn to_map(&self) -> Map<String, Value> {
        let mut out = self.error.fields();
        out.insert("kind".to_string(), Value::String(self.error.kind().to_string()));
        if let Some(message) = &self.message {
            out.entry("message".to_string()).or_insert_with(|| Value::String(message.clone()));
        }
        out
    }

    /// Decode an error object; unknown kinds, missing or unknown fields and wrong types are refused.
    pub fn from_map(object: &Map<String, Value>) -> Result<Self, String> {
        let mut fields = object.clone();
        let kind = match fields.remove("kind") {
            Some(Value::String(kind)) => kind,
            Some(other) => return Err(format!("error kind must be a string, got {other}")),
            None => return Err("error object has no kind".to_string()),
        };
        let error = VNextError::from_fields(&kind, &mut fields)?;
        let message = match fields.remove("message") {
            None => None,
            Some(Value::String(text)) => Some(text),
            Some(other) => return Err(format!("error message must be a string, got {other}")),
        };
        if let Some(extra) = fields.keys().next() {
            return Err(format!("{kind}: unknown field `{extra}`"));
        }
        Ok(Self { error, message })
    }
}

impl Serialize for ErrorObject {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_map().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ErrorObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let object = Map::<String, Value>::deserialize(deserializer)?;
        Self::from_map(&object).map_err(de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn renamed_fields_are_written_under_their_protocol_names() {
        let e = VNextError::InvalidIdentity {
            identity_kind: "node".into(),
            value: "a b".into(),
            reason: "identity contains a non-portable character".into(),
        };
        let object = e.to_object();
        assert_eq!(object["kind"], "invalid_identity");
        assert_eq!(object["identity_kind"], "node");
        assert!(object["message"].is_string());
        let t = VNextError::InvalidLeaseTransition { lease_id: "l".into(), from_state: "idle".into(), action: "a".into() };
        assert_eq!(t.to_object()["from_state"], "idle");
        let d = VNextError::DynamicAdmissionContract { fault_kind: "poisoned".into(), reason: "r".into() };
        assert_eq!(d.to_object()["fault_kind"], "poisoned");
    }

    #[test]
    fn serialization_uses_its_own_message() {
        let e = VNextError::serialization("decode scenario", "boom");
        assert_eq!(Value::Object(e.to_object()), json!({"kind": "serialization", "context": "decode scenario", "message": "boom"}));
        assert_eq!(Value::Object(e.comparable()), json!({"kind": "serialization", "context": "decode scenario"}));
    }

    #[test]
    fn objects_round_trip_and_bad_objects_are_refused() {
        let e = VNextError::IncompatibleOperationVersion {
            node_id: None,
            operation_id: "op".into(),
            required_major: 1,
            required_minor: 2,
            available_major: 1,
            available_minor: 0,
        };
        let object = e.to_object();
        assert_eq!(object["node_id"], Value::Null);
        assert_eq!(ErrorObject::from_map(&object).unwrap().error, e);
        let mut extra = object.clone();
        extra.insert("x".into(), json!(1));
        assert!(ErrorObject::from_map(&extra).is_err());
        let mut missing = object.clone();
        missing.remove("node_id");
        assert!(ErrorObject::from_map(&missing).is_err());
        let mut wide = object;
        wide.insert("required_major".into(), json!(65536));
        assert!(ErrorObject::from_map(&wide).is_err());
        assert!(ErrorObject::from_map(json!({"kind": "no_such"}).as_object().unwrap()).is_err());
        assert!(ErrorObject::from_map(json!({"kind": "serialization", "context": "c"}).as_object().unwrap()).is_err());
    }

    #[test]
    fn message_presence_is_kept() {
        let object = json!({"kind": "invalid_execution_plan", "reason": "r"});
        let decoded: ErrorObject = serde_json::from_value(object.clone()).unwrap();
        assert_eq!(decoded.message, None);
        assert_eq!(serde_json::to_value(&decoded).unwrap(), object);
    }
}
