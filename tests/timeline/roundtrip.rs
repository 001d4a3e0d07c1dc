//! Every timeline slccache writes is read back by `analyze`, with the analysis the run itself
//! made: `simulate`, `probe` of an emulated drive, `analyze --out`, and the bursts of
//! `recovery --simulate` and `fill-sweep --simulate`.

use std::path::Path;

use assert_cmd::Command;

fn slccache() -> Command {
    let mut c = crate::common::slccache();
    c.env("SLCCACHE_HOST", "roundtrip");
    c
}

/// Whether two JSON values are equal, numbers within a relative and an absolute 1e-6
/// (the file keeps six decimals of a time and one of a rate, and the run analysed its samples
/// before they were rounded so).
fn close(a: &serde_json::Value, b: &serde_json::Value, at: &str) -> Result<(), String> {
    use serde_json::Value::*;
    match (a, b) {
        (Number(x), Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            let tol = 1e-6 * x.abs().max(y.abs()) + 1e-6;
            if (x - y).abs() <= tol {
                Ok(())
            } else {
                Err(format!("{at}: {x} != {y}"))
            }
        }
        (Array(x), Array(y)) if x.len() == y.len() => {
            for (i, (x, y)) in x.iter().zip(y).enumerate() {
                close(x, y, &format!("{at}[{i}]"))?;
            }
            Ok(())
        }
        (Object(x), Object(y)) => {
            for k in x.keys().chain(y.keys()) {
                // The id is the store's; the warnings are also the run's own (how a file was
                // read, how an emulation kept up), which its timeline does not carry.
                if k == "run_id" || k == "warnings" {
                    continue;
                }
                let n = serde_json::Value::Null;
                close(
                    x.get(k).unwrap_or(&n),
                    y.get(k).unwrap_or(&n),
                    &format!("{at}.{k}"),
                )?;
            }
            Ok(())
        }
        _ if a == b => Ok(()),
        _ => Err(format!("{at}: {a} != {b}")),
    }
}

/// `analyze --json` of `file`: it must succeed.
fn analyze(file: &Path) -> serde_json::Value {
    let o = slccache()
        .args(["analyze", "--no-record", "--json"])
        .arg(file)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "analyze {}: {}",
        file.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Runs `args` into `dir` (recorded nowhere), then analyses its timeline.csv and compares the
/// analysis with the one in its summary.json.
fn round_trip(args: &[&str], dir: &Path) {
    let o = slccache()
        .args(args)
        .args(["--no-record", "-q", "--out"])
        .arg(dir)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    let again = analyze(&dir.join("timeline.csv"));
    if let Err(e) = close(&again, &summary["analysis"], "analysis") {
        panic!("{args:?}: analyze of its timeline.csv differs: {e}");
    }
}

/// The sum of 17,544 steps of 200 ms falls a few nanoseconds short of 3508.8 s: the run
/// used to end with a row of its own for that rest (the same `t_s`, `interval_s` 0.000000),
/// which `analyze` refused as "time does not increase".
#[test]
fn simulate_writes_a_timeline_analyze_reads_back_the_same() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("sim");
    round_trip(
        &[
            "simulate",
            "960evo-250g",
            "--duration",
            "3508800ms",
            "--interval",
            "200ms",
            "--no-early-stop",
            "--max-bytes",
            "100TB",
        ],
        &dir,
    );
    let text = std::fs::read_to_string(dir.join("timeline.csv")).unwrap();
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("3508.800000,0.200000,"), "{last}");
    // A byte limit a byte or two past an interval's end: the drive writes them in nanoseconds
    // after it, which used to be a row of its own of length 0.000000 s (the time of the row
    // before), refused by `analyze` ("time does not increase"). Every row has a length now,
    // the last bytes in the interval they finished in.
    let base = [
        "simulate",
        "960evo-250g",
        "--interval",
        "100ms",
        "--no-early-stop",
        "--seed",
        "1",
    ];
    let full = d.path().join("limit");
    let o = slccache()
        .args(base)
        .args(["--max-bytes", "15GB", "--no-record", "-q", "--out"])
        .arg(&full)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(full.join("timeline.csv")).unwrap();
    for row in [149, 20] {
        let at: u64 = text
            .lines()
            .nth(row)
            .unwrap()
            .split(',')
            .nth(3)
            .unwrap()
            .parse()
            .unwrap();
        for past in [1, 2] {
            let dir = d.path().join(format!("limit-{row}-{past}"));
            let limit = (at + past).to_string();
            let o = slccache()
                .args(base)
                .args(["--max-bytes", &limit, "--no-record", "-q", "--out"])
                .arg(&dir)
                .output()
                .unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            // Read back (exit 0). Its cache estimate is not compared: a run cut by a byte
            // limit is analysed a few parts in 1e5 apart from its file, in any case.
            analyze(&dir.join("timeline.csv"));
            let text = std::fs::read_to_string(dir.join("timeline.csv")).unwrap();
            let rows: Vec<Vec<&str>> = text
                .lines()
                .skip(1)
                .map(|l| l.split(',').collect())
                .collect();
            assert!(
                rows.iter().all(|r| r[1].parse::<f64>().unwrap() > 0.0),
                "--max-bytes {limit}: a row without a length: {:?}",
                rows.last()
            );
            assert_eq!(rows.last().unwrap()[3], limit, "the limit is written");
            assert_eq!(
                rows.len(),
                row,
                "--max-bytes {limit}: the last byte in the row before"
            );
        }
    }
    // A short run with the early stop, too.
    round_trip(
        &["simulate", "970evo-500g", "--seed", "3"],
        &d.path().join("sim2"),
    );
    // A run of one sample (an interval as long as the run): too few to find a cliff, and
    // read back as such (it was refused as "at least two are needed").
    round_trip(
        &["simulate", "960evo-500g", "--interval", "1h", "--seed", "1"],
        &d.path().join("one-sample"),
    );
}

