//! One file per subcommand. Each turns validated configuration into a run and hands the result
//! to `report`; no command imports another (`tests/report/layout.rs` keeps that true).

pub mod analyze;
pub mod compare;
pub mod db;
pub mod fill_sweep;
pub mod history;
pub mod info;
pub mod install;
pub mod probe;
pub mod recovery;
pub mod runs;
pub mod simulate;
pub mod sweep;

/// `--json` of a command that writes a run folder: its `summary.json`, handed to `main` to be
/// printed as one line on stdout once the run is recorded (with the `run_id` it got), so the
/// JSON and the file never differ.
pub(crate) fn print_summary_json(out: &std::path::Path) -> anyhow::Result<()> {
    use anyhow::Context as _;
    let path = out.join("summary.json");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let value =
        serde_json::from_str(&text).with_context(|| format!("reading {}", path.display()))?;
    crate::store::recorder::print_json(value, Some(out));
    Ok(())
}
