//! Recording a finished folder, importing one, copying a run between stores: the row's
//! figures read from `summary.json`, the files compressed, the timeline's rows.

use super::*;

/// The kind of run a `summary.json` describes.
pub fn kind_of(summary: &serde_json::Value) -> String {
    let cmd = summary["config"]["command"]
        .as_str()
        .or_else(|| summary["command"].as_str());
    match cmd {
        Some(c) => c.replace('_', "-"),
        None => "probe".into(),
    }
}

/// The listing's fields read from a `summary.json` (any kind; missing ones are `None`).
#[derive(Debug, Default)]
pub(super) struct Fields {
    started_at: Option<String>,
    interrupted: bool,
    model: Option<String>,
    serial: Option<String>,
    firmware: Option<String>,
    capacity_bytes: Option<i64>,
    target: Option<String>,
    label: Option<String>,
    cache_bytes: Option<i64>,
    cache_low_bytes: Option<i64>,
    cache_high_bytes: Option<i64>,
    cache_lower_bound_bytes: Option<i64>,
    in_rate: Option<f64>,
    after_rate: Option<f64>,
    data_units_written: Option<i64>,
    percentage_used: Option<i64>,
    bytes_written: Option<i64>,
    /// JSON text: the run's tags (an array or an object), where the summary has them.
    tags: Option<String>,
    /// The workload in a few words, as `runs` shows it (`randwrite 4K QD32`), where the
    /// summary has one.
    workload: Option<String>,
    /// 1 where the findings hedge the cache's size ([`crate::detect::Findings::cache_hedged`]),
    /// else 0.
    cache_hedged: i64,
    /// What the rate after the cache leaves out or may not be
    /// ([`crate::detect::Findings::after_caveat_set`]): the row's `after_marks` bits.
    after_caveats: crate::detect::AfterCaveats,
}

pub(super) fn int(v: &serde_json::Value) -> Option<i64> {
    v.as_i64()
        .or_else(|| v.as_u64().and_then(|x| i64::try_from(x).ok()))
        .or_else(|| {
            v.as_f64()
                .filter(|x| x.abs() < 9e18)
                .map(|x| x.round() as i64)
        })
}

pub(super) fn text(v: &serde_json::Value) -> Option<String> {
    v.as_str()
        .filter(|s| !s.trim().is_empty())
        .map(String::from)
}

impl Fields {
    fn of(s: &serde_json::Value) -> Fields {
        let dev = &s["run"]["device"];
        let a = &s["analysis"];
        let c = &a["cache_estimate"];
        let cliff = &a["cliffs"][0];
        let smart = &s["drive_state"]["smart_end"];
        // The findings, as every output states them: from the summary's own, else worked out
        // from its analysis; a summary too old for either gives what its analysis holds.
        let findings = serde_json::from_value::<crate::detect::Findings>(s["findings"].clone())
            .ok()
            .or_else(|| {
                serde_json::from_value::<crate::detect::Analysis>(a.clone())
                    .ok()
                    .map(|a| crate::detect::Findings::of(&a))
            });
        let mut f = Fields {
            started_at: text(&s["run"]["started_at"]),
            interrupted: s["interrupted"].as_bool().unwrap_or(false),
            // A sweep of a drive model names no device: its drive is the model, simulated or
            // emulated, as the sweep's own title names it.
            model: text(&dev["model"]).or_else(|| {
                text(&s["config"]["model"]["model"]).map(|m| {
                    let how = if s["config"]["simulate"] == true {
                        "simulated"
                    } else {
                        "emulated"
                    };
                    format!("{m} ({how})")
                })
            }),
            serial: text(&dev["serial"]),
            firmware: text(&dev["firmware"]),
            capacity_bytes: int(&dev["capacity_bytes"]),
            target: text(&dev["path"]).or_else(|| text(&s["config"]["target"])),
            label: text(&s["run"]["label"]),
            cache_bytes: int(&c["bytes"]),
            cache_low_bytes: int(&c["low_bytes"]),
            cache_high_bytes: int(&c["high_bytes"]),
            cache_lower_bound_bytes: int(&a["cache_lower_bound_bytes"]),
            in_rate: cliff["before_bytes_per_sec"].as_f64(),
            after_rate: after_cache_rate(a),
            data_units_written: int(&smart["data_units_written"]),
            percentage_used: int(&smart["percentage_used"]),
            bytes_written: int(&s["totals"]["bytes"]),
            tags: [&s["origin"]["tags"], &s["run"]["tags"], &s["tags"]]
                .into_iter()
                .find(|t| t.is_array() || t.is_object())
                .map(|t| t.to_string()),
            workload: serde_json::from_value::<crate::timeline::Workload>(
                s["run"]["workload"].clone(),
            )
            .ok()
            .map(|w| w.in_words())
            .filter(|w| w != "-"),
            cache_hedged: 0,
            after_caveats: crate::detect::AfterCaveats::NONE,
        };
        if let Some(x) = findings {
            f.cache_hedged = i64::from(x.cache_hedged());
            f.after_caveats = x.after_caveat_set();
            use crate::detect::findings::Cache;
            let i = |b: u64| i64::try_from(b).ok();
            (f.cache_bytes, f.cache_low_bytes, f.cache_high_bytes) = match x.cache {
                Cache::Sized {
                    bytes,
                    low_bytes,
                    high_bytes,
                } => (i(bytes), i(low_bytes), i(high_bytes)),
                // A drop inside the first sample: its range, and no size.
                // (None where heat may hide its end: `heat_may_hide_end`.)
                Cache::Unconfirmed(ref d)
                    if d.at == crate::detect::DropWhere::FirstSample && !d.heat_may_hide_end() =>
                {
                    (None, i(d.bytes_low), i(d.bytes_high))
                }
                _ => (None, None, None),
            };
            f.cache_lower_bound_bytes = match &x.cache {
                Cache::AtLeast { bytes, .. } => i(*bytes),
                Cache::NoneOverWholeDrive { capacity_bytes, .. } => i(*capacity_bytes),
                // A drop inside the first sample bounds every tier that ran out in it
                // together, not the cache ([`crate::detect::Analysis::cache_lower_bound_bytes`]).
                Cache::Unconfirmed(d) if d.at != crate::detect::DropWhere::FirstSample => {
                    i(d.bytes_low)
                }
                _ => None,
            };
            // One rate only: a cache phase that heat left no one rate is its range, which no
            // median or history may take for a rate.
            f.in_rate = x
                .in_cache_bytes_per_sec
                .filter(|_| x.in_cache_range_bytes_per_sec.is_none());
            // A rate judged steady only: one too short to judge is no drive's figure for a
            // median or a history to take in (the findings keep it, said as such).
            f.after_rate = match &x.after {
                Some(crate::detect::findings::After::TooShort { .. }) => None,
                a => a.as_ref().and_then(|a| a.rate()),
            };
        }
        f
    }
}

