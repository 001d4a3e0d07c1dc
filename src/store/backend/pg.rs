//! The PostgreSQL backend: the sync `postgres` client with a bounded connect, the store's
//! schema as its `search_path`, libpq's `sslmode`s, and errors in the server's words.

use super::*;

/// A failed statement on the server: what it did and the server's words, with what to do
/// where the cause is the role's rights or a lock held by someone else.
pub(super) fn pg_error(e: postgres::Error, sql: &str) -> anyhow::Error {
    use postgres::error::SqlState;
    let hint = match e.code() {
        Some(c) if *c == SqlState::INSUFFICIENT_PRIVILEGE => Some(
            "this role may not do that in the store (a fleet's role has SELECT and INSERT \
             only): ask the store's owner",
        ),
        Some(c) if *c == SqlState::LOCK_NOT_AVAILABLE => Some(
            "a table of the store was locked by another session for longer than the lock \
             time-out",
        ),
        _ => None,
    };
    let e = anyhow::Error::new(e).context(first_line(sql));
    match hint {
        Some(h) => e.context(h),
        None => e,
    }
}

/// How long connecting to a PostgreSQL server may take before the store gives up (unless the
/// connection string sets `connect_timeout` itself).
pub const PG_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a statement may wait for a lock on the server (`lock_timeout`) before it fails,
/// so that a table locked by someone else never holds a finished run for long.
pub const PG_LOCK_TIMEOUT: Duration = Duration::from_secs(5);

/// How long one statement may run (`statement_timeout`) when a run is recorded.
pub const PG_STATEMENT_TIMEOUT: Duration = Duration::from_secs(15);

/// The advisory lock key every slccache writer takes (transaction-scoped), so migrations and
/// inserts from many hosts queue instead of racing.
pub(super) const PG_LOCK_KEY: i64 = 0x736c_6363_6163_6865; // "slccache"

/// A store on a PostgreSQL server.
pub struct Postgres {
    client: postgres::Client,
    /// The schema the store's tables are in (`search_path`).
    schema: String,
    /// Where an older slccache's store would be, when it is not `schema` and `--db` named none.
    older_schema: Option<String>,
}

/// The schema a store's tables live in on a PostgreSQL server when `--db` names none
/// (`?schema=NAME` in a URL, `schema=NAME` in a key=value string).
pub const PG_DEFAULT_SCHEMA: &str = "slccache";

/// The schema `--db` names, checked: lower-case letters, digits and `_`, starting with a
/// letter or `_`, at most 63 bytes, not one of PostgreSQL's own (`pg_*`,
/// `information_schema`). So it is written into SQL as it is, never quoted or escaped.
pub fn check_schema_name(name: &str) -> std::result::Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 63
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !name.starts_with("pg_")
        && name != "information_schema";
    if ok {
        Ok(())
    } else {
        Err(
            "--db: schema is a name of lower-case letters, digits and _ (at most 63, not \
             starting with a digit or pg_), such as slccache"
                .into(),
        )
    }
}

/// libpq's `sslmode`, as slccache applies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    /// No TLS.
    Disable,
    /// TLS when the server offers it, without checking its certificate (libpq's default).
    Prefer,
    /// TLS or nothing; the certificate is checked against `sslrootcert` only when that file
    /// exists (as libpq does), else not at all.
    Require,
    /// TLS, the certificate chain checked against `sslrootcert`, not the host name.
    VerifyCa,
    /// TLS, the chain and the host name checked.
    VerifyFull,
}

impl SslMode {
    fn parse(s: Option<&str>) -> std::result::Result<SslMode, String> {
        Ok(match s.unwrap_or("prefer") {
            "disable" | "allow" => SslMode::Disable,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            _ => {
                return Err(
                    "--db: sslmode is one of disable, allow, prefer, require, verify-ca, \
                            verify-full"
                        .into(),
                )
            }
        })
    }
}

