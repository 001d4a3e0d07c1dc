//! The store's behaviour, written once and run against SQLite (tests/store_sqlite.rs) and
//! PostgreSQL (tests/store_postgres.rs).

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Barrier};

use slccache::report::ReportOptions;
use slccache::store::{
    schema, Filter, Location, RecordOptions, Recorded, RenderOptions, Store, StoreError, Val,
};
use slccache::units::UnitSystem;

use super::{assert_same_folder, ok, simulate_folder, slccache};

/// Run folders made once per suite by the real binary.
pub struct Fixtures {
    _dir: tempfile::TempDir,
    /// `simulate 980pro-1tb`, default render options.
    pub sim_a: PathBuf,
    /// `simulate 970evo-500g --units binary --theme dark --png-size 800x450`.
    pub sim_b: PathBuf,
    /// Render options of `sim_b`.
    pub sim_b_render: RenderOptions,
    /// A real-time probe of an emulated drive.
    pub probe: PathBuf,
    /// `recovery --simulate` (stored verbatim).
    pub recovery: PathBuf,
    /// Copies of `sim_a` with serials S1, S2 and models "Alpha", "Beta" written in, from hosts
    /// lab-1, lab-2 and lab-1 (`origin.host`).
    pub tagged: Vec<PathBuf>,
}

impl Fixtures {
    /// Makes the folders (some ten seconds of the binary's time).
    pub fn make() -> Fixtures {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let unused = d.join("unused.db");
        let sim_a = d.join("sim-a");
        simulate_folder(&sim_a, "980pro-1tb", 1);
        let sim_b = d.join("sim-b");
        ok(slccache(&unused)
            .args([
                "simulate",
                "970evo-500g",
                "--seed",
                "2",
                "--units",
                "binary",
            ])
            .args(["--theme", "dark", "--png-size", "800x450", "--out"])
            .arg(&sim_b));
        let probe = d.join("probe");
        ok(slccache(&unused)
            .args([
                "probe",
                "emu:960evo-250g,cache=1GB",
                "--max-bytes",
                "2GB",
                "-q",
            ])
            .arg("--out")
            .arg(&probe));
        let recovery = d.join("recovery");
        ok(slccache(&unused)
            .args([
                "recovery",
                "emu:960evo-250g",
                "--simulate",
                "--idle",
                "10s,60s",
            ])
            .args(["--seed", "4", "-q", "--out"])
            .arg(&recovery));
        let mut tagged = Vec::new();
        for (i, (serial, model)) in [("S1", "Alpha 1TB"), ("S2", "Beta 2TB"), ("S1", "Alpha 1TB")]
            .iter()
            .enumerate()
        {
            let t = d.join(format!("tagged-{i}"));
            std::fs::create_dir(&t).unwrap();
            for f in ["timeline.csv", "report.md"] {
                std::fs::copy(sim_a.join(f), t.join(f)).unwrap();
            }
            let mut v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(sim_a.join("summary.json")).unwrap())
                    .unwrap();
            v["run"]["device"]["serial"] = (*serial).into();
            v["run"]["device"]["model"] = (*model).into();
            v["run"]["started_at"] = format!("2026-0{}-15T10:00:00Z", i + 1).into();
            // The host the store takes is the one the summary names.
            v["origin"]["host"] = if i == 1 { "lab-2" } else { "lab-1" }.into();
            std::fs::write(
                t.join("summary.json"),
                serde_json::to_string_pretty(&v).unwrap(),
            )
            .unwrap();
            tagged.push(t);
        }
        Fixtures {
            _dir: dir,
            sim_a,
            sim_b,
            sim_b_render: RenderOptions {
                units: UnitSystem::Binary,
                png_size: (800, 450),
                dark: true,
                command: None,
            },
            probe,
            recovery,
            tagged,
        }
    }
}

fn default_render() -> RenderOptions {
    RenderOptions::from(&ReportOptions::default())
}

fn recorded(render: RenderOptions) -> RecordOptions {
    RecordOptions {
        render: Some(render),
        host: Some("bench-1".into()),
        ..RecordOptions::default()
    }
}

fn count(store: &mut Store, sql: &str) -> i64 {
    store.backend().query(sql, &[]).unwrap()[0][0]
        .as_i64()
        .unwrap()
}

/// One case: a fresh store, the fixtures, a scratch folder.
pub type Case = fn(&Location, &Fixtures, &Path);

/// Every case, by name.
pub const CASES: &[(&str, Case)] = &[
    ("export_is_byte_identical", export_is_byte_identical),
    (
        "a_version_4_store_takes_version_5_with_workload_and_hedge",
        a_version_4_store_takes_version_5_with_workload_and_hedge,
    ),
    (
        "a_version_5_store_takes_version_6_with_after_marks",
        a_version_5_store_takes_version_6_with_after_marks,
    ),
    ("import_twice_adds_once", import_twice_adds_once),
    ("import_is_stored_as_recorded", import_is_stored_as_recorded),
    ("list_filters", list_filters),
    ("show_and_rm", show_and_rm),
    (
        "newer_schema_is_refused_unchanged",
        newer_schema_is_refused_unchanged,
    ),
    (
        "migration_runs_in_one_transaction",
        migration_runs_in_one_transaction,
    ),
    (
        "a_breaking_step_waits_for_db_migrate",
        a_breaking_step_waits_for_db_migrate,
    ),
    ("four_recorders_at_once", four_recorders_at_once),
    (
        "filters_narrowed_in_sql_keep_exact_matches",
        filters_narrowed_in_sql_keep_exact_matches,
    ),
    (
        "no_stored_value_grows_with_the_file",
        no_stored_value_grows_with_the_file,
    ),
    (
        "files_in_pieces_read_back_whole",
        files_in_pieces_read_back_whole,
    ),
    (
        "a_version_3_store_takes_version_4_and_keeps_its_runs",
        a_version_3_store_takes_version_4_and_keeps_its_runs,
    ),
    (
        "grouping_as_read_gives_the_groups_of_the_listed_rows",
        grouping_as_read_gives_the_groups_of_the_listed_rows,
    ),
];

/// The largest value stored for any file: of `run_files` and, where the store has it, of
/// `run_file_parts`.
fn largest_stored_value(s: &mut Store) -> i64 {
    let mut max = count(s, "SELECT MAX(length(data)) FROM run_files");
    if s.backend().table_exists("run_file_parts").unwrap() {
        let rows = s
            .backend()
            .query("SELECT MAX(length(data)) FROM run_file_parts", &[])
            .unwrap();
        max = max.max(rows[0][0].as_i64().unwrap_or(0));
    }
    max
}

/// `n` bytes that do not compress (a linear congruential generator's high bytes).
fn noise(n: usize) -> Vec<u8> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (x >> 56) as u8
        })
        .collect()
}

/// A copy of `src` in `dst`.
fn copy_folder(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), dst.join(e.file_name())).unwrap();
        }
    }
}

/// A file of 13 MB that does not compress, in a folder that is stored whole, is stored as
/// values of a few megabytes at most, never as one value of its length (which grows with a
/// run until the store's limit of 1 GB a value), and is exported byte for byte.
fn no_stored_value_grows_with_the_file(loc: &Location, fx: &Fixtures, work: &Path) {
    let big = work.join("big");
    copy_folder(&fx.recovery, &big);
    // A burst's timeline of 13 MB that does not compress (one of the run's own files: a
    // user's file beside them is not stored).
    std::fs::create_dir_all(big.join("bursts")).unwrap();
    std::fs::write(big.join("bursts/09-idle-30s.csv"), noise(13 << 20)).unwrap();
    let mut s = Store::open(loc).unwrap();
    let id = s.import_folder(&big).unwrap().id();
    let largest = largest_stored_value(&mut s);
    assert!(
        largest <= 5 << 20,
        "a stored value of {largest} bytes for a file of 13 MB"
    );
    let back = work.join("back");
    s.export(id, &back).unwrap();
    assert_same_folder(&big, &back);
}

