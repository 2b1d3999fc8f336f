//! Wire primitives shared by every section (`schemas/common.json`) and the field helpers.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// An identity on the wire: a string the backend validates (01 §1: 1..=160 bytes of
/// `A-Za-z0-9._:/-`). The kit keeps it as text so the contract's own constructor reports
/// the contract's error.
pub type Identity = String;

/// A lowercase sha256 hex string on the wire (validated by the contract, not by the kit).
pub type Sha256Text = String;

/// True iff `value` passes the portable identity rule of 01 §1.1.
pub fn is_portable_identity(value: &str) -> bool {
    (1..=160).contains(&value.len())
        && value.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b':' | b'/'))
}

/// `ContractVersion` / `PlanSchemaVersion`: `{"major": u16, "minor": u16}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContractVersion {
    pub major: u16,
    pub minor: u16,
}

impl ContractVersion {
    /// `satisfies`: same major and at least the required minor (01 §2).
    pub fn satisfies(self, required: ContractVersion) -> bool {
        self.major == required.major && self.minor >= required.minor
    }
}

impl fmt::Display for ContractVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// `CanonicalRational{numerator: i64, denominator: u64}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CanonicalRational {
    pub numerator: i64,
    pub denominator: u64,
}

/// An optional key: absent, present as `null`, or present with a value.
///
/// Used with `#[serde(default, skip_serializing_if = "Presence::is_absent")]` for every key a
/// schema does not require, so decoding and re-encoding keeps whether the key was written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Presence<T> {
    Absent,
    Null,
    Value(T),
}

// Written by hand: `#[derive(Default)]` would ask `T: Default` on Rust 1.63.
#[allow(clippy::derivable_impls)]
impl<T> Default for Presence<T> {
    fn default() -> Self {
        Self::Absent
    }
}

impl<T> Presence<T> {
    pub fn is_absent(&self) -> bool {
        matches!(self, Self::Absent)
    }

    /// The value, when one was given.
    pub fn value(&self) -> Option<&T> {
        match self {
            Self::Value(v) => Some(v),
            _ => None,
        }
    }
}

impl<T: Serialize> Serialize for Presence<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Value(v) => v.serialize(serializer),
            _ => serializer.serialize_none(),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Presence<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match Option::<T>::deserialize(deserializer)? {
            Some(v) => Self::Value(v),
            None => Self::Null,
        })
    }
}

/// `deserialize_with` for a required key whose value may be `null` (an `Option` the producer
/// must write explicitly, 01 §5 rule 7): without it serde would read a missing key as `None`.
pub fn nullable<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<Option<T>, D::Error> {
    Option::<T>::deserialize(deserializer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Probe {
        #[serde(default, skip_serializing_if = "Presence::is_absent")]
        optional: Presence<u8>,
        #[serde(deserialize_with = "nullable")]
        required: Option<u8>,
    }

    #[test]
    fn presence_and_nullable_keep_the_written_form() {
        for text in [
            json!({"required": null}),
            json!({"required": 1}),
            json!({"optional": null, "required": null}),
            json!({"optional": 3, "required": 1}),
        ] {
            let probe: Probe = serde_json::from_value(text.clone()).unwrap();
            assert_eq!(serde_json::to_value(&probe).unwrap(), text);
        }
        assert!(serde_json::from_value::<Probe>(json!({})).is_err(), "a missing nullable key is refused");
    }

    #[test]
    fn identity_rule() {
        assert!(is_portable_identity("node.a"));
        assert!(is_portable_identity(&"a".repeat(160)));
        assert!(!is_portable_identity(&"a".repeat(161)));
        assert!(!is_portable_identity(""));
        assert!(!is_portable_identity("a b"));
        assert!(!is_portable_identity("é"));
    }

    #[test]
    fn satisfies_is_same_major_and_at_least_minor() {
        let v = |major, minor| ContractVersion { major, minor };
        assert!(v(1, 2).satisfies(v(1, 1)));
        assert!(!v(1, 0).satisfies(v(1, 1)));
        assert!(!v(2, 5).satisfies(v(1, 0)));
    }
}