pub(super) fn open_err(place: &str, cause: impl Into<String>) -> anyhow::Error {
    StoreError::Open {
        place: place.to_string(),
        cause: cause.into(),
    }
    .into()
}

impl Postgres {
    /// Reads `conn` as [`Postgres::connect`] would, without connecting: a string that could
    /// never connect (a port that is not a number, a setting slccache does not take, an
    /// `sslmode` of another name, a schema name it refuses) is a usage error now, before a
    /// run writes anything, rather than a run that cannot be recorded.
    pub fn check(conn: &str) -> Result<()> {
        let mut settings = crate::conninfo::resolve(conn, &crate::conninfo::Sources::process())
            .map_err(|e| anyhow::Error::new(crate::error::UsageError(e)))?;
        if let Some(n) = settings.params.remove("schema") {
            check_schema_name(&n).map_err(|e| anyhow::Error::new(crate::error::UsageError(e)))?;
        }
        match config_of(&settings) {
            Err(ConfigError::Usage(m)) => Err(anyhow::Error::new(crate::error::UsageError(m))),
            // A file it names (a root certificate) is looked at when connecting.
            Ok(_) | Err(ConfigError::Open(_)) => Ok(()),
        }
    }

    /// Connects to the server that `conn` names (a URL or a key=value string, completed from
    /// the service file, the environment and the password file; see [`super::pgconf`]), with
    /// TLS as its `sslmode` says, failing after [`PG_CONNECT_TIMEOUT`] (or its
    /// `connect_timeout`) when the server does not answer. `recording` sets the lock and
    /// statement time-outs that bound how long a finished run waits on the store.
    pub fn connect(conn: &str, recording: bool) -> Result<Postgres> {
        let place = crate::conninfo::display(conn);
        let settings = crate::conninfo::resolve(conn, &crate::conninfo::Sources::process())
            .map_err(|e| anyhow::Error::new(crate::error::UsageError(e)))?;
        for n in &settings.notes {
            crate::note!("slccache: warning: {n}");
        }
        // `schema` is slccache's own setting: taken out before the rest becomes the
        // connection's configuration, so the server never sees it.
        let mut settings = settings;
        let (schema, named) = match settings.params.remove("schema") {
            Some(n) => (n, true),
            None => (PG_DEFAULT_SCHEMA.to_string(), false),
        };
        check_schema_name(&schema).map_err(|e| anyhow::Error::new(crate::error::UsageError(e)))?;
        let (cfg, tls) = config_of(&settings).map_err(|e| match e {
            ConfigError::Usage(m) => anyhow::Error::new(crate::error::UsageError(m)),
            ConfigError::Open(m) => open_err(&place, m),
        })?;
        let limit = *cfg.get_connect_timeout().unwrap_or(&PG_CONNECT_TIMEOUT);
        // The crate's timeout covers the TCP connect only; a server that accepts and then says
        // nothing would hang the handshake. So the whole connect runs in a thread and is given
        // up after the same limit (the thread ends when its socket does).
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let r = match tls {
                Some(t) => cfg.connect(t),
                None => cfg.connect(postgres::NoTls),
            };
            let _ = tx.send(r);
        });
        let mut client = match rx.recv_timeout(limit) {
            Ok(Ok(c)) => c,
            Ok(Err(e)) => return Err(open_err(&place, connect_cause(&e, &settings))),
            Err(_) => {
                return Err(open_err(
                    &place,
                    format!(
                        "cannot connect: timed out after {} s without an answer from the server",
                        limit.as_secs_f64()
                    ),
                ))
            }
        };
        // Where the role's own search_path puts unqualified tables: where every slccache
        // before the store had a schema of its own created its tables.
        let home: Option<String> = client
            .query_one("SELECT current_schema()::text", &[])
            .map_err(|e| open_err(&place, connect_cause(&e, &settings)))?
            .get(0);
        let older_schema = home.filter(|h| !named && *h != schema);
        // Times in UTC: `--since 2026-12-01` and the dashboards' days are UTC days.
        let mut set = format!(
            "SET search_path = {}; SET TIME ZONE 'UTC'; SET lock_timeout = {}",
            quote_ident(&schema),
            PG_LOCK_TIMEOUT.as_millis()
        );
        if recording {
            set += &format!(
                "; SET statement_timeout = {}",
                PG_STATEMENT_TIMEOUT.as_millis()
            );
        }
        client
            .batch_execute(&set)
            .map_err(|e| open_err(&place, connect_cause(&e, &settings)))?;
        Ok(Postgres {
            client,
            schema,
            older_schema,
        })
    }
}

