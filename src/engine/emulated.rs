//! The emulated-drive backend: stores nothing, completes each write when the drive model says.
//! (Placeholder until the drive model lands.)

use anyhow::Result;

use super::Backend;
use crate::cli::Pattern;
use crate::timeline::DeviceIdentity;

/// An emulated drive shared by all jobs of a probe (cheap to clone).
#[derive(Debug, Clone)]
pub struct EmulatedDrive {
    spec: String,
}

impl EmulatedDrive {
    /// Opens `spec`, the part of an `emu:PRESET[,key=value...]` target after `emu:`.
    pub fn open(spec: &str) -> Result<EmulatedDrive> {
        anyhow::bail!("emulated drive '{spec}': the drive model is not built yet")
    }
    /// Identity for reports (model name, capacity, kind "emulated").
    pub fn identity(&self) -> DeviceIdentity {
        DeviceIdentity {
            path: format!("emu:{}", self.spec),
            kind: "emulated".into(),
            ..DeviceIdentity::default()
        }
    }
    /// Capacity in bytes.
    pub fn capacity_bytes(&self) -> u64 {
        0
    }
    /// Direct-I/O alignment the drive demands (its logical block size).
    pub fn alignment(&self) -> u64 {
        512
    }
    /// A backend for one job, with `queue_depth` buffers of `block_size` bytes.
    pub fn backend(
        &self,
        queue_depth: u32,
        block_size: u64,
        pattern: Pattern,
    ) -> Result<Box<dyn Backend>> {
        let _ = (queue_depth, block_size, pattern);
        anyhow::bail!("not built yet")
    }
    /// The drive's temperature now, if the model has a thermal part.
    pub fn temperature_c(&self) -> Option<f64> {
        None
    }
}
