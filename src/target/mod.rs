//! Targets: regular files, block devices and emulated drives. Opening them for direct I/O,
//! their identity (sysfs, ioctls), their direct-I/O alignment (statx `DIOALIGN`,
//! `BLKSSZGET`), their temperature (hwmon), and the safety refusals that stand between a
//! typo and a destroyed disk.
//!
//! Opening happens in two steps so that every refusal comes before any byte is written:
//! [`inspect`] reads what the target is (and refuses mounted, swap, held or root devices and
//! existing files without `--overwrite`); the caller checks the workload against it
//! ([`TargetInfo::check_fit`]); then [`open_for_write`] asks for agreement where needed, checks
//! again, and opens the target with `O_DIRECT` (and `O_EXCL` for block devices).
//!
//! One file a concern: [`file`] (regular files), [`block`] (block devices and their safety
//! checks), [`hwmon`] (temperature sensors), [`emulated`] (`emu:` specs).

pub mod block;
pub mod emulated;
pub mod file;
pub mod hwmon;

use std::fs::File;
use std::io;
use std::os::unix::fs::FileTypeExt;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{anyhow, Result};

use crate::engine::emulated::EmulatedDrive;
use crate::error::usage;
use crate::timeline::DeviceIdentity;
use crate::units::{format_bytes, UnitSystem};

pub use block::check_block_not_in_use;

/// What kind of target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetKind {
    /// A regular file.
    File,
    /// A block device.
    Block,
    /// An emulated drive (`emu:SPEC`).
    Emulated,
}

/// What the user allowed on the command line.
#[derive(Debug, Clone, Default)]
pub struct OpenRequest {
    /// `--size`: size of a file to create (or to give an existing empty file).
    pub size: Option<u64>,
    /// `--overwrite`: an existing regular file may be overwritten.
    pub overwrite: bool,
    /// `--destroy-data`: a block device may be overwritten without asking.
    pub destroy_data: bool,
    /// Whether the user can be asked (stdin is a terminal).
    pub interactive: bool,
}

/// What the user is shown before a block device is overwritten.
#[derive(Debug, Clone)]
pub struct ConfirmPrompt {
    /// Device path.
    pub path: String,
    /// The name the user must type (e.g. `nvme0n1`).
    pub name: String,
    /// Drive model, if known.
    pub model: Option<String>,
    /// Capacity in bytes.
    pub capacity_bytes: u64,
}

/// A refusal to write: exit code 1, nothing written.
#[derive(Debug, thiserror::Error)]
#[error("refusing to write to {path}: {reason}")]
pub struct Refusal {
    /// The target.
    pub path: String,
    /// Why, and what to do.
    pub reason: String,
}

pub(crate) fn refuse(path: &str, reason: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Refusal {
        path: path.to_string(),
        reason: reason.into(),
    })
}

/// The target as inspected, before anything is written.
#[derive(Debug, Clone)]
pub struct TargetInfo {
    /// The target string as given.
    pub spec: String,
    /// Kind.
    pub kind: TargetKind,
    /// Path (files and block devices).
    pub path: Option<PathBuf>,
    /// Identity for reports.
    pub identity: DeviceIdentity,
    /// Writable size in bytes.
    pub capacity: u64,
    /// Offsets and lengths must be multiples of this; None until a new file exists.
    pub offset_align: Option<u64>,
    /// Buffer memory alignment.
    pub mem_align: u64,
    /// Whether a file target exists already.
    pub exists: bool,
    /// The emulated drive, for `emu:` targets.
    pub emulated: Option<EmulatedDrive>,
    /// `(major, minor)` of a block device.
    pub dev: Option<(u32, u32)>,
    /// hwmon temperature file (millidegrees), if the drive has one.
    pub hwmon: Option<PathBuf>,
}

/// An opened target.
pub struct Target {
    /// What it is.
    pub info: TargetInfo,
    /// The open file (`O_DIRECT`), None for emulated drives.
    pub file: Option<Arc<File>>,
    /// True when this run created the file.
    pub created: bool,
}

