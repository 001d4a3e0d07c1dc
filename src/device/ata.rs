//! ATA drives (SATA disks behind libata, and USB drives behind a bridge that speaks SAT)
//! read through the SCSI generic `SG_IO` ioctl with ATA PASS-THROUGH (16): IDENTIFY DEVICE,
//! SMART READ DATA and SMART READ THRESHOLDS, all of them reads. The pages are parsed by the
//! pure functions of [`crate::health::ata`]; only [`SgIo`] talks to the kernel, and every
//! command goes through the [`AtaTransport`] trait, so that the secure erase sequence
//! (`device::ata_erase`) is tested against a fake drive.
//!
//! Only the 16-byte ATA PASS-THROUGH (opcode 85h) is ever sent: the 12-byte form (A1h) is
//! the MMC command BLANK to an optical drive or a bridge that takes it for one, which could
//! erase a disc. 85h means nothing else in any SCSI command set.
//!
//! Facts from the specifications and the kernel's uapi headers:
//! - SCSI / ATA Translation - 3 (SAT-3, INCITS 517), section 12.2.2: the ATA PASS-THROUGH
//!   (16) CDB: byte 0 85h; byte 1 PROTOCOL in bits 4:1 (3 non-data, 4 PIO data-in, 5 PIO
//!   data-out) and EXTEND in bit 0; byte 2 OFF_LINE (7:6), CK_COND (5), T_TYPE (4), T_DIR
//!   (3, 1 = from the device), BYTE_BLOCK (2), T_LENGTH (1:0, 2 = the length is in the
//!   COUNT field); bytes 3-4 FEATURES (15:8, 7:0); 5-6 COUNT; 7-12 LBA (byte 8 bits 7:0,
//!   10 bits 15:8, 12 bits 23:16; 7, 9, 11 the upper bytes); 13 DEVICE; 14 COMMAND.
//! - `<scsi/sg.h>`: `SG_IO` is 2285h; `struct sg_io_hdr` is 88 bytes on 64-bit Linux (laid
//!   out below, checked at compile time); `SG_DXFER_NONE` -1, `SG_DXFER_TO_DEV` -2,
//!   `SG_DXFER_FROM_DEV` -3.
//! - ACS-3: IDENTIFY DEVICE ECh; SMART B0h with FEATURE D0h (READ DATA) or D1h (READ
//!   THRESHOLDS) and LBA 00C24F00h; SECURITY SET PASSWORD F1h, ERASE PREPARE F3h, ERASE UNIT
//!   F4h, DISABLE PASSWORD F6h.

use std::fs::File;
use std::io;
use std::path::Path;
use std::time::Duration;

pub use crate::health::ata::{parse_identify, parse_smart, AtaIdentify, AtaSmart, PAGE_LEN};

/// ATA command opcodes (ACS-3).
pub mod op {
    /// IDENTIFY DEVICE.
    pub const IDENTIFY: u8 = 0xEC;
    /// SMART (the FEATURE field says which).
    pub const SMART: u8 = 0xB0;
    /// SECURITY SET PASSWORD.
    pub const SECURITY_SET_PASSWORD: u8 = 0xF1;
    /// SECURITY ERASE PREPARE.
    pub const SECURITY_ERASE_PREPARE: u8 = 0xF3;
    /// SECURITY ERASE UNIT.
    pub const SECURITY_ERASE_UNIT: u8 = 0xF4;
    /// SECURITY DISABLE PASSWORD.
    pub const SECURITY_DISABLE_PASSWORD: u8 = 0xF6;
    /// SMART FEATURE D0h: READ DATA.
    pub const SMART_READ_DATA: u16 = 0xD0;
    /// SMART FEATURE D1h: READ THRESHOLDS.
    pub const SMART_READ_THRESHOLDS: u16 = 0xD1;
    /// The SMART commands' LBA: 4Fh in bits 15:8, C2h in bits 23:16.
    pub const SMART_LBA: u64 = 0x00C2_4F00;
}

