//! The `probe` subcommand: write to a target without pause and record what it did, interval
//! by interval, then analyse and report.
//!
//! Order of work: resolve the configuration; inspect the target (refusals, nothing written);
//! check the block size and span against it (usage errors, nothing written); open it (asking
//! for agreement on block devices); set up one backend per job (an io_uring failure names its
//! cause and suggests `--engine sync`); then run, appending a `timeline.csv` row at every
//! interval deadline. Ctrl-C / SIGTERM stop submitting, drain, and still write everything
//! (exit 130). A write error stops the run, keeps every output, and is reported with its
//! offset and time (exit 1).

use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::Ordering;

use anyhow::{anyhow, Context, Result};

use crate::cli::ProbeArgs;
use crate::config::WorkloadConfig;
use crate::detect::stop::StopConfig;
use crate::device::host::HostInfo;
use crate::device::{self, OpenRequest, Target, TargetKind};
use crate::error::{usage, Interrupted};
use crate::experiment::backends::{make_backends, RingInfo};
use crate::experiment::burst::{run_jobs, Outcome, Plan};
use crate::experiment::prepare::{self, DriveStateRecord, Preparation};
use crate::experiment::signals::Signals;
use crate::report::console::progress::{self, ProgressMode};
use crate::report::{DriveState, ReportOptions, StopRecord, Summary, Totals};
use crate::timeline::{RunMeta, StopReason, Workload};
use crate::units::{format_bytes, format_rate, format_seconds, parse_duration};
use crate::workload::{EngineKind, Pattern};

/// Most memory the data buffers of all jobs may take together.
const MAX_BUFFER_BYTES: u64 = 2 << 30;

/// Most threads the sync engine may start (one per in-flight write).
const MAX_SYNC_THREADS: u64 = 4096;

