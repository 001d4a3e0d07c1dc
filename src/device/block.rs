//! Block devices as targets: identity from sysfs and ioctls, and the safety checks that
//! refuse mounted, swap, held or root devices before anything is written.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{anyhow, Context, Result};

use super::ata;
use super::hwmon::find_hwmon;
use super::nvme::{is_nvme_name, IdentifyController, NvmeDevice};
use super::sysfs::{disk_sys_dir, parse_dev, sys_dir};
use super::{
    check_not_protected, refuse, ConfirmPrompt, OpenRequest, Target, TargetInfo, TargetKind,
};
use crate::error::usage;
use crate::timeline::DeviceIdentity;

pub(super) fn inspect(
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
    if let Some(backing) = loop_backing_file(dev) {
        let backing = backing.trim_end_matches(" (deleted)");
        check_not_protected(spec, &path, Some(Path::new(backing)))?;
    }
    describe(spec, path, m)
}

/// Reads what a block device is (identity, sizes, sensors, the NVMe admin interface) without
/// the safety refusals and without writing anything: for `info`, and after the refusals for
/// `probe`.
pub(super) fn describe(spec: &str, path: PathBuf, m: &std::fs::Metadata) -> Result<TargetInfo> {
    let rdev = m.rdev();
    let dev = (rustix::fs::major(rdev), rustix::fs::minor(rdev));
    let f = File::open(&path).with_context(|| format!("cannot open {spec} to read its size"))?;
    if blk_read_only(&f).unwrap_or(false) {
        return Err(refuse(
            spec,
            "the device is read-only (BLKROGET; e.g. a loop device set up with losetup -r, \
             or a write-protected drive); nothing written",
        ));
    }
    let capacity = blk_size64(&f).with_context(|| format!("BLKGETSIZE64 on {spec}"))?;
    let logical = rustix::fs::ioctl_blksszget(&f).unwrap_or(512);
    let physical = rustix::fs::ioctl_blkpbszget(&f).unwrap_or(logical);
    drop(f);
    let disk = disk_sys_dir(dev);
    let disk_dev_dir = disk.as_ref().map(|d| d.join("device"));
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
    // NVMe: admin commands go to the namespace's block device itself (read-only open).
    let is_nvme = disk
        .as_ref()
        .and_then(|d| d.file_name())
        .is_some_and(|n| is_nvme_name(&n.to_string_lossy()));
    let nvme = if is_nvme {
        NvmeDevice::open(&path).ok().map(Arc::new)
    } else {
        None
    };
    // A SCSI disk (`sdX`): SATA through libata, or USB. ATA IDENTIFY DEVICE through SG_IO's
    // ATA PASS-THROUGH (16), a read, tells an ATA drive and gives its whole identity.
    let disk_name = disk
        .as_ref()
        .and_then(|d| d.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (ata, ata_note) = if !is_nvme && ata::is_scsi_disk_name(&disk_name) {
        let usb = disk_dev_dir.as_deref().and_then(ata::usb_speed_mbps);
        match ata::probe(&path, usb) {
            ata::Probe::Ata(a) => (Some(Arc::new(a)), None),
            ata::Probe::Not(line) => (None, line),
        }
    } else {
        (None, None)
    };
    let ata_id = ata.as_ref().map(|a| &a.identify);
    let from_ata = |f: fn(&ata::AtaIdentify) -> &String| {
        ata_id.map(|i| f(i).clone()).filter(|s| !s.is_empty())
    };
    let ident = nvme.as_ref().and_then(|n| n.identify().ok());
    let from_ident = |f: fn(&IdentifyController) -> &String| {
        ident
            .as_ref()
            .map(|i| f(i).clone())
            .filter(|s| !s.is_empty())
    };
    let identity = DeviceIdentity {
        path: spec.to_string(),
        kind: "block".into(),
        // An ATA drive's own strings first: sysfs's SCSI `model` holds 16 characters and its
        // `rev` 4 (of an 8-character ATA firmware revision).
        model: from_ata(|i| &i.model)
            .or_else(|| read("model"))
            .or_else(|| from_ident(|i| &i.model)),
        serial: from_ata(|i| &i.serial)
            .or(serial)
            .or_else(|| from_ident(|i| &i.serial)),
        firmware: from_ata(|i| &i.firmware)
            .or_else(|| read("firmware_rev"))
            .or_else(|| read("rev"))
            .or_else(|| from_ident(|i| &i.firmware)),
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
        nvme,
        ata,
        ata_note,
    })
}

