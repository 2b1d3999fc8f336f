//! Checks a backend author puts in `cargo test`.

use crate::ops::{call_operation, describe, Backend, Call, Operation};
use crate::protocol::contract_limits;

/// Verify that [`Backend::operations`] lists exactly the overridden methods.
///
/// Every operation is called with the probe params of [`Operation::probe_params`] (an empty,
/// malformed scenario). A listed operation must answer something other than "not
/// implemented" (normally the contract error `serialization`/`decode scenario`); an unlisted
/// one must be the trait default. Returns one line per disagreement.
pub fn check_operations<B: Backend + ?Sized>(backend: &mut B) -> Result<(), Vec<String>> {
    let declared = backend.operations();
    let mut problems = Vec::new();
    for &op in Operation::ALL {
        if op == Operation::Describe {
            continue;
        }
        let call = call_operation(backend, op, op.probe_params());
        let implemented = !matches!(call, Call::NotImplemented);
        let listed = declared.contains(&op);
        if listed && !implemented {
            problems.push(format!("{} is listed by operations() but its method is not overridden", op.name()));
        }
        if implemented && !listed {
            problems.push(format!("{} is overridden but not listed by operations()", op.name()));
        }
        if listed && matches!(call, Call::Result(_)) {
            problems.push(format!("{} accepted an empty scenario (decision H-5 asks for a contract error)", op.name()));
        }
        if let Call::Internal(message) | Call::BadRequest(message) = &call {
            problems.push(format!("{} answered an empty scenario outside the contract: {message}", op.name()));
        }
    }
    if declared.contains(&Operation::Describe) {
        problems.push("describe is answered by the kit; do not list it".to_string());
    }
    let description = describe(&*backend);
    let limits = contract_limits();
    for (name, value) in &limits {
        if description.limits.get(name) != Some(value) {
            problems.push(format!("describe.limits.{name} must be {value}"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}
