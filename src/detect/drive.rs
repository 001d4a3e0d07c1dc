//! Checks against what the drive itself reports: its SMART data-units-written counter
//! against the bytes the probe wrote. (The thermal-management counters are read by the
//! detector's thermal rule, from the timeline's `thermal_transitions` column.)

use crate::health::{HealthLog, DATA_UNIT_BYTES};
use crate::units::{format_bytes, UnitSystem};

/// Compares the drive's data-units-written delta between two SMART snapshots with the bytes
/// the probe wrote between them; returns a warning when they differ by more than the counter's
/// rounding.
///
/// The drive counts in units of 1000 x 512 bytes, rounded up (NVMe 2.0 Figure 207, bytes
/// 63:48). With both snapshots rounded up, the delta of the counter times 512,000 is within
/// strictly less than one unit of the bytes written; one unit or more apart is a mismatch:
/// something else wrote to the drive (another partition, the system) or the writes did not
/// all reach it, or the drive counts differently.
pub fn data_units_warning(
    start: &HealthLog,
    end: &HealthLog,
    probe_bytes: u64,
    units: UnitSystem,
) -> Option<String> {
    let unit = DATA_UNIT_BYTES as i128;
    let counted = (end.data_units_written as i128 - start.data_units_written as i128) * unit;
    let diff = counted - probe_bytes as i128;
    if diff.abs() < unit {
        return None;
    }
    let fb = |b: i128| format_bytes(b.unsigned_abs() as f64, units);
    let why = if counted < 0 {
        "the counter went backwards (was the drive reset or replaced?)".to_string()
    } else if diff > 0 {
        format!(
            "{} more than the probe wrote: something else wrote to the drive during the run \
             (another partition, the system), so the throughput was not the probe's alone",
            fb(diff)
        )
    } else {
        format!(
            "{} less than the probe wrote: the drive's counter lags, or not every write reached \
             the drive",
            fb(diff)
        )
    };
    Some(format!(
        "the drive's own counter (SMART data units written) rose by {} ({} units of 512,000 \
         bytes) while the probe wrote {}: {why}",
        if counted < 0 {
            format!("-{}", fb(counted))
        } else {
            fb(counted)
        },
        end.data_units_written as i128 - start.data_units_written as i128,
        fb(probe_bytes as i128),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(units: u128) -> HealthLog {
        HealthLog {
            data_units_written: units,
            ..HealthLog::default()
        }
    }

    #[test]
    fn within_rounding_is_quiet() {
        // 1 GB written: 1953.125 units. Depending on where the counter stood, the rounded-up
        // delta is 1953 or 1954 units; both are within one unit.
        assert_eq!(
            data_units_warning(&log(100), &log(2053), 1_000_000_000, UnitSystem::Decimal),
            None
        );
        assert_eq!(
            data_units_warning(&log(100), &log(2054), 1_000_000_000, UnitSystem::Decimal),
            None
        );
        assert_eq!(
            data_units_warning(&log(0), &log(0), 0, UnitSystem::Decimal),
            None
        );
    }

    #[test]
    fn more_or_less_than_written_is_a_warning() {
        let w =
            data_units_warning(&log(100), &log(2056), 1_000_000_000, UnitSystem::Decimal).unwrap();
        assert!(w.contains("something else wrote"), "{w}");
        assert!(w.contains("1956 units"), "{w}");
        let w =
            data_units_warning(&log(100), &log(1951), 1_000_000_000, UnitSystem::Decimal).unwrap();
        assert!(w.contains("less than the probe wrote"), "{w}");
        // A drive that never counts.
        let w = data_units_warning(&log(7), &log(7), 64 << 20, UnitSystem::Decimal).unwrap();
        assert!(w.contains("rose by 0 B"), "{w}");
        let w = data_units_warning(&log(9), &log(7), 0, UnitSystem::Decimal).unwrap();
        assert!(w.contains("backwards"), "{w}");
    }
}
