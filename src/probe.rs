//! The `probe` subcommand. (Placeholder: being built.)

/// Runs `slccache probe`.
pub fn run(args: crate::cli::ProbeArgs) -> anyhow::Result<()> {
    let _ = args;
    anyhow::bail!("'probe' is not built yet")
}
