//! PostgreSQL connection strings, read the way libpq reads them, and shown without secrets.
//!
//! `--db` (or `SLCCACHE_DB`) names a server as a URL (`postgres://` or `postgresql://`, the
//! scheme in any case) or as a libpq key=value string (`host=db.lab dbname=slccache user=lab`).
//! What the string leaves out comes, in libpq's order, from the service file (`service=` or
//! `PGSERVICE`), then from the environment (`PGHOST`, `PGPORT`, `PGDATABASE`, `PGUSER`,
//! `PGPASSWORD`, `PGSSLMODE`, `PGSSLROOTCERT`, ...), then from libpq's defaults. A password
//! that none of them gives is looked up in the password file (`passfile=`, `PGPASSFILE`, else
//! `~/.pgpass`), which, as libpq requires, must not be readable by group or others.
//!
//! Nothing here ever puts a value of the string into a message: errors name the key or the
//! place only, and [`display`] rebuilds a URL from the host, port, user and database alone, so
//! a password cannot reach the terminal, a report or the store in any form (userinfo,
//! `?password=`, `password=`, percent-encoded, or holding `@`, `:`, `/`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The keys slccache takes in a connection string (libpq's names). Others are refused.
pub const KEYS: &[&str] = &[
    "host",
    "hostaddr",
    "port",
    "dbname",
    "user",
    "password",
    "passfile",
    "service",
    "connect_timeout",
    "application_name",
    "options",
    "sslmode",
    "sslrootcert",
    "sslnegotiation",
    "channel_binding",
    "target_session_attrs",
    "keepalives",
    "keepalives_idle",
    // slccache's own: the schema the store's tables live in (default `slccache`); never
    // handed to the server as a connection setting.
    "schema",
];

/// The environment variables libpq reads for each key.
const ENV: &[(&str, &str)] = &[
    ("host", "PGHOST"),
    ("hostaddr", "PGHOSTADDR"),
    ("port", "PGPORT"),
    ("dbname", "PGDATABASE"),
    ("user", "PGUSER"),
    ("password", "PGPASSWORD"),
    ("passfile", "PGPASSFILE"),
    ("connect_timeout", "PGCONNECT_TIMEOUT"),
    ("application_name", "PGAPPNAME"),
    ("options", "PGOPTIONS"),
    ("sslmode", "PGSSLMODE"),
    ("sslrootcert", "PGSSLROOTCERT"),
    ("sslnegotiation", "PGSSLNEGOTIATION"),
    ("channel_binding", "PGCHANNELBINDING"),
    ("target_session_attrs", "PGTARGETSESSIONATTRS"),
];

/// What a `--db` string is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DbKind {
    /// A PostgreSQL URL or key=value string.
    Postgres,
    /// A path to an SQLite file.
    Path,
}

/// Tells a PostgreSQL string from a path, or refuses the string (a URL of another scheme, or
/// anything holding `://`). The message never quotes the string beyond its scheme.
pub fn classify(s: &str) -> Result<DbKind, String> {
    let t = s.trim();
    if let Some((scheme, _)) = t.split_once("://") {
        let l = scheme.to_ascii_lowercase();
        if l == "postgres" || l == "postgresql" {
            return Ok(DbKind::Postgres);
        }
        let shown: String = if scheme.len() <= 20
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
        {
            format!("'{scheme}://'")
        } else {
            "a '://'".into()
        };
        return Err(format!(
            "--db: {shown} is not a store: give a postgres:// or postgresql:// URL, a libpq \
             key=value string (host=... dbname=...) or an SQLite file path"
        ));
    }
    if is_keyword_string(t) {
        return Ok(DbKind::Postgres);
    }
    // `postgres:host/db`, `postgres//host/db`, `postgres;//...` and the like: a scheme with
    // its `://` mistyped is a typo, not a file name.
    let lower = t.to_ascii_lowercase();
    for scheme in ["postgresql", "postgres"] {
        if let Some(rest) = lower.strip_prefix(scheme) {
            if rest.starts_with(|c: char| ":/;|\\".contains(c)) {
                return Err(
                    "--db: a PostgreSQL URL starts with postgres:// or postgresql://".into(),
                );
            }
        }
    }
    // `user:password@host...`: a URL without its scheme (a file name of that shape would put
    // what may be a password on the terminal and into the store's path).
    if looks_like_userinfo(t) {
        return Err(
            "--db: this looks like a connection URL without its scheme: a PostgreSQL \
                    URL starts with postgres:// or postgresql://"
                .into(),
        );
    }
    Ok(DbKind::Path)
}

