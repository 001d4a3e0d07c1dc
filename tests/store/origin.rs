//! Where a run came from, through the binary on SQLite: `--host`, `SLCCACHE_HOST` and `--tag`
//! in every kind of run's summary.json and in the store; the listing's filters by host and tag;
//! `runs --by`; `compare`'s names of runs from several hosts; `history`, one drive at a time.

use crate::common::store_util;

use std::path::Path;
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;
use store_util::{ok, runs_json};

/// The binary recording into `db`, with no host set from outside.
fn bin(db: &Path) -> Command {
    let mut c = Command::cargo_bin("slccache").unwrap();
    c.env("SLCCACHE_DB", db).env_remove("SLCCACHE_HOST");
    c
}

fn origin(dir: &Path) -> serde_json::Value {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    v["origin"].clone()
}

/// Every command that records a run writes `origin` (host and tags) into its summary.json,
/// and the store takes the host and tags from there.
pub fn every_kind_of_run_records_its_host_and_tags() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let db = w.join("r.db");
    let trace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/kernel-cliff/stall-before-cliff.csv");
    let tags = ["--tag", "rack=r3", "--tag", "fw.rev=3B2Q_EXM7-x"];
    let runs: Vec<(&str, Vec<String>)> = vec![
        ("simulate", vec!["simulate".into(), "960evo-250g".into()]),
        (
            "probe",
            ["probe", "emu:960evo-250g,cache=1GB", "--max-bytes", "2GB"]
                .map(String::from)
                .to_vec(),
        ),
        (
            "analyze",
            vec!["analyze".into(), trace.to_str().unwrap().to_string()],
        ),
        (
            "sweep",
            ["sweep", "emu:960evo-500g", "--simulate", "--qd", "1,4"]
                .map(String::from)
                .to_vec(),
        ),
        (
            "recovery",
            ["recovery", "emu:970evo-500g", "--simulate", "--idle", "10s"]
                .map(String::from)
                .to_vec(),
        ),
        (
            "fill-sweep",
            [
                "fill-sweep",
                "emu:660p-1tb",
                "--simulate",
                "--levels",
                "0,50",
            ]
            .map(String::from)
            .to_vec(),
        ),
    ];
    for (name, args) in &runs {
        let out = w.join(name);
        let seed: &[&str] = if *name == "analyze" {
            &[]
        } else {
            &["--seed", "7"]
        };
        ok(bin(&db)
            .args(args)
            .args(seed)
            .args(["-q", "--host", "bench-2"])
            .args(tags)
            .arg("--out")
            .arg(&out));
        assert_eq!(
            origin(&out),
            serde_json::json!({"host": "bench-2", "tags": {"rack": "r3", "fw.rev": "3B2Q_EXM7-x"}}),
            "{name}"
        );
    }
    let listed = runs_json(db.to_str().unwrap());
    assert_eq!(listed.len(), runs.len());
    for r in &listed {
        assert_eq!(r["host"], "bench-2", "{r}");
        assert_eq!(r["tags"]["rack"], "r3", "{r}");
    }
    // SLCCACHE_HOST names the host when --host does not; --host wins over it.
    let env_run = w.join("env");
    ok(bin(&db)
        .env("SLCCACHE_HOST", "bench-3")
        .args(["simulate", "960evo-250g", "--seed", "8", "-q", "--out"])
        .arg(&env_run));
    assert_eq!(origin(&env_run)["host"], "bench-3");
    let flag_run = w.join("flag");
    ok(bin(&db)
        .env("SLCCACHE_HOST", "bench-3")
        .args([
            "--host",
            "bench-4",
            "simulate",
            "960evo-250g",
            "--seed",
            "9",
        ])
        .args(["-q", "--out"])
        .arg(&flag_run));
    assert_eq!(origin(&flag_run)["host"], "bench-4");
    assert_eq!(origin(&flag_run)["tags"], serde_json::json!({}));
    // Without either, the machine's name.
    let plain = w.join("plain");
    ok(bin(&db)
        .args(["simulate", "960evo-250g", "--seed", "10", "-q", "--out"])
        .arg(&plain));
    let uname = String::from_utf8(Command::new("uname").arg("-n").output().unwrap().stdout)
        .unwrap()
        .trim()
        .to_string();
    assert_eq!(origin(&plain)["host"], uname.as_str());
    // `runs import --host` keeps a folder's own host, and says so.
    let other = w.join("other.db");
    let o = bin(&other)
        .args(["--host", "override", "runs", "import"])
        .arg(&flag_run)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("names its host, bench-4: it is kept"), "{err}");
    assert_eq!(runs_json(other.to_str().unwrap())[0]["host"], "bench-4");
    let host_of = |folder: &str| -> String {
        runs_json(db.to_str().unwrap())
            .iter()
            .find(|r| r["source_dir"].as_str().unwrap().ends_with(folder))
            .map(|r| r["host"].as_str().unwrap_or("").to_string())
            .unwrap()
    };
    assert_eq!(host_of("/env"), "bench-3");
    assert_eq!(host_of("/flag"), "bench-4");
    assert_eq!(host_of("/plain"), uname);

    // A bad tag key or an empty host is refused before anything runs (exit 2).
    for bad in [
        vec!["--tag", "my rack=3"],
        vec!["--tag", "rack"],
        vec!["--tag", "räck=3"],
        vec!["--tag", "a=1", "--tag", "a=2"],
        vec!["--host", " "],
    ] {
        let out = w.join("refused");
        let o = bin(&db)
            .args(&bad)
            .args(["simulate", "960evo-250g", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("--tag") || err.contains("--host"), "{err}");
        assert!(!out.exists(), "{bad:?} wrote {}", out.display());
    }
}