/// One ATA command (the task file of SAT's ATA PASS-THROUGH).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AtaCommand {
    /// COMMAND.
    pub command: u8,
    /// FEATURE.
    pub features: u16,
    /// COUNT (for a PIO transfer: sectors of 512 bytes).
    pub count: u16,
    /// LBA (48 bits).
    pub lba: u64,
}

impl AtaCommand {
    /// A command with no feature and no LBA.
    pub fn new(command: u8) -> AtaCommand {
        AtaCommand {
            command,
            features: 0,
            count: 0,
            lba: 0,
        }
    }
}

/// The data of a command, if any.
#[derive(Debug)]
pub enum AtaData<'a> {
    /// No data.
    None,
    /// PIO data-in: the drive fills the buffer.
    In(&'a mut [u8]),
    /// PIO data-out: the drive reads the buffer.
    Out(&'a [u8]),
}

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
pub enum AtaError {
    /// The SCSI layer in front of the drive (a USB bridge, a SAS HBA) does not take ATA
    /// PASS-THROUGH: ILLEGAL REQUEST.
    #[error("ATA PASS-THROUGH refused by the SCSI layer (sense key ILLEGAL REQUEST, ASC {asc:#04x}/{ascq:#04x}): no SAT translation on this path")]
    NotTranslated {
        /// Additional sense code.
        asc: u8,
        /// Its qualifier.
        ascq: u8,
    },
    /// The drive aborted the command (ATA status ERR), as the ATA Status Return descriptor
    /// says.
    #[error(
        "the drive aborted ATA command {command:#04x} (status {status:#04x}, error {error:#04x})"
    )]
    Aborted {
        /// The command.
        command: u8,
        /// ATA STATUS.
        status: u8,
        /// ATA ERROR.
        error: u8,
    },
    /// No answer within the time-out.
    #[error("no answer to ATA command {command:#04x} within {timeout_s} s")]
    TimedOut {
        /// The command.
        command: u8,
        /// The time-out, seconds.
        timeout_s: u64,
    },
    /// Any other failure (the ioctl, a sense the code does not know).
    #[error("{0}")]
    Other(String),
}

