//! The protocol loop, driven line by line in memory.

use serde_json::{json, Value};
use std::io::Cursor;

use vnext_conformance_kit::protocol::{Reply, ReplyBody};
use vnext_conformance_kit::testing::check_operations;
use vnext_conformance_kit::{
    serve, Backend, CatalogFingerprint, Implementation, OpResult, Operation, PlanWire, ScenarioParams, ServerOptions,
    Sha256Hex, VNextError, WireBytes,
};

/// Lists build_plan and fingerprint_catalog; build_plan echoes the scenario name, a scenario
/// named "panic" panics, one named "bad" is a contract error; fingerprint_catalog is listed
/// but not overridden (a mistake the loop must make visible).
struct Toy;

impl Backend for Toy {
    fn implementation(&self) -> Implementation {
        Implementation { name: "toy".into(), version: "1.0.0".into(), language: "rust".into() }
    }
    fn operations(&self) -> Vec<Operation> {
        vec![Operation::FingerprintCatalog, Operation::BuildPlan]
    }
    fn build_plan(&mut self, params: ScenarioParams) -> OpResult<PlanWire> {
        match params.scenario.json().get("name").and_then(Value::as_str) {
            Some("panic") => panic!("toy panic"),
            Some("bad") => Err(VNextError::InvalidIdentity {
                identity_kind: "node".into(),
                value: "a b".into(),
                reason: "identity contains a non-portable character".into(),
            }
            .into()),
            Some(name) => Ok(PlanWire { wire_base64: WireBytes(name.as_bytes().to_vec()) }),
            None => Err(VNextError::serialization("decode scenario", "no name").into()),
        }
    }
}

const HANDSHAKE: &str = r#"{"id":0,"op":"handshake","params":{"protocol":{"major":1,"minor":0},"suite":{"name":"vnext-conformance","version":"0.1.0"},"contract":{"crate":"ferrum-interfaces","version":"0.12.2","module":"vnext","plan_schema":{"major":8,"minor":1}}}}"#;

fn run(input: &str, options: ServerOptions) -> Vec<Reply> {
    let mut output = Vec::new();
    serve(&mut Toy, Cursor::new(input.as_bytes().to_vec()), &mut output, options).unwrap();
    assert!(output.is_empty() || output.ends_with(b"\n"));
    output.split(|&b| b == b'\n').filter(|l| !l.is_empty()).map(|l| Reply::parse(l).unwrap()).collect()
}

fn after_handshake(lines: &[&str]) -> Vec<Reply> {
    let mut input = String::from(HANDSHAKE);
    input.push('\n');
    for line in lines {
        input.push_str(line);
        input.push('\n');
    }
    let mut replies = run(&input, ServerOptions::default());
    assert!(matches!(replies.remove(0).body, ReplyBody::Result(_)));
    replies
}