/// For polled completions (`--engine io-uring-poll` or `--hipri`, the `flag` the user typed,
/// which the errors name): the target must be a block device whose queue polls
/// (`queue/io_poll` is 1: on NVMe, the driver was given poll queues). A usage error
/// otherwise, before anything is written: a ring set up for polling on a device without poll
/// queues fails every write with EOPNOTSUPP.
pub fn check_polling(info: &TargetInfo, flag: &str) -> Result<()> {
    if info.kind != TargetKind::Block {
        return Err(usage(format!(
            "{flag} polls a block device's queues; {} is not a block device",
            info.spec
        )));
    }
    let disk = info.dev.and_then(disk_sys_dir);
    let polls = disk
        .as_ref()
        .and_then(|d| std::fs::read_to_string(d.join("queue/io_poll")).ok())
        .map(|v| v.trim() == "1");
    if polls != Some(true) {
        let name = disk
            .as_ref()
            .and_then(|d| d.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| info.spec.clone());
        return Err(usage(format!(
            "{flag}: {name} has no poll queues (queue/io_poll is not 1); on NVMe, load the \
             driver with poll queues (nvme.poll_queues=2 on the kernel command line, or \
             `modprobe nvme poll_queues=2`), or leave {flag} out"
        )));
    }
    Ok(())
}

/// Whether the kernel has the device read-only (`BLKROGET`).
fn blk_read_only(f: &File) -> io::Result<bool> {
    use std::os::fd::AsRawFd;
    // _IO(0x12, 94)
    const BLKROGET: libc::c_ulong = 0x125e;
    let mut ro: libc::c_int = 0;
    // SAFETY: BLKROGET writes one int to the pointer, which points at a live c_int; the fd is
    // open for the duration of the call.
    let r = unsafe { libc::ioctl(f.as_raw_fd(), BLKROGET as _, &mut ro as *mut libc::c_int) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(ro != 0)
}

/// The file behind a loop device, from sysfs, for the confirmation prompt.
pub(super) fn loop_backing_file(dev: (u32, u32)) -> Option<String> {
    let sys = sys_dir(dev)?;
    let v = std::fs::read_to_string(sys.join("loop").join("backing_file")).ok()?;
    let v = v.trim().to_string();
    (!v.is_empty()).then_some(v)
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

/// Asks for agreement where needed, checks again that the device is not in use, and opens it
/// with `O_DIRECT | O_EXCL`.
pub(super) fn open(
    info: TargetInfo,
    req: &OpenRequest,
    confirm: &mut dyn FnMut(&ConfirmPrompt) -> io::Result<bool>,
) -> Result<Target> {
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
        let model = info.identity.model.clone().or_else(|| {
            info.dev
                .and_then(loop_backing_file)
                .map(|b| format!("a loop device over {b}"))
        });
        let prompt = ConfirmPrompt {
            path: info.spec.clone(),
            name: name.clone(),
            model,
            capacity_bytes: info.capacity,
        };
        if !confirm(&prompt).context("asking for agreement")? {
            return Err(refuse(
                &info.spec,
                format!("the answer was not the device name ({name}); nothing written"),
            ));
        }
    }
    // Check again: things may have changed while the user was reading.
    if let Some(dev) = info.dev {
        check_block_not_in_use(&info.spec, dev)?;
    }
    let f = OpenOptions::new()
        .read(true)
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
            nvme: None,
            ata: None,
            ata_note: None,
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