/// Sends one ATA command and waits for it. `Sync`: the erase waits for its long command on
/// one thread while another shows progress.
pub trait AtaTransport: Sync {
    /// Sends `cmd` with `data`, waiting up to `timeout`.
    fn send(&self, cmd: &AtaCommand, data: AtaData<'_>, timeout: Duration) -> Result<(), AtaError>;
}

/// Time-out of the reading commands: a drive that does not answer within this stalls the
/// sampler no longer.
pub const READ_TIMEOUT: Duration = Duration::from_secs(3);

/// IDENTIFY DEVICE: the raw page.
pub fn identify_page(t: &dyn AtaTransport) -> Result<Vec<u8>, AtaError> {
    let mut buf = vec![0u8; PAGE_LEN];
    let mut c = AtaCommand::new(op::IDENTIFY);
    c.count = 1;
    t.send(&c, AtaData::In(&mut buf), READ_TIMEOUT)?;
    Ok(buf)
}

/// SMART READ DATA (`feature` D0h) or READ THRESHOLDS (D1h): the raw page.
pub fn smart_page(t: &dyn AtaTransport, feature: u16) -> Result<Vec<u8>, AtaError> {
    let mut buf = vec![0u8; PAGE_LEN];
    let c = AtaCommand {
        command: op::SMART,
        features: feature,
        count: 1,
        lba: op::SMART_LBA,
    };
    t.send(&c, AtaData::In(&mut buf), READ_TIMEOUT)?;
    Ok(buf)
}

/// IDENTIFY DEVICE, parsed.
pub fn identify(t: &dyn AtaTransport) -> Result<AtaIdentify, AtaError> {
    parse_identify(&identify_page(t)?).map_err(AtaError::Other)
}

/// SMART READ DATA with the thresholds (where the drive gives them), parsed for `model`.
pub fn smart(t: &dyn AtaTransport, model: &str) -> Result<AtaSmart, AtaError> {
    let data = smart_page(t, op::SMART_READ_DATA)?;
    let thr = smart_page(t, op::SMART_READ_THRESHOLDS).ok();
    parse_smart(&data, thr.as_deref(), model).map_err(AtaError::Other)
}

/// SMART READ DATA alone, parsed (during a run: one command, not two).
pub fn smart_data_only(t: &dyn AtaTransport, model: &str) -> Result<AtaSmart, AtaError> {
    parse_smart(&smart_page(t, op::SMART_READ_DATA)?, None, model).map_err(AtaError::Other)
}

/// The ATA PASS-THROUGH (16) CDB for `cmd`, with its data direction (SAT-3 12.2.2).
pub fn cdb(cmd: &AtaCommand, data: &AtaData<'_>) -> [u8; 16] {
    let (protocol, byte2) = match data {
        // Non-data; CK_COND 0: a successful command returns no sense.
        AtaData::None => (3u8, 0u8),
        // PIO data-in: T_DIR 1, BYTE_BLOCK 1, T_LENGTH 2 (sectors in COUNT).
        AtaData::In(_) => (4, 0x0E),
        // PIO data-out: T_DIR 0, BYTE_BLOCK 1, T_LENGTH 2.
        AtaData::Out(_) => (5, 0x06),
    };
    let extend = u8::from(cmd.lba > 0x0FFF_FFFF || cmd.count > 0xFF || cmd.features > 0xFF);
    let l = cmd.lba.to_le_bytes();
    [
        0x85,
        (protocol << 1) | extend,
        byte2,
        (cmd.features >> 8) as u8,
        cmd.features as u8,
        (cmd.count >> 8) as u8,
        cmd.count as u8,
        l[3],
        l[0],
        l[4],
        l[1],
        l[5],
        l[2],
        // DEVICE: bit 6 (LBA) as ACS sets it for 48-bit commands; 0 for the others is
        // also accepted, and smartmontools sends 0 for IDENTIFY and SMART.
        0,
        cmd.command,
        0,
    ]
}

/// What the sense data of a failed command means (fixed 70h/71h or descriptor 72h/73h
/// format; SPC-4 4.5), for the command `command`.
pub fn sense_error(command: u8, sense: &[u8]) -> AtaError {
    let (key, asc, ascq) = match sense.first().map(|b| b & 0x7F) {
        Some(0x72) | Some(0x73) if sense.len() >= 4 => (sense[1] & 0xF, sense[2], sense[3]),
        Some(0x70) | Some(0x71) if sense.len() >= 14 => (sense[2] & 0xF, sense[12], sense[13]),
        _ => {
            return AtaError::Other(format!(
                "ATA command {command:#04x} failed with no sense data"
            ))
        }
    };
    if key == 0x5 {
        return AtaError::NotTranslated { asc, ascq };
    }
    // The ATA Status Return descriptor (code 09h, SAT-3 12.2.2.6) in descriptor sense: ERROR
    // at byte 3 of the descriptor, STATUS at byte 13.
    if sense[0] & 0x7F == 0x72 {
        let mut i = 8;
        while i + 1 < sense.len() {
            let (code, len) = (sense[i], sense[i + 1] as usize);
            if code == 0x09 && i + 13 < sense.len() {
                let (error, status) = (sense[i + 3], sense[i + 13]);
                if status & 0x01 != 0 {
                    return AtaError::Aborted {
                        command,
                        status,
                        error,
                    };
                }
                return AtaError::Other(format!(
                    "ATA command {command:#04x}: check condition with ATA status {status:#04x}"
                ));
            }
            i += 2 + len;
        }
    }
    if key == 0xB {
        // ABORTED COMMAND with no status descriptor.
        return AtaError::Aborted {
            command,
            status: 0x51,
            error: 0x04,
        };
    }
    AtaError::Other(format!(
        "ATA command {command:#04x} failed: sense key {key:#x}, ASC {asc:#04x}/{ascq:#04x}"
    ))
}

/// `struct sg_io_hdr` from `<scsi/sg.h>`, field for field (64-bit Linux).
#[repr(C)]
struct SgIoHdr {
    interface_id: libc::c_int,
    dxfer_direction: libc::c_int,
    cmd_len: u8,
    mx_sb_len: u8,
    iovec_count: u16,
    dxfer_len: u32,
    dxferp: *mut libc::c_void,
    cmdp: *const u8,
    sbp: *mut u8,
    timeout: u32,
    flags: u32,
    pack_id: libc::c_int,
    usr_ptr: *mut libc::c_void,
    status: u8,
    masked_status: u8,
    msg_status: u8,
    sb_len_wr: u8,
    host_status: u16,
    driver_status: u16,
    resid: libc::c_int,
    duration: u32,
    info: u32,
}

#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<SgIoHdr>() == 88);

const SG_IO: libc::c_ulong = 0x2285;
const SG_DXFER_NONE: libc::c_int = -1;
const SG_DXFER_TO_DEV: libc::c_int = -2;
const SG_DXFER_FROM_DEV: libc::c_int = -3;
/// `DID_TIME_OUT` in `host_status` (`<scsi/scsi_status.h>`).
const DID_TIME_OUT: u16 = 0x03;

/// A SCSI disk (`/dev/sdX`) opened read-only for ATA PASS-THROUGH. Opening it writes
/// nothing; the commands are the reads of this module and, for `--secure-erase` only, the
/// Security commands of `device::ata_erase`.
#[derive(Debug)]
pub struct SgIo {
    file: File,
}

impl SgIo {
    /// Opens `path` read-only and without waiting (`O_NONBLOCK`, as smartmontools does).
    pub fn open(path: &Path) -> io::Result<SgIo> {
        use std::os::unix::fs::OpenOptionsExt;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)?;
        Ok(SgIo { file })
    }
}