pub(super) enum ConfigError {
    Usage(String),
    Open(String),
}

/// The crate's configuration and the TLS connector for resolved settings.
pub(super) fn config_of(
    s: &crate::conninfo::Settings,
) -> std::result::Result<
    (
        postgres::Config,
        Option<tokio_postgres_rustls::MakeRustlsConnect>,
    ),
    ConfigError,
> {
    let mut cfg = postgres::Config::new();
    let mode = SslMode::parse(s.get("sslmode")).map_err(ConfigError::Usage)?;
    let hosts = s.hosts();
    for h in &hosts {
        if h.starts_with('/') {
            cfg.host_path(h);
        } else {
            cfg.host(h);
        }
    }
    if let Some(a) = s.get("hostaddr") {
        for x in a.split(',') {
            cfg.hostaddr(
                x.parse().map_err(|_| {
                    ConfigError::Usage("--db: hostaddr is not an IP address".into())
                })?,
            );
        }
    }
    for p in s.ports().map_err(ConfigError::Usage)? {
        cfg.port(p);
    }
    let user = s.get("user").unwrap_or("postgres");
    cfg.user(user);
    cfg.dbname(s.get("dbname").unwrap_or(user));
    if let Some(pw) = s.get("password") {
        cfg.password(pw);
    }
    cfg.application_name(s.get("application_name").unwrap_or("slccache"));
    if let Some(o) = s.get("options") {
        cfg.options(o);
    }
    let timeout = match s.get("connect_timeout") {
        Some(t) => match t.trim().parse::<i64>() {
            Ok(n) if n > 0 => Duration::from_secs(n as u64),
            Ok(_) => PG_CONNECT_TIMEOUT,
            Err(_) => {
                return Err(ConfigError::Usage(
                    "--db: connect_timeout is a whole number of seconds".into(),
                ))
            }
        },
        None => PG_CONNECT_TIMEOUT,
    };
    cfg.connect_timeout(timeout);
    if let Some(v) = s.get("channel_binding") {
        cfg.channel_binding(match v {
            "disable" => postgres::config::ChannelBinding::Disable,
            "prefer" => postgres::config::ChannelBinding::Prefer,
            "require" => postgres::config::ChannelBinding::Require,
            _ => {
                return Err(ConfigError::Usage(
                    "--db: channel_binding is disable, prefer or require".into(),
                ))
            }
        });
    }
    if let Some(v) = s.get("target_session_attrs") {
        cfg.target_session_attrs(match v {
            "any" => postgres::config::TargetSessionAttrs::Any,
            "read-write" => postgres::config::TargetSessionAttrs::ReadWrite,
            _ => {
                return Err(ConfigError::Usage(
                    "--db: target_session_attrs is any or read-write".into(),
                ))
            }
        });
    }
    if let Some(v) = s.get("keepalives") {
        cfg.keepalives(v != "0");
    }
    if let Some(v) = s.get("keepalives_idle") {
        if let Ok(n) = v.parse::<u64>() {
            cfg.keepalives_idle(Duration::from_secs(n));
        }
    }
    if let Some(v) = s.get("sslnegotiation") {
        cfg.ssl_negotiation(match v {
            "postgres" => postgres::config::SslNegotiation::Postgres,
            "direct" => postgres::config::SslNegotiation::Direct,
            _ => {
                return Err(ConfigError::Usage(
                    "--db: sslnegotiation is postgres or direct".into(),
                ))
            }
        });
    }
    cfg.ssl_mode(match mode {
        SslMode::Disable => postgres::config::SslMode::Disable,
        SslMode::Prefer => postgres::config::SslMode::Prefer,
        _ => postgres::config::SslMode::Require,
    });
    if mode == SslMode::Disable {
        return Ok((cfg, None));
    }
    // libpq's root certificate: sslrootcert, else ~/.postgresql/root.crt.
    let (root, named) = match s.get("sslrootcert") {
        Some(r) => (Some(std::path::PathBuf::from(r)), true),
        None => (
            std::env::var_os("HOME").map(|h| Path::new(&h).join(".postgresql/root.crt")),
            false,
        ),
    };
    let root = root.filter(|r| named || r.is_file());
    let verify = match mode {
        SslMode::VerifyFull => tls::Verify::Full,
        SslMode::VerifyCa => tls::Verify::Chain,
        SslMode::Require if root.is_some() => tls::Verify::Chain,
        _ => tls::Verify::Nothing,
    };
    let roots = match (&verify, &root) {
        (tls::Verify::Nothing, _) => None,
        (_, Some(r)) => Some(r.clone()),
        (_, None) => {
            return Err(ConfigError::Usage(
                "--db: sslmode=verify-ca and verify-full need the server's root certificate: \
                 sslrootcert=FILE (or ~/.postgresql/root.crt)"
                    .into(),
            ))
        }
    };
    let tls = tls::connector(verify, roots.as_deref()).map_err(ConfigError::Open)?;
    Ok((cfg, Some(tls)))
}

