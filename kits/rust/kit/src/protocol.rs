//! Messages of the JSON-lines backend protocol (harness/PROTOCOL.md §2-§5, `schemas/protocol/`).
//!
//! A request is `{"id": u64, "op": str, "params": {...}}`; a reply carries the request's id
//! and exactly one of `result`, `error` (a [`VNextError`] object) or `failure`
//! (`{"code", "message"}`). The per-operation params and results live in [`crate::ops`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt;

use crate::canonical::parse_strict;
use crate::error::{ErrorObject, VNextError};
use crate::scenario::ContractVersion;

/// The protocol version this kit speaks. A peer with another major is refused.
pub const PROTOCOL_VERSION: ContractVersion = ContractVersion { major: 1, minor: 0 };
/// The handshake's operation name; its request id is always 0.
pub const HANDSHAKE_OP: &str = "handshake";
/// The longest request line (newline included) the kit's server accepts unless told otherwise.
pub const DEFAULT_MAX_REQUEST_BYTES: u64 = 64 * 1024 * 1024;
/// The longest reply line the kit's client reads.
pub const DEFAULT_MAX_REPLY_BYTES: u64 = 64 * 1024 * 1024;

/// The contract crate a conforming backend implements.
pub const CONTRACT_CRATE: &str = "ferrum-interfaces";
/// Its version.
pub const CONTRACT_VERSION: &str = "0.12.2";
/// Its module.
pub const CONTRACT_MODULE: &str = "vnext";
/// `EXECUTION_PLAN_SCHEMA` (05 §1).
pub const EXECUTION_PLAN_SCHEMA: ContractVersion = ContractVersion { major: 8, minor: 1 };
/// The contract limits every backend reports in `describe.limits`, with their values (decision H-3).
pub const CONTRACT_LIMITS: &[(&str, u64)] = &[
    ("max_execution_plan_resource_rows", 65_536),
    ("max_execution_plan_wire_bytes", 16 * 1024 * 1024),
    ("max_prepared_model_family_wire_bytes", 16 * 1024 * 1024),
    ("max_weight_materializers", 64),
];

/// [`CONTRACT_LIMITS`] as a map.
pub fn contract_limits() -> BTreeMap<String, u64> {
    CONTRACT_LIMITS.iter().map(|(name, value)| ((*name).to_string(), *value)).collect()
}

/// Who implements the backend: free-form name, version and language (`describe.implementation`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Implementation {
    pub name: String,
    pub version: String,
    pub language: String,
}

/// The contract a backend implements (`describe.contract`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContractIdentity {
    #[serde(rename = "crate")]
    pub crate_name: String,
    pub version: String,
    pub module: String,
    pub plan_schema: ContractVersion,
}

impl ContractIdentity {
    /// ferrum-interfaces 0.12.2, module vnext, plan schema 8.1: what the suites check.
    pub fn suite() -> Self {
        Self {
            crate_name: CONTRACT_CRATE.to_string(),
            version: CONTRACT_VERSION.to_string(),
            module: CONTRACT_MODULE.to_string(),
            plan_schema: EXECUTION_PLAN_SCHEMA,
        }
    }
}

/// The `describe` result, also sent as the handshake's `backend`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackendDescription {
    pub implementation: Implementation,
    pub contract: ContractIdentity,
    /// Sorted, unique, always including `describe`.
    pub operations: Vec<String>,
    pub limits: BTreeMap<String, u64>,
}

/// The suite block of the handshake.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteIdentity {
    pub name: String,
    pub version: String,
}

/// Handshake params (`schemas/protocol/handshake.json#/$defs/params`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandshakeParams {
    pub protocol: ContractVersion,
    pub suite: SuiteIdentity,
    pub contract: ContractIdentity,
}

/// Handshake result (`schemas/protocol/handshake.json#/$defs/result`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandshakeResult {
    pub protocol: ContractVersion,
    /// `None` is written as `null`: no limit beyond the harness's own.
    pub max_request_bytes: Option<u64>,
    pub backend: BackendDescription,
}

