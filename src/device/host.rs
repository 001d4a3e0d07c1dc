//! The machine a run was made on, and the target device's queue settings, for the record
//! (`summary.json` → `host`): a run on another kernel, scheduler or PCIe link is another
//! measurement.
//!
//! Everything comes from `uname`, `/proc/cpuinfo` and sysfs; a field sysfs does not have is
//! left out (loop devices have no PCIe link, files on tmpfs have no queue).

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::sysfs::disk_sys_dir;
use super::{TargetInfo, TargetKind};

/// The host and the device's queue, as far as they could be read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HostInfo {
    /// Kernel release (`uname -r`), e.g. "6.8.0-45-generic".
    pub kernel: Option<String>,
    /// CPU model (`/proc/cpuinfo`), e.g. "AMD Ryzen 7 5800X 8-Core Processor".
    pub cpu_model: Option<String>,
    /// Logical CPUs this process may run on.
    pub cores: Option<u32>,
    /// The disk the target is on (`nvme0n1`, `sda`, `loop3`), as named in sysfs.
    pub disk: Option<String>,
    /// The disk's I/O scheduler (`queue/scheduler`, the one in brackets), e.g. "none".
    pub scheduler: Option<String>,
    /// The disk's write-cache setting (`queue/write_cache`): "write back" or "write through".
    pub write_cache: Option<String>,
    /// Current PCIe link speed of the device's PCI function, e.g. "16.0 GT/s PCIe".
    pub pcie_link_speed: Option<String>,
    /// Current PCIe link width (lanes), e.g. 4.
    pub pcie_link_width: Option<u32>,
    /// Fastest link speed the device supports.
    pub pcie_max_link_speed: Option<String>,
    /// Widest link the device supports (lanes).
    pub pcie_max_link_width: Option<u32>,
    /// The negotiated SATA link of an ATA drive, Gb/s (IDENTIFY DEVICE word 77).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sata_gbps: Option<f64>,
    /// The disk's SATA link as the kernel's libata reports it in sysfs (`sata_spd`): the
    /// second source of the link's speed where IDENTIFY gives none ([`HostInfo::sata_link`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub libata_link: Option<crate::health::ata::LibataLink>,
    /// The speed of the USB device a disk sits behind, Mb/s (sysfs `speed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usb_mbps: Option<u32>,
}

/// The scheduler in use from a `queue/scheduler` line: the bracketed one, or the only one.
pub fn parse_scheduler(line: &str) -> Option<String> {
    let line = line.trim();
    if let Some(start) = line.find('[') {
        let rest = &line[start + 1..];
        return rest.find(']').map(|e| rest[..e].to_string());
    }
    let mut words = line.split_whitespace();
    match (words.next(), words.next()) {
        (Some(one), None) => Some(one.to_string()),
        _ => None,
    }
}

/// The CPU model from `/proc/cpuinfo` text ("model name" on x86, else "Model", "Hardware" or
/// "cpu" as other architectures name it).
pub fn parse_cpu_model(cpuinfo: &str) -> Option<String> {
    for key in ["model name", "Model", "Hardware", "cpu"] {
        for line in cpuinfo.lines() {
            if let Some((k, v)) = line.split_once(':') {
                if k.trim() == key && !v.trim().is_empty() {
                    return Some(v.trim().to_string());
                }
            }
        }
    }
    None
}

fn read_trim(p: &Path) -> Option<String> {
    let v = std::fs::read_to_string(p).ok()?;
    let v = v.trim();
    (!v.is_empty() && !v.eq_ignore_ascii_case("unknown")).then(|| v.to_string())
}

impl HostInfo {
    /// The host alone (kernel, CPU), with no device.
    pub fn this_machine() -> HostInfo {
        let uname = rustix::system::uname();
        HostInfo {
            kernel: Some(uname.release().to_string_lossy().into_owned()),
            cpu_model: std::fs::read_to_string("/proc/cpuinfo")
                .ok()
                .and_then(|t| parse_cpu_model(&t)),
            cores: std::thread::available_parallelism()
                .ok()
                .map(|n| n.get() as u32),
            ..HostInfo::default()
        }
    }

    /// The host and the queue of the disk the target is on (the disk itself for a block
    /// device, the disk holding the filesystem for a file, none for an emulated drive).
    pub fn collect(target: &TargetInfo) -> HostInfo {
        let mut h = HostInfo::this_machine();
        let dev = match target.kind {
            TargetKind::Block => target.dev,
            TargetKind::File => target.path.as_ref().and_then(|p| {
                let m = std::fs::metadata(p)
                    .or_else(|_| std::fs::metadata(p.parent().unwrap_or(Path::new("."))))
                    .ok()?;
                Some((rustix::fs::major(m.dev()), rustix::fs::minor(m.dev())))
            }),
            TargetKind::Emulated => None,
        };
        if let Some(disk) = dev.and_then(disk_sys_dir) {
            h.add_disk(&disk);
        }
        if let Some(a) = &target.ata {
            h.sata_gbps = a.identify.sata_gbps_current;
        }
        h
    }

