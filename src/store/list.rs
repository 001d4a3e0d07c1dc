//! Listing, reading and removing runs: the filters, the rows, `--since`.

use super::drive::DriveOf;
use super::*;

pub(super) const ROW_COLUMNS: &str =
    "id, kind, COALESCE(started_at, recorded_at), recorded_at, model, \
    serial, firmware, capacity_bytes, target, label, host, cache_bytes, cache_low_bytes, \
    cache_high_bytes, cache_lower_bound_bytes, in_cache_bytes_per_sec, \
    after_cache_bytes_per_sec, data_units_written, percentage_used, interrupted, source_dir";

/// [`ROW_COLUMNS`] with only what `runs --by` reads of a run (its id and date, its drive, its
/// host and its two figures); NULL in the place of the rest.
const COLUMNS_FOR_GROUPS: &str = "id, kind, COALESCE(started_at, recorded_at), NULL, model, \
    serial, NULL, capacity_bytes, target, label, host, cache_bytes, NULL, NULL, NULL, NULL, \
    after_cache_bytes_per_sec, NULL, NULL, interrupted, NULL";

/// The listing's columns: [`ROW_COLUMNS`], then the tags, the findings and the workload, then
/// the run's own start time (`runs --by drive` tells a re-analysis by it), then the workload
/// in words and whether the cache's size is hedged (their columns, schema version 5) and what
/// the rate after the cache leaves out or may not be (`after_marks`, version 6), then NULL; on
/// a store read as it is before version 6 (`summary_for_group`: the column that holds the
/// summary's text), NULL, NULL, NULL and the summary, from which [`row_of_owned`] reads all
/// three.
/// The tags come from their own column where the run has it filled (every run recorded or
/// migrated since schema version 2), else from the stored summary; the findings and the
/// workload from the summary, or NULL where `detail` leaves them out (reading them parses
/// every run's summary, which at a fleet's hundred thousand runs takes seconds).
pub(super) fn row_columns_with(
    d: Dialect,
    has_tags_column: bool,
    summary_for_group: Option<&str>,
    detail: Detail,
) -> String {
    let json = |path: &[&str]| json_at(d, path);
    let tags = tags_column(d, has_tags_column);
    // In `runs_listing` since version 6, as every column the listing reads but the tags.
    let group = match summary_for_group {
        None => "workload, cache_hedged, after_marks, NULL".to_string(),
        Some(summary) => format!("NULL, NULL, NULL, {summary}"),
    };
    match detail {
        Detail::Full => format!(
            "{ROW_COLUMNS}, {tags}, {}, {}, started_at, {group}",
            json(&["findings"]),
            json(&["run", "workload"])
        ),
        Detail::Tags => format!("{ROW_COLUMNS}, {tags}, NULL, NULL, started_at, {group}"),
        // On SQLite the columns added after the summary (tags among them) sit behind it in
        // the row: reading them reads the whole summary from its overflow pages, unless the
        // index holds them.
        Detail::Columns => format!("{COLUMNS_FOR_GROUPS}, NULL, NULL, NULL, started_at, {group}"),
    }
}

/// A summary's value at `path`, as JSON text.
fn json_at(d: Dialect, path: &[&str]) -> String {
    match d {
        Dialect::Sqlite => format!("json_extract(summary, '$.{}')", path.join(".")),
        Dialect::Postgres => format!(
            "(summary::jsonb -> {})::text",
            path.iter()
                .map(|p| format!("'{p}'"))
                .collect::<Vec<_>>()
                .join(" -> ")
        ),
    }
}

/// The run's tags as JSON text. A run recorded or migrated since schema version 2 has its
/// tags in their own column, NULL where it has none (its bytes_written column is filled); an
/// older one's are read from its summary.
fn tags_column(d: Dialect, has_tags_column: bool) -> String {
    match (has_tags_column, d) {
        (false, _) => json_at(d, &["origin", "tags"]),
        (true, Dialect::Sqlite) => format!(
            "CASE WHEN tags IS NOT NULL THEN tags WHEN bytes_written IS NOT NULL THEN NULL \
             ELSE {} END",
            json_at(d, &["origin", "tags"])
        ),
        (true, Dialect::Postgres) => format!(
            "CASE WHEN tags IS NOT NULL THEN tags::text WHEN bytes_written IS NOT NULL THEN \
             NULL ELSE {} END",
            json_at(d, &["origin", "tags"])
        ),
    }
}

