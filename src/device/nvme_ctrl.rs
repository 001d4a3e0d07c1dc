//! `info` on an NVMe controller's character device (`/dev/nvme0`): the controller's identity,
//! its SMART / Health log for all namespaces (NSID FFFFFFFFh), and its namespaces with their
//! sizes and LBA formats. Read-only: only Identify and Get Log Page are sent.
//!
//! Parsing is pure ([`parse_identify_namespace`], [`parse_namespace_list`]) and tested on
//! pages built from the NVM Express NVM Command Set Specification 1.0 (Identify Namespace,
//! Figure 97) and the Base Specification 2.0 (the Active Namespace ID list, section 5.17.2.2).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;

use super::nvme::{HealthLog, IdentifyController, NvmeDevice};
use crate::units::{format_bytes, UnitSystem};

/// One LBA format a namespace supports (NVM Command Set 1.0, Figure 98).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LbaFormat {
    /// Data size of a logical block, bytes (2^LBADS).
    pub lba_size: u64,
    /// Metadata bytes per logical block (MS).
    pub metadata_bytes: u16,
    /// Relative Performance (RP): 0 best, 3 degraded.
    pub relative_performance: u8,
    /// Whether the namespace is formatted with it now (FLBAS).
    pub in_use: bool,
}

/// What Identify Namespace (CNS 00h) says about one namespace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NamespaceIdentify {
    /// Namespace Size (NSZE, bytes 07:00), logical blocks.
    pub size_blocks: u64,
    /// Namespace Capacity (NCAP, bytes 15:08), logical blocks.
    pub capacity_blocks: u64,
    /// Namespace Utilization (NUSE, bytes 23:16), logical blocks.
    pub used_blocks: u64,
    /// The LBA formats (NLBAF + 1 of them, from byte 128), the one in use marked.
    pub formats: Vec<LbaFormat>,
}

impl NamespaceIdentify {
    /// The format in use.
    pub fn current(&self) -> Option<&LbaFormat> {
        self.formats.iter().find(|f| f.in_use)
    }
}

/// A namespace of the controller, as `info` lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NamespaceEntry {
    /// Namespace ID.
    pub nsid: u32,
    /// Its block device, when the kernel has one (`/dev/nvme0n1`).
    pub device: Option<String>,
    /// Size in bytes (NSZE times the logical block size in use).
    pub size_bytes: Option<u64>,
    /// Logical block size in use, bytes.
    pub lba_size: Option<u64>,
    /// Identify Namespace, parsed.
    pub identify: Option<NamespaceIdentify>,
    /// Why Identify Namespace could not be read.
    pub error: Option<String>,
    /// Whether its block device (or a partition of it) is mounted, swap, held or the root
    /// filesystem: what `probe` refuses, and what refuses `--sanitize` on any namespace.
    pub in_use: bool,
    /// Why it is in use, when it is; null otherwise.
    pub in_use_reason: Option<String>,
}

/// What `info` reports on a controller (the JSON of `info --json /dev/nvme0`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ControllerReport {
    /// The target as given.
    pub target: String,
    /// Always "nvme_controller".
    pub kind: String,
    /// Identify Controller.
    pub nvme_identify: IdentifyController,
    /// The SMART / Health log of the whole controller (NSID FFFFFFFFh).
    pub health: Option<HealthLog>,
    /// Why the health log could not be read.
    pub health_error: Option<String>,
    /// Whether any of its namespaces is in use (see [`NamespaceEntry::in_use`]).
    pub in_use: bool,
    /// The first namespace in use and why, when one is; null otherwise.
    pub in_use_reason: Option<String>,
    /// The active namespaces.
    pub namespaces: Vec<NamespaceEntry>,
}

fn le64(b: &[u8], off: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[off..off + 8]);
    u64::from_le_bytes(a)
}

/// Parses the Identify Namespace data structure (CNS 00h, NVM Command Set). Errors when
/// `page` is not 4096 bytes.
pub fn parse_identify_namespace(page: &[u8]) -> Result<NamespaceIdentify, String> {
    if page.len() != 4096 {
        return Err(format!(
            "an Identify Namespace page is 4096 bytes, got {}",
            page.len()
        ));
    }
    // NLBAF (byte 25) is 0-based; FLBAS (byte 26): bits 3:0 the format's low bits, bits 6:5
    // its high bits (more than 16 formats).
    let count = (page[25] as usize + 1).min(64);
    let current = (page[26] & 0x0F) as usize | (((page[26] >> 5) & 0x03) as usize) << 4;
    let formats = (0..count)
        .map(|i| {
            let off = 128 + 4 * i;
            let d = u32::from_le_bytes([page[off], page[off + 1], page[off + 2], page[off + 3]]);
            let lbads = (d >> 16) & 0xFF;
            LbaFormat {
                lba_size: if (9..64).contains(&lbads) {
                    1u64 << lbads
                } else {
                    0
                },
                metadata_bytes: (d & 0xFFFF) as u16,
                relative_performance: ((d >> 24) & 0x3) as u8,
                in_use: i == current,
            }
        })
        .collect();
    Ok(NamespaceIdentify {
        size_blocks: le64(page, 0),
        capacity_blocks: le64(page, 8),
        used_blocks: le64(page, 16),
        formats,
    })
}

