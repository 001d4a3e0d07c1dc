//! NVMe drives read through the admin passthrough ioctl: Identify Controller (model, serial,
//! firmware, temperature thresholds) and the SMART / Health Information log page
//! (temperature, wear, data units written, thermal-management counters).
//!
//! Parsing is pure ([`parse_identify_controller`], [`parse_smart_log`]) and tested on pages
//! built byte by byte from the NVM Express Base Specification, revision 2.0 (the figures and
//! sections cited at each offset). Only [`NvmeDevice`] talks to the kernel.
//!
//! Kernel interface facts (from the uapi header `linux/nvme_ioctl.h`): `NVME_IOCTL_ADMIN_CMD`
//! is `_IOWR('N', 0x41, struct nvme_admin_cmd)` = `0xC0484E41`, and `struct nvme_admin_cmd`
//! (an alias of `struct nvme_passthru_cmd`) is 72 bytes: opcode u8, flags u8, rsvd1 u16,
//! nsid u32, cdw2 u32, cdw3 u32, metadata u64, addr u64, metadata_len u32, data_len u32,
//! cdw10..cdw15 u32 each, timeout_ms u32, result u32. The ioctl works on the controller's
//! character device (`/dev/nvme0`) and on its namespaces' block devices (`/dev/nvme0n1`).

use std::fs::File;
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// Size of the Identify Controller data structure, bytes (NVMe 2.0 section 5.17.2.1).
pub const IDENTIFY_LEN: usize = 4096;
/// Size of the SMART / Health Information log page, bytes (NVMe 2.0 section 5.16.1.3).
pub const SMART_LEN: usize = 512;
pub use crate::health::{celsius_from_kelvin, HealthLog, DATA_UNIT_BYTES};

/// What Identify Controller says about the drive (NVMe 2.0 section 5.17.2.1, Figure 275).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IdentifyController {
    /// PCI Vendor ID (bytes 01:00); in JSON as the ecosystem writes it, `"0x1b36"`.
    #[serde(with = "hex_u16")]
    pub pci_vendor_id: u16,
    /// Serial Number (bytes 23:04, ASCII, space padded).
    pub serial: String,
    /// Model Number (bytes 63:24, ASCII, space padded).
    pub model: String,
    /// Firmware Revision (bytes 71:64, ASCII, space padded).
    pub firmware: String,
    /// Warning Composite Temperature Threshold (bytes 267:266), °C; None when not reported.
    pub warning_temp_c: Option<f64>,
    /// Critical Composite Temperature Threshold (bytes 269:268), °C; None when not reported.
    pub critical_temp_c: Option<f64>,
    /// Total NVM Capacity (bytes 295:280), bytes; None when not reported.
    pub total_capacity_bytes: Option<u128>,
    /// Host Controlled Thermal Management supported (HCTMA, bytes 323:322, bit 0): then the
    /// thermal-management counters of the SMART log count its transitions.
    pub host_thermal_management: bool,
    /// Volatile Write Cache present (VWC, byte 525, bit 0).
    pub volatile_write_cache: bool,
    /// Format NVM Attributes (FNA, byte 524) bit 0: a Format NVM formats every namespace of
    /// the controller together (then `--secure-erase` is refused where it has more than one).
    #[serde(default)]
    pub format_all_namespaces: bool,
    /// FNA bit 1: a secure erase (Format NVM with SES > 0) erases every namespace together.
    #[serde(default)]
    pub secure_erase_all_namespaces: bool,
    /// Sanitize Capabilities (SANICAP, bytes 331:328): which sanitize operations the
    /// controller supports (`--sanitize` needs block erase).
    #[serde(default)]
    pub sanitize: SanitizeCaps,
}

fn le16(b: &[u8], off: usize) -> u16 {
    u16::from_le_bytes([b[off], b[off + 1]])
}

fn le32(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
}

fn le128(b: &[u8], off: usize) -> u128 {
    let mut a = [0u8; 16];
    a.copy_from_slice(&b[off..off + 16]);
    u128::from_le_bytes(a)
}

/// A Kelvin temperature as °C; 0 K means "not reported" in both data structures.
fn kelvin(k: u16) -> Option<f64> {
    (k != 0).then(|| celsius_from_kelvin(k as f64))
}

