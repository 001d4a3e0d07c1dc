//! The `sweep` subcommand: one short point per combination of queue depth, job count and
//! read share (or the CrystalDiskMark table with `--preset cdm`), with the same engine, the
//! same sampler and the same models as `probe`.
//!
//! Each point reports IOPS, throughput, latency p50/p99 over all its I/Os, the writer's CPU
//! (thread CPU time of the job threads over the point's wall time, percent of one core) and
//! whether the SLC cache ran out during it (`crossed_cliff`): a write point that crossed the
//! cliff measured two things. The saturation point is the smallest `QD x jobs` that reaches
//! 95% of the best IOPS (among the points of the best point's pattern, block size and mix).
//!
//! On an emulated drive every point starts from the drive's fresh state, as after a long
//! idle: the cache is whole again. `--simulate` runs the points in virtual time with the
//! simulator; without it they run in real time on the emulated backend. On files and block
//! devices the points run one after another with no pause: a write point may start with the
//! cache already used by the points before it; `--max-bytes-per-point` keeps each point small.

use std::path::PathBuf;
use std::sync::atomic::Ordering;

use anyhow::{Context, Result};

use crate::cli::SweepArgs;
use crate::device::{self, OpenRequest};
use crate::error::{usage, Interrupted};
use crate::experiment::signals::Signals;
use crate::experiment::sweep::{run_point_real, saturation, saturations, simulate_point, truth};
use crate::model::{presets, DriveModel};
use crate::report::outputs::sweep::us_text;
use crate::results::sweep::{Sweep, SweepConfig, SweepPoint, SweepSummary, UnfinishedPoint};
use crate::units::{format_bytes, format_rate, format_seconds, UnitSystem};