impl AtaTransport for SgIo {
    fn send(&self, cmd: &AtaCommand, data: AtaData<'_>, timeout: Duration) -> Result<(), AtaError> {
        use std::os::fd::AsRawFd;
        let cdb = cdb(cmd, &data);
        let mut sense = [0u8; 64];
        let (dir, ptr, len) = match data {
            AtaData::None => (SG_DXFER_NONE, std::ptr::null_mut(), 0),
            AtaData::In(b) => (
                SG_DXFER_FROM_DEV,
                b.as_mut_ptr() as *mut libc::c_void,
                b.len(),
            ),
            AtaData::Out(b) => (SG_DXFER_TO_DEV, b.as_ptr() as *mut libc::c_void, b.len()),
        };
        let timeout_ms = timeout.as_millis().min(u32::MAX as u128 - 1) as u32;
        let mut h = SgIoHdr {
            interface_id: b'S' as libc::c_int,
            dxfer_direction: dir,
            cmd_len: cdb.len() as u8,
            mx_sb_len: sense.len() as u8,
            iovec_count: 0,
            dxfer_len: len as u32,
            dxferp: ptr,
            cmdp: cdb.as_ptr(),
            sbp: sense.as_mut_ptr(),
            timeout: timeout_ms,
            flags: 0,
            pack_id: 0,
            usr_ptr: std::ptr::null_mut(),
            status: 0,
            masked_status: 0,
            msg_status: 0,
            sb_len_wr: 0,
            host_status: 0,
            driver_status: 0,
            resid: 0,
            duration: 0,
            info: 0,
        };
        // SAFETY: `h` is a live `struct sg_io_hdr` laid out as the kernel's (88 bytes,
        // checked at compile time); its pointers are to `cdb` (16 bytes, read by the
        // kernel), `sense` (64 bytes, `mx_sb_len`, written by the kernel) and the data
        // buffer: for data-in a live, exclusively borrowed buffer of `dxfer_len` bytes the
        // kernel fills, for data-out a live buffer of `dxfer_len` bytes it only reads (the
        // `*mut` cast is the header's type; SG_DXFER_TO_DEV never writes it). All of them
        // outlive the call, which is synchronous: the kernel keeps no pointer after it
        // returns. The fd is open for the whole call.
        let r = unsafe { libc::ioctl(self.file.as_raw_fd(), SG_IO as _, &mut h as *mut SgIoHdr) };
        if r < 0 {
            let e = io::Error::last_os_error();
            return Err(AtaError::Other(format!("SG_IO: {e}")));
        }
        if h.host_status == DID_TIME_OUT {
            return Err(AtaError::TimedOut {
                command: cmd.command,
                timeout_s: timeout.as_secs(),
            });
        }
        if h.status == 0 && h.host_status == 0 && h.driver_status & 0x0F == 0 {
            return Ok(());
        }
        if h.sb_len_wr > 0 {
            return Err(sense_error(cmd.command, &sense[..h.sb_len_wr as usize]));
        }
        Err(AtaError::Other(format!(
            "ATA command {:#04x}: SCSI status {:#04x}, host {:#06x}, driver {:#06x}",
            cmd.command, h.status, h.host_status, h.driver_status
        )))
    }
}

