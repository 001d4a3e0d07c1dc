//! Built-in drive presets, each citing its row of `published-drives.csv`.

/// Prints the presets. (Placeholder until the drive model lands.)
pub fn print_presets() -> anyhow::Result<()> {
    anyhow::bail!("no presets yet")
}