/// Three simulated runs from three hosts with tags, recorded into `db`; returns nothing.
fn three_hosts(db: &Path, w: &Path) {
    for (i, (host, preset, rack)) in [
        ("Bench-1", "960evo-250g", "r3"),
        ("bench-2", "960evo-500g", "r4"),
        ("lab-3", "960evo-250g", "r3"),
    ]
    .iter()
    .enumerate()
    {
        ok(bin(db)
            .args(["simulate", preset, "--seed", &(i + 1).to_string(), "-q"])
            .args(["--host", host, "--tag", &format!("rack={rack}")])
            .args(["--tag", &format!("ticket=T-{}", i % 2)])
            .arg("--out")
            .arg(w.join(format!("s{i}"))));
    }
}

/// `runs --by drive` took one median over a drive's 4K random and 128K sequential runs,
/// which measure different caches and rates: each workload of a drive is a group of its own,
/// the workload in a column; and a median that takes in a size the findings hedge (a faster
/// first tier may have hidden in a long first sample) is marked, as each run's cell is, and
/// counted in the JSON.
pub fn runs_by_drive_keeps_a_drive_s_workloads_apart_and_marks_hedged_sizes() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("r.db");
    let runs: [&[&str]; 4] = [
        &["960evo-500g", "--seed", "1"],
        &["960evo-500g", "--pattern", "seqwrite", "--bs", "128k"],
        &["960evo-500g", "--seed", "2"],
        // A first sample of 2 min: the size is a later tier's were a first tier hidden in it.
        &["fx700-2tb", "--interval", "2m"],
    ];
    for (i, args) in runs.iter().enumerate() {
        ok(bin(&db)
            .arg("simulate")
            .args(*args)
            .args(["-q", "--out"])
            .arg(d.path().join(format!("s{i}"))));
    }
    let rows = runs_json(db.to_str().unwrap());
    let cache = |i: usize| rows[i]["cache_bytes"].as_f64().unwrap();
    let g: Vec<serde_json::Value> =
        serde_json::from_str(&ok(bin(&db).args(["runs", "--json", "--by", "drive"]))).unwrap();
    let seen: Vec<(&str, &str, i64, i64)> = g
        .iter()
        .map(|g| {
            (
                g["group"].as_str().unwrap(),
                g["workload"].as_str().unwrap(),
                g["runs"].as_i64().unwrap(),
                g["cache_hedged_runs"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("HP FX700 2TB (QLC) (simulated)", "randwrite 4K QD32", 1, 1),
            (
                "Samsung SSD 960 EVO 500GB (simulated)",
                "randwrite 4K QD32",
                2,
                0
            ),
            (
                "Samsung SSD 960 EVO 500GB (simulated)",
                "seqwrite 128K QD32",
                1,
                0
            ),
        ],
        "{g:?}"
    );
    // No median mixes the workloads.
    assert_eq!(
        g[1]["cache_bytes"]["median"].as_f64().unwrap(),
        (cache(0) + cache(2)) / 2.0
    );
    assert_eq!(g[2]["cache_bytes"]["median"].as_f64().unwrap(), cache(1));
    let t = ok(bin(&db).args(["runs", "--by", "drive"]));
    let lines: Vec<&str> = t.lines().collect();
    assert!(
        lines[0].starts_with("drive ") && lines[0].contains(" workload "),
        "{t}"
    );
    assert!(
        lines[1].contains("randwrite 4K QD32") && lines[1].contains(" GB ‡"),
        "{t}"
    );
    assert!(
        lines[3].contains("seqwrite 128K QD32") && !lines[3].contains('‡'),
        "{t}"
    );
    assert!(
        t.contains("‡ cache: the median takes in sizes that may be a later tier's"),
        "{t}"
    );
    // By host, one group as before, with no workload.
    let h: Vec<serde_json::Value> =
        serde_json::from_str(&ok(bin(&db).args(["runs", "--json", "--by", "host"]))).unwrap();
    assert_eq!(h.len(), 1, "{h:?}");
    assert_eq!(h[0]["runs"], 4);
    assert!(h[0].get("workload").is_none(), "{h:?}");
    // Its median leaves the hedged size out, the other runs' sizes not being hedged, and
    // counts it.
    assert_eq!(h[0]["cache_hedged_runs"], 0, "{h:?}");
    assert_eq!(h[0]["cache_hedged_left_out_runs"], 1, "{h:?}");
}

/// `runs` marks a rate after the cache `*` where thermal throttling was left out of it and `†`
/// where a slower tier may follow, but `runs --by` gave the median of such rates unmarked: it
/// marks the median as `runs` marks the rates, says each mark under the table in `runs`'s own
/// words, and counts those runs in `--json`.
pub fn runs_by_group_marks_rates_that_left_heat_out_or_may_not_last() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("r.db");
    let runs: [&[&str]; 2] = [
        // Throttles with heat after its cliff, left out of the rate after it.
        &[
            "p5-1tb",
            "--interval",
            "30s",
            "--seed",
            "11",
            "--no-early-stop",
        ],
        // Stops early, the rate after the cache well above half the rate in it.
        &["fx700-2tb", "--seed", "1"],
    ];
    for (i, args) in runs.iter().enumerate() {
        ok(bin(&db)
            .arg("simulate")
            .args(*args)
            .args(["-q", "--out"])
            .arg(d.path().join(format!("s{i}"))));
    }
    let narrow = ok(bin(&db).env("COLUMNS", "100").arg("runs"));
    assert!(
        narrow.contains(" *\n") && narrow.contains(" †\n"),
        "{narrow}"
    );
    let h: Vec<serde_json::Value> =
        serde_json::from_str(&ok(bin(&db).args(["runs", "--json", "--by", "host"]))).unwrap();
    assert_eq!(
        (
            &h[0]["after_cache_bytes_per_sec"]["runs"],
            &h[0]["after_heat_runs"],
            &h[0]["after_slower_tier_runs"]
        ),
        (&2.into(), &1.into(), &1.into()),
        "{h:?}"
    );
    let notes = "* after cache: heat left out\n† after cache: a slower tier may follow\n";
    let t = ok(bin(&db).args(["runs", "--by", "host"]));
    assert!(t.lines().nth(1).unwrap().contains(" MB/s * † ("), "{t}");
    assert!(t.contains(notes), "{t}");
    let t = ok(bin(&db).args(["runs", "--by", "drive"]));
    let lines: Vec<&str> = t.lines().collect();
    assert!(
        lines[1].starts_with("Crucial P5") && lines[1].trim_end().ends_with(" MB/s *"),
        "{t}"
    );
    assert!(
        lines[2].starts_with("HP FX700") && lines[2].trim_end().ends_with(" MB/s †"),
        "{t}"
    );
    assert!(t.contains(notes), "{t}");
}

