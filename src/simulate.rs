//! The `simulate` subcommand. (Placeholder: being built.)

/// Runs `slccache simulate`.
pub fn run(args: crate::cli::SimulateArgs) -> anyhow::Result<()> {
    let _ = args;
    anyhow::bail!("'simulate' is not built yet")
}
