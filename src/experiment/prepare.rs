//! Start from a known state: what `probe` does to the target before the measured run.
//!
//! In this order, each optional (`--secure-erase` or `--sanitize` first, from
//! `device::nvme_format` and `device::nvme_sanitize`, or `device::ata_erase` for
//! `--secure-erase` on an ATA drive):
//! 1. `--trim`: discard the span. BLKDISCARD on a block device, hole punching
//!    (`fallocate(PUNCH_HOLE)`) on a file; an emulated drive empties its cache and forgets the
//!    data ([`crate::model::DriveState::trim`]). A device or file system that cannot discard
//!    is reported, and the run goes on.
//! 2. `--prefill PCT`: write the first PCT of the target sequentially, 128 KiB at QD32, with
//!    progress. The prefill is not part of the measured timeline: it sets the fill level at
//!    which the cache is measured.
//! 3. `--idle-before DUR`: wait, so that the drive can fold its SLC cache (an emulated drive
//!    applies the model's idle recovery).
//!
//! What was done goes to `summary.json` under `drive_state` ([`DriveStateRecord`]).
//! `simulate` takes the same three in virtual time
//! ([`crate::experiment::virtual_time::simulate_prepared`]).

use std::os::unix::io::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};

use crate::config::WorkloadConfig;
use crate::device::{Target, TargetKind};
use crate::engine::job::{run_job, JobShared};
use crate::engine::offsets::OffsetGen;
use crate::engine::Backend;
use crate::error::InterruptedEarly;
use crate::report::console::progress::{Progress, ProgressMode};
pub use crate::results::drive_state::DriveStateRecord;
use crate::sampler::{Clock, MonotonicClock, Sampler};
use crate::units::UnitSystem;
use crate::workload::Pattern;

/// Block size of the prefill.
pub const PREFILL_BS: u64 = 128 << 10;
/// Queue depth of the prefill.
pub const PREFILL_QD: u32 = 32;

/// What to do before the run.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Preparation {
    /// `--secure-erase` (before `--trim`).
    pub secure_erase: bool,
    /// `--sanitize` (before `--trim`; never with `--secure-erase`).
    pub sanitize: bool,
    /// `--trim`.
    pub trim: bool,
    /// `--prefill`, percent (0 < p <= 100).
    pub prefill_pct: Option<f64>,
    /// `--idle-before`.
    pub idle_before: Option<Duration>,
}

impl Preparation {
    /// Whether anything is to be done.
    pub fn any(&self) -> bool {
        self.secure_erase
            || self.sanitize
            || self.trim
            || self.prefill_pct.is_some()
            || self.idle_before.is_some()
    }
}

/// Parses `--prefill`: a percentage, `50` or `50%`, above 0 and at most 100.
pub fn parse_pct(text: &str) -> Result<f64> {
    let t = text.trim().trim_end_matches('%').trim();
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 100.0 => Ok(v),
        _ => Err(crate::error::usage(format!(
            "--prefill {text}: give a share of the target above 0 and at most 100 percent, e.g. 50%"
        ))),
    }
}

/// The bytes `--prefill PCT` writes on a target of `capacity` bytes: PCT of it, in whole
/// [`PREFILL_BS`] blocks. A share too small to hold one block (`--prefill 1e-9`) would write
/// nothing while the run says it prefilled: a usage error naming the smallest share that
/// writes a block.
pub fn prefill_bytes(pct: f64, capacity: u64) -> Result<u64> {
    let bytes = ((pct / 100.0) * capacity as f64) as u64 / PREFILL_BS * PREFILL_BS;
    if bytes == 0 {
        let least = 100.0 * PREFILL_BS as f64 / capacity.max(1) as f64;
        return Err(crate::error::usage(format!(
            "--prefill {pct}%: less than one {} block of the {} target, so nothing would be \
             written; give at least {}%",
            crate::units::format_bytes(PREFILL_BS as f64, UnitSystem::Binary),
            crate::units::format_bytes(capacity as f64, UnitSystem::Decimal),
            format_least(least)
        )));
    }
    Ok(bytes)
}

/// The smallest share that writes a block, rounded up so that it does: `0.0001`.
fn format_least(pct: f64) -> String {
    let digits = (-pct.log10()).ceil().max(0.0) as i32 + 1;
    let scale = 10f64.powi(digits);
    let up = (pct * scale).ceil() / scale;
    format!("{up:.*}", digits.max(0) as usize)
}