/// True iff `raw` is `{"major": 1, "minor": <u16>}` (any minor of our major).
pub fn protocol_compatible(raw: &Value) -> bool {
    match raw.as_object() {
        Some(object) if object.len() == 2 => {
            object.get("major").and_then(Value::as_u64) == Some(u64::from(PROTOCOL_VERSION.major))
                && object.get("minor").and_then(Value::as_u64).map_or(false, |m| m <= u64::from(u16::MAX))
        }
        _ => false,
    }
}

/// `failure.code`: the exchange failed, not the contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureCode {
    /// The backend does not implement the operation (only for operations `describe` does not list).
    NotImplemented,
    /// The request line or its params are malformed.
    BadRequest,
    /// A request arrived before a successful handshake.
    HandshakeRequired,
    /// The backend failed for a reason outside the contract.
    Internal,
}

impl FailureCode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NotImplemented => "not_implemented",
            Self::BadRequest => "bad_request",
            Self::HandshakeRequired => "handshake_required",
            Self::Internal => "internal",
        }
    }
}

impl fmt::Display for FailureCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A `failure` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Failure {
    pub code: FailureCode,
    pub message: String,
}

/// One parsed request line.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub id: u64,
    pub op: String,
    pub params: Map<String, Value>,
}

/// A request line that cannot be served: its id when it could be read, and the failure to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestError {
    pub id: Option<u64>,
    pub failure: Failure,
}

fn bad_request(id: Option<u64>, message: impl Into<String>) -> RequestError {
    RequestError { id, failure: Failure { code: FailureCode::BadRequest, message: message.into() } }
}

impl Request {
    /// Parse one request line: a JSON object with exactly `id` (u64), `op` (string), `params` (object).
    pub fn parse(line: &[u8]) -> Result<Self, RequestError> {
        let raw = parse_strict(line, "decode request", None)
            .map_err(|e| bad_request(None, format!("request is not JSON: {e}")))?;
        let mut object = match raw {
            Value::Object(object) => object,
            _ => return Err(bad_request(None, "request must be a JSON object")),
        };
        let id = object
            .get("id")
            .and_then(Value::as_u64)
            .ok_or_else(|| bad_request(None, "request id must be an integer in 0..=2^64-1"))?;
        if object.len() != 3 || !object.contains_key("op") || !object.contains_key("params") {
            let keys: Vec<&String> = object.keys().collect();
            return Err(bad_request(Some(id), format!("request keys must be id, op, params; got {keys:?}")));
        }
        let op = match object.remove("op") {
            Some(Value::String(op)) => op,
            _ => return Err(bad_request(Some(id), "op must be a string")),
        };
        let params = match object.remove("params") {
            Some(Value::Object(params)) => params,
            _ => return Err(bad_request(Some(id), "params must be a JSON object")),
        };
        Ok(Self { id, op, params })
    }

    /// The request line, newline-terminated.
    pub fn to_line(&self) -> Vec<u8> {
        let value = serde_json::json!({"id": self.id, "op": self.op, "params": self.params});
        let mut line = serde_json::to_vec(&value).unwrap_or_default();
        line.push(b'\n');
        line
    }
}

/// What a reply carries besides its id.
#[derive(Debug, Clone, PartialEq)]
pub enum ReplyBody {
    Result(Map<String, Value>),
    Error(ErrorObject),
    Failure(Failure),
}

/// One reply line.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// `None` only for a failure whose request id could not be read.
    pub id: Option<u64>,
    pub body: ReplyBody,
}

impl Reply {
    pub fn result(id: u64, result: Map<String, Value>) -> Self {
        Self { id: Some(id), body: ReplyBody::Result(result) }
    }

    pub fn error(id: u64, error: &VNextError) -> Self {
        Self { id: Some(id), body: ReplyBody::Error(ErrorObject { error: error.clone(), message: Some(error.to_string()) }) }
    }

    pub fn failure(id: Option<u64>, code: FailureCode, message: impl Into<String>) -> Self {
        Self { id, body: ReplyBody::Failure(Failure { code, message: message.into() }) }
    }