/// Parses an Active Namespace ID list (CNS 02h): up to 1024 NSIDs, ascending, ended by 0.
pub fn parse_namespace_list(page: &[u8]) -> Vec<u32> {
    page.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .take_while(|&n| n != 0)
        .collect()
}

/// The block devices of controller `ctrl` (`nvme0`) by namespace ID, from sysfs.
fn namespace_devices(ctrl: &str) -> Vec<(u32, String)> {
    let dir = Path::new("/sys/class/nvme").join(ctrl);
    let mut v = Vec::new();
    for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !super::nvme::is_nvme_name(&name) || name.contains('p') {
            continue;
        }
        if let Some(nsid) = std::fs::read_to_string(e.path().join("nsid"))
            .ok()
            .and_then(|s| s.trim().parse().ok())
        {
            v.push((nsid, format!("/dev/{name}")));
        }
    }
    v
}

/// Why the namespace block device `device` (`/dev/nvme0n1`) is in use, or None.
fn namespace_in_use(device: &str) -> Option<String> {
    let name = device.trim_start_matches("/dev/");
    let dev = super::sysfs::dev_of_name(name)?;
    super::check_block_not_in_use(device, dev).err().map(|e| {
        e.downcast_ref::<super::Refusal>()
            .map(|r| r.reason.clone())
            .unwrap_or_else(|| e.to_string())
    })
}

impl ControllerReport {
    /// Reads the controller at `path` (its character device).
    pub fn read(spec: &str, path: &Path) -> Result<ControllerReport> {
        let dev = NvmeDevice::open(path).with_context(|| format!("cannot open {spec}"))?;
        let nvme_identify = dev
            .identify()
            .with_context(|| format!("Identify Controller on {spec} (root needed?)"))?;
        let (health, health_error) = match dev.health() {
            Ok(h) => (Some(h), None),
            Err(e) => (
                None,
                Some(format!("the SMART / Health log could not be read: {e}")),
            ),
        };
        let ctrl = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let devices = namespace_devices(&ctrl);
        let nsids = match dev.active_namespace_list() {
            Ok(p) => parse_namespace_list(&p),
            // Without the list, the namespaces the kernel knows.
            Err(_) => {
                let mut v: Vec<u32> = devices.iter().map(|(n, _)| *n).collect();
                v.sort();
                v
            }
        };
        let namespaces = nsids
            .into_iter()
            .map(|nsid| {
                let device = devices
                    .iter()
                    .find(|(n, _)| *n == nsid)
                    .map(|(_, d)| d.clone());
                let (identify, error) = match dev
                    .identify_namespace_page(nsid)
                    .map_err(|e| e.to_string())
                    .and_then(|p| parse_identify_namespace(&p))
                {
                    Ok(i) => (Some(i), None),
                    Err(e) => (None, Some(e)),
                };
                let lba_size = identify
                    .as_ref()
                    .and_then(|i| i.current())
                    .map(|f| f.lba_size);
                let size_bytes = identify
                    .as_ref()
                    .zip(lba_size)
                    .map(|(i, l)| i.size_blocks.saturating_mul(l));
                let in_use_reason = device.as_deref().and_then(namespace_in_use);
                NamespaceEntry {
                    nsid,
                    device,
                    size_bytes,
                    lba_size,
                    identify,
                    error,
                    in_use: in_use_reason.is_some(),
                    in_use_reason,
                }
            })
            .collect::<Vec<_>>();
        let in_use_reason = namespaces.iter().find_map(|n| n.in_use_reason.clone());
        Ok(ControllerReport {
            target: spec.to_string(),
            kind: "nvme_controller".into(),
            nvme_identify,
            health,
            health_error,
            in_use: in_use_reason.is_some(),
            in_use_reason,
            namespaces,
        })
    }

