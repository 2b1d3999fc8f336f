//! `vnext-kit`: tools of the Rust backend kit.
//!
//! * `vnext-kit replay [--corpus DIR] [--golden FILE] -- COMMAND [ARGS...]`: replay the corpus
//!   bundles and golden vectors against a protocol backend; exit 0 iff none failed or was
//!   unpinned.
//! * `vnext-kit check [--corpus DIR] [--golden FILE]`: check the checked-in data natively
//!   (canonical form, names, pinned wires, golden agreement, scenario round trips).
//! * `vnext-kit roundtrip`: one scenario JSON per input line; answers one line each,
//!   `{"canonical_base64": ...}` (the canonical bytes of the scenario decoded into the kit's
//!   types and encoded again) or `{"error": <error object>}`.
//! * `vnext-kit serde-json`: one value per input line as a flat token list; answers the bytes
//!   serde_json writes for it (`serde_json::to_vec` of a `Value`, whose map is key-sorted) and
//!   the kit's canonical bytes (see `tests/kit_rust/test_kit_serde_json.py`).

use serde_json::{json, Map, Number, Value};
use std::io::{self, BufRead, Read, Write};
use std::process::ExitCode;

use vnext_conformance_kit::base64;
use vnext_conformance_kit::canonical::{canonical_bytes, parse_strict};
use vnext_conformance_kit::client::ExecClient;
use vnext_conformance_kit::replay::Corpus;
use vnext_conformance_kit::scenario::{Scenario, SCENARIO_CONTEXT};
use vnext_conformance_kit::VNextError;

const USAGE: &str = "usage: vnext-kit replay [--corpus DIR] [--golden FILE] -- COMMAND [ARGS...]
       vnext-kit check [--corpus DIR] [--golden FILE]
       vnext-kit roundtrip
       vnext-kit serde-json";
const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("replay") => replay(&args[1..]),
        Some("check") => check(&args[1..]),
        Some("roundtrip") => lines(roundtrip_line),
        Some("serde-json") => lines(serde_json_line),
        _ => Err(USAGE.to_string()),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("vnext-kit: {message}");
            ExitCode::from(2)
        }
    }
}

struct Paths {
    corpus: String,
    golden: String,
    rest: Vec<String>,
}

fn paths(args: &[String]) -> Result<Paths, String> {
    let mut out =
        Paths { corpus: "conformance/corpus".into(), golden: "conformance/golden/plan_hashes.json".into(), rest: vec![] };
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--corpus" | "--golden" => {
                let value = args.get(i + 1).ok_or_else(|| format!("{} needs a value\n{USAGE}", args[i]))?.clone();
                if args[i] == "--corpus" {
                    out.corpus = value;
                } else {
                    out.golden = value;
                }
                i += 2;
            }
            "--" => {
                out.rest = args[i + 1..].to_vec();
                break;
            }
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    Ok(out)
}