/// A temperature for text, to one decimal, halves rounded away from zero on the hundredths
/// that Kelvin readings have: 69.85 °C (343 K) is 69.9, as it would be on paper, although the
/// nearest binary number to 69.85 lies just below it.
pub fn format_celsius(c: f64) -> String {
    let h = (c * 100.0).round() as i64;
    let tenths = (h + 5 * h.signum()) / 10;
    format!("{:.1} °C", tenths as f64 / 10.0)
}

/// A u16 written as `"0x1b36"` (PCI IDs are quoted in hex everywhere else: lspci, nvme-cli,
/// the PCI ID database); read back from that or from a plain number.
mod hex_u16 {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &u16, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{v:#06x}"))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u16, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Either {
            Num(u16),
            Text(String),
        }
        match Either::deserialize(d)? {
            Either::Num(n) => Ok(n),
            Either::Text(t) => {
                let h = t.trim_start_matches("0x").trim_start_matches("0X");
                u16::from_str_radix(h, 16).map_err(serde::de::Error::custom)
            }
        }
    }
}

/// ASCII field, space (or NUL) padded, trimmed; other bytes replaced.
fn ascii(b: &[u8]) -> String {
    let s: String = b
        .iter()
        .map(|&c| {
            if c == 0 {
                ' '
            } else if c.is_ascii_graphic() || c == b' ' {
                c as char
            } else {
                '?'
            }
        })
        .collect();
    s.trim().to_string()
}

/// Parses the Identify Controller data structure (CNS 01h). Errors when `page` is not 4096
/// bytes.
pub fn parse_identify_controller(page: &[u8]) -> Result<IdentifyController, String> {
    if page.len() != IDENTIFY_LEN {
        return Err(format!(
            "an Identify Controller page is {IDENTIFY_LEN} bytes, got {}",
            page.len()
        ));
    }
    // Offsets: NVMe Base Specification 2.0, Figure 275 (Identify Controller Data Structure).
    let tnvmcap = le128(page, 280);
    Ok(IdentifyController {
        pci_vendor_id: le16(page, 0),
        serial: ascii(&page[4..24]),
        model: ascii(&page[24..64]),
        firmware: ascii(&page[64..72]),
        warning_temp_c: kelvin(le16(page, 266)),
        critical_temp_c: kelvin(le16(page, 268)),
        total_capacity_bytes: (tnvmcap != 0).then_some(tnvmcap),
        host_thermal_management: le16(page, 322) & 1 == 1,
        volatile_write_cache: page[525] & 1 == 1,
        format_all_namespaces: page[524] & 1 == 1,
        secure_erase_all_namespaces: page[524] & 2 == 2,
        sanitize: SanitizeCaps::from_identify(page),
    })
}

/// Parses the SMART / Health Information log page (log identifier 02h). Errors when `page` is
/// not 512 bytes.
pub fn parse_smart_log(page: &[u8]) -> Result<HealthLog, String> {
    if page.len() != SMART_LEN {
        return Err(format!(
            "a SMART / Health log page is {SMART_LEN} bytes, got {}",
            page.len()
        ));
    }
    // Offsets: NVMe Base Specification 2.0, Figure 207 (SMART / Health Information Log Page).
    Ok(HealthLog {
        critical_warning: page[0],
        temperature_c: kelvin(le16(page, 1)),
        available_spare_pct: page[3],
        available_spare_threshold_pct: page[4],
        percentage_used: page[5],
        data_units_read: le128(page, 32),
        data_units_written: le128(page, 48),
        host_read_commands: le128(page, 64),
        host_write_commands: le128(page, 80),
        controller_busy_min: le128(page, 96),
        power_cycles: le128(page, 112),
        power_on_hours: le128(page, 128),
        unsafe_shutdowns: le128(page, 144),
        media_errors: le128(page, 160),
        error_log_entries: le128(page, 176),
        warning_temp_min: le32(page, 192),
        critical_temp_min: le32(page, 196),
        sensors_c: (0..8)
            .filter_map(|i| kelvin(le16(page, 200 + 2 * i)))
            .collect(),
        thermal_mgmt_t1_transitions: le32(page, 216),
        thermal_mgmt_t2_transitions: le32(page, 220),
        thermal_mgmt_t1_time_s: le32(page, 224),
        thermal_mgmt_t2_time_s: le32(page, 228),
    })
}