/// Runs `slccache probe`.
pub fn run(mut args: ProbeArgs) -> Result<()> {
    // Polled completions, as the user asked for them: errors name the flag typed.
    let poll_flag = match (args.hipri, args.engine) {
        (true, Some(EngineKind::IoUringCmd)) => {
            args.engine = Some(EngineKind::IoUringCmdPoll);
            "--hipri"
        }
        (true, None | Some(EngineKind::IoUring)) => {
            args.engine = Some(EngineKind::IoUringPoll);
            "--hipri"
        }
        (true, Some(e)) if !matches!(e, EngineKind::IoUringPoll | EngineKind::IoUringCmdPoll) => {
            return Err(usage(format!(
                "--hipri polls io_uring's completions; --engine {e} has none: use --engine \
                 io-uring or io-uring-cmd with it"
            )));
        }
        (_, Some(EngineKind::IoUringCmdPoll)) => "--engine io-uring-cmd-poll",
        (_, Some(EngineKind::IoUringCmd)) => "--engine io-uring-cmd",
        _ => "--engine io-uring-poll",
    };
    if args.target.trim().is_empty() {
        return Err(usage(
            "the target is empty: give a block device (/dev/nvme0n1), a file (scratch.bin) or \
             an emulated drive (emu:960evo-500g; see slccache presets)",
        ));
    }
    let cfg = WorkloadConfig::resolve(&args.workload)?;
    let stop_cfg = crate::cli::stop_config(&args.stop)?;
    let opts = crate::cli::resolve::report_options(&args.output)?;
    let engine = args.engine.unwrap_or(EngineKind::IoUring);
    let size = crate::cli::resolve::target_size(&args.write)?;
    let prep = Preparation {
        secure_erase: args.secure_erase,
        sanitize: args.sanitize,
        trim: args.trim,
        prefill_pct: args
            .prefill
            .as_deref()
            .map(prepare::parse_pct)
            .transpose()?,
        idle_before: args
            .idle_before
            .as_deref()
            .map(parse_duration)
            .transpose()
            .context("--idle-before")?,
    };
    let req = OpenRequest {
        size,
        // A run that only reads destroys nothing in a file.
        overwrite: args.write.overwrite || cfg.read_pct == 100,
        destroy_data: args.write.destroy_data,
        interactive: std::io::stdin().is_terminal(),
    };

    // 1. What is it? (refusals; nothing written)
    if args.target.starts_with("emu:") {
        // An emulated drive writes nothing anywhere: these flags would be ignored silently.
        let ignored = [
            (
                args.write.size.is_some(),
                "--size (an emulated drive's size is its capacity=)".to_string(),
            ),
            (
                args.write.overwrite,
                "--overwrite (nothing is overwritten)".to_string(),
            ),
            (
                args.engine == Some(EngineKind::Sync),
                "--engine sync (an emulated drive has its own engine)".to_string(),
            ),
            (
                matches!(
                    args.engine,
                    Some(
                        EngineKind::IoUringPoll
                            | EngineKind::IoUringCmd
                            | EngineKind::IoUringCmdPoll
                    )
                ),
                format!("{poll_flag} (an emulated drive has its own engine)"),
            ),
        ];
        if let Some((_, flag)) = ignored.iter().find(|(given, _)| *given) {
            return Err(usage(format!(
                "{flag} does not apply to an emulated drive ({}); leave it out",
                args.target
            )));
        }
    }
    // --destroy-data means something on a block device only: elsewhere a note says so.
    if args.write.destroy_data && !args.quiet {
        if let Some(n) = device::destroy_data_note(&args.target, None) {
            crate::note!("{n}");
        }
    }
    // A run that reads needs a file with data: a missing one is refused before `--size`
    // could create it empty.
    if cfg.read_pct > 0 {
        device::reads::check_file_exists(&args.target, req.size)?;
    }
    let info = device::inspect(&args.target, &req)?;
    // 2. Does the workload fit? (usage errors; nothing written)
    info.check_fit(cfg.block_size, cfg.span)?;
    if info.kind != TargetKind::Emulated {
        let need = cfg.block_size * cfg.queue_depth as u64 * cfg.jobs as u64;
        if need > MAX_BUFFER_BYTES {
            return Err(usage(format!(
                "--bs x --qd x --jobs needs {} of data buffers, more than the {} allowed; \
                 lower one of them",
                format_bytes(need as f64, crate::units::UnitSystem::Binary),
                format_bytes(MAX_BUFFER_BYTES as f64, crate::units::UnitSystem::Binary)
            )));
        }
    }
    crate::experiment::backends::check_engine(&info, engine, poll_flag, cfg.block_size)?;
    // --secure-erase: checked before anything is written (and again just before the erase):
    // Format NVM on an NVMe namespace, SECURITY ERASE UNIT on an ATA drive.
    if args.secure_erase {
        if is_ata_disk(&info) {
            crate::device::ata_erase::plan(&info)?;
        } else {
            crate::device::nvme_format::plan(&info)?;
        }
    }
    // --trim on an ATA drive without DSM TRIM: refused before anything is written.
    if args.trim {
        if let Some(a) = &info.ata {
            crate::device::ata::check_trim(&info.spec, &a.identify)?;
        }
    }
    // --sanitize: the same, and every namespace it erases is named before the agreement.
    if args.sanitize {
        let plan = crate::device::nvme_sanitize::plan(&info)?;
        crate::note!(
            "slccache: --sanitize erases EVERY namespace of the controller of {}: {}",
            info.spec,
            plan.namespaces.join(", ")
        );
    }
    if engine == EngineKind::Sync && info.kind != TargetKind::Emulated {
        let threads = cfg.queue_depth as u64 * cfg.jobs as u64;
        if threads > MAX_SYNC_THREADS {
            return Err(usage(format!(
                "--engine sync runs one thread per in-flight write: --qd x --jobs = {threads} \
                 threads, more than {MAX_SYNC_THREADS}; lower --qd or --jobs"
            )));
        }
    }
    // Reads need written data: refuse holes in files, warn on block devices.
    let read_note = if cfg.read_pct > 0 {
        let span = info.check_fit(cfg.block_size, cfg.span)?;
        // What the reads cover: whole blocks (the tail past the last is never read).
        let read = span - span % cfg.block_size.max(1);
        device::reads::check_readable(&info, read, args.assume_written, false)?
    } else {
        None
    };
    if let Some(n) = &read_note {
        crate::note!("slccache: {n}");
    }
    // The output folder is claimed before the target is touched: a folder that holds
    // another run's files is refused with nothing written.
    let out_dir = crate::report::outputs::outdir::claim(
        args.output.out.as_deref(),
        &info.short_name(),
        args.output.force,
        false,
    )?;

    // 3. Lock it (a second probe of the same file or device is refused), then open it
    // (agreement on block devices, O_DIRECT, O_EXCL). A file this run creates is locked as
    // soon as it exists.
    let mut lock = device::lock(&info)?;
    let target = device::open_for_write(info, &req, &mut |p| {
        progress::confirm_device(&p.path, &p.name, p.model.as_deref(), p.capacity_bytes)
    })?;
    if lock.is_none() {
        lock = match device::lock(&target.info) {
            Ok(l) => l,
            Err(e) => {
                target.remove_created();
                return Err(e);
            }
        };
    }
    let span = match target.info.check_fit(cfg.block_size, cfg.span) {
        Ok(s) => s,
        Err(e) => {
            target.remove_created();
            return Err(e);
        }
    };
    let plan = Plan::new(&cfg, span);
    let signals = Signals::install().context("installing signal handlers")?;

    // 4. Start from a known state (trim, prefill, idle), outside the measured timeline.
    let drive_state = match prepare_target(&target, &cfg, engine, span, &prep, &signals, &args) {
        Ok(d) => d,
        Err(e) => {
            target.remove_created();
            return Err(e);
        }
    };
    let truth_at_start = target
        .info
        .emulated
        .as_ref()
        .map(|e| e.truth_now(cfg.pattern, cfg.block_size));

    // 5. One backend per job.
    let (backends, ring_info) = match make_backends(&target, &cfg, engine) {
        Ok(b) => b,
        Err(e) => {
            target.remove_created();
            return Err(e);
        }
    };
    std::fs::create_dir_all(&out_dir)
        .with_context(|| format!("cannot create the output folder {}", out_dir.display()))?;

    // The model's own time is counted for the measured run only, not its preparation.
    if let Some(emu) = &target.info.emulated {
        emu.reset_pace();
    }

    // 6. Run. The signal handlers (installed before the preparation) stay until the outputs
    // are written: a Ctrl-C, SIGTERM or SIGHUP while the charts are drawn still leaves every
    // output complete (exit 130).
    let outcome = run_jobs(
        &target, &cfg, stop_cfg, &plan, backends, &out_dir, args.quiet, &opts, &signals,
    )?;

    // 7. Summary, analysis, charts.
    let start = StartState {
        drive_state,
        truth: truth_at_start,
    };
    let result = finish(
        &target, &cfg, stop_cfg, &plan, &out_dir, &opts, outcome, ring_info, args.quiet, start,
        read_note, args.json,
    );
    drop(lock);
    let late_signal = signals.flag.load(Ordering::SeqCst);
    drop(signals);
    match result {
        Ok(()) if late_signal => Err(anyhow::Error::new(Interrupted(
            out_dir.display().to_string(),
        ))),
        r => r,
    }
}