/// The rate "after the cache" that a run's row holds for a summary too old to have findings:
/// the analysis's `after_cache` rate (after the last cliff), none when that stretch was not
/// steady (a blend of levels is no one rate; report.md gives its range); summaries written
/// before `after_cache` existed give their first cliff's rate after it.
fn after_cache_rate(a: &serde_json::Value) -> Option<f64> {
    let ac = &a["after_cache"];
    if ac.is_object() {
        if ac["steady_state"]["steady"] == false {
            return None;
        }
        return ac["mean_bytes_per_sec"].as_f64();
    }
    a["cliffs"][0]["after_bytes_per_sec"].as_f64()
}

/// An RFC 3339 time as a `timestamptz` holds it: in UTC, cut to its microseconds here, so that
/// the server has nothing to round (its rounding of a half microsecond, given as text, is not
/// a rule a copy could repeat); `None` for text that is no such time (an imported folder's).
pub(super) fn rfc3339_utc(s: &str) -> Option<String> {
    use chrono::SubsecRound;
    chrono::DateTime::parse_from_rfc3339(s.trim())
        .ok()
        .map(|t| {
            t.with_timezone(&chrono::Utc)
                .trunc_subsecs(6)
                .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
        })
}

/// Rows of `timeline` per statement (7 values each: well under PostgreSQL's 65,535
/// parameters).
pub(super) const TIMELINE_ROWS_PER_INSERT: usize = 1000;

/// Rows of `timeline` per `COPY`: a few megabytes of text each, so that what is held, and what
/// one statement sends, does not grow with the run.
pub(super) const TIMELINE_ROWS_PER_COPY: usize = 50_000;

/// Writes a run's `timeline.csv`, read from `csv` row by row, as rows of `timeline` (`n` counts
/// the samples from 0): with `COPY` where the backend has it (a million samples in a second or
/// two, where statements of rows take some ten), [`TIMELINE_ROWS_PER_COPY`] rows at a time,
/// else in statements of [`TIMELINE_ROWS_PER_INSERT`] rows. A file that is not slccache's own
/// CSV gives no rows: those written before the row that is not are deleted again (inside the
/// caller's transaction). Returns whether rows were written.
pub(super) fn insert_timeline(b: &mut dyn Backend, run_id: i64, csv: impl Read) -> Result<bool> {
    let copy = b.dialect() == Dialect::Postgres;
    let per = if copy {
        TIMELINE_ROWS_PER_COPY
    } else {
        TIMELINE_ROWS_PER_INSERT
    };
    let mut batch: Vec<crate::timeline::Sample> = Vec::with_capacity(per);
    let mut first = 0usize;
    let mut failed: Option<anyhow::Error> = None;
    let read = crate::timeline::read_slccache_rows(csv, "timeline.csv", |s, _| {
        batch.push(s);
        if batch.len() == per {
            if let Err(e) = insert_timeline_rows(b, run_id, first, &batch) {
                failed = Some(e);
                return Err(crate::timeline::import::ImportError::at(
                    "timeline.csv",
                    0,
                    "the store refused its rows".to_string(),
                ));
            }
            first += batch.len();
            batch.clear();
        }
        Ok(())
    });
    if let Some(e) = failed {
        return Err(e);
    }
    if read.is_err() {
        if first > 0 {
            let p = b.placeholder(1);
            b.execute(
                &format!("DELETE FROM timeline WHERE run_id = {p}"),
                &[Val::Int(Some(run_id))],
            )?;
        }
        return Ok(false);
    }
    insert_timeline_rows(b, run_id, first, &batch)?;
    Ok(true)
}

