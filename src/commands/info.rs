//! The `info` subcommand: what a target is and what the drive says about itself (identity,
//! capacity, block sizes, whether `probe` would refuse it, temperature, the NVMe SMART /
//! Health log), as text or JSON. Opens read-only and writes nothing.
//!
//! The report is built from parsed data only ([`InfoReport::build`]): the NVMe Identify and
//! SMART pages are read by the caller and parsed by [`crate::device::nvme`], so the whole
//! report, text included, is tested on canned pages.

use std::fmt::Write as _;

use anyhow::Result;
use serde::Serialize;

use crate::cli::InfoArgs;
use crate::device::host::HostInfo;
use crate::device::nvme::{format_celsius, HealthLog, IdentifyController, DATA_UNIT_BYTES};
use crate::device::nvme_ctrl::erase_text;
use crate::device::{self, TargetInfo, TargetKind};
use crate::health::ata::{AtaIdentify, AtaSmart};
use crate::timeline::DeviceIdentity;
use crate::units::{format_bytes, format_rate, UnitSystem};

/// What `info` reports (the JSON of `info --json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InfoReport {
    /// The target as given.
    pub target: String,
    /// "block", "file" or "emulated".
    pub kind: String,
    /// Model, serial, firmware, capacity, block sizes.
    pub identity: DeviceIdentity,
    /// Offsets and lengths of direct I/O must be multiples of this many bytes.
    pub direct_io_alignment_bytes: Option<u64>,
    /// Whether `probe` would refuse to write to it because it is in use (mounted, active
    /// swap, held by device-mapper or md, the root filesystem): `false` when it is free, and
    /// always `false` for regular files and emulated drives.
    pub in_use: bool,
    /// Why it is in use, when it is; null otherwise.
    pub in_use_reason: Option<String>,
    /// Temperature now, °C: on NVMe and emulated drives the SMART log's composite
    /// temperature (whole Kelvin, as the drive reports it), the same value as
    /// `health.temperature_c`.
    pub temperature_c: Option<f64>,
    /// Where the temperature comes from: "smart", "hwmon" or "model".
    pub temperature_source: Option<String>,
    /// NVMe Identify Controller, on NVMe drives.
    pub nvme_identify: Option<IdentifyController>,
    /// The SMART / Health log, on NVMe drives (and from the model on emulated ones).
    pub health: Option<HealthLog>,
    /// Why the health log could not be read, on an NVMe drive that refused.
    pub health_error: Option<String>,
    /// ATA IDENTIFY DEVICE, on a SCSI disk (`sdX`) whose SG_IO ATA pass-through answered:
    /// SATA through libata, or USB through a bridge that speaks SAT.
    pub ata_identify: Option<AtaIdentify>,
    /// The SMART attributes of that ATA drive.
    pub ata_smart: Option<AtaSmart>,
    /// Why the SMART attributes could not be read, on an ATA drive that refused.
    pub ata_smart_error: Option<String>,
    /// Why a SCSI disk has no ATA identity, in one line (a USB bridge that refuses SAT).
    pub ata_note: Option<String>,
    /// The machine and the disk's queue settings.
    pub host: HostInfo,
    /// The narrowest link between the host and the drive, with the rate it lets through:
    /// the host record's (SATA, USB, PCIe), or an emulated drive's model's. null where none
    /// is known.
    pub link: Option<crate::link::Link>,
}

