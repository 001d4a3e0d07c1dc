//! Emulated drives (`emu:PRESET[,key=value...]`) as targets.

use anyhow::Result;

use super::{TargetInfo, TargetKind};
use crate::engine::emulated::EmulatedDrive;

/// Inspects an `emu:` target; `rest` is the spec after `emu:`.
pub(super) fn inspect(spec: &str, rest: &str) -> Result<TargetInfo> {
    let drive = EmulatedDrive::open(rest)?;
    let mut identity = drive.identity();
    if identity.capacity_bytes.is_none() {
        identity.capacity_bytes = Some(drive.capacity_bytes());
    }
    Ok(TargetInfo {
        spec: spec.to_string(),
        kind: TargetKind::Emulated,
        path: None,
        identity,
        capacity: drive.capacity_bytes(),
        offset_align: Some(drive.alignment()),
        mem_align: drive.alignment(),
        exists: true,
        emulated: Some(drive),
        dev: None,
        hwmon: None,
        nvme: None,
        ata: None,
        ata_note: None,
    })
}
