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

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{anyhow, bail, Context, Result};

use crate::engine::emulated::EmulatedDrive;
use crate::error::usage;
use crate::timeline::DeviceIdentity;
use crate::units::{format_bytes, UnitSystem};

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
    /// `--size`: size of a file to create (or to resize an existing one to).
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

fn refuse(path: &str, reason: impl Into<String>) -> anyhow::Error {
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
        let drive = EmulatedDrive::open(rest)?;
        let mut identity = drive.identity();
        if identity.capacity_bytes.is_none() {
            identity.capacity_bytes = Some(drive.capacity_bytes());
        }
        return Ok(TargetInfo {
            spec: spec.to_string(),
            kind: TargetKind::Emulated,
            path: None,
            identity,
            capacity: drive.capacity_bytes(),
            offset_align: Some(drive.alignment()),
            mem_align: drive.alignment(),
            exists: true,
            emulated: Some(drive),
            dev: None,
            hwmon: None,
        });
    }
    let path = PathBuf::from(spec);
    match std::fs::metadata(&path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => inspect_new_file(spec, path, req),
        Err(e) => Err(anyhow!(e).context(format!("cannot look at {spec}"))),
        Ok(m) if m.file_type().is_block_device() => inspect_block(spec, path, &m, req),
        Ok(m) if m.is_file() => inspect_existing_file(spec, path, &m, req),
        Ok(_) => Err(usage(format!(
            "{spec} is neither a regular file nor a block device"
        ))),
    }
}

