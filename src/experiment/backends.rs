//! The one place a run's write backends are chosen: the emulated drive's own, or io_uring
//! (with or without polled completions) or sync on a real target. `probe`, `sweep` and the
//! bursts of `recovery` and `fill-sweep` all take theirs from [`make_backends`].

use anyhow::{anyhow, Context, Result};

use crate::config::WorkloadConfig;
use crate::device::{Target, TargetInfo};
use crate::engine::sync::SyncBackend;
use crate::engine::uring::{setup_error_hint, UringBackend};
use crate::engine::uring_cmd::{check_namespace, Namespace, UringCmdBackend};
use crate::engine::Backend;
use crate::error::usage;
use crate::workload::EngineKind;

/// How the io_uring rings were set up (for the summary).
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct RingInfo {
    fixed_buffers: bool,
    fixed_file: bool,
}

/// One backend per job.
pub type Backends = Vec<Box<dyn Backend>>;

/// The data seed of job `job`: every job's data is seeded apart from the run's seed.
pub fn job_seed(seed: u64, job: u32) -> u64 {
    seed ^ (0x9E37_79B9_7F4A_7C15u64.wrapping_mul(job as u64 + 1))
}

/// One backend per job for `target`: the emulated drive's own, or io_uring or sync on a real
/// target, with each job's data seeded apart. Returns how the rings were set up.
pub fn make_backends(
    target: &Target,
    cfg: &WorkloadConfig,
    engine: EngineKind,
) -> Result<(Backends, Option<RingInfo>)> {
    let mut out: Vec<Box<dyn Backend>> = Vec::new();
    let mut ring_info = None;
    // NVMe pass-through: the namespace, and whether registered buffers work with commands.
    let passthrough = match engine {
        EngineKind::IoUringCmd | EngineKind::IoUringCmdPoll if target.info.emulated.is_none() => {
            // Checked by `check_engine` before, with the flag the user typed for polling.
            Some(check_passthrough(
                &target.info,
                engine,
                "--engine io-uring-cmd",
                &format!("--engine {engine}"),
                cfg.block_size,
            )?)
        }
        _ => None,
    };
    for j in 0..cfg.jobs {
        let seed = job_seed(cfg.seed, j);
        let b: Box<dyn Backend> = if let Some(emu) = &target.info.emulated {
            emu.backend_mixed(cfg.queue_depth, cfg.block_size, cfg.pattern, cfg.read_pct)?
        } else {
            let file = target.file.clone().expect("real targets are open");
            let bs = cfg.block_size as usize;
            let align = target.info.mem_align as usize;
            match engine {
                EngineKind::IoUring | EngineKind::IoUringPoll => {
                    let poll = engine == EngineKind::IoUringPoll;
                    let u =
                        UringBackend::with_polling(file, cfg.queue_depth, bs, align, seed, poll)
                            .map_err(|e| anyhow!(setup_error_hint(&e)))?;
                    ring_info = Some(RingInfo {
                        fixed_buffers: u.uses_fixed_buffers(),
                        fixed_file: u.uses_fixed_file(),
                    });
                    Box::new(u)
                }
                EngineKind::IoUringCmd | EngineKind::IoUringCmdPoll => {
                    let (ns, fixed) = passthrough.clone().expect("checked above");
                    let poll = engine == EngineKind::IoUringCmdPoll;
                    let u = UringCmdBackend::new(ns, cfg.queue_depth, bs, align, seed, poll, fixed)
                        .map_err(|e| anyhow!(setup_error_hint(&e)))?;
                    ring_info = Some(RingInfo {
                        fixed_buffers: u.uses_fixed_buffers(),
                        fixed_file: u.uses_fixed_file(),
                    });
                    Box::new(u)
                }
                EngineKind::Sync => Box::new(
                    SyncBackend::new(file, cfg.queue_depth, bs, align, seed)
                        .context("starting the sync engine's threads")?,
                ),
            }
        };
        out.push(b);
    }
    Ok((out, ring_info))
}

/// Checks that `engine` can write to `info` before anything is written: polled completions
/// need a block device whose queues poll; NVMe pass-through a whole NVMe namespace whose
/// character device takes a one-block read through the ring. `flag` is what the user typed for
/// polling, which its errors name. A usage error (exit 2) otherwise.
pub fn check_engine(
    info: &TargetInfo,
    engine: EngineKind,
    flag: &str,
    block_size: u64,
) -> Result<()> {
    if info.emulated.is_some() {
        return Ok(());
    }
    if crate::device::passthrough::named_by_char_device(info)
        && !matches!(engine, EngineKind::IoUringCmd | EngineKind::IoUringCmdPoll)
    {
        let block = info
            .path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        return Err(usage(format!(
            "{} is an NVMe namespace's character device: only --engine io-uring-cmd writes \
             through it; add that, or give the block device {block}",
            info.spec
        )));
    }
    if matches!(engine, EngineKind::IoUringPoll | EngineKind::IoUringCmdPoll) {
        crate::device::block::check_polling(info, flag)?;
    }
    if matches!(engine, EngineKind::IoUringCmd | EngineKind::IoUringCmdPoll) {
        check_passthrough(info, engine, "--engine io-uring-cmd", flag, block_size)?;
    }
    Ok(())
}

/// The namespace for NVMe pass-through on `info`, tried with one read: with whether
/// registered buffers work. A usage error naming the reason otherwise; `poll_flag` is what the
/// user typed for polled completions.
fn check_passthrough(
    info: &TargetInfo,
    engine: EngineKind,
    flag: &str,
    poll_flag: &str,
    block_size: u64,
) -> Result<(Namespace, bool)> {
    let ns = crate::device::passthrough::namespace(info, flag)?;
    // The block layer splits a large write; a command goes to the drive as it is, and the
    // driver refuses one larger than the controller takes.
    if let Some(max) = crate::device::passthrough::max_transfer_bytes(info) {
        if block_size > max {
            return Err(usage(format!(
                "{flag}: --bs {} is more than one NVMe command carries on {} ({} KiB, \
                 queue/max_hw_sectors_kb); lower --bs to {} KiB or less",
                block_size,
                info.spec,
                max / 1024,
                max / 1024
            )));
        }
    }
    let poll = engine == EngineKind::IoUringCmdPoll;
    let align = info.mem_align as usize;
    let fixed = check_namespace(
        |poll| UringCmdBackend::try_namespace(&ns, align, poll),
        poll,
        flag,
        poll_flag,
        &ns.path,
    )
    .map_err(usage)?;
    Ok((ns, fixed))
}