/// With pieces of 1024 bytes, the timeline of a recorded run and every file of an imported
/// recovery are stored in pieces, none larger than a piece (deflated), their `run_files` rows
/// counting them; they read back whole (export, `get`, the timeline's rows on PostgreSQL), and
/// a removed run leaves none behind.
fn files_in_pieces_read_back_whole(loc: &Location, fx: &Fixtures, work: &Path) {
    const PIECE: usize = 1024;
    let mut s = Store::open(loc).unwrap().with_piece_bytes(PIECE);
    let a = s
        .record_folder(&fx.sim_a, &recorded(default_render()))
        .unwrap()
        .id();
    let r = s.import_folder(&fx.recovery).unwrap().id();
    let csv = std::fs::read(fx.sim_a.join("timeline.csv")).unwrap();
    assert!(csv.len() > 3 * PIECE, "{} bytes", csv.len());
    let parts = s
        .backend()
        .query(
            &format!("SELECT parts, length(data) FROM run_files WHERE run_id = {a}"),
            &[],
        )
        .unwrap();
    assert_eq!(parts.len(), 1, "only the timeline is stored");
    assert_eq!(parts[0][0].as_i64(), Some(csv.len().div_ceil(PIECE) as i64));
    assert_eq!(
        parts[0][1].as_i64(),
        Some(1),
        "the marker an older reader refuses"
    );
    assert!(count(&mut s, "SELECT COUNT(*) FROM run_file_parts") > parts[0][0].as_i64().unwrap());
    // Deflate adds a few bytes to a piece that does not compress.
    assert!(largest_stored_value(&mut s) <= PIECE as i64 + 64);
    assert_eq!(s.get(a).unwrap().files["timeline.csv"], csv);
    for (id, src) in [(a, &fx.sim_a), (r, &fx.recovery)] {
        let back = work.join(format!("back-{id}"));
        s.export(id, &back).unwrap();
        assert_same_folder(src, &back);
    }
    if s.backend().table_exists("timeline").unwrap() {
        let rows = s
            .backend()
            .query(
                &format!("SELECT COUNT(*), MAX(n) FROM timeline WHERE run_id = {a}"),
                &[],
            )
            .unwrap();
        let lines = csv.iter().filter(|&&c| c == b'\n').count() as i64 - 1;
        assert_eq!(rows[0][0].as_i64(), Some(lines));
        assert_eq!(rows[0][1].as_i64(), Some(lines - 1));
    }
    s.remove(r).unwrap();
    assert_eq!(
        count(
            &mut s,
            &format!("SELECT COUNT(*) FROM run_file_parts WHERE run_id = {r}")
        ),
        0
    );
}

/// A store of version 3 takes version 4 on its own (it only adds), leaving the
/// compatible-with version as it was, so older slccache goes on recording there; the runs it
/// held (each file one value) read as before, and a file stored in pieces is one that an
/// older slccache, which inflates the `run_files` value, fails to read rather than reading it
/// empty.
fn a_version_3_store_takes_version_4_and_keeps_its_runs(
    loc: &Location,
    fx: &Fixtures,
    work: &Path,
) {
    let v3 = &schema::MIGRATIONS[..3];
    let old = Store::open_with(loc.connect().unwrap(), v3)
        .unwrap()
        .import_folder(&fx.sim_a)
        .unwrap()
        .id();
    let before = schema::read_versions(loc.connect().unwrap().as_mut()).unwrap();
    assert_eq!(before.tables, 3);
    let mut s = Store::open_with(loc.connect().unwrap(), &schema::MIGRATIONS[..4])
        .unwrap()
        .with_piece_bytes(512);
    let after = schema::read_versions(s.backend()).unwrap();
    assert_eq!(
        after,
        schema::Versions {
            tables: 4,
            writers_from: before.writers_from
        }
    );
    let back = work.join("old");
    s.export(old, &back).unwrap();
    assert_same_folder(&fx.sim_a, &back);
    let new = s
        .record_folder(&fx.sim_b, &recorded(fx.sim_b_render.clone()))
        .unwrap()
        .id();
    let back = work.join("new");
    s.export(new, &back).unwrap();
    assert_same_folder(&fx.sim_b, &back);
    // What an older slccache reads of it: the one value of run_files, which must not inflate.
    let data = s
        .backend()
        .query(
            &format!("SELECT data FROM run_files WHERE run_id = {new} AND name = 'timeline.csv'"),
            &[],
        )
        .unwrap();
    let data = data[0][0].as_bytes().unwrap().to_vec();
    let mut out = Vec::new();
    assert!(
        std::io::Read::read_to_end(
            &mut flate2::read::DeflateDecoder::new(data.as_slice()),
            &mut out
        )
        .is_err(),
        "an older reader inflated {} bytes",
        out.len()
    );
    assert_eq!(s.list(&Filter::default()).unwrap().len(), 2);
}

/// A copy of `sim_a`'s folder at `dir` whose summary `edit` changed.
fn edited_copy(fx: &Fixtures, dir: &Path, edit: &dyn Fn(&mut serde_json::Value)) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    for f in ["timeline.csv", "report.md"] {
        std::fs::copy(fx.sim_a.join(f), dir.join(f)).unwrap();
    }
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fx.sim_a.join("summary.json")).unwrap())
            .unwrap();
    edit(&mut v);
    std::fs::write(dir.join("summary.json"), v.to_string()).unwrap();
    dir.to_path_buf()
}