fn inspect_new_file(spec: &str, path: PathBuf, req: &OpenRequest) -> Result<TargetInfo> {
    let size = req.size.ok_or_else(|| {
        usage(format!(
            "{spec} does not exist; give --size (e.g. --size 1GiB) to create it"
        ))
    })?;
    if size == 0 {
        return Err(usage("--size must be more than zero"));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let pm = std::fs::metadata(&parent)
        .map_err(|e| usage(format!("cannot create {spec}: {}: {e}", parent.display())))?;
    Ok(TargetInfo {
        spec: spec.to_string(),
        kind: TargetKind::File,
        path: Some(path),
        identity: file_identity(spec, size, None),
        capacity: size,
        offset_align: None,
        mem_align: 4096,
        exists: false,
        emulated: None,
        dev: None,
        hwmon: hwmon_for_dev(pm.dev()),
    })
}

fn inspect_existing_file(
    spec: &str,
    path: PathBuf,
    m: &std::fs::Metadata,
    req: &OpenRequest,
) -> Result<TargetInfo> {
    if !req.overwrite {
        return Err(refuse(
            spec,
            "the file exists; give --overwrite to overwrite it (its content will be destroyed)",
        ));
    }
    let capacity = req.size.unwrap_or(m.len());
    if capacity == 0 {
        return Err(usage(format!(
            "{spec} is empty; give --size to set how much of it to write"
        )));
    }
    let (offset_align, mem_align) = dio_alignment(&path)?;
    Ok(TargetInfo {
        spec: spec.to_string(),
        kind: TargetKind::File,
        path: Some(path),
        identity: file_identity(spec, capacity, Some(offset_align)),
        capacity,
        offset_align: Some(offset_align),
        mem_align,
        exists: true,
        emulated: None,
        dev: None,
        hwmon: hwmon_for_dev(m.dev()),
    })
}

fn file_identity(spec: &str, capacity: u64, align: Option<u64>) -> DeviceIdentity {
    DeviceIdentity {
        path: spec.to_string(),
        kind: "file".into(),
        capacity_bytes: Some(capacity),
        logical_block_size: align.map(|a| a as u32),
        ..DeviceIdentity::default()
    }
}

/// Direct-I/O alignment of a file: (offset alignment, memory alignment), from statx
/// `DIOALIGN`. Errors clearly when the filesystem does not do direct I/O.
fn dio_alignment(path: &Path) -> Result<(u64, u64)> {
    use rustix::fs::{statx, AtFlags, StatxFlags, CWD};
    match statx(CWD, path, AtFlags::empty(), StatxFlags::DIOALIGN) {
        Ok(st) if st.stx_mask & StatxFlags::DIOALIGN.bits() != 0 => {
            if st.stx_dio_offset_align == 0 {
                bail!(no_direct_io(path));
            }
            Ok((
                st.stx_dio_offset_align as u64,
                st.stx_dio_mem_align.max(1) as u64,
            ))
        }
        // The filesystem does not report it: the page size works everywhere.
        _ => Ok((4096, 4096)),
    }
}

fn no_direct_io(path: &Path) -> String {
    format!(
        "the filesystem holding {} does not support direct I/O (O_DIRECT); put the file on \
         ext4, xfs, btrfs or tmpfs (Linux 6.6 or newer), or probe a block device",
        path.display()
    )
}

fn inspect_block(
    spec: &str,
    path: PathBuf,
    m: &std::fs::Metadata,
    req: &OpenRequest,
) -> Result<TargetInfo> {
    if req.size.is_some() {
        return Err(usage(
            "--size is for files; a block device is written over its whole size (use --span \
             to limit it)",
        ));
    }
    let rdev = m.rdev();
    let dev = (rustix::fs::major(rdev), rustix::fs::minor(rdev));
    check_block_not_in_use(spec, dev)?;
    let f = File::open(&path).with_context(|| format!("cannot open {spec} to read its size"))?;
    let capacity = blk_size64(&f).with_context(|| format!("BLKGETSIZE64 on {spec}"))?;
    let logical = rustix::fs::ioctl_blksszget(&f).unwrap_or(512);
    let physical = rustix::fs::ioctl_blkpbszget(&f).unwrap_or(logical);
    drop(f);
    let sys = sys_dir(dev);
    let disk_dev_dir = sys.as_ref().map(|s| {
        if s.join("partition").exists() {
            s.join("..").join("device")
        } else {
            s.join("device")
        }
    });
    let read = |name: &str| -> Option<String> {
        let d = disk_dev_dir.as_ref()?;
        let v = std::fs::read_to_string(d.join(name)).ok()?;
        let v = v.trim().to_string();
        (!v.is_empty()).then_some(v)
    };
    let serial = read("serial").or_else(|| {
        // SCSI/SATA: VPD page 0x80 (4-byte header, then the serial).
        let d = disk_dev_dir.as_ref()?;
        let raw = std::fs::read(d.join("vpd_pg80")).ok()?;
        let s = String::from_utf8_lossy(raw.get(4..)?).trim().to_string();
        (!s.is_empty()).then_some(s)
    });
    let identity = DeviceIdentity {
        path: spec.to_string(),
        kind: "block".into(),
        model: read("model"),
        serial,
        firmware: read("firmware_rev").or_else(|| read("rev")),
        capacity_bytes: Some(capacity),
        logical_block_size: Some(logical),
        physical_block_size: Some(physical),
    };
    Ok(TargetInfo {
        spec: spec.to_string(),
        kind: TargetKind::Block,
        path: Some(path),
        identity,
        capacity,
        offset_align: Some(logical as u64),
        mem_align: logical as u64,
        exists: true,
        emulated: None,
        dev: Some(dev),
        hwmon: disk_dev_dir.and_then(|d| find_hwmon(&d)),
    })
}

fn blk_size64(f: &File) -> io::Result<u64> {
    use std::os::fd::AsRawFd;
    // _IOR(0x12, 114, size_t)
    const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;
    let mut size: u64 = 0;
    // SAFETY: BLKGETSIZE64 writes one u64 to the pointer, which points at a live u64; the fd
    // is open for the duration of the call.
    let r = unsafe { libc::ioctl(f.as_raw_fd(), BLKGETSIZE64 as _, &mut size as *mut u64) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(size)
}

/// `/sys/dev/block/MAJ:MIN`, resolved.
fn sys_dir(dev: (u32, u32)) -> Option<PathBuf> {
    std::fs::canonicalize(format!("/sys/dev/block/{}:{}", dev.0, dev.1)).ok()
}

fn parse_dev(s: &str) -> Option<(u32, u32)> {
    let (a, b) = s.trim().split_once(':')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// The device and its partitions: (dev, sysfs name).
fn device_family(dev: (u32, u32)) -> Vec<((u32, u32), String)> {
    let mut out = Vec::new();
    let Some(sys) = sys_dir(dev) else {
        return vec![(dev, format!("{}:{}", dev.0, dev.1))];
    };
    let name = sys
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    out.push((dev, name));
    if let Ok(rd) = std::fs::read_dir(&sys) {
        for e in rd.flatten() {
            let p = e.path();
            if p.join("partition").exists() {
                if let Some(d) = std::fs::read_to_string(p.join("dev"))
                    .ok()
                    .and_then(|s| parse_dev(&s))
                {
                    out.push((d, e.file_name().to_string_lossy().into_owned()));
                }
            }
        }
    }
    out
}

fn rdev_of(path: &str) -> Option<(u32, u32)> {
    let m = std::fs::metadata(path).ok()?;
    m.file_type()
        .is_block_device()
        .then(|| (rustix::fs::major(m.rdev()), rustix::fs::minor(m.rdev())))
}

/// Refuses a block device (or any of its partitions) that is mounted, active swap, held by
/// another driver (device-mapper, md, LVM), or that holds the root filesystem.
pub fn check_block_not_in_use(spec: &str, dev: (u32, u32)) -> Result<()> {
    let family = device_family(dev);
    let find = |d: (u32, u32)| family.iter().find(|(x, _)| *x == d).map(|(_, n)| n.clone());

    // Root filesystem.
    if let Ok(m) = std::fs::metadata("/") {
        let d = (rustix::fs::major(m.dev()), rustix::fs::minor(m.dev()));
        if let Some(n) = find(d) {
            return Err(refuse(spec, format!("{n} holds the root filesystem")));
        }
    }
    // Mounts (by device number, and by source path for filesystems that report an
    // anonymous device number, like btrfs).
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    for line in mountinfo.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        if f.len() < 5 {
            continue;
        }
        let mount_point = unescape_mount(f[4]);
        let source = line
            .split(" - ")
            .nth(1)
            .and_then(|rest| rest.split(' ').nth(1))
            .unwrap_or("");
        let by_num = parse_dev(f[2]).and_then(find);
        let by_src = if source.starts_with('/') {
            rdev_of(&unescape_mount(source)).and_then(find)
        } else {
            None
        };
        if let Some(n) = by_num.or(by_src) {
            if mount_point == "/" {
                return Err(refuse(spec, format!("{n} holds the root filesystem")));
            }
            return Err(refuse(
                spec,
                format!("{n} is mounted at {mount_point}; unmount it first"),
            ));
        }
    }
    // Swap.
    let swaps = std::fs::read_to_string("/proc/swaps").unwrap_or_default();
    for line in swaps.lines().skip(1) {
        if let Some(p) = line.split_whitespace().next() {
            if let Some(n) = rdev_of(&unescape_mount(p)).and_then(find) {
                return Err(refuse(
                    spec,
                    format!("{n} is active swap; run swapoff first"),
                ));
            }
        }
    }
    // Holders (device-mapper, md, LVM, bcache...).
    for (_, name) in &family {
        let dir = Path::new("/sys/class/block").join(name).join("holders");
        if let Ok(rd) = std::fs::read_dir(&dir) {
            let holders: Vec<String> = rd
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            if !holders.is_empty() {
                return Err(refuse(
                    spec,
                    format!(
                        "{name} is in use by {} (device-mapper, md RAID or LVM); stop that first",
                        holders.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// mountinfo escapes space, tab, newline and backslash as octal.
fn unescape_mount(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() && b[i + 1..i + 4].iter().all(|c| c.is_ascii_digit()) {
            let v = (b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0');
            out.push(v);
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn find_hwmon(dev_dir: &Path) -> Option<PathBuf> {
    let mut dirs = vec![dev_dir.to_path_buf(), dev_dir.join("hwmon")];
    dirs.retain(|d| d.is_dir());
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        let mut entries: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("hwmon"))
            })
            .collect();
        entries.sort();
        for e in entries {
            let t = e.join("temp1_input");
            if t.is_file() {
                return Some(t);
            }
        }
    }
    None
}

/// hwmon of the disk holding a filesystem with device number `dev`.
fn hwmon_for_dev(dev: u64) -> Option<PathBuf> {
    let d = (rustix::fs::major(dev), rustix::fs::minor(dev));
    let sys = sys_dir(d)?;
    let disk = if sys.join("partition").exists() {
        sys.join("..")
    } else {
        sys
    };
    find_hwmon(&disk.join("device"))
}

/// Opens the target for writing: asks for agreement on block devices, checks again that they
/// are not in use, and opens with `O_DIRECT` (plus `O_EXCL` on block devices). Files are
/// created or resized as asked. `confirm` shows the prompt and returns whether the user typed
/// the device name.
pub fn open_for_write(
    mut info: TargetInfo,
    req: &OpenRequest,
    confirm: &mut dyn FnMut(&ConfirmPrompt) -> io::Result<bool>,
) -> Result<Target> {
    match info.kind {
        TargetKind::Emulated => Ok(Target {
            info,
            file: None,
            created: false,
        }),
        TargetKind::Block => {
            let path = info.path.clone().expect("block target has a path");
            let name = path
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            if !req.destroy_data {
                if !req.interactive {
                    return Err(refuse(
                        &info.spec,
                        "all data on this block device would be destroyed, and there is no \
                         terminal to ask for agreement; give --destroy-data to agree",
                    ));
                }
                let prompt = ConfirmPrompt {
                    path: info.spec.clone(),
                    name: name.clone(),
                    model: info.identity.model.clone(),
                    capacity_bytes: info.capacity,
                };
                if !confirm(&prompt).context("asking for agreement")? {
                    return Err(refuse(
                        &info.spec,
                        "the device name was not typed; nothing written",
                    ));
                }
            }
            // Check again: things may have changed while the user was reading.
            if let Some(dev) = info.dev {
                check_block_not_in_use(&info.spec, dev)?;
            }
            let f = OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_DIRECT | libc::O_EXCL)
                .open(&path)
                .map_err(|e| {
                    if e.raw_os_error() == Some(libc::EBUSY) {
                        refuse(
                            &info.spec,
                            "it is in use (opening it exclusively failed with EBUSY: mounted, \
                             or held by another program)",
                        )
                    } else {
                        anyhow!(e).context(format!("cannot open {} for writing", info.spec))
                    }
                })?;
            Ok(Target {
                info,
                file: Some(Arc::new(f)),
                created: false,
            })
        }
        TargetKind::File => {
            let path = info.path.clone().expect("file target has a path");
            let created = !info.exists;
            let plain = OpenOptions::new()
                .write(true)
                .create_new(created)
                .open(&path)
                .with_context(|| format!("cannot open {} for writing", info.spec))?;
            let sized = (|| -> io::Result<()> {
                let len = plain.metadata()?.len();
                if len > info.capacity {
                    plain.set_len(info.capacity)?;
                } else if len < info.capacity {
                    // Allocate the blocks (like fio does), so writes do not allocate; fall
                    // back to a sparse file where fallocate is not supported.
                    if rustix::fs::fallocate(
                        &plain,
                        rustix::fs::FallocateFlags::empty(),
                        0,
                        info.capacity,
                    )
                    .is_err()
                    {
                        plain.set_len(info.capacity)?;
                    }
                }
                Ok(())
            })();
            drop(plain);
            let cleanup = |e: anyhow::Error| {
                if created {
                    let _ = std::fs::remove_file(&path);
                }
                e
            };
            sized
                .map_err(|e| {
                    anyhow!(e).context(format!(
                        "cannot size {} to {} bytes",
                        info.spec, info.capacity
                    ))
                })
                .map_err(cleanup)?;
            let f = OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_DIRECT)
                .open(&path)
                .map_err(|e| {
                    if e.raw_os_error() == Some(libc::EINVAL) {
                        anyhow!(no_direct_io(&path))
                    } else {
                        anyhow!(e).context(format!("cannot open {} with O_DIRECT", info.spec))
                    }
                })
                .map_err(cleanup)?;
            let (oa, ma) = dio_alignment(&path).map_err(cleanup)?;
            info.offset_align = Some(oa);
            info.mem_align = ma;
            info.identity.logical_block_size = Some(oa as u32);
            Ok(Target {
                info,
                file: Some(Arc::new(f)),
                created,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mountinfo_escapes() {
        assert_eq!(unescape_mount("/mnt/a\\040b"), "/mnt/a b");
        assert_eq!(unescape_mount("/plain"), "/plain");
        assert_eq!(unescape_mount("x\\"), "x\\");
    }

    #[test]
    fn the_root_device_is_refused() {
        let m = std::fs::metadata("/").unwrap();
        let dev = (rustix::fs::major(m.dev()), rustix::fs::minor(m.dev()));
        if dev.0 == 0 {
            eprintln!("skipped: / is not on a block device here (overlay or tmpfs)");
            return;
        }
        let e = check_block_not_in_use("/dev/root-under-test", dev).unwrap_err();
        let s = e.to_string();
        assert!(s.contains("root filesystem"), "{s}");
    }

    #[test]
    fn fit_checks() {
        let info = TargetInfo {
            spec: "x".into(),
            kind: TargetKind::File,
            path: Some("x".into()),
            identity: DeviceIdentity::default(),
            capacity: 1 << 20,
            offset_align: Some(4096),
            mem_align: 4096,
            exists: true,
            emulated: None,
            dev: None,
            hwmon: None,
        };
        assert_eq!(info.check_fit(4096, None).unwrap(), 1 << 20);
        assert_eq!(info.check_fit(8192, Some(65536)).unwrap(), 65536);
        for (bs, span) in [(512, None), (4096, Some(1000)), (4096, Some(2 << 20))] {
            let e = info.check_fit(bs, span).unwrap_err();
            assert_eq!(crate::error::exit_code(&e), 2, "{e}");
        }
        assert_eq!(info.short_name(), "x");
    }
}