/// `--trim` on an ATA drive whose IDENTIFY DEVICE says it has no DATA SET MANAGEMENT TRIM
/// (word 169 bit 0): a usage error, before anything is written (BLKDISCARD would fail only
/// after the device was opened for writing, or the kernel would zero the span instead).
pub fn check_trim(spec: &str, id: &AtaIdentify) -> anyhow::Result<()> {
    if id.trim_supported {
        return Ok(());
    }
    Err(crate::error::usage(format!(
        "--trim: {spec} ({}) does not support TRIM (IDENTIFY DEVICE word 169 bit 0 is clear); \
         leave --trim out, or use --secure-erase where the drive has the Security feature set",
        if id.model.is_empty() {
            "an ATA drive"
        } else {
            &id.model
        }
    )))
}

/// An ATA drive as a run or `info` sees it: its transport, its IDENTIFY data as read when
/// the target was inspected, and whether it sits behind a USB bridge.
#[derive(Debug)]
pub struct AtaDevice {
    /// The transport.
    pub sg: SgIo,
    /// IDENTIFY DEVICE, parsed, when the target was inspected.
    pub identify: AtaIdentify,
    /// The USB bridge's sysfs speed, Mb/s, when the drive is behind one.
    pub usb_mbps: Option<u32>,
}

impl AtaDevice {
    /// The SMART attributes now (data and thresholds).
    pub fn smart(&self) -> Result<AtaSmart, AtaError> {
        smart(&self.sg, &self.identify.model)
    }

    /// The SMART attributes now, data alone (during a run).
    pub fn smart_data_only(&self) -> Result<AtaSmart, AtaError> {
        smart_data_only(&self.sg, &self.identify.model)
    }
}

/// What was found when a SCSI disk was asked for ATA IDENTIFY.
#[derive(Debug)]
pub enum Probe {
    /// An ATA drive.
    Ata(AtaDevice),
    /// Not reached: the one line to say, or None where nothing is worth saying (a SCSI
    /// disk that is not ATA, a virtual disk).
    Not(Option<String>),
}

/// Whether sysfs name `name` is a SCSI disk (`sda`, `sdab`, and their partitions `sda1`).
pub fn is_scsi_disk_name(name: &str) -> bool {
    name.strip_prefix("sd")
        .is_some_and(|r| r.bytes().next().is_some_and(|c| c.is_ascii_lowercase()))
}

/// The speed of the USB device above sysfs folder `dev_dir` (a disk's `device`), Mb/s
/// (`speed` of the nearest ancestor that has `idVendor`): None when it is not on USB.
pub fn usb_speed_mbps(dev_dir: &Path) -> Option<u32> {
    let real = std::fs::canonicalize(dev_dir).ok()?;
    if !real.to_string_lossy().contains("/usb") {
        return None;
    }
    real.ancestors()
        .filter(|a| a.join("idVendor").exists())
        .find_map(|a| std::fs::read_to_string(a.join("speed")).ok())
        .and_then(|s| s.trim().parse::<f64>().ok())
        .map(|v| v as u32)
        .or(Some(0))
}

