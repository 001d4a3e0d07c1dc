//! ATA drives (SATA, and USB drives behind a bridge that speaks SAT) as plain data: what
//! IDENTIFY DEVICE says about the drive ([`AtaIdentify`]) and its SMART attributes
//! ([`AtaSmart`]), parsed from the 512-byte pages by pure functions. `device::ata` reads the
//! pages from a drive; `report` records them; living here, below both, ties neither to the
//! other.
//!
//! Offsets: ATA/ATAPI Command Set - 3 (ACS-3, INCITS 522-2014), section 7.12.7 (IDENTIFY
//! DEVICE data, Table 45), word by word; the SMART READ DATA layout (a two-byte revision,
//! then 30 attribute entries of 12 bytes) and SMART READ THRESHOLDS are the de facto layout
//! that ATA-3 defined and every drive and smartmontools still use (the attribute table's
//! meaning is vendor specific: see [`WRITTEN_UNITS`]).

use serde::{Deserialize, Serialize};

/// Size of an IDENTIFY DEVICE or SMART page, bytes.
pub const PAGE_LEN: usize = 512;

/// The SATA link of a disk as the kernel's libata reports it in sysfs
/// (`/sys/class/ata_link/linkN/sata_spd`, under the disk's `ataN` port): the speed the
/// host's controller negotiated with the drive (from the port's SStatus register on AHCI), a
/// second source where the drive's IDENTIFY gives none (QEMU's AHCI disk, some bridges).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LibataLink {
    /// The link's sysfs name: "link1" (port 1), "link1.2" (a device behind a port
    /// multiplier).
    pub name: String,
    /// `sata_spd` as the kernel wrote it: "1.5 Gbps", "3.0 Gbps", "6.0 Gbps", or
    /// "<unknown>" (no link up, or a parallel ATA port).
    pub sata_spd: String,
    /// The speed, Gb/s; None for "<unknown>" or anything else not read as a speed.
    pub gbps: Option<f64>,
}

/// The speed in a libata `sata_spd` value ("1.5 Gbps" → 1.5); None for "<unknown>", an
/// empty value or anything that is not a positive speed in Gbps.
pub fn parse_sata_spd(text: &str) -> Option<f64> {
    let v = text
        .trim()
        .strip_suffix("Gbps")?
        .trim()
        .parse::<f64>()
        .ok()?;
    (v.is_finite() && v > 0.0).then_some(v)
}

/// The ATA Security feature set (IDENTIFY word 128, and the erase times in words 89 and 90).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AtaSecurity {
    /// Word 128 bit 0: the drive has the Security feature set.
    pub supported: bool,
    /// Bit 1: a user password is set (security enabled).
    pub enabled: bool,
    /// Bit 2: the drive is locked (it refuses reads and writes until unlocked).
    pub locked: bool,
    /// Bit 3: security frozen: every security command is refused until the next power
    /// cycle (BIOSes freeze drives at boot).
    pub frozen: bool,
    /// Bit 4: the password attempt counter expired.
    pub count_expired: bool,
    /// Bit 5: the enhanced security erase is supported.
    pub enhanced_erase_supported: bool,
    /// Word 89: time the normal SECURITY ERASE UNIT takes, minutes; None when not reported.
    pub erase_minutes: Option<u32>,
    /// Word 90: time the enhanced SECURITY ERASE UNIT takes, minutes; None when not reported.
    pub enhanced_erase_minutes: Option<u32>,
}

/// What IDENTIFY DEVICE (command ECh) says about the drive (ACS-3 Table 45).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AtaIdentify {
    /// Words 27-46: model number (40 characters, two per word, high byte first).
    pub model: String,
    /// Words 10-19: serial number (20 characters).
    pub serial: String,
    /// Words 23-26: firmware revision (8 characters, all of them: sysfs's SCSI `rev` keeps 4).
    pub firmware: String,
    /// Addressable logical sectors: words 100-103 (48-bit) where the drive has the 48-bit
    /// feature set (word 83 bit 10), else words 60-61.
    pub sectors: u64,
    /// Logical sector size, bytes (word 106 bit 12 and words 117-118; else 512).
    pub logical_sector_bytes: u32,
    /// Physical sector size, bytes (word 106 bits 13 and 3:0).
    pub physical_sector_bytes: u32,
    /// Word 217: nominal media rotation rate: `Some(1)` for a solid-state drive, the rpm of
    /// a disk, None when not reported.
    pub rotation_rate: Option<u16>,
    /// Word 169 bit 0: DATA SET MANAGEMENT with the TRIM bit is supported.
    pub trim_supported: bool,
    /// Word 69 bit 14: reads after TRIM are deterministic.
    pub trim_deterministic: bool,
    /// Word 69 bit 5: reads after TRIM return zeroes.
    pub trim_zeroes: bool,
    /// Word 76 bits 3:1: the fastest SATA generation the drive supports, Gb/s (1.5, 3.0,
    /// 6.0); None on a parallel ATA drive (word 76 0 or FFFFh).
    pub sata_gbps_max: Option<f64>,
    /// Word 77 bits 3:1: the negotiated SATA speed now, Gb/s; None when not reported.
    pub sata_gbps_current: Option<f64>,
    /// Word 80: the newest ATA standard the drive claims ("ACS-3", "ATA/ATAPI-7", ...).
    pub ata_version: Option<String>,
    /// Word 82 bit 0: the SMART feature set is supported.
    pub smart_supported: bool,
    /// Word 85 bit 0: SMART is enabled.
    pub smart_enabled: bool,
    /// Word 82 bit 1 and word 128: the Security feature set.
    pub security: AtaSecurity,
}

