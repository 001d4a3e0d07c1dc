//! The results library: SQLite and PostgreSQL stores, credentials, origins, the HTML index, the fleet scripts, and the README's results-library commands.
//!
//! One test binary (shared helpers in `tests/common`), so the crate is linked once for all of them.

#[path = "../common/mod.rs"]
mod common;

mod cli;
mod credentials;
mod fleet_ansible;
mod fleet_kubernetes;
mod html;
mod origin;
mod postgres;
mod readme;
mod sqlite;
mod target;
