//! The one place a run's write backends are chosen: the emulated drive's own, or io_uring
//! (with or without polled completions) or sync on a real target. `probe`, `sweep` and the
//! bursts of `recovery` and `fill-sweep` all take theirs from [`make_backends`].

use anyhow::{anyhow, Context, Result};

use crate::config::WorkloadConfig;
use crate::device::Target;
use crate::engine::sync::SyncBackend;
use crate::engine::uring::{setup_error_hint, UringBackend};
use crate::engine::Backend;
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