impl AtaIdentify {
    /// The capacity, bytes.
    pub fn capacity_bytes(&self) -> u64 {
        self.sectors * self.logical_sector_bytes as u64
    }

    /// Whether the drive says it is solid-state (rotation rate 1).
    pub fn is_ssd(&self) -> bool {
        self.rotation_rate == Some(1)
    }

    /// The rotation rate as text: "solid state (1)", "7200 rpm" or "not reported".
    pub fn rotation_text(&self) -> String {
        match self.rotation_rate {
            Some(1) => "solid state (rotation rate 1)".to_string(),
            Some(r) => format!("{r} rpm"),
            None => "not reported".to_string(),
        }
    }

    /// The SATA link as text: "6.0 Gb/s (of 6.0 Gb/s)", or why there is none.
    pub fn link_text(&self) -> String {
        self.link_text_with(None)
    }

    /// The SATA link as text, with the kernel's libata link as the second source where
    /// IDENTIFY gives no current speed (word 77): "SATA 1.5 Gb/s (the kernel's libata link1;
    /// the drive's IDENTIFY gives none)".
    pub fn link_text_with(&self, libata: Option<&LibataLink>) -> String {
        let kernel = libata.and_then(|l| l.gbps.map(|g| (l, g)));
        match (self.sata_gbps_current, self.sata_gbps_max, kernel) {
            (Some(c), Some(m), _) => {
                format!("SATA {c:.1} Gb/s now (the drive's maximum {m:.1} Gb/s)")
            }
            (None, max, Some((l, g))) => format!(
                "SATA {g:.1} Gb/s (the kernel's libata {}; the drive's IDENTIFY gives none{})",
                l.name,
                max.map(|m| format!(", its maximum {m:.1} Gb/s"))
                    .unwrap_or_default()
            ),
            (None, Some(m), None) => {
                format!("SATA, the drive's maximum {m:.1} Gb/s (now not reported)")
            }
            _ => {
                let mut t = "no SATA speed reported (parallel ATA, or an emulated one)".to_string();
                if let Some(l) = libata {
                    t.push_str(&format!(
                        "; the kernel's libata {} says {}",
                        l.name, l.sata_spd
                    ));
                }
                t
            }
        }
    }

    /// TRIM as text: "supported, deterministic, zeroes after TRIM".
    pub fn trim_text(&self) -> String {
        if !self.trim_supported {
            return "not supported (IDENTIFY word 169 bit 0 clear)".to_string();
        }
        let mut v = vec!["supported"];
        if self.trim_deterministic {
            v.push("deterministic reads after TRIM");
        }
        if self.trim_zeroes {
            v.push("zeroes after TRIM");
        }
        v.join(", ")
    }

    /// The security state as text.
    pub fn security_text(&self) -> String {
        let s = &self.security;
        if !s.supported {
            return "no Security feature set".to_string();
        }
        let mut v = vec!["supported"];
        v.push(if s.enabled { "enabled" } else { "not enabled" });
        if s.locked {
            v.push("LOCKED");
        }
        v.push(if s.frozen { "frozen" } else { "not frozen" });
        if s.count_expired {
            v.push("password attempts expired");
        }
        if s.enhanced_erase_supported {
            v.push("enhanced erase supported");
        }
        let mut t = v.join(", ");
        let min = |m: Option<u32>| match m {
            Some(m) => format!("{m} min"),
            None => "not reported".to_string(),
        };
        t.push_str(&format!(
            "; erase time {}, enhanced {}",
            min(s.erase_minutes),
            min(s.enhanced_erase_minutes)
        ));
        t
    }
}

/// Word `w` of a page (little-endian words, as the drive sends them).
fn word(p: &[u8], w: usize) -> u16 {
    u16::from_le_bytes([p[2 * w], p[2 * w + 1]])
}

/// An ATA string: words `from..to`, each word's high byte first (ACS-3 section 3.4.9),
/// space padded, trimmed; bytes that are not printable ASCII replaced.
fn ata_string(p: &[u8], from: usize, to: usize) -> String {
    let mut s = String::new();
    for w in from..to {
        let v = word(p, w);
        for c in [(v >> 8) as u8, v as u8] {
            s.push(if c == 0 {
                ' '
            } else if c.is_ascii_graphic() || c == b' ' {
                c as char
            } else {
                '?'
            });
        }
    }
    s.trim().to_string()
}