/// Whether the first path component of `s` is `user:password@host` (a `:` before an `@`).
fn looks_like_userinfo(s: &str) -> bool {
    let first = s.split('/').next().unwrap_or_default();
    match (first.find(':'), first.rfind('@')) {
        (Some(colon), Some(at)) => colon > 0 && colon < at && at + 1 < first.len(),
        _ => false,
    }
}

/// Whether `s` is a libpq key=value string: its first word is a known key followed by `=`.
fn is_keyword_string(s: &str) -> bool {
    let key: String = s
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if key.is_empty() || !KEYS.contains(&key.as_str()) {
        return false;
    }
    s[key.len()..].trim_start().starts_with('=')
}

/// The connection string's own settings, parsed (libpq keys to values).
pub fn parse(s: &str) -> Result<BTreeMap<String, String>, String> {
    let t = s.trim();
    match t.split_once("://") {
        Some(_) => parse_url(t),
        None => parse_keywords(t),
    }
}

fn unknown_key(key: &str) -> String {
    // Only a plausible key name is quoted: a misplaced password fragment is never shown.
    if key.len() <= 32 && key.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
        format!(
            "--db: slccache does not take the setting '{key}' (it takes {})",
            KEYS.join(", ")
        )
    } else {
        format!(
            "--db: a setting the connection string names is not one slccache takes ({})",
            KEYS.join(", ")
        )
    }
}

fn add(map: &mut BTreeMap<String, String>, key: &str, value: String) -> Result<(), String> {
    if !KEYS.contains(&key) {
        return Err(unknown_key(key));
    }
    map.insert(key.to_string(), value);
    Ok(())
}

/// Percent-decoding, as libpq does for every part of a URL.
fn decode(s: &str, what: &str) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("--db: a bad percent-encoding in the URL's {what}"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| format!("--db: the URL's {what} is not UTF-8"))
}

/// `postgres[ql]://[user[:password]@][host][:port][,host[:port]...][/dbname][?key=value&...]`.
///
/// The user part ends at the last `@` before the first `?`, so a password may hold `@`, `:`
/// and `/` without percent-encoding (libpq wants them encoded; both forms work here).
fn parse_url(s: &str) -> Result<BTreeMap<String, String>, String> {
    let (_, rest) = s.split_once("://").expect("checked by the caller");
    let first_q = rest.find('?').unwrap_or(rest.len());
    let (userinfo, after) = match rest[..first_q].rfind('@') {
        Some(at) => (Some(&rest[..at]), &rest[at + 1..]),
        None => (None, rest),
    };
    let mut map = BTreeMap::new();
    if let Some(ui) = userinfo {
        let (user, pw) = match ui.split_once(':') {
            Some((u, p)) => (u, Some(p)),
            None => (ui, None),
        };
        if !user.is_empty() {
            map.insert("user".into(), decode(user, "user name")?);
        }
        if let Some(p) = pw {
            map.insert("password".into(), decode(p, "password")?);
        }
    }
    let (before_q, query) = match after.split_once('?') {
        Some((a, q)) => (a, Some(q)),
        None => (after, None),
    };
    let (hostspec, dbname) = match before_q.split_once('/') {
        Some((h, d)) => (h, Some(d)),
        None => (before_q, None),
    };
    if !hostspec.is_empty() {
        let mut hosts = Vec::new();
        let mut ports = Vec::new();
        for chunk in hostspec.split(',') {
            let (h, p) = if let Some(inner) = chunk.strip_prefix('[') {
                let (h, tail) = inner
                    .split_once(']')
                    .ok_or("--db: an IPv6 host in the URL lacks its ']'")?;
                (h, tail.strip_prefix(':'))
            } else {
                match chunk.rsplit_once(':') {
                    Some((h, p)) => (h, Some(p)),
                    None => (chunk, None),
                }
            };
            hosts.push(decode(h, "host")?);
            ports.push(decode(p.unwrap_or(""), "port")?);
        }
        if hosts.iter().any(|h| !h.is_empty()) {
            map.insert("host".into(), hosts.join(","));
        }
        if ports.iter().any(|p| !p.is_empty()) {
            map.insert("port".into(), ports.join(","));
        }
    }
    if let Some(d) = dbname.filter(|d| !d.is_empty()) {
        map.insert("dbname".into(), decode(d, "database name")?);
    }
    if let Some(q) = query.filter(|q| !q.is_empty()) {
        for pair in q.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').ok_or(
                "--db: each parameter after the URL's '?' is key=value (percent-encode a '?' \
                 in a password as %3F)",
            )?;
            let k = decode(k, "parameters")?;
            let v = decode(v, "parameters")?;
            add(&mut map, &k, v)?;
        }
    }
    Ok(map)
}

