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

/// The end of a command that wrote the run folder `out`, with `--json`: the folder's
/// `summary.json` handed to `main` to be printed as one line on stdout once the run is
/// recorded (with the `run_id` it got), so the JSON and the file never differ; the result
/// `text` and where the outputs are go to stderr.
pub(crate) fn print_json_done(out: &std::path::Path, text: &str) -> anyhow::Result<()> {
    use anyhow::Context as _;
    let path = out.join("summary.json");
    let summary =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let value =
        serde_json::from_str(&summary).with_context(|| format!("reading {}", path.display()))?;
    crate::store::recorder::print_json(value, Some(out));
    crate::note!("{}", text.trim_end_matches('\n'));
    crate::note!("outputs: {}", out.display());
    Ok(())
}