/// [`row_columns_with`] for every column, the tags from the summary.
pub(super) fn row_columns(d: Dialect, summary_for_group: Option<&str>) -> String {
    row_columns_with(d, false, summary_for_group, Detail::Full)
}

/// How much of each run a listing reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// Everything a [`RunRow`] holds.
    Full,
    /// The row's columns and tags only: `findings` and `workload` are `None` (the runs and
    /// figures `runs --by tag:KEY` groups, which [`Store::each_for_grouping`] reads run by
    /// run).
    Tags,
    /// What grouping reads only (id, date, kind, drive, host, cache size and whether it is
    /// hedged, after-cache rate and what it leaves out or may not be, start, workload in
    /// words):
    /// the rest of the row is empty, and so are tags, `findings` and `workload` (the runs and
    /// figures `runs --by host|drive` groups, which [`Store::each_for_grouping`] reads run by
    /// run; the library page's list of the runs a store holds). A filter by tag reads the
    /// tags all the same.
    Columns,
}

/// `text` as a LIKE pattern matching any value that contains it (`%`, `_` and the escape
/// character escaped with `\`), where the database folds its case as Rust's `to_lowercase`
/// does: for ASCII text (SQLite's LIKE folds ASCII letters only). `None` otherwise: then only
/// the exact match in Rust applies.
fn contains_pattern(text: &str) -> Option<String> {
    if !text.is_ascii() {
        return None;
    }
    let mut p = String::from("%");
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            p.push('\\');
        }
        p.push(c);
    }
    p.push('%');
    Some(p)
}

/// Whether a run of this model, label, host and tags matches `f`'s drive, host and tags.
/// Drive, host and tags are matched here, not in SQL: SQLite's LIKE folds ASCII letters only,
/// and the tags are in the summary; so every letter folds the same on both backends.
fn keeps(
    f: &Filter,
    model: Option<&str>,
    label: Option<&str>,
    host: Option<&str>,
    tags: &BTreeMap<String, String>,
) -> bool {
    let has = |v: Option<&str>, part: &str| {
        v.is_some_and(|v| v.to_lowercase().contains(&part.to_lowercase()))
    };
    f.drive
        .as_deref()
        .is_none_or(|d| has(model, d) || has(label, d))
        && f.host.as_deref().is_none_or(|h| has(host, h))
        && f.tags.iter().all(|(k, v)| tags.get(k) == Some(v))
}

/// What a grouping groups runs by, as far as the store reads them
/// ([`Store::each_for_grouping`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grouped {
    /// The host that ran each.
    Host,
    /// The drive ([`super::drive`]).
    Drive,
    /// A tag's value.
    Tag,
}

/// What `runs --by` reads of a run, borrowed: from a [`RunRow`]
/// ([`RunRow::for_grouping`]), or from the row the backend holds
/// ([`Store::each_for_grouping`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroupRow<'a> {
    /// Run id.
    pub id: i64,
    /// Its kind and drive.
    pub drive: DriveOf<'a>,
    /// The machine that ran it.
    pub host: Option<&'a str>,
    /// Cache size, bytes.
    pub cache_bytes: Option<i64>,
    /// Whether the findings hedge that size ([`RunRow::cache_hedged`]).
    pub cache_hedged: bool,
    /// The workload in words ([`RunRow::workload_words`]).
    pub workload: Option<&'a str>,
    /// Rate after the cache, bytes/s.
    pub after_cache_bytes_per_sec: Option<f64>,
    /// What that rate leaves out or may not be ([`RunRow::after_caveats`]).
    pub after_caveats: crate::detect::AfterCaveats,
    /// Whether the run's findings say the stretch after the cache was too short to judge (its
    /// row holds no rate then; a row read without its findings says false).
    pub after_too_short: bool,
    /// When the measurement started ([`RunRow::started_at`]).
    pub started_at: Option<&'a str>,
    /// The lab's tags (empty where they were not read).
    pub tags: &'a BTreeMap<String, String>,
    /// Where the run falls in the store's order of runs (by when it started, or else was
    /// recorded, then by id), for runs read in no order ([`Store::each_for_grouping`]
    /// without `ORDER BY`, which would sort a fleet's runs for nothing but each drive's
    /// latest); `None` where runs are given oldest first, and where grouping needs no order
    /// (by host or by tag).
    pub at: Option<RunAt<'a>>,
}