/// The cause of a failed connection in words a user can act on: the server's own message
/// where it sent one, else what the network or TLS said.
pub(super) fn connect_cause(e: &postgres::Error, s: &crate::conninfo::Settings) -> String {
    if let Some(db) = e.as_db_error() {
        use postgres::error::SqlState;
        let msg = db.message();
        let hint = if *db.code() == SqlState::INVALID_PASSWORD {
            " (give the password in the URL, PGPASSWORD or ~/.pgpass)"
        } else if *db.code() == SqlState::INVALID_CATALOG_NAME {
            " (no such database: create it, or name another in --db)"
        } else if msg.contains("pg_hba.conf") && msg.contains("no encryption") {
            " (the server's rules want TLS for this host: add sslmode=require)"
        } else if msg.contains("pg_hba.conf") {
            " (refused by the server's rules, pg_hba.conf)"
        } else if msg.contains("role") && msg.contains("does not exist") {
            " (no such role on the server)"
        } else {
            ""
        };
        return format!("the server said: {msg}{hint}");
    }
    let mut chain = Vec::new();
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cur {
        if let Some(io) = c.downcast_ref::<std::io::Error>() {
            if io.kind() == std::io::ErrorKind::ConnectionRefused {
                let hosts = s.hosts().join(",");
                let ports = s
                    .ports()
                    .map(|p| p.iter().map(u16::to_string).collect::<Vec<_>>().join(","))
                    .unwrap_or_default();
                return format!(
                    "cannot connect: connection refused at {hosts} port {ports} (is the server \
                     running, and listening there?)"
                );
            }
        }
        let t = c.to_string();
        if !chain.contains(&t) {
            chain.push(t);
        }
        cur = c.source();
    }
    let text = chain.join(": ");
    if text.contains("server does not support TLS") {
        return format!(
            "cannot connect: {text} (the sslmode asks for TLS; the server has none: use \
             sslmode=prefer or disable, or turn on ssl in postgresql.conf)"
        );
    }
    if let Some(words) = tls_words(&text) {
        return format!("cannot connect: TLS: {words}");
    }
    if text.contains("certificate") || text.contains("TLS") || text.contains("tls") {
        return format!("cannot connect: TLS: {text} (check sslmode and sslrootcert)");
    }
    if text.contains("bytes remaining on stream") || text.contains("unexpected message") {
        return format!(
            "cannot connect: the server did not answer as PostgreSQL does (is a PostgreSQL \
             server listening there?): {text}"
        );
    }
    format!("cannot connect: {text}")
}