#[test]
fn probe_of_an_emulated_drive_writes_a_timeline_analyze_reads_back_the_same() {
    let d = tempfile::tempdir().unwrap();
    round_trip(
        &[
            "probe",
            "emu:960evo-250g,cache=300MB",
            "--max-bytes",
            "600MB",
            "--interval",
            "50ms",
            "--no-early-stop",
        ],
        &d.path().join("probe"),
    );
}

#[test]
fn analyze_out_writes_a_timeline_analyze_reads_back_the_same() {
    let d = tempfile::tempdir().unwrap();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    for (k, f) in [
        "real-traces/biwin_x570_1tb_fresh_seqwrite_1M_qd32_200GiB_bw.1.log",
        "kernel-cliff/stall-before-cliff.csv",
        "position/ssdslowmark-like.csv",
    ]
    .iter()
    .enumerate()
    {
        let f = data.join(f);
        round_trip(
            &["analyze", f.to_str().unwrap()],
            &d.path().join(format!("a{k}")),
        );
    }
}

/// The bursts of the experiments are timelines too: each one reads back.
#[test]
fn the_bursts_of_recovery_and_fill_sweep_read_back() {
    let d = tempfile::tempdir().unwrap();
    for (name, args) in [
        (
            "recovery",
            &[
                "recovery",
                "emu:970evo-500g",
                "--simulate",
                "--idle",
                "10s,60s",
                "--seed",
                "7",
            ][..],
        ),
        (
            "fill-sweep",
            &[
                "fill-sweep",
                "emu:660p-1tb",
                "--simulate",
                "--levels",
                "0,50",
                "--seed",
                "7",
            ][..],
        ),
    ] {
        let dir = d.path().join(name);
        let o = slccache()
            .args(args)
            .args(["--no-record", "-q", "--out"])
            .arg(&dir)
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let mut n = 0;
        for e in std::fs::read_dir(dir.join("bursts")).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "csv") {
                analyze(&p);
                n += 1;
            }
        }
        assert!(n >= 2, "{name}: {n} bursts");
    }
}

/// Regression: report.md of `analyze` of a burst's CSV said "Stop reason | unknown" of a
/// burst its experiment's summary said ended on its confirmed cliff. It now gives the reason
/// the experiment gave, and where that is none a run stops for, says it was not recorded.
#[test]
fn analyze_of_a_burst_gives_the_stop_reason_its_experiment_gave() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("recovery");
    let o = slccache()
        .args([
            "recovery",
            "960evo-250g",
            "--simulate",
            "--idle",
            "5s,30s",
            "--seed",
            "7",
            "--no-record",
            "-q",
            "--out",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    let first = &summary["recovery"]["first_burst"];
    assert_eq!(first["end"], "cliff_confirmed", "{first}");
    let csv = dir.join(first["timeline"].as_str().unwrap());
    let out = d.path().join("first");
    let o = slccache()
        .args(["analyze", "--no-record", "-q", "--out"])
        .arg(&out)
        .arg(&csv)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("| Stop reason | cliff confirmed |"), "{md}");
    assert!(!md.contains("unknown"), "{md}");
}