/// Writes `samples` as rows of `timeline`, the first one numbered `first`: one `COPY` where
/// the backend has it, else statements of [`TIMELINE_ROWS_PER_INSERT`] rows.
fn insert_timeline_rows(
    b: &mut dyn Backend,
    run_id: i64,
    first: usize,
    samples: &[crate::timeline::Sample],
) -> Result<()> {
    if samples.is_empty() {
        return Ok(());
    }
    if b.copy_in(
        "COPY timeline (run_id, n, t_s, bytes, bytes_per_sec, lat_p99_us, temp_c) FROM STDIN",
        &timeline_copy_text(run_id, first, samples),
    )?
    .is_some()
    {
        return Ok(());
    }
    for (chunk_no, chunk) in samples.chunks(TIMELINE_ROWS_PER_INSERT).enumerate() {
        let mut marks = Vec::with_capacity(chunk.len());
        let mut params = Vec::with_capacity(chunk.len() * 7);
        for (i, s) in chunk.iter().enumerate() {
            let n = (first + chunk_no * TIMELINE_ROWS_PER_INSERT + i) as i64;
            let base = params.len();
            marks.push(format!(
                "({})",
                (1..=7)
                    .map(|k| b.placeholder(base + k))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            params.extend([
                Val::Int(Some(run_id)),
                Val::Int(Some(n)),
                Val::Real(Some(s.t_s)),
                Val::Int(Some(i64::try_from(s.bytes).unwrap_or(i64::MAX))),
                Val::Real(Some(s.bytes_per_sec)),
                Val::Real(s.lat_p99_us),
                Val::Real(s.temp_c),
            ]);
        }
        b.execute(
            &format!(
                "INSERT INTO timeline (run_id, n, t_s, bytes, bytes_per_sec, lat_p99_us, \
                 temp_c) VALUES {}",
                marks.join(", ")
            ),
            &params,
        )?;
    }
    Ok(())
}

/// A run's timeline rows in `COPY`'s text format, the first numbered `first`: tab-separated
/// columns, `\N` for no value, each float in Rust's shortest form that reads back as the same
/// `f64` (NaN and the infinities in PostgreSQL's words), as the statements of rows would store
/// them.
pub(super) fn timeline_copy_text(
    run_id: i64,
    first: usize,
    samples: &[crate::timeline::Sample],
) -> Vec<u8> {
    use std::fmt::Write as _;
    let real = |out: &mut String, v: Option<f64>| match v {
        Some(x) if x.is_nan() => out.push_str("NaN"),
        Some(x) if x == f64::INFINITY => out.push_str("Infinity"),
        Some(x) if x == f64::NEG_INFINITY => out.push_str("-Infinity"),
        Some(x) => {
            let _ = write!(out, "{x:?}");
        }
        None => out.push_str("\\N"),
    };
    let mut out = String::with_capacity(samples.len() * 64);
    for (i, s) in samples.iter().enumerate() {
        let _ = write!(out, "{run_id}\t{}\t", first + i);
        real(&mut out, Some(s.t_s));
        let _ = write!(out, "\t{}\t", i64::try_from(s.bytes).unwrap_or(i64::MAX));
        real(&mut out, Some(s.bytes_per_sec));
        out.push('\t');
        real(&mut out, s.lat_p99_us);
        out.push('\t');
        real(&mut out, s.temp_c);
        out.push('\n');
    }
    out.into_bytes()
}

/// Schema version 2's fill: bytes written and tags of every run read from its summary, and,
/// where the store keeps timelines as rows, each run's stored `timeline.csv` written as rows.
pub(crate) fn fill_headline_and_timeline(b: &mut dyn Backend) -> Result<()> {
    let cols = b.columns("runs")?;
    let col = |n: &str| cols.iter().find(|(c, _)| c == n).map(|(_, t)| t.clone());
    let summary = if col("summary_text").is_some() {
        "summary_text"
    } else {
        "summary"
    };
    let d = b.dialect();
    let p = |i| b.placeholder(i);
    let set = format!(
        "UPDATE runs SET bytes_written = {}, tags = {} WHERE id = {}",
        p(1),
        backend::typed_placeholder(d, 2, &col("tags").unwrap_or_default()),
        p(3)
    );
    let one = format!("SELECT {summary} FROM runs WHERE id = {}", p(1));
    let csv = format!(
        "SELECT data FROM run_files WHERE run_id = {} AND name = 'timeline.csv'",
        p(1)
    );
    let rows = b.table_exists("timeline")?;
    for id in run_ids(b)? {
        let text = b.query(&one, &[Val::Int(Some(id))])?;
        let f = fields_of_summary(text.first().and_then(|r| r[0].as_str()).unwrap_or_default());
        b.execute(
            &set,
            &[
                Val::Int(f.bytes_written),
                Val::Text(f.tags),
                Val::Int(Some(id)),
            ],
        )?;
        if rows {
            let data = b.query(&csv, &[Val::Int(Some(id))])?;
            // A version-1 store keeps each file whole.
            if let Some(bytes) = data.first().and_then(|r| r[0].as_bytes()) {
                if let Ok(raw) = inflate(bytes) {
                    insert_timeline(b, id, raw.as_slice())?;
                }
            }
        }
    }
    Ok(())
}

/// What a run's row keeps of its summary for `runs --by` to read columns only: the workload in
/// words and whether the findings hedge the cache's size (schema version 5), and what the rate
/// after the cache leaves out or may not be (version 6).
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct GroupColumns {
    /// The `workload` column: the workload in words, where the summary has one.
    pub workload: Option<String>,
    /// The `cache_hedged` column.
    pub cache_hedged: bool,
    /// The `after_marks` column.
    pub after_caveats: crate::detect::AfterCaveats,
}

/// [`GroupColumns`] of a stored summary (JSON text), as [`fill_group_columns`] fills them; for
/// a store read as it is before version 6.
pub(super) fn group_columns_of(summary: &str) -> GroupColumns {
    let f = fields_of_summary(summary);
    GroupColumns {
        workload: f.workload,
        cache_hedged: f.cache_hedged == 1,
        after_caveats: f.after_caveats,
    }
}

/// The row's fields of a stored summary (JSON text); none of a summary that does not parse.
fn fields_of_summary(summary: &str) -> Fields {
    serde_json::from_str(summary)
        .map(|v: serde_json::Value| Fields::of(&v))
        .unwrap_or_default()
}

/// Every run's id, in order, for the fills that go over the store run by run.
fn run_ids(b: &mut dyn Backend) -> Result<Vec<i64>> {
    Ok(b.query("SELECT id FROM runs ORDER BY id", &[])?
        .iter()
        .filter_map(|r| r[0].as_i64())
        .collect())
}

/// Schema versions 5 and 6's fill: of every run, read from its stored summary once, each
/// [`GroupColumns`] column the store has (`workload` and `cache_hedged` of version 5,
/// `after_marks` of version 6). A store that takes both steps at once runs it once, after the
/// second ([`super::schema`]'s `apply`).
pub(crate) fn fill_group_columns(b: &mut dyn Backend) -> Result<()> {
    let cols = b.columns("runs")?;
    let has = |n: &str| cols.iter().any(|(c, _)| c == n);
    let summary = if has("summary_text") {
        "summary_text"
    } else {
        "summary"
    };
    let names: Vec<&str> = ["workload", "cache_hedged", "after_marks"]
        .into_iter()
        .filter(|n| has(n))
        .collect();
    if names.is_empty() {
        return Ok(());
    }
    let set = format!(
        "UPDATE runs SET {} WHERE id = {}",
        names
            .iter()
            .enumerate()
            .map(|(i, n)| format!("{n} = {}", b.placeholder(i + 1)))
            .collect::<Vec<_>>()
            .join(", "),
        b.placeholder(names.len() + 1)
    );
    let one = format!("SELECT {summary} FROM runs WHERE id = {}", b.placeholder(1));
    for id in run_ids(b)? {
        let text = b.query(&one, &[Val::Int(Some(id))])?;
        let f = fields_of_summary(text.first().and_then(|r| r[0].as_str()).unwrap_or_default());
        let mut values: Vec<Val> = names
            .iter()
            .map(|n| match *n {
                "workload" => Val::Text(f.workload.clone()),
                "cache_hedged" => Val::Int(Some(f.cache_hedged)),
                _ => Val::Int(Some(f.after_caveats.bits())),
            })
            .collect();
        values.push(Val::Int(Some(id)));
        b.execute(&set, &values)?;
    }
    Ok(())
}

pub(super) fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// One file of a folder being recorded, read when it is needed (a long run's `timeline.csv`
/// is read a piece at a time, never whole).
#[derive(Debug)]
pub(super) enum FolderFile {
    /// A file on disk, with its length when the folder was read.
    Disk(PathBuf, u64),
    /// Bytes in memory.
    Mem(Vec<u8>),
}

/// A run's folder: each file by its name relative to the folder, `/`-separated.
pub(super) type Folder = BTreeMap<String, FolderFile>;

impl FolderFile {
    /// Its length in bytes.
    pub(super) fn len(&self) -> u64 {
        match self {
            FolderFile::Disk(_, n) => *n,
            FolderFile::Mem(d) => d.len() as u64,
        }
    }

    /// Its bytes, read from the start.
    pub(super) fn open(&self) -> Result<Box<dyn Read + '_>> {
        Ok(match self {
            FolderFile::Disk(p, _) => Box::new(std::io::BufReader::with_capacity(
                1 << 16,
                std::fs::File::open(p).with_context(|| format!("reading {}", p.display()))?,
            )),
            FolderFile::Mem(d) => Box::new(d.as_slice()),
        })
    }

    /// All of its bytes (for the small files read as a whole: the summary, the reports, a
    /// chart's header).
    pub(super) fn bytes(&self) -> Result<std::borrow::Cow<'_, [u8]>> {
        Ok(match self {
            FolderFile::Disk(p, _) => std::borrow::Cow::Owned(
                std::fs::read(p).with_context(|| format!("reading {}", p.display()))?,
            ),
            FolderFile::Mem(d) => std::borrow::Cow::Borrowed(d.as_slice()),
        })
    }
}

