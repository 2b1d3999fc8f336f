//! The kit's tables agree with the project's JSON Schemas, read from the repository.

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;

use vnext_conformance_kit::error::ERROR_KINDS;
use vnext_conformance_kit::ops::describe;
use vnext_conformance_kit::{Backend, Implementation, Operation, VNextError};

fn schema(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../schemas").join(name);
    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()
}

fn strings(value: &Value) -> Vec<String> {
    value.as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect()
}

#[test]
fn every_error_variant_has_the_fields_of_error_json() {
    let schema = schema("error.json");
    let variants = schema["oneOf"].as_array().unwrap();
    let kinds: Vec<String> = variants.iter().map(|v| v["properties"]["kind"]["const"].as_str().unwrap().to_string()).collect();
    assert_eq!(kinds, ERROR_KINDS, "kinds and their order");
    for variant in variants {
        let kind = variant["properties"]["kind"]["const"].as_str().unwrap();
        let properties: BTreeSet<String> = variant["properties"].as_object().unwrap().keys().cloned().collect();
        let mut expected: BTreeSet<String> = VNextError::field_names(kind).unwrap().iter().map(|s| s.to_string()).collect();
        expected.insert("kind".into());
        expected.insert("message".into());
        assert_eq!(properties, expected, "{kind} properties");
        let required: BTreeSet<String> = strings(&variant["required"]).into_iter().collect();
        let mut fields: BTreeSet<String> = VNextError::field_names(kind).unwrap().iter().map(|s| s.to_string()).collect();
        fields.insert("kind".into());
        assert_eq!(required, fields, "{kind} required");
        assert_eq!(variant["additionalProperties"], false);
    }
}

#[test]
fn bundle_error_kinds_are_the_error_kinds() {
    let schema = schema("protocol/bundle.json");
    let kinds = strings(&schema["properties"]["expect"]["oneOf"][2]["properties"]["error"]["properties"]["kind"]["enum"]);
    assert_eq!(kinds, ERROR_KINDS);
}

#[test]
fn operations_are_the_protocol_operations() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../schemas/protocol/operations");
    let declared: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter_map(|file| file.strip_suffix(".json").map(str::to_string))
        .collect();
    for op in &declared {
        let params = &schema(&format!("protocol/operations/{op}.json"))["$defs"]["params"];
        assert!(params.is_object(), "{op} declares its params");
    }
    let names: Vec<String> = Operation::ALL.iter().map(|op| op.name().to_string()).collect();
    assert_eq!(names[0], "describe", "describe comes first");
    assert_eq!(names.iter().cloned().collect::<BTreeSet<_>>(), declared);
    assert_eq!(names.len(), declared.len(), "no operation twice");
    let request = schema("protocol/request.json");
    assert_eq!(request["oneOf"][0]["properties"]["op"]["const"], "handshake");
    let failure_codes = strings(&schema_failure_codes());
    assert_eq!(failure_codes, ["not_implemented", "bad_request", "handshake_required", "internal"]);
}

fn schema_failure_codes() -> Value {
    schema("protocol/reply.json")["oneOf"][2]["properties"]["failure"]["properties"]["code"]["enum"].clone()
}

struct Empty;

impl Backend for Empty {
    fn implementation(&self) -> Implementation {
        Implementation { name: "e".into(), version: "1.0.0".into(), language: "rust".into() }
    }
    fn operations(&self) -> Vec<Operation> {
        Vec::new()
    }
}

#[test]
fn the_description_has_the_keys_of_describe_json() {
    let schema = schema("protocol/describe.json");
    let required: BTreeSet<String> = strings(&schema["required"]).into_iter().collect();
    let written = serde_json::to_value(describe(&Empty)).unwrap();
    let keys: BTreeSet<String> = written.as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys, required);
    for block in ["implementation", "contract"] {
        let required: BTreeSet<String> =
            strings(&schema["properties"][block]["required"]).into_iter().collect();
        let keys: BTreeSet<String> = written[block].as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, required, "{block}");
    }
}

#[test]
fn scenario_keys_are_the_schema_keys() {
    let schema = schema("scenario.json");
    let required: Vec<String> = strings(&schema["required"]);
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../conformance/corpus/seed_plan_fixture_0.json");
    let bundle: Value = serde_json::from_slice(&std::fs::read(corpus).unwrap()).unwrap();
    let typed = vnext_conformance_kit::Scenario::from_value(&bundle["params"]["scenario"]).unwrap();
    let written = typed.to_value();
    let mut keys: Vec<String> = written.as_object().unwrap().keys().cloned().collect();
    let mut expected = required;
    keys.sort();
    expected.sort();
    assert_eq!(keys, expected);
}