    /// Fills the device fields from a disk's sysfs folder (`/sys/block/NAME`): its queue
    /// settings, and the PCIe link of the nearest PCI function above its `device` link.
    pub fn add_disk(&mut self, disk: &Path) {
        self.disk = disk.file_name().map(|n| n.to_string_lossy().into_owned());
        self.scheduler = read_trim(&disk.join("queue/scheduler")).and_then(|l| parse_scheduler(&l));
        self.write_cache = read_trim(&disk.join("queue/write_cache"));
        self.usb_mbps = super::ata::usb_speed_mbps(&disk.join("device")).filter(|&m| m > 0);
        self.libata_link = super::ata::libata_link(&disk.join("device"));
        if let Some(pci) = pci_function(disk) {
            self.pcie_link_speed = read_trim(&pci.join("current_link_speed"));
            self.pcie_link_width =
                read_trim(&pci.join("current_link_width")).and_then(|v| v.parse().ok());
            self.pcie_max_link_speed = read_trim(&pci.join("max_link_speed"));
            self.pcie_max_link_width =
                read_trim(&pci.join("max_link_width")).and_then(|v| v.parse().ok());
        }
    }

    /// The SATA link's speed, Gb/s, and whether it is the kernel's (libata's `sata_spd`):
    /// IDENTIFY DEVICE's word 77 where the drive reports it, else the speed the kernel's
    /// libata link negotiated.
    pub fn sata_link(&self) -> Option<(f64, bool)> {
        self.sata_gbps.map(|g| (g, false)).or_else(|| {
            self.libata_link
                .as_ref()
                .and_then(|l| l.gbps)
                .map(|g| (g, true))
        })
    }

    /// The narrowest link between the host and the drive: the SATA link, the USB bridge's,
    /// the PCIe link of the PCI function above the disk (an NVMe drive's own, or a SATA
    /// controller's), whichever lets the least through.
    pub fn link(&self) -> Option<crate::link::Link> {
        let pcie = match (&self.pcie_link_speed, self.pcie_link_width) {
            (Some(s), Some(w)) => s
                .split_whitespace()
                .next()
                .and_then(|v| v.parse::<f64>().ok())
                .and_then(|gt| crate::link::Link::pcie(gt, w)),
            _ => None,
        };
        crate::link::narrowest(
            [
                self.sata_link()
                    .and_then(|(g, _)| crate::link::Link::sata(g)),
                self.usb_mbps.and_then(crate::link::Link::usb),
                pcie,
            ]
            .into_iter()
            .flatten(),
        )
    }

    /// The PCIe link as one phrase, e.g. "x4 at 16.0 GT/s PCIe (max x4 at 16.0 GT/s PCIe)".
    pub fn pcie_text(&self) -> Option<String> {
        let now = match (&self.pcie_link_width, &self.pcie_link_speed) {
            (Some(w), Some(s)) => format!("x{w} at {s}"),
            (None, Some(s)) => s.clone(),
            (Some(w), None) => format!("x{w}"),
            (None, None) => return None,
        };
        let max = match (&self.pcie_max_link_width, &self.pcie_max_link_speed) {
            (Some(w), Some(s)) => Some(format!("x{w} at {s}")),
            _ => None,
        };
        Some(match max {
            Some(m) if m != now => format!("{now} (max {m})"),
            _ => now,
        })
    }
}