/// The run's own files under `dir` (names relative, `/`-separated): those slccache writes
/// into a run folder (`summary.json`, the data files, charts and reports, `bursts/`:
/// [`is_run_file`]), skipping hidden ones (temporary files, locks) and every other file, a
/// user's own beside them, which is never stored; none of them is read yet.
pub(super) fn read_folder(dir: &Path) -> Result<Folder> {
    let mut out = BTreeMap::new();
    for (rel, path) in folder_files(dir)? {
        if !is_run_file(&rel) {
            continue;
        }
        let len = std::fs::metadata(&path)
            .with_context(|| format!("reading {rel}"))?
            .len();
        out.insert(rel, FolderFile::Disk(path, len));
    }
    Ok(out)
}

/// Whether `rel`, a name relative to a run folder, is a file slccache writes there (the one
/// list, [`crate::report::outputs::outdir::is_output_name`]): only those are recorded,
/// imported, spooled and exported.
pub fn is_run_file(rel: &str) -> bool {
    crate::report::outputs::outdir::is_output_name(rel)
}

/// The files under `dir` that are not a run's own ([`is_run_file`]; hidden ones left aside),
/// sorted: what recording or importing the folder leaves out.
pub fn not_run_files(dir: &Path) -> Result<Vec<String>> {
    let mut v: Vec<String> = folder_files(dir)?
        .into_iter()
        .map(|(rel, _)| rel)
        .filter(|rel| !is_run_file(rel))
        .collect();
    v.sort();
    Ok(v)
}