/// A store of version 4 takes version 5 on its own (it only adds), leaving the compatible-with
/// version as it was: each run's workload in words and whether its cache size is hedged are
/// filled from its summary, `runs_listing` holds both (so that `runs --by drive` reads the
/// index, not the rows with their summaries), a run recorded, imported or copied since writes
/// them, and `runs --by drive` keeps a drive's workloads apart and counts its hedged sizes.
/// It takes version 6 in the same transaction, whose fill (version 5's own, run once after
/// both steps) fills `after_marks` too.
fn a_version_4_store_takes_version_5_with_workload_and_hedge(
    loc: &Location,
    fx: &Fixtures,
    work: &Path,
) {
    use slccache::commands::runs::{GroupBy, Grouping};
    use slccache::store::Grouped;
    let serial = |v: &mut serde_json::Value, start: &str| {
        v["run"]["device"]["serial"] = "W1".into();
        v["run"]["started_at"] = start.into();
    };
    let rand = edited_copy(fx, &work.join("rand"), &|v| {
        serial(v, "2026-01-01T00:00:00Z")
    });
    let seq = edited_copy(fx, &work.join("seq"), &|v| {
        serial(v, "2026-01-02T00:00:00Z");
        v["run"]["workload"]["pattern"] = "seqwrite".into();
        v["run"]["workload"]["block_size"] = 131072.into();
    });
    let hedged = edited_copy(fx, &work.join("hedged"), &|v| {
        serial(v, "2026-01-03T00:00:00Z");
        v["findings"]["first_sample_hides"] =
            serde_json::json!({ "bytes": 5_000_000_000u64, "interval_s": 120.0 });
    });
    let none = edited_copy(fx, &work.join("none"), &|v| {
        serial(v, "2026-01-04T00:00:00Z");
        v["run"].as_object_mut().unwrap().remove("workload");
    });
    let v4 = &schema::MIGRATIONS[..4];
    let mut old = Store::open_with(loc.connect().unwrap(), v4).unwrap();
    let ids: Vec<i64> = [&rand, &seq, &hedged, &none]
        .iter()
        .map(|f| old.import_folder(f).unwrap().id())
        .collect();
    drop(old);
    let before = schema::read_versions(loc.connect().unwrap().as_mut()).unwrap();
    assert_eq!(before.tables, 4);
    // By drive: one group per workload (none last), the hedged size counted.
    let groups = |s: &mut Store| -> Vec<(Option<String>, usize, usize, usize)> {
        let mut g = Grouping::new(GroupBy::Drive, UnitSystem::Decimal);
        s.each_for_grouping(&Filter::default(), Grouped::Drive, &mut |r| g.push(r))
            .unwrap();
        g.finish()
            .into_iter()
            .map(|g| {
                (
                    g.workload,
                    g.runs,
                    g.cache_hedged_runs,
                    g.cache_hedged_left_out_runs,
                )
            })
            .collect()
    };
    let want_groups = |rand: usize| {
        vec![
            // The hedged size left out of the median, the other run's not hedged.
            (Some("randwrite 4K QD32".to_string()), rand, 0, 1),
            (Some("seqwrite 128K QD32".to_string()), 1, 0, 0),
            (Some("-".to_string()), 1, 0, 0),
        ]
    };
    // A reading command on SQLite reads the store as it is, before version 5 (on PostgreSQL
    // it takes the step): the same groups, from the summaries.
    let mut as_is = Store::open_existing(loc).unwrap();
    assert_eq!(groups(&mut as_is), want_groups(2));
    let listed = slccache::commands::runs::group(
        &as_is.list(&Filter::default()).unwrap(),
        &GroupBy::Drive,
        UnitSystem::Decimal,
    );
    assert_eq!(
        listed
            .into_iter()
            .map(|g| {
                (
                    g.workload,
                    g.runs,
                    g.cache_hedged_runs,
                    g.cache_hedged_left_out_runs,
                )
            })
            .collect::<Vec<_>>(),
        want_groups(2)
    );
    drop(as_is);
    let mut s = Store::open(loc).unwrap();
    assert_eq!(
        schema::read_versions(s.backend()).unwrap(),
        schema::Versions {
            tables: 6,
            writers_from: before.writers_from
        }
    );
    let columns = |s: &mut Store, id: i64| -> (Option<String>, Option<i64>, Option<i64>) {
        let r = s
            .backend()
            .query(
                &format!("SELECT workload, cache_hedged, after_marks FROM runs WHERE id = {id}"),
                &[],
            )
            .unwrap();
        (
            r[0][0].as_str().map(String::from),
            r[0][1].as_i64(),
            r[0][2].as_i64(),
        )
    };
    let want = [
        (Some("randwrite 4K QD32".to_string()), Some(0), Some(0)),
        (Some("seqwrite 128K QD32".to_string()), Some(0), Some(0)),
        (Some("randwrite 4K QD32".to_string()), Some(1), Some(0)),
        (None, Some(0), Some(0)),
    ];
    for (id, w) in ids.iter().zip(&want) {
        assert_eq!(&columns(&mut s, *id), w, "run {id}");
    }
    // The index the listings read holds both columns (and version 6's after them).
    let index = listing_index(&mut s);
    assert!(
        index.ends_with("bytes_written, workload, cache_hedged, after_marks")
            || index.ends_with("bytes_written, workload, cache_hedged, after_marks)"),
        "{index}"
    );
    // Recorded, imported and copied since: the columns written.
    let rec = edited_copy(fx, &work.join("rec"), &|v| {
        serial(v, "2026-01-05T00:00:00Z")
    });
    let rec = s
        .record_folder(&rec, &RecordOptions::default())
        .unwrap()
        .id();
    assert_eq!(columns(&mut s, rec), want[0]);
    let mut other = Store::open(&Location::Sqlite(work.join("copy.db"))).unwrap();
    let copied = s.copy_run(ids[2], &mut other).unwrap().id();
    assert_eq!(columns(&mut other, copied), want[2]);
    assert_eq!(groups(&mut s), want_groups(3));
}

/// The columns of the index `runs_listing`, as the backend says them.
fn listing_index(s: &mut Store) -> String {
    use slccache::store::Dialect;
    match s.backend().dialect() {
        Dialect::Sqlite => s
            .backend()
            .query("SELECT name FROM pragma_index_info('runs_listing')", &[])
            .unwrap()
            .iter()
            .filter_map(|r| r[0].as_str().map(String::from))
            .collect::<Vec<_>>()
            .join(", "),
        Dialect::Postgres => s
            .backend()
            .query(
                "SELECT indexdef FROM pg_indexes WHERE indexname = 'runs_listing' \
                 AND schemaname = current_schema()",
                &[],
            )
            .unwrap()[0][0]
            .as_str()
            .unwrap()
            .to_string(),
    }
}