    /// The report as text, all but the health log (which `info` prints after it, as it does
    /// for a namespace).
    pub fn text(&self, units: UnitSystem) -> String {
        let mut s = String::new();
        let id = &self.nvme_identify;
        let _ = writeln!(s, "{} (NVMe controller)", self.target);
        let line = |s: &mut String, k: &str, v: &str| {
            let _ = writeln!(s, "  {:<18}{v}", format!("{k}:"));
        };
        line(&mut s, "model", &id.model);
        line(&mut s, "serial", &id.serial);
        line(&mut s, "firmware", &id.firmware);
        line(&mut s, "PCI vendor", &format!("{:#06x}", id.pci_vendor_id));
        if let Some(c) = id.total_capacity_bytes {
            line(
                &mut s,
                "total capacity",
                &format!("{} ({c} bytes)", format_bytes(c as f64, units)),
            );
        }
        line(
            &mut s,
            "write cache",
            if id.volatile_write_cache {
                "volatile write cache present"
            } else {
                "none"
            },
        );
        s.push_str(&erase_text(id));
        let _ = writeln!(s, "namespaces ({}):", self.namespaces.len());
        for n in &self.namespaces {
            let dev = n.device.as_deref().unwrap_or("no block device");
            match (&n.identify, n.size_bytes, n.lba_size) {
                (Some(i), Some(size), Some(lba)) => {
                    let formats: Vec<String> = i
                        .formats
                        .iter()
                        .map(|f| {
                            format!(
                                "{}{}{}",
                                f.lba_size,
                                if f.metadata_bytes > 0 {
                                    format!("+{}", f.metadata_bytes)
                                } else {
                                    String::new()
                                },
                                if f.in_use { "*" } else { "" }
                            )
                        })
                        .collect();
                    let _ = writeln!(
                        s,
                        "  {:<4}{dev}: {} ({size} bytes), {lba} B blocks; formats {}{}",
                        n.nsid,
                        format_bytes(size as f64, units),
                        formats.join(", "),
                        n.in_use_reason
                            .as_ref()
                            .map(|r| format!("; in use: {r}"))
                            .unwrap_or_default()
                    );
                }
                _ => {
                    let _ = writeln!(
                        s,
                        "  {:<4}{dev}: {}",
                        n.nsid,
                        n.error.as_deref().unwrap_or("not identified")
                    );
                }
            }
        }
        if let Some(e) = &self.health_error {
            let _ = writeln!(s, "health log: {e}");
        }
        s
    }
}

/// What the controller can erase (for `--secure-erase` and `--sanitize`), as two lines of
/// `info`: whether Format NVM acts per namespace (FNA) and which sanitize operations it
/// supports (SANICAP).
pub fn erase_text(id: &IdentifyController) -> String {
    let fna = match (id.format_all_namespaces, id.secure_erase_all_namespaces) {
        (false, false) => "per namespace",
        (true, _) => "all namespaces together (FNA bit 0)",
        (false, true) => "per namespace; a secure erase erases all namespaces (FNA bit 1)",
    };
    format!(
        "  {:<18}{fna}\n  {:<18}{}\n",
        "format NVM:",
        "sanitize:",
        id.sanitize.text()
    )
}