impl InfoReport {
    /// Builds the report from what was read: the target, the refusal reason if any, the
    /// parsed NVMe pages (or the reason the health log is missing), the hwmon temperature,
    /// and the host. Pure: reads nothing.
    pub fn build(
        info: &TargetInfo,
        in_use: Option<String>,
        identify: Option<IdentifyController>,
        health: Result<Option<HealthLog>, String>,
        hwmon_c: Option<f64>,
        host: HostInfo,
    ) -> InfoReport {
        let (health, health_error) = match health {
            Ok(h) => (h, None),
            Err(e) => (None, Some(e)),
        };
        // One reading per sensor: the emulated drive's temperature is its SMART log's, in
        // whole Kelvin as a drive reports it, so both lines of `info` show the same figure.
        let (temperature_c, source) = match (&info.emulated, &health, hwmon_c) {
            (Some(_), h, _) => (h.as_ref().and_then(|h| h.temperature_c), "model"),
            (None, Some(h), _) if h.temperature_c.is_some() => (h.temperature_c, "smart"),
            (None, _, Some(c)) => (Some(c), "hwmon"),
            _ => (None, ""),
        };
        let mut identity = info.identity.clone();
        if let Some(id) = &identify {
            let fill = |slot: &mut Option<String>, v: &str| {
                if slot.is_none() && !v.is_empty() {
                    *slot = Some(v.to_string());
                }
            };
            fill(&mut identity.model, &id.model);
            fill(&mut identity.serial, &id.serial);
            fill(&mut identity.firmware, &id.firmware);
        }
        InfoReport {
            target: info.spec.clone(),
            kind: identity.kind.clone(),
            identity,
            direct_io_alignment_bytes: info.offset_align,
            in_use: in_use.is_some(),
            in_use_reason: in_use,
            temperature_c,
            temperature_source: temperature_c.map(|_| source.to_string()),
            nvme_identify: identify,
            health,
            health_error,
            ata_identify: None,
            ata_smart: None,
            ata_smart_error: None,
            ata_note: info.ata_note.clone(),
            link: match &info.emulated {
                Some(e) => e.model().link_info(),
                None => host.link(),
            },
            host,
        }
    }

    /// Adds an ATA drive's IDENTIFY data and SMART attributes (or why they could not be
    /// read): the identity's model, serial and firmware are the drive's own (sysfs's SCSI
    /// fields are cut to 16 and 4 characters), and the temperature is SMART's where it has
    /// one. Pure.
    pub fn with_ata(mut self, id: AtaIdentify, smart: Result<AtaSmart, String>) -> InfoReport {
        let put = |slot: &mut Option<String>, v: &str| {
            if !v.is_empty() {
                *slot = Some(v.to_string());
            }
        };
        put(&mut self.identity.model, &id.model);
        put(&mut self.identity.serial, &id.serial);
        put(&mut self.identity.firmware, &id.firmware);
        match smart {
            Ok(s) => {
                if let Some(c) = s.temperature_c {
                    self.temperature_c = Some(c);
                    self.temperature_source = Some("smart".into());
                }
                self.ata_smart = Some(s);
            }
            Err(e) => self.ata_smart_error = Some(e),
        }
        self.ata_identify = Some(id);
        self
    }

    /// Reads everything about `info` (the NVMe admin commands, hwmon, sysfs) and builds the
    /// report.
    pub fn read(info: &TargetInfo, in_use: Option<String>) -> InfoReport {
        let (identify, health) = match (&info.emulated, &info.nvme) {
            (Some(e), _) => (None, Ok(Some(e.health()))),
            (None, Some(n)) => (
                n.identify().ok(),
                n.health().map(Some).map_err(|e| {
                    format!("the SMART / Health log could not be read: {e} (root needed?)")
                }),
            ),
            (None, None) => (None, Ok(None)),
        };
        let r = InfoReport::build(
            info,
            in_use,
            identify,
            health,
            info.hwmon_temperature_c(),
            HostInfo::collect(info),
        );
        match &info.ata {
            Some(a) => r.with_ata(
                a.identify.clone(),
                a.smart()
                    .map_err(|e| format!("SMART READ DATA could not be read: {e} (root needed?)")),
            ),
            None => r,
        }
    }

