//! The `analyze` subcommand: read timelines, find the cliffs, print or write the results.

use anyhow::Result;

use crate::cli::AnalyzeArgs;

/// Runs `slccache analyze`.
pub fn run(args: AnalyzeArgs) -> Result<()> {
    for f in &args.files {
        let t = crate::timeline::import::load(f)?;
        let a = crate::detect::analyze(&t);
        if args.json {
            println!("{}", serde_json::to_string(&a)?);
        } else {
            println!("{}: {} samples", f.display(), t.samples.len());
        }
    }
    Ok(())
}