/// When a run started, or else was recorded, as the store orders runs by it: PostgreSQL's
/// microseconds, or SQLite's text (which SQLite orders byte by byte, as `str` does). Runs of
/// one listing are all of one kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RunAt<'a> {
    /// A `timestamptz`, microseconds since 2000-01-01 UTC.
    Micros(i64),
    /// A time held as text.
    Text(&'a str),
}

impl RunRow {
    /// What grouping reads of the run.
    pub fn for_grouping(&self) -> GroupRow<'_> {
        GroupRow {
            id: self.id,
            drive: DriveOf::of(self),
            host: self.host.as_deref(),
            cache_bytes: self.cache_bytes,
            cache_hedged: self.cache_hedged,
            workload: self.workload_words.as_deref(),
            after_cache_bytes_per_sec: self.after_cache_bytes_per_sec,
            after_caveats: self.after_caveats,
            after_too_short: self.findings.as_ref().is_some_and(|f| {
                matches!(
                    f.after,
                    Some(crate::detect::findings::After::TooShort { .. })
                )
            }),
            started_at: self.started_at.as_deref(),
            tags: &self.tags,
            at: None,
        }
    }
}

pub(super) fn row_of(r: &[Val]) -> RunRow {
    row_of_owned(r.to_vec())
}

/// [`row_of`] taking the values, so that their text moves into the row uncopied (a listing of
/// a fleet's runs builds a hundred thousand rows).
pub(super) fn row_of_owned(mut r: Vec<Val>) -> RunRow {
    let mut s = |i: usize| match std::mem::replace(&mut r[i], Val::Int(None)) {
        Val::Text(t) => t,
        _ => None,
    };
    let (kind, date, recorded_at, model, serial, firmware) = (s(1), s(2), s(3), s(4), s(5), s(6));
    let (target, label, host, source_dir) = (s(8), s(9), s(10), s(20));
    let (tags, findings, workload, started_at) = (s(21), s(22), s(23), s(24));
    let group = match s(28) {
        // A store before schema version 6: from the summary, as its fill would.
        Some(summary) => super::record::group_columns_of(&summary),
        None => super::record::GroupColumns {
            workload: s(25),
            cache_hedged: r[26].as_i64() == Some(1),
            after_caveats: after_caveats_of(r[27].as_i64()),
        },
    };
    RunRow {
        id: r[0].as_i64().unwrap_or_default(),
        kind: kind.unwrap_or_default(),
        date: date.unwrap_or_default(),
        recorded_at: recorded_at.unwrap_or_default(),
        model,
        serial,
        firmware,
        capacity_bytes: r[7].as_i64(),
        target,
        label,
        host,
        cache_bytes: r[11].as_i64(),
        cache_low_bytes: r[12].as_i64(),
        cache_high_bytes: r[13].as_i64(),
        cache_lower_bound_bytes: r[14].as_i64(),
        in_cache_bytes_per_sec: r[15].as_f64(),
        after_cache_bytes_per_sec: r[16].as_f64(),
        data_units_written: r[17].as_i64(),
        percentage_used: r[18].as_i64(),
        interrupted: r[19].as_i64() == Some(1),
        source_dir,
        tags: tags
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default(),
        findings: findings.and_then(|t| serde_json::from_str(&t).ok()),
        workload: workload.and_then(|t| serde_json::from_str(&t).ok()),
        started_at,
        workload_words: group.workload,
        cache_hedged: group.cache_hedged,
        after_caveats: group.after_caveats,
    }
}