/// The PCI function a disk hangs off: the first folder at or above `disk/device` (resolved)
/// that has a `current_link_speed` file, at most a few levels up.
fn pci_function(disk: &Path) -> Option<PathBuf> {
    let mut p = std::fs::canonicalize(disk.join("device")).ok()?;
    for _ in 0..6 {
        if p.join("current_link_speed").is_file() {
            return Some(p);
        }
        if !p.pop() {
            break;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_narrowest_link_is_the_host_s() {
        // A SATA drive at 6 Gb/s behind a PCIe 3.0 x1 controller: the SATA link is narrower.
        let h = HostInfo {
            sata_gbps: Some(6.0),
            pcie_link_speed: Some("8.0 GT/s PCIe".into()),
            pcie_link_width: Some(1),
            ..HostInfo::default()
        };
        assert_eq!(h.link().unwrap().name, "SATA 6.0 Gb/s");
        // The same drive behind a USB 2.0 bridge: the bridge is.
        let usb = HostInfo {
            usb_mbps: Some(480),
            ..h.clone()
        };
        assert_eq!(usb.link().unwrap().name, "USB 480 Mb/s");
        // An NVMe drive: its own PCIe link.
        let nvme = HostInfo {
            pcie_link_speed: Some("16.0 GT/s PCIe".into()),
            pcie_link_width: Some(4),
            ..HostInfo::default()
        };
        assert_eq!(nvme.link().unwrap().name, "PCIe x4 at 16.0 GT/s");
        assert_eq!(HostInfo::default().link(), None);
        // A SATA drive whose IDENTIFY gives no speed (QEMU's AHCI disk): the kernel's libata
        // link's, with the controller's PCIe link wider.
        let libata = |spd: &str| HostInfo {
            libata_link: Some(crate::health::ata::LibataLink {
                name: "link1".into(),
                sata_spd: spd.into(),
                gbps: crate::health::ata::parse_sata_spd(spd),
            }),
            pcie_link_speed: Some("2.5 GT/s PCIe".into()),
            pcie_link_width: Some(1),
            ..HostInfo::default()
        };
        let k = libata("1.5 Gbps");
        assert_eq!(k.sata_link(), Some((1.5, true)));
        assert_eq!(k.link().unwrap().name, "SATA 1.5 Gb/s");
        // IDENTIFY's word 77 first where it has one.
        let both = HostInfo {
            sata_gbps: Some(6.0),
            ..libata("1.5 Gbps")
        };
        assert_eq!(both.sata_link(), Some((6.0, false)));
        // "<unknown>": no SATA speed; the PCIe link is the one left.
        let down = libata("<unknown>");
        assert_eq!(down.sata_link(), None);
        assert_eq!(down.link().unwrap().name, "PCIe x1 at 2.5 GT/s");
    }

    #[test]
    fn scheduler_line() {
        assert_eq!(
            parse_scheduler("none [mq-deadline] kyber bfq\n").as_deref(),
            Some("mq-deadline")
        );
        assert_eq!(
            parse_scheduler("[none] mq-deadline").as_deref(),
            Some("none")
        );
        assert_eq!(parse_scheduler("none").as_deref(), Some("none"));
        assert_eq!(parse_scheduler("a b"), None);
    }

    #[test]
    fn cpu_model_on_x86_and_arm() {
        let x86 = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\n";
        assert_eq!(parse_cpu_model(x86).as_deref(), Some("AMD EPYC 7B13"));
        let arm =
            "processor\t: 0\nBogoMIPS\t: 108.00\n\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n";
        assert_eq!(
            parse_cpu_model(arm).as_deref(),
            Some("Raspberry Pi 4 Model B Rev 1.4")
        );
        assert_eq!(parse_cpu_model("processor : 0\n"), None);
    }

    /// A fake sysfs: /block/nvme0n1 whose device link points into a PCI function two levels
    /// up, as the kernel lays out an NVMe controller.
    #[test]
    fn disk_queue_and_pcie_link_from_sysfs() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        let pci = r.join("devices/pci0000:00/0000:00:01.1/0000:01:00.0");
        let ctrl = pci.join("nvme/nvme0");
        std::fs::create_dir_all(&ctrl).unwrap();
        std::fs::write(pci.join("current_link_speed"), "8.0 GT/s PCIe\n").unwrap();
        std::fs::write(pci.join("current_link_width"), "4\n").unwrap();
        std::fs::write(pci.join("max_link_speed"), "16.0 GT/s PCIe\n").unwrap();
        std::fs::write(pci.join("max_link_width"), "4\n").unwrap();
        let disk = r.join("block/nvme0n1");
        std::fs::create_dir_all(disk.join("queue")).unwrap();
        std::fs::write(disk.join("queue/scheduler"), "[none] mq-deadline kyber\n").unwrap();
        std::fs::write(disk.join("queue/write_cache"), "write back\n").unwrap();
        std::os::unix::fs::symlink(&ctrl, disk.join("device")).unwrap();
        let mut h = HostInfo::default();
        h.add_disk(&disk);
        assert_eq!(h.disk.as_deref(), Some("nvme0n1"));
        assert_eq!(h.scheduler.as_deref(), Some("none"));
        assert_eq!(h.write_cache.as_deref(), Some("write back"));
        assert_eq!(h.pcie_link_speed.as_deref(), Some("8.0 GT/s PCIe"));
        assert_eq!(h.pcie_link_width, Some(4));
        assert_eq!(
            h.pcie_text().as_deref(),
            Some("x4 at 8.0 GT/s PCIe (max x4 at 16.0 GT/s PCIe)")
        );
        // A loop device: a queue, no device link, no PCIe.
        let lo = r.join("block/loop7");
        std::fs::create_dir_all(lo.join("queue")).unwrap();
        std::fs::write(lo.join("queue/scheduler"), "none\n").unwrap();
        let mut h = HostInfo::default();
        h.add_disk(&lo);
        assert_eq!(h.scheduler.as_deref(), Some("none"));
        assert_eq!(h.write_cache, None);
        assert_eq!(h.pcie_text(), None);
    }

    #[test]
    fn this_machine_has_a_kernel_and_cores() {
        let h = HostInfo::this_machine();
        assert!(h.kernel.is_some_and(|k| !k.is_empty()));
        assert!(h.cores.is_some_and(|c| c >= 1));
    }
}