/// The refusal of a server's certificate in words, for the errors rustls names by their
/// kind (`UnknownIssuer`, `CaUsedAsEndEntity`, ...).
pub(super) fn tls_words(text: &str) -> Option<String> {
    let why = if text.contains("UnknownIssuer") {
        "the server's certificate is not signed by a certificate that sslrootcert holds"
    } else if text.contains("CaUsedAsEndEntity") {
        "the server's certificate is a CA certificate that sslrootcert does not hold (a \
         self-signed certificate is trusted when sslrootcert is that certificate)"
    } else if text.contains("Expired") {
        "the server's certificate has expired"
    } else if text.contains("NotValidYet") {
        "the server's certificate is not valid yet (check the clocks)"
    } else if text.contains("not valid for name") || text.contains("NotValidForName") {
        return Some(format!(
            "{text} (verify-full checks the host name against the certificate's \
             subjectAltName; a certificate that names its host in its CN only, which libpq \
             still accepts, is refused here: make it with -addext subjectAltName=DNS:HOST, or \
             use sslmode=verify-ca)"
        ));
    } else {
        return None;
    };
    Some(format!("{why} (check sslmode and sslrootcert)"))
}

/// A PostgreSQL connection string as messages show it: host, port, user and database only,
/// never a password or another parameter (see [`crate::conninfo::display`]).
pub fn redact(conn: &str) -> String {
    crate::conninfo::display(conn)
}

impl Backend for Postgres {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }
    fn table_exists(&mut self, name: &str) -> Result<bool> {
        let schema = self.schema.clone();
        self.table_exists_in(&schema, name)
    }
    fn columns(&mut self, table: &str) -> Result<Vec<(String, String)>> {
        // The catalog, not information_schema: that one hides what the role has no rights on.
        let rows = self.client.query(
            "SELECT a.attname::text, format_type(a.atttypid, a.atttypmod) \
             FROM pg_catalog.pg_attribute a \
             JOIN pg_catalog.pg_class c ON c.oid = a.attrelid \
             JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped \
             ORDER BY a.attnum",
            &[&self.schema, &table],
        )?;
        Ok(rows
            .iter()
            .map(|r| (r.get::<_, String>(0), r.get::<_, String>(1).to_lowercase()))
            .collect())
    }
    fn schema(&self) -> Option<String> {
        Some(self.schema.clone())
    }
    fn older_schema(&self) -> Option<String> {
        self.older_schema.clone()
    }
    fn set_schema(&mut self, schema: &str) -> Result<()> {
        self.client
            .batch_execute(&format!("SET search_path = {}", quote_ident(schema)))?;
        self.schema = schema.to_string();
        Ok(())
    }
    fn table_exists_in(&mut self, schema: &str, name: &str) -> Result<bool> {
        let r = self.client.query_one(
            "SELECT count(*) FROM pg_catalog.pg_class c \
             JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p')",
            &[&schema, &name],
        )?;
        Ok(r.get::<_, i64>(0) > 0)
    }
    fn schema_exists(&mut self, schema: &str) -> Result<bool> {
        let r = self.client.query_one(
            "SELECT count(*) FROM pg_catalog.pg_namespace WHERE nspname = $1",
            &[&schema],
        )?;
        Ok(r.get::<_, i64>(0) > 0)
    }
    fn begin_write(&mut self) -> Result<()> {
        self.client.batch_execute("BEGIN")?;
        self.client
            .execute("SELECT pg_advisory_xact_lock($1)", &[&PG_LOCK_KEY])?;
        Ok(())
    }
    fn commit(&mut self) -> Result<()> {
        self.client.batch_execute("COMMIT")?;
        Ok(())
    }
    fn rollback(&mut self) {
        let _ = self.client.batch_execute("ROLLBACK");
    }
    fn execute(&mut self, sql: &str, params: &[Val]) -> Result<u64> {
        let p = pg_params(params);
        let refs: Vec<&(dyn postgres::types::ToSql + Sync)> = p.iter().map(|b| &**b).collect();
        self.client
            .execute(sql, &refs)
            .map_err(|e| pg_error(e, sql))
    }
    fn copy_in(&mut self, sql: &str, data: &[u8]) -> Result<Option<u64>> {
        use std::io::Write as _;
        let mut w = self.client.copy_in(sql).with_context(|| first_line(sql))?;
        w.write_all(data).with_context(|| first_line(sql))?;
        Ok(Some(w.finish().with_context(|| first_line(sql))?))
    }
    fn query(&mut self, sql: &str, params: &[Val]) -> Result<Vec<Vec<Val>>> {
        let p = pg_params(params);
        let refs: Vec<&(dyn postgres::types::ToSql + Sync)> = p.iter().map(|b| &**b).collect();
        let rows = self
            .client
            .query(sql, &refs)
            .map_err(|e| pg_error(e, sql))?;
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            let mut row = Vec::with_capacity(r.len());
            for i in 0..r.len() {
                row.push(PgRow(&r).val(i)?);
            }
            out.push(row);
        }
        Ok(out)
    }
    fn query_each(
        &mut self,
        sql: &str,
        params: &[Val],
        each: &mut dyn FnMut(&dyn RowRef) -> Result<()>,
    ) -> Result<()> {
        use postgres::fallible_iterator::FallibleIterator;
        let p = pg_params(params);
        let refs: Vec<&(dyn postgres::types::ToSql + Sync)> = p.iter().map(|b| &**b).collect();
        let mut rows = self
            .client
            .query_raw(sql, refs)
            .map_err(|e| pg_error(e, sql))?;
        while let Some(r) = rows.next().map_err(|e| pg_error(e, sql))? {
            each(&PgRow(&r))?;
        }
        Ok(())
    }
}