/// The names (relative, `/`-separated) and paths of the files [`read_folder`] reads, without
/// reading them.
pub(super) fn folder_files(dir: &Path) -> Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    while let Some((d, prefix)) = stack.pop() {
        let entries = std::fs::read_dir(&d).with_context(|| format!("reading {}", d.display()))?;
        for e in entries {
            let e = e.with_context(|| format!("reading {}", d.display()))?;
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let ft = e.file_type()?;
            let rel = format!("{prefix}{name}");
            if ft.is_dir() {
                stack.push((e.path(), format!("{rel}/")));
            } else if ft.is_file() {
                out.push((rel, e.path()));
            }
        }
    }
    Ok(out)
}

/// Reads up to `n` bytes from `r` into `buf` (cleared first); fewer only at its end.
fn read_piece(r: &mut dyn Read, n: usize, buf: &mut Vec<u8>) -> Result<usize> {
    buf.clear();
    r.take(n as u64).read_to_end(buf)?;
    Ok(buf.len())
}

/// The hash that identifies a run's content: SHA-256 over `summary.json` and every CSV file of
/// the folder (name, length, bytes), so the same run recorded at its end and imported later,
/// or imported twice, is one run. Each file is read a piece at a time.
pub(super) fn content_hash(folder: &Folder) -> Result<String> {
    let mut h = sha2::Sha256::new();
    let mut buf = Vec::new();
    for (name, file) in folder
        .iter()
        .filter(|(n, _)| n.as_str() == "summary.json" || n.ends_with(".csv"))
    {
        h.update((name.len() as u64).to_le_bytes());
        h.update(name.as_bytes());
        h.update(file.len().to_le_bytes());
        let mut r = file.open()?;
        let mut read = 0u64;
        while read_piece(&mut r, 1 << 20, &mut buf)? > 0 {
            h.update(&buf);
            read += buf.len() as u64;
        }
        if read != file.len() {
            anyhow::bail!("{name} changed while it was being recorded");
        }
    }
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// SHA-256 of one file of a folder, read a piece at a time.
fn file_hash(file: &FolderFile) -> Result<[u8; 32]> {
    let mut h = HashWriter(sha2::Sha256::new());
    std::io::copy(&mut file.open()?, &mut h)?;
    Ok(h.0.finalize().into())
}

/// A writer that hashes what it is given (a stored file, inflated into it a piece at a time).
struct HashWriter(sha2::Sha256);

impl Write for HashWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Store {
    /// The first run of this kind, with no start time, the same folder or label (`unstamped`:
    /// kind, folder, label) and a stored `timeline.csv` whose SHA-256 is `samples`: the same
    /// measurement as a run without a start time being recorded. Only such runs' timelines
    /// are read, each a piece at a time.
    fn same_samples(
        &mut self,
        unstamped: &(String, String, Option<String>),
        samples: &[u8; 32],
    ) -> Result<Option<i64>> {
        let (kind, source, label) = unstamped;
        let (p1, p2, p3) = (
            self.b.placeholder(1),
            self.b.placeholder(2),
            self.b.placeholder(3),
        );
        let ids: Vec<i64> = self
            .b
            .query(
                &format!(
                    "SELECT id FROM runs WHERE kind = {p1} AND started_at IS NULL \
                     AND (source_dir = {p2} OR label = {p3}) ORDER BY id"
                ),
                &[
                    Val::Text(Some(kind.clone())),
                    Val::Text(Some(source.clone())),
                    Val::Text(label.clone()),
                ],
            )?
            .iter()
            .filter_map(|r| r[0].as_i64())
            .collect();
        for id in ids {
            let stored = self.stored_files(id)?;
            let Some((_, parts)) = stored.iter().find(|(n, _)| n == "timeline.csv") else {
                continue;
            };
            let mut h = HashWriter(sha2::Sha256::new());
            self.write_stored_file(id, "timeline.csv", *parts, &mut h)?;
            if <[u8; 32]>::from(h.0.finalize()) == *samples {
                return Ok(Some(id));
            }
        }
        Ok(None)
    }
}

pub(super) fn deflate(data: &[u8]) -> Result<Vec<u8>> {
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data)?;
    Ok(e.finish()?)
}