/// Whether the target is a SCSI disk that answered ATA IDENTIFY, or one whose USB bridge
/// refused it: `--secure-erase` means the ATA erase there (refused on the second).
fn is_ata_disk(info: &crate::device::TargetInfo) -> bool {
    info.ata.is_some() || info.ata_note.is_some()
}

/// The drive's state at the start of the measured run.
struct StartState {
    drive_state: DriveStateRecord,
    /// The model's truth from that state (emulated drives).
    truth: Option<crate::model::Truth>,
}

/// Erases, trims, prefills and idles as asked; returns what was done and the state reached.
fn prepare_target(
    target: &Target,
    cfg: &WorkloadConfig,
    engine: EngineKind,
    span: u64,
    prep: &Preparation,
    signals: &Signals,
    args: &ProbeArgs,
) -> Result<DriveStateRecord> {
    let mut rec = DriveStateRecord::default();
    let units = args.output.units;
    // A --prefill too small to write a block is refused before anything is done.
    if let Some(pct) = prep.prefill_pct {
        prepare::prefill_bytes(pct, target.info.capacity)?;
    }
    let say = |msg: String| {
        if !args.quiet {
            crate::note!("slccache: {msg}");
        }
    };
    if prep.secure_erase && is_ata_disk(&target.info) {
        let plan = crate::device::ata_erase::plan(&target.info)?;
        say(format!(
            "--secure-erase: ATA SECURITY ERASE UNIT ({}) with the temporary password \"{}\"",
            if plan.enhanced { "enhanced" } else { "normal" },
            crate::device::ata_erase::TEMP_PASSWORD
        ));
        let mut progress = |line: String| say(line);
        let what =
            crate::device::ata_erase::run(&target.info, &plan, &signals.flag, &mut progress)?;
        say(format!("--secure-erase: {what}"));
        rec.secure_erase = Some(what);
    } else if prep.secure_erase {
        let plan = crate::device::nvme_format::plan(&target.info)?;
        say(format!(
            "--secure-erase: formatting namespace {} with a user data erase",
            plan.nsid
        ));
        let what = crate::device::nvme_format::run(&target.info, &plan)?;
        say(format!("--secure-erase: {what}"));
        rec.secure_erase = Some(what);
    }
    if prep.sanitize {
        let plan = crate::device::nvme_sanitize::plan(&target.info)?;
        say(format!(
            "--sanitize: block erase of namespaces {} (the whole NVM subsystem)",
            plan.namespaces.join(", ")
        ));
        let mut progress = |line: String| say(line);
        let what =
            crate::device::nvme_sanitize::run(&target.info, &plan, &signals.flag, &mut progress)?;
        say(format!("--sanitize: {what}"));
        rec.sanitize = Some(what);
    }
    if prep.trim {
        let (ok, what) = prepare::trim(target, span)?;
        if ok {
            say(format!("--trim: {what}"));
        } else {
            say(format!("--trim: {what}; going on without it"));
        }
        rec.trimmed = ok;
        rec.trim = Some(what);
    }
    let capacity = target.info.capacity;
    if let Some(pct) = prep.prefill_pct {
        let bytes = prepare::prefill_bytes(pct, capacity)?;
        let pw = prepare::prefill_workload(cfg);
        let (mut backends, _) = make_backends(target, &pw, engine)?;
        say(format!(
            "--prefill: writing the first {pct}% of the target ({}) at 128k QD32",
            format_bytes(bytes as f64, units)
        ));
        let written = prepare::prefill(
            backends.remove(0),
            bytes,
            cfg.seed,
            ProgressMode::for_stderr(args.quiet),
            units,
            &signals.flag,
        )?;
        rec.prefill_pct = Some(pct);
        rec.prefill_bytes = Some(written);
    }
    if let Some(d) = prep.idle_before {
        say(format!(
            "--idle-before: idling for {} so that the drive can fold its cache",
            format_seconds(d.as_secs_f64())
        ));
        prepare::idle(d, &signals.flag)?;
        rec.idle_before_s = Some(d.as_secs_f64());
    }
    if let Some(emu) = &target.info.emulated {
        let st = emu.state_now();
        rec.fill_at_start_pct = Some(100.0 * st.data / capacity as f64);
        rec.emulated_cache_at_start_bytes =
            Some(emu.truth_now(cfg.pattern, cfg.block_size).cache_bytes);
    } else if rec.trimmed && span == capacity {
        let filled = rec.prefill_bytes.unwrap_or(0);
        rec.fill_at_start_pct = Some(100.0 * filled as f64 / capacity as f64);
    }
    Ok(rec)
}