/// `_IOWR('N', 0x41, struct nvme_admin_cmd)`: direction read|write (3) << 30, size 72 << 16,
/// type 'N' << 8, number 0x41.
const NVME_IOCTL_ADMIN_CMD: libc::c_ulong =
    (3 << 30) | (72 << 16) | ((b'N' as libc::c_ulong) << 8) | 0x41;

/// Admin opcodes (NVMe 2.0 section 5, admin command set): Get Log Page 02h, Identify 06h.
const OPC_GET_LOG_PAGE: u8 = 0x02;
const OPC_IDENTIFY: u8 = 0x06;
/// Admin opcode 80h: Format NVM (NVMe 2.0 section 5.14).
const OPC_FORMAT_NVM: u8 = 0x80;
/// Admin opcode 84h: Sanitize (NVMe 2.0 section 5.24; `nvme_admin_sanitize_nvm` in the
/// kernel's `include/linux/nvme.h`).
const OPC_SANITIZE: u8 = 0x84;
/// Log identifier 81h: Sanitize Status (NVMe 2.0 section 5.16.1.25; `NVME_LOG_LID_SANITIZE`
/// in libnvme).
const LID_SANITIZE: u32 = 0x81;
/// Identify CNS 01h: the Identify Controller data structure (NVMe 2.0 section 5.17.1).
const CNS_CONTROLLER: u32 = 0x01;
/// Identify CNS 00h: the Identify Namespace data structure of one namespace.
const CNS_NAMESPACE: u32 = 0x00;
/// Identify CNS 02h: the Active Namespace ID list.
const CNS_ACTIVE_NSIDS: u32 = 0x02;
/// Log identifier 02h: SMART / Health Information (NVMe 2.0 section 5.16.1).
const LID_SMART: u32 = 0x02;
/// The namespace identifier meaning "the whole controller" (NVMe 2.0 section 3.2.1.2).
const NSID_ALL: u32 = 0xFFFF_FFFF;

/// `struct nvme_admin_cmd` from `linux/nvme_ioctl.h`, field for field.
#[repr(C)]
#[derive(Debug, Default)]
struct AdminCmd {
    opcode: u8,
    flags: u8,
    rsvd1: u16,
    nsid: u32,
    cdw2: u32,
    cdw3: u32,
    metadata: u64,
    addr: u64,
    metadata_len: u32,
    data_len: u32,
    cdw10: u32,
    cdw11: u32,
    cdw12: u32,
    cdw13: u32,
    cdw14: u32,
    cdw15: u32,
    timeout_ms: u32,
    result: u32,
}

const _: () = assert!(std::mem::size_of::<AdminCmd>() == 72);

/// An NVMe device opened read-only for admin commands (it never writes data).
#[derive(Debug)]
pub struct NvmeDevice {
    file: File,
}

impl NvmeDevice {
    /// Opens `path` (a controller such as `/dev/nvme0`, or a namespace block device such as
    /// `/dev/nvme0n1`) read-only. Nothing is sent yet.
    pub fn open(path: &Path) -> io::Result<NvmeDevice> {
        Ok(NvmeDevice {
            file: File::open(path)?,
        })
    }

    /// Sends one admin command that reads `buf.len()` bytes into `buf`.
    fn admin_read(&self, opcode: u8, nsid: u32, cdw10: u32, buf: &mut [u8]) -> io::Result<()> {
        use std::os::fd::AsRawFd;
        let mut cmd = AdminCmd {
            opcode,
            nsid,
            addr: buf.as_mut_ptr() as u64,
            data_len: buf.len() as u32,
            cdw10,
            // A drive that does not answer within this stalls the sampler no longer.
            timeout_ms: 2000,
            ..AdminCmd::default()
        };
        // SAFETY: `cmd` is a live, properly laid-out `struct nvme_admin_cmd` (72 bytes,
        // checked at compile time) that the kernel reads and updates (`result`) during the
        // call; `addr`/`data_len` describe `buf`, a live, exclusively borrowed buffer of
        // exactly `data_len` bytes that the kernel fills (a read-direction command) and does
        // not keep after the call returns; the fd is open for the whole call.
        let r = unsafe {
            libc::ioctl(
                self.file.as_raw_fd(),
                NVME_IOCTL_ADMIN_CMD as _,
                &mut cmd as *mut AdminCmd,
            )
        };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        if r > 0 {
            // A positive return is the NVMe status field of the completion.
            return Err(io::Error::other(format!(
                "the drive rejected admin command {opcode:#04x} with NVMe status {r:#x}"
            )));
        }
        Ok(())
    }