/// The kernel's libata link of the disk whose sysfs `device` folder is `dev_dir`: the `ataN`
/// port in its resolved path (`.../0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0`), then that
/// port's link, `ataN/linkN/ata_link/linkN/sata_spd` (the file
/// `/sys/class/ata_link/linkN/sata_spd` names). A port with a port multiplier has links
/// `linkN.M` beside its own `linkN`: the port's own is taken, the host's side, else the
/// port's only link. None when the disk is not on libata (NVMe, virtio, USB) or sysfs has
/// no such file.
pub fn libata_link(dev_dir: &Path) -> Option<crate::health::ata::LibataLink> {
    let real = std::fs::canonicalize(dev_dir).ok()?;
    let port_number = |p: &Path| {
        p.file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix("ata"))
            .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            .map(str::to_string)
    };
    let port = real.ancestors().find(|a| port_number(a).is_some())?;
    let n = port_number(port)?;
    let spd = |name: &str| port.join(name).join("ata_link").join(name).join("sata_spd");
    let own = format!("link{n}");
    let name = if spd(&own).is_file() {
        own
    } else {
        let links: Vec<String> = std::fs::read_dir(port)
            .ok()?
            .flatten()
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter(|name| name.starts_with("link") && spd(name).is_file())
            .collect();
        match <[String; 1]>::try_from(links) {
            Ok([one]) => one,
            Err(_) => return None,
        }
    };
    let text = std::fs::read_to_string(spd(&name)).ok()?;
    Some(crate::health::ata::LibataLink {
        sata_spd: text.trim().to_string(),
        gbps: crate::health::ata::parse_sata_spd(&text),
        name,
    })
}

/// Asks the SCSI disk at `path` for IDENTIFY DEVICE through ATA PASS-THROUGH (16), a read.
/// `usb_mbps` is the USB speed when the disk is behind a USB bridge (from
/// [`usb_speed_mbps`]), to say in one line that the bridge refused.
pub fn probe(path: &Path, usb_mbps: Option<u32>) -> Probe {
    let sg = match SgIo::open(path) {
        Ok(s) => s,
        Err(e) => return Probe::Not(Some(format!("ATA pass-through: cannot open: {e}"))),
    };
    match identify(&sg) {
        Ok(id) => Probe::Ata(AtaDevice {
            sg,
            identify: id,
            usb_mbps,
        }),
        Err(e) => Probe::Not(refusal_line(&e, usb_mbps.is_some())),
    }
}