/// `--host` and `--drive` match part of the name in any case; every `--tag` must match.
pub fn runs_filter_by_host_part_and_tags() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("r.db");
    three_hosts(&db, d.path());
    let ids = |args: &[&str]| -> Vec<i64> {
        let text = ok(bin(&db).args(["runs", "--json"]).args(args));
        serde_json::from_str::<Vec<serde_json::Value>>(&text)
            .unwrap()
            .iter()
            .map(|r| r["id"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(ids(&[]), [1, 2, 3]);
    assert_eq!(ids(&["--host", "BENCH"]), [1, 2]);
    assert_eq!(ids(&["--host", "ch-2"]), [2]);
    assert_eq!(ids(&["--host", "nowhere"]), Vec::<i64>::new());
    assert_eq!(ids(&["--drive", "960 evo 250"]), [1, 3]);
    assert_eq!(ids(&["--tag", "rack=r3"]), [1, 3]);
    assert_eq!(ids(&["--tag", "rack=r3", "--tag", "ticket=T-0"]), [1, 3]);
    assert_eq!(
        ids(&["--tag", "rack=r3", "--tag", "ticket=T-1"]),
        Vec::<i64>::new()
    );
    assert_eq!(ids(&["--tag", "rack=r3", "--host", "lab"]), [3]);
    // The table and the CSV carry host and tags.
    let csv = ok(bin(&db).args(["runs", "--csv", "--host", "lab"]));
    assert!(
        csv.lines()
            .next()
            .unwrap()
            .contains(",tags,pattern,block_size,queue_depth,jobs,cache_finding,"),
        "{csv}"
    );
    assert!(
        csv.contains("lab-3") && csv.contains("rack=r3;ticket=T-0"),
        "{csv}"
    );
    // A bad --tag filter is a usage error.
    let o = bin(&db).args(["runs", "--tag", "rack"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
}

/// Two runs of one drive under different workloads looked alike in `runs`' table, which had
/// no workload column. The table names each run's pattern, block size and queue depth, so
/// the two lines tell the runs apart, at full width and fitted to 80 columns.
pub fn the_runs_table_tells_workloads_apart() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("r.db");
    for (i, (pattern, bs)) in [("randwrite", "4K"), ("seqwrite", "1M")].iter().enumerate() {
        ok(bin(&db)
            .args(["simulate", "960evo-250g", "--pattern", pattern, "--bs", bs])
            .args(["--seed", "1", "-q", "--out"])
            .arg(d.path().join(format!("w{i}"))));
    }
    for width in [None, Some("80")] {
        let mut c = bin(&db);
        c.arg("runs");
        if let Some(w) = width {
            c.env("COLUMNS", w);
        } else {
            c.arg("--wide");
        }
        let text = ok(&mut c);
        let line = |w: &str| {
            text.lines()
                .find(|l| l.contains(w))
                .unwrap_or_else(|| panic!("no run of {w}: {text}"))
                .to_string()
        };
        let (rand, seq) = match width {
            None => (line("randwrite 4K QD32"), line("seqwrite 1M QD32")),
            Some(_) => (line("rand 4K QD32"), line("seq 1M QD32")),
        };
        assert_ne!(rand, seq, "{text}");
        assert!(text.lines().next().unwrap().contains("workload"), "{text}");
    }
}

/// `runs --by host|drive|tag:KEY`: one line per group with its count and the median and range
/// of the cache and the after-cache rate, and the same as JSON.
pub fn runs_by_group_give_count_median_and_range() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("r.db");
    three_hosts(&db, d.path());
    let rows = runs_json(db.to_str().unwrap());
    let cache = |i: usize| rows[i]["cache_bytes"].as_f64().unwrap();
    let after = |i: usize| rows[i]["after_cache_bytes_per_sec"].as_f64().unwrap();

    let json = |by: &str| -> Vec<serde_json::Value> {
        serde_json::from_str(&ok(bin(&db).args(["runs", "--json", "--by", by]))).unwrap()
    };
    let g = json("tag:rack");
    assert_eq!(g.len(), 2, "{g:?}");
    assert_eq!(g[0]["group"], "r3");
    assert_eq!(g[0]["runs"], 2);
    let c = &g[0]["cache_bytes"];
    assert_eq!(c["median"].as_f64().unwrap(), (cache(0) + cache(2)) / 2.0);
    assert_eq!(c["min"].as_f64().unwrap(), cache(0).min(cache(2)));
    assert_eq!(c["max"].as_f64().unwrap(), cache(0).max(cache(2)));
    let a = &g[0]["after_cache_bytes_per_sec"];
    assert_eq!(a["median"].as_f64().unwrap(), (after(0) + after(2)) / 2.0);
    assert_eq!(g[1]["group"], "r4");
    assert_eq!(g[1]["runs"], 1);
    assert_eq!(g[1]["cache_bytes"]["median"].as_f64().unwrap(), cache(1));

    let by_host = json("host");
    let names: Vec<&str> = by_host
        .iter()
        .map(|g| g["group"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Bench-1", "bench-2", "lab-3"]);
    let by_drive = json("drive");
    assert_eq!(by_drive.len(), 2);
    assert_eq!(by_drive[0]["runs"], 2);
    // Runs without the tag are a group of their own, last.
    let none = json("tag:lab");
    assert_eq!(none.len(), 1);
    assert_eq!(none[0]["group"], "-");
    assert_eq!(none[0]["runs"], 3);

    // The table: a header, one line per group, units on every figure.
    let t = ok(bin(&db).args(["runs", "--by", "tag:rack"]));
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines.len(), 3, "{t}");
    assert!(
        lines[0].starts_with("tag:rack") && lines[0].contains("median"),
        "{t}"
    );
    assert!(
        lines[1].starts_with("r3") && lines[1].contains(" 2 "),
        "{t}"
    );
    // "13.0 GB (13.00 GB to 13.02 GB)": the range as the findings write one, with as many
    // decimals as its ends need to differ, up to four significant digits; ends alike at
    // four digits are "all alike".
    assert!(lines[1].contains(" GB (") && lines[1].ends_with(")"), "{t}");
    let (lo_gb, hi_gb) = (cache(0).min(cache(2)) / 1e9, cache(0).max(cache(2)) / 1e9);
    if format!("{lo_gb:.2}") == format!("{hi_gb:.2}") {
        assert!(lines[1].contains(" GB (all alike)"), "{t}");
    } else {
        let range = lines[1]
            .split(" GB (")
            .nth(1)
            .unwrap()
            .split(" GB)")
            .next()
            .unwrap();
        let (lo, hi) = range.split_once(" GB to ").unwrap_or_else(|| panic!("{t}"));
        assert!(
            lo.parse::<f64>().unwrap() < hi.parse::<f64>().unwrap() && lo.len() <= 5,
            "{t}"
        );
    }
    assert!(
        lines[1].contains(" MB/s (") && lines[1].ends_with(" MB/s)"),
        "{t}"
    );
    assert!(lines[2].starts_with("r4"), "{t}");
    // Filters apply before grouping; a bad --by is a usage error.
    let f = json_filtered(&db, &["--by", "host", "--host", "bench"]);
    assert_eq!(f.len(), 2);
    for bad in ["rack", "tag:", "tag:a b"] {
        let o = bin(&db).args(["runs", "--by", bad]).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{bad}");
    }
}

/// `runs --by drive` took emulated drives of one preset made with other options
/// (`emu:960evo-250g` and `emu:960evo-250g,cache=1GB`) for one drive, which `history` keeps
/// apart, and so did the drive filter of `runs --html`. Both take drives as `history` does:
/// runs of one spec together, another spec a drive of its own, named with its spec.
pub fn runs_by_drive_keeps_emulated_specs_apart_as_history_does() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let db = w.join("r.db");
    let specs = [
        "emu:960evo-250g",
        "emu:960evo-250g",
        "emu:960evo-250g,cache=1GB",
    ];
    for (i, spec) in specs.iter().enumerate() {
        ok(bin(&db)
            .args(["probe", spec, "--max-bytes", "1500MB", "-q", "--out"])
            .arg(w.join(format!("p{i}"))));
    }
    let g: Vec<serde_json::Value> =
        serde_json::from_str(&ok(bin(&db).args(["runs", "--json", "--by", "drive"]))).unwrap();
    let groups: Vec<(&str, u64)> = g
        .iter()
        .map(|g| (g["group"].as_str().unwrap(), g["runs"].as_u64().unwrap()))
        .collect();
    let (plain, small) = (
        "Samsung SSD 960 EVO 250GB (emulated)",
        "Samsung SSD 960 EVO 250GB (emulated), cache=1GB",
    );
    assert_eq!(groups, [(plain, 2), (small, 1)], "{g:?}");
    let t = ok(bin(&db).args(["runs", "--by", "drive"]));
    let lines: Vec<&str> = t.lines().collect();
    // The groups, and what their brackets mean.
    assert_eq!(lines.len(), 4, "{t}");
    assert!(lines[3].starts_with("[k of n runs]: "), "{t}");
    assert!(lines[1].starts_with(&format!("{plain}  ")), "{t}");
    assert!(lines[2].starts_with(small), "{t}");
    // `history` names the same two drives the same way.
    let o = bin(&db)
        .args(["history", "960 EVO", "--out"])
        .arg(w.join("h"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("matches 2 drives"), "{err}");
    assert!(err.contains(&format!("  {plain}: 2 runs\n")), "{err}");
    assert!(err.contains(&format!("  {small}: 1 run\n")), "{err}");
    // The library page's drive filter: one choice per drive, and its runs under it.
    ok(bin(&db).args(["runs", "--html"]).arg(w.join("lib")));
    let html = std::fs::read_to_string(w.join("lib/index.html")).unwrap();
    let filter = html
        .split("id=\"f-drive\"")
        .nth(1)
        .and_then(|s| s.split("</select>").next())
        .unwrap();
    assert_eq!(
        filter.matches("<option").count(),
        3,
        "all, and two drives: {filter}"
    );
    for (name, runs) in [(plain, 2), (small, 1)] {
        assert!(
            filter.contains(&format!("<option value=\"{name}\">")),
            "{filter}"
        );
        assert_eq!(
            html.matches(&format!("<tr data-drive=\"{name}\"")).count(),
            runs,
            "{name}"
        );
    }
    // The list itself tells them apart: the runs of the drive made with options say them,
    // in the table and in the page's drive column.
    let table = ok(bin(&db).arg("runs"));
    assert_eq!(
        table.matches("(emulated), cache=1GB ").count(),
        1,
        "{table}"
    );
    // (The drive filter's choice names the drive the same way: not a cell.)
    assert_eq!(
        html.replace(filter, "")
            .matches("(emulated), cache=1GB<")
            .count(),
        1,
        "drive cells"
    );
}

fn json_filtered(db: &Path, args: &[&str]) -> Vec<serde_json::Value> {
    serde_json::from_str(&ok(bin(db).args(["runs", "--json"]).args(args))).unwrap()
}

/// `compare` of runs from different hosts names each by host and run id; runs of one host keep
/// their drive names.
pub fn compare_names_runs_of_several_hosts_by_host_and_id() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("r.db");
    three_hosts(&db, d.path());
    let names = |args: &[&str]| -> Vec<String> {
        let out = d.path().join(format!("cmp-{}", args.join("-")));
        let text = ok(bin(&db)
            .args(["compare", "--json", "-q"])
            .args(args)
            .arg("--out")
            .arg(&out));
        let v: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        v["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        names(&["1", "2", "3"]),
        [
            "Bench-1 #1: Samsung SSD 960 EVO 250GB (simulated)",
            "bench-2 #2: Samsung SSD 960 EVO 500GB (simulated)",
            "lab-3 #3: Samsung SSD 960 EVO 250GB (simulated)"
        ]
    );
    // Folders have no id: host and drive.
    let (a, b) = (d.path().join("s0"), d.path().join("s2"));
    assert_eq!(
        names(&[a.to_str().unwrap(), b.to_str().unwrap()]),
        [
            "Bench-1: Samsung SSD 960 EVO 250GB (simulated)",
            "lab-3: Samsung SSD 960 EVO 250GB (simulated)"
        ]
    );
}

/// `history` charts one drive: never runs of another capacity or kind under one name. Text
/// that matches several is refused (exit 2) with each drive and the flags that pick it; the
/// run line says which drive it charts; `--host` splits the series by host.
pub fn history_never_merges_drives_of_another_capacity_or_kind() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let db = w.join("r.db");
    three_hosts(&db, w);
    // An emulated 960 EVO 250GB (real time) beside the simulated ones.
    ok(bin(&db)
        .args([
            "probe",
            "emu:960evo-250g,cache=1GB",
            "--max-bytes",
            "2GB",
            "-q",
        ])
        .args(["--host", "bench-2", "--out"])
        .arg(w.join("p")));
    let o = bin(&db)
        .args(["history", "960 EVO", "--out"])
        .arg(w.join("h0"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("matches 3 drives"), "{err}");
    assert!(
        err.contains("Samsung SSD 960 EVO 500GB (simulated): 1 run"),
        "{err}"
    );
    assert!(err.contains("--capacity 500GB"), "{err}");
    assert!(err.contains("--drive-kind emulated"), "{err}");
    assert!(
        err.contains("--capacity 250GB --drive-kind simulated"),
        "{err}"
    );
    assert!(!w.join("h0").exists());

    let line = ok(bin(&db)
        .args([
            "history",
            "960 EVO",
            "--capacity",
            "250GB",
            "--drive-kind",
            "simulated",
        ])
        .arg("--out")
        .arg(w.join("h1")));
    assert!(
        line.contains("history of Samsung SSD 960 EVO 250GB (simulated): 2 runs"),
        "{line}"
    );
    assert!(w.join("h1/history-cache-date.png").is_file());
    // Still several: the flags given stay in the advice.
    let o = bin(&db)
        .args(["history", "960 EVO", "--capacity", "250GB", "--out"])
        .arg(w.join("h2"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--capacity 250GB --drive-kind emulated"),
        "{err}"
    );
    // One series per host with --host.
    let line = ok(bin(&db)
        .args([
            "history",
            "960 EVO 250",
            "--drive-kind",
            "simulated",
            "--host",
            "",
        ])
        .arg("--out")
        .arg(w.join("h3")));
    assert!(
        line.contains("one series per host (Bench-1, lab-3)"),
        "{line}"
    );
    assert!(w.join("h3/history-cache-date.png").is_file());
    let line = ok(bin(&db)
        .args([
            "history",
            "960 EVO 250",
            "--drive-kind",
            "simulated",
            "--host",
            "lab",
        ])
        .arg("--out")
        .arg(w.join("h4")));
    assert!(
        line.contains(": 1 run, one series per host (lab-3)"),
        "{line}"
    );
}

/// `runs --by drive` counted an `analyze` of a recorded run's `timeline.csv` as a second run
/// of the drive, so the median took that one measurement twice (two runs of 13.0 and 13.2 GB
/// and the first analysed again: median 13.0 GB over "3 runs"). The analysis keeps the run's
/// start time, and a run analysed again is one measurement: in `runs --by` and in `history`.
pub fn a_run_analysed_again_is_one_measurement_of_its_drive() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let db = w.join("r.db");
    for (seed, out) in [("1", "s1"), ("2", "s2")] {
        ok(bin(&db)
            .args(["simulate", "960evo-250g", "--seed", seed, "-q", "--out"])
            .arg(w.join(out)));
    }
    ok(bin(&db)
        .args(["analyze", "-q", "--out"])
        .arg(w.join("a1"))
        .arg(w.join("s1/timeline.csv")));
    // The store lists all three: the analysis is a run of its own.
    assert_eq!(runs_json(db.to_str().unwrap()).len(), 3);
    let g: Vec<serde_json::Value> =
        serde_json::from_str(&ok(bin(&db).args(["runs", "--json", "--by", "drive"]))).unwrap();
    assert_eq!(g.len(), 1, "{g:?}");
    assert_eq!(g[0]["runs"], 2, "{g:?}");
    assert_eq!(g[0]["cache_bytes"]["runs"], 2, "{g:?}");
    let cache = |dir: &str| {
        let s: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(w.join(dir).join("summary.json")).unwrap(),
        )
        .unwrap();
        s["analysis"]["cache_estimate"]["bytes"].as_f64().unwrap()
    };
    let want = (cache("s1") + cache("s2")) / 2.0;
    assert_eq!(g[0]["cache_bytes"]["median"].as_f64(), Some(want), "{g:?}");
    let t = ok(bin(&db).args(["runs", "--by", "drive"]));
    assert!(
        t.lines().nth(1).is_some_and(|l| l.contains("     2  ")),
        "{t}"
    );
    // By host and by tag too: the host's two measurements, not three (`runs --by host`
    // counted the analysis as a third run and took its size into the median twice).
    for by in ["host", "tag:rack"] {
        let g: Vec<serde_json::Value> =
            serde_json::from_str(&ok(bin(&db).args(["runs", "--json", "--by", by]))).unwrap();
        assert_eq!(g.len(), 1, "{by}: {g:?}");
        assert_eq!(g[0]["runs"], 2, "{by}: {g:?}");
        assert_eq!(g[0]["cache_bytes"]["runs"], 2, "{by}: {g:?}");
        assert_eq!(
            g[0]["cache_bytes"]["median"].as_f64(),
            Some(want),
            "{by}: {g:?}"
        );
    }
    // `history` charts the drive's two measurements, not three.
    let o = ok(bin(&db)
        .args(["history", "960 EVO", "--json", "--out"])
        .arg(w.join("h")));
    let h: serde_json::Value = serde_json::from_str(&o).unwrap();
    assert_eq!(h["runs"].as_array().map(Vec::len), Some(2), "{h}");
}

/// `history hand` over three hand-made logs ("hand", "hand0", "hand-b": files that name no
/// drive) advised `--drive-kind real` for each, which matched all three again. The
/// advice now tells the drives apart by their names, and each command given charts one
/// drive.
pub fn history_advice_picks_each_drive_and_following_it_works() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let db = w.join("r.db");
    let mut text = String::from("seconds,MB/s\n");
    for i in 1..=80 {
        text.push_str(&format!("{i},{}\n", if i <= 20 { 2000 } else { 600 }));
    }
    for name in ["hand", "hand0", "hand-b"] {
        let f = w.join(format!("{name}.csv"));
        std::fs::write(&f, &text).unwrap();
        ok(bin(&db)
            .args(["analyze", "-q"])
            .arg(&f)
            .arg("--out")
            .arg(w.join(format!("an-{name}"))));
    }
    for given in ["han", "hand"] {
        let o = bin(&db)
            .args(["history", given, "--out"])
            .arg(w.join("h"))
            .output()
            .unwrap();
        if given == "hand" {
            // The drive named exactly so.
            assert_eq!(
                o.status.code(),
                Some(0),
                "{}",
                String::from_utf8_lossy(&o.stderr)
            );
            let line = String::from_utf8_lossy(&o.stdout);
            assert!(
                line.contains("history of hand (drive not recorded): 1 run"),
                "{line}"
            );
            continue;
        }
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(err.contains("matches 3 drives"), "{err}");
        let advice: Vec<&str> = err
            .lines()
            .filter_map(|l| l.trim().strip_prefix("slccache "))
            .collect();
        assert_eq!(advice.len(), 3, "{err}");
        let distinct: std::collections::BTreeSet<&str> = advice.iter().copied().collect();
        assert_eq!(distinct.len(), 3, "{err}");
        let mut charted = std::collections::BTreeSet::new();
        for (i, a) in advice.iter().enumerate() {
            let words: Vec<String> = a
                .split_whitespace()
                .map(|x| x.trim_matches('\'').to_string())
                .collect();
            let out = w.join(format!("h-{i}"));
            let line = ok(bin(&db).args(&words).arg("--out").arg(&out));
            assert!(line.contains(": 1 run"), "{a}: {line}");
            charted.insert(line.split(": 1 run").next().unwrap().to_string());
            assert!(out.join("history-cache-date.png").is_file(), "{a}");
        }
        assert_eq!(charted.len(), 3, "{charted:?}");
    }
}

/// `runs` (188 columns in a trial) and `runs --by drive` (160) were wider than an 80-column
/// terminal. On a terminal (`COLUMNS`, else its own width) they now fit it: the less
/// important columns left out first, long cells shortened, and a last line saying so;
/// `--wide`, a pipe with no `COLUMNS`, `--json` and `--csv` give every column whole.
pub fn runs_tables_fit_the_terminal_width() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let db = w.join("r.db");
    three_hosts(&db, w);
    // A drive with a long name: an emulated one made with options.
    ok(bin(&db)
        .args([
            "probe",
            "emu:960evo-250g,cache=1GB",
            "--max-bytes",
            "2GB",
            "-q",
        ])
        .arg("--out")
        .arg(w.join("p")));
    let table = |cols: Option<&str>, args: &[&str]| -> String {
        let mut c = bin(&db);
        c.env_remove("COLUMNS").arg("runs").args(args);
        if let Some(n) = cols {
            c.env("COLUMNS", n);
        }
        ok(&mut c)
    };
    let widest = |t: &str| t.lines().map(|l| l.chars().count()).max().unwrap();
    // By drive, the workload column (which tells a drive's groups apart) is never left out:
    // 80 columns hold it; 60 do not, and the table keeps it there (below).
    for (by, widths) in [(&[][..], &["80"][..]), (&["--by", "drive"], &["80"])] {
        let whole = table(None, by);
        assert!(
            widest(&whole) > 80,
            "{by:?}: the test needs a wide table:\n{whole}"
        );
        assert_eq!(table(Some("80"), &[by, &["--wide"]].concat()), whole);
        for &cols in widths {
            let fitted = table(Some(cols), by);
            let n: usize = cols.parse().unwrap();
            assert!(widest(&fitted) <= n, "{by:?} at {cols}:\n{fitted}");
            // One line per run or group, the header, and the line that says it was fitted
            // (and a note for a column given shorter, as the table says it).
            let notes = |t: &str| {
                t.lines()
                    .filter(|l| {
                        [
                            "median only:",
                            "* after cache:",
                            "† after cache:",
                            "‡ cache:",
                            "drive (sim",
                            "drive (emu",
                            "(mixed):",
                            "§ after cache:",
                            "  ",
                        ]
                        .iter()
                        .any(|p| l.starts_with(p))
                            // A numbered mark's note ("¹ drive: 960 EVO 250GB (emu), ...").
                            || l.starts_with(['¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'])
                    })
                    .count()
            };
            assert_eq!(
                fitted.lines().count() - notes(&fitted),
                whole.lines().count() + 1,
                "{fitted}"
            );
            assert!(
                fitted
                    .trim_end()
                    .ends_with("--wide shows every column whole)"),
                "{fitted}"
            );
            assert!(fitted.contains("cache"), "{fitted}");
            // The cache figures stay.
            assert!(fitted.contains("13.0 GB"), "{fitted}");
        }
    }
    let narrow = table(Some("60"), &["--by", "drive"]);
    let groups: Vec<&str> = narrow
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("median only:"))
        .collect();
    assert_eq!(groups.len(), 3, "{narrow}");
    assert!(
        groups.iter().all(|l| l.contains(" rand 4K QD32 ")),
        "{narrow}"
    );
    // The listing at 80 columns keeps the id, the drive and the cache with its interval.
    let fitted = table(Some("80"), &[]);
    let head = fitted.lines().next().unwrap();
    assert!(head.starts_with("id  "), "{fitted}");
    assert!(head.contains("cache (95% interval)"), "{fitted}");
    assert!(
        !head.contains("serial") && !head.contains("workload"),
        "{fitted}"
    );
    // --json and --csv are not tables: every field, at any width.
    assert_eq!(table(Some("40"), &["--csv"]), table(None, &["--csv"]));
    assert_eq!(table(Some("40"), &["--json"]), table(None, &["--json"]));
}

/// `history 960evo-500g` (the preset a run was simulated from) found nothing: only the model's
/// words ("960 EVO") did. A preset or spec now finds the runs made from it.
pub fn history_finds_simulated_runs_by_their_preset() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let db = w.join("r.db");
    for (seed, out) in [("1", "s1"), ("2", "s2")] {
        ok(bin(&db)
            .args(["simulate", "960evo-250g", "--seed", seed, "-q", "--out"])
            .arg(w.join(out)));
    }
    for name in ["960evo-250g", "sim:960evo-250g"] {
        let o = ok(bin(&db)
            .args(["history", name, "--json", "--out"])
            .arg(w.join(format!("h-{}", name.replace(':', "-")))));
        let h: serde_json::Value = serde_json::from_str(&o).unwrap();
        assert_eq!(h["runs"].as_array().map(Vec::len), Some(2), "{name}: {h}");
    }
}