/// Runs `slccache sweep`.
pub fn run(args: SweepArgs) -> Result<()> {
    let crate::cli::resolve::SweepPlan {
        grid,
        point_duration: duration,
        max_bytes,
        cdm_region,
        opts,
        seed,
        engine,
    } = crate::cli::resolve::sweep_plan(&args)?;
    let mut notes: Vec<String> = Vec::new();
    let any_reads = grid.iter().any(|p| p.read_pct > 0);
    let any_writes = grid.iter().any(|p| p.read_pct < 100);

    // The model, for emulated targets (and required by --simulate).
    // With --simulate, a bare preset (`960evo-500g`) means the same as `emu:960evo-500g`.
    let spec = args
        .target
        .strip_prefix("emu:")
        .or(args.simulate.then_some(args.target.as_str()));
    let model: Option<DriveModel> = match (spec, args.simulate) {
        (Some(s), _) => Some(presets::parse_spec(s).map_err(|e| {
            if args.simulate && !args.target.starts_with("emu:") {
                usage(format!(
                    "--simulate needs a drive model (a preset such as 960evo-500g, or \
                     emu:PRESET), not {}: {e:#}",
                    args.target
                ))
            } else {
                e
            }
        })?),
        (None, _) => None,
    };
    let mut points = Vec::new();
    let mut interrupted = false;
    let mut unfinished: Option<UnfinishedPoint> = None;
    let out_dir;
    let quiet = args.quiet;
    let say = |line: &str| {
        if !quiet {
            crate::note!("{line}");
        }
    };
    if args.write.destroy_data && !quiet {
        let model = args
            .simulate
            .then_some("a drive model run in virtual time (--simulate)");
        if let Some(n) = device::destroy_data_note(&args.target, model) {
            crate::note!("{n}");
        }
    }
    if let (true, Some(m)) = (args.simulate, &model) {
        // Every point's block size before the first point runs, as a real target's are.
        for p in &grid {
            crate::experiment::virtual_time::check_block(m, p.bs)?;
        }
        let name = crate::shell::folder_word(spec.unwrap_or(&m.name), "model");
        out_dir = out_dir_for(&args, &name, true)?;
        for (i, p) in grid.iter().enumerate() {
            let r = simulate_point(m, p, duration, max_bytes, seed ^ i as u64)?;
            say(&point_line(i, grid.len(), &r, opts.units));
            points.push(r);
        }
        notes.push(format!(
            "virtual time: every point starts on the fresh drive (as after a long idle); \
             {}",
            m.read_source
        ));
    } else {
        let req = OpenRequest {
            size: crate::cli::resolve::target_size(&args.write)?,
            overwrite: args.write.overwrite || !any_writes,
            destroy_data: args.write.destroy_data,
            interactive: std::io::IsTerminal::is_terminal(&std::io::stdin()),
        };
        if any_reads {
            device::reads::check_file_exists(&args.target, req.size)?;
        }
        let info = device::inspect(&args.target, &req)?;
        let span_req = crate::cli::resolve::sweep_span(&args, cdm_region)?;
        let mut span = 0;
        for p in &grid {
            span = info.check_fit(p.bs, span_req)?;
            crate::experiment::backends::check_engine(
                &info,
                engine,
                &format!("--engine {engine}"),
                p.bs,
            )?;
        }
        if any_reads {
            // What the reads cover: whole blocks of the smallest block size (the tail past the
            // last is never read).
            let bs = grid.iter().map(|p| p.bs).min().unwrap_or(1).max(1);
            let span = span - span % bs;
            if let Some(n) = device::reads::check_readable(&info, span, args.assume_written, false)?
            {
                crate::note!("slccache: {n}");
                notes.push(n);
            }
        }
        out_dir = out_dir_for(&args, &info.short_name(), false)?;
        let target = device::open_for_write(info, &req, &mut |p| {
            crate::report::console::progress::confirm_device(
                &p.path,
                &p.name,
                p.model.as_deref(),
                p.capacity_bytes,
            )
        })?;
        let signals = Signals::install().context("installing signal handlers")?;
        for (i, p) in grid.iter().enumerate() {
            if signals.flag.load(Ordering::SeqCst) {
                interrupted = true;
                break;
            }
            let (r, timeline, cut_short) = match run_point_real(
                &target,
                p,
                span,
                engine,
                duration,
                max_bytes,
                seed ^ i as u64,
                &signals,
            ) {
                Ok(x) => x,
                Err(e) => {
                    target.remove_created();
                    return Err(e);
                }
            };
            if cut_short {
                // Half a point is no point: kept apart, out of the table and the saturation.
                let ran_s = timeline.duration_s();
                say(&format!(
                    "[{}/{}] QD{} x{}: interrupted after {} of {}; left out",
                    i + 1,
                    grid.len(),
                    p.qd,
                    p.jobs,
                    format_seconds(ran_s),
                    format_seconds(duration.as_secs_f64())
                ));
                unfinished = Some(UnfinishedPoint {
                    index: i + 1,
                    ran_s,
                    planned_s: duration.as_secs_f64(),
                    point: r,
                });
                interrupted = true;
                break;
            }
            say(&point_line(i, grid.len(), &r, opts.units));
            points.push(r);
        }
        if signals.flag.load(Ordering::SeqCst) {
            interrupted = true;
        }
        if let Some(m) = &model {
            notes.push(format!(
                "emulated drive in real time: every point starts on the fresh drive; {}",
                m.read_source
            ));
        } else if any_writes && max_bytes.is_none() {
            notes.push(
                "write points ran without --max-bytes-per-point, one after another: a point \
                 may have started with the cache used up by the points before it; \
                 crossed_cliff marks the points in which a cliff was seen"
                    .into(),
            );
        }
    }
    match (max_bytes, cdm_region) {
        (Some(m), Some(_)) => notes.push(format!(
            "each point covered CrystalDiskMark's {} test region once, or stopped after {} \
             (--max-bytes-per-point and --span change it)",
            format_bytes(m as f64, UnitSystem::Binary),
            format_seconds(duration.as_secs_f64())
        )),
        (Some(m), None) => notes.push(format!(
            "each point stopped after {} (--max-bytes-per-point)",
            format_bytes(m as f64, opts.units)
        )),
        (None, _) => {}
    }
    if interrupted {
        notes.push(format!(
            "interrupted: {} of {} points finished{}; the saturation is read from the finished \
             points only",
            points.len(),
            grid.len(),
            unfinished
                .as_ref()
                .map(|u| format!(
                    ", point {} (QD{} x {}) stopped after {} of {} and is left out",
                    u.index,
                    u.point.qd,
                    crate::units::count_text(u.point.jobs as usize, "job", "jobs"),
                    format_seconds(u.ran_s),
                    format_seconds(u.planned_s)
                ))
                .unwrap_or_default()
        ));
    }
    let short: Vec<String> = points
        .iter()
        .filter_map(|p| {
            let model = p.model_bytes_per_sec?;
            let share = p.bytes_per_sec / model;
            (share < crate::engine::emulated::PACE_SHARE_OK).then(|| {
                format!(
                    "QD{} x{} {}: {} where the model gives {} ({:.0} %)",
                    p.qd,
                    p.jobs,
                    format_bytes(p.bs as f64, UnitSystem::Binary),
                    crate::report::outputs::sweep::iops_text(p.iops),
                    crate::report::outputs::sweep::iops_text(p.iops / share),
                    100.0 * share
                )
            })
        })
        .collect();
    if !short.is_empty() {
        let n = short.len();
        let w = format!(
            "the emulation fell short of its model at {n} point(s): {}; the host could not \
             keep the emulated drive busy (a loaded or slow machine, or a model faster than the \
             engine can run), so those points measured the host, not the model",
            short.join("; ")
        );
        say(&format!("warning: {w}"));
        notes.push(w);
    }
    let crossed = points.iter().filter(|p| p.crossed_cliff).count();
    if crossed > 0 {
        notes.push(format!(
            "{crossed} point(s) ran out of SLC cache during the point and measured two things \
             (crossed_cliff); shorten the points or give --max-bytes-per-point"
        ));
    }
    let sweep = Sweep {
        saturation: saturation(&points),
        saturations: saturations(&points),
        points,
        unfinished_point: unfinished,
    };
    let best = sweep.points.iter().max_by(|a, b| a.iops.total_cmp(&b.iops));
    let truth = match (&model, best) {
        (Some(m), Some(b)) => Some(truth(m, &grid, b)),
        _ => None,
    };

    let title = model
        .as_ref()
        .map(|m| {
            format!(
                "{}{}",
                m.model,
                if args.simulate {
                    " (simulated)"
                } else {
                    " (emulated)"
                }
            )
        })
        .unwrap_or_else(|| args.target.clone());
    let summary = SweepSummary {
        slccache_version: crate::VERSION,
        origin: Some(crate::origin::current()),
        config: SweepConfig {
            command: "sweep",
            target: &args.target,
            simulate: args.simulate,
            engine: (!args.simulate).then(|| engine.name()),
            point_duration_s: duration.as_secs_f64(),
            max_bytes_per_point: max_bytes,
            preset: args.preset.map(|_| "cdm"),
            seed,
            model: model.as_ref(),
        },
        sweep: &sweep,
        truth: truth.as_ref(),
        model_truth: truth.clone().map(|t| crate::results::ModelTruth {
            sweep: Some(t),
            ..Default::default()
        }),
        notes: &notes,
        interrupted,
    };
    let files = crate::report::outputs::sweep::write_outputs(
        &out_dir,
        &summary,
        &title,
        args.preset.is_some(),
        &opts,
        // Recorded as soon as sweep.csv and summary.json are complete: a chart that fails
        // later (a full disk) does not lose the run.
        &mut || crate::store::recorder::note(&out_dir, &opts, args.quiet),
    )?;
    drop(files);

    let line = crate::report::outputs::sweep::done_line(
        &args.target,
        &sweep,
        grid.len(),
        truth.as_ref(),
        interrupted,
    );
    if args.json {
        super::print_json_done(&out_dir, &line)?;
    } else {
        crate::report::console::progress::print_done(&out_dir, &line, args.quiet);
    }
    if interrupted {
        return Err(anyhow::Error::new(Interrupted(
            out_dir.display().to_string(),
        )));
    }
    Ok(())
}

