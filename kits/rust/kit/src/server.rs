//! The protocol loop: read one request line, write one reply line, until end of input.
//!
//! * Lines are read with a byte cap (`max_request_bytes`, newline included); a longer line is
//!   discarded up to its newline and answered `failure`/`bad_request` with a `null` id.
//! * Blank lines (only spaces, tabs, carriage returns) are ignored and get no reply.
//! * The first request must be the handshake (`failure`/`handshake_required` otherwise); a
//!   handshake with another protocol major is answered `failure`/`bad_request`.
//! * An operation `describe` does not list is answered `failure`/`not_implemented` without
//!   calling the backend; a listed operation whose method is the trait default is answered
//!   `failure`/`internal` (listing it was a mistake the harness must see). A panic in a
//!   method is caught and answered `failure`/`internal`; its message goes to stderr.
//! * Only reply lines are written to the output, each flushed at once. End of input returns
//!   `Ok(())` (exit status 0).

use serde_json::{Map, Value};
use std::io::{self, BufRead, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::ExitCode;

use crate::ops::{call_operation, describe, Backend, Call, Operation};
use crate::protocol::{
    protocol_compatible, FailureCode, HandshakeResult, Reply, Request, DEFAULT_MAX_REQUEST_BYTES, HANDSHAKE_OP,
    PROTOCOL_VERSION,
};

/// Server settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerOptions {
    /// The longest request line accepted, newline included; reported in the handshake.
    pub max_request_bytes: u64,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self { max_request_bytes: DEFAULT_MAX_REQUEST_BYTES }
    }
}

enum Incoming {
    End,
    Request(Vec<u8>),
    TooLong(usize),
}

/// Read one line of at most `max` bytes (newline included) without buffering more than that.
fn read_line(input: &mut impl BufRead, max: usize) -> io::Result<Incoming> {
    let mut line = Vec::new();
    let mut seen = 0usize;
    let mut overflow = false;
    loop {
        let available = match input.fill_buf() {
            Ok(available) => available,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            if seen == 0 {
                return Ok(Incoming::End);
            }
            // A final line without a newline counts as if it had one.
            return Ok(if overflow || seen + 1 > max { Incoming::TooLong(seen) } else { Incoming::Request(line) });
        }
        let (chunk, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..=i], true),
            None => (available, false),
        };
        let take = chunk.len();
        seen += take;
        if seen > max {
            overflow = true;
            line = Vec::new();
        } else if !overflow {
            line.extend_from_slice(chunk);
        }
        input.consume(take);
        if done {
            return Ok(if overflow { Incoming::TooLong(seen) } else { Incoming::Request(line) });
        }
    }
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
}

/// Serve requests from `input` to `output` until end of input.
pub fn serve<B: Backend + ?Sized>(
    backend: &mut B,
    mut input: impl BufRead,
    mut output: impl Write,
    options: ServerOptions,
) -> io::Result<()> {
    let max = usize::try_from(options.max_request_bytes).unwrap_or(usize::MAX);
    let mut handshaken = false;
    loop {
        let reply = match read_line(&mut input, max)? {
            Incoming::End => return Ok(()),
            Incoming::TooLong(seen) => Reply::failure(
                None,
                FailureCode::BadRequest,
                format!("request line of {seen} bytes exceeds {max} bytes"),
            ),
            Incoming::Request(line) if is_blank(&line) => continue,
            Incoming::Request(line) => match Request::parse(&line) {
                Err(e) => Reply { id: e.id, body: crate::protocol::ReplyBody::Failure(e.failure) },
                Ok(request) if request.op == HANDSHAKE_OP => {
                    let (reply, ok) = handshake(&*backend, &request, options);
                    handshaken = ok;
                    reply
                }
                Ok(request) if !handshaken => Reply::failure(
                    Some(request.id),
                    FailureCode::HandshakeRequired,
                    "the first request must be the handshake",
                ),
                Ok(request) => dispatch(backend, request),
            },
        };
        output.write_all(&reply.to_line())?;
        output.flush()?;
    }
}

fn handshake<B: Backend + ?Sized>(backend: &B, request: &Request, options: ServerOptions) -> (Reply, bool) {
    let protocol = request.params.get("protocol").cloned().unwrap_or(Value::Null);
    if !protocol_compatible(&protocol) {
        let reply = Reply::failure(
            Some(request.id),
            FailureCode::BadRequest,
            format!("unsupported protocol {protocol}; this server speaks {PROTOCOL_VERSION}"),
        );
        return (reply, false);
    }
    let result = HandshakeResult {
        protocol: PROTOCOL_VERSION,
        max_request_bytes: Some(options.max_request_bytes),
        backend: describe(backend),
    };
    match serde_json::to_value(result) {
        Ok(Value::Object(result)) => (Reply::result(request.id, result), true),
        _ => (Reply::failure(Some(request.id), FailureCode::Internal, "description has no JSON form"), false),
    }
}

/// How the backend answers one operation call, as the reply body it becomes.
pub fn answer<B: Backend + ?Sized>(backend: &mut B, op: &str, params: Map<String, Value>) -> crate::protocol::ReplyBody {
    use crate::protocol::{Failure, ReplyBody};
    let failure = |code, message: String| ReplyBody::Failure(Failure { code, message });
    let operation = match Operation::from_name(op) {
        Some(operation) => operation,
        None => return failure(FailureCode::NotImplemented, format!("unknown operation {op:?}")),
    };
    if operation != Operation::Describe && !backend.operations().contains(&operation) {
        return failure(FailureCode::NotImplemented, format!("operation {op:?} is not implemented"));
    }
    let call = catch_unwind(AssertUnwindSafe(|| call_operation(backend, operation, params)));
    match call {
        Ok(Call::Result(result)) => ReplyBody::Result(result),
        Ok(Call::Error(error)) => {
            ReplyBody::Error(crate::error::ErrorObject { message: Some(error.to_string()), error })
        }
        Ok(Call::BadRequest(message)) => failure(FailureCode::BadRequest, format!("{op} params: {message}")),
        Ok(Call::NotImplemented) => failure(
            FailureCode::Internal,
            format!("operation {op:?} is listed by Backend::operations but its method is not overridden"),
        ),
        Ok(Call::Internal(message)) => failure(FailureCode::Internal, message),
        Err(panic) => {
            let text = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".to_string());
            failure(FailureCode::Internal, format!("the backend panicked: {text}"))
        }
    }
}

fn dispatch<B: Backend + ?Sized>(backend: &mut B, request: Request) -> Reply {
    Reply { id: Some(request.id), body: answer(backend, &request.op, request.params) }
}

/// Serve on stdin/stdout until end of input. Returns the process exit status: success at end
/// of input, failure (after a line on stderr) if stdin or stdout fail.
pub fn serve_stdio<B: Backend + ?Sized>(backend: &mut B, options: ServerOptions) -> ExitCode {
    let stdin = io::stdin();
    let stdout = io::stdout();
    let result = serve(backend, stdin.lock(), stdout.lock(), options);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("vnext-conformance-kit: protocol stream failed: {e}");
            ExitCode::FAILURE
        }
    }
}
