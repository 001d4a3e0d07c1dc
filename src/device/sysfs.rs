//! Where a block device sits in sysfs: its folder, the whole disk's, a name's device number.
//! Read by the block devices, their sensors and the NVMe code alike.

use std::path::{Path, PathBuf};

/// `/sys/dev/block/MAJ:MIN`, resolved.
pub(super) fn sys_dir(dev: (u32, u32)) -> Option<PathBuf> {
    std::fs::canonicalize(format!("/sys/dev/block/{}:{}", dev.0, dev.1)).ok()
}

/// The device number of the block device named `name` in sysfs (`nvme0n2`).
pub(super) fn dev_of_name(name: &str) -> Option<(u32, u32)> {
    parse_dev(&std::fs::read_to_string(Path::new("/sys/class/block").join(name).join("dev")).ok()?)
}

pub(super) fn parse_dev(s: &str) -> Option<(u32, u32)> {
    let (a, b) = s.trim().split_once(':')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// The sysfs folder of the whole disk holding block device `dev` (its parent for a
/// partition).
pub(super) fn disk_sys_dir(dev: (u32, u32)) -> Option<PathBuf> {
    let s = sys_dir(dev)?;
    if s.join("partition").exists() {
        s.parent().map(Path::to_path_buf)
    } else {
        Some(s)
    }
}
