//! Drive temperature from hwmon (NVMe's own sensor, SATA drivetemp).

use std::path::{Path, PathBuf};

use super::sysfs::sys_dir;

pub(super) fn find_hwmon(dev_dir: &Path) -> Option<PathBuf> {
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
pub(super) fn hwmon_for_dev(dev: u64) -> Option<PathBuf> {
    let d = (rustix::fs::major(dev), rustix::fs::minor(dev));
    let sys = sys_dir(d)?;
    let disk = if sys.join("partition").exists() {
        sys.join("..")
    } else {
        sys
    };
    find_hwmon(&disk.join("device"))
}