impl TargetInfo {
    /// A short name for output folders: the device name, the file stem, the preset.
    pub fn short_name(&self) -> String {
        let raw = match (&self.path, self.kind) {
            (Some(p), TargetKind::Block) => p
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            (Some(p), _) => p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            (None, _) => self
                .spec
                .trim_start_matches("emu:")
                .split(',')
                .next()
                .unwrap_or("")
                .to_string(),
        };
        let clean: String = raw
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if clean.is_empty() {
            "target".into()
        } else {
            clean
        }
    }

    /// Checks a block size and span against the target: the block size must be a multiple of
    /// the alignment, the span must fit in the target and hold at least one block. Returns
    /// the span in bytes (the whole target when `span` is None). A mismatch is a usage error.
    pub fn check_fit(&self, block_size: u64, span: Option<u64>) -> Result<u64> {
        let what = self.identity.path.as_str();
        if let Some(align) = self.offset_align {
            if block_size % align != 0 {
                return Err(usage(format!(
                    "--bs {block_size} does not fit {what}: direct I/O there needs multiples of \
                     {align} bytes; try --bs {}",
                    block_size.div_ceil(align) * align
                )));
            }
            if let Some(s) = span {
                if s % align != 0 {
                    return Err(usage(format!(
                        "--span {s} does not fit {what}: it must be a multiple of {align} bytes"
                    )));
                }
            }
        }
        let span = span.unwrap_or(self.capacity);
        if span > self.capacity {
            return Err(usage(format!(
                "--span {} is larger than {what} ({})",
                format_bytes(span as f64, UnitSystem::Binary),
                format_bytes(self.capacity as f64, UnitSystem::Binary)
            )));
        }
        if span < block_size {
            return Err(usage(format!(
                "the span to write ({span} bytes) is smaller than one block ({block_size} bytes)"
            )));
        }
        Ok(span)
    }
}

impl Target {
    /// The drive's temperature now, where known.
    pub fn temperature_c(&self) -> Option<f64> {
        if let Some(e) = &self.info.emulated {
            return e.temperature_c();
        }
        let p = self.info.hwmon.as_ref()?;
        let milli: f64 = std::fs::read_to_string(p).ok()?.trim().parse().ok()?;
        Some(milli / 1000.0)
    }

    /// Removes the file this run created (used when the run cannot start after all).
    pub fn remove_created(&self) {
        if self.created {
            if let Some(p) = &self.info.path {
                let _ = std::fs::remove_file(p);
            }
        }
    }
}

/// Reads what `spec` is and refuses what must never be written. Writes nothing.
pub fn inspect(spec: &str, req: &OpenRequest) -> Result<TargetInfo> {
    if let Some(rest) = spec.strip_prefix("emu:") {
        return emulated::inspect(spec, rest);
    }
    let path = PathBuf::from(spec);
    match std::fs::metadata(&path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => file::inspect_new(spec, path, req),
        Err(e) => Err(anyhow!(e).context(format!("cannot look at {spec}"))),
        Ok(m) if m.file_type().is_block_device() => block::inspect(spec, path, &m, req),
        Ok(m) if m.is_file() => file::inspect_existing(spec, path, &m, req),
        Ok(_) => Err(usage(format!(
            "{spec} is neither a regular file nor a block device"
        ))),
    }
}

/// Opens the target for writing: asks for agreement on block devices, checks again that they
/// are not in use, and opens with `O_DIRECT` (plus `O_EXCL` on block devices). Files are
/// created or resized as asked. `confirm` shows the prompt and returns whether the user typed
/// the device name.
pub fn open_for_write(
    info: TargetInfo,
    req: &OpenRequest,
    confirm: &mut dyn FnMut(&ConfirmPrompt) -> io::Result<bool>,
) -> Result<Target> {
    match info.kind {
        TargetKind::Emulated => Ok(Target {
            info,
            file: None,
            created: false,
        }),
        TargetKind::Block => block::open(info, req, confirm),
        TargetKind::File => file::open(info),
    }
}
