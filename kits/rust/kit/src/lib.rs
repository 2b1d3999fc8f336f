//! # vnext-conformance-kit
//!
//! Everything a Rust implementation of the ferrum `vnext` planning contract needs to be run by
//! the vnext-conformance harness (`vnext-conformance run --backend "exec:YOUR-BINARY"`):
//!
//! * [`Backend`]: one method per protocol operation, each defaulting to *not implemented*;
//!   list the ones you override in [`Backend::operations`] and the kit answers `describe`.
//! * [`serve_stdio`]: the protocol loop (handshake, dispatch, one reply per request, protocol
//!   lines only on stdout, exit 0 at end of input).
//! * [`scenario`]: typed scenario documents covering `schemas/scenario.json`.
//! * [`VNextError`]: the contract's error catalogue, written as the protocol's error objects.
//! * [`canonical`]: canonical JSON and sha256 fingerprints equal to the reference's.
//! * [`replay`]: replay the checked-in corpus and golden vectors against a backend from
//!   `cargo test`, without Python.
//!
//! The walk-through is the "Write a backend in Rust" section of harness/PROTOCOL.md.

pub mod base64;
pub mod canonical;
pub mod client;
pub mod error;
pub mod ops;
pub mod protocol;
pub mod replay;
pub mod scenario;
pub mod server;
pub mod testing;

pub use error::{ErrorObject, VNextError};
pub use ops::{
    describe, Backend, CatalogFingerprint, CheckIdentityParams, CompilePlanParams, DecodeCatalogParams, DescribeParams,
    DeviceRuntimeScriptParams, ExecuteParams, ExecuteResult, FamilyFingerprint, IdentityChecked, JsonWire, LookupEngineProviderParams, OpError,
    OpResult, Operation, PlanHash, PlanWire, PreparedFamily, ProviderCompatibilityParams, RawScenario,
    RevalidateParams, ScenarioParams, Sha256Hex, StepAnswers, WeightPlan, WireBytes,
};
pub use protocol::{BackendDescription, ContractIdentity, Implementation};
pub use scenario::Scenario;
pub use server::{serve, serve_stdio, ServerOptions};
