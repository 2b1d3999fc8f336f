//! A protocol client: start a backend process, handshake, send requests, read replies.
//!
//! Used by the corpus replayer (`vnext-kit replay -- COMMAND`) and by the example backend's
//! forwarding mode. Reply lines are read with a byte cap; the child's stderr is inherited.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::fmt;
use std::io::{self, BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use crate::ops::{OpError, Operation};
use crate::protocol::{
    BackendDescription, ContractIdentity, FailureCode, HandshakeResult, Reply, ReplyBody, Request,
    DEFAULT_MAX_REPLY_BYTES, HANDSHAKE_OP, PROTOCOL_VERSION,
};

/// Why the exchange with the backend process failed.
#[derive(Debug)]
pub enum ClientError {
    Spawn(io::Error),
    Io(io::Error),
    /// The process closed its stdout while a reply was pending.
    Closed,
    /// A reply line longer than the cap.
    Oversized(u64),
    /// Not a reply, or a reply with another id.
    Malformed(String),
    /// The handshake was refused or malformed.
    Handshake(String),
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Spawn(e) => write!(f, "cannot start the backend: {e}"),
            Self::Io(e) => write!(f, "backend pipe failed: {e}"),
            Self::Closed => f.write_str("the backend closed its stdout"),
            Self::Oversized(cap) => write!(f, "reply line exceeds {cap} bytes"),
            Self::Malformed(text) => write!(f, "malformed reply: {text}"),
            Self::Handshake(text) => write!(f, "handshake failed: {text}"),
        }
    }
}

impl std::error::Error for ClientError {}

/// A running protocol backend.
pub struct ExecClient {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
    max_reply_bytes: u64,
    max_request_bytes: Option<u64>,
    description: BackendDescription,
}

impl ExecClient {
    /// Start `argv` and handshake with it.
    pub fn spawn(argv: &[String]) -> Result<Self, ClientError> {
        let (program, args) = argv.split_first().ok_or_else(|| ClientError::Handshake("empty command".into()))?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(ClientError::Spawn)?;
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().ok_or(ClientError::Closed)?);
        let placeholder = BackendDescription {
            implementation: crate::protocol::Implementation {
                name: String::new(),
                version: String::new(),
                language: String::new(),
            },
            contract: ContractIdentity::suite(),
            operations: Vec::new(),
            limits: Default::default(),
        };
        let mut client = Self {
            child,
            stdin,
            stdout,
            next_id: 0,
            max_reply_bytes: DEFAULT_MAX_REPLY_BYTES,
            max_request_bytes: None,
            description: placeholder,
        };
        client.handshake()?;
        Ok(client)
    }

    fn handshake(&mut self) -> Result<(), ClientError> {
        let params = json!({
            "protocol": PROTOCOL_VERSION,
            "suite": {"name": "vnext-conformance", "version": env!("CARGO_PKG_VERSION")},
            "contract": ContractIdentity::suite(),
        });
        let body = self.request(HANDSHAKE_OP, params.as_object().cloned().unwrap_or_default())?;
        let result = match body {
            ReplyBody::Result(result) => result,
            other => return Err(ClientError::Handshake(format!("{other:?}"))),
        };
        let result: HandshakeResult =
            serde_json::from_value(Value::Object(result)).map_err(|e| ClientError::Handshake(e.to_string()))?;
        if result.protocol.major != PROTOCOL_VERSION.major {
            return Err(ClientError::Handshake(format!("protocol {} is not {}", result.protocol, PROTOCOL_VERSION)));
        }
        self.max_request_bytes = result.max_request_bytes;
        self.description = result.backend;
        Ok(())
    }

    /// The backend's `describe` result from the handshake.
    pub fn description(&self) -> &BackendDescription {
        &self.description
    }

    /// The operations the backend lists (those this kit knows).
    pub fn operations(&self) -> Vec<Operation> {
        self.description.operations.iter().filter_map(|name| Operation::from_name(name)).collect()
    }

    /// Send one request and read its reply.
    pub fn request(&mut self, op: &str, params: Map<String, Value>) -> Result<ReplyBody, ClientError> {
        let id = self.next_id;
        self.next_id += 1;
        let line = Request { id, op: op.to_string(), params }.to_line();
        if let Some(cap) = self.max_request_bytes {
            if line.len() as u64 > cap {
                return Err(ClientError::Malformed(format!(
                    "request of {} bytes exceeds the backend's {cap}",
                    line.len()
                )));
            }
        }
        let stdin = self.stdin.as_mut().ok_or(ClientError::Closed)?;
        stdin.write_all(&line).map_err(ClientError::Io)?;
        stdin.flush().map_err(ClientError::Io)?;
        let reply = Reply::parse(&self.read_reply_line()?).map_err(ClientError::Malformed)?;
        if reply.id != Some(id) && !(reply.id.is_none() && matches!(reply.body, ReplyBody::Failure(_))) {
            return Err(ClientError::Malformed(format!("reply id {:?} is not the request id {id}", reply.id)));
        }
        Ok(reply.body)
    }

    fn read_reply_line(&mut self) -> Result<Vec<u8>, ClientError> {
        let mut line = Vec::new();
        let cap = usize::try_from(self.max_reply_bytes).unwrap_or(usize::MAX);
        loop {
            let available = self.stdout.fill_buf().map_err(ClientError::Io)?;
            if available.is_empty() {
                return Err(ClientError::Closed);
            }
            let (take, done) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (available.len(), false),
            };
            if line.len() + take > cap {
                return Err(ClientError::Oversized(self.max_reply_bytes));
            }
            line.extend_from_slice(&available[..take]);
            self.stdout.consume(take);
            if done {
                return Ok(line);
            }
        }
    }

    /// Call a typed operation; contract errors come back as [`OpError::Contract`].
    pub fn call<P: Serialize, R: DeserializeOwned>(&mut self, op: Operation, params: &P) -> Result<R, OpError> {
        let params = match serde_json::to_value(params) {
            Ok(Value::Object(params)) => params,
            _ => return Err(OpError::Internal("params are not a JSON object".to_string())),
        };
        match self.request(op.name(), params) {
            Ok(ReplyBody::Result(result)) => serde_json::from_value(Value::Object(result))
                .map_err(|e| OpError::Internal(format!("{} result: {e}", op.name()))),
            Ok(ReplyBody::Error(error)) => Err(OpError::Contract(error.error)),
            Ok(ReplyBody::Failure(failure)) if failure.code == FailureCode::NotImplemented => {
                Err(OpError::NotImplemented)
            }
            Ok(ReplyBody::Failure(failure)) => Err(OpError::Internal(format!("{}: {}", failure.code, failure.message))),
            Err(e) => Err(OpError::Internal(format!("{} forwarding: {e}", op.name()))),
        }
    }
}

impl Drop for ExecClient {
    fn drop(&mut self) {
        // Closing stdin asks the backend to exit (end of input); reap it, or kill it after 2 s.
        self.stdin.take();
        for _ in 0..200 {
            match self.child.try_wait() {
                Ok(Some(_)) | Err(_) => return,
                Ok(None) => std::thread::sleep(std::time::Duration::from_millis(10)),
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