/// libpq's `key = value ...` form: values may be single-quoted, with `\'` and `\\` escapes.
fn parse_keywords(s: &str) -> Result<BTreeMap<String, String>, String> {
    let mut map = BTreeMap::new();
    let c: Vec<char> = s.chars().collect();
    let mut i = 0;
    let skip_ws = |i: &mut usize| {
        while *i < c.len() && c[*i].is_whitespace() {
            *i += 1;
        }
    };
    loop {
        skip_ws(&mut i);
        if i >= c.len() {
            break;
        }
        let start = i;
        while i < c.len() && !c[i].is_whitespace() && c[i] != '=' {
            i += 1;
        }
        let key: String = c[start..i].iter().collect();
        skip_ws(&mut i);
        if i >= c.len() || c[i] != '=' {
            return Err("--db: a key=value string needs '=' after each key".into());
        }
        i += 1;
        skip_ws(&mut i);
        let mut value = String::new();
        if i < c.len() && c[i] == '\'' {
            i += 1;
            loop {
                match c.get(i) {
                    None => return Err("--db: a quoted value lacks its closing quote".into()),
                    Some('\'') => {
                        i += 1;
                        break;
                    }
                    Some('\\') if i + 1 < c.len() => {
                        value.push(c[i + 1]);
                        i += 2;
                    }
                    Some(&ch) => {
                        value.push(ch);
                        i += 1;
                    }
                }
            }
        } else {
            while i < c.len() && !c[i].is_whitespace() {
                if c[i] == '\\' && i + 1 < c.len() {
                    value.push(c[i + 1]);
                    i += 2;
                } else {
                    value.push(c[i]);
                    i += 1;
                }
            }
        }
        add(&mut map, &key, value)?;
    }
    Ok(map)
}

/// The store as messages show it: `postgres://user@host:port/dbname` from the string's own
/// settings, never with a password or any other parameter. A string that cannot be read is
/// shown as a phrase, not quoted.
pub fn display(s: &str) -> String {
    match parse(s) {
        Ok(m) => {
            let mut out = "postgres://".to_string();
            if let Some(u) = m.get("user") {
                out += &encode(u);
                out.push('@');
            }
            let hosts: Vec<&str> = m
                .get("host")
                .map(|h| h.split(',').collect())
                .unwrap_or_default();
            let ports: Vec<&str> = m
                .get("port")
                .map(|p| p.split(',').collect())
                .unwrap_or_default();
            let n = hosts.len().max(ports.len());
            let parts: Vec<String> = (0..n)
                .map(|i| {
                    let h = hosts.get(i).copied().unwrap_or("");
                    let h = if h.contains(':') {
                        format!("[{h}]")
                    } else {
                        encode(h)
                    };
                    match ports.get(i).or(ports.first()).filter(|p| !p.is_empty()) {
                        Some(p) => format!("{h}:{}", encode(p)),
                        None => h,
                    }
                })
                .collect();
            out += &parts.join(",");
            if let Some(d) = m.get("dbname") {
                out.push('/');
                out += &encode(d);
            }
            // The settings that say which store it is and hold no secret: the schema, and
            // the service whose file gives the rest (so a command line shown keeps them).
            let mut sep = '?';
            for key in ["service", "schema"] {
                if let Some(v) = m.get(key) {
                    out.push(sep);
                    out += key;
                    out.push('=');
                    out += &encode(v);
                    sep = '&';
                }
            }
            out
        }
        Err(_) => "a PostgreSQL server (its --db string could not be read)".into(),
    }
}