fn replay(args: &[String]) -> Result<ExitCode, String> {
    let paths = paths(args)?;
    if paths.rest.is_empty() {
        return Err(format!("replay needs the backend command after --\n{USAGE}"));
    }
    let corpus = Corpus::load(&paths.corpus, Some(&paths.golden))?;
    let mut client = ExecClient::spawn(&paths.rest).map_err(|e| e.to_string())?;
    let report = corpus.replay(&mut client);
    print!("{}", report.summary());
    Ok(if report.is_ok() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn check(args: &[String]) -> Result<ExitCode, String> {
    let paths = paths(args)?;
    let corpus = Corpus::load(&paths.corpus, Some(&paths.golden))?;
    let mut problems = corpus.check();
    problems.extend(corpus.scenario_round_trip_problems());
    for problem in &problems {
        println!("{problem}");
    }
    println!("{} bundles, {} scenarios checked: {} problems", corpus.entries.len(), corpus.scenarios().len(), problems.len());
    Ok(if problems.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// Answer each input line with one output line until end of input.
fn lines(answer: fn(&[u8]) -> Value) -> Result<ExitCode, String> {
    let stdin = io::stdin();
    let stdout = io::stdout();
    let mut input = stdin.lock();
    let mut output = stdout.lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = (&mut input).take(MAX_LINE_BYTES as u64 + 1).read_until(b'\n', &mut line).map_err(|e| e.to_string())?;
        if read == 0 {
            return Ok(ExitCode::SUCCESS);
        }
        let reply = if line.len() > MAX_LINE_BYTES {
            // Skip the rest of the over-long line so the next answer matches the next line.
            if !line.ends_with(b"\n") {
                discard_line(&mut input).map_err(|e| e.to_string())?;
            }
            json!({"error": VNextError::serialization(SCENARIO_CONTEXT, "line too long")})
        } else {
            answer(&line)
        };
        let mut text = serde_json::to_vec(&reply).map_err(|e| e.to_string())?;
        text.push(b'\n');
        output.write_all(&text).and_then(|()| output.flush()).map_err(|e| e.to_string())?;
    }
}

fn discard_line(input: &mut impl BufRead) -> io::Result<()> {
    loop {
        let available = input.fill_buf()?;
        if available.is_empty() {
            return Ok(());
        }
        match available.iter().position(|&b| b == b'\n') {
            Some(i) => {
                input.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = available.len();
                input.consume(n);
            }
        }
    }
}

fn roundtrip_line(line: &[u8]) -> Value {
    let decoded = parse_strict(line, SCENARIO_CONTEXT, Some(MAX_LINE_BYTES)).and_then(|raw| {
        Scenario::from_value(&raw).map_err(|e| VNextError::serialization(SCENARIO_CONTEXT, e.to_string()))
    });
    match decoded.and_then(|scenario| scenario.canonical_bytes()) {
        Ok(bytes) => json!({"canonical_base64": base64::encode(&bytes)}),
        Err(error) => json!({"error": error}),
    }
}

enum Frame {
    Array(Vec<Value>, usize),
    Object(Map<String, Value>, usize, Option<String>),
}

/// Build a value from its preorder token list, iteratively (any depth):
/// `["n"]`, `["b", bool]`, `["i", integer]`, `["f", "<16 hex digits of the f64 bits>"]`,
/// `["s", text]`, `["a", n]` then n values, `["o", n]` then n times `["k", key]` and a value.
fn build(tokens: &[Value]) -> Result<Value, String> {
    let mut stack: Vec<Frame> = Vec::new();
    let mut iter = tokens.iter();
    loop {
        let token = iter.next().ok_or("token list ended early")?;
        let items = token.as_array().ok_or("a token must be an array")?;
        let tag = items.first().and_then(Value::as_str).ok_or("a token starts with its tag")?;
        let arg = items.get(1);
        let count = || arg.and_then(Value::as_u64).map(|n| n as usize).ok_or("a container token needs a count");
        let mut value = match tag {
            "n" => Value::Null,
            "b" => Value::Bool(arg.and_then(Value::as_bool).ok_or("b needs a bool")?),
            "i" => match arg {
                Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Value::Number(n.clone()),
                _ => return Err("i needs an integer".into()),
            },
            "f" => {
                let bits = u64::from_str_radix(arg.and_then(Value::as_str).ok_or("f needs hex bits")?, 16)
                    .map_err(|e| e.to_string())?;
                Value::Number(Number::from_f64(f64::from_bits(bits)).ok_or("non-finite float has no JSON form")?)
            }
            "s" => Value::String(arg.and_then(Value::as_str).ok_or("s needs a string")?.to_string()),
            "a" if count()? == 0 => Value::Array(Vec::new()),
            "o" if count()? == 0 => Value::Object(Map::new()),
            "a" => {
                stack.push(Frame::Array(Vec::new(), count()?));
                continue;
            }
            "o" => {
                stack.push(Frame::Object(Map::new(), count()?, None));
                continue;
            }
            "k" => {
                let key = arg.and_then(Value::as_str).ok_or("k needs a string")?.to_string();
                match stack.last_mut() {
                    Some(Frame::Object(_, _, pending @ None)) => *pending = Some(key),
                    _ => return Err("a key outside an object".into()),
                }
                continue;
            }
            other => return Err(format!("unknown token {other:?}")),
        };
        // Put the value into its container; close every container it completes.
        loop {
            let full = match stack.last_mut() {
                None => {
                    return if iter.next().is_none() { Ok(value) } else { Err("tokens after the value".into()) };
                }
                Some(Frame::Array(items, remaining)) => {
                    items.push(value);
                    *remaining -= 1;
                    *remaining == 0
                }
                Some(Frame::Object(map, remaining, pending)) => {
                    let key = pending.take().ok_or("an object value without its key")?;
                    if map.insert(key, value).is_some() {
                        return Err("a duplicate key".into());
                    }
                    *remaining -= 1;
                    *remaining == 0
                }
            };
            if !full {
                break;
            }
            value = match stack.pop() {
                Some(Frame::Array(items, _)) => Value::Array(items),
                Some(Frame::Object(map, _, _)) => Value::Object(map),
                None => return Err("internal: no container to close".into()),
            };
        }
    }
}

fn serde_json_line(line: &[u8]) -> Value {
    let tokens: Vec<Value> = match serde_json::from_slice(line) {
        Ok(tokens) => tokens,
        Err(e) => return json!({"error": format!("not a token list: {e}")}),
    };
    let value = match build(&tokens) {
        Ok(value) => value,
        Err(e) => return json!({"error": e}),
    };
    // serde_json's own writer over its own Value (maps are BTreeMaps: keys in byte order).
    let plain = serde_json::to_vec(&value).unwrap_or_default();
    let mut out = json!({"serde_json_base64": base64::encode(&plain)});
    match canonical_bytes(&value) {
        Ok(kit) => out["kit_base64"] = Value::String(base64::encode(&kit)),
        Err(error) => out["kit_error"] = json!(error),
    }
    out
}
