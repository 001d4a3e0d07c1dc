//! Drive models: emulated SSDs with an SLC cache whose truth is known.

pub mod presets;