/// The one line said when ATA IDENTIFY fails on a SCSI disk: always behind USB (the bridge
/// refused SAT), else only for a failure other than "not translated" (a SCSI disk that is
/// not ATA is no news).
pub fn refusal_line(e: &AtaError, usb: bool) -> Option<String> {
    let root = match e {
        AtaError::Other(m) if m.contains("Operation not permitted") => " (root needed)",
        _ => "",
    };
    if usb {
        Some(format!(
            "the USB bridge does not pass ATA commands through (SAT): {e}{root}; identity from \
             sysfs, no SMART"
        ))
    } else {
        match e {
            AtaError::NotTranslated { .. } => None,
            _ => Some(format!("ATA pass-through failed: {e}{root}")),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn cdbs_as_sat_lays_them_out() {
        // IDENTIFY DEVICE: PIO data-in, one sector.
        let mut c = AtaCommand::new(op::IDENTIFY);
        c.count = 1;
        let mut b = [0u8; 512];
        assert_eq!(
            cdb(&c, &AtaData::In(&mut b)),
            [0x85, 0x08, 0x0E, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0xEC, 0]
        );
        // SMART READ DATA: FEATURE D0h, LBA mid 4Fh, high C2h (what smartctl sends).
        let c = AtaCommand {
            command: op::SMART,
            features: op::SMART_READ_DATA,
            count: 1,
            lba: op::SMART_LBA,
        };
        assert_eq!(
            cdb(&c, &AtaData::In(&mut b)),
            [0x85, 0x08, 0x0E, 0, 0xD0, 0, 1, 0, 0, 0, 0x4F, 0, 0xC2, 0, 0xB0, 0]
        );
        // SECURITY ERASE PREPARE: non-data; SET PASSWORD: PIO data-out.
        assert_eq!(
            cdb(&AtaCommand::new(op::SECURITY_ERASE_PREPARE), &AtaData::None)[..3],
            [0x85, 0x06, 0x00]
        );
        let mut c = AtaCommand::new(op::SECURITY_SET_PASSWORD);
        c.count = 1;
        let d = cdb(&c, &AtaData::Out(&b));
        assert_eq!((d[0], d[1], d[2], d[6], d[14]), (0x85, 0x0A, 0x06, 1, 0xF1));
        // A 48-bit LBA sets EXTEND and the upper bytes.
        let c = AtaCommand {
            command: 0x25,
            features: 0,
            count: 1,
            lba: 0x0605_0403_0201,
        };
        let d = cdb(&c, &AtaData::In(&mut b));
        assert_eq!(d[1] & 1, 1);
        assert_eq!(&d[7..13], &[0x04, 0x01, 0x05, 0x02, 0x06, 0x03]);
    }

    #[test]
    fn sense_data_is_read() {
        // ILLEGAL REQUEST, INVALID COMMAND OPERATION CODE: a bridge without SAT.
        let mut fixed = [0u8; 18];
        fixed[0] = 0x70;
        fixed[2] = 0x05;
        fixed[12] = 0x20;
        assert!(matches!(
            sense_error(0xEC, &fixed),
            AtaError::NotTranslated { asc: 0x20, .. }
        ));
        // Descriptor sense with the ATA Status Return descriptor: ERR set, ABRT in ERROR.
        let mut d = [0u8; 22];
        d[0] = 0x72;
        d[1] = 0x0B;
        d[7] = 14;
        d[8] = 0x09;
        d[9] = 12;
        d[11] = 0x04;
        d[21] = 0x51;
        match sense_error(0xF4, &d) {
            AtaError::Aborted {
                command,
                status,
                error,
            } => assert_eq!((command, status, error), (0xF4, 0x51, 0x04)),
            e => panic!("{e}"),
        }
        assert!(matches!(sense_error(0xEC, &[]), AtaError::Other(_)));
    }

    #[test]
    fn names_and_lines() {
        for n in ["sda", "sdab", "sdb3"] {
            assert!(is_scsi_disk_name(n), "{n}");
        }
        for n in ["sd", "sr0", "nvme0n1", "sd1"] {
            assert!(!is_scsi_disk_name(n), "{n}");
        }
        let nt = AtaError::NotTranslated { asc: 0x20, ascq: 0 };
        let l = refusal_line(&nt, true).unwrap();
        assert!(
            l.starts_with("the USB bridge does not pass ATA commands through (SAT)"),
            "{l}"
        );
        assert!(l.ends_with("identity from sysfs, no SMART"), "{l}");
        assert_eq!(refusal_line(&nt, false), None);
        let eperm = AtaError::Other("SG_IO: Operation not permitted (os error 1)".into());
        assert!(refusal_line(&eperm, false)
            .unwrap()
            .contains("(root needed)"));
    }

    #[test]
    fn trim_is_refused_where_identify_says_there_is_none() {
        use crate::health::ata::pages::{samsung_identify, seal, set_word};
        let mut p = samsung_identify();
        check_trim("/dev/sda", &parse_identify(&p).unwrap()).unwrap();
        set_word(&mut p, 169, 0);
        seal(&mut p);
        let e = check_trim("/dev/sda", &parse_identify(&p).unwrap()).unwrap_err();
        assert_eq!(crate::error::exit_code(&e), 2);
        let m = format!("{e:#}");
        assert!(
            m.starts_with(
                "--trim: /dev/sda (Samsung SSD 870 EVO 1TB) does not support TRIM (IDENTIFY \
                 DEVICE word 169 bit 0 is clear)"
            ),
            "{m}"
        );
    }

    /// A fake sysfs with the kernel's layout for a SATA disk on an AHCI port:
    /// `block/sda/device` links to the SCSI device under `ata3`, whose link's `sata_spd`
    /// is `spd`; `extra_links` are more links of the port (a port multiplier's).
    fn fake_ata_sysfs(root: &Path, spd: Option<&str>, extra_links: &[&str]) -> std::path::PathBuf {
        let port = root.join("devices/pci0000:00/0000:00:1f.2/ata3");
        let scsi = port.join("host2/target2:0:0/2:0:0:0");
        std::fs::create_dir_all(&scsi).unwrap();
        let mut links: Vec<(&str, Option<&str>)> = vec![("link3", spd)];
        links.extend(extra_links.iter().map(|l| (*l, Some("3.0 Gbps\n"))));
        for (name, value) in links {
            let d = port.join(name).join("ata_link").join(name);
            std::fs::create_dir_all(&d).unwrap();
            if let Some(v) = value {
                std::fs::write(d.join("sata_spd"), v).unwrap();
            }
        }
        let disk = root.join("block/sda");
        std::fs::create_dir_all(&disk).unwrap();
        std::os::unix::fs::symlink(&scsi, disk.join("device")).unwrap();
        disk.join("device")
    }

    #[test]
    fn the_libata_link_of_a_disk_from_sysfs() {
        use crate::health::ata::LibataLink;
        let r = tempfile::tempdir().unwrap();
        let dev = fake_ata_sysfs(r.path(), Some("1.5 Gbps\n"), &[]);
        assert_eq!(
            libata_link(&dev),
            Some(LibataLink {
                name: "link3".into(),
                sata_spd: "1.5 Gbps".into(),
                gbps: Some(1.5),
            })
        );
        // No link up (or a parallel ATA port): the kernel writes "<unknown>".
        let r = tempfile::tempdir().unwrap();
        let dev = fake_ata_sysfs(r.path(), Some("<unknown>\n"), &[]);
        let l = libata_link(&dev).unwrap();
        assert_eq!((l.sata_spd.as_str(), l.gbps), ("<unknown>", None));
        // A port multiplier's links beside the port's own: the port's own.
        let r = tempfile::tempdir().unwrap();
        let dev = fake_ata_sysfs(r.path(), Some("6.0 Gbps\n"), &["link3.0", "link3.1"]);
        assert_eq!(libata_link(&dev).unwrap().gbps, Some(6.0));
        // The port's own link has no speed file, one other link does: that one.
        let r = tempfile::tempdir().unwrap();
        let dev = fake_ata_sysfs(r.path(), None, &["link3.0"]);
        assert_eq!(libata_link(&dev).unwrap().name, "link3.0");
        // Two candidates and none the port's own: none rather than a guess.
        let r = tempfile::tempdir().unwrap();
        let dev = fake_ata_sysfs(r.path(), None, &["link3.0", "link3.1"]);
        assert_eq!(libata_link(&dev), None);
        // An NVMe disk: no ataN port in its path.
        let r = tempfile::tempdir().unwrap();
        let ctrl = r.path().join("devices/pci0000:00/0000:01:00.0/nvme/nvme0");
        std::fs::create_dir_all(&ctrl).unwrap();
        let disk = r.path().join("block/nvme0n1");
        std::fs::create_dir_all(&disk).unwrap();
        std::os::unix::fs::symlink(&ctrl, disk.join("device")).unwrap();
        assert_eq!(libata_link(&disk.join("device")), None);
        // A disk with no device link at all.
        assert_eq!(libata_link(&r.path().join("block/loop0/device")), None);
    }

    #[test]
    fn a_regular_file_is_not_an_ata_drive() {
        // SG_IO on a regular file: ENOTTY, an error, not a crash.
        let f = tempfile::NamedTempFile::new().unwrap();
        match probe(f.path(), None) {
            Probe::Not(Some(l)) => assert!(l.contains("SG_IO"), "{l}"),
            other => panic!("{other:?}"),
        }
    }
}
