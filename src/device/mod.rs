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
//! checks), [`hwmon`] (temperature sensors), [`nvme`] (NVMe Identify and SMART / Health log
//! through the admin passthrough ioctl), [`nvme_ctrl`] (a controller node for `info`),
//! [`nvme_format`] (`--secure-erase`), [`nvme_sanitize`] (`--sanitize`), [`ata`] (ATA drives
//! through SG_IO's ATA PASS-THROUGH: IDENTIFY and SMART), [`ata_erase`] (`--secure-erase` on
//! them), [`host`] (the
//! machine and the device's queue settings, for the record), [`emulated`] (`emu:` specs).

pub mod ata;
pub mod ata_erase;
pub mod block;
pub mod emulated;
pub mod file;
pub mod host;
pub mod hwmon;
pub mod nvme;
pub mod nvme_ctrl;
pub mod nvme_format;
pub mod nvme_sanitize;
pub mod passthrough;
pub mod reads;
mod sysfs;

use std::fs::File;
use std::io;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

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

/// A refusal to write (or, for a run that only reads, to read): exit code 1, nothing written.
#[derive(Debug, thiserror::Error)]
#[error("refusing to {} {path}: {reason}", if *.reading { "read" } else { "write to" })]
pub struct Refusal {
    /// The target.
    pub path: String,
    /// Why, and what to do.
    pub reason: String,
    /// Whether the run would have read the target rather than written it.
    pub reading: bool,
}

pub(crate) fn refuse(path: &str, reason: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Refusal {
        path: path.to_string(),
        reason: reason.into(),
        reading: false,
    })
}

/// [`refuse`], for a run that reads the target.
pub(crate) fn refuse_read(path: &str, reason: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Refusal {
        path: path.to_string(),
        reason: reason.into(),
        reading: true,
    })
}

/// Files that no run may write, each with what it is (`main` names the results store's).
static PROTECTED: Mutex<Vec<(PathBuf, String)>> = Mutex::new(Vec::new());

/// Sets the files that [`inspect`] refuses as targets, by any path to them (a symlink, a
/// relative path, a hard link, a loop device over one), each with what it is for the message.
pub fn set_protected(files: Vec<(PathBuf, String)>) {
    *PROTECTED.lock().unwrap_or_else(|e| e.into_inner()) = files;
}

/// Where `p` is, for files that may not exist yet: its canonical path, else its folder's
/// canonical path and its name.
fn canonical_place(p: &Path) -> Option<PathBuf> {
    if let Ok(c) = p.canonicalize() {
        return Some(c);
    }
    let dir = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some(dir.canonicalize().ok()?.join(p.file_name()?))
}