/// A store of version 5 takes version 6 on its own (it only adds), leaving the compatible-with
/// version as it was: what each run's rate after the cache leaves out or may not be is filled
/// from its summary (`after_marks`: 1 heat left out, 2 a slower tier may follow),
/// `runs_listing` holds it, a run recorded, imported or copied since writes it, and `runs --by`
/// marks an after-cache median that takes in a rate that left heat out `*` and one a slower
/// tier may follow `†`, as `runs` marks each such rate, counting those runs (a rate too short
/// to judge is in no median and counts for none). Read as it is before the step (a store a
/// role may not migrate; a reading command on SQLite), the same groups, from the summaries.
fn a_version_5_store_takes_version_6_with_after_marks(loc: &Location, fx: &Fixtures, work: &Path) {
    use slccache::commands::runs::{group, group_table, GroupBy, Grouping};
    use slccache::store::Grouped;
    let at = |v: &mut serde_json::Value, host: &str, start: &str| {
        v["origin"]["host"] = host.into();
        v["run"]["started_at"] = start.into();
    };
    // Throttled after the run's one cliff (at 28 s): left out of the rate after it.
    let heat = serde_json::json!([{ "from_s": 100.0, "to_s": 200.0 }]);
    assert!(
        fx_findings(fx)["steps"][0]["t_s"].as_f64().unwrap() < 100.0,
        "the fixture's cliff is before the throttling"
    );
    let heated = edited_copy(fx, &work.join("heated"), &|v| {
        at(v, "lab-1", "2026-02-01T00:00:00Z");
        v["findings"]["thermal_throttling"] = heat.clone();
    });
    let tiered = edited_copy(fx, &work.join("tiered"), &|v| {
        at(v, "lab-1", "2026-02-02T00:00:00Z");
        v["findings"]["slower_tier_may_follow"] = true.into();
    });
    let plain = edited_copy(fx, &work.join("plain"), &|v| {
        at(v, "lab-2", "2026-02-03T00:00:00Z");
    });
    let short = edited_copy(fx, &work.join("short"), &|v| {
        at(v, "lab-2", "2026-02-04T00:00:00Z");
        v["findings"]["thermal_throttling"] = heat.clone();
        v["findings"]["slower_tier_may_follow"] = true.into();
        v["findings"]["after"] = serde_json::json!({ "kind": "too_short", "bytes_per_sec": 1e9 });
    });
    let v5 = &schema::MIGRATIONS[..5];
    let mut old = Store::open_with(loc.connect().unwrap(), v5).unwrap();
    let ids: Vec<i64> = [&heated, &tiered, &plain, &short]
        .iter()
        .map(|f| old.import_folder(f).unwrap().id())
        .collect();
    let before = schema::read_versions(old.backend()).unwrap();
    assert_eq!(before.tables, 5);
    // By host: (host, runs, runs in the after-cache median, of them heat left out, of them a
    // slower tier may follow).
    type Seen = (String, usize, usize, usize, usize);
    let seen = |groups: Vec<slccache::commands::runs::Group>| -> Vec<Seen> {
        groups
            .into_iter()
            .map(|g| {
                (
                    g.group,
                    g.runs,
                    g.after_cache_bytes_per_sec.map_or(0, |a| a.runs),
                    g.after_heat_runs,
                    g.after_slower_tier_runs,
                )
            })
            .collect()
    };
    let groups = |s: &mut Store| -> Vec<slccache::commands::runs::Group> {
        let mut g = Grouping::new(GroupBy::Host, UnitSystem::Decimal);
        s.each_for_grouping(&Filter::default(), Grouped::Host, &mut |r| g.push(r))
            .unwrap();
        g.finish()
    };
    let want = |lab_1: usize, heated: usize| -> Vec<Seen> {
        vec![
            ("lab-1".into(), lab_1, lab_1, heated, 1),
            ("lab-2".into(), 2, 1, 0, 0),
        ]
    };
    // The table marks lab-1's median with both and says what each mark means; lab-2's has
    // none (its one marked rate was too short to judge).
    let marked = |groups: &[slccache::commands::runs::Group]| {
        let t = group_table(groups, &GroupBy::Host, UnitSystem::Decimal, None);
        let rows: Vec<&str> = t.lines().collect();
        assert!(
            rows[1].starts_with("lab-1") && rows[1].contains(" * †"),
            "{t}"
        );
        assert!(!rows[2].contains('*') && !rows[2].contains('†'), "{t}");
        assert!(
            t.contains("\n* after cache: heat left out\n† after cache: a slower tier may follow\n"),
            "{t}"
        );
    };
    // A store read as it is before version 6 (here by a slccache that knows version 5 only,
    // as a role that may not migrate reads it): the marks from the summaries.
    let as_read = groups(&mut old);
    assert_eq!(seen(as_read.clone()), want(2, 1));
    marked(&as_read);
    drop(old);
    // A reading command on SQLite reads the store as it is, before version 6 (on PostgreSQL
    // it takes the step): the same groups, whether grouped as read or from the listed rows.
    let mut as_is = Store::open_existing(loc).unwrap();
    let as_read = groups(&mut as_is);
    assert_eq!(seen(as_read.clone()), want(2, 1));
    marked(&as_read);
    let listed = group(
        &as_is.list(&Filter::default()).unwrap(),
        &GroupBy::Host,
        UnitSystem::Decimal,
    );
    assert_eq!(seen(listed), want(2, 1));
    drop(as_is);
    let mut s = Store::open(loc).unwrap();
    assert_eq!(
        schema::read_versions(s.backend()).unwrap(),
        schema::Versions {
            tables: 6,
            writers_from: before.writers_from
        }
    );
    let marks = |s: &mut Store, id: i64| -> Option<i64> {
        s.backend()
            .query(
                &format!("SELECT after_marks FROM runs WHERE id = {id}"),
                &[],
            )
            .unwrap()[0][0]
            .as_i64()
    };
    // The too-short run's rate keeps what it left out: said beside it, in no median.
    let want_marks = [Some(1), Some(2), Some(0), Some(3)];
    for (id, m) in ids.iter().zip(want_marks) {
        assert_eq!(marks(&mut s, *id), m, "run {id}");
    }
    // The index the listings read holds it, at its end.
    let index = listing_index(&mut s);
    assert!(
        index.ends_with("cache_hedged, after_marks")
            || index.ends_with("cache_hedged, after_marks)"),
        "{index}"
    );
    let migrated = groups(&mut s);
    assert_eq!(seen(migrated.clone()), want(2, 1));
    marked(&migrated);
    // Recorded, imported and copied since: the column written.
    let rec = edited_copy(fx, &work.join("rec"), &|v| {
        at(v, "lab-1", "2026-02-05T00:00:00Z");
        v["findings"]["thermal_throttling"] = heat.clone();
    });
    let rec = s
        .record_folder(&rec, &RecordOptions::default())
        .unwrap()
        .id();
    assert_eq!(marks(&mut s, rec), Some(1));
    let mut other = Store::open(&Location::Sqlite(work.join("copy.db"))).unwrap();
    let copied = s.copy_run(ids[1], &mut other).unwrap().id();
    assert_eq!(marks(&mut other, copied), Some(2));
    assert_eq!(seen(groups(&mut s)), want(3, 2));
}

/// The findings of the fixture `sim_a`, as its summary holds them.
fn fx_findings(fx: &Fixtures) -> serde_json::Value {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fx.sim_a.join("summary.json")).unwrap())
            .unwrap();
    v["findings"].clone()
}

/// Runs every case, each on a fresh store from `fresh`, and fails naming the cases that failed.
pub fn run_all(fresh: &mut dyn FnMut() -> Location) {
    let fx = Fixtures::make();
    let mut failed = Vec::new();
    for (name, case) in CASES {
        let loc = fresh();
        let work = tempfile::tempdir().unwrap();
        eprintln!("case {name}");
        let r = std::panic::catch_unwind(AssertUnwindSafe(|| case(&loc, &fx, work.path())));
        if r.is_err() {
            failed.push(*name);
        }
    }
    assert!(failed.is_empty(), "failed cases: {failed:?}");
}

/// A run recorded with its render options is exported byte for byte: simulate with default
/// and with changed options, a probe; a recovery folder (stored verbatim) too. Only the
/// timeline is stored for the drawn kinds.
fn export_is_byte_identical(loc: &Location, fx: &Fixtures, work: &Path) {
    let mut s = Store::open(loc).unwrap();
    let a = s
        .record_folder(&fx.sim_a, &recorded(default_render()))
        .unwrap();
    let b = s
        .record_folder(&fx.sim_b, &recorded(fx.sim_b_render.clone()))
        .unwrap();
    let p = s
        .record_folder(&fx.probe, &recorded(default_render()))
        .unwrap();
    let r = s
        .record_folder(&fx.recovery, &recorded(default_render()))
        .unwrap();
    for (rec, src) in [
        (a, &fx.sim_a),
        (b, &fx.sim_b),
        (p, &fx.probe),
        (r, &fx.recovery),
    ] {
        let Recorded::New(id) = rec else {
            panic!("{} was not new: {rec:?}", src.display())
        };
        let out = work.join(format!("export-{id}"));
        s.export(id, &out).unwrap();
        assert_same_folder(src, &out);
    }
    // The drawn kinds keep only their timeline; the recovery folder keeps every file but the
    // summary (held in the runs row).
    let files = |s: &mut Store, id: i64| {
        count(
            s,
            &format!("SELECT COUNT(*) FROM run_files WHERE run_id = {id}"),
        )
    };
    assert_eq!(files(&mut s, a.id()), 1);
    assert_eq!(files(&mut s, p.id()), 1);
    let rec_files = super::folder(&fx.recovery).len() as i64;
    assert_eq!(files(&mut s, r.id()), rec_files - 1);
}

