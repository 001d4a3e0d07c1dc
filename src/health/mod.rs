//! The drive's own health counters as plain data: the NVMe SMART / Health Information log
//! here, an ATA drive's IDENTIFY DEVICE and SMART attributes in [`ata`].
//! `device::nvme` reads the log from a drive, `engine::emulated` makes one for an emulated drive,
//! `detect::drive` checks its data units against the bytes written and `report` records it;
//! living here, below all of them, it ties none of them to the others.

pub mod ata;

use serde::{Deserialize, Serialize};

/// One data unit of the SMART log: "1,000 units of 512 bytes" (NVMe 2.0 Figure 207, bytes
/// 47:32 and 63:48).
pub const DATA_UNIT_BYTES: u64 = 512_000;

/// Kelvin to °C, rounded to the hundredth that the 273.15 offset has: `323 - 273.15` is
/// `49.85000000000002` in floating point, and JSON readers would see every digit of it.
pub fn celsius_from_kelvin(k: f64) -> f64 {
    ((k - 273.15) * 100.0).round() / 100.0
}

/// The SMART / Health Information log page (log identifier 02h; NVMe 2.0 section 5.16.1.3,
/// Figure 207).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HealthLog {
    /// Critical Warning bits (byte 0): 0 means nothing is wrong.
    pub critical_warning: u8,
    /// Composite Temperature (bytes 2:1, Kelvin), °C; None when the drive reports 0 K.
    pub temperature_c: Option<f64>,
    /// Available Spare (byte 3), percent of the spare capacity left.
    pub available_spare_pct: u8,
    /// Available Spare Threshold (byte 4), percent.
    pub available_spare_threshold_pct: u8,
    /// Percentage Used (byte 5): the vendor's estimate of the life used; may exceed 100.
    pub percentage_used: u8,
    /// Data Units Read (bytes 47:32), in units of 1000 x 512 bytes, rounded up.
    pub data_units_read: u128,
    /// Data Units Written (bytes 63:48), in units of 1000 x 512 bytes, rounded up.
    pub data_units_written: u128,
    /// Host Read Commands (bytes 79:64).
    pub host_read_commands: u128,
    /// Host Write Commands (bytes 95:80).
    pub host_write_commands: u128,
    /// Controller Busy Time (bytes 111:96), minutes.
    pub controller_busy_min: u128,
    /// Power Cycles (bytes 127:112).
    pub power_cycles: u128,
    /// Power On Hours (bytes 143:128).
    pub power_on_hours: u128,
    /// Unsafe Shutdowns (bytes 159:144).
    pub unsafe_shutdowns: u128,
    /// Media and Data Integrity Errors (bytes 175:160).
    pub media_errors: u128,
    /// Number of Error Information Log Entries (bytes 191:176).
    pub error_log_entries: u128,
    /// Warning Composite Temperature Time (bytes 195:192), minutes above the warning
    /// threshold.
    pub warning_temp_min: u32,
    /// Critical Composite Temperature Time (bytes 199:196), minutes above the critical
    /// threshold.
    pub critical_temp_min: u32,
    /// Temperature Sensors 1 to 8 (bytes 215:200, 2 bytes each, Kelvin), °C; only those
    /// reported (non-zero).
    pub sensors_c: Vec<f64>,
    /// Thermal Management Temperature 1 Transition Count (bytes 219:216): times the drive
    /// entered light thermal management (lower power, minimal performance impact).
    pub thermal_mgmt_t1_transitions: u32,
    /// Thermal Management Temperature 2 Transition Count (bytes 223:220): times the drive
    /// entered heavy thermal management (performance cut regardless).
    pub thermal_mgmt_t2_transitions: u32,
    /// Total Time For Thermal Management Temperature 1 (bytes 227:224), seconds.
    pub thermal_mgmt_t1_time_s: u32,
    /// Total Time For Thermal Management Temperature 2 (bytes 231:228), seconds.
    pub thermal_mgmt_t2_time_s: u32,
}

impl HealthLog {
    /// Bytes the drive counted as written: data units times 512,000 (an upper bound: the
    /// drive rounds up to whole units).
    pub fn data_written_bytes(&self) -> u128 {
        self.data_units_written * DATA_UNIT_BYTES as u128
    }

    /// Both thermal-management transition counts together.
    pub fn thermal_transitions(&self) -> u64 {
        self.thermal_mgmt_t1_transitions as u64 + self.thermal_mgmt_t2_transitions as u64
    }

    /// Both thermal-management times together, seconds.
    pub fn thermal_time_s(&self) -> u64 {
        self.thermal_mgmt_t1_time_s as u64 + self.thermal_mgmt_t2_time_s as u64
    }
}
