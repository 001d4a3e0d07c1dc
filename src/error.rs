//! Errors that decide the exit code. Everything else is a runtime failure (exit 1).

/// A mistake in what the user asked for (bad flag value, bad input file): exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// The run was interrupted (Ctrl-C, SIGTERM) after its outputs were written: exit code 130.
#[derive(Debug, thiserror::Error)]
#[error("interrupted; outputs written so far are in {0}")]
pub struct Interrupted(pub String);

/// The run was interrupted before anything was measured (during `--prefill` or
/// `--idle-before`): exit code 130, no outputs.
#[derive(Debug, thiserror::Error)]
#[error("interrupted {0}, before anything was measured; no outputs were written")]
pub struct InterruptedEarly(pub String);

/// Exit code for an error returned by a subcommand: 2 for [`UsageError`] (also when wrapped
/// in context) and a bad input file, 130 for [`Interrupted`], 1 otherwise. Errors of the
/// modules above this one that are a mistake in what was asked (a run id the results store
/// does not hold) are told apart by [`exit_code_with`].
pub fn exit_code(err: &anyhow::Error) -> i32 {
    exit_code_with(err, |_| false)
}

/// [`exit_code`], with `is_usage` saying which other errors in the chain are a mistake in
/// what was asked (exit code 2), as a missing file is: `main` gives the results store's
/// [`crate::store::is_usage`], so that this bottom module needs no type of the store.
pub fn exit_code_with(
    err: &anyhow::Error,
    is_usage: impl Fn(&(dyn std::error::Error + 'static)) -> bool,
) -> i32 {
    for cause in err.chain() {
        if cause.is::<UsageError>() || cause.is::<crate::units::ParseError>() {
            return 2;
        }
        if cause.is::<crate::timeline::import::ImportError>() {
            return 2;
        }
        if is_usage(cause) {
            return 2;
        }
        if cause.is::<Interrupted>() || cause.is::<InterruptedEarly>() {
            return 130;
        }
    }
    1
}

/// Shorthand: a [`UsageError`] as an `anyhow::Error`.
pub fn usage(msg: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UsageError(msg.into()))
}