/// Stores file `name` of run `id`: whole in `run_files` when it is no longer than `piece`
/// bytes (or the store keeps no pieces), else in `run_file_parts`, `piece` bytes at a time,
/// each deflated on its own, and a `run_files` row that counts them. Holds one piece.
fn store_file(
    b: &mut dyn Backend,
    id: i64,
    name: &str,
    file: &FolderFile,
    piece: Option<usize>,
) -> Result<()> {
    let p: Vec<String> = (1..=4).map(|i| b.placeholder(i)).collect();
    let whole = |b: &mut dyn Backend, data: Vec<u8>| {
        b.execute(
            &format!(
                "INSERT INTO run_files (run_id, name, data) VALUES ({}, {}, {})",
                p[0], p[1], p[2]
            ),
            &[
                Val::Int(Some(id)),
                Val::Text(Some(name.to_string())),
                Val::Blob(Some(data)),
            ],
        )
    };
    let piece = match piece {
        Some(n) if file.len() > n as u64 => n,
        _ => {
            let data = deflate(&file.bytes()?)?;
            whole(b, data)?;
            return Ok(());
        }
    };
    let mut r = file.open()?;
    let mut buf = Vec::with_capacity(piece);
    let mut parts = 0i64;
    while read_piece(&mut r, piece, &mut buf)? > 0 {
        b.execute(
            &format!(
                "INSERT INTO run_file_parts (run_id, name, part, data) VALUES ({}, {}, {}, {})",
                p[0], p[1], p[2], p[3]
            ),
            &[
                Val::Int(Some(id)),
                Val::Text(Some(name.to_string())),
                Val::Int(Some(parts)),
                Val::Blob(Some(deflate(&buf)?)),
            ],
        )?;
        parts += 1;
    }
    b.execute(
        &format!(
            "INSERT INTO run_files (run_id, name, data, parts) VALUES ({}, {}, {}, {})",
            p[0], p[1], p[2], p[3]
        ),
        &[
            Val::Int(Some(id)),
            Val::Text(Some(name.to_string())),
            Val::Blob(Some(PIECED.to_vec())),
            Val::Int(Some(parts)),
        ],
    )?;
    Ok(())
}

/// This machine's name, for the `host` column.
pub fn hostname() -> Option<String> {
    crate::origin::machine_name()
}

impl Store {
    /// Records a finished run folder (must hold `summary.json`). The same folder content
    /// recorded twice is stored once.
    pub fn record_folder(&mut self, dir: &Path, opts: &RecordOptions) -> Result<Recorded> {
        let folder = read_folder(dir)?;
        self.record_files(dir, &folder, opts)
    }

    /// Adds a folder written before the store existed, or copied from another machine, with
    /// its own date and host (`summary.json`; `host` where it names none). A probe, simulate
    /// or analyze folder is stored as a recorded one is (its timeline, the charts and reports
    /// drawn again on export) when the render options read from the folder draw every chart
    /// and report byte for byte as the folder holds them; otherwise every file is stored.
    pub fn import_folder(&mut self, dir: &Path) -> Result<Recorded> {
        self.import_folder_as(dir, None)
    }

    /// [`Store::import_folder`], with the host of a folder whose `summary.json` names none.
    pub fn import_folder_as(&mut self, dir: &Path, host: Option<&str>) -> Result<Recorded> {
        let folder = read_folder(dir)?;
        // A folder of another command (compare's) is no run: refused by its kind, so that
        // the store holds only the kinds it lists (`runs --kind`).
        let summary = folder.get("summary.json").map(|f| f.bytes()).transpose()?;
        if let Some(summary) = summary
            .as_deref()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(b).ok())
        {
            let kind = kind_of(&summary);
            if !KINDS.contains(&kind.as_str()) {
                let extra = if kind == "compare" {
                    "; import the runs it compares instead"
                } else {
                    ""
                };
                return Err(crate::error::usage(format!(
                    "a {kind} folder is no run: the store holds {} runs{extra}",
                    KINDS.join(", ")
                )));
            }
        }
        // A run already there is found before its charts are drawn again to check them.
        if folder.contains_key("summary.json") {
            let p = self.b.placeholder(1);
            let existing = self.b.query(
                &format!("SELECT id FROM runs WHERE content_hash = {p}"),
                &[Val::Text(Some(content_hash(&folder)?))],
            )?;
            if let Some(id) = existing.first().and_then(|r| r[0].as_i64()) {
                return Ok(Recorded::Existing(id));
            }
        }
        let render = derive_render(&folder)?;
        self.record_files(
            dir,
            &folder,
            &RecordOptions {
                render,
                host: host.map(String::from),
                ..RecordOptions::default()
            },
        )
    }

    /// Copies run `id` of this store into `to` with everything stored (its row, its date and
    /// the date it was recorded, its host, summary, render options and files); a run already
    /// there (the same content) is not added again. The stored files go through a scratch
    /// folder, one piece at a time.
    pub fn copy_run(&mut self, id: i64, to: &mut Store) -> Result<Recorded> {
        let run = self.get_meta(id)?;
        let scratch = Scratch::new()?;
        self.write_stored_files(id, &scratch.0)?;
        let mut folder = read_folder(&scratch.0)?;
        folder.insert(
            "summary.json".into(),
            FolderFile::Mem(run.summary.clone().into_bytes()),
        );
        let source = run.row.source_dir.clone().unwrap_or_default();
        to.record_files(
            Path::new(&source),
            &folder,
            &RecordOptions {
                recorded_at: Some(run.row.recorded_at.clone()),
                render: run.render.clone(),
                host: run.row.host.clone(),
                source_dir: Some(PathBuf::from(source.clone())),
            },
        )
    }
}