/// Percent-encodes what would make a shown URL ambiguous.
fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out += &format!("%{b:02X}");
        }
    }
    out
}

/// Where the settings of a connection came from, for the lookups that need the outside world
/// (the environment and the home folder), so tests can give their own.
pub struct Sources<'a> {
    /// An environment variable's value.
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// The home folder.
    pub home: Option<PathBuf>,
}

impl Sources<'_> {
    /// This process's environment and `$HOME`.
    pub fn process() -> Sources<'static> {
        static ENV_FN: fn(&str) -> Option<String> = |k| std::env::var(k).ok();
        Sources {
            env: &ENV_FN,
            home: std::env::var_os("HOME").map(PathBuf::from),
        }
    }
}

/// Settings resolved from the string, the service file, the environment and the password file.
#[derive(Clone, PartialEq, Eq)]
pub struct Settings {
    /// libpq keys to values.
    pub params: BTreeMap<String, String>,
    /// Warnings met on the way (a password file readable by others), for the caller to show.
    pub notes: Vec<String>,
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown: BTreeMap<&str, &str> = self
            .params
            .iter()
            .map(|(k, v)| (k.as_str(), if k == "password" { "***" } else { v }))
            .collect();
        f.debug_struct("Settings").field("params", &shown).finish()
    }
}

impl Settings {
    /// One setting.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.params.get(key).map(String::as_str)
    }

    /// The host names, in order (libpq's default when none: the local server).
    pub fn hosts(&self) -> Vec<String> {
        match self.get("host").filter(|h| !h.is_empty()) {
            Some(h) => h.split(',').map(str::to_string).collect(),
            None => vec!["localhost".into()],
        }
    }

    /// The ports, one per host or one for all (default 5432).
    pub fn ports(&self) -> Result<Vec<u16>, String> {
        match self.get("port").filter(|p| !p.is_empty()) {
            Some(p) => p
                .split(',')
                .map(|x| {
                    if x.is_empty() {
                        Ok(5432)
                    } else {
                        x.parse::<u16>()
                            .map_err(|_| "--db: the port is not a number from 1 to 65535".into())
                    }
                })
                .collect(),
            None => Ok(vec![5432]),
        }
    }
}

/// Resolves `s` with libpq's sources: the string, then the service file, then the
/// environment, then the password file for a password still missing.
pub fn resolve(s: &str, src: &Sources<'_>) -> Result<Settings, String> {
    let mut params = parse(s)?;
    let mut notes = Vec::new();
    let service = params
        .get("service")
        .cloned()
        .or_else(|| (src.env)("PGSERVICE"));
    if let Some(name) = service {
        let from_service = read_service(&name, src)?;
        for (k, v) in from_service {
            params.entry(k).or_insert(v);
        }
    }
    for (key, var) in ENV {
        if !params.contains_key(*key) {
            if let Some(v) = (src.env)(var).filter(|v| !v.is_empty()) {
                params.insert((*key).into(), v);
            }
        }
    }
    if !params.contains_key("user") {
        if let Some(u) = (src.env)("USER").or_else(|| (src.env)("LOGNAME")) {
            params.insert("user".into(), u);
        }
    }
    if !params.contains_key("password") {
        let file = params
            .get("passfile")
            .map(PathBuf::from)
            .or_else(|| src.home.as_ref().map(|h| h.join(".pgpass")));
        if let Some(file) = file {
            let settings = Settings {
                params: params.clone(),
                notes: vec![],
            };
            match passfile_lookup(&file, &settings) {
                Ok(Some(pw)) => {
                    params.insert("password".into(), pw);
                }
                Ok(None) => {}
                Err(n) => notes.push(n),
            }
        }
    }
    Ok(Settings { params, notes })
}

/// A service's settings from `PGSERVICEFILE` (else `~/.pg_service.conf`), then
/// `PGSYSCONFDIR/pg_service.conf` (else `/etc/postgresql-common/pg_service.conf`).
fn read_service(name: &str, src: &Sources<'_>) -> Result<BTreeMap<String, String>, String> {
    let mut files = Vec::new();
    match (src.env)("PGSERVICEFILE") {
        Some(f) => files.push(PathBuf::from(f)),
        None => {
            if let Some(h) = &src.home {
                files.push(h.join(".pg_service.conf"));
            }
        }
    }
    files.push(
        (src.env)("PGSYSCONFDIR")
            .map(|d| PathBuf::from(d).join("pg_service.conf"))
            .unwrap_or_else(|| PathBuf::from("/etc/postgresql-common/pg_service.conf")),
    );
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        if let Some(m) = service_section(&text, name, f)? {
            return Ok(m);
        }
    }
    Err(format!(
        "--db: no service '{}' in {}",
        if name.len() <= 64 {
            name
        } else {
            "(long name)"
        },
        files
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(" or ")
    ))
}