/// A SATA generation's speed: 1 = Gen1 1.5 Gb/s, 2 = Gen2 3.0 Gb/s, 3 = Gen3 6.0 Gb/s.
fn sata_gen_gbps(g: u16) -> Option<f64> {
    match g {
        1 => Some(1.5),
        2 => Some(3.0),
        3 => Some(6.0),
        _ => None,
    }
}

/// An erase time word (89 or 90): bit 15 set, bits 14:0 times 2 minutes (the extended
/// format of ACS-3); else bits 7:0 times 2 minutes; 0 means not reported.
fn erase_minutes(w: u16) -> Option<u32> {
    let v = if w & 0x8000 != 0 {
        w & 0x7FFF
    } else {
        w & 0xFF
    };
    (v != 0).then_some(v as u32 * 2)
}

/// Parses an IDENTIFY DEVICE page. Errors when `page` is not 512 bytes, or when its
/// integrity word (255) has the signature A5h and a checksum that does not add up.
pub fn parse_identify(page: &[u8]) -> Result<AtaIdentify, String> {
    if page.len() != PAGE_LEN {
        return Err(format!(
            "an IDENTIFY DEVICE page is {PAGE_LEN} bytes, got {}",
            page.len()
        ));
    }
    // Word 255: bits 7:0 the signature A5h, bits 15:8 a checksum that makes all 512 bytes
    // add up to 0 (mod 256). Without the signature there is no checksum to check.
    if page[510] == 0xA5 && page.iter().fold(0u8, |a, &b| a.wrapping_add(b)) != 0 {
        return Err("the IDENTIFY DEVICE page fails its checksum (word 255)".to_string());
    }
    let lba48 = word(page, 83) & (1 << 10) != 0;
    let sectors = if lba48 {
        (0..4).fold(0u64, |a, i| a | (word(page, 100 + i) as u64) << (16 * i))
    } else {
        word(page, 60) as u64 | (word(page, 61) as u64) << 16
    };
    // Word 106: valid when bit 14 is set and bit 15 clear.
    let w106 = word(page, 106);
    let valid106 = w106 & 0xC000 == 0x4000;
    let logical = if valid106 && w106 & (1 << 12) != 0 {
        let words = word(page, 117) as u32 | (word(page, 118) as u32) << 16;
        words * 2
    } else {
        512
    };
    let per_physical = if valid106 && w106 & (1 << 13) != 0 {
        1u32 << (w106 & 0xF)
    } else {
        1
    };
    let rot = word(page, 217);
    let w76 = word(page, 76);
    let sata = w76 != 0 && w76 != 0xFFFF;
    let sata_gbps_max = if sata {
        (1..=3)
            .rev()
            .find(|g| w76 & (1 << g) != 0)
            .and_then(sata_gen_gbps)
    } else {
        None
    };
    let w77 = word(page, 77);
    let sata_gbps_current = if sata && w77 != 0xFFFF {
        sata_gen_gbps((w77 >> 1) & 0x7)
    } else {
        None
    };
    let w80 = word(page, 80);
    let ata_version = if w80 == 0 || w80 == 0xFFFF {
        None
    } else {
        let names = [
            (11, "ACS-4"),
            (10, "ACS-3"),
            (9, "ACS-2"),
            (8, "ATA8-ACS"),
            (7, "ATA/ATAPI-7"),
            (6, "ATA/ATAPI-6"),
            (5, "ATA/ATAPI-5"),
            (4, "ATA/ATAPI-4"),
        ];
        names
            .iter()
            .find(|(b, _)| w80 & (1 << b) != 0)
            .map(|(_, n)| n.to_string())
    };
    let w128 = word(page, 128);
    let security = AtaSecurity {
        supported: w128 & 1 != 0,
        enabled: w128 & 2 != 0,
        locked: w128 & 4 != 0,
        frozen: w128 & 8 != 0,
        count_expired: w128 & 0x10 != 0,
        enhanced_erase_supported: w128 & 0x20 != 0,
        erase_minutes: erase_minutes(word(page, 89)),
        enhanced_erase_minutes: erase_minutes(word(page, 90)),
    };
    Ok(AtaIdentify {
        model: ata_string(page, 27, 47),
        serial: ata_string(page, 10, 20),
        firmware: ata_string(page, 23, 27),
        sectors,
        logical_sector_bytes: logical,
        physical_sector_bytes: logical * per_physical,
        rotation_rate: (rot != 0 && rot != 0xFFFF).then_some(rot),
        trim_supported: word(page, 169) & 1 != 0,
        trim_deterministic: word(page, 69) & (1 << 14) != 0,
        trim_zeroes: word(page, 69) & (1 << 5) != 0,
        sata_gbps_max,
        sata_gbps_current,
        ata_version,
        smart_supported: word(page, 82) & 1 != 0,
        smart_enabled: word(page, 85) & 1 != 0,
        security,
    })
}