/// A row of a PostgreSQL query, read in place by its columns' types.
struct PgRow<'a>(&'a postgres::Row);

impl PgRow<'_> {
    /// Column `i` as a [`Val`]: integers (and booleans, as 0 and 1), doubles and bytes as
    /// they are, a `timestamptz` as RFC 3339 text, `jsonb` as its text, the rest as text.
    fn val(&self, i: usize) -> Result<Val> {
        use postgres::types::Type;
        let (r, t) = (self.0, self.0.columns()[i].type_());
        Ok(if *t == Type::INT8 {
            Val::Int(r.try_get(i)?)
        } else if *t == Type::INT4 {
            Val::Int(r.try_get::<_, Option<i32>>(i)?.map(i64::from))
        } else if *t == Type::FLOAT8 {
            Val::Real(r.try_get(i)?)
        } else if *t == Type::BYTEA {
            Val::Blob(r.try_get(i)?)
        } else if *t == Type::BOOL {
            Val::Int(r.try_get::<_, Option<bool>>(i)?.map(i64::from))
        } else if *t == Type::TIMESTAMPTZ {
            Val::Text(r.try_get::<_, Option<PgTime>>(i)?.map(|x| x.0))
        } else if *t == Type::JSONB || *t == Type::JSON {
            Val::Text(r.try_get::<_, Option<PgJson>>(i)?.map(|x| x.0))
        } else {
            Val::Text(r.try_get(i)?)
        })
    }
}