    /// Identify Controller (opcode 06h, CNS 01h): the raw 4096-byte page.
    pub fn identify_controller_page(&self) -> io::Result<Vec<u8>> {
        let mut buf = vec![0u8; IDENTIFY_LEN];
        self.admin_read(OPC_IDENTIFY, 0, CNS_CONTROLLER, &mut buf)?;
        Ok(buf)
    }

    /// Get Log Page (opcode 02h) for the SMART / Health log (LID 02h) of the whole
    /// controller: the raw 512-byte page. CDW10 holds the log identifier in bits 07:00 and
    /// the number of dwords minus one (NUMDL) in bits 31:16 (NVMe 2.0 section 5.16).
    pub fn smart_log_page(&self) -> io::Result<Vec<u8>> {
        let mut buf = vec![0u8; SMART_LEN];
        let numdl = (SMART_LEN as u32 / 4) - 1;
        self.admin_read(
            OPC_GET_LOG_PAGE,
            NSID_ALL,
            LID_SMART | (numdl << 16),
            &mut buf,
        )?;
        Ok(buf)
    }

    /// The namespace ID of the namespace block device this was opened on (`NVME_IOCTL_ID`,
    /// `_IO('N', 0x40)`).
    pub fn namespace_id(&self) -> io::Result<u32> {
        use std::os::fd::AsRawFd;
        const NVME_IOCTL_ID: libc::c_ulong = ((b'N' as libc::c_ulong) << 8) | 0x40;
        // SAFETY: NVME_IOCTL_ID takes no argument and returns the NSID (or -1); the fd is
        // open for the whole call.
        let r = unsafe { libc::ioctl(self.file.as_raw_fd(), NVME_IOCTL_ID as _) };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(r as u32)
    }

    /// Sends one admin command that carries no data, waiting up to `timeout_ms`.
    fn admin_no_data(&self, opcode: u8, nsid: u32, cdw10: u32, timeout_ms: u32) -> io::Result<()> {
        use std::os::fd::AsRawFd;
        let mut cmd = AdminCmd {
            opcode,
            nsid,
            cdw10,
            timeout_ms,
            ..AdminCmd::default()
        };
        // SAFETY: `cmd` is a live `struct nvme_admin_cmd` (72 bytes, checked at compile
        // time) that the kernel reads and updates during the call; it carries no data
        // buffer (addr 0, data_len 0); the fd is open for the whole call.
        let r = unsafe {
            libc::ioctl(
                self.file.as_raw_fd(),
                NVME_IOCTL_ADMIN_CMD as _,
                &mut cmd as *mut AdminCmd,
            )
        };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        if r > 0 {
            return Err(io::Error::other(format!(
                "the drive rejected admin command {opcode:#04x} with NVMe status {r:#x}"
            )));
        }
        Ok(())
    }

    /// Format NVM (opcode 80h) of namespace `nsid` with Command Dword 10 `cdw10`; no data.
    /// Destroys the namespace's data: only `--secure-erase` sends it, after its checks.
    pub fn format_nvm(&self, nsid: u32, cdw10: u32) -> io::Result<()> {
        // A drive may take minutes to erase.
        self.admin_no_data(OPC_FORMAT_NVM, nsid, cdw10, 3_600_000)
    }

    /// Sanitize (opcode 84h) with Command Dword 10 `cdw10`; no data, no namespace (the
    /// command acts on the whole NVM subsystem). The controller completes the command once
    /// the operation has started; its progress is in the Sanitize Status log. Destroys the
    /// data of every namespace: only `--sanitize` sends it, after its checks.
    pub fn sanitize(&self, cdw10: u32) -> io::Result<()> {
        self.admin_no_data(OPC_SANITIZE, 0, cdw10, 60_000)
    }