/// One SMART attribute (a 12-byte entry of SMART READ DATA).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AtaAttribute {
    /// Attribute ID (byte 0); 0 marks an unused entry.
    pub id: u8,
    /// The name smartmontools gives it by default (vendors differ: see [`attribute_name`]).
    pub name: String,
    /// Flags (bytes 1-2); bit 0: pre-failure, bit 1: updated online.
    pub flags: u16,
    /// Normalized current value (byte 3).
    pub current: u8,
    /// Worst normalized value so far (byte 4).
    pub worst: u8,
    /// Threshold (from SMART READ THRESHOLDS), where read.
    pub threshold: Option<u8>,
    /// Raw value (bytes 5-10, 48 bits, little-endian).
    pub raw: u64,
}

/// What [`AtaSmart`] makes of attribute 241 (Total LBAs Written).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DataWritten {
    /// The raw count of attribute 241.
    pub raw: u64,
    /// Bytes per count, where this vendor's unit is known ([`WRITTEN_UNITS`]).
    pub unit_bytes: Option<u64>,
    /// `raw` times the unit, bytes; None when the unit is not known.
    pub bytes: Option<u128>,
    /// Where the unit comes from, or "unit not known".
    pub unit_source: String,
}

/// What [`AtaSmart`] makes of a wear attribute (a normalized value counting down from 100).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Wear {
    /// The attribute read.
    pub attribute: u8,
    /// Its name.
    pub name: String,
    /// Life left, percent: the attribute's normalized current value.
    pub life_left_pct: u8,
}

/// The SMART attributes of an ATA drive and what they mean for this drive.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AtaSmart {
    /// Every attribute in use, in the drive's order.
    pub attributes: Vec<AtaAttribute>,
    /// Temperature, °C: attribute 194's raw low byte, else 190's.
    pub temperature_c: Option<f64>,
    /// The attribute the temperature comes from (194 or 190).
    pub temperature_attribute: Option<u8>,
    /// Power-on hours: attribute 9's raw low 32 bits.
    pub power_on_hours: Option<u64>,
    /// Total data written (attribute 241).
    pub data_written: Option<DataWritten>,
    /// Wear, where the drive has an attribute that means it (177 on Samsung, 231, 233 on
    /// Intel).
    pub wear: Option<Wear>,
}

/// Vendors whose attribute 241 unit is known: (model prefix, case-insensitive; bytes per
/// count; source). From smartmontools' drive database (`drivedb.h`): its Samsung SSD entries
/// name 241 `Total_LBAs_Written` (512-byte LBAs), its Intel SSD entries (320, 330, 335, 520,
/// 530 Series ...) `Host_Writes_32MiB`. Other drives count in units this table does not
/// know (GiB on some SanDisk and Kingston drives): then the bytes are not given.
pub const WRITTEN_UNITS: &[(&str, u64, &str)] = &[
    (
        "Samsung SSD",
        512,
        "Samsung: 512-byte LBAs (smartmontools drivedb.h, Total_LBAs_Written)",
    ),
    (
        "SAMSUNG MZ",
        512,
        "Samsung: 512-byte LBAs (smartmontools drivedb.h, Total_LBAs_Written)",
    ),
    (
        "INTEL SSD",
        32 << 20,
        "Intel: 32 MiB units (smartmontools drivedb.h, Host_Writes_32MiB)",
    ),
];

/// The text said when a drive's 241 unit is not known.
pub const UNIT_NOT_KNOWN: &str = "unit not known for this drive";

fn is_samsung(model: &str) -> bool {
    let m = model.to_ascii_lowercase();
    m.starts_with("samsung")
}

fn is_intel(model: &str) -> bool {
    model.to_ascii_lowercase().starts_with("intel")
}

/// The name of attribute `id`, as smartmontools names it by default, with the vendor's where
/// it differs and is in the table.
pub fn attribute_name(id: u8, model: &str) -> &'static str {
    match id {
        1 => "Raw_Read_Error_Rate",
        3 => "Spin_Up_Time",
        4 => "Start_Stop_Count",
        5 => "Reallocated_Sector_Ct",
        9 => "Power_On_Hours",
        12 => "Power_Cycle_Count",
        177 if is_samsung(model) => "Wear_Leveling_Count",
        177 => "Unknown_Attribute",
        179 => "Used_Rsvd_Blk_Cnt_Tot",
        181 => "Program_Fail_Cnt_Total",
        182 => "Erase_Fail_Count_Total",
        183 => "Runtime_Bad_Block",
        187 => "Reported_Uncorrect",
        190 => "Airflow_Temperature_Cel",
        194 => "Temperature_Celsius",
        195 => "Hardware_ECC_Recovered",
        196 => "Reallocated_Event_Count",
        197 => "Current_Pending_Sector",
        198 => "Offline_Uncorrectable",
        199 => "UDMA_CRC_Error_Count",
        231 => "SSD_Life_Left",
        233 if is_intel(model) => "Media_Wearout_Indicator",
        235 => "Unknown_Attribute",
        241 if is_intel(model) => "Host_Writes_32MiB",
        241 => "Total_LBAs_Written",
        242 => "Total_LBAs_Read",
        _ => "Unknown_Attribute",
    }
}

