//! The contract's two hashing byte forms, sha256 fingerprints and a strict JSON reader (01 §3).
//!
//! * [`canonical_bytes`]: object keys sorted by their UTF-8 bytes at every depth, compact,
//!   written by serde_json (so number and string formatting are serde_json's own). This is
//!   upstream's `canonical_json` followed by `serde_json::to_vec`, and equals the
//!   reference's `reference.canonical.canonical_bytes`.
//! * [`direct_bytes`]: `serde_json::to_vec` of a typed value, keys in field declaration order.
//! * [`sha256_hex`] / [`fingerprint`]: lowercase hex sha256.
//! * [`parse_strict`]: untrusted JSON text with a size cap checked before parsing, duplicate
//!   keys refused, and serde_json's own limits (nesting below 128, no NaN, no lone surrogates).
//!
//! Both writers refuse a value nested [`MAX_JSON_DEPTH`] or more deep: serde_json's reader
//! cannot read such text back, so no contract wire can carry it (decision R-2 in
//! docs/decisions/18-rust-kit.md).

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::fmt;

use crate::error::VNextError;

/// serde_json reads at most 127 nested arrays/objects; 128 is refused.
pub const MAX_JSON_DEPTH: usize = 128;

/// The deepest array/object nesting of `value` (a scalar is 0, `[]` is 1); iterative.
pub fn json_depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack: Vec<(&Value, usize)> = vec![(value, 0)];
    while let Some((item, depth)) = stack.pop() {
        match item {
            Value::Array(items) => {
                deepest = deepest.max(depth + 1);
                stack.extend(items.iter().map(|v| (v, depth + 1)));
            }
            Value::Object(map) => {
                deepest = deepest.max(depth + 1);
                stack.extend(map.values().map(|v| (v, depth + 1)));
            }
            _ => {}
        }
    }
    deepest
}

/// The deepest nesting of compact JSON text, ignoring brackets inside strings.
fn text_depth(text: &[u8]) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for &b in text {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

fn too_deep(context: &str, depth: usize) -> VNextError {
    VNextError::serialization(
        context,
        format!("recursion limit exceeded: nesting depth {depth} >= {MAX_JSON_DEPTH}"),
    )
}

/// Serializes a `Value` with every object's keys in sorted (UTF-8 byte) order.
struct Canonical<'a>(&'a Value);

impl Serialize for Canonical<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Object(map) => {
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                // String's Ord compares the UTF-8 bytes: the contract's key order.
                entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
                let mut out = serializer.serialize_map(Some(entries.len()))?;
                for (key, value) in entries {
                    out.serialize_entry(key, &Canonical(value))?;
                }
                out.end()
            }
            Value::Array(items) => {
                let mut out = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    out.serialize_element(&Canonical(item))?;
                }
                out.end()
            }
            scalar => scalar.serialize(serializer),
        }
    }
}

/// Canonical bytes of `value` (keys sorted at every depth, compact, serde_json formatting).
///
/// Refused with `Serialization{context}` when `value` is nested [`MAX_JSON_DEPTH`] or more deep.
pub fn canonical_bytes_in(value: &Value, context: &str) -> Result<Vec<u8>, VNextError> {
    let depth = json_depth(value);
    if depth >= MAX_JSON_DEPTH {
        return Err(too_deep(context, depth));
    }
    serde_json::to_vec(&Canonical(value)).map_err(|e| VNextError::serialization(context, e.to_string()))
}

/// [`canonical_bytes_in`] with the context `canonical json`.
pub fn canonical_bytes(value: &Value) -> Result<Vec<u8>, VNextError> {
    canonical_bytes_in(value, "canonical json")
}

/// Canonical bytes of any serializable value (through `serde_json::Value`).
pub fn to_canonical_bytes<T: Serialize + ?Sized>(value: &T, context: &str) -> Result<Vec<u8>, VNextError> {
    let value = serde_json::to_value(value).map_err(|e| VNextError::serialization(context, e.to_string()))?;
    canonical_bytes_in(&value, context)
}

/// Direct bytes of a typed value: `serde_json::to_vec`, keys in field declaration order.
pub fn direct_bytes<T: Serialize + ?Sized>(value: &T, context: &str) -> Result<Vec<u8>, VNextError> {
    let bytes = serde_json::to_vec(value).map_err(|e| VNextError::serialization(context, e.to_string()))?;
    let depth = text_depth(&bytes);
    if depth >= MAX_JSON_DEPTH {
        return Err(too_deep(context, depth));
    }
    Ok(bytes)
}

/// Lowercase hex sha256 of `data` (64 characters, no prefix).
pub fn sha256_hex(data: &[u8]) -> String {
    let digest = Sha256::digest(data);
    let mut out = String::with_capacity(64);
    for byte in digest.iter() {
        out.push(char::from(b"0123456789abcdef"[usize::from(byte >> 4)]));
        out.push(char::from(b"0123456789abcdef"[usize::from(byte & 15)]));
    }
    out
}

/// sha256 hex of the canonical bytes of `value`.
pub fn fingerprint(value: &Value) -> Result<String, VNextError> {
    Ok(sha256_hex(&canonical_bytes(value)?))
}

/// sha256 hex of the direct bytes of a typed value.
pub fn direct_fingerprint<T: Serialize + ?Sized>(value: &T, context: &str) -> Result<String, VNextError> {
    Ok(sha256_hex(&direct_bytes(value, context)?))
}