/// Discards the first `span` bytes of the target. Returns whether it worked and what
/// happened; an unsupported discard is not an error.
pub fn trim(target: &Target, span: u64) -> Result<(bool, String)> {
    let units = UnitSystem::Decimal;
    let size = crate::units::format_bytes(span as f64, units);
    if let Some(emu) = &target.info.emulated {
        emu.trim(span);
        return Ok((
            true,
            format!("emulated drive trimmed ({size}): its cache is empty"),
        ));
    }
    let file = target
        .file
        .as_ref()
        .ok_or_else(|| anyhow!("the target is not open"))?;
    let fd = file.as_raw_fd();
    let (what, r) = match target.info.kind {
        TargetKind::Block => {
            /// `_IO(0x12, 119)` from `<linux/fs.h>`.
            const BLKDISCARD: libc::c_ulong = 0x1277;
            let range: [u64; 2] = [0, span];
            // SAFETY: BLKDISCARD reads two u64 (offset, length) from the pointer, which points
            // to a live array of two u64 on the stack; fd is an open block device we own.
            let r = unsafe { libc::ioctl(fd, BLKDISCARD as _, range.as_ptr()) };
            ("BLKDISCARD", r)
        }
        _ => {
            // SAFETY: fallocate on an open file descriptor we own, with plain integer
            // arguments; it touches no memory of ours.
            let r = unsafe {
                libc::fallocate(
                    fd,
                    libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                    0,
                    span as libc::off_t,
                )
            };
            ("hole punching", r)
        }
    };
    if r == 0 {
        return Ok((true, format!("{what} of {size}")));
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EOPNOTSUPP) | Some(libc::ENOTTY) | Some(libc::EINVAL) => {
            Ok((false, format!("{what} not supported here: {e}")))
        }
        _ => Err(anyhow!(e).context(format!("{what} of {size} failed"))),
    }
}

/// Waits `d`, looking at `interrupted` now and then.
pub fn idle(d: Duration, interrupted: &AtomicBool) -> Result<()> {
    let end = Instant::now() + d;
    loop {
        if interrupted.load(Ordering::SeqCst) {
            return Err(anyhow::Error::new(InterruptedEarly("while idling".into())));
        }
        let now = Instant::now();
        if now >= end {
            return Ok(());
        }
        std::thread::sleep((end - now).min(Duration::from_millis(50)));
    }
}

/// Writes the first `bytes` of the target sequentially at 128 KiB QD32 with `backend`
/// (made for that block size and queue depth), showing progress. Returns the bytes written.
pub fn prefill(
    backend: Box<dyn Backend>,
    bytes: u64,
    seed: u64,
    mode: ProgressMode,
    units: UnitSystem,
    interrupted: &AtomicBool,
) -> Result<u64> {
    let blocks = bytes / PREFILL_BS;
    if blocks == 0 {
        return Ok(0);
    }
    let offsets = OffsetGen::new(Pattern::Seqwrite, PREFILL_BS, blocks, seed);
    let shared = Arc::new(JobShared::new(offsets, blocks, seed));
    let sampler = Arc::new(Sampler::new(
        MonotonicClock::new(Instant::now()),
        Duration::from_secs(1),
        1,
    ));
    let progress = Progress::new(
        mode,
        "prefill",
        Some(blocks * PREFILL_BS),
        None,
        false,
        units,
    );
    let (sh, sa) = (shared.clone(), sampler.clone());
    let mut backend = backend;
    let handle = std::thread::Builder::new()
        .name("slccache-prefill".into())
        .spawn(move || run_job(0, backend.as_mut(), PREFILL_QD, &sh, &sa))
        .context("cannot start the prefill thread")?;
    let mut interrupted_now = false;
    while !handle.is_finished() {
        if interrupted.load(Ordering::SeqCst) && !interrupted_now {
            interrupted_now = true;
            shared.request_stop();
        }
        for s in sampler.collect(None) {
            progress.update(&s, None);
        }
        progress.tick();
        std::thread::sleep(Duration::from_millis(20));
    }
    let writes = handle.join().unwrap_or(0);
    let _ = sampler.finish(sampler.clock().now(), None);
    progress.finish();
    if let Some(f) = shared.failure() {
        return Err(anyhow!("prefill: {f}"));
    }
    if interrupted_now {
        return Err(anyhow::Error::new(InterruptedEarly(
            "during the prefill".into(),
        )));
    }
    Ok(writes * PREFILL_BS)
}

/// The workload of the prefill: `cfg` with 128 KiB sequential writes at QD32 on one job.
pub fn prefill_workload(cfg: &WorkloadConfig) -> WorkloadConfig {
    WorkloadConfig {
        pattern: Pattern::Seqwrite,
        block_size: PREFILL_BS,
        queue_depth: PREFILL_QD,
        jobs: 1,
        ..cfg.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages() {
        assert_eq!(parse_pct("50").unwrap(), 50.0);
        // A share too small for one block writes nothing: refused as a usage error.
        let e = prefill_bytes(1e-9, 250_000_000_000).unwrap_err();
        let msg = format!("{e:#}");
        assert!(
            msg.contains("--prefill") && msg.contains("nothing would be written"),
            "{msg}"
        );
        assert_eq!(crate::error::exit_code(&e), 2);
        let least: f64 = msg
            .rsplit("at least ")
            .next()
            .unwrap()
            .trim_end_matches('%')
            .parse()
            .unwrap();
        assert!(
            prefill_bytes(least, 250_000_000_000).unwrap() >= PREFILL_BS,
            "{msg}"
        );
        assert_eq!(prefill_bytes(50.0, 1 << 30).unwrap(), 1 << 29);
        assert_eq!(parse_pct("12.5%").unwrap(), 12.5);
        for bad in ["0", "101", "-3", "half", "nan"] {
            let e = parse_pct(bad).unwrap_err();
            assert_eq!(crate::error::exit_code(&e), 2, "{bad}");
            assert!(format!("{e:#}").contains("--prefill"));
        }
    }
}