/// The controller's character device named by `spec`, when it is one (`/dev/nvme0`).
pub fn controller_path(spec: &str) -> Option<PathBuf> {
    use std::os::unix::fs::FileTypeExt;
    let path = PathBuf::from(spec);
    let m = std::fs::metadata(&path).ok()?;
    let name = path.file_name()?.to_str()?;
    let digits = name.strip_prefix("nvme")?;
    (m.file_type().is_char_device()
        && !digits.is_empty()
        && digits.bytes().all(|c| c.is_ascii_digit()))
    .then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns_page(nsze: u64, nlbaf: u8, flbas: u8, formats: &[(u16, u8, u8)]) -> Vec<u8> {
        let mut p = vec![0u8; 4096];
        p[0..8].copy_from_slice(&nsze.to_le_bytes());
        p[8..16].copy_from_slice(&nsze.to_le_bytes());
        p[16..24].copy_from_slice(&(nsze / 2).to_le_bytes());
        p[25] = nlbaf;
        p[26] = flbas;
        for (i, (ms, lbads, rp)) in formats.iter().enumerate() {
            let d = *ms as u32 | (*lbads as u32) << 16 | (*rp as u32) << 24;
            p[128 + 4 * i..132 + 4 * i].copy_from_slice(&d.to_le_bytes());
        }
        p
    }

    #[test]
    fn identify_namespace_fields_at_spec_offsets() {
        // QEMU's formats: 512, 512+8, 512+16, 512+64, 4096, 4096+8, 4096+16, 4096+64; the
        // 4Kn namespace in use with format 4.
        let f = [
            (0, 9, 0),
            (8, 9, 0),
            (16, 9, 0),
            (64, 9, 0),
            (0, 12, 0),
            (8, 12, 0),
            (16, 12, 0),
            (64, 12, 0),
        ];
        let n = parse_identify_namespace(&ns_page(1 << 20, 7, 4, &f)).unwrap();
        assert_eq!(n.size_blocks, 1 << 20);
        assert_eq!(n.capacity_blocks, 1 << 20);
        assert_eq!(n.used_blocks, 1 << 19);
        assert_eq!(n.formats.len(), 8);
        let cur = n.current().unwrap();
        assert_eq!((cur.lba_size, cur.metadata_bytes), (4096, 0));
        assert_eq!(n.formats[1].metadata_bytes, 8);
        assert_eq!(n.formats.iter().filter(|f| f.in_use).count(), 1);
        // More than 16 formats: FLBAS bits 6:5 are the high bits of the index.
        let many: Vec<(u16, u8, u8)> = (0..20).map(|i| (i, 9, 2)).collect();
        let n = parse_identify_namespace(&ns_page(8, 19, 0b0010_0001, &many)).unwrap();
        let cur = n.current().unwrap();
        assert_eq!(cur.metadata_bytes, 17);
        assert_eq!(cur.relative_performance, 2);
        assert!(parse_identify_namespace(&[0u8; 512]).is_err());
    }

    #[test]
    fn namespace_list_ends_at_zero() {
        let mut p = vec![0u8; 4096];
        for (i, n) in [1u32, 2, 7].iter().enumerate() {
            p[4 * i..4 * i + 4].copy_from_slice(&n.to_le_bytes());
        }
        assert_eq!(parse_namespace_list(&p), [1, 2, 7]);
        assert!(parse_namespace_list(&[0u8; 4096]).is_empty());
    }

    #[test]
    fn the_report_as_text() {
        let id = crate::device::nvme::parse_identify_controller(
            &crate::device::nvme::tests::identify_page(),
        )
        .unwrap();
        let ns =
            parse_identify_namespace(&ns_page(1 << 20, 1, 1, &[(0, 9, 0), (0, 12, 0)])).unwrap();
        let r = ControllerReport {
            target: "/dev/nvme0".into(),
            kind: "nvme_controller".into(),
            nvme_identify: id,
            health: None,
            health_error: Some("refused".into()),
            namespaces: vec![
                NamespaceEntry {
                    nsid: 1,
                    device: Some("/dev/nvme0n1".into()),
                    size_bytes: Some(4 << 30),
                    lba_size: Some(4096),
                    identify: Some(ns),
                    error: None,
                    in_use: true,
                    in_use_reason: Some("nvme0n1p1 is mounted at /mnt; unmount it first".into()),
                },
                NamespaceEntry {
                    nsid: 2,
                    device: None,
                    size_bytes: None,
                    lba_size: None,
                    identify: None,
                    error: Some("status 0x2".into()),
                    in_use: false,
                    in_use_reason: None,
                },
            ],
            in_use: true,
            in_use_reason: Some("nvme0n1p1 is mounted at /mnt; unmount it first".into()),
        };
        let t = r.text(UnitSystem::Binary);
        for want in [
            "/dev/nvme0 (NVMe controller)",
            "  model:            Samsung SSD 980 PRO 1TB",
            "  PCI vendor:       0x144d",
            "namespaces (2):",
            "  format NVM:       per namespace\n  sanitize:         not supported (SANICAP 0)\n",
            "  1   /dev/nvme0n1: 4.00 GiB (4294967296 bytes), 4096 B blocks; formats 512, \
             4096*; in use: nvme0n1p1 is mounted at /mnt; unmount it first",
            "  2   no block device: status 0x2",
            "health log: refused",
        ] {
            assert!(t.contains(want), "missing {want:?} in:\n{t}");
        }
        let j = serde_json::to_value(&r).unwrap();
        assert_eq!(j["namespaces"][0]["lba_size"], 4096);
        assert_eq!(j["nvme_identify"]["pci_vendor_id"], "0x144d");
        assert_eq!(j["nvme_identify"]["sanitize"]["block_erase"], false);
        assert_eq!(j["in_use"], true);
        assert_eq!(j["namespaces"][0]["in_use"], true);
        assert_eq!(j["namespaces"][1]["in_use"], false);
        assert!(j["namespaces"][1]["in_use_reason"].is_null());
    }
}
