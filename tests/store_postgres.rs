//! The results store on a real PostgreSQL server that the test starts itself (Debian's
//! `postgresql` binaries, a data folder in a temporary directory, a free port on 127.0.0.1),
//! running the same cases as SQLite; the server is stopped by PID when the test ends, also
//! when it fails.

mod store_util;

use slccache::store::Location;

#[test]
fn store_cases_on_postgres() {
    let Some(mut pg) = store_util::PgServer::start() else {
        return;
    };
    store_util::cases::run_all(&mut || Location::Postgres(pg.new_db()));
}
