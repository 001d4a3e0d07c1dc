//! The `compare` subcommand. (Placeholder: being built.)

/// Runs `slccache compare`.
pub fn run(args: crate::cli::CompareArgs) -> anyhow::Result<()> {
    let _ = args;
    anyhow::bail!("'compare' is not built yet")
}
