//! Listing, reading and removing runs: the filters, the rows, `--since`.

use super::*;

pub(super) const ROW_COLUMNS: &str =
    "id, kind, COALESCE(started_at, recorded_at), recorded_at, model, \
    serial, firmware, capacity_bytes, target, label, host, cache_bytes, cache_low_bytes, \
    cache_high_bytes, cache_lower_bound_bytes, in_cache_bytes_per_sec, \
    after_cache_bytes_per_sec, data_units_written, percentage_used, interrupted, source_dir";

/// The listing's columns: [`ROW_COLUMNS`], then the tags, the findings and the workload, read
/// from the stored summary (no columns of their own), then the run's own start time.
pub(super) fn row_columns(d: Dialect) -> String {
    let json = |path: &[&str]| match d {
        Dialect::Sqlite => format!("json_extract(summary, '$.{}')", path.join(".")),
        Dialect::Postgres => format!(
            "(summary::jsonb -> {})::text",
            path.iter()
                .map(|p| format!("'{p}'"))
                .collect::<Vec<_>>()
                .join(" -> ")
        ),
    };
    format!(
        "{ROW_COLUMNS}, {}, {}, {}, started_at",
        json(&["origin", "tags"]),
        json(&["findings"]),
        json(&["run", "workload"])
    )
}

pub(super) fn row_of(r: &[Val]) -> RunRow {
    let s = |i: usize| r[i].as_str().map(String::from);
    RunRow {
        id: r[0].as_i64().unwrap_or_default(),
        kind: s(1).unwrap_or_default(),
        date: s(2).unwrap_or_default(),
        recorded_at: s(3).unwrap_or_default(),
        model: s(4),
        serial: s(5),
        firmware: s(6),
        capacity_bytes: r[7].as_i64(),
        target: s(8),
        label: s(9),
        host: s(10),
        cache_bytes: r[11].as_i64(),
        cache_low_bytes: r[12].as_i64(),
        cache_high_bytes: r[13].as_i64(),
        cache_lower_bound_bytes: r[14].as_i64(),
        in_cache_bytes_per_sec: r[15].as_f64(),
        after_cache_bytes_per_sec: r[16].as_f64(),
        data_units_written: r[17].as_i64(),
        percentage_used: r[18].as_i64(),
        interrupted: r[19].as_i64() == Some(1),
        source_dir: s(20),
        tags: s(21)
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default(),
        findings: s(22).and_then(|t| serde_json::from_str(&t).ok()),
        workload: s(23).and_then(|t| serde_json::from_str(&t).ok()),
        started_at: s(24),
    }
}

/// `--since`: a date (`2026-12-01`, from its midnight in the local time zone), a local date
/// and time (`2026-12-01T10:00`, `2026-12-01 10:00:00`), or an RFC 3339 time
/// (`2026-12-01T10:00:00Z`, `...+02:00`), as the UTC RFC 3339 text runs are compared with.
pub fn normalize_since(s: &str) -> Result<String> {
    use chrono::TimeZone;
    let s = s.trim();
    let utc =
        |t: chrono::DateTime<chrono::Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true);
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(s) {
        return Ok(utc(t.with_timezone(&chrono::Utc)));
    }
    let local = chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .map(|d| d.and_time(chrono::NaiveTime::MIN))
        .ok()
        .or_else(|| {
            [
                "%Y-%m-%dT%H:%M:%S%.f",
                "%Y-%m-%d %H:%M:%S%.f",
                "%Y-%m-%dT%H:%M",
                "%Y-%m-%d %H:%M",
            ]
            .iter()
            .find_map(|f| chrono::NaiveDateTime::parse_from_str(s, f).ok())
        });
    if let Some(t) = local {
        // A time the clock skipped (a spring-forward hour) is taken as the hour after it.
        let at = chrono::Local
            .from_local_datetime(&t)
            .earliest()
            .or_else(|| {
                chrono::Local
                    .from_local_datetime(&(t + chrono::Duration::hours(1)))
                    .earliest()
            });
        if let Some(at) = at {
            return Ok(utc(at.with_timezone(&chrono::Utc)));
        }
    }
    Err(crate::error::usage(format!(
        "--since '{s}': give a date (2026-12-01), a local date and time (2026-12-01T10:00 or \
         '2026-12-01 10:00:00') or an RFC 3339 time (2026-12-01T10:00:00Z, \
         2026-12-01T10:00:00+02:00)"
    )))
}