/// The `after_marks` column's value as caveats: none where it is NULL (a row an older
/// slccache wrote).
fn after_caveats_of(bits: Option<i64>) -> crate::detect::AfterCaveats {
    bits.map_or(
        crate::detect::AfterCaveats::NONE,
        crate::detect::AfterCaveats::from_bits,
    )
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
        self.list_with(f, Detail::Full)
    }

    /// How many runs the store holds.
    pub fn count(&mut self) -> Result<u64> {
        let rows = self.b.query("SELECT COUNT(*) FROM runs", &[])?;
        Ok(rows
            .first()
            .and_then(|r| r[0].as_i64())
            .unwrap_or_default()
            .max(0) as u64)
    }

    /// Runs matching `f`, oldest first, with as much of each as `detail` says.
    pub fn list_with(&mut self, f: &Filter, detail: Detail) -> Result<Vec<RunRow>> {
        let (conds, params) = self.conditions(f)?;
        let has_tags = self.column_type("tags").is_some();
        let summary_for_group = self.summary_for_group();
        let detail = match detail {
            Detail::Columns if !f.tags.is_empty() => Detail::Tags,
            d => d,
        };
        let sql = format!(
            "SELECT {} FROM runs{conds} ORDER BY COALESCE(started_at, recorded_at), id",
            row_columns_with(self.b.dialect(), has_tags, summary_for_group, detail)
        );
        let rows = self.b.query(&sql, &params)?;
        Ok(rows
            .into_iter()
            .map(row_of_owned)
            .filter(|r| {
                keeps(
                    f,
                    r.model.as_deref(),
                    r.label.as_deref(),
                    r.host.as_deref(),
                    &r.tags,
                )
            })
            .collect())
    }

    /// `None` where the store keeps each run's workload, hedge and after-cache caveats in
    /// columns (schema version 6); else the column that holds its summary's text, which they
    /// are read from (a store of version 5 holds the first two, but the summary is read for
    /// the third all the same, so all three come from it).
    fn summary_for_group(&self) -> Option<&'static str> {
        if self.column_type("after_marks").is_some() {
            None
        } else if self.column_type("summary_text").is_some() {
            Some("summary_text")
        } else {
            Some("summary")
        }
    }

    /// What `runs --by` reads of each run matching `f` ([`GroupRow`]: what grouping `by`
    /// needs, the rest empty), handed to `each` oldest first as the backend reads it: no row
    /// is kept, so that grouping a fleet's hundred thousand runs builds no row of each (the
    /// runs and figures are those of [`Store::list_with`] with [`Detail::Columns`], or
    /// [`Detail::Tags`]).
    pub fn each_for_grouping(
        &mut self,
        f: &Filter,
        by: Grouped,
        each: &mut dyn FnMut(&GroupRow<'_>),
    ) -> Result<()> {
        let (conds, params) = self.conditions(f)?;
        // A drive's columns for drives (model and label also for a filter by drive), the tags
        // for tags (or a filter by tag); NULL in the place of the rest.
        let drive = by == Grouped::Drive;
        let col = |name: &'static str, read: bool| if read { name } else { "NULL" };
        // The drive's columns by any grouping: a host's or a tag's group says how many drives
        // its medians mix.
        let (kind, target, serial) = (col("kind", true), col("target", true), col("serial", true));
        let (model, label) = (col("model", true), col("label", true));
        // The start time by any grouping: a run analysed again is one measurement of the
        // drive's, and of the host's or the tag's group.
        let (capacity, started) = (col("capacity_bytes", true), "started_at");
        // No `ORDER BY`: the groups' figures are medians, in no order, and sorting a fleet's
        // runs took the server most of the query's time. A drive's latest run (which names
        // it) is found by this column instead.
        let at = col("COALESCE(started_at, recorded_at)", drive);
        let tags = if f.tags.is_empty() && by != Grouped::Tag {
            "NULL".to_string()
        } else {
            let has_tags = self.column_type("tags").is_some();
            tags_column(self.b.dialect(), has_tags)
        };
        // Every group's sizes marked where hedged and rates where they leave heat out or may
        // not be sustained, and by drive each workload of a drive a group of its own: schema
        // versions 5 and 6's columns, or on a store read as it is before version 6, each
        // run's summary (read whole: such a store is one that no slccache of this version has
        // recorded into yet).
        let summary_for_group = self.summary_for_group();
        let (workload, hedged, marks) = match summary_for_group {
            None => ("workload", "cache_hedged", "after_marks"),
            Some(summary) => (summary, "NULL", "NULL"),
        };
        let sql = format!(
            "SELECT id, {kind}, {target}, {serial}, {model}, {label}, {capacity}, host, \
             cache_bytes, after_cache_bytes_per_sec, {started}, {tags}, {at}, {workload}, \
             {hedged}, {marks} FROM runs{conds}"
        );
        self.b.query_each(&sql, &params, &mut |r| {
            let (kind, target, serial) = (r.text(1)?, r.text(2)?, r.text(3)?);
            let (model, label, host) = (r.text(4)?, r.text(5)?, r.text(7)?);
            let started_at = r.text(10)?;
            let group = match summary_for_group {
                None => super::record::GroupColumns {
                    workload: r.text(13)?.map(std::borrow::Cow::into_owned),
                    cache_hedged: r.int(14)? == Some(1),
                    after_caveats: after_caveats_of(r.int(15)?),
                },
                Some(_) => match r.text(13)? {
                    Some(summary) => super::record::group_columns_of(&summary),
                    None => super::record::GroupColumns::default(),
                },
            };
            // Read once a row: PostgreSQL's microseconds, else SQLite's text.
            let micros = r.micros(12)?;
            let at_text = match micros {
                Some(_) => None,
                None => r.text(12)?,
            };
            let at = micros
                .map(RunAt::Micros)
                .or_else(|| at_text.as_deref().map(RunAt::Text));
            let tags: BTreeMap<String, String> = match r.text(11)? {
                Some(t) => serde_json::from_str(&t).unwrap_or_default(),
                None => BTreeMap::new(),
            };
            if !keeps(
                f,
                model.as_deref(),
                label.as_deref(),
                host.as_deref(),
                &tags,
            ) {
                return Ok(());
            }
            each(&GroupRow {
                id: r.int(0)?.unwrap_or_default(),
                drive: DriveOf {
                    kind: kind.as_deref().unwrap_or_default(),
                    target: target.as_deref(),
                    serial: serial.as_deref(),
                    model: model.as_deref(),
                    label: label.as_deref(),
                    capacity_bytes: r.int(6)?,
                },
                host: host.as_deref(),
                cache_bytes: r.int(8)?,
                cache_hedged: group.cache_hedged,
                workload: group.workload.as_deref(),
                after_cache_bytes_per_sec: r.real(9)?,
                after_caveats: group.after_caveats,
                after_too_short: false,
                started_at: started_at.as_deref(),
                tags: &tags,
                at,
            });
            Ok(())
        })
    }

    /// The `WHERE` clause (empty, or starting with a space) and its values that narrow a
    /// listing to the runs of `f`: serial, kind and `--since` exactly; host and drive by a
    /// pattern that matches every run [`keeps`] keeps.
    fn conditions(&mut self, f: &Filter) -> Result<(String, Vec<Val>)> {
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
        // Host and drive: narrowed in SQL by a pattern that matches every run the exact test
        // of `keeps` keeps (ILIKE on PostgreSQL, LIKE on SQLite, both folding ASCII letters),
        // so that a filter reads its runs' rows only.
        let like = match self.b.dialect() {
            Dialect::Sqlite => "LIKE",
            Dialect::Postgres => "ILIKE",
        };
        if let Some(p) = f.host.as_deref().and_then(contains_pattern) {
            params.push(Val::Text(Some(p)));
            let ph = self.b.placeholder(params.len());
            conds.push(format!("host {like} {ph} ESCAPE '\\'"));
        }
        if let Some(p) = f.drive.as_deref().and_then(contains_pattern) {
            params.push(Val::Text(Some(p)));
            let ph = self.b.placeholder(params.len());
            conds.push(format!(
                "(model {like} {ph} ESCAPE '\\' OR label {like} {ph} ESCAPE '\\')"
            ));
        }
        let conds = if conds.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", conds.join(" AND "))
        };
        Ok((conds, params))
    }

    /// Everything stored for run `id`, its files in memory (a long run's `timeline.csv`
    /// whole: [`Store::export`] and [`Store::write_stored_files`] write them a piece at a
    /// time instead).
    pub fn get(&mut self, id: i64) -> Result<StoredRun> {
        let mut run = self.get_meta(id)?;
        for (name, parts) in self.stored_files(id)? {
            let mut data = Vec::new();
            self.write_stored_file(id, &name, parts, &mut data)?;
            run.files.insert(name, data);
        }
        Ok(run)
    }

    /// Run `id` as [`Store::get`] gives it, but with no files in it.
    pub fn get_meta(&mut self, id: i64) -> Result<StoredRun> {
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
                row_columns(self.b.dialect(), self.summary_for_group())
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
        Ok(StoredRun {
            row: row_of(r),
            summary,
            render,
            files: BTreeMap::new(),
        })
    }

    /// The names of run `id`'s stored files, in order, each with the number of pieces it is
    /// stored in (`None`: whole, in its `run_files` row).
    pub(super) fn stored_files(&mut self, id: i64) -> Result<Vec<(String, Option<i64>)>> {
        let p = self.b.placeholder(1);
        let parts = if self.file_parts { "parts" } else { "NULL" };
        Ok(self
            .b
            .query(
                &format!("SELECT name, {parts} FROM run_files WHERE run_id = {p} ORDER BY name"),
                &[Val::Int(Some(id))],
            )?
            .into_iter()
            .map(|r| (r[0].as_str().unwrap_or_default().to_string(), r[1].as_i64()))
            .collect())
    }

    /// The names of run `id`'s stored files, in order (none read).
    pub fn stored_file_names(&mut self, id: i64) -> Result<Vec<String>> {
        self.get_meta(id)?;
        Ok(self.stored_files(id)?.into_iter().map(|(n, _)| n).collect())
    }

    /// The outputs run `id` is stored without, of those an export gives: none where its charts
    /// and reports are drawn again on export (render options kept); else `report.md`,
    /// `report.html` and `charts` (no `.png` or `.svg`), each where no such file is stored (a
    /// sweep, recovery or fill-sweep whose charts failed, a full disk, is recorded with its
    /// data only), for a recovery or fill sweep with some charts, each of its charts' files
    /// that is not (`recovery-bursts.png`), and any file the stored report.md links that is
    /// not stored (a folder imported after some of its charts were deleted).
    pub fn lacking_outputs(&mut self, id: i64) -> Result<Vec<String>> {
        let meta = self.get_meta(id)?;
        if meta.render.is_some() {
            return Ok(Vec::new());
        }
        let stored = self.stored_files(id)?;
        let names: Vec<String> = stored
            .iter()
            .map(|(n, _)| n.clone())
            .filter(|n| super::is_run_file(n))
            .collect();
        // What the stored report.md links and the store does not hold: a folder imported
        // after some of its charts were deleted exported a report that linked them.
        let mut linked_missing = Vec::new();
        if let Some((_, parts)) = stored.iter().find(|(n, _)| n == "report.md") {
            let mut md = Vec::new();
            self.write_stored_file(id, "report.md", *parts, &mut md)?;
            let md = String::from_utf8_lossy(&md);
            for link in md.split("](").skip(1).filter_map(|x| x.split(')').next()) {
                if super::is_run_file(link)
                    && !names.iter().any(|n| n == link)
                    && !linked_missing.iter().any(|l: &String| l == link)
                {
                    linked_missing.push(link.to_string());
                }
            }
        }
        let mut lacks: Vec<String> = ["report.md", "report.html"]
            .into_iter()
            .filter(|f| !names.iter().any(|n| n == f))
            .map(String::from)
            .collect();
        // The charts every recovery and fill sweep draws, each as PNG and SVG, named where
        // one is missing: a disk that filled up between two charts left some and not others.
        use crate::report::charts::ChartKind;
        let drawn: &[ChartKind] = match meta.row.kind.as_str() {
            "recovery" => &[ChartKind::Recovery, ChartKind::RecoveryBursts],
            "fill-sweep" => &[ChartKind::FillSweep, ChartKind::FillSweepBursts],
            _ => &[],
        };
        let charts = names
            .iter()
            .any(|n| n.ends_with(".png") || n.ends_with(".svg"));
        if !charts {
            lacks.push("charts".into());
        } else {
            for k in drawn {
                for ext in ["png", "svg"] {
                    let f = format!("{}.{ext}", k.file_stem());
                    if !names.contains(&f) && !linked_missing.contains(&f) {
                        lacks.push(f);
                    }
                }
            }
        }
        lacks.extend(linked_missing);
        Ok(lacks)
    }

    /// Inflates stored file `name` of run `id` into `out`: whole from its `run_files` row, or
    /// its `parts` pieces in order from `run_file_parts`, one piece read at a time.
    pub(super) fn write_stored_file(
        &mut self,
        id: i64,
        name: &str,
        parts: Option<i64>,
        out: &mut dyn Write,
    ) -> Result<()> {
        let (p1, p2, p3) = (
            self.b.placeholder(1),
            self.b.placeholder(2),
            self.b.placeholder(3),
        );
        let what = || format!("run {id}: reading the stored {name}");
        let inflate_into = |data: &[u8], out: &mut dyn Write| -> Result<()> {
            std::io::copy(&mut flate2::read::DeflateDecoder::new(data), out).with_context(what)?;
            Ok(())
        };
        let Some(parts) = parts else {
            let rows = self.b.query(
                &format!("SELECT data FROM run_files WHERE run_id = {p1} AND name = {p2}"),
                &[Val::Int(Some(id)), Val::Text(Some(name.to_string()))],
            )?;
            let data = rows
                .first()
                .and_then(|r| r[0].as_bytes())
                .unwrap_or_default();
            return inflate_into(data, out);
        };
        let sql = format!(
            "SELECT data FROM run_file_parts WHERE run_id = {p1} AND name = {p2} AND part = {p3}"
        );
        for part in 0..parts {
            let rows = self.b.query(
                &sql,
                &[
                    Val::Int(Some(id)),
                    Val::Text(Some(name.to_string())),
                    Val::Int(Some(part)),
                ],
            )?;
            let data = rows
                .first()
                .and_then(|r| r[0].as_bytes())
                .with_context(|| format!("{}: piece {part} of {parts} is missing", what()))?;
            inflate_into(data, out)?;
        }
        Ok(())
    }

    /// Writes run `id`'s stored files into `dir` (folders made), each inflated straight into
    /// its file a piece at a time; returns their paths. Only a run's own files
    /// ([`super::is_run_file`]): a file an older slccache stored from beside them (a user's
    /// own, in the run's folder) is left out, with one note on stderr.
    pub fn write_stored_files(&mut self, id: i64, dir: &Path) -> Result<Vec<PathBuf>> {
        let mut written = Vec::new();
        let (files, others): (Vec<_>, Vec<_>) = self
            .stored_files(id)?
            .into_iter()
            .partition(|(name, _)| super::is_run_file(name));
        if !others.is_empty() {
            let names: Vec<String> = others.into_iter().map(|(n, _)| n).collect();
            crate::note!(
                "slccache: note: run {id}: left out {}: not files slccache writes (an older \
                 slccache stored them from the run's folder)",
                names.join(", ")
            );
        }
        for (name, parts) in files {
            let p = stored_file_path(id, dir, &name)?;
            let mut out = std::io::BufWriter::new(
                std::fs::File::create(&p).with_context(|| format!("writing {}", p.display()))?,
            );
            self.write_stored_file(id, &name, parts, &mut out)?;
            out.flush()
                .with_context(|| format!("writing {}", p.display()))?;
            written.push(p);
        }
        Ok(written)
    }

    /// Removes run `id` and its files.
    pub fn remove(&mut self, id: i64) -> Result<()> {
        let p = self.b.placeholder(1);
        self.b.begin_write()?;
        let pieces = self.file_parts;
        let r = (|| -> Result<u64> {
            if pieces {
                self.b.execute(
                    &format!("DELETE FROM run_file_parts WHERE run_id = {p}"),
                    &[Val::Int(Some(id))],
                )?;
            }
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