/// An imported probe or simulate folder is stored as a recorded one is: its timeline only,
/// the render options read from the folder (units, PNG size, theme, command line), and its
/// export is the folder byte for byte; it keeps its own date and the host its summary names.
/// A folder whose charts cannot be drawn again the same (an edited chart) is stored whole, and
/// exported byte for byte too; one without `origin` (older) has the host given or none.
fn import_is_stored_as_recorded(loc: &Location, fx: &Fixtures, work: &Path) {
    let mut s = Store::open(loc).unwrap();
    let files = |s: &mut Store, id: i64| {
        count(
            s,
            &format!("SELECT COUNT(*) FROM run_files WHERE run_id = {id}"),
        )
    };
    let summary = |dir: &Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
    };
    let before = chrono::Utc::now() - chrono::Duration::seconds(2);
    for src in [&fx.sim_a, &fx.sim_b, &fx.probe] {
        let id = s.import_folder(src).unwrap().id();
        assert_eq!(
            files(&mut s, id),
            1,
            "{}: more than its timeline",
            src.display()
        );
        let render = s
            .backend()
            .query(&format!("SELECT render FROM runs WHERE id = {id}"), &[])
            .unwrap();
        assert!(
            render[0][0].as_str().is_some(),
            "{}: no render",
            src.display()
        );
        let out = work.join(format!("export-{id}"));
        s.export(id, &out).unwrap();
        assert_same_folder(src, &out);
        let v = summary(src);
        let row = s
            .list(&Filter::default())
            .unwrap()
            .into_iter()
            .find(|r| r.id == id)
            .unwrap();
        assert_eq!(
            row.host.as_deref(),
            v["origin"]["host"].as_str(),
            "{}",
            src.display()
        );
        let started =
            chrono::DateTime::parse_from_rfc3339(v["run"]["started_at"].as_str().unwrap()).unwrap();
        // To the microsecond: a PostgreSQL store keeps timestamptz, given the time cut to it.
        let us = |t: chrono::DateTime<chrono::FixedOffset>| {
            t.timestamp_nanos_opt().unwrap().div_euclid(1000)
        };
        assert_eq!(
            us(chrono::DateTime::parse_from_rfc3339(&row.date).unwrap()),
            us(started),
            "the run's own date: {} against {started}",
            row.date
        );
        let recorded = chrono::DateTime::parse_from_rfc3339(&row.recorded_at).unwrap();
        assert!(recorded >= before, "the import's date: {}", row.recorded_at);
    }
    // An older folder: no origin, one chart edited by hand.
    let old = work.join("old");
    std::fs::create_dir(&old).unwrap();
    for (name, data) in super::folder(&fx.sim_a) {
        std::fs::write(old.join(&name), data).unwrap();
    }
    let mut v = summary(&old);
    v.as_object_mut().unwrap().remove("origin");
    v["run"]["label"] = "old run".into();
    std::fs::write(
        old.join("summary.json"),
        serde_json::to_string_pretty(&v).unwrap(),
    )
    .unwrap();
    let svg = old.join("throughput-time.svg");
    let mut text = std::fs::read_to_string(&svg).unwrap();
    text.push_str(
        "<!-- edited -->
",
    );
    std::fs::write(&svg, text).unwrap();
    let id = s.import_folder_as(&old, Some("bench-old")).unwrap().id();
    assert_eq!(files(&mut s, id), super::folder(&old).len() as i64 - 1);
    let out = work.join("export-old");
    s.export(id, &out).unwrap();
    assert_same_folder(&old, &out);
    let host = |s: &mut Store, id: i64| {
        s.list(&Filter::default())
            .unwrap()
            .into_iter()
            .find(|r| r.id == id)
            .unwrap()
            .host
    };
    assert_eq!(host(&mut s, id).as_deref(), Some("bench-old"));
    // Another run (another folder: the same folder, kind and start time would be the same
    // measurement), imported without a host.
    let other = work.join("old-run-2");
    std::fs::create_dir_all(&other).unwrap();
    for (name, data) in super::folder(&old) {
        std::fs::write(other.join(&name), data).unwrap();
    }
    v["run"]["label"] = "old run 2".into();
    std::fs::write(
        other.join("summary.json"),
        serde_json::to_string_pretty(&v).unwrap(),
    )
    .unwrap();
    let id = s.import_folder(&other).unwrap().id();
    assert_eq!(host(&mut s, id), None);
    // The first folder analysed again (another summary, the same measurement) is not a
    // second run.
    v["run"]["label"] = "old run, analysed again".into();
    std::fs::write(
        old.join("summary.json"),
        serde_json::to_string_pretty(&v).unwrap(),
    )
    .unwrap();
    let first = s.list(&Filter::default()).unwrap().len();
    let again = s.import_folder(&old).unwrap();
    assert!(
        matches!(again, slccache::store::Recorded::SameMeasurement(_)),
        "{again:?}"
    );
    assert_eq!(s.list(&Filter::default()).unwrap().len(), first);
}

/// Importing the same folder twice adds it once; a run recorded at its end and imported later
/// is one run too.
fn import_twice_adds_once(loc: &Location, fx: &Fixtures, _work: &Path) {
    let mut s = Store::open(loc).unwrap();
    let first = s.import_folder(&fx.sim_a).unwrap();
    assert!(matches!(first, Recorded::New(_)), "{first:?}");
    assert_eq!(
        s.import_folder(&fx.sim_a).unwrap(),
        Recorded::Existing(first.id())
    );
    assert_eq!(
        s.record_folder(&fx.sim_a, &recorded(default_render()))
            .unwrap(),
        Recorded::Existing(first.id())
    );
    let other = s.import_folder(&fx.sim_b).unwrap();
    assert!(matches!(other, Recorded::New(_)));
    assert_eq!(s.list(&Filter::default()).unwrap().len(), 2);
    // A folder without summary.json is refused and adds nothing.
    let empty = tempfile::tempdir().unwrap();
    let e = s.import_folder(empty.path()).unwrap_err();
    assert!(format!("{e:#}").contains("summary.json"), "{e:#}");
    assert_eq!(s.list(&Filter::default()).unwrap().len(), 2);
}