fn service_section(
    text: &str,
    name: &str,
    file: &Path,
) -> Result<Option<BTreeMap<String, String>>, String> {
    let mut inside = false;
    let mut found = false;
    let mut map = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        if let Some(sec) = l.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
            inside = sec.trim() == name;
            found |= inside;
            continue;
        }
        if inside {
            let (k, v) = l
                .split_once('=')
                .ok_or_else(|| format!("{} line {}: expected key=value", file.display(), n + 1))?;
            let k = k.trim();
            if !KEYS.contains(&k) || k == "service" {
                return Err(format!(
                    "{} line {}: slccache does not take the setting there",
                    file.display(),
                    n + 1
                ));
            }
            map.insert(k.to_string(), v.trim().to_string());
        }
    }
    Ok(found.then_some(map))
}

/// The password for these settings from a libpq password file
/// (`hostname:port:database:username:password`, `*` matches anything, `\` escapes `:` and
/// `\`). A file readable by group or others is ignored with a note, as libpq does.
fn passfile_lookup(file: &Path, s: &Settings) -> Result<Option<String>, String> {
    use std::os::unix::fs::PermissionsExt;
    let Ok(meta) = std::fs::metadata(file) else {
        return Ok(None);
    };
    if !meta.is_file() {
        return Ok(None);
    }
    if meta.permissions().mode() & 0o077 != 0 {
        return Err(format!(
            "the password file {} is readable by group or others, so it was not read \
             (chmod 0600 it)",
            file.display()
        ));
    }
    let Ok(text) = std::fs::read_to_string(file) else {
        return Ok(None);
    };
    let host = s.hosts().into_iter().next().unwrap_or_default();
    // A socket folder matches "localhost", as in libpq.
    let host = if host.starts_with('/') {
        "localhost".to_string()
    } else {
        host
    };
    let port = s
        .ports()
        .ok()
        .and_then(|p| p.first().copied())
        .unwrap_or(5432)
        .to_string();
    let user = s.get("user").unwrap_or("").to_string();
    let db = s
        .get("dbname")
        .map(str::to_string)
        .unwrap_or_else(|| user.clone());
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields = split_passfile_line(line);
        if fields.len() < 5 {
            continue;
        }
        let m = |f: &str, v: &str| f == "*" || f == v;
        if m(&fields[0], &host)
            && m(&fields[1], &port)
            && m(&fields[2], &db)
            && m(&fields[3], &user)
        {
            return Ok(Some(fields[4..].join(":")));
        }
    }
    Ok(None)
}

