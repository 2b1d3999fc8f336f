//! What a backend author puts in `cargo test`: the operations list is honest, and the
//! checked-in corpus replays natively against the backend.

use std::path::PathBuf;

use vnext_conformance_kit::protocol::contract_limits;
use vnext_conformance_kit::replay::{Corpus, InProcess};
use vnext_conformance_kit::testing::check_operations;
use vnext_conformance_kit::{describe, Operation};
use vnext_kit_example::DescribeOnly;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

#[test]
fn operations_are_honest() {
    assert_eq!(check_operations(&mut DescribeOnly), Ok(()));
}

#[test]
fn describe_lists_only_describe_and_the_contract_limits() {
    let description = describe(&DescribeOnly);
    assert_eq!(description.operations, vec![Operation::Describe.name().to_string()]);
    assert_eq!(description.limits, contract_limits());
    assert_eq!(description.implementation.language, "rust");
}

#[test]
fn the_corpus_replays_natively() {
    let root = repo();
    let corpus =
        Corpus::load(root.join("conformance/corpus"), Some(root.join("conformance/golden/plan_hashes.json"))).unwrap();
    let report = corpus.replay(&mut InProcess(&mut DescribeOnly));
    assert!(report.is_ok(), "{}", report.summary());
    // Describe only: every bundle names a planning operation, so none applies.
    assert_eq!(report.counts(), (0, corpus.entries.len(), 0, 0));
}