/// True iff `text` is exactly 64 characters of `0-9a-f`.
pub fn is_canonical_sha256(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

// ----------------------------------------------------------------------------- strict reading

struct StrictValue;

impl<'de> DeserializeSeed<'de> for StrictValue {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        serde_json::Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("number is not finite"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(item) = seq.next_element_seed(StrictValue)? {
            out.push(item);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = access.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!("duplicate key `{key}`")));
            }
            let value = access.next_value_seed(StrictValue)?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

/// Parse untrusted JSON text; every rejection is `Serialization{context}`.
///
/// Refused: more than `max_bytes` bytes (checked before parsing), a byte-order mark, invalid
/// UTF-8, syntax errors, trailing data, duplicate keys, NaN/Infinity, lone surrogates and
/// nesting of 128 or deeper. Numbers follow serde_json (`-0` and integers beyond the u64/i64
/// range read as floats).
pub fn parse_strict(data: &[u8], context: &str, max_bytes: Option<usize>) -> Result<Value, VNextError> {
    if let Some(limit) = max_bytes {
        if data.len() > limit {
            return Err(VNextError::serialization(
                context,
                format!("wire size {} exceeds limit {limit}", data.len()),
            ));
        }
    }
    if data.starts_with(b"\xef\xbb\xbf") {
        return Err(VNextError::serialization(context, "a byte-order mark is not JSON"));
    }
    let mut deserializer = serde_json::Deserializer::from_slice(data);
    let value = StrictValue
        .deserialize(&mut deserializer)
        .and_then(|v| deserializer.end().map(|()| v))
        .map_err(|e| VNextError::serialization(context, e.to_string()))?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn worked_example_of_01_3_3() {
        let v = json!({"b": {"y": "é\u{0001}", "x": [3, {"d": 1, "c": null}]}, "a": 1});
        let bytes = canonical_bytes(&v).unwrap();
        assert_eq!(bytes, b"{\"a\":1,\"b\":{\"x\":[3,{\"c\":null,\"d\":1}],\"y\":\"\xc3\xa9\\u0001\"}}");
        assert_eq!(bytes.len(), 53);
        assert_eq!(sha256_hex(&bytes), "1b83ef86003256dfd1b8bd4e33161bc817cd772c70ce93357be279cae49684ba");
    }

    #[test]
    fn escaping_vector_of_01_3_3() {
        let v = json!({"k": "\"\\/\u{8}\u{c}\n\r\t\u{0}\u{1f}\u{7f}\u{e9}\u{2028}\u{1F600}", "A": [], "_": {}});
        let bytes = canonical_bytes(&v).unwrap();
        assert_eq!(bytes.len(), 59);
        assert_eq!(sha256_hex(&bytes), "09aa58a6decc2416731a55b0735be6bd861beb307614c64b8c76c850a53fb8bf");
    }

    #[test]
    fn keys_sort_by_utf8_bytes_not_utf16() {
        // U+FFFF is EF BF BF in UTF-8 and sorts before U+1F600 (F0 9F 98 80); in UTF-16 it is after.
        let v = json!({"\u{1F600}": 1, "\u{FFFF}": 2, "10": 3, "2": 4});
        assert_eq!(
            String::from_utf8(canonical_bytes(&v).unwrap()).unwrap(),
            "{\"10\":3,\"2\":4,\"\u{FFFF}\":2,\"\u{1F600}\":1}"
        );
    }

    #[test]
    fn direct_bytes_keep_declaration_order() {
        #[derive(Serialize)]
        struct S {
            z: u8,
            a: u8,
        }
        assert_eq!(direct_bytes(&S { z: 1, a: 2 }, "t").unwrap(), b"{\"z\":1,\"a\":2}");
    }

    fn nested(depth: usize) -> Value {
        let mut v = Value::from(1);
        for _ in 0..depth {
            v = Value::Array(vec![v]);
        }
        v
    }

    #[test]
    fn writers_refuse_what_the_reader_refuses() {
        assert_eq!(json_depth(&nested(127)), 127);
        assert!(canonical_bytes(&nested(127)).is_ok());
        let err = canonical_bytes(&nested(128)).unwrap_err();
        assert_eq!(err.kind(), "serialization");
        assert!(direct_bytes(&nested(127), "t").is_ok());
        assert!(direct_bytes(&nested(128), "t").is_err());
        let text = canonical_bytes(&nested(127)).unwrap();
        assert!(parse_strict(&text, "t", None).is_ok());
        let deeper = format!("{}1{}", "[".repeat(128), "]".repeat(128));
        assert!(parse_strict(deeper.as_bytes(), "t", None).is_err());
    }

    #[test]
    fn strict_reader_rejections() {
        for bad in [
            &b"{\"a\":1,\"a\":2}"[..],
            b"{\"a\":{\"b\":1,\"b\":1}}",
            b"\xef\xbb\xbf{}",
            b"{} {}",
            b"NaN",
            b"[\"\\ud800\"]",
            b"\"\xff\"",
            b"",
        ] {
            let err = parse_strict(bad, "ctx", None).unwrap_err();
            assert!(
                matches!(&err, VNextError::Serialization { context, .. } if context == "ctx"),
                "{bad:?}: {err}"
            );
        }
        assert!(parse_strict(b"[1,2]", "ctx", Some(4)).is_err());
        assert_eq!(parse_strict(b" {\"a\" : [1] } ", "ctx", Some(14)).unwrap(), json!({"a": [1]}));
    }

    #[test]
    fn sha256_predicate() {
        assert!(is_canonical_sha256(&"0".repeat(64)));
        for bad in ["A".repeat(64), "0".repeat(63), "0".repeat(65), "g".repeat(64), String::new()] {
            assert!(!is_canonical_sha256(&bad));
        }
    }
}