/// What `path` is when it is a protected file ([`set_protected`]): the same device and inode
/// where both exist, else the same canonical place.
pub(crate) fn protected(path: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let files = PROTECTED.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let meta = std::fs::metadata(path).ok();
    let place = canonical_place(path);
    files.into_iter().find_map(|(p, what)| {
        let same = match (&meta, std::fs::metadata(&p)) {
            (Some(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            (None, Err(_)) => place.is_some() && place == canonical_place(&p),
            _ => false,
        };
        same.then_some(what)
    })
}

/// What `path` is when it is an slccache results store other than the one this run records
/// into: an SQLite file whose schema names the store's version table (read from its first
/// pages, where SQLite keeps the schema of a store's few tables), so that no `--overwrite`
/// writes over a lab's other store.
fn other_store(path: &Path) -> Option<String> {
    if let Some(what) = store_file(path) {
        return Some(what);
    }
    // A file SQLite keeps beside a store (its write-ahead log, its shared-memory index, its
    // rollback journal): writing one loses what the store has not checkpointed yet, or
    // corrupts it.
    let name = path.file_name()?.to_str()?;
    [
        ("-wal", "the write-ahead log"),
        ("-shm", "the shared-memory index"),
        ("-journal", "the rollback journal"),
    ]
    .into_iter()
    .find_map(|(suffix, what)| {
        let base = path.with_file_name(name.strip_suffix(suffix)?);
        store_file(&base).map(|store| format!("{what} of {store}"))
    })
}

/// What `path` is when it is itself an slccache results store (see [`other_store`]).
fn store_file(path: &Path) -> Option<String> {
    use std::io::Read;
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let mut head = Vec::with_capacity(64 * 1024);
    std::fs::File::open(path)
        .ok()?
        .take(64 * 1024)
        .read_to_end(&mut head)
        .ok()?;
    let sqlite = head.starts_with(b"SQLite format 3\0");
    let store = head.windows(15).any(|w| w == b"slccache_schema");
    (sqlite && store).then(|| format!("an slccache results store ({})", path.display()))
}

/// Refuses a target that is a protected file, or a loop device over one (`backing`).
pub(crate) fn check_not_protected(
    spec: &str,
    path: &Path,
    loop_backing: Option<&Path>,
) -> Result<()> {
    let hit = match loop_backing {
        None => protected(path).or_else(|| other_store(path)),
        Some(b) => protected(b)
            .or_else(|| other_store(b))
            .map(|what| format!("a loop device over {what}")),
    };
    match hit {
        Some(what) => Err(refuse(
            spec,
            format!(
                "it is {what}, which holds every recorded run: writing it would destroy them; \
                 give another target"
            ),
        )),
        None => Ok(()),
    }
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
    /// The NVMe device for admin commands (opened read-only), on NVMe block devices.
    pub nvme: Option<Arc<nvme::NvmeDevice>>,
    /// The ATA drive behind a SCSI disk (`/dev/sdX`) whose SG_IO ATA PASS-THROUGH answered
    /// IDENTIFY DEVICE: SATA through libata, or USB through a bridge that speaks SAT.
    pub ata: Option<Arc<ata::AtaDevice>>,
    /// Why a SCSI disk has no [`TargetInfo::ata`], in one line, where worth saying (a USB
    /// bridge that refuses SAT).
    pub ata_note: Option<String>,
}

/// What the drive reports about itself at one moment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DriveReading {
    /// Temperature, °C: the SMART composite temperature on NVMe and emulated drives (whole
    /// Kelvin, as the log holds it), else hwmon.
    pub temp_c: Option<f64>,
    /// The SMART / Health log, on NVMe and emulated drives.
    pub health: Option<nvme::HealthLog>,
    /// The SMART attributes, on ATA drives.
    pub ata: Option<crate::health::ata::AtaSmart>,
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

/// Checks that `block_size` is a multiple of `align`, the direct-I/O alignment of the target
/// `what` (a device, a file, an emulated drive or a drive model run in virtual time, whose
/// logical block is 512 bytes); a usage error that names the next size that fits otherwise.
pub fn check_block_size(block_size: u64, align: u64, what: &str) -> Result<()> {
    if align > 0 && !block_size.is_multiple_of(align) {
        return Err(usage(format!(
            "--bs {block_size} does not fit {what}: direct I/O there needs multiples of {align} \
             bytes; try --bs {}",
            block_size.div_ceil(align) * align
        )));
    }
    Ok(())
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
            // An emulated drive: the model and its overrides (`960evo-250g,cache=1GB`).
            (None, _) => self.spec.trim_start_matches("emu:").to_string(),
        };
        crate::shell::folder_word(&raw, "target")
    }

    /// Checks a block size and span against the target: the block size must be a multiple of
    /// the alignment, the span must fit in the target and hold at least one block. Returns
    /// the span in bytes (the whole target when `span` is None). A mismatch is a usage error.
    pub fn check_fit(&self, block_size: u64, span: Option<u64>) -> Result<u64> {
        let what = self.identity.path.as_str();
        if let Some(align) = self.offset_align {
            check_block_size(block_size, align, what)?;
        }
        // A span that is not a multiple of the alignment is rounded down (`--span 100MB` on a
        // 4 KiB device writes 99.999744 MB), and said once.
        let span = match (span, self.offset_align) {
            (Some(s), Some(align)) if s % align != 0 && s >= align => {
                static SAID: std::sync::Once = std::sync::Once::new();
                let down = s / align * align;
                SAID.call_once(|| {
                    crate::note!(
                        "slccache: note: --span {} rounded down to {down} bytes, a multiple of \
                         the {align}-byte direct-I/O alignment of {what}",
                        both_units(s)
                    )
                });
                Some(down)
            }
            (s, _) => s,
        };
        let span = span.unwrap_or(self.capacity);
        if span > self.capacity {
            return Err(usage(format!(
                "--span {} is larger than {what} ({})",
                both_units(span),
                both_units(self.capacity)
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

/// A size in both unit systems, so an error speaks the user's: `600 GB = 559 GiB`.
fn both_units(b: u64) -> String {
    let d = format_bytes(b as f64, UnitSystem::Decimal);
    let i = format_bytes(b as f64, UnitSystem::Binary);
    if b < 1000 {
        format!("{b} bytes")
    } else {
        format!("{d} = {i}")
    }
}

impl TargetInfo {
    /// The SMART / Health log now: from the drive on NVMe (None if the drive or the kernel
    /// refuses), from the model on emulated drives, None elsewhere.
    pub fn health(&self) -> Option<nvme::HealthLog> {
        if let Some(e) = &self.emulated {
            return Some(e.health());
        }
        self.nvme.as_ref()?.health().ok()
    }

    /// The temperature from hwmon, °C.
    pub fn hwmon_temperature_c(&self) -> Option<f64> {
        let p = self.hwmon.as_ref()?;
        let milli: f64 = std::fs::read_to_string(p).ok()?.trim().parse().ok()?;
        Some(milli / 1000.0)
    }

    /// Reads the drive once: its health log where it has one, and its temperature (from the
    /// health log, else hwmon).
    pub fn read_drive(&self) -> DriveReading {
        self.read_drive_with(false)
    }

    /// [`TargetInfo::read_drive`] during a run: on an ATA drive SMART READ DATA alone, one
    /// command instead of two (without the thresholds, which do not change).
    pub fn read_drive_during_run(&self) -> DriveReading {
        self.read_drive_with(true)
    }

    fn read_drive_with(&self, light: bool) -> DriveReading {
        if let Some(a) = &self.ata {
            let smart = if light {
                a.smart_data_only().ok()
            } else {
                a.smart().ok()
            };
            let temp_c = smart
                .as_ref()
                .and_then(|s| s.temperature_c)
                .or_else(|| self.hwmon_temperature_c());
            return DriveReading {
                temp_c,
                health: None,
                ata: smart,
            };
        }
        let health = self.health();
        // An emulated drive's temperature is its SMART log's (whole Kelvin, as a drive
        // reports it): the one reading `temperature_start_c` and `smart_start` both show.
        let temp_c = match &self.emulated {
            Some(_) => health.as_ref().and_then(|h| h.temperature_c),
            None => health
                .as_ref()
                .and_then(|h| h.temperature_c)
                .or_else(|| self.hwmon_temperature_c()),
        };
        DriveReading {
            temp_c,
            health,
            ata: None,
        }
    }
}

impl Target {
    /// The drive's temperature now, where known.
    pub fn temperature_c(&self) -> Option<f64> {
        self.info.read_drive().temp_c
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

/// `--destroy-data` agrees to destroy a block device's data and means nothing elsewhere: for
/// every other target it is taken, and this one-line note (printed unless `--quiet`) says so.
/// `what` is the target when the caller knows it (a drive model run in virtual time), else
/// read from `spec` as [`inspect`] reads it; `None` for a block device.
pub fn destroy_data_note(spec: &str, what: Option<&str>) -> Option<String> {
    let what = match what {
        Some(w) => w,
        None if spec.starts_with("emu:") => "an emulated drive, which stores nothing",
        None => match std::fs::metadata(spec) {
            Ok(m) if m.is_file() => {
                "a regular file (--overwrite is what allows writing over an existing one)"
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => "a regular file to create",
            // A block device, or something `inspect` refuses.
            _ => return None,
        },
    };
    Some(format!(
        "slccache: note: --destroy-data has no effect on {spec}, {what}: it agrees to destroy \
         a block device's data only"
    ))
}

/// The path to inspect for `spec`: itself, or for an NVMe namespace's character device
/// (`/dev/ng0n1`) its block device, on which every check, the exclusive open and the lock are
/// made (`--engine io-uring-cmd` then writes through the character device).
fn generic_to_block(spec: &str) -> PathBuf {
    match std::fs::metadata(spec) {
        Ok(m) if m.file_type().is_char_device() => {
            passthrough::block_device_of(spec).unwrap_or_else(|| PathBuf::from(spec))
        }
        _ => PathBuf::from(spec),
    }
}

/// Reads what `spec` is and refuses what must never be written. Writes nothing.
pub fn inspect(spec: &str, req: &OpenRequest) -> Result<TargetInfo> {
    if let Some(rest) = spec.strip_prefix("emu:") {
        return emulated::inspect(spec, rest);
    }
    let path = generic_to_block(spec);
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

/// Reads what `spec` is, as [`inspect`] does, but without refusing anything and without any
/// flag: for `slccache info`. Returns the target and, for a block device that `probe` would
/// refuse (mounted, swap, held, the root filesystem), the reason. Opens read-only, writes
/// nothing.
pub fn describe(spec: &str) -> Result<(TargetInfo, Option<String>)> {
    if let Some(rest) = spec.strip_prefix("emu:") {
        return Ok((emulated::inspect(spec, rest)?, None));
    }
    let path = generic_to_block(spec);
    match std::fs::metadata(&path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            Err(usage(format!("{spec}: no such file or device")))
        }
        Err(e) => Err(anyhow!(e).context(format!("cannot look at {spec}"))),
        Ok(m) if m.file_type().is_block_device() => {
            use std::os::unix::fs::MetadataExt;
            let dev = (rustix::fs::major(m.rdev()), rustix::fs::minor(m.rdev()));
            // What `probe` refuses, said as `probe` would: in use, or a loop device over the
            // results store.
            let reason = |e: anyhow::Error| {
                e.downcast_ref::<Refusal>()
                    .map(|r| r.reason.clone())
                    .unwrap_or_else(|| e.to_string())
            };
            let in_use = check_block_not_in_use(spec, dev)
                .err()
                .map(reason)
                .or_else(|| {
                    let backing = block::loop_backing_file(dev)?;
                    let backing = backing.trim_end_matches(" (deleted)");
                    check_not_protected(spec, &path, Some(Path::new(backing)))
                        .err()
                        .map(reason)
                });
            Ok((block::describe(spec, path, &m)?, in_use))
        }
        Ok(m) if m.is_file() => {
            let in_use = check_not_protected(spec, &path, None).err().map(|e| {
                e.downcast_ref::<Refusal>()
                    .map(|r| r.reason.clone())
                    .unwrap_or_else(|| e.to_string())
            });
            Ok((file::describe(spec, path, &m), in_use))
        }
        Ok(m) if m.file_type().is_char_device() && is_nvme_controller(&path) => Err(usage(
            format!("{spec} is an NVMe controller; give one of its namespaces, e.g. {spec}n1"),
        )),
        Ok(_) => Err(usage(format!(
            "{spec} is neither a regular file nor a block device"
        ))),
    }
}

/// An advisory lock (`flock`, exclusive) on a file or block device, held for the length of a
/// probe so that a second probe of the same target is refused with a clear message instead of
/// writing over the first. Released when dropped (or when the process ends, however it ends).
#[derive(Debug)]
pub struct TargetLock {
    _file: File,
}

/// Takes the probe lock on a file or block device target (`None` for emulated drives and for
/// files that do not exist yet). A target locked by another process is refused (exit code 1).
pub fn lock(info: &TargetInfo) -> Result<Option<TargetLock>> {
    let Some(path) = info.path.as_ref() else {
        return Ok(None);
    };
    if info.kind == TargetKind::Emulated || !path.exists() {
        return Ok(None);
    }
    let f =
        File::open(path).map_err(|e| anyhow!(e).context(format!("cannot open {}", info.spec)))?;
    match rustix::fs::flock(&f, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(Some(TargetLock { _file: f })),
        Err(rustix::io::Errno::WOULDBLOCK) => Err(refuse(
            &info.spec,
            "another program holds a lock on it: another slccache probe is writing to it; \
             wait until that run ends",
        )),
        Err(e) => Err(anyhow!(std::io::Error::from(e))
            .context(format!("cannot lock {} for this run", info.spec))),
    }
}

/// Whether `path` is named like an NVMe controller's character device (`nvme0`).
fn is_nvme_controller(path: &std::path::Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix("nvme"))
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit()))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nvme_controller_names() {
        assert!(is_nvme_controller(std::path::Path::new("/dev/nvme0")));
        assert!(is_nvme_controller(std::path::Path::new("/dev/nvme12")));
        assert!(!is_nvme_controller(std::path::Path::new("/dev/nvme0n1")));
        assert!(!is_nvme_controller(std::path::Path::new("/dev/nvme")));
        assert!(!is_nvme_controller(std::path::Path::new("/dev/null")));
    }

    #[test]
    fn describe_refuses_nothing_and_names_bad_targets() {
        // A missing path and a character device are usage errors.
        for spec in ["/nonexistent/slccache-x", "/dev/null"] {
            let e = describe(spec).unwrap_err();
            assert_eq!(crate::error::exit_code(&e), 2, "{e}");
        }
        // An existing file is described even without --overwrite (probe would refuse).
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), [1u8; 8192]).unwrap();
        let spec = f.path().to_str().unwrap();
        assert!(inspect(spec, &OpenRequest::default()).is_err());
        let (info, in_use) = describe(spec).unwrap();
        assert_eq!(
            (info.kind, info.capacity, in_use),
            (TargetKind::File, 8192, None)
        );
    }
}