impl Store {
    /// Records a run's files (`folder`: names relative to the folder `dir`, as
    /// [`Store::record_folder`] reads them).
    fn record_files(
        &mut self,
        dir: &Path,
        folder: &Folder,
        opts: &RecordOptions,
    ) -> Result<Recorded> {
        let summary_text = folder.get("summary.json").ok_or_else(|| {
            anyhow::anyhow!("{}: no summary.json (not a run folder)", dir.display())
        })?;
        let summary_text = String::from_utf8(summary_text.bytes()?.into_owned())
            .with_context(|| format!("{}/summary.json is not UTF-8", dir.display()))?;
        let summary: serde_json::Value = serde_json::from_str(&summary_text)
            .with_context(|| format!("reading {}/summary.json", dir.display()))?;
        let hash = content_hash(folder)?;
        let kind = kind_of(&summary);
        // Charts are drawn again on export only where that gives the same bytes: a kind whose
        // charts come from its timeline and summary, with the command line its report.html
        // shows.
        let render = match &opts.render {
            Some(r)
                if matches!(kind.as_str(), "probe" | "simulate" | "analyze")
                    && folder.contains_key("timeline.csv") =>
            {
                match folder.get("report.html") {
                    None => Some(r.clone()),
                    Some(html) => html_command(&html.bytes()?).map(|command| RenderOptions {
                        command: Some(command),
                        ..r.clone()
                    }),
                }
            }
            _ => None,
        };
        let files: Vec<(&String, &FolderFile)> = folder
            .iter()
            .filter(|(n, _)| n.as_str() != "summary.json")
            .filter(|(n, _)| render.is_none() || !is_drawn(n))
            .collect();
        let f = Fields::of(&summary);
        // The host its summary names (every run since `origin` exists), else the one given.
        let host = crate::origin::of_summary(&summary)
            .map(|o| o.host)
            .filter(|h| !h.trim().is_empty())
            .or_else(|| opts.host.clone());
        let source = match &opts.source_dir {
            Some(s) => s.display().to_string(),
            None => dir
                .canonicalize()
                .unwrap_or_else(|_| dir.to_path_buf())
                .display()
                .to_string(),
        };
        let ph: Vec<String> = (1..=3).map(|i| self.b.placeholder(i)).collect();
        let typed = |t: Option<&str>| t == Some("timestamp with time zone");
        let started_at = if typed(self.column_type("started_at")) {
            f.started_at.as_deref().and_then(rfc3339_utc)
        } else {
            f.started_at.clone()
        };
        let summary_value = match self.column_type("summary") {
            // What jsonb cannot hold (a NUL in a string) stays in summary_text alone.
            Some("jsonb") if summary_text.contains("\\u0000") => None,
            _ => Some(summary_text.clone()),
        };
        // What finds the same measurement recorded with another analysis: its kind and start
        // time, and either its folder (analysed again in place, perhaps relabelled) or its
        // label (a copy of the folder analysed again keeps the label; a copy given a label of
        // its own is a run of its own). A run without a start time (a hand-made file analysed)
        // is the same measurement as one of that kind, folder or label and no start time whose
        // stored timeline.csv has the same bytes: its samples are all that identify it.
        let same_measurement: Option<(Vec<Val>, String)> = started_at.clone().map(|at| {
            let at_type = self.column_type("started_at").unwrap_or("text").to_string();
            (
                vec![
                    Val::Text(Some(kind.clone())),
                    Val::Text(Some(at)),
                    Val::Text(Some(source.clone())),
                    Val::Text(f.label.clone()),
                ],
                backend::typed_placeholder(self.b.dialect(), 2, &at_type),
            )
        });
        let same_samples: Option<[u8; 32]> = match folder.get("timeline.csv") {
            Some(t) if same_measurement.is_none() => Some(file_hash(t)?),
            _ => None,
        };
        let unstamped = (kind.clone(), source.clone(), f.label.clone());
        let values: Vec<(&str, Val)> = vec![
            ("content_hash", Val::Text(Some(hash.clone()))),
            ("kind", Val::Text(Some(kind))),
            (
                "recorded_at",
                Val::Text(Some(opts.recorded_at.clone().unwrap_or_else(now_rfc3339))),
            ),
            ("started_at", Val::Text(started_at)),
            ("interrupted", Val::Int(Some(i64::from(f.interrupted)))),
            ("model", Val::Text(f.model)),
            ("serial", Val::Text(f.serial)),
            ("firmware", Val::Text(f.firmware)),
            ("capacity_bytes", Val::Int(f.capacity_bytes)),
            ("target", Val::Text(f.target)),
            ("label", Val::Text(f.label)),
            ("host", Val::Text(host)),
            ("cache_bytes", Val::Int(f.cache_bytes)),
            ("cache_low_bytes", Val::Int(f.cache_low_bytes)),
            ("cache_high_bytes", Val::Int(f.cache_high_bytes)),
            (
                "cache_lower_bound_bytes",
                Val::Int(f.cache_lower_bound_bytes),
            ),
            ("in_cache_bytes_per_sec", Val::Real(f.in_rate)),
            ("after_cache_bytes_per_sec", Val::Real(f.after_rate)),
            ("data_units_written", Val::Int(f.data_units_written)),
            ("percentage_used", Val::Int(f.percentage_used)),
            ("source_dir", Val::Text(Some(source))),
            (
                "render",
                Val::Text(render.as_ref().map(serde_json::to_string).transpose()?),
            ),
            ("summary", Val::Text(summary_value)),
            ("summary_text", Val::Text(Some(summary_text.clone()))),
            ("bytes_written", Val::Int(f.bytes_written)),
            ("tags", Val::Text(f.tags)),
            ("workload", Val::Text(f.workload)),
            ("cache_hedged", Val::Int(Some(f.cache_hedged))),
            ("after_marks", Val::Int(Some(f.after_caveats.bits()))),
        ];
        // The columns this store has (an older one lacks the newest), each in its type.
        let mut names = Vec::new();
        let mut marks = Vec::new();
        let mut params = Vec::new();
        for (name, v) in values {
            if let Some(t) = self.column_type(name) {
                params.push(v);
                names.push(name);
                marks.push(backend::typed_placeholder(
                    self.b.dialect(),
                    params.len(),
                    t,
                ));
            }
        }
        let insert = format!(
            "INSERT INTO runs ({}) VALUES ({}) RETURNING id",
            names.join(", "),
            marks.join(", ")
        );
        let timeline = folder.get("timeline.csv").filter(|_| self.timeline_rows);
        let piece = self.file_parts.then_some(self.piece_bytes);
        self.b.begin_write()?;
        let r = (|| -> Result<Recorded> {
            let existing = self.b.query(
                &format!("SELECT id FROM runs WHERE content_hash = {}", ph[0]),
                &[Val::Text(Some(hash.clone()))],
            )?;
            if let Some(id) = existing.first().and_then(|r| r[0].as_i64()) {
                return Ok(Recorded::Existing(id));
            }
            // The same measurement with another analysis (analysed again in its own folder,
            // or in a copy of it): the same kind and start time, which is stamped to the
            // nanosecond (the microsecond in PostgreSQL) when the run starts, and the same
            // folder or label.
            if let Some((same, at_mark)) = &same_measurement {
                let found = self.b.query(
                    &format!(
                        "SELECT id FROM runs WHERE kind = {} AND started_at = {at_mark} \
                         AND (source_dir = {} OR label = {}) ORDER BY id LIMIT 1",
                        ph[0],
                        ph[2],
                        self.b.placeholder(4)
                    ),
                    same,
                )?;
                if let Some(id) = found.first().and_then(|r| r[0].as_i64()) {
                    return Ok(Recorded::SameMeasurement(id));
                }
            }
            if let Some(samples) = same_samples {
                if let Some(id) = self.same_samples(&unstamped, &samples)? {
                    return Ok(Recorded::SameMeasurement(id));
                }
            }
            let rows = self.b.query(&insert, &params)?;
            let id = rows
                .first()
                .and_then(|r| r[0].as_i64())
                .context("the store returned no id for the new run")?;
            // Each file a piece at a time, read from the folder as it is stored.
            for (name, file) in &files {
                store_file(self.b.as_mut(), id, name, file, piece)
                    .with_context(|| format!("storing {name}"))?;
            }
            if let Some(csv) = timeline {
                insert_timeline(self.b.as_mut(), id, csv.open()?)?;
            }
            Ok(Recorded::New(id))
        })();
        match r {
            Ok(Recorded::New(id)) => {
                self.b.commit()?;
                Ok(Recorded::New(id))
            }
            Ok(existing) => {
                self.b.rollback();
                Ok(existing)
            }
            Err(e) => {
                self.b.rollback();
                Err(e)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A time given to the nanosecond is cut to its microsecond, never rounded: a copy between
    /// stores compares it with the time it came from, and a half microsecond rounded by the
    /// server made the two differ by one.
    #[test]
    fn a_time_for_timestamptz_is_cut_to_its_microsecond() {
        assert_eq!(
            rfc3339_utc("2026-12-06T00:07:30.556568500Z").as_deref(),
            Some("2026-12-06T00:07:30.556568Z")
        );
        assert_eq!(
            rfc3339_utc("2026-12-06T01:07:30.556568999+01:00").as_deref(),
            Some("2026-12-06T00:07:30.556568Z")
        );
        assert_eq!(
            rfc3339_utc("2026-12-06T00:07:30Z").as_deref(),
            Some("2026-12-06T00:07:30Z")
        );
        assert_eq!(rfc3339_utc("yesterday"), None);
    }
}
