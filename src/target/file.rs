//! Regular files as targets: creating and sizing them, and their direct-I/O alignment.

use std::fs::OpenOptions;
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{anyhow, bail, Context, Result};

use super::hwmon::hwmon_for_dev;
use super::{refuse, OpenRequest, Target, TargetInfo, TargetKind};
use crate::error::usage;
use crate::timeline::DeviceIdentity;

pub(super) fn inspect_new(spec: &str, path: PathBuf, req: &OpenRequest) -> Result<TargetInfo> {
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
        nvme: None,
    })
}

pub(super) fn inspect_existing(
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