impl RowRef for PgRow<'_> {
    fn int(&self, i: usize) -> Result<Option<i64>> {
        use postgres::types::Type;
        let t = self.0.columns()[i].type_();
        if *t == Type::INT8 || *t == Type::INT4 || *t == Type::BOOL {
            Ok(self.val(i)?.as_i64())
        } else {
            Ok(None)
        }
    }
    fn real(&self, i: usize) -> Result<Option<f64>> {
        use postgres::types::Type;
        let t = self.0.columns()[i].type_();
        if *t == Type::FLOAT8 || *t == Type::INT8 || *t == Type::INT4 || *t == Type::BOOL {
            Ok(self.val(i)?.as_f64())
        } else {
            Ok(None)
        }
    }
    fn text(&self, i: usize) -> Result<Option<std::borrow::Cow<'_, str>>> {
        use postgres::types::Type;
        let t = self.0.columns()[i].type_();
        if *t == Type::TIMESTAMPTZ || *t == Type::JSONB || *t == Type::JSON {
            return Ok(self.val(i)?.as_str().map(|s| s.to_string().into()));
        }
        if [
            Type::INT8,
            Type::INT4,
            Type::FLOAT8,
            Type::BYTEA,
            Type::BOOL,
        ]
        .contains(t)
        {
            return Ok(None);
        }
        // Text as the server sent it, borrowed.
        Ok(self.0.try_get::<_, Option<&str>>(i)?.map(Into::into))
    }
    fn micros(&self, i: usize) -> Result<Option<i64>> {
        if *self.0.columns()[i].type_() != postgres::types::Type::TIMESTAMPTZ {
            return Ok(None);
        }
        Ok(self.0.try_get::<_, Option<PgMicros>>(i)?.map(|m| m.0))
    }
}

/// A `timestamptz` read as RFC 3339 text in UTC (`2026-02-15T10:00:00Z`, with as many
/// fraction digits as it has: PostgreSQL keeps microseconds). Its binary form is the
/// microseconds since 2000-01-01 00:00 UTC.
pub(super) struct PgTime(String);

impl<'a> postgres::types::FromSql<'a> for PgTime {
    fn from_sql(
        _ty: &postgres::types::Type,
        raw: &'a [u8],
    ) -> std::result::Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        let us = i64::from_be_bytes(raw.try_into()?);
        let epoch = chrono::DateTime::from_timestamp(946_684_800, 0).expect("a valid time");
        let t = epoch
            .checked_add_signed(chrono::TimeDelta::microseconds(us))
            .ok_or("a timestamptz out of range")?;
        Ok(PgTime(
            t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true),
        ))
    }
    fn accepts(ty: &postgres::types::Type) -> bool {
        *ty == postgres::types::Type::TIMESTAMPTZ
    }
}

/// A `timestamptz` as the server sends it: microseconds since 2000-01-01 UTC.
struct PgMicros(i64);

impl<'a> postgres::types::FromSql<'a> for PgMicros {
    fn from_sql(
        _ty: &postgres::types::Type,
        raw: &'a [u8],
    ) -> std::result::Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(PgMicros(i64::from_be_bytes(raw.try_into()?)))
    }
    fn accepts(ty: &postgres::types::Type) -> bool {
        *ty == postgres::types::Type::TIMESTAMPTZ
    }
}

/// A `jsonb` or `json` value read as its text (`jsonb`'s binary form is a version byte, 1,
/// then the text).
pub(super) struct PgJson(String);

impl<'a> postgres::types::FromSql<'a> for PgJson {
    fn from_sql(
        ty: &postgres::types::Type,
        raw: &'a [u8],
    ) -> std::result::Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        let text = if *ty == postgres::types::Type::JSONB {
            match raw.split_first() {
                Some((1, rest)) => rest,
                _ => return Err("an unknown jsonb format".into()),
            }
        } else {
            raw
        };
        Ok(PgJson(std::str::from_utf8(text)?.to_string()))
    }
    fn accepts(ty: &postgres::types::Type) -> bool {
        *ty == postgres::types::Type::JSONB || *ty == postgres::types::Type::JSON
    }
}

pub(super) fn pg_params(params: &[Val]) -> Vec<Box<dyn postgres::types::ToSql + Sync>> {
    params
        .iter()
        .map(|v| -> Box<dyn postgres::types::ToSql + Sync> {
            match v {
                Val::Int(x) => Box::new(*x),
                Val::Real(x) => Box::new(*x),
                Val::Text(x) => Box::new(x.clone()),
                Val::Blob(x) => Box::new(x.clone()),
            }
        })
        .collect()
}