/// `--drive`, `--serial`, `--host`, `--since` and `--kind` each narrow the list.
fn list_filters(loc: &Location, fx: &Fixtures, _work: &Path) {
    let mut s = Store::open(loc).unwrap();
    for (i, t) in fx.tagged.iter().enumerate() {
        let host = if i == 1 { "lab-2" } else { "lab-1" };
        s.record_folder(
            t,
            &RecordOptions {
                render: None,
                host: Some(host.into()),
                ..RecordOptions::default()
            },
        )
        .unwrap();
    }
    s.record_folder(&fx.recovery, &RecordOptions::default())
        .unwrap();
    let ids = |s: &mut Store, f: Filter| -> Vec<String> {
        s.list(&f)
            .unwrap()
            .iter()
            .map(|r| format!("{}:{}", r.serial.as_deref().unwrap_or("-"), r.kind))
            .collect()
    };
    assert_eq!(ids(&mut s, Filter::default()).len(), 4);
    assert_eq!(
        ids(
            &mut s,
            Filter {
                drive: Some("alpha".into()),
                ..Filter::default()
            }
        ),
        ["S1:simulate", "S1:simulate"]
    );
    assert_eq!(
        ids(
            &mut s,
            Filter {
                serial: Some("S2".into()),
                ..Filter::default()
            }
        ),
        ["S2:simulate"]
    );
    assert_eq!(
        ids(
            &mut s,
            Filter {
                host: Some("lab-2".into()),
                ..Filter::default()
            }
        ),
        ["S2:simulate"]
    );
    // The host matches by part of its name, in any case.
    assert_eq!(
        ids(
            &mut s,
            Filter {
                host: Some("AB-2".into()),
                ..Filter::default()
            }
        ),
        ["S2:simulate"]
    );
    assert_eq!(
        ids(
            &mut s,
            Filter {
                host: Some("Lab".into()),
                ..Filter::default()
            }
        )
        .len(),
        3
    );
    assert_eq!(
        ids(
            &mut s,
            Filter {
                kind: Some("recovery".into()),
                ..Filter::default()
            }
        ),
        ["-:recovery"]
    );
    // Tagged runs started 2026-01-15, -02-15, -03-15.
    let since = |s: &mut Store, d: &str| {
        ids(
            s,
            Filter {
                since: Some(d.into()),
                serial: Some("S1".into()),
                ..Filter::default()
            },
        )
        .len()
    };
    assert_eq!(since(&mut s, "2026-01-01"), 2);
    assert_eq!(since(&mut s, "2026-02-01"), 1);
    assert_eq!(since(&mut s, "2026-04-01"), 0);
    // A LIKE wildcard in --drive is taken literally.
    assert!(ids(
        &mut s,
        Filter {
            drive: Some("%".into()),
            ..Filter::default()
        }
    )
    .is_empty());
    // The listing carries the analysis's numbers.
    let rows = s
        .list(&Filter {
            serial: Some("S2".into()),
            ..Filter::default()
        })
        .unwrap();
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fx.tagged[1].join("summary.json")).unwrap())
            .unwrap();
    let c = &summary["analysis"]["cache_estimate"];
    assert_eq!(rows[0].cache_bytes, c["bytes"].as_i64());
    assert_eq!(rows[0].cache_low_bytes, c["low_bytes"].as_i64());
    // The row's rate after the cache is the analysis's one "after the cache" figure.
    let ac = &summary["analysis"]["after_cache"];
    assert_ne!(ac["steady_state"]["steady"], false, "{ac}");
    assert_eq!(
        rows[0].after_cache_bytes_per_sec,
        ac["mean_bytes_per_sec"].as_f64()
    );
    assert_eq!(rows[0].date, "2026-02-15T10:00:00Z");
    assert_eq!(rows[0].model.as_deref(), Some("Beta 2TB"));
}

/// `get` returns the summary verbatim; `remove` deletes the run and its files, and a second
/// `remove` says there is no such run.
fn show_and_rm(loc: &Location, fx: &Fixtures, _work: &Path) {
    let mut s = Store::open(loc).unwrap();
    let a = s.import_folder(&fx.sim_a).unwrap().id();
    let b = s.import_folder(&fx.sim_b).unwrap().id();
    let got = s.get(a).unwrap();
    assert_eq!(
        got.summary,
        std::fs::read_to_string(fx.sim_a.join("summary.json")).unwrap()
    );
    assert_eq!(got.row.kind, "simulate");
    s.remove(a).unwrap();
    let e = s.get(a).unwrap_err();
    assert!(
        matches!(e.downcast_ref(), Some(StoreError::NoSuchRun(x)) if *x == a),
        "{e:#}"
    );
    assert!(s.remove(a).is_err());
    assert_eq!(
        count(
            &mut s,
            &format!("SELECT COUNT(*) FROM run_files WHERE run_id = {a}")
        ),
        0
    );
    assert_eq!(s.list(&Filter::default()).unwrap()[0].id, b);
}

/// A store whose version was written by a newer slccache is refused with a clear message and
/// left as it was.
fn newer_schema_is_refused_unchanged(loc: &Location, fx: &Fixtures, _work: &Path) {
    {
        let mut s = Store::open(loc).unwrap();
        s.import_folder(&fx.sim_a).unwrap();
        s.backend()
            .execute("UPDATE slccache_schema SET version = 99", &[])
            .unwrap();
    }
    let e = Store::open(loc)
        .err()
        .expect("a newer store must be refused");
    let msg = format!("{e:#}");
    assert!(
        msg.contains("99") && msg.contains("upgrade slccache"),
        "{msg}"
    );
    let mut raw = loc.connect().unwrap();
    assert_eq!(schema::read_version(raw.as_mut()).unwrap(), 99);
    let n = raw.query("SELECT COUNT(*) FROM runs", &[]).unwrap();
    assert_eq!(n[0][0].as_i64(), Some(1));
}

/// The version after this build's, for test-only steps.
const NEXT: i64 = schema::SCHEMA_VERSION + 1;

/// This build's migrations and then `extra`.
fn with(extra: &[schema::Migration]) -> Vec<schema::Migration> {
    schema::MIGRATIONS
        .iter()
        .copied()
        .chain(extra.iter().copied())
        .collect()
}

/// A (test-only) step that only adds.
fn adds(statements: &'static [&'static str]) -> schema::Migration {
    schema::Migration {
        to: NEXT,
        sqlite: schema::Compat::Adds,
        postgres: schema::Compat::Adds,
        statements,
        fill: None,
    }
}

/// A store migrates to a (test-only) next version in place, keeping its runs; a migration that
/// fails half-way leaves the store at its version with nothing of the step applied. The next
/// version only added a column, so this build goes on writing the store, one step newer than
/// itself.
fn migration_runs_in_one_transaction(loc: &Location, fx: &Fixtures, work: &Path) {
    {
        let mut s = Store::open(loc).unwrap();
        s.import_folder(&fx.sim_a).unwrap();
    }
    let broken = with(&[adds(&[
        "ALTER TABLE runs ADD COLUMN half_done TEXT",
        "THIS IS NOT SQL",
    ])]);
    assert!(Store::open_with(loc.connect().unwrap(), &broken).is_err());
    let mut raw = loc.connect().unwrap();
    assert_eq!(
        schema::read_version(raw.as_mut()).unwrap(),
        schema::SCHEMA_VERSION
    );
    assert!(
        raw.query("SELECT half_done FROM runs", &[]).is_err(),
        "the failed step's column must be rolled back"
    );
    drop(raw);
    let next = with(&[adds(&["ALTER TABLE runs ADD COLUMN note TEXT"])]);
    let mut s = Store::open_with(loc.connect().unwrap(), &next).unwrap();
    assert_eq!(schema::read_version(s.backend()).unwrap(), NEXT);
    let rows = s
        .backend()
        .query("SELECT note, kind FROM runs", &[])
        .unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0][1], Val::Text(Some("simulate".into())));
    drop(s);
    // Not refused: the step only added, so the compatible-with version stayed.
    let mut s = Store::open(loc).unwrap();
    let b = s.import_folder(&fx.sim_b).unwrap();
    assert!(b.is_new());
    assert_eq!(s.list(&Filter::default()).unwrap().len(), 2);
    let back = work.join("back-b");
    s.export(b.id(), &back).unwrap();
    super::assert_same_folder(&fx.sim_b, &back);
}

