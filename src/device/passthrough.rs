//! The NVMe namespace's character device (`/dev/ng0n1`), for `--engine io-uring-cmd`: found
//! from the block device that every safety check, the exclusive open and the lock are made
//! on, and checked before anything is written.
//!
//! Since Linux 5.13 every NVMe namespace has a character device beside its block device,
//! named `ng<controller>n<namespace>` where the block device is `nvme<subsystem>n<namespace>`
//! (the same numbers unless several controllers share a subsystem), listed in sysfs under
//! `/sys/class/nvme-generic`. `NVME_IOCTL_ID` (`_IO('N', 0x40)`) on either gives the
//! namespace identifier, which must agree.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Result;

use super::sysfs::{disk_sys_dir, sys_dir};
use super::{TargetInfo, TargetKind};
use crate::engine::uring_cmd::Namespace;
use crate::error::usage;

/// `_IO('N', 0x40)`: the namespace identifier of the device the fd is open on.
const NVME_IOCTL_ID: libc::c_ulong = ((b'N' as libc::c_ulong) << 8) | 0x40;

/// `ngXnY` for a file name `nvmeXnY` (a namespace, not a partition), and back.
fn swap_prefix(name: &str, from: &str, to: &str) -> Option<String> {
    let rest = name.strip_prefix(from)?;
    let (ctrl, ns) = rest.split_once('n')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    (digits(ctrl) && digits(ns)).then(|| format!("{to}{ctrl}n{ns}"))
}

/// The block device of a namespace's character device path (`/dev/ng0n1` →
/// `/dev/nvme0n1`), or None when `spec` is not named as one.
pub fn block_device_of(spec: &str) -> Option<PathBuf> {
    let p = Path::new(spec);
    let name = swap_prefix(&p.file_name()?.to_string_lossy(), "ng", "nvme")?;
    Some(p.with_file_name(name))
}

/// True when the target was named by its character device (`/dev/ng0n1`).
pub fn named_by_char_device(info: &TargetInfo) -> bool {
    block_device_of(&info.spec).is_some()
        && info
            .path
            .as_ref()
            .is_some_and(|p| p.as_os_str() != info.spec.as_str())
}

fn ioctl_id(f: &File) -> io::Result<u32> {
    // SAFETY: NVME_IOCTL_ID takes no argument and returns the nsid as the call's value; the
    // fd is open for the duration of the call.
    let r = unsafe { libc::ioctl(f.as_raw_fd(), NVME_IOCTL_ID as _) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(r as u32)
}

/// The namespace to send NVMe commands to for `info`, a whole NVMe namespace's block device;
/// a usage error naming the reason otherwise (a file, a partition, a device that is not
/// NVMe, a kernel without character devices, no permission). `flag` is what the user typed.
pub fn namespace(info: &TargetInfo, flag: &str) -> Result<Namespace> {
    let spec = &info.spec;
    let not_nvme = || {
        usage(format!(
            "{flag} sends NVMe commands to a namespace; {spec} is not an NVMe namespace (give \
             /dev/nvmeXnY or /dev/ngXnY, or leave {flag} out)"
        ))
    };
    if info.kind != TargetKind::Block {
        return Err(not_nvme());
    }
    let dev = info.dev.ok_or_else(not_nvme)?;
    let sys = sys_dir(dev).ok_or_else(not_nvme)?;
    if sys.join("partition").exists() {
        let disk = disk_sys_dir(dev)
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "the namespace".into());
        return Err(usage(format!(
            "{flag} writes a whole namespace by its block numbers, past any partition table; \
             {spec} is a partition of {disk}: give /dev/{disk} (its data will be destroyed) or \
             leave {flag} out"
        )));
    }
    let block_name = sys
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Some(ng) = swap_prefix(&block_name, "nvme", "ng") else {
        return Err(not_nvme());
    };
    if !Path::new("/sys/class/nvme-generic").join(&ng).exists() {
        return Err(usage(format!(
            "{flag}: {block_name} has no NVMe character device {ng} (the kernel makes them from \
             Linux 5.13 on); leave {flag} out"
        )));
    }
    let path = PathBuf::from("/dev").join(&ng);
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::EACCES) | Some(libc::EPERM) => usage(format!(
                "{flag}: cannot open {} ({e}); NVMe commands need write access to it (root)",
                path.display()
            )),
            Some(libc::ENOENT) => usage(format!(
                "{flag}: {} is not in /dev (sysfs lists {ng}: is devtmpfs or udev running?)",
                path.display()
            )),
            _ => usage(format!("{flag}: cannot open {}: {e}", path.display())),
        })?;
    let block_path = info.path.clone().unwrap_or_default();
    let block_nsid = File::open(&block_path).and_then(|f| ioctl_id(&f));
    let ng_nsid = ioctl_id(&file);
    let nsid = match (block_nsid, ng_nsid) {
        (Ok(a), Ok(b)) if a == b => a,
        (Ok(a), Ok(b)) => {
            return Err(usage(format!(
                "{flag}: {} is namespace {b} but {} is namespace {a}; give /dev/ngXnY of \
                 namespace {a} (nvme list-ns shows them)",
                path.display(),
                block_path.display()
            )))
        }
        (Err(e), _) | (_, Err(e)) => {
            return Err(usage(format!(
                "{flag}: cannot read the namespace identifier of {} ({e})",
                path.display()
            )))
        }
    };
    let lbs = info.mem_align.max(512);
    if !lbs.is_power_of_two() {
        return Err(usage(format!(
            "{flag}: {spec}'s logical block size {lbs} is not a power of two"
        )));
    }
    Ok(Namespace {
        file: Arc::new(file),
        path,
        nsid,
        lba_shift: lbs.trailing_zeros(),
    })
}

/// The most bytes one command may carry on `info`'s device (`queue/max_hw_sectors_kb`), where
/// sysfs says it.
pub fn max_transfer_bytes(info: &TargetInfo) -> Option<u64> {
    let disk = disk_sys_dir(info.dev?)?;
    let kb: u64 = std::fs::read_to_string(disk.join("queue/max_hw_sectors_kb"))
        .ok()?
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn character_and_block_names_map_both_ways() {
        assert_eq!(
            block_device_of("/dev/ng0n1"),
            Some(PathBuf::from("/dev/nvme0n1"))
        );
        assert_eq!(
            block_device_of("/dev/ng12n3"),
            Some(PathBuf::from("/dev/nvme12n3"))
        );
        assert_eq!(block_device_of("/dev/nvme0n1"), None);
        assert_eq!(block_device_of("/dev/ng0"), None, "no namespace");
        assert_eq!(block_device_of("/dev/ngxn1"), None);
        assert_eq!(block_device_of("/dev/ng0n1p1"), None, "no partitions");
        assert_eq!(
            swap_prefix("nvme1n2", "nvme", "ng").as_deref(),
            Some("ng1n2")
        );
        assert_eq!(swap_prefix("nvme1n2p1", "nvme", "ng"), None);
        assert_eq!(swap_prefix("loop0", "nvme", "ng"), None);
    }

    #[test]
    fn the_id_ioctl_is_the_kernels() {
        // linux/nvme_ioctl.h: #define NVME_IOCTL_ID _IO('N', 0x40)
        assert_eq!(NVME_IOCTL_ID, 0x4E40);
    }
}
