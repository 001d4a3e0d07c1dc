//! Regular files as targets: creating and sizing them, and their direct-I/O alignment.

use std::fs::OpenOptions;
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{anyhow, bail, Context, Result};

use super::hwmon::hwmon_for_dev;
use super::{check_not_protected, refuse, OpenRequest, Target, TargetInfo, TargetKind};
use crate::error::usage;
use crate::timeline::DeviceIdentity;

/// The kernel's own users of a regular file, which a write would corrupt: a loop device it
/// backs (`/sys/block/loop*/loop/backing_file`) or an active swap file (`/proc/swaps`). The
/// file is matched by device and inode, so any path to it counts.
fn held_by_kernel(spec: &str, m: &std::fs::Metadata) -> Option<String> {
    let same = |p: &str| {
        let p = p.trim().trim_end_matches(" (deleted)");
        std::fs::metadata(p).is_ok_and(|o| o.dev() == m.dev() && o.ino() == m.ino())
    };
    if let Ok(dir) = std::fs::read_dir("/sys/block") {
        let mut loops: Vec<_> = dir
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("loop"))
            .collect();
        loops.sort();
        for name in loops {
            let f = format!("/sys/block/{name}/loop/backing_file");
            if std::fs::read_to_string(&f).is_ok_and(|b| same(&b)) {
                return Some(format!(
                    "{spec} backs the loop device /dev/{name}: writing it would corrupt what is \
                     on that device (a mounted filesystem); detach it first (losetup -d \
                     /dev/{name})"
                ));
            }
        }
    }
    if let Ok(swaps) = std::fs::read_to_string("/proc/swaps") {
        for line in swaps.lines().skip(1) {
            if let Some(p) = line.split_whitespace().next() {
                if same(p) {
                    return Some(format!(
                        "{spec} is an active swap file: the kernel refuses to write it (\"Text \
                         file busy\"); swapoff {p} first"
                    ));
                }
            }
        }
    }
    None
}

/// `TMPFS_MAGIC` from the kernel's `linux/magic.h`.
const TMPFS_MAGIC: i64 = 0x0102_1994;

/// A note when `dir` is on tmpfs: writes there go to memory, not to a drive.
pub(super) fn tmpfs_note(spec: &str, dir: &Path) -> Option<String> {
    let st = rustix::fs::statfs(dir).ok()?;
    (st.f_type as i64 == TMPFS_MAGIC).then(|| {
        format!(
            "{spec} is on tmpfs: its writes go to the machine's memory, so the run measures RAM, \
             not a drive"
        )
    })
}

/// Refuses a new file of `size` bytes that the free space of `dir` cannot hold.
fn check_free_space(spec: &str, dir: &Path, size: u64) -> Result<()> {
    // A filesystem that reports no size at all (ramfs: zero blocks) is not checked.
    if let Ok(st) = rustix::fs::statvfs(dir).map_err(|_| ()).and_then(|st| {
        if st.f_blocks == 0 {
            Err(())
        } else {
            Ok(st)
        }
    }) {
        let free = st.f_bavail.saturating_mul(st.f_frsize);
        if size > free {
            return Err(usage(format!(
                "--size {}: more than the free space where {spec} would be created ({} free \
                 in {}); give a smaller --size",
                crate::units::format_bytes(size as f64, crate::units::UnitSystem::Decimal),
                crate::units::format_bytes(free as f64, crate::units::UnitSystem::Decimal),
                dir.display()
            )));
        }
    }
    Ok(())
}

pub(super) fn inspect_new(spec: &str, path: PathBuf, req: &OpenRequest) -> Result<TargetInfo> {
    // The results store's -wal and -shm files come and go: their names are refused too.
    check_not_protected(spec, &path, None)?;
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
    check_free_space(spec, &parent, size)?;
    if let Some(n) = tmpfs_note(spec, &parent) {
        crate::note!("slccache: note: {n}");
    }
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
        nvme: None,
        ata: None,
        ata_note: None,
    })
}

pub(super) fn inspect_existing(
    spec: &str,
    path: PathBuf,
    m: &std::fs::Metadata,
    req: &OpenRequest,
) -> Result<TargetInfo> {
    check_not_protected(spec, &path, None)?;
    if let Some(why) = held_by_kernel(spec, m) {
        return Err(refuse(spec, &why));
    }
    if !req.overwrite {
        return Err(refuse(
            spec,
            "the file exists; give --overwrite to overwrite it (its content will be destroyed)",
        ));
    }
    // An empty file may be given a size; a file with data in it keeps its size.
    if let Some(size) = req.size.filter(|_| m.len() > 0) {
        return Err(usage(format!(
            "--size {size} bytes: {spec} exists already ({} bytes), and --size only sets the \
             size of a new file; leave --size out to write the whole file, or give --span to \
             write only part of it",
            m.len()
        )));
    }
    let capacity = req.size.unwrap_or(m.len());
    if capacity == 0 {
        return Err(usage(format!(
            "{spec} is empty; give --size to set how much of it to write"
        )));
    }
    let (offset_align, mem_align) = dio_alignment(&path)?;
    if let Some(n) = path.parent().and_then(|d| {
        tmpfs_note(
            spec,
            if d.as_os_str().is_empty() {
                Path::new(".")
            } else {
                d
            },
        )
    }) {
        crate::note!("slccache: note: {n}");
    }
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
        nvme: None,
        ata: None,
        ata_note: None,
    })
}

/// Reads what an existing file is (size, direct-I/O alignment, the temperature sensor of the
/// disk below it) without the overwrite refusal and without writing anything: for `info`.
pub(super) fn describe(spec: &str, path: PathBuf, m: &std::fs::Metadata) -> TargetInfo {
    // A filesystem without direct I/O still has a size to show.
    let (offset_align, mem_align) = dio_alignment(&path).unwrap_or((4096, 4096));
    TargetInfo {
        spec: spec.to_string(),
        kind: TargetKind::File,
        path: Some(path),
        identity: file_identity(spec, m.len(), Some(offset_align)),
        capacity: m.len(),
        offset_align: Some(offset_align),
        mem_align,
        exists: true,
        emulated: None,
        dev: None,
        hwmon: hwmon_for_dev(m.dev()),
        nvme: None,
        ata: None,
        ata_note: None,
    }
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

/// Opens (creating or sizing as needed) a file target with `O_DIRECT`.
pub(super) fn open(mut info: TargetInfo) -> Result<Target> {
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
        .read(true)
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
