//! Charts and reports: chart specs and files, the gallery, report.html in a browser, SVG against PNG, the layout and its golden outputs.
//!
//! One test binary (shared helpers in `tests/common`), so the crate is linked once for all of them.

#[path = "../common/mod.rs"]
mod common;

mod charts;
mod files;
mod gallery;
mod html;
mod layout;
mod layout_golden;
mod spec;
mod svg_render;
