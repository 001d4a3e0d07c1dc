//! The machinery that several commands share: the known starting state, bursts until the
//! cliff, the recovery and fill-level experiments, and their plain result types.

pub mod backends;
pub mod burst;
pub mod prepare;
pub mod recovery;
pub mod signals;
pub mod sweep;
pub mod virtual_time;