/// Parses SMART READ DATA (`data`, 512 bytes) and, where read, SMART READ THRESHOLDS
/// (`thresholds`, 512 bytes, the same 12-byte entries: ID, threshold); `model` picks the
/// vendor's meanings. Errors when a page is not 512 bytes.
pub fn parse_smart(
    data: &[u8],
    thresholds: Option<&[u8]>,
    model: &str,
) -> Result<AtaSmart, String> {
    if data.len() != PAGE_LEN || thresholds.is_some_and(|t| t.len() != PAGE_LEN) {
        return Err(format!("a SMART page is {PAGE_LEN} bytes"));
    }
    let threshold_of = |id: u8| {
        let t = thresholds?;
        (0..30)
            .map(|i| &t[2 + 12 * i..2 + 12 * (i + 1)])
            .find(|e| e[0] == id)
            .map(|e| e[1])
    };
    let mut attributes = Vec::new();
    for i in 0..30 {
        let e = &data[2 + 12 * i..2 + 12 * (i + 1)];
        if e[0] == 0 {
            continue;
        }
        let raw = (0..6).fold(0u64, |a, k| a | (e[5 + k] as u64) << (8 * k));
        attributes.push(AtaAttribute {
            id: e[0],
            name: attribute_name(e[0], model).to_string(),
            flags: u16::from_le_bytes([e[1], e[2]]),
            current: e[3],
            worst: e[4],
            threshold: threshold_of(e[0]),
            raw,
        });
    }
    let get = |id: u8| attributes.iter().find(|a| a.id == id);
    let temp = [194u8, 190]
        .into_iter()
        .find_map(|id| get(id).map(|a| (id, (a.raw & 0xFF) as f64)))
        .filter(|(_, c)| *c > 0.0);
    let data_written = get(241).map(|a| {
        let known = WRITTEN_UNITS.iter().find(|(p, _, _)| {
            model
                .to_ascii_lowercase()
                .starts_with(&p.to_ascii_lowercase())
        });
        DataWritten {
            raw: a.raw,
            unit_bytes: known.map(|k| k.1),
            bytes: known.map(|k| a.raw as u128 * k.1 as u128),
            unit_source: known
                .map(|k| k.2.to_string())
                .unwrap_or_else(|| UNIT_NOT_KNOWN.to_string()),
        }
    });
    let wear_id = if is_samsung(model) && get(177).is_some() {
        Some(177)
    } else if get(231).is_some() {
        Some(231)
    } else if is_intel(model) && get(233).is_some() {
        Some(233)
    } else {
        None
    };
    let wear = wear_id.and_then(get).map(|a| Wear {
        attribute: a.id,
        name: a.name.clone(),
        life_left_pct: a.current,
    });
    Ok(AtaSmart {
        temperature_c: temp.map(|t| t.1),
        temperature_attribute: temp.map(|t| t.0),
        power_on_hours: get(9).map(|a| a.raw & 0xFFFF_FFFF),
        data_written,
        wear,
        attributes,
    })
}

/// Page builders from the specifications, for the tests of every layer that reads ATA pages.
pub mod pages {
    use super::PAGE_LEN;

    /// Sets word `w` of `p`.
    pub fn set_word(p: &mut [u8], w: usize, v: u16) {
        p[2 * w..2 * w + 2].copy_from_slice(&v.to_le_bytes());
    }

    /// Writes `s` as an ATA string into words `from..from + len / 2` (high byte first,
    /// space padded).
    pub fn set_string(p: &mut [u8], from: usize, len: usize, s: &str) {
        let mut b = vec![b' '; len];
        b[..s.len()].copy_from_slice(s.as_bytes());
        for (i, pair) in b.chunks(2).enumerate() {
            set_word(p, from + i, u16::from_be_bytes([pair[0], pair[1]]));
        }
    }

    /// Sets the integrity word (255): signature A5h and the checksum.
    pub fn seal(p: &mut [u8]) {
        p[510] = 0xA5;
        let sum = p[..511].iter().fold(0u8, |a, &b| a.wrapping_add(b));
        p[511] = 0u8.wrapping_sub(sum);
    }