fn failure_code(reply: &Reply) -> &'static str {
    match &reply.body {
        ReplyBody::Failure(f) => f.code.as_str(),
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[test]
fn handshake_describes_the_backend() {
    let replies = run(&format!("{HANDSHAKE}\n"), ServerOptions { max_request_bytes: 4096 });
    let result = match &replies[0].body {
        ReplyBody::Result(r) => Value::Object(r.clone()),
        other => panic!("{other:?}"),
    };
    assert_eq!(replies[0].id, Some(0));
    assert_eq!(result["protocol"], json!({"major": 1, "minor": 0}));
    assert_eq!(result["max_request_bytes"], 4096);
    assert_eq!(result["backend"]["operations"], json!(["build_plan", "describe", "fingerprint_catalog"]));
    assert_eq!(result["backend"]["contract"]["crate"], "ferrum-interfaces");
    assert_eq!(result["backend"]["limits"].as_object().unwrap().len(), 4);
}

#[test]
fn requests_before_the_handshake_are_refused() {
    let replies = run("{\"id\":3,\"op\":\"describe\",\"params\":{}}\n", ServerOptions::default());
    assert_eq!((replies[0].id, failure_code(&replies[0])), (Some(3), "handshake_required"));
    let wrong = HANDSHAKE.replace("\"major\":1,\"minor\":0}", "\"major\":2,\"minor\":0}");
    let replies = run(&format!("{wrong}\n{{\"id\":1,\"op\":\"describe\",\"params\":{{}}}}\n"), ServerOptions::default());
    assert_eq!(failure_code(&replies[0]), "bad_request");
    assert_eq!(failure_code(&replies[1]), "handshake_required");
}

#[test]
fn one_reply_per_request_and_blank_lines_are_ignored() {
    let replies = after_handshake(&[
        "",
        "   \t",
        "\r",
        r#"{"id":1,"op":"describe","params":{}}"#,
        "",
        r#"{"id":2,"op":"build_plan","params":{"scenario":{"name":"plan"}}}"#,
    ]);
    assert_eq!(replies.len(), 2);
    assert_eq!(replies[1].id, Some(2));
    match &replies[1].body {
        ReplyBody::Result(r) => assert_eq!(r["wire_base64"], "cGxhbg=="),
        other => panic!("{other:?}"),
    }
}

#[test]
fn failures_carry_the_protocol_codes() {
    let replies = after_handshake(&[
        "not json",
        r#"{"id":1,"op":"no_such_op","params":{}}"#,
        r#"{"id":2,"op":"revalidate","params":{"scenario":{},"wire_base64":""}}"#,
        r#"{"id":3,"op":"fingerprint_catalog","params":{"scenario":{}}}"#,
        r#"{"id":4,"op":"build_plan","params":{"scenario":[]}}"#,
        r#"{"id":5,"op":"build_plan","params":{"scenario":{},"extra":1}}"#,
        r#"{"id":6,"op":"describe","params":{"x":1}}"#,
        r#"{"id":7,"op":"build_plan","params":{"scenario":{"name":"panic"}}}"#,
        r#"{"id":8,"op":"build_plan","params":{"scenario":{"name":"after"}}}"#,
    ]);
    let got: Vec<(Option<u64>, &str)> = replies
        .iter()
        .map(|r| (r.id, if let ReplyBody::Failure(f) = &r.body { f.code.as_str() } else { "ok" }))
        .collect();
    assert_eq!(
        got,
        vec![
            (None, "bad_request"),
            (Some(1), "not_implemented"),
            (Some(2), "not_implemented"),
            (Some(3), "internal"),
            (Some(4), "bad_request"),
            (Some(5), "bad_request"),
            (Some(6), "bad_request"),
            (Some(7), "internal"),
            (Some(8), "ok"),
        ]
    );
}

#[test]
fn contract_errors_are_error_objects() {
    let replies = after_handshake(&[r#"{"id":1,"op":"build_plan","params":{"scenario":{"name":"bad"}}}"#]);
    match &replies[0].body {
        ReplyBody::Error(e) => {
            let object = Value::Object(e.to_map());
            assert_eq!(object["kind"], "invalid_identity");
            assert_eq!(object["identity_kind"], "node");
            assert!(object["message"].is_string());
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn over_long_lines_are_discarded_whole() {
    let long = format!(r#"{{"id":1,"op":"build_plan","params":{{"scenario":{{"name":"{}"}}}}}}"#, "x".repeat(5000));
    let input = format!("{HANDSHAKE}\n{long}\n{}\n", r#"{"id":2,"op":"build_plan","params":{"scenario":{"name":"ok"}}}"#);
    let replies = run(&input, ServerOptions { max_request_bytes: 1024 });
    assert_eq!(replies.len(), 3, "{replies:?}");
    assert_eq!((replies[1].id, failure_code(&replies[1])), (None, "bad_request"));
    assert_eq!(replies[2].id, Some(2));
    // The cap counts the newline: a line of exactly the cap is accepted, one byte more is not.
    let line = format!(r#"{{"id":2,"op":"build_plan","params":{{"scenario":{{"name":"{}"}}}}}}"#, "y".repeat(100));
    let fits = ServerOptions { max_request_bytes: line.len() as u64 + 1 };
    let replies = run(&format!("{line}\n"), ServerOptions { max_request_bytes: line.len() as u64 });
    assert_eq!((replies[0].id, failure_code(&replies[0])), (None, "bad_request"));
    let replies = run(&format!("{line}\n"), fits);
    assert_eq!((replies[0].id, failure_code(&replies[0])), (Some(2), "handshake_required"));
}

#[test]
fn a_last_line_without_newline_is_served_and_end_of_input_ends_the_loop() {
    let input = format!("{HANDSHAKE}\n{}", r#"{"id":1,"op":"describe","params":{}}"#);
    let replies = run(&input, ServerOptions::default());
    assert_eq!(replies.len(), 2);
    assert!(run("", ServerOptions::default()).is_empty());
}

/// Lists exactly what it overrides and answers an empty scenario with a contract error.
struct Honest;

impl Backend for Honest {
    fn implementation(&self) -> Implementation {
        Implementation { name: "honest".into(), version: "1.0.0".into(), language: "rust".into() }
    }
    fn operations(&self) -> Vec<Operation> {
        vec![Operation::FingerprintCatalog]
    }
    fn fingerprint_catalog(&mut self, params: ScenarioParams) -> OpResult<CatalogFingerprint> {
        params.scenario.decode()?;
        Ok(CatalogFingerprint { fingerprint: Sha256Hex::of(b"") })
    }
}

/// Overrides build_plan without listing it.
struct Unlisted;

impl Backend for Unlisted {
    fn implementation(&self) -> Implementation {
        Implementation { name: "unlisted".into(), version: "1.0.0".into(), language: "rust".into() }
    }
    fn operations(&self) -> Vec<Operation> {
        Vec::new()
    }
    fn build_plan(&mut self, _: ScenarioParams) -> OpResult<PlanWire> {
        Err(VNextError::serialization("decode scenario", "x").into())
    }
}

#[test]
fn check_operations_finds_every_disagreement() {
    assert_eq!(check_operations(&mut Honest), Ok(()));
    let toy = check_operations(&mut Toy).unwrap_err();
    assert_eq!(toy, vec!["fingerprint_catalog is listed by operations() but its method is not overridden".to_string()]);
    let unlisted = check_operations(&mut Unlisted).unwrap_err();
    assert_eq!(unlisted, vec!["build_plan is overridden but not listed by operations()".to_string()]);
}