fn split_passfile_line(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    out.last_mut().expect("never empty").push(n);
                }
            }
            ':' if out.len() < 5 => out.push(String::new()),
            _ => out.last_mut().expect("never empty").push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_stay_paths_and_mistyped_urls_are_refused() {
        for path in [
            "results.db",
            "/tmp/store@lab.db",
            "runs/2026-12-02T10:00.db",
            "lab@home.db",
            "postgres-results.db",
            "postgresql.db",
        ] {
            assert_eq!(classify(path), Ok(DbKind::Path), "{path}");
        }
        for typo in [
            "postgres//lab@host/db",
            "postgresql;//host/db",
            "Postgres:/host/db",
            "lab:secret@host:5432/db",
        ] {
            let e = classify(typo).unwrap_err();
            assert!(!e.contains("secret") && !e.contains("host"), "{e}");
        }
    }

    const PW: &str = "s3nt1n3l@:/pw";

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k: &str| m.get(k).cloned()
    }

    fn resolve_with(s: &str, env: &[(&str, &str)], home: Option<&Path>) -> Settings {
        let e = env_of(env);
        resolve(
            s,
            &Sources {
                env: &e,
                home: home.map(Path::to_path_buf),
            },
        )
        .unwrap()
    }

    #[test]
    fn schemes_any_case_and_other_schemes_refused() {
        for s in [
            "postgres://u@h/d",
            "postgresql://u@h/d",
            "PostgreSQL://u@h/d",
            "POSTGRES://h",
            "host=h dbname=d",
            "dbname = d",
        ] {
            assert_eq!(classify(s), Ok(DbKind::Postgres), "{s}");
        }
        for s in [
            "results.db",
            "./a/b.db",
            "/x/y",
            "my host=1.db",
            "hostname.db",
        ] {
            assert_eq!(classify(s), Ok(DbKind::Path), "{s}");
        }
        for s in [
            "postgress://lab:pw@host/db",
            "mysql://u:pw@h/d",
            "x://y",
            "file:///tmp/x.db",
            "postgres:h/d",
        ] {
            let e = classify(s).unwrap_err();
            assert!(!e.contains("pw@"), "{e}");
            assert!(e.contains("--db"), "{e}");
        }
    }

    #[test]
    fn a_url_reads_its_parts_with_raw_or_encoded_specials() {
        let m = parse(&format!(
            "postgres://lab:{PW}@db.lab:5433/slc?sslmode=require"
        ))
        .unwrap();
        assert_eq!(m["user"], "lab");
        assert_eq!(m["password"], PW);
        assert_eq!(m["host"], "db.lab");
        assert_eq!(m["port"], "5433");
        assert_eq!(m["dbname"], "slc");
        assert_eq!(m["sslmode"], "require");
        let m = parse("postgresql://lab:s3nt1n3l%40%3A%2Fpw@db.lab/slc").unwrap();
        assert_eq!(m["password"], PW);
        let m = parse("postgres://db.lab/slc?user=lab&password=s3nt1n3l%40%3A%2Fpw").unwrap();
        assert_eq!(m["password"], PW);
        assert_eq!(m["user"], "lab");
        let m = parse("postgres://[::1]:6000,h2:7000/d").unwrap();
        assert_eq!(m["host"], "::1,h2");
        assert_eq!(m["port"], "6000,7000");
        assert!(parse("postgres://h/d?bogus=1").is_err());
        assert!(parse("postgres://h/d?noequals").is_err());
    }

    #[test]
    fn key_value_strings_with_quotes_and_escapes() {
        let m = parse(r"host=db.lab  port = 5433 dbname=slc user=lab password='s3nt1n3l@:/pw'")
            .unwrap();
        assert_eq!(m["password"], PW);
        assert_eq!(m["port"], "5433");
        let m = parse(r"host=h password='it\'s here' user=a\ b").unwrap();
        assert_eq!(m["password"], "it's here");
        assert_eq!(m["user"], "a b");
        assert!(parse("host=h password='open").is_err());
        assert!(parse("host=h colour=blue").is_err());
    }

    #[test]
    fn the_schema_is_taken_in_both_forms_and_shown() {
        assert_eq!(
            parse("postgres://u@h/d?schema=lab_b").unwrap()["schema"],
            "lab_b"
        );
        assert_eq!(
            parse("host=h schema=lab_c dbname=d").unwrap()["schema"],
            "lab_c"
        );
        assert_eq!(classify("schema=x host=h"), Ok(DbKind::Postgres));
        assert_eq!(
            display("postgres://u:pw@h/d?sslmode=require&schema=lab_b"),
            "postgres://u@h/d?schema=lab_b"
        );
        // A service file may name it too.
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("svc.conf");
        std::fs::write(&f, "[lab]\nhost=db.lab\nschema=fleet\n").unwrap();
        let s = resolve_with(
            "service=lab",
            &[("PGSERVICEFILE", f.to_str().unwrap())],
            None,
        );
        assert_eq!(s.get("schema"), Some("fleet"));
    }

    #[test]
    fn display_keeps_the_service_and_schema_that_name_the_store() {
        assert_eq!(display("service=lab"), "postgres://?service=lab");
        assert_eq!(
            display("service=lab schema=fleet password=x"),
            "postgres://?service=lab&schema=fleet"
        );
        // Read back, it names the same service.
        assert_eq!(
            parse(&display("service=lab"))
                .unwrap()
                .get("service")
                .map(String::as_str),
            Some("lab")
        );
    }

    #[test]
    fn display_never_holds_the_password_in_any_form() {
        for s in [
            format!("postgres://lab:{PW}@db.lab:5433/slc"),
            "postgres://lab:s3nt1n3l%40%3A%2Fpw@db.lab/slc".to_string(),
            format!("postgres://db.lab/slc?password={PW}"),
            "postgres://db.lab/slc?password=s3nt1n3l%40%3A%2Fpw&sslmode=require".to_string(),
            format!("host=db.lab user=lab password='{PW}' dbname=slc"),
            format!("postgres://lab:{PW}@db.lab/slc?bogus=1"),
            format!("host=db.lab password='{PW}"),
            "postgres://lab:s3nt1n3l?pw@db.lab/slc".to_string(),
        ] {
            let d = display(&s);
            for frag in ["s3nt1n3l", "%40%3A", "pw@"] {
                assert!(!d.contains(frag), "{s} -> {d}");
            }
            assert!(
                d.starts_with("postgres://") || d.starts_with("a PostgreSQL"),
                "{d}"
            );
            if let Err(e) = parse(&s) {
                assert!(!e.contains("s3nt1n3l"), "{e}");
            }
        }
        assert_eq!(
            display(&format!("postgres://lab:{PW}@db.lab:5433/slc")),
            "postgres://lab@db.lab:5433/slc"
        );
    }

    #[test]
    fn environment_fills_in_and_string_wins() {
        let s = resolve_with(
            "postgres://lab@db.lab/slc",
            &[
                ("PGPASSWORD", PW),
                ("PGPORT", "6543"),
                ("PGHOST", "other"),
                ("PGSSLMODE", "verify-full"),
            ],
            None,
        );
        assert_eq!(s.get("password"), Some(PW));
        assert_eq!(s.get("host"), Some("db.lab"));
        assert_eq!(s.ports().unwrap(), vec![6543]);
        assert_eq!(s.get("sslmode"), Some("verify-full"));
        assert!(!format!("{s:?}").contains("s3nt1n3l"));
    }

    #[test]
    fn pgpass_matches_with_wildcards_and_escapes_and_needs_0600() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join(".pgpass");
        std::fs::write(
            &f,
            "# comment\nother:*:*:*:nope\ndb.lab:5432:slc:lab:s3nt1n3l@\\:/pw\n*:*:*:*:fallback\n",
        )
        .unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
        let s = resolve_with("postgres://lab@db.lab/slc", &[], Some(d.path()));
        assert_eq!(s.get("password"), Some(PW));
        let s = resolve_with("host=elsewhere user=x", &[], Some(d.path()));
        assert_eq!(s.get("password"), Some("fallback"));
        // PGPASSFILE wins over ~/.pgpass.
        let g = d.path().join("other");
        std::fs::write(&g, "*:*:*:*:from-env-file\n").unwrap();
        std::fs::set_permissions(&g, std::fs::Permissions::from_mode(0o600)).unwrap();
        let s = resolve_with(
            "postgres://lab@db.lab/slc",
            &[("PGPASSFILE", g.to_str().unwrap())],
            Some(d.path()),
        );
        assert_eq!(s.get("password"), Some("from-env-file"));
        // Readable by others: ignored, with a note.
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
        let s = resolve_with("postgres://lab@db.lab/slc", &[], Some(d.path()));
        assert_eq!(s.get("password"), None);
        assert!(s.notes[0].contains("chmod 0600"), "{:?}", s.notes);
    }

    #[test]
    fn a_service_file_gives_what_the_string_leaves_out() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("svc.conf");
        std::fs::write(
            &f,
            "[other]\nhost=x\n[lab]\nhost=db.lab\nport=5433\ndbname=slc\nuser=lab\n",
        )
        .unwrap();
        let s = resolve_with(
            "service=lab dbname=mine",
            &[("PGSERVICEFILE", f.to_str().unwrap())],
            None,
        );
        assert_eq!(s.get("host"), Some("db.lab"));
        assert_eq!(s.get("dbname"), Some("mine"));
        let e = resolve(
            "service=nosuch",
            &Sources {
                env: &env_of(&[("PGSERVICEFILE", f.to_str().unwrap())]),
                home: None,
            },
        )
        .unwrap_err();
        assert!(e.contains("no service 'nosuch'"), "{e}");
    }
}