impl Store {
    /// Runs matching `f`, oldest first.
    pub fn list(&mut self, f: &Filter) -> Result<Vec<RunRow>> {
        let mut conds = Vec::new();
        let mut params = Vec::new();
        for (col, v) in [("serial", &f.serial), ("kind", &f.kind)] {
            if let Some(v) = v {
                params.push(Val::Text(Some(v.clone())));
                conds.push(format!("{col} = {}", self.b.placeholder(params.len())));
            }
        }
        if let Some(s) = &f.since {
            params.push(Val::Text(Some(normalize_since(s)?)));
            conds.push(format!(
                "COALESCE(started_at, recorded_at) >= {}",
                backend::typed_placeholder(
                    self.b.dialect(),
                    params.len(),
                    self.column_type("started_at").unwrap_or_default()
                )
            ));
        }
        let mut sql = format!("SELECT {} FROM runs", row_columns(self.b.dialect()));
        if !conds.is_empty() {
            sql += " WHERE ";
            sql += &conds.join(" AND ");
        }
        sql += " ORDER BY COALESCE(started_at, recorded_at), id";
        let rows = self.b.query(&sql, &params)?;
        // Drive, host and tags are matched here, not in SQL: SQLite's LIKE folds ASCII letters
        // only, and the tags are in the summary; so every letter folds the same on both
        // backends.
        let has = |v: &Option<String>, part: &str| {
            v.as_deref()
                .is_some_and(|v| v.to_lowercase().contains(&part.to_lowercase()))
        };
        Ok(rows
            .iter()
            .map(|r| row_of(r))
            .filter(|r| {
                f.drive
                    .as_deref()
                    .is_none_or(|d| has(&r.model, d) || has(&r.label, d))
            })
            .filter(|r| f.host.as_deref().is_none_or(|h| has(&r.host, h)))
            .filter(|r| f.tags.iter().all(|(k, v)| r.tags.get(k) == Some(v)))
            .collect())
    }

    /// Everything stored for run `id`.
    pub fn get(&mut self, id: i64) -> Result<StoredRun> {
        let (mut run, deflated) = self.get_deflated(id)?;
        for (name, data) in deflated {
            let data =
                inflate(&data).with_context(|| format!("run {id}: reading the stored {name}"))?;
            run.files.insert(name, data);
        }
        Ok(run)
    }

    /// Run `id` as [`Store::get`] gives it, but with no files in it: they come apart, as
    /// stored (deflated, by name), for a caller that inflates one at a time.
    pub(super) fn get_deflated(&mut self, id: i64) -> Result<(StoredRun, DeflatedFiles)> {
        let p = self.b.placeholder(1);
        // The summary verbatim: `summary_text` where `summary` is jsonb (which keeps neither
        // the spacing nor the order of keys).
        let summary = match self.column_type("summary_text") {
            Some(_) => "summary_text",
            None => "summary",
        };
        let rows = self.b.query(
            &format!(
                "SELECT {}, {summary}, render FROM runs WHERE id = {p}",
                row_columns(self.b.dialect())
            ),
            &[Val::Int(Some(id))],
        )?;
        let r = rows.first().ok_or(StoreError::NoSuchRun(id))?;
        let n = r.len();
        let summary = r[n - 2].as_str().unwrap_or_default().to_string();
        let render = r[n - 1]
            .as_str()
            .map(serde_json::from_str)
            .transpose()
            .context("reading the stored render options")?;
        let mut files = Vec::new();
        for f in self.b.query(
            &format!("SELECT name, data FROM run_files WHERE run_id = {p} ORDER BY name"),
            &[Val::Int(Some(id))],
        )? {
            let name = f[0].as_str().unwrap_or_default().to_string();
            // The bytes themselves, not a copy: a long run's timeline.csv is held once.
            let data = match f.into_iter().nth(1) {
                Some(Val::Blob(Some(b))) => b,
                _ => Vec::new(),
            };
            files.push((name, data));
        }
        Ok((
            StoredRun {
                row: row_of(r),
                summary,
                render,
                files: BTreeMap::new(),
            },
            files,
        ))
    }

    /// Removes run `id` and its files.
    pub fn remove(&mut self, id: i64) -> Result<()> {
        let p = self.b.placeholder(1);
        self.b.begin_write()?;
        let r = (|| -> Result<u64> {
            self.b.execute(
                &format!("DELETE FROM run_files WHERE run_id = {p}"),
                &[Val::Int(Some(id))],
            )?;
            self.b.execute(
                &format!("DELETE FROM runs WHERE id = {p}"),
                &[Val::Int(Some(id))],
            )
        })();
        match r {
            Ok(0) => {
                self.b.rollback();
                Err(StoreError::NoSuchRun(id).into())
            }
            Ok(_) => self.b.commit(),
            Err(e) => {
                self.b.rollback();
                Err(e)
            }
        }
    }
}

/// A run's stored files as stored: (name, deflated bytes), in the order of their names.
pub(super) type DeflatedFiles = Vec<(String, Vec<u8>)>;