    /// The report as text, every number with its unit.
    pub fn text(&self, units: UnitSystem) -> String {
        let mut s = String::new();
        let id = &self.identity;
        let kind = match self.kind.as_str() {
            "block" => "block device",
            "file" => "regular file",
            "emulated" => "emulated drive",
            k => k,
        };
        let _ = writeln!(s, "{} ({kind})", self.target);
        let line = |s: &mut String, k: &str, v: &str| {
            let _ = writeln!(s, "  {:<18}{v}", format!("{k}:"));
        };
        if let Some(m) = &id.model {
            line(&mut s, "model", m);
        }
        if let Some(v) = &id.serial {
            line(&mut s, "serial", v);
        }
        if let Some(v) = &id.firmware {
            line(&mut s, "firmware", v);
        }
        if let Some(c) = id.capacity_bytes {
            line(
                &mut s,
                "capacity",
                &format!("{} ({c} bytes)", format_bytes(c as f64, units)),
            );
        }
        match (id.logical_block_size, id.physical_block_size) {
            (Some(l), Some(p)) => line(
                &mut s,
                "block sizes",
                &format!("{l} B logical, {p} B physical"),
            ),
            (Some(l), None) => line(&mut s, "block size", &format!("{l} B")),
            _ => {}
        }
        if let Some(a) = self.direct_io_alignment_bytes {
            line(&mut s, "direct I/O", &format!("multiples of {a} B"));
        }
        if self.kind == "block" || self.in_use_reason.is_some() {
            let v = match &self.in_use_reason {
                Some(r) => format!(
                    "yes: {}; probe refuses it",
                    r.trim_end_matches("; give another target")
                ),
                None => "no (not mounted, not swap, no holders)".to_string(),
            };
            line(&mut s, "in use", &v);
        }
        match (self.temperature_c, &self.temperature_source) {
            (Some(c), Some(src)) => line(
                &mut s,
                "temperature",
                &format!("{} ({src})", format_celsius(c)),
            ),
            _ => line(&mut s, "temperature", "not reported"),
        }
        let h = &self.host;
        let mut q = Vec::new();
        if let Some(v) = &h.scheduler {
            q.push(format!("scheduler {v}"));
        }
        if let Some(v) = &h.write_cache {
            q.push(format!("write cache {v}"));
        }
        if let Some(v) = h.pcie_text() {
            q.push(format!("PCIe {v}"));
        }
        if !q.is_empty() {
            let disk = h.disk.as_deref().unwrap_or("disk");
            line(&mut s, "queue", &format!("{disk}: {}", q.join(", ")));
        }
        if let Some(k) = &h.kernel {
            let cpu = match (&h.cpu_model, h.cores) {
                (Some(c), Some(n)) => format!("; {c}, {n} CPUs"),
                _ => String::new(),
            };
            line(&mut s, "host", &format!("Linux {k}{cpu}"));
        }
        // An emulated drive's link is its model's; a real drive's is on its queue line or its
        // ATA identity's link line.
        if let (Some(l), "emulated") = (&self.link, self.kind.as_str()) {
            line(
                &mut s,
                "link",
                &format!(
                    "{} (the model's): usable {}, {} raw",
                    l.name,
                    format_rate(l.usable_bytes_per_sec, units),
                    format_rate(l.raw_bytes_per_sec, units)
                ),
            );
        }
        if let Some(id) = &self.nvme_identify {
            s.push_str(&erase_text(id));
        }
        if let Some(n) = &self.ata_note {
            let _ = writeln!(s, "ATA pass-through: {n}");
        }
        if let Some(id) = &self.ata_identify {
            s.push_str(&ata_identify_text(
                id,
                self.host.usb_mbps,
                self.host.libata_link.as_ref(),
            ));
        }
        if let Some(e) = &self.ata_smart_error {
            let _ = writeln!(s, "SMART: {e}");
        }
        if let Some(a) = &self.ata_smart {
            s.push_str(&ata_smart_text(a, units));
        }
        if let Some(e) = &self.health_error {
            let _ = writeln!(s, "health log: {e}");
        }
        if let Some(hl) = &self.health {
            // An emulated drive on a SATA or USB link keeps its counters in NVMe's form: say
            // so, rather than show an ATA drive an NVMe log as if it had one.
            if self.kind == "emulated" && self.link.as_ref().is_some_and(|l| !l.is_pcie()) {
                let _ = writeln!(s, "{}", crate::link::EMULATED_COUNTERS_NOTE);
            }
            if self.kind == "emulated" {
                let _ = writeln!(s, "{}", crate::link::EMULATED_COUNTERS_FROM_ZERO);
            }
            s.push_str(&health_text(hl, self.nvme_identify.as_ref(), units));
        }
        s
    }
}

/// An ATA drive's IDENTIFY data as text (`usb_mbps`: the USB bridge's speed, when behind
/// one; `libata`: the kernel's libata link, the link's speed where IDENTIFY gives none).
pub fn ata_identify_text(
    id: &AtaIdentify,
    usb_mbps: Option<u32>,
    libata: Option<&crate::health::ata::LibataLink>,
) -> String {
    let mut s = String::from("ATA drive (IDENTIFY DEVICE):\n");
    let line = |s: &mut String, k: &str, v: String| {
        let _ = writeln!(s, "  {:<18}{v}", format!("{k}:"));
    };
    line(
        &mut s,
        "standard",
        format!(
            "{}; SMART {}",
            id.ata_version.as_deref().unwrap_or("not reported"),
            match (id.smart_supported, id.smart_enabled) {
                (true, true) => "supported, enabled",
                (true, false) => "supported, disabled",
                _ => "not supported",
            }
        ),
    );
    line(
        &mut s,
        "sectors",
        format!(
            "{} of {} B logical, {} B physical",
            id.sectors, id.logical_sector_bytes, id.physical_sector_bytes
        ),
    );
    line(&mut s, "rotation", id.rotation_text());
    let mut link = id.link_text_with(libata);
    if let Some(m) = usb_mbps {
        link.push_str(&format!("; behind a USB bridge at {m} Mb/s"));
    }
    line(&mut s, "link", link);
    line(&mut s, "TRIM", id.trim_text());
    line(&mut s, "security", id.security_text());
    s
}