    /// A Samsung 870 EVO 1TB's IDENTIFY DEVICE page, as ACS-3 lays it out: SATA 6 Gb/s
    /// negotiated at 6 Gb/s, 48-bit, 512-byte logical and physical sectors, an SSD, TRIM
    /// deterministic with zeroes, the Security feature set supported, not enabled, not
    /// frozen, enhanced erase supported, both erase times 2 min.
    pub fn samsung_identify() -> Vec<u8> {
        let mut p = vec![0u8; PAGE_LEN];
        set_word(&mut p, 0, 0x0040);
        set_string(&mut p, 10, 20, "S626NF0R123456A");
        set_string(&mut p, 23, 8, "SVT02B6Q");
        set_string(&mut p, 27, 40, "Samsung SSD 870 EVO 1TB");
        set_word(&mut p, 60, 0xFFFF);
        set_word(&mut p, 61, 0x0FFF);
        set_word(&mut p, 69, (1 << 14) | (1 << 5));
        set_word(&mut p, 76, 0b1110); // Gen1, Gen2, Gen3
        set_word(&mut p, 77, 3 << 1); // negotiated Gen3
        set_word(&mut p, 80, (1 << 10) | (1 << 9) | (1 << 8)); // ACS-3
        set_word(&mut p, 82, 0x0003); // SMART, Security
        set_word(&mut p, 83, 1 << 10); // 48-bit
        set_word(&mut p, 85, 0x0001); // SMART enabled
        set_word(&mut p, 89, 1); // 2 min
        set_word(&mut p, 90, 1); // 2 min
                                 // 1,953,525,168 sectors of 512 bytes = 1,000,204,886,016 bytes.
        let n: u64 = 1_953_525_168;
        for i in 0..4 {
            set_word(&mut p, 100 + i, (n >> (16 * i)) as u16);
        }
        set_word(&mut p, 106, 0x4000);
        set_word(&mut p, 128, 0x0021); // supported, enhanced erase supported
        set_word(&mut p, 169, 1); // DSM TRIM
        set_word(&mut p, 217, 1); // non-rotating
        seal(&mut p);
        p
    }

    /// A SMART attribute entry.
    pub type Entry = (u8, u16, u8, u8, u64);

    /// A SMART READ DATA page with `entries` (id, flags, current, worst, raw).
    pub fn smart_data(entries: &[Entry]) -> Vec<u8> {
        let mut p = vec![0u8; PAGE_LEN];
        p[0] = 1; // revision
        for (i, &(id, flags, cur, worst, raw)) in entries.iter().enumerate() {
            let e = &mut p[2 + 12 * i..2 + 12 * (i + 1)];
            e[0] = id;
            e[1..3].copy_from_slice(&flags.to_le_bytes());
            e[3] = cur;
            e[4] = worst;
            e[5..11].copy_from_slice(&raw.to_le_bytes()[..6]);
        }
        p[511] = 0u8.wrapping_sub(p[..511].iter().fold(0u8, |a, &b| a.wrapping_add(b)));
        p
    }

    /// A SMART READ THRESHOLDS page with `entries` (id, threshold).
    pub fn smart_thresholds(entries: &[(u8, u8)]) -> Vec<u8> {
        let mut p = vec![0u8; PAGE_LEN];
        p[0] = 1;
        for (i, &(id, t)) in entries.iter().enumerate() {
            p[2 + 12 * i] = id;
            p[3 + 12 * i] = t;
        }
        p
    }

    /// A Samsung 860/870 EVO's attributes (as smartctl shows such a drive): 5, 9, 12, 177
    /// (wear leveling count 99: 1 % used), 179, 181, 182, 183, 187, 190 (airflow 29 °C),
    /// 195, 199, 235, 241 (Total LBAs Written) with the count given.
    pub fn samsung_smart(lbas_written: u64) -> Vec<u8> {
        smart_data(&[
            (5, 0x0033, 100, 100, 0),
            (9, 0x0032, 99, 99, 1234),
            (12, 0x0032, 99, 99, 56),
            (177, 0x0013, 99, 99, 7),
            (179, 0x0013, 100, 100, 0),
            (181, 0x0032, 100, 100, 0),
            (182, 0x0032, 100, 100, 0),
            (183, 0x0013, 100, 100, 0),
            (187, 0x0032, 100, 100, 0),
            (190, 0x0032, 71, 60, 29 | (40 << 16)),
            (195, 0x001a, 200, 200, 0),
            (199, 0x003e, 100, 100, 0),
            (235, 0x0012, 99, 99, 30),
            (241, 0x0032, 99, 99, lbas_written),
        ])
    }

    /// The thresholds of [`samsung_smart`]'s pre-failure attributes.
    pub fn samsung_thresholds() -> Vec<u8> {
        smart_thresholds(&[(5, 10), (177, 0), (179, 10), (183, 10)])
    }
}

#[cfg(test)]
mod tests {
    use super::pages::*;
    use super::*;

