//! `slccache db migrate`: creates the results store, or brings it to this slccache's schema
//! version, every step included (see `store::schema`).

use anyhow::Result;

use crate::cli::{DbAction, DbArgs};
use crate::store::{recorder, schema, Store};

/// Runs `slccache db`.
pub fn run(args: DbArgs) -> Result<()> {
    let loc = recorder::location().ok_or_else(|| {
        crate::error::usage("no results store: give --db PATH or set SLCCACHE_DB (no home folder)")
    })?;
    let home = std::env::var("HOME").ok();
    let place = loc.display(home.as_deref());
    let text = match args.action {
        DbAction::Migrate => {
            let r = Store::migrate_explicit(loc.connect()?, schema::MIGRATIONS)?;
            describe(&r, &place)
        }
    };
    crate::stdout::write_bytes(text.as_bytes());
    Ok(())
}

/// What `db migrate` did, in a few lines.
fn describe(r: &schema::MigrateReport, place: &str) -> String {
    let at = match &r.schema {
        Some(s) => format!("{place}, schema {s}"),
        None => place.to_string(),
    };
    let mut s = String::new();
    if let (Some(from), Some(to)) = (&r.moved_from, &r.schema) {
        s += &format!(
            "moved the store ({}) from schema {from} into {to}; {from} keeps only \
             slccache_schema, which makes slccache of schema version 1 refuse it (upgrade it)\n",
            crate::units::count_text(r.runs as usize, "run", "runs")
        );
    }
    s += &if r.before.tables == 0 {
        format!(
            "created the results store at {at}: schema version {}\n",
            r.after.tables
        )
    } else if r.before.tables == r.after.tables {
        format!(
            "the results store at {at} is at schema version {} already ({})\n",
            r.after.tables,
            crate::units::count_text(r.runs as usize, "run", "runs")
        )
    } else {
        format!(
            "brought the results store at {at} from schema version {} to {} ({})\n",
            r.before.tables,
            r.after.tables,
            crate::units::count_text(r.runs as usize, "run", "runs")
        )
    };
    s += &format!(
        "slccache of schema version {} or later records there\n",
        r.after.writers_from
    );
    if let Some(sc) = &r.schema {
        s += &format!(
            "a fleet's role needs: GRANT USAGE ON SCHEMA {sc} TO fleet; GRANT SELECT, INSERT ON \
             ALL TABLES IN SCHEMA {sc} TO fleet; ALTER DEFAULT PRIVILEGES IN SCHEMA {sc} GRANT \
             SELECT, INSERT ON TABLES TO fleet;\n"
        );
    }
    s
}