#[allow(clippy::too_many_arguments)]
fn finish(
    target: &Target,
    cfg: &WorkloadConfig,
    stop_cfg: StopConfig,
    plan: &Plan,
    out_dir: &Path,
    opts: &ReportOptions,
    o: Outcome,
    ring_info: Option<RingInfo>,
    quiet: bool,
    start: StartState,
    read_note: Option<String>,
    json: bool,
) -> Result<()> {
    let ident = &target.info.identity;
    let label = ident
        .model
        .clone()
        .unwrap_or_else(|| target.info.short_name());
    let meta = RunMeta {
        device: ident.clone(),
        workload: Workload {
            pattern: Pattern::name(cfg.pattern).into(),
            block_size: Some(cfg.block_size),
            queue_depth: Some(cfg.queue_depth),
            jobs: Some(cfg.jobs),
            interval_s: Some(cfg.interval.as_secs_f64()),
            engine: Some(o.engine.into()),
            span_bytes: Some(plan.span_bytes),
            read_pct: (cfg.read_pct > 0).then_some(cfg.read_pct),
            cliffs_asked: (stop_cfg.cliffs > 1).then_some(stop_cfg.cliffs),
            prefill_pct: start.drive_state.prefill_pct,
            idle_before_s: start.drive_state.idle_before_s,
        },
        started_at: Some(o.started_at),
        stop_reason: Some(o.stop),
        label,
        slccache_version: crate::VERSION.into(),
        resolution: None,
        rate_log: false,
    };
    let csv_error = o.csv_error.clone();
    let timeline = o.samples.into_timeline(meta);
    let meta = timeline.meta.clone();
    let mut analysis = crate::detect::analyze_in(&timeline, opts.units);
    analysis
        .warnings
        .extend(crate::experiment::virtual_time::short_of_duration(
            cfg, &timeline,
        ));
    if let Some(n) = &read_note {
        analysis
            .warnings
            .push(crate::detect::Warning::input(n.clone()));
    }
    let bytes = timeline.bytes_total();
    // What the drive itself counted, against what the probe wrote.
    if let (Some(a), Some(b)) = (&o.drive_start.health, &o.drive_end.health) {
        // The log is the controller's: on one with several namespaces, say so.
        let namespaces = target
            .info
            .dev
            .map(crate::device::nvme::controller_namespaces)
            .unwrap_or_default();
        analysis.warnings.extend(
            crate::detect::drive::data_units_warning(a, b, bytes, opts.units)
                .map(|w| crate::device::nvme::shared_counter_note(w, &namespaces))
                .map(|w| crate::detect::Warning::new(crate::detect::WarningKind::DriveCounters, w)),
        );
    }
    // A real-time emulation that fell short of its model measured the host: say so, with the
    // figures (the model's own time for the same writes at the same queue depth).
    let emulation = target.info.emulated.as_ref().map(|e| {
        let pace = e.pace();
        let dur = timeline.duration_s();
        let moved = (bytes + timeline.read_bytes_total()) as f64;
        let achieved = if dur > 0.0 { moved / dur } else { 0.0 };
        // Said of what the run did: a read run's emulation served reads.
        let io = crate::engine::emulated::io_words(bytes > 0, timeline.read_bytes_total() > 0);
        if let Some(w) =
            crate::engine::emulated::shortfall_warning(achieved, dur, &pace, io, opts.units)
        {
            analysis.warnings.push(crate::detect::Warning::new(
                crate::detect::WarningKind::EmulationShortfall,
                w,
            ));
            analysis.emulation_fell_short = true;
        }
        let model = pace.model_bytes_per_sec();
        serde_json::json!({
            "achieved_bytes_per_sec": achieved,
            "model_bytes_per_sec": model,
            "share_of_model": model.map(|m| achieved / m),
            "drive_idle_s": pace.idle_s,
            "host_stalls": pace.long_gaps,
            "host_stalls_s": pace.long_gap_s,
            "stall_threshold_s": crate::engine::emulated::MAX_LAG_S,
        })
    });
    let host = HostInfo::collect(&target.info);
    // A rate in the cache at the link's ceiling is the link's, not the drive's: the link of
    // the host record, or an emulated drive's model's.
    let link = match &target.info.emulated {
        Some(e) => e.model().link_info(),
        None => host.link(),
    };
    crate::link::note_findings(&mut analysis, link.as_ref(), opts.units);
    // An emulated drive whose IOPS limit holds the rate in and after its cache alike: its
    // truth says no cliff could show.
    crate::model::note_iops_hidden(&mut analysis, start.truth.as_ref(), opts.units);
    let drive_state = DriveState {
        temperature_start_c: o.drive_start.temp_c,
        temperature_end_c: o.drive_end.temp_c,
        smart_start: o.drive_start.health.clone(),
        smart_end: o.drive_end.health.clone(),
        ata_identify: target.info.ata.as_ref().map(|a| a.identify.clone()),
        libata_link: host.libata_link.clone(),
        ata_smart_start: o.drive_start.ata.clone(),
        ata_smart_end: o.drive_end.ata.clone(),
        ata_note: target.info.ata_note.clone(),
        preparation: start.drive_state,
    };
    let mut extra_rows = crate::report::pages::markdown::drive_rows(
        Some(&host),
        Some(&drive_state),
        bytes,
        opts.units,
    );
    // An emulated drive on a SATA or USB link keeps an NVMe drive's counters: said beside
    // them, as `info` says it.
    if let (Some(_), Some(l)) = (&target.info.emulated, &link) {
        if !l.is_pcie() {
            extra_rows.push((
                "Drive counters".to_string(),
                crate::link::EMULATED_COUNTERS_NOTE.to_string(),
            ));
        }
    }
    let duration_s = timeline.duration_s();
    let mut config = serde_json::json!({
        "target": target.info.spec,
        "engine": o.engine,
        "workload": cfg,
        "plan": plan,
        "io_uring": ring_info,
        "out": out_dir,
    });
    // For emulated drives, the rate achieved in real time against the model's own rate for
    // the same writes at the same queue depth (bytes per second), and the drive's idle time.
    if let Some(e) = emulation {
        config["emulation"] = e;
    }
    let summary = Summary {
        slccache_version: crate::VERSION.into(),
        origin: Some(crate::origin::current()),
        config,
        // For emulated drives, the model's truth (cache bytes, phase boundaries), so a run
        // can be checked against it; from the drive's state at the start of the measured run
        // (after --trim, --prefill and --idle-before where given).
        model_truth: start
            .truth
            .map(|t| {
                serde_json::to_value(crate::results::ModelTruth {
                    cache: Some(t),
                    ..Default::default()
                })
            })
            .transpose()?,
        run: meta,
        totals: Totals::of(&timeline, o.writes),
        interrupted: o.stop == StopReason::Interrupted,
        // The drive's write failure, else the output's: a run stopped by a full output disk
        // said "write error" with no error at all.
        error: o.failure.as_ref().map(|f| f.to_string()).or_else(|| {
            csv_error
                .as_ref()
                .map(|e| format!("the run's timeline could not be written: {e}"))
        }),
        analysis: analysis.clone(),
        findings: None,
        stop: Some(StopRecord::new(
            stop_cfg,
            o.stop,
            Some(&o.rule),
            &analysis,
            bytes,
        )),
        host: Some(host),
        drive_state: Some(drive_state),
    };
    let written = match &csv_error {
        Some(e) => Err(anyhow!("{e}")),
        None => crate::report::write_summary(out_dir, &summary),
    };
    if let Err(e) = written {
        // The output folder cannot take the run (its disk full): its summary and timeline
        // are kept beside the spool and recorded from there, so the run is not lost.
        let kept = crate::store::recorder::rescue(out_dir, &summary, &timeline, opts, quiet);
        return Err(crate::store::recorder::rescued_error(
            e,
            kept,
            timeline.samples.len(),
        ));
    }
    // Recorded as soon as timeline.csv and summary.json are complete, whatever the charts do.
    crate::store::recorder::note(out_dir, opts, quiet);
    // A run that wrote and read nothing measured nothing: no charts and no report of it. A run
    // that only read is reported on its reads.
    let read_bytes = timeline.read_bytes_total();
    let charts = if bytes > 0 || read_bytes > 0 {
        crate::report::write_charts_and_report_with(
            out_dir,
            &timeline,
            &analysis,
            opts,
            &extra_rows,
        )
    } else {
        Ok(vec![])
    };

    let (verb, done) = if analysis.read_only {
        ("read", read_bytes)
    } else {
        ("wrote", bytes)
    };
    let mean = |b: u64| {
        format_rate(
            if duration_s > 0.0 {
                b as f64 / duration_s
            } else {
                0.0
            },
            opts.units,
        )
    };
    // A mixed run says what it read too.
    let also_read = if !analysis.read_only && read_bytes > 0 {
        format!(
            " and read {} ({} mean)",
            format_bytes(read_bytes as f64, opts.units),
            mean(read_bytes)
        )
    } else {
        String::new()
    };
    let stop = crate::detect::Findings::of(&analysis).stop_text(o.stop);
    let mut line = if also_read.is_empty() {
        format!(
            "{}: {verb} {} in {} ({} mean), stopped: {}",
            target.info.spec,
            format_bytes(done as f64, opts.units),
            format_seconds(duration_s),
            mean(done),
            stop
        )
    } else {
        format!(
            "{}: {verb} {} ({} mean){also_read} in {}, stopped: {}",
            target.info.spec,
            format_bytes(done as f64, opts.units),
            mean(done),
            format_seconds(duration_s),
            stop
        )
    };
    if bytes == 0 && read_bytes == 0 {
        line.push_str("; nothing was written, so there is no analysis and no report");
    } else {
        if analysis.read_only {
            line.push_str(&format!(
                "; {}",
                crate::report::console::terminal::read_only_summary(&analysis, opts.units)
                    .split_once("; ")
                    .map_or("", |(_, rest)| rest)
            ));
        }
        line.push_str(&crate::report::console::terminal::result_clauses(
            &analysis, opts.units,
        ));
        // The analysis warnings, as analyze and simulate print them (with --quiet, only the
        // final line: the warnings are in summary.json and report.md).
        if !quiet {
            for w in &analysis.warnings {
                line.push_str(&format!("\n  warning: {w}"));
            }
            let args: Vec<String> = std::iter::once("slccache".to_string())
                .chain(crate::shell::shown_args())
                .collect();
            let byte_limit = timeline.meta.stop_reason == Some(StopReason::MaxBytes);
            if let Some(cmd) =
                crate::report::console::terminal::next_tier_command(&analysis, &args, byte_limit)
            {
                line.push_str(&format!("\n  to measure the next tier: {cmd}"));
            }
        }
    }
    // "outputs: DIR" only when they were all written; otherwise the result line alone, and the
    // error names the outputs that are complete.
    // --json: the analysis on stdout (as analyze and simulate print it), the text on stderr.
    match (&charts, json) {
        (_, true) => {
            crate::store::recorder::print_json(serde_json::to_value(&analysis)?, Some(out_dir));
            match &charts {
                Ok(_) => crate::note!("{line}\noutputs: {}", out_dir.display()),
                Err(_) => crate::note!("{line}"),
            }
        }
        (Ok(_), false) => progress::print_done(out_dir, &line, quiet),
        (Err(_), false) => crate::say!("{line}"),
    }
    charts.context("writing charts and report")?;

    if let Some(f) = o.failure {
        return Err(anyhow!(
            "{f}; outputs written so far are in {}",
            out_dir.display()
        ));
    }
    if o.stop == StopReason::Interrupted {
        return Err(anyhow::Error::new(Interrupted(
            out_dir.display().to_string(),
        )));
    }
    Ok(())
}