/// An ATA drive's SMART attributes as text: the table as smartctl -A prints it, then what
/// they mean for this drive.
pub fn ata_smart_text(a: &AtaSmart, units: UnitSystem) -> String {
    let mut s = String::from("SMART attributes (SMART READ DATA):\n");
    let _ = writeln!(
        s,
        "  {:>3} {:<24} {:>6} {:>5} {:>5} {:>6}  raw",
        "ID", "name", "flags", "value", "worst", "thresh"
    );
    for at in &a.attributes {
        let thr = at
            .threshold
            .map(|t| format!("{t:03}"))
            .unwrap_or_else(|| "-".into());
        let _ = writeln!(
            s,
            "  {:>3} {:<24} {:#06x} {:>5} {:>5} {:>6}  {}",
            at.id,
            at.name,
            at.flags,
            format!("{:03}", at.current),
            format!("{:03}", at.worst),
            thr,
            at.raw
        );
    }
    let line = |s: &mut String, k: &str, v: String| {
        let _ = writeln!(s, "  {:<18}{v}", format!("{k}:"));
    };
    line(
        &mut s,
        "temperature",
        match (a.temperature_c, a.temperature_attribute) {
            (Some(c), Some(id)) => format!("{c:.0} °C (attribute {id})"),
            _ => "not reported".to_string(),
        },
    );
    line(
        &mut s,
        "power-on",
        a.power_on_hours
            .map(|h| format!("{h} h (attribute 9)"))
            .unwrap_or_else(|| "not reported".to_string()),
    );
    line(
        &mut s,
        "data written",
        match &a.data_written {
            Some(w) => match w.bytes {
                Some(b) => format!(
                    "{} ({} x {} B; {})",
                    format_bytes(b as f64, units),
                    w.raw,
                    w.unit_bytes.unwrap_or(0),
                    w.unit_source
                ),
                None => format!("attribute 241 raw {}: {}", w.raw, w.unit_source),
            },
            None => "not reported (no attribute 241)".to_string(),
        },
    );
    line(
        &mut s,
        "wear",
        match &a.wear {
            Some(w) => format!(
                "{} % life left ({} {})",
                w.life_left_pct, w.attribute, w.name
            ),
            None => "not reported".to_string(),
        },
    );
    s
}