fn point_line(i: usize, n: usize, p: &SweepPoint, units: UnitSystem) -> String {
    format!(
        "[{}/{n}] QD{} x{} {} {}% reads: {}, {}, p50 {}, p99 {}{}{}",
        i + 1,
        p.qd,
        p.jobs,
        format_bytes(p.bs as f64, UnitSystem::Binary),
        p.rwmix_read,
        crate::report::outputs::sweep::iops_text(p.iops),
        format_rate(p.bytes_per_sec, units),
        us_text(p.lat_p50_us),
        us_text(p.lat_p99_us),
        match p.model_bytes_per_sec {
            Some(m) if p.bytes_per_sec < crate::engine::emulated::PACE_SHARE_OK * m => format!(
                " (short of the model's {}: {:.0} %)",
                crate::report::outputs::sweep::iops_text(p.iops * m / p.bytes_per_sec.max(1e-9)),
                100.0 * p.bytes_per_sec / m
            ),
            _ => String::new(),
        },
        if p.crossed_cliff {
            " (cache ran out)"
        } else {
            ""
        }
    )
}

/// Claims the output folder before any point runs (a refused folder touches nothing).
fn out_dir_for(args: &SweepArgs, name: &str, sim: bool) -> Result<PathBuf> {
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    crate::report::outputs::outdir::claim(
        args.output.out.as_deref(),
        &format!("{clean}-sweep{}", if sim { "-sim" } else { "" }),
        args.output.force,
        false,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(qd: u32, jobs: u32, iops: f64) -> SweepPoint {
        SweepPoint {
            qd,
            jobs,
            bs: 4096,
            rwmix_read: 0,
            iops,
            bytes_per_sec: iops * 4096.0,
            lat_p50_us: None,
            lat_p99_us: None,
            cpu_pct: None,
            crossed_cliff: false,
            model_bytes_per_sec: None,
            pattern: "randwrite".into(),
            label: None,
        }
    }

    #[test]
    fn saturation_is_the_smallest_product_within_five_percent() {
        let v = vec![
            pt(1, 1, 30e3),
            pt(8, 1, 250e3),
            pt(16, 1, 318e3),
            pt(64, 1, 333e3),
            pt(4, 4, 317e3),
            pt(16, 4, 330e3),
        ];
        let s = saturation(&v).unwrap();
        // 0.95 * 333k = 316.4k: QD16 x1 and QD4 x4 both reach it at 16; fewer jobs wins.
        assert_eq!((s.qd, s.jobs), (16, 1));
        assert!(saturation(&[]).is_none());
    }
}