    #[test]
    fn identify_fields_at_spec_words() {
        let id = parse_identify(&samsung_identify()).unwrap();
        assert_eq!(id.model, "Samsung SSD 870 EVO 1TB");
        assert_eq!(id.serial, "S626NF0R123456A");
        // All eight characters: sysfs's SCSI revision would give "2B6Q".
        assert_eq!(id.firmware, "SVT02B6Q");
        assert_eq!(id.sectors, 1_953_525_168);
        assert_eq!(id.capacity_bytes(), 1_000_204_886_016);
        assert_eq!(
            (id.logical_sector_bytes, id.physical_sector_bytes),
            (512, 512)
        );
        assert!(id.is_ssd());
        assert!(id.trim_supported && id.trim_deterministic && id.trim_zeroes);
        assert_eq!(id.sata_gbps_max, Some(6.0));
        assert_eq!(id.sata_gbps_current, Some(6.0));
        assert_eq!(id.ata_version.as_deref(), Some("ACS-3"));
        assert!(id.smart_supported && id.smart_enabled);
        let s = id.security;
        assert!(s.supported && !s.enabled && !s.locked && !s.frozen && !s.count_expired);
        assert!(s.enhanced_erase_supported);
        assert_eq!(
            (s.erase_minutes, s.enhanced_erase_minutes),
            (Some(2), Some(2))
        );
        assert_eq!(
            id.security_text(),
            "supported, not enabled, not frozen, enhanced erase supported; erase time 2 min, \
             enhanced 2 min"
        );
    }

    #[test]
    fn sector_sizes_rotation_link_and_security_bits() {
        let mut p = samsung_identify();
        // 4 KiB physical (2^3 logical per physical), a 7200 rpm disk, 3 Gb/s negotiated on a
        // 6 Gb/s drive, frozen and locked with the count expired, extended erase times.
        set_word(&mut p, 106, 0x6003);
        set_word(&mut p, 217, 7200);
        set_word(&mut p, 77, 2 << 1);
        set_word(&mut p, 128, 0x003F);
        set_word(&mut p, 89, 0x8000 | 300);
        set_word(&mut p, 90, 0x00FF);
        set_word(&mut p, 69, 0);
        set_word(&mut p, 169, 0);
        seal(&mut p);
        let id = parse_identify(&p).unwrap();
        assert_eq!(
            (id.logical_sector_bytes, id.physical_sector_bytes),
            (512, 4096)
        );
        assert_eq!(id.rotation_rate, Some(7200));
        assert!(!id.is_ssd());
        assert_eq!(id.sata_gbps_current, Some(3.0));
        assert!(id.security.frozen && id.security.locked && id.security.count_expired);
        assert_eq!(id.security.erase_minutes, Some(600));
        assert_eq!(id.security.enhanced_erase_minutes, Some(510));
        assert!(!id.trim_supported);
        assert!(id.trim_text().starts_with("not supported"));
        // 4096-byte logical sectors (word 106 bit 12, words 117-118 in words).
        set_word(&mut p, 106, 0x5000);
        set_word(&mut p, 117, 2048);
        seal(&mut p);
        let id = parse_identify(&p).unwrap();
        assert_eq!(
            (id.logical_sector_bytes, id.physical_sector_bytes),
            (4096, 4096)
        );
        assert_eq!(id.capacity_bytes(), 1_953_525_168 * 4096);
        // A parallel ATA drive (QEMU's PIIX disk): no SATA words, 28-bit capacity.
        let mut q = vec![0u8; PAGE_LEN];
        set_word(&mut q, 60, 0x2000);
        set_word(&mut q, 61, 0x0001);
        set_word(&mut q, 80, 0x00F0);
        let id = parse_identify(&q).unwrap();
        assert_eq!(id.sectors, 0x1_2000);
        assert_eq!(id.sata_gbps_max, None);
        assert_eq!(id.rotation_rate, None);
        assert_eq!(id.ata_version.as_deref(), Some("ATA/ATAPI-7"));
        assert!(!id.security.supported);
        assert_eq!(id.security_text(), "no Security feature set");
        assert_eq!(id.security.erase_minutes, None);
    }

    #[test]
    fn the_kernel_s_libata_link_where_identify_gives_no_speed() {
        for (text, want) in [
            ("1.5 Gbps\n", Some(1.5)),
            ("3.0 Gbps", Some(3.0)),
            ("6.0 Gbps\n", Some(6.0)),
            ("<unknown>\n", None),
            ("", None),
            ("0 Gbps", None),
            ("fast", None),
        ] {
            assert_eq!(parse_sata_spd(text), want, "{text:?}");
        }
        // QEMU's AHCI disk: word 76 holds the NCQ bit alone, no speed bits; word 77 none.
        let mut q = vec![0u8; PAGE_LEN];
        set_word(&mut q, 76, 1 << 8);
        let id = parse_identify(&q).unwrap();
        assert_eq!((id.sata_gbps_max, id.sata_gbps_current), (None, None));
        let link1 = LibataLink {
            name: "link1".into(),
            sata_spd: "1.5 Gbps".into(),
            gbps: Some(1.5),
        };
        assert_eq!(
            id.link_text_with(Some(&link1)),
            "SATA 1.5 Gb/s (the kernel's libata link1; the drive's IDENTIFY gives none)"
        );
        let down = LibataLink {
            name: "link2".into(),
            sata_spd: "<unknown>".into(),
            gbps: None,
        };
        assert_eq!(
            id.link_text_with(Some(&down)),
            "no SATA speed reported (parallel ATA, or an emulated one); the kernel's libata \
             link2 says <unknown>"
        );
        assert_eq!(id.link_text_with(None), id.link_text());
        // IDENTIFY's own speed comes first where it has one.
        let samsung = parse_identify(&samsung_identify()).unwrap();
        assert_eq!(samsung.link_text_with(Some(&link1)), samsung.link_text());
    }