/// A step that breaks older clients is taken only by `db migrate`: until then a client that
/// knows it refuses the store as stale (the message names the command) and leaves it as it
/// was. Once taken, this build, older than the store now, is refused ("upgrade slccache").
fn a_breaking_step_waits_for_db_migrate(loc: &Location, fx: &Fixtures, _work: &Path) {
    {
        let mut s = Store::open(loc).unwrap();
        s.import_folder(&fx.sim_a).unwrap();
    }
    let breaking = with(&[schema::Migration {
        to: NEXT,
        sqlite: schema::Compat::Breaks { in_place: false },
        postgres: schema::Compat::Breaks { in_place: false },
        statements: &["ALTER TABLE runs ADD COLUMN rack TEXT"],
        fill: None,
    }]);
    let e = Store::open_with(loc.connect().unwrap(), &breaking)
        .err()
        .expect("a stale store must be refused");
    let msg = format!("{e:#}");
    assert!(
        matches!(e.downcast_ref(), Some(StoreError::StaleSchema { .. }))
            && msg.contains("slccache db migrate"),
        "{msg}"
    );
    let mut raw = loc.connect().unwrap();
    assert_eq!(
        schema::read_versions(raw.as_mut()).unwrap(),
        schema::Versions {
            tables: schema::SCHEMA_VERSION,
            writers_from: schema::MIGRATIONS
                .iter()
                .filter(|m| m.compat(raw.dialect()) != schema::Compat::Adds)
                .map(|m| m.to)
                .max()
                .unwrap(),
        }
    );
    assert!(raw.query("SELECT rack FROM runs", &[]).is_err());
    drop(raw);
    let r = Store::migrate_explicit(loc.connect().unwrap(), &breaking).unwrap();
    assert_eq!(r.before.tables, schema::SCHEMA_VERSION);
    assert_eq!(
        r.after,
        schema::Versions {
            tables: NEXT,
            writers_from: NEXT
        }
    );
    assert_eq!(r.runs, 1);
    let mut s = Store::open_with(loc.connect().unwrap(), &breaking).unwrap();
    assert_eq!(s.list(&Filter::default()).unwrap().len(), 1);
    drop(s);
    let e = Store::open(loc).err().expect("now newer than this build");
    let msg = format!("{e:#}");
    assert!(
        matches!(e.downcast_ref(), Some(StoreError::NewerSchema { .. }))
            && msg.contains("upgrade slccache"),
        "{msg}"
    );
}

/// Four recorders open one new store and record at the same moment; all four runs are in.
fn four_recorders_at_once(loc: &Location, fx: &Fixtures, work: &Path) {
    // Four distinct folders (distinct content hashes).
    let dirs: Vec<PathBuf> = (0..4)
        .map(|i| {
            let d = work.join(format!("run-{i}"));
            std::fs::create_dir(&d).unwrap();
            std::fs::copy(fx.sim_a.join("timeline.csv"), d.join("timeline.csv")).unwrap();
            let mut v: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(fx.sim_a.join("summary.json")).unwrap(),
            )
            .unwrap();
            v["run"]["label"] = format!("parallel {i}").into();
            std::fs::write(d.join("summary.json"), v.to_string()).unwrap();
            d
        })
        .collect();
    let barrier = Arc::new(Barrier::new(4));
    let handles: Vec<_> = dirs
        .into_iter()
        .map(|d| {
            let loc = loc.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                let mut s = Store::open(&loc).unwrap();
                s.record_folder(&d, &recorded(default_render())).unwrap()
            })
        })
        .collect();
    let mut ids: Vec<i64> = handles
        .into_iter()
        .map(|h| h.join().unwrap().id())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 4);
    let mut s = Store::open(loc).unwrap();
    assert_eq!(s.list(&Filter::default()).unwrap().len(), 4);
}

/// The host and drive filters are narrowed in SQL (LIKE, ILIKE) and then matched exactly:
/// LIKE's wildcards in a filter are literal, letters fold in any case, non-ASCII ones too;
/// a listing of columns only (`runs --by`) gives the same runs with the same figures, and the
/// count is the store's.
fn filters_narrowed_in_sql_keep_exact_matches(loc: &Location, fx: &Fixtures, work: &Path) {
    use slccache::store::Detail;
    let mut s = Store::open(loc).unwrap();
    for (i, (t, host)) in fx
        .tagged
        .iter()
        .zip(["Lab_1", "lab%2", "LÄB-3"])
        .enumerate()
    {
        // The tagged runs name their host in their summary: a copy names another.
        let dir = work.join(format!("run{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in std::fs::read_dir(t).unwrap().flatten() {
            if f.path().is_file() {
                std::fs::copy(f.path(), dir.join(f.file_name())).unwrap();
            }
        }
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap())
                .unwrap();
        v["origin"]["host"] = host.into();
        v["origin"]["tags"] = serde_json::json!({ "rack": format!("r{i}") });
        std::fs::write(dir.join("summary.json"), v.to_string()).unwrap();
        s.record_folder(&dir, &RecordOptions::default()).unwrap();
    }
    let hosts = |s: &mut Store, h: &str| -> Vec<String> {
        s.list(&Filter {
            host: Some(h.into()),
            ..Filter::default()
        })
        .unwrap()
        .into_iter()
        .map(|r| r.host.unwrap_or_default())
        .collect()
    };
    assert_eq!(hosts(&mut s, "_"), ["Lab_1"]);
    assert_eq!(hosts(&mut s, "%"), ["lab%2"]);
    assert_eq!(hosts(&mut s, "LAB"), ["Lab_1", "lab%2"]);
    assert_eq!(hosts(&mut s, "läb"), ["LÄB-3"]);
    assert_eq!(hosts(&mut s, "b-3"), ["LÄB-3"]);
    assert!(hosts(&mut s, "\\").is_empty());
    assert_eq!(s.count().unwrap(), 3);
    let full = s.list(&Filter::default()).unwrap();
    let cols = s.list_with(&Filter::default(), Detail::Columns).unwrap();
    let tags = s.list_with(&Filter::default(), Detail::Tags).unwrap();
    assert_eq!(full.len(), 3);
    for ((f, c), t) in full.iter().zip(&cols).zip(&tags) {
        assert_eq!(
            (f.id, &f.host, &f.model, &f.serial, f.cache_bytes),
            (c.id, &c.host, &c.model, &c.serial, c.cache_bytes)
        );
        assert_eq!(f.after_cache_bytes_per_sec, c.after_cache_bytes_per_sec);
        assert_eq!(f.tags, t.tags, "the tags column gives the summary's tags");
        assert!(c.findings.is_none() && c.tags.is_empty());
    }
    assert!(
        full.iter().any(|r| !r.tags.is_empty()),
        "the copies have tags"
    );
}

