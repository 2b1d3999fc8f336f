//! `vnext-kit-example`: serve the example backend on stdin/stdout.
//!
//! * `vnext-kit-example`: describe only.
//! * `vnext-kit-example --forward COMMAND [ARGS...]`: forward every operation COMMAND lists to it.

use std::process::ExitCode;

use vnext_conformance_kit::{serve_stdio, ServerOptions};
use vnext_kit_example::{DescribeOnly, Forwarding};

const USAGE: &str = "usage: vnext-kit-example [--forward COMMAND [ARGS...]]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None => serve_stdio(&mut DescribeOnly, ServerOptions::default()),
        Some("--forward") if args.len() > 1 => match Forwarding::spawn(&args[1..]) {
            Ok(mut backend) => serve_stdio(&mut backend, ServerOptions::default()),
            Err(e) => {
                eprintln!("vnext-kit-example: {e}");
                ExitCode::FAILURE
            }
        },
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}