/// The SMART / Health log as text.
pub fn health_text(h: &HealthLog, id: Option<&IdentifyController>, units: UnitSystem) -> String {
    let mut s = String::from("health log (SMART / Health Information):\n");
    let line = |s: &mut String, k: &str, v: String| {
        let _ = writeln!(s, "  {:<24}{v}", format!("{k}:"));
    };
    line(
        &mut s,
        "critical warning",
        if h.critical_warning == 0 {
            "none".to_string()
        } else {
            format!(
                "{:#04x} (bits set: see the NVMe SMART log)",
                h.critical_warning
            )
        },
    );
    let limits = id
        .map(|i| {
            let mut v = Vec::new();
            if let Some(w) = i.warning_temp_c {
                v.push(format!("warning at {}", format_celsius(w)));
            }
            if let Some(c) = i.critical_temp_c {
                v.push(format!("critical at {}", format_celsius(c)));
            }
            if v.is_empty() {
                String::new()
            } else {
                format!(" ({})", v.join(", "))
            }
        })
        .unwrap_or_default();
    line(
        &mut s,
        "composite temperature",
        match h.temperature_c {
            Some(c) => format!("{}{limits}", format_celsius(c)),
            None => "not reported".to_string(),
        },
    );
    if !h.sensors_c.is_empty() {
        let v: Vec<String> = h.sensors_c.iter().map(|&c| format_celsius(c)).collect();
        line(&mut s, "temperature sensors", v.join(", "));
    }
    line(
        &mut s,
        "percentage used",
        format!("{} %", h.percentage_used),
    );
    line(
        &mut s,
        "available spare",
        format!(
            "{} % (threshold {} %)",
            h.available_spare_pct, h.available_spare_threshold_pct
        ),
    );
    let du = |n: u128| {
        format!(
            "{} ({n} units of {DATA_UNIT_BYTES} bytes)",
            format_bytes((n as f64) * DATA_UNIT_BYTES as f64, units)
        )
    };
    line(&mut s, "data written", du(h.data_units_written));
    line(&mut s, "data read", du(h.data_units_read));
    line(
        &mut s,
        "commands",
        format!(
            "{} writes, {} reads",
            h.host_write_commands, h.host_read_commands
        ),
    );
    line(
        &mut s,
        "power",
        format!(
            "{} h on, {} cycles, {} unsafe shutdowns, {} min busy",
            h.power_on_hours, h.power_cycles, h.unsafe_shutdowns, h.controller_busy_min
        ),
    );
    line(
        &mut s,
        "errors",
        format!(
            "{} media errors, {} error log entries",
            h.media_errors, h.error_log_entries
        ),
    );
    line(
        &mut s,
        "thermal management",
        format!(
            "level 1: {} transitions, {} s; level 2: {} transitions, {} s",
            h.thermal_mgmt_t1_transitions,
            h.thermal_mgmt_t1_time_s,
            h.thermal_mgmt_t2_transitions,
            h.thermal_mgmt_t2_time_s
        ),
    );
    line(
        &mut s,
        "time hot",
        format!(
            "{} min above warning, {} min above critical temperature",
            h.warning_temp_min, h.critical_temp_min
        ),
    );
    s
}