/// `runs --by` folds each run into its group as the store reads it
/// (`Store::each_for_grouping`); the groups are those of the runs as listed (with their
/// columns only, as `runs --by` read them before, and whole): on a store with re-analyses of
/// a recorded run, analyses of one start only, a rate too short to judge, several kinds of
/// run, serials with spaces or empty, NULL host, drive, figures and start, a host named `-`,
/// non-ASCII names and tags, under every filter.
fn grouping_as_read_gives_the_groups_of_the_listed_rows(
    loc: &Location,
    fx: &Fixtures,
    work: &Path,
) {
    use slccache::commands::runs::{group, group_table, GroupBy, Grouping};
    use slccache::store::{Detail, Grouped};
    let mut s = Store::open(loc).unwrap();
    let mut ids = std::collections::BTreeMap::new();
    // Name, kind, serial, model, month of its start; host, rack, after the cache too short.
    type Run = (
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
    );
    let runs: &[(Run, &str, &str, bool)] = &[
        (
            ("m1", "simulate", "S1", "Alpha 1TB", "01"),
            "lab-1",
            "r1",
            false,
        ),
        // Analysed again: one measurement of S1.
        (
            ("m1-again", "analyze", "S1", "Alpha 1TB", "01"),
            "lab-1",
            "r1",
            false,
        ),
        // Only analyses of one start: the first recorded stands for it.
        (
            ("b-1", "analyze", "S2", "Beta 2TB", "02"),
            "lab-2",
            "r2",
            false,
        ),
        (
            ("b-2", "analyze", " S2 ", "Beta 2TB", "02"),
            "lab-2",
            "r2",
            false,
        ),
        (
            ("short", "simulate", "S1", "Alpha 1TB", "03"),
            "LÄB-3",
            "r1",
            true,
        ),
        (
            ("no-serial", "simulate", "", "Alpha 1TB", "04"),
            "-",
            "r2",
            false,
        ),
        (
            ("nulls", "analyze", "S3", "Gamma", "05"),
            "lab-1",
            "r1",
            false,
        ),
        (
            ("later", "analyze", "S1", "Alpha 1TB v2", "06"),
            "lab-2",
            "räck",
            false,
        ),
        // Recorded last, started first: the drive is not named by it.
        (
            ("earlier", "simulate", "S1", "Alpha 1TB old", "2025-12"),
            "lab-2",
            "r1",
            false,
        ),
    ];
    for &((name, kind, serial, model, start), host, rack, short) in runs {
        let dir = work.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        for f in ["timeline.csv", "report.md"] {
            std::fs::copy(fx.sim_a.join(f), dir.join(f)).unwrap();
        }
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(fx.sim_a.join("summary.json")).unwrap())
                .unwrap();
        v["config"]["command"] = kind.into();
        v["run"]["label"] = format!("run {name}").into();
        v["run"]["device"]["serial"] = serial.into();
        v["run"]["device"]["model"] = model.into();
        let month = if start.contains('-') {
            start.to_string()
        } else {
            format!("2026-{start}")
        };
        v["run"]["started_at"] = format!("{month}-15T10:00:00Z").into();
        v["origin"]["host"] = host.into();
        v["origin"]["tags"] = serde_json::json!({ "rack": rack });
        if short {
            v["findings"]["after"] =
                serde_json::json!({ "kind": "too_short", "bytes_per_sec": 4.5e8 });
        }
        // Another workload of S1, and a size a hidden first tier could make a later tier's.
        if name == "later" {
            v["run"]["workload"]["pattern"] = "seqwrite".into();
            v["run"]["workload"]["block_size"] = 131072.into();
        }
        if name == "m1" {
            v["findings"]["first_sample_hides"] =
                serde_json::json!({ "bytes": 5_000_000_000u64, "interval_s": 120.0 });
        }
        std::fs::write(dir.join("summary.json"), v.to_string()).unwrap();
        let id = match s.record_folder(&dir, &RecordOptions::default()).unwrap() {
            Recorded::New(id) => id,
            r => panic!("{name}: {r:?}"),
        };
        ids.insert(name, id);
    }
    for src in [&fx.sim_b, &fx.probe, &fx.recovery] {
        s.record_folder(src, &recorded(default_render())).unwrap();
    }
    // NULL where a column can be: no host, no drive, no figures, no start.
    s.backend()
        .execute(
            &format!(
                "UPDATE runs SET host = NULL, serial = NULL, model = NULL, capacity_bytes = \
                 NULL, cache_bytes = NULL, after_cache_bytes_per_sec = NULL, started_at = NULL \
                 WHERE id = {}",
                ids["nulls"]
            ),
            &[],
        )
        .unwrap();
    let listed = s.list(&Filter::default()).unwrap();
    assert_eq!(listed.len(), runs.len() + 3);
    let short = listed.iter().find(|r| r.id == ids["short"]).unwrap();
    assert_eq!(
        short.after_cache_bytes_per_sec, None,
        "a rate too short to judge is no figure"
    );
    let tags = |k: &str, v: &str| [(k.to_string(), v.to_string())].into_iter().collect();
    let filters = [
        Filter::default(),
        Filter {
            host: Some("LAB".into()),
            ..Filter::default()
        },
        Filter {
            host: Some("läb".into()),
            ..Filter::default()
        },
        Filter {
            drive: Some("alpha".into()),
            ..Filter::default()
        },
        Filter {
            serial: Some("S1".into()),
            ..Filter::default()
        },
        Filter {
            kind: Some("analyze".into()),
            ..Filter::default()
        },
        Filter {
            since: Some("2026-02-01".into()),
            ..Filter::default()
        },
        Filter {
            tags: tags("rack", "r1"),
            ..Filter::default()
        },
        Filter {
            tags: tags("rack", "räck"),
            ..Filter::default()
        },
    ];
    let u = UnitSystem::Decimal;
    for by in [GroupBy::Host, GroupBy::Drive, GroupBy::Tag("rack".into())] {
        for f in &filters {
            let mut g = Grouping::new(by.clone(), u);
            s.each_for_grouping(f, by.grouped(), &mut |r| g.push(r))
                .unwrap();
            let folded = g.finish();
            let detail = match by {
                GroupBy::Tag(_) => Detail::Tags,
                _ => Detail::Columns,
            };
            let columns = group(&s.list_with(f, detail).unwrap(), &by, u);
            let whole = group(&s.list(f).unwrap(), &by, u);
            assert_eq!(folded, columns, "{by:?} {f:?}");
            assert_eq!(folded, whole, "{by:?} {f:?}");
            assert_eq!(
                group_table(&folded, &by, u, None),
                group_table(&whole, &by, u, None)
            );
        }
    }
    // What the groups hold: S1 is measured by earlier, m1 and short with one workload and by
    // later with another (m1-again is m1 read again), S2 once, and the rate too short to
    // judge is left out of its figure. The store reads them in no order: S1 is named by the
    // run that started last, not by the one recorded last.
    let mut g = Grouping::new(GroupBy::Drive, u);
    s.each_for_grouping(&Filter::default(), Grouped::Drive, &mut |r| g.push(r))
        .unwrap();
    let by_drive = g.finish();
    let named = |part: &str| {
        by_drive
            .iter()
            .find(|g| g.group.contains(part))
            .unwrap_or_else(|| panic!("no {part} in {by_drive:?}"))
    };
    let s1 = named("serial S1");
    assert_eq!(
        (
            s1.workload.as_deref(),
            s1.runs,
            s1.cache_hedged_runs,
            s1.cache_hedged_left_out_runs
        ),
        // The hedged size left out of the median, the others' not hedged.
        (Some("randwrite 4K QD32"), 3, 0, 1),
        "{s1:?}"
    );
    assert!(s1.group.contains("Alpha 1TB v2"), "named by its latest run");
    assert_eq!(
        s1.after_cache_bytes_per_sec.as_ref().map(|a| a.runs),
        Some(2)
    );
    let seq: Vec<_> = by_drive
        .iter()
        .filter(|g| g.group == s1.group && g.workload != s1.workload)
        .collect();
    assert_eq!(seq.len(), 1, "{by_drive:?}");
    assert_eq!(
        (seq[0].workload.as_deref(), seq[0].runs),
        (Some("seqwrite 128K QD32"), 1)
    );
    assert_eq!(named("serial S2").runs, 1);
    let mut g = Grouping::new(GroupBy::Host, u);
    s.each_for_grouping(&Filter::default(), Grouped::Host, &mut |r| g.push(r))
        .unwrap();
    let by_host = g.finish();
    let none = by_host.last().unwrap();
    assert_eq!((none.group.as_str(), none.runs), ("-", 2), "{by_host:?}");
}