    /// Get Log Page for the Sanitize Status log (LID 81h): the raw 512-byte page.
    pub fn sanitize_log_page(&self) -> io::Result<Vec<u8>> {
        let mut buf = vec![0u8; SANITIZE_LOG_LEN];
        let numdl = (SANITIZE_LOG_LEN as u32 / 4) - 1;
        self.admin_read(
            OPC_GET_LOG_PAGE,
            NSID_ALL,
            LID_SANITIZE | (numdl << 16),
            &mut buf,
        )?;
        Ok(buf)
    }

    /// Identify Namespace (opcode 06h, CNS 00h) of namespace `nsid`: the raw 4096-byte page.
    pub fn identify_namespace_page(&self, nsid: u32) -> io::Result<Vec<u8>> {
        let mut buf = vec![0u8; IDENTIFY_LEN];
        self.admin_read(OPC_IDENTIFY, nsid, CNS_NAMESPACE, &mut buf)?;
        Ok(buf)
    }

    /// The Active Namespace ID list (opcode 06h, CNS 02h, from NSID 0): the raw 4096-byte
    /// page of up to 1024 NSIDs.
    pub fn active_namespace_list(&self) -> io::Result<Vec<u8>> {
        let mut buf = vec![0u8; IDENTIFY_LEN];
        self.admin_read(OPC_IDENTIFY, 0, CNS_ACTIVE_NSIDS, &mut buf)?;
        Ok(buf)
    }

    /// Identify Controller, parsed.
    pub fn identify(&self) -> io::Result<IdentifyController> {
        parse_identify_controller(&self.identify_controller_page()?).map_err(io::Error::other)
    }

    /// The SMART / Health log, parsed.
    pub fn health(&self) -> io::Result<HealthLog> {
        parse_smart_log(&self.smart_log_page()?).map_err(io::Error::other)
    }
}

/// Whether a block device name (as in `/sys/class/block`) is an NVMe namespace or one of its
/// partitions (`nvme0n1`, `nvme0n1p2`).
pub fn is_nvme_name(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("nvme") else {
        return false;
    };
    let mut parts = rest.splitn(2, 'n');
    let ctrl = parts.next().unwrap_or("");
    let ns = parts.next().unwrap_or("");
    !ctrl.is_empty()
        && ctrl.bytes().all(|c| c.is_ascii_digit())
        && ns.bytes().next().is_some_and(|c| c.is_ascii_digit())
}

/// Whether a name is an NVMe namespace's block device itself (`nvme0n1`), not a partition.
fn is_namespace_name(name: &str) -> bool {
    is_nvme_name(name)
        && name
            .strip_prefix("nvme")
            .and_then(|r| r.split_once('n'))
            .is_some_and(|(_, ns)| ns.bytes().all(|c| c.is_ascii_digit()))
}

/// The namespaces of the NVMe controller that holds block device `dev` (a namespace or one
/// of its partitions), sorted, from sysfs: the `nvmeXnY` folders beside the namespace in
/// its controller's folder. Empty when `dev` is not on an NVMe controller.
pub fn controller_namespaces(dev: (u32, u32)) -> Vec<String> {
    let Some(disk) = super::sysfs::disk_sys_dir(dev) else {
        return Vec::new();
    };
    if !disk
        .file_name()
        .is_some_and(|n| is_namespace_name(&n.to_string_lossy()))
    {
        return Vec::new();
    }
    let mut v: Vec<String> = std::fs::read_dir(disk.join("device"))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| is_namespace_name(n))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// A data-units warning completed for a controller with more than one namespace: the SMART
/// log is the controller's (NSID FFFFFFFFh), so writes to every namespace count in it.
pub fn shared_counter_note(warning: String, namespaces: &[String]) -> String {
    if namespaces.len() < 2 {
        return warning;
    }
    format!(
        "{warning}; the controller counts for all its namespaces ({}), so writes to the \
         others count here too",
        namespaces.join(", ")
    )
}