/// Runs `slccache info`.
pub fn run(args: InfoArgs) -> Result<()> {
    // A controller's character device: the controller and its namespaces.
    if let Some(path) = crate::device::nvme_ctrl::controller_path(&args.target) {
        let r = crate::device::nvme_ctrl::ControllerReport::read(&args.target, &path)?;
        if args.json {
            crate::say!("{}", serde_json::to_string_pretty(&r)?);
        } else {
            crate::say_raw!("{}", r.text(args.units));
            if let Some(h) = &r.health {
                crate::say_raw!("{}", health_text(h, Some(&r.nvme_identify), args.units));
            }
        }
        return Ok(());
    }
    let (info, in_use) = device::describe(&args.target)?;
    let report = InfoReport::read(&info, in_use);
    if args.json {
        crate::say!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        crate::say_raw!("{}", report.text(args.units));
        if info.kind == TargetKind::Block
            && info.nvme.is_none()
            && info.ata.is_none()
            && info.ata_note.is_none()
            && report.health.is_none()
        {
            crate::say!("health log: not an NVMe drive (temperature from hwmon where it has one)");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::nvme::tests::{identify_page, smart_page};
    use crate::device::nvme::{parse_identify_controller, parse_smart_log};

    fn nvme_target() -> TargetInfo {
        TargetInfo {
            spec: "/dev/nvme0n1".into(),
            kind: TargetKind::Block,
            path: Some("/dev/nvme0n1".into()),
            identity: DeviceIdentity {
                path: "/dev/nvme0n1".into(),
                kind: "block".into(),
                capacity_bytes: Some(1_000_204_886_016),
                logical_block_size: Some(512),
                physical_block_size: Some(512),
                ..DeviceIdentity::default()
            },
            capacity: 1_000_204_886_016,
            offset_align: Some(512),
            mem_align: 512,
            exists: true,
            emulated: None,
            dev: Some((259, 0)),
            hwmon: None,
            nvme: None,
            ata: None,
            ata_note: None,
        }
    }

    #[test]
    fn nvme_report_from_canned_pages() {
        let id = parse_identify_controller(&identify_page()).unwrap();
        let h = parse_smart_log(&smart_page(40_000, 318, 2, 1)).unwrap();
        let host = HostInfo {
            kernel: Some("6.8.0".into()),
            scheduler: Some("none".into()),
            disk: Some("nvme0n1".into()),
            pcie_link_speed: Some("16.0 GT/s PCIe".into()),
            pcie_link_width: Some(4),
            ..HostInfo::default()
        };
        let r = InfoReport::build(
            &nvme_target(),
            Some("nvme0n1p2 is mounted at /home; unmount it first".into()),
            Some(id),
            Ok(Some(h)),
            Some(30.0),
            host,
        );
        // Identity filled in from Identify Controller, temperature from SMART (not hwmon).
        assert_eq!(r.identity.model.as_deref(), Some("Samsung SSD 980 PRO 1TB"));
        assert_eq!(r.identity.serial.as_deref(), Some("S4EWNX0R123456"));
        assert_eq!(r.identity.firmware.as_deref(), Some("5B2QGXA7"));
        assert!((r.temperature_c.unwrap() - 44.85).abs() < 1e-9);
        assert_eq!(r.temperature_source.as_deref(), Some("smart"));
        let t = r.text(UnitSystem::Decimal);
        for want in [
            "/dev/nvme0n1 (block device)",
            "model:            Samsung SSD 980 PRO 1TB",
            "capacity:         1.00 TB (1000204886016 bytes)",
            "block sizes:      512 B logical, 512 B physical",
            "in use:           yes: nvme0n1p2 is mounted at /home",
            "temperature:      44.9 °C (smart)",
            "queue:            nvme0n1: scheduler none, PCIe x4 at 16.0 GT/s PCIe",
            "composite temperature:  44.9 °C (warning at 81.9 °C, critical at 84.9 °C)",
            "  format NVM:       per namespace\n",
            "  sanitize:         not supported (SANICAP 0)\n",
            "percentage used:        3 %",
            "available spare:        100 % (threshold 10 %)",
            "data written:           20.5 GB (40000 units of 512000 bytes)",
            "level 1: 2 transitions, 20 s; level 2: 1 transitions, 5 s",
            "1500 h on, 55 cycles, 7 unsafe shutdowns",
        ] {
            assert!(t.contains(want), "missing {want:?} in:\n{t}");
        }
        let j = serde_json::to_value(&r).unwrap();
        assert_eq!(j["health"]["data_units_written"], 40_000);
        assert_eq!(j["nvme_identify"]["firmware"], "5B2QGXA7");
        assert_eq!(j["in_use"], true);
        assert_eq!(
            j["in_use_reason"],
            "nvme0n1p2 is mounted at /home; unmount it first"
        );
    }

    fn sata_target() -> TargetInfo {
        let mut t = nvme_target();
        t.spec = "/dev/sda".into();
        t.path = Some("/dev/sda".into());
        t.identity.path = "/dev/sda".into();
        // What sysfs's SCSI fields hold: 16 characters of the model, 4 of the firmware.
        t.identity.model = Some("Samsung SSD 870".into());
        t.identity.firmware = Some("2B6Q".into());
        t.dev = Some((8, 0));
        t
    }

    #[test]
    fn ata_report_from_canned_pages() {
        use crate::health::ata::pages::{samsung_identify, samsung_smart, samsung_thresholds};
        use crate::health::ata::{parse_identify, parse_smart};
        let id = parse_identify(&samsung_identify()).unwrap();
        let smart = parse_smart(
            &samsung_smart(12_345_678_901),
            Some(&samsung_thresholds()),
            &id.model,
        )
        .unwrap();
        let host = HostInfo {
            usb_mbps: None,
            sata_gbps: id.sata_gbps_current,
            ..HostInfo::default()
        };
        let r = InfoReport::build(&sata_target(), None, None, Ok(None), Some(35.0), host)
            .with_ata(id, Ok(smart));
        // The drive's own strings, whole.
        assert_eq!(r.identity.model.as_deref(), Some("Samsung SSD 870 EVO 1TB"));
        assert_eq!(r.identity.firmware.as_deref(), Some("SVT02B6Q"));
        assert_eq!(r.identity.serial.as_deref(), Some("S626NF0R123456A"));
        // SMART's temperature, not hwmon's.
        assert_eq!(r.temperature_c, Some(29.0));
        assert_eq!(r.temperature_source.as_deref(), Some("smart"));
        let t = r.text(UnitSystem::Decimal);
        for want in [
            "firmware:         SVT02B6Q\n",
            "temperature:      29.0 °C (smart)",
            "ATA drive (IDENTIFY DEVICE):",
            "standard:         ACS-3; SMART supported, enabled",
            "sectors:          1953525168 of 512 B logical, 512 B physical",
            "rotation:         solid state (rotation rate 1)",
            "link:             SATA 6.0 Gb/s now (the drive's maximum 6.0 Gb/s)",
            "TRIM:             supported, deterministic reads after TRIM, zeroes after TRIM",
            "security:         supported, not enabled, not frozen, enhanced erase supported",
            "  241 Total_LBAs_Written       0x0032   099   099      -  12345678901",
            "    5 Reallocated_Sector_Ct    0x0033   100   100    010  0",
            "temperature:      29 °C (attribute 190)",
            "power-on:         1234 h (attribute 9)",
            "data written:     6.32 TB (12345678901 x 512 B; Samsung: 512-byte LBAs",
            "wear:             99 % life left (177 Wear_Leveling_Count)",
        ] {
            assert!(t.contains(want), "missing {want:?} in:\n{t}");
        }
        let j = serde_json::to_value(&r).unwrap();
        assert_eq!(j["ata_identify"]["firmware"], "SVT02B6Q");
        assert_eq!(j["ata_identify"]["trim_supported"], true);
        assert_eq!(j["ata_identify"]["security"]["frozen"], false);
        assert_eq!(
            j["ata_smart"]["data_written"]["bytes"],
            6_320_987_597_312u64
        );
        assert_eq!(j["ata_smart"]["attributes"][0]["id"], 5);
        assert!(j["health"].is_null());
        // A drive whose IDENTIFY gives no SATA speed (QEMU's AHCI disk: word 76 holds the NCQ
        // bit alone): the kernel's libata link's, in the text and the JSON.
        let mut q = vec![0u8; crate::health::ata::PAGE_LEN];
        crate::health::ata::pages::set_word(&mut q, 76, 1 << 8);
        let host = HostInfo {
            libata_link: Some(crate::health::ata::LibataLink {
                name: "link1".into(),
                sata_spd: "1.5 Gbps".into(),
                gbps: Some(1.5),
            }),
            ..HostInfo::default()
        };
        let r = InfoReport::build(&sata_target(), None, None, Ok(None), None, host)
            .with_ata(parse_identify(&q).unwrap(), Err("no SMART".into()));
        let t = r.text(UnitSystem::Decimal);
        assert!(
            t.contains(
                "link:             SATA 1.5 Gb/s (the kernel's libata link1; the drive's \
                 IDENTIFY gives none)\n"
            ),
            "{t}"
        );
        let j = serde_json::to_value(&r).unwrap();
        assert_eq!(j["host"]["libata_link"]["gbps"], 1.5, "{j}");
        assert_eq!(j["host"]["libata_link"]["sata_spd"], "1.5 Gbps", "{j}");
        // A USB bridge that refuses SAT: its one line, and sysfs's identity.
        let mut usb = sata_target();
        usb.ata_note = Some("the USB bridge does not pass ATA commands through (SAT)".into());
        let r = InfoReport::build(&usb, None, None, Ok(None), None, HostInfo::default());
        let t = r.text(UnitSystem::Decimal);
        assert!(
            t.contains("ATA pass-through: the USB bridge does not pass ATA commands"),
            "{t}"
        );
        assert!(t.contains("firmware:         2B6Q"), "{t}");
        // A drive that refuses SMART READ DATA keeps its identity and says why.
        let id = parse_identify(&samsung_identify()).unwrap();
        let r = InfoReport::build(
            &sata_target(),
            None,
            None,
            Ok(None),
            None,
            HostInfo::default(),
        )
        .with_ata(id, Err("SMART READ DATA could not be read: aborted".into()));
        let t = r.text(UnitSystem::Decimal);
        assert!(
            t.contains("SMART: SMART READ DATA could not be read: aborted"),
            "{t}"
        );
        assert!(t.contains("temperature:      not reported"), "{t}");
    }

    #[test]
    fn refused_health_log_falls_back_to_hwmon() {
        let r = InfoReport::build(
            &nvme_target(),
            None,
            None,
            Err("permission denied".into()),
            Some(38.0),
            HostInfo::default(),
        );
        assert_eq!(r.temperature_c, Some(38.0));
        assert_eq!(r.temperature_source.as_deref(), Some("hwmon"));
        let t = r.text(UnitSystem::Binary);
        assert!(t.contains("health log: permission denied"), "{t}");
        assert!(t.contains("in use:           no"), "{t}");
        assert!(t.contains("capacity:         932 GiB"), "{t}");
        let j = serde_json::to_value(&r).unwrap();
        assert_eq!(j["in_use"], false, "{j}");
        assert!(j["in_use_reason"].is_null(), "{j}");
    }
}