    #[test]
    fn a_bad_checksum_or_length_is_an_error() {
        let mut p = samsung_identify();
        p[100] ^= 1;
        assert!(parse_identify(&p).unwrap_err().contains("checksum"));
        assert!(parse_identify(&p[..256]).is_err());
    }

    #[test]
    fn samsung_smart_with_241_in_bytes() {
        // 12,345,678,901 LBAs of 512 bytes = 6,320,987,597,312 bytes.
        let s = parse_smart(
            &samsung_smart(12_345_678_901),
            Some(&samsung_thresholds()),
            "Samsung SSD 870 EVO 1TB",
        )
        .unwrap();
        assert_eq!(s.attributes.len(), 14);
        let a5 = &s.attributes[0];
        assert_eq!((a5.id, a5.flags, a5.current, a5.worst), (5, 0x33, 100, 100));
        assert_eq!(a5.threshold, Some(10));
        assert_eq!(a5.name, "Reallocated_Sector_Ct");
        assert_eq!(s.attributes[1].threshold, None);
        // 190's raw holds min/max in its upper bytes: the temperature is the low byte.
        assert_eq!(s.temperature_c, Some(29.0));
        assert_eq!(s.temperature_attribute, Some(190));
        assert_eq!(s.power_on_hours, Some(1234));
        let w = s.data_written.unwrap();
        assert_eq!(w.raw, 12_345_678_901);
        assert_eq!(w.unit_bytes, Some(512));
        assert_eq!(w.bytes, Some(6_320_987_597_312));
        assert!(w.unit_source.contains("drivedb"), "{}", w.unit_source);
        let wear = s.wear.unwrap();
        assert_eq!((wear.attribute, wear.life_left_pct), (177, 99));
        assert_eq!(wear.name, "Wear_Leveling_Count");
        // The raw value is 48 bits.
        let big = parse_smart(&smart_data(&[(241, 0, 1, 1, 0xFFFF_FFFF_FFFF)]), None, "x").unwrap();
        assert_eq!(big.data_written.unwrap().raw, 0xFFFF_FFFF_FFFF);
    }

    #[test]
    fn other_vendors_say_the_unit_is_not_known() {
        // 194 wins over 190; 241 without a known unit; 231 is the wear.
        let p = smart_data(&[
            (190, 0x22, 60, 50, 40),
            (194, 0x22, 64, 50, 36 | (20 << 16) | (45 << 32)),
            (231, 0x13, 95, 95, 0),
            (241, 0x32, 100, 100, 5000),
        ]);
        let s = parse_smart(&p, None, "SanDisk SDSSDH3 1T00").unwrap();
        assert_eq!(s.temperature_c, Some(36.0));
        assert_eq!(s.temperature_attribute, Some(194));
        let w = s.data_written.unwrap();
        assert_eq!((w.unit_bytes, w.bytes), (None, None));
        assert_eq!(w.unit_source, UNIT_NOT_KNOWN);
        assert_eq!(s.wear.unwrap().attribute, 231);
        // Intel: 32 MiB units and 233.
        let p = smart_data(&[(233, 0x32, 97, 97, 0), (241, 0x32, 100, 100, 10)]);
        let s = parse_smart(&p, None, "INTEL SSDSC2BW240A4").unwrap();
        assert_eq!(s.data_written.unwrap().bytes, Some(10 * (32 << 20)));
        let wear = s.wear.unwrap();
        assert_eq!((wear.attribute, wear.life_left_pct), (233, 97));
        assert_eq!(wear.name, "Media_Wearout_Indicator");
        // 177 means wear only on Samsung.
        let p = smart_data(&[(177, 0x13, 90, 90, 0)]);
        assert!(parse_smart(&p, None, "Crucial CT500")
            .unwrap()
            .wear
            .is_none());
        // No temperature attribute, or a zero one: not reported.
        let s = parse_smart(&smart_data(&[(194, 0x22, 0, 0, 0)]), None, "x").unwrap();
        assert_eq!(s.temperature_c, None);
        assert!(parse_smart(&[0u8; 10], None, "x").is_err());
    }
}