/// Byte offset of SANICAP (bytes 331:328) in Identify Controller.
pub const SANICAP_OFFSET: usize = 328;
/// Size of the Sanitize Status log page, bytes.
pub const SANITIZE_LOG_LEN: usize = 512;

/// Sanitize Capabilities (SANICAP) of Identify Controller: the operations supported.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SanitizeCaps {
    /// Crypto Erase (bit 0).
    pub crypto_erase: bool,
    /// Block Erase (bit 1): what `--sanitize` sends.
    pub block_erase: bool,
    /// Overwrite (bit 2).
    pub overwrite: bool,
}

impl SanitizeCaps {
    /// SANICAP from an Identify Controller page (4096 bytes; a shorter page supports none).
    pub fn from_identify(page: &[u8]) -> SanitizeCaps {
        let Some(b) = page.get(SANICAP_OFFSET..SANICAP_OFFSET + 4) else {
            return SanitizeCaps::default();
        };
        let v = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        SanitizeCaps {
            crypto_erase: v & 1 != 0,
            block_erase: v & 2 != 0,
            overwrite: v & 4 != 0,
        }
    }

    /// The operations as text: "block erase, crypto erase", or "not supported".
    pub fn text(&self) -> String {
        let v: Vec<&str> = [
            (self.block_erase, "block erase"),
            (self.crypto_erase, "crypto erase"),
            (self.overwrite, "overwrite"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, n)| *n)
        .collect();
        if v.is_empty() {
            "not supported (SANICAP 0)".to_string()
        } else {
            v.join(", ")
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn put(b: &mut [u8], off: usize, v: &[u8]) {
        b[off..off + v.len()].copy_from_slice(v);
    }

    fn put_ascii(b: &mut [u8], off: usize, len: usize, s: &str) {
        let mut f = vec![b' '; len];
        f[..s.len()].copy_from_slice(s.as_bytes());
        put(b, off, &f);
    }

    /// An Identify Controller page with the fields at the offsets of NVMe 2.0 Figure 275.
    pub(crate) fn identify_page() -> Vec<u8> {
        let mut p = vec![0u8; IDENTIFY_LEN];
        put(&mut p, 0, &0x144Du16.to_le_bytes()); // VID
        put_ascii(&mut p, 4, 20, "S4EWNX0R123456"); // SN
        put_ascii(&mut p, 24, 40, "Samsung SSD 980 PRO 1TB"); // MN
        put_ascii(&mut p, 64, 8, "5B2QGXA7"); // FR
        put(&mut p, 266, &355u16.to_le_bytes()); // WCTEMP 355 K = 81.85 °C
        put(&mut p, 268, &358u16.to_le_bytes()); // CCTEMP
        put(&mut p, 280, &1_000_204_886_016u128.to_le_bytes()); // TNVMCAP
        put(&mut p, 322, &1u16.to_le_bytes()); // HCTMA
        p[525] = 1; // VWC
        p
    }

    /// A SMART / Health log page with the fields at the offsets of NVMe 2.0 Figure 207.
    pub(crate) fn smart_page(duw: u128, kelvin: u16, t1: u32, t2: u32) -> Vec<u8> {
        let mut p = vec![0u8; SMART_LEN];
        p[0] = 0; // critical warning
        put(&mut p, 1, &kelvin.to_le_bytes());
        p[3] = 100; // available spare
        p[4] = 10; // threshold
        p[5] = 3; // percentage used
        put(&mut p, 32, &77_000u128.to_le_bytes()); // data units read
        put(&mut p, 48, &duw.to_le_bytes()); // data units written
        put(&mut p, 64, &1_234_567u128.to_le_bytes()); // host read commands
        put(&mut p, 80, &7_654_321u128.to_le_bytes()); // host write commands
        put(&mut p, 96, &321u128.to_le_bytes()); // controller busy time
        put(&mut p, 112, &55u128.to_le_bytes()); // power cycles
        put(&mut p, 128, &1500u128.to_le_bytes()); // power on hours
        put(&mut p, 144, &7u128.to_le_bytes()); // unsafe shutdowns
        put(&mut p, 160, &0u128.to_le_bytes()); // media errors
        put(&mut p, 176, &12u128.to_le_bytes()); // error log entries
        put(&mut p, 192, &4u32.to_le_bytes()); // warning temperature time
        put(&mut p, 196, &1u32.to_le_bytes()); // critical temperature time
        put(&mut p, 200, &(kelvin + 2).to_le_bytes()); // sensor 1
        put(&mut p, 202, &(kelvin - 3).to_le_bytes()); // sensor 2
        put(&mut p, 216, &t1.to_le_bytes());
        put(&mut p, 220, &t2.to_le_bytes());
        put(&mut p, 224, &(t1 * 10).to_le_bytes());
        put(&mut p, 228, &(t2 * 5).to_le_bytes());
        p
    }

    #[test]
    fn identify_fields_at_spec_offsets() {
        let id = parse_identify_controller(&identify_page()).unwrap();
        assert_eq!(id.pci_vendor_id, 0x144D);
        assert_eq!(id.serial, "S4EWNX0R123456");
        assert_eq!(id.model, "Samsung SSD 980 PRO 1TB");
        assert_eq!(id.firmware, "5B2QGXA7");
        assert!((id.warning_temp_c.unwrap() - 81.85).abs() < 1e-9);
        assert!((id.critical_temp_c.unwrap() - 84.85).abs() < 1e-9);
        assert_eq!(id.total_capacity_bytes, Some(1_000_204_886_016));
        assert!(id.host_thermal_management);
        assert!(id.volatile_write_cache);
        // Unreported fields stay unreported.
        let blank = parse_identify_controller(&vec![0u8; IDENTIFY_LEN]).unwrap();
        assert_eq!(blank.model, "");
        assert_eq!(blank.warning_temp_c, None);
        assert_eq!(blank.total_capacity_bytes, None);
        assert!(parse_identify_controller(&[0u8; 512]).is_err());
    }

    #[test]
    fn smart_fields_at_spec_offsets() {
        // 1.5 * 2^64 data units: the upper half of the 128-bit counter is read too.
        let huge = (3u128 << 63) + 17;
        let h = parse_smart_log(&smart_page(huge, 318, 2, 1)).unwrap();
        assert_eq!(h.critical_warning, 0);
        assert!((h.temperature_c.unwrap() - 44.85).abs() < 1e-9);
        assert_eq!(h.available_spare_pct, 100);
        assert_eq!(h.available_spare_threshold_pct, 10);
        assert_eq!(h.percentage_used, 3);
        assert_eq!(h.data_units_read, 77_000);
        assert_eq!(h.data_units_written, huge);
        assert_eq!(h.host_read_commands, 1_234_567);
        assert_eq!(h.host_write_commands, 7_654_321);
        assert_eq!(h.controller_busy_min, 321);
        assert_eq!(h.power_cycles, 55);
        assert_eq!(h.power_on_hours, 1500);
        assert_eq!(h.unsafe_shutdowns, 7);
        assert_eq!(h.media_errors, 0);
        assert_eq!(h.error_log_entries, 12);
        assert_eq!(h.warning_temp_min, 4);
        assert_eq!(h.critical_temp_min, 1);
        assert_eq!(h.sensors_c.len(), 2);
        assert!((h.sensors_c[0] - 46.85).abs() < 1e-9);
        assert_eq!(h.thermal_mgmt_t1_transitions, 2);
        assert_eq!(h.thermal_mgmt_t2_transitions, 1);
        assert_eq!(h.thermal_mgmt_t1_time_s, 20);
        assert_eq!(h.thermal_mgmt_t2_time_s, 5);
        assert_eq!(h.thermal_transitions(), 3);
        assert_eq!(h.thermal_time_s(), 25);
        let small = parse_smart_log(&smart_page(40_000, 300, 0, 0)).unwrap();
        assert_eq!(small.data_written_bytes(), 40_000 * 512_000);
        // 0 K: the drive does not report a temperature.
        assert_eq!(
            parse_smart_log(&vec![0u8; SMART_LEN])
                .unwrap()
                .temperature_c,
            None
        );
        assert!(parse_smart_log(&[0u8; 4096]).is_err());
    }

    #[test]
    fn temperatures_are_rounded_to_the_hundredth() {
        // QEMU's controller: 323 K now, thresholds 343 K and 373 K.
        let mut p = identify_page();
        put(&mut p, 266, &343u16.to_le_bytes());
        put(&mut p, 268, &373u16.to_le_bytes());
        let id = parse_identify_controller(&p).unwrap();
        let h = parse_smart_log(&smart_page(0, 323, 0, 0)).unwrap();
        let j = serde_json::to_string(&(id, h)).unwrap();
        assert!(j.contains("\"warning_temp_c\":69.85,"), "{j}");
        assert!(j.contains("\"critical_temp_c\":99.85,"), "{j}");
        assert!(j.contains("\"temperature_c\":49.85,"), "{j}");
        assert!(j.contains("\"sensors_c\":[51.85,46.85]"), "{j}");
        assert_eq!(celsius_from_kelvin(273.15), 0.0);
        // As text, to the tenth, halves up (69.85 is stored just below itself).
        assert_eq!(format_celsius(celsius_from_kelvin(343.0)), "69.9 °C");
        assert_eq!(format_celsius(celsius_from_kelvin(323.0)), "49.9 °C");
        assert_eq!(format_celsius(celsius_from_kelvin(373.0)), "99.9 °C");
        assert_eq!(format_celsius(-0.25), "-0.3 °C");
        assert_eq!(format_celsius(38.0), "38.0 °C");
    }

    #[test]
    fn pci_vendor_id_is_hex_in_json() {
        let mut p = identify_page();
        put(&mut p, 0, &0x1b36u16.to_le_bytes());
        let id = parse_identify_controller(&p).unwrap();
        let j = serde_json::to_value(&id).unwrap();
        assert_eq!(j["pci_vendor_id"], "0x1b36");
        let back: IdentifyController = serde_json::from_value(j).unwrap();
        assert_eq!(back.pci_vendor_id, 0x1b36);
        // Summaries written before this read back too (a plain number).
        let mut old = serde_json::to_value(&back).unwrap();
        old["pci_vendor_id"] = 6966.into();
        let back: IdentifyController = serde_json::from_value(old).unwrap();
        assert_eq!(back.pci_vendor_id, 0x1b36);
    }

    #[test]
    fn a_shared_counter_is_named_with_the_namespaces() {
        let one = vec!["nvme0n1".to_string()];
        assert_eq!(shared_counter_note("w".into(), &one), "w");
        let two = vec!["nvme0n1".to_string(), "nvme0n2".to_string()];
        let w = shared_counter_note("w".into(), &two);
        assert!(
            w.contains("the controller counts for all its namespaces (nvme0n1, nvme0n2)"),
            "{w}"
        );
        // A device that is no NVMe namespace (here, one that does not exist) has none.
        assert!(controller_namespaces((u32::MAX, 0)).is_empty());
    }

    #[test]
    fn ioctl_number_and_layout() {
        assert_eq!(NVME_IOCTL_ADMIN_CMD, 0xC048_4E41);
        assert_eq!(std::mem::offset_of!(AdminCmd, addr), 24);
        assert_eq!(std::mem::offset_of!(AdminCmd, data_len), 36);
        assert_eq!(std::mem::offset_of!(AdminCmd, cdw10), 40);
        assert_eq!(std::mem::offset_of!(AdminCmd, timeout_ms), 64);
        assert_eq!(std::mem::offset_of!(AdminCmd, result), 68);
    }

    #[test]
    fn nvme_names() {
        for n in ["nvme0n1", "nvme12n3p4", "nvme0n1p1"] {
            assert!(is_nvme_name(n), "{n}");
        }
        for n in ["nvme0", "sda", "loop0", "nvmen1", "nvme0c0n1x"] {
            assert!(!is_nvme_name(n), "{n}");
        }
        assert!(is_namespace_name("nvme0n12"));
        for n in ["nvme0n1p1", "ng0n1", "nvme0", "nvme0c0n1"] {
            assert!(!is_namespace_name(n), "{n}");
        }
    }

    #[test]
    fn not_an_nvme_device_is_an_error_not_a_crash() {
        // A regular file does not take the ioctl: ENOTTY, reported as an error.
        let f = tempfile::NamedTempFile::new().unwrap();
        let d = NvmeDevice::open(f.path()).unwrap();
        assert!(d.health().is_err());
        assert!(d.identify().is_err());
    }
}