    /// The reply as one compact JSON line, newline-terminated.
    pub fn to_line(&self) -> Vec<u8> {
        let mut object = Map::new();
        object.insert("id".to_string(), self.id.map_or(Value::Null, Value::from));
        let (key, body) = match &self.body {
            ReplyBody::Result(result) => ("result", Value::Object(result.clone())),
            ReplyBody::Error(error) => ("error", Value::Object(error.to_map())),
            ReplyBody::Failure(failure) => ("failure", serde_json::to_value(failure).unwrap_or(Value::Null)),
        };
        object.insert(key.to_string(), body);
        let mut line = serde_json::to_vec(&Value::Object(object)).unwrap_or_default();
        line.push(b'\n');
        line
    }

    /// Parse a reply line (as a client reads it).
    pub fn parse(line: &[u8]) -> Result<Self, String> {
        let raw = parse_strict(line, "decode reply", None).map_err(|e| format!("reply is not JSON: {e}"))?;
        let object = raw.as_object().ok_or("reply must be a JSON object")?;
        let bodies: Vec<&str> =
            ["result", "error", "failure"].iter().copied().filter(|k| object.contains_key(*k)).collect();
        if object.len() != 2 || !object.contains_key("id") || bodies.len() != 1 {
            return Err(format!("reply must have id and one of result, error, failure; got {:?}", object.keys().collect::<Vec<_>>()));
        }
        let id = match &object["id"] {
            Value::Null => None,
            other => Some(other.as_u64().ok_or("reply id must be a u64 or null")?),
        };
        let body = object[bodies[0]].as_object().ok_or("reply body must be a JSON object")?;
        let body = match bodies[0] {
            "result" => ReplyBody::Result(body.clone()),
            "error" => ReplyBody::Error(ErrorObject::from_map(body).map_err(|e| format!("invalid error object: {e}"))?),
            _ => ReplyBody::Failure(
                serde_json::from_value(Value::Object(body.clone())).map_err(|e| format!("invalid failure: {e}"))?,
            ),
        };
        if id.is_none() && !matches!(body, ReplyBody::Failure(_)) {
            return Err("only a failure reply may carry a null id".to_string());
        }
        Ok(Self { id, body })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn request_shapes() {
        let ok = Request::parse(br#"{"id":7,"op":"build_plan","params":{"scenario":{}}}"#).unwrap();
        assert_eq!((ok.id, ok.op.as_str()), (7, "build_plan"));
        let cases: [(&[u8], Option<u64>); 7] = [
            (b"nope", None),
            (b"[]", None),
            (br#"{"op":"x","params":{}}"#, None),
            (br#"{"id":-1,"op":"x","params":{}}"#, None),
            (br#"{"id":1,"op":"x","params":{},"extra":1}"#, Some(1)),
            (br#"{"id":1,"op":2,"params":{}}"#, Some(1)),
            (br#"{"id":1,"op":"x","params":[]}"#, Some(1)),
        ];
        for (line, id) in cases {
            let err = Request::parse(line).unwrap_err();
            assert_eq!(err.id, id, "{}", String::from_utf8_lossy(line));
            assert_eq!(err.failure.code, FailureCode::BadRequest);
        }
    }

    #[test]
    fn reply_lines_round_trip() {
        let replies = [
            Reply::result(1, json!({"fingerprint": "0".repeat(64)}).as_object().unwrap().clone()),
            Reply::error(2, &VNextError::invalid_execution_plan("r")),
            Reply::failure(None, FailureCode::BadRequest, "x"),
        ];
        for reply in replies {
            let line = reply.to_line();
            assert_eq!(line.last(), Some(&b'\n'));
            assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
            assert_eq!(Reply::parse(&line).unwrap(), reply);
        }
    }

    #[test]
    fn protocol_compatibility() {
        assert!(protocol_compatible(&json!({"major": 1, "minor": 0})));
        assert!(protocol_compatible(&json!({"major": 1, "minor": 9})));
        assert!(!protocol_compatible(&json!({"major": 2, "minor": 0})));
        assert!(!protocol_compatible(&json!({"major": 1})));
        assert!(!protocol_compatible(&json!({"major": 1, "minor": 70000})));
        assert!(!protocol_compatible(&json!("1.0")));
    }
}
