//! `slccache probe` against regular files: the timeline, the summary, the stop rules, the
//! refusals, the sync engine and Ctrl-C.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use assert_cmd::prelude::*;
use std::sync::Arc;

use slccache::engine::uring::{setup_error_hint, UringBackend};
use slccache::engine::{Backend, Completion, WriteOp};
use slccache::timeline::{read_slccache_csv, Sample, CSV_COLUMNS};

/// A scratch folder on the build's filesystem (target/tmp), where O_DIRECT works on ext4 and
/// tmpfs alike; /tmp may be an overlay.
fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("probe-file-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
}

use crate::common::slccache_process as slccache;

fn read_rows(dir: &Path) -> (String, Vec<Sample>) {
    let text = std::fs::read_to_string(dir.join("timeline.csv")).unwrap();
    let rows = read_slccache_csv(&text, "timeline.csv").unwrap();
    (text, rows)
}

fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

fn check_conservation(rows: &[Sample]) {
    assert!(!rows.is_empty(), "no rows");
    let mut total = 0;
    let mut prev_t = 0.0;
    for r in rows {
        total += r.bytes;
        assert_eq!(r.bytes_total, total, "running total at t={}", r.t_s);
        assert!(r.t_s > prev_t, "time goes forward");
        assert!(
            (r.t_s - r.interval_s - prev_t).abs() < 1e-5,
            "intervals tile the run"
        );
        prev_t = r.t_s;
        if r.interval_s > 0.0 {
            let rate = r.bytes as f64 / r.interval_s;
            // interval_s is written to the microsecond: over a short last row (a stop right
            // after a sample boundary leaves one of 0.6 ms) that rounding alone moves the
            // rate by up to 0.5 µs / interval_s (0.08 % at 0.6 ms).
            let rounding = rate * 0.5e-6 / r.interval_s;
            assert!(
                (r.bytes_per_sec - rate).abs() <= 0.1 + rate * 1e-4 + rounding,
                "row at t={} s: {} B in {} s is {rate} B/s, the row says {}",
                r.t_s,
                r.bytes,
                r.interval_s,
                r.bytes_per_sec
            );
        }
    }
}

pub fn one_random_pass_over_a_new_file() {
    let d = scratch();
    let f = d.path().join("scratch.bin");
    let out = d.path().join("out");
    slccache()
        .args(["probe", f.to_str().unwrap(), "--size", "8MiB", "--bs", "4k"])
        .args(["--qd", "8", "--interval", "50ms", "--seed", "3", "--quiet"])
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let (text, rows) = read_rows(&out);
    assert_eq!(text.lines().next().unwrap(), CSV_COLUMNS.join(","));
    for line in text.lines() {
        assert_eq!(line.split(',').count(), CSV_COLUMNS.len(), "{line}");
    }
    check_conservation(&rows);
    assert_eq!(rows.last().unwrap().bytes_total, 8 << 20, "one pass");
    let s = summary(&out);
    for key in [
        "slccache_version",
        "config",
        "run",
        "totals",
        "interrupted",
        "error",
        "analysis",
    ] {
        assert!(s.get(key).is_some(), "summary.json lacks {key}");
    }
    assert_eq!(s["totals"]["bytes"], 8 << 20);
    assert_eq!(s["totals"]["writes"], 2048);
    // No --max-bytes: the run ended its one pass over the file.
    assert_eq!(s["run"]["stop_reason"], "span_written");
    assert_eq!(s["run"]["device"]["kind"], "file");
    assert_eq!(s["run"]["device"]["capacity_bytes"], 8 << 20);
    assert_eq!(s["run"]["workload"]["engine"], "io_uring");
    assert_eq!(s["config"]["workload"]["queue_depth"], 8);
    assert_eq!(s["interrupted"], false);
    assert_eq!(s["analysis"]["bytes_total"], 8 << 20);
    // Every block was written once, with data unlike any other block.
    let data = std::fs::read(&f).unwrap();
    assert_eq!(data.len(), 8 << 20);
    let mut seen = HashSet::new();
    for (i, b) in data.chunks(4096).enumerate() {
        assert!(b.iter().any(|&x| x != 0), "block {i} was not written");
        assert!(seen.insert(b.to_vec()), "block {i} repeats another block");
    }
}

pub fn duration_stops_the_run() {
    let d = scratch();
    let f = d.path().join("s.bin");
    let out = d.path().join("out");
    slccache()
        .args(["probe", f.to_str().unwrap(), "--size", "1MiB"])
        .args([
            "--pattern",
            "seqwrite",
            "--bs",
            "64k",
            "--qd",
            "4",
            "--jobs",
            "2",
        ])
        // One pass over the span stays the limit with --duration unless --max-bytes says more
        // (a 1 MiB file needs a larger cap to run for the duration).
        .args([
            "--duration",
            "1s",
            "--max-bytes",
            "1PB",
            "--interval",
            "100ms",
            "--quiet",
        ])
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let (_, rows) = read_rows(&out);
    check_conservation(&rows);
    let s = summary(&out);
    assert_eq!(s["run"]["stop_reason"], "duration");
    assert_eq!(s["run"]["workload"]["jobs"], 2);
    assert_eq!(
        s["config"]["plan"]["write_limit"].as_u64(),
        Some(1_000_000_000_000_000 / 65536 + 1),
        "--max-bytes sets the write limit"
    );
    let last = rows.last().unwrap();
    assert!(last.t_s >= 1.0, "ran until the duration: {}", last.t_s);
    assert_eq!(s["totals"]["bytes"], last.bytes_total);
}

pub fn sequential_passes_wrap_at_the_end_of_the_span() {
    let d = scratch();
    let f = d.path().join("s.bin");
    let out = d.path().join("out");
    slccache()
        .args([
            "probe",
            f.to_str().unwrap(),
            "--size",
            "2MiB",
            "--span",
            "1MiB",
        ])
        .args([
            "--pattern",
            "seqwrite",
            "--bs",
            "64k",
            "--qd",
            "4",
            "--jobs",
            "2",
        ])
        .args(["--max-bytes", "3MiB", "--quiet"])
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let (_, rows) = read_rows(&out);
    check_conservation(&rows);
    assert_eq!(rows.last().unwrap().bytes_total, 3 << 20, "three passes");
    let data = std::fs::read(&f).unwrap();
    for (i, b) in data.chunks(65536).enumerate() {
        let written = b.iter().any(|&x| x != 0);
        assert_eq!(written, i < 16, "block {i}: only the 1 MiB span is written");
    }
}

pub fn max_bytes_and_the_sync_engine() {
    let d = scratch();
    let f = d.path().join("s.bin");
    let out = d.path().join("out");
    slccache()
        .args([
            "probe",
            f.to_str().unwrap(),
            "--size",
            "4MiB",
            "--engine",
            "sync",
        ])
        .args([
            "--max-bytes",
            "3MiB",
            "--bs",
            "16k",
            "--qd",
            "4",
            "--jobs",
            "2",
        ])
        .args(["--interval", "20ms", "--quiet"])
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let (_, rows) = read_rows(&out);
    check_conservation(&rows);
    assert_eq!(rows.last().unwrap().bytes_total, 3 << 20);
    let s = summary(&out);
    assert_eq!(s["run"]["workload"]["engine"], "sync");
    assert_eq!(s["run"]["workload"]["jobs"], 2);
    // 3 MiB of 16 KiB random blocks over a 4 MiB span: 192 distinct blocks written.
    let data = std::fs::read(&f).unwrap();
    let written = data
        .chunks(16384)
        .filter(|b| b.iter().any(|&x| x != 0))
        .count();
    assert_eq!(written, 192);
}

pub fn an_existing_file_needs_overwrite() {
    let d = scratch();
    let f = d.path().join("keep.bin");
    let content = vec![0xA5u8; 1 << 20];
    std::fs::write(&f, &content).unwrap();
    let out = d.path().join("out");
    let a = slccache()
        .args(["probe", f.to_str().unwrap(), "--quiet"])
        .arg("--out")
        .arg(&out)
        .assert()
        .code(1);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(err.contains("--overwrite"), "{err}");
    assert_eq!(std::fs::read(&f).unwrap(), content, "file untouched");
    assert!(!out.exists(), "no outputs for a refused run");
    // With --overwrite it is written.
    slccache()
        .args(["probe", f.to_str().unwrap(), "--overwrite", "--quiet"])
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    assert_ne!(std::fs::read(&f).unwrap(), content);
}

pub fn usage_errors_come_before_any_write() {
    let d = scratch();
    let f = d.path().join("new.bin");
    // No --size for a new file.
    slccache()
        .args(["probe", f.to_str().unwrap(), "--quiet"])
        .assert()
        .code(2);
    // A block size that direct I/O cannot do: refused, and the file is not left behind.
    let a = slccache()
        .args([
            "probe",
            f.to_str().unwrap(),
            "--size",
            "1MiB",
            "--bs",
            "1000",
        ])
        .arg("--quiet")
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(err.contains("--bs"), "{err}");
    assert!(!f.exists(), "no file created for a usage error");
    // A span larger than the file.
    slccache()
        .args([
            "probe",
            f.to_str().unwrap(),
            "--size",
            "1MiB",
            "--span",
            "2MiB",
        ])
        .arg("--quiet")
        .assert()
        .code(2);
    assert!(!f.exists());
}

pub fn sigint_drains_writes_outputs_and_exits_130() {
    stop_with_signal(libc::SIGINT);
}

pub fn sigterm_drains_writes_outputs_and_exits_130() {
    stop_with_signal(libc::SIGTERM);
}

fn stop_with_signal(sig: i32) {
    let d = scratch();
    let f = d.path().join("s.bin");
    let out = d.path().join("out");
    let child = slccache()
        .args([
            "probe",
            f.to_str().unwrap(),
            "--size",
            "4MiB",
            "--duration",
            "10m",
            "--max-bytes",
            "1PB",
        ])
        .args(["--interval", "50ms", "--quiet", "--qd", "4"])
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until at least two rows are on disk (a hang guard, not a timing check).
    let csv = out.join("timeline.csv");
    let give_up = Instant::now() + Duration::from_secs(120);
    while std::fs::read_to_string(&csv)
        .map(|t| t.lines().count() < 3)
        .unwrap_or(true)
    {
        assert!(Instant::now() < give_up, "no rows appeared");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, sig) };
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("interrupted"), "{err}");
    let (_, rows) = read_rows(&out);
    check_conservation(&rows);
    let s = summary(&out);
    assert_eq!(s["interrupted"], true);
    assert_eq!(s["run"]["stop_reason"], "interrupted");
    assert_eq!(s["totals"]["bytes"], rows.last().unwrap().bytes_total);
}

pub fn default_output_folder_is_named_after_the_target() {
    let d = scratch();
    let f: PathBuf = d.path().join("myscratch.bin");
    let a = slccache()
        .current_dir(d.path())
        .args(["probe", f.to_str().unwrap(), "--size", "256KiB", "--quiet"])
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&a.get_output().stdout).to_string();
    let outputs = d.path().join("output");
    let entries: Vec<String> = std::fs::read_dir(&outputs)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert!(entries[0].starts_with("myscratch-"), "{entries:?}");
    assert!(
        stdout.contains(&entries[0]),
        "tells where outputs went: {stdout}"
    );
    assert!(outputs.join(&entries[0]).join("summary.json").is_file());
}

/// One run over all of a new file, with the terminal's output, for the words that name the
/// target and why the run stopped.
fn one_pass_over_a_file(d: &Path, extra: &[&str]) -> (String, PathBuf) {
    let f = d.join("whole.bin");
    let out = d.join("out");
    let o = slccache()
        .args(["probe", f.to_str().unwrap(), "--size", "16MiB"])
        .args(["--pattern", "seqwrite", "--bs", "1M", "--interval", "50ms"])
        .args(extra)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    (text, out)
}

/// Many passes over a file said "wrote 20.0 GB in 5.4 s (3690 MB/s mean) ... filling the whole
/// file (67.1 MB) completes at 2735 MB/s on average": two means of one run on one line. Past
/// one pass, the second is said as the first pass's rate.
pub fn a_wrapped_run_gives_the_first_pass_s_rate_as_the_first_pass_s() {
    let d = scratch();
    let (text, out) = one_pass_over_a_file(d.path(), &["--max-bytes", "3GB"]);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    // The first pass's rate is given as the first pass's where it was measured apart: past
    // the first sample (a fast disk writes 16 MiB inside the first 50 ms, and then no rate
    // is given for it: one sample's rate over many passes is no first pass's).
    let s = summary(&out);
    let first = s["analysis"]["coverage"]["whole_fill_bytes_per_sec"].is_number();
    let rows = slccache::timeline::read_slccache_csv(
        &std::fs::read_to_string(out.join("timeline.csv")).unwrap(),
        "timeline.csv",
    )
    .unwrap();
    assert_eq!(
        first,
        rows[0].bytes_total < 16 << 20,
        "{}",
        s["analysis"]["coverage"]
    );
    for (name, o) in [("the terminal", &text), ("report.md", &md)] {
        assert_eq!(
            o.contains("the first pass over the whole file (16.8 MB) ran at"),
            first,
            "{name}: {o}"
        );
        assert!(!o.contains("completes at"), "{name}: {o}");
        assert!(o.contains("passes over the 16.8 MB span"), "{name}: {o}");
    }
    // The card cut the wrap's clause off its one note line (its headline is checked on a
    // simulated run, whose timing does not vary: simulate cli::a_wrapped_run_without_a_
    // cliff_is_bounded_by_its_span_on_the_card).
    let a: slccache::detect::Analysis = serde_json::from_value(s["analysis"].clone()).unwrap();
    let u = slccache::units::UnitSystem::Decimal;
    let parts = slccache::report::pages::card::card_note_parts(&a, u);
    assert!(
        parts.iter().any(|p| p.starts_with("the writes wrapped: ")),
        "{parts:?}"
    );
}

/// A file whose size is no whole number of blocks (20,000,000 bytes in 1 MiB blocks) was
/// "the whole 19.9 MB span", with the advice "--span, or the whole drive": the span, the file
/// rounded down to whole blocks, did not match its size.
pub fn a_file_of_no_whole_number_of_blocks_is_still_the_file() {
    let d = scratch();
    let out = d.path().join("out");
    let o = slccache()
        .args(["probe", d.path().join("odd.bin").to_str().unwrap()])
        .args(["--size", "20MB", "--pattern", "seqwrite", "--bs", "1M"])
        .args(["--interval", "20ms", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(text.contains("filling the whole file ("), "{text}");
    assert!(!text.contains("span completes"), "{text}");
    let c = &summary(&out)["analysis"]["coverage"];
    assert_eq!(c["span_is_file"], true, "{c}");
}

/// A 134,000,000-byte file written in 1 MiB blocks said "filling the whole file (133 MB)"
/// (its span, rounded down to whole blocks) where `runs --by drive` and the report's drive
/// line say 134 MB. Where the two figures differ both are given, and the card's headline
/// calls the span's figure the span's.
pub fn a_file_s_span_short_of_its_size_gives_both_figures() {
    let d = scratch();
    let u = slccache::units::UnitSystem::Decimal;
    let both = "the whole file (133 MB of its 134 MB, in whole blocks)";
    for (name, extra) in [("one", &[][..]), ("wrapped", &["--max-bytes", "300MB"][..])] {
        let out = d.path().join(name);
        let o = slccache()
            .args([
                "probe",
                d.path().join(format!("{name}.bin")).to_str().unwrap(),
            ])
            .args(["--size", "134MB", "--pattern", "seqwrite"])
            .args(["--bs", "1M", "--interval", "20ms"])
            .args(extra)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(
            o.status.success(),
            "{text}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let md = std::fs::read_to_string(out.join("report.md")).unwrap();
        let s = summary(&out);
        let a: slccache::detect::Analysis = serde_json::from_value(s["analysis"].clone()).unwrap();
        let note = slccache::report::pages::card::card_note(&a, u).unwrap_or_default();
        for (what, o) in [
            ("the terminal", &text),
            ("report.md", &md),
            ("the card", &note),
        ] {
            assert!(o.contains(both), "{name}, {what}: {o}");
            assert!(!o.contains("whole file (133 MB)"), "{name}, {what}: {o}");
        }
        assert!(md.contains(&format!("{name}.bin, 134 MB |")), "{md}");
        assert_eq!(s["analysis"]["coverage"]["target_bytes"], 134_000_000u64);
        if name == "wrapped" {
            let t = slccache::timeline::import::load(&out.join("timeline.csv")).unwrap();
            let (_, head, _, _) = slccache::report::pages::card::card_texts(&t, &a, u);
            assert!(
                head.starts_with("No cliff over the 133 MB span, written "),
                "{head}"
            );
        }
    }
    // A file that is a whole number of blocks has one figure, as before.
    let (text, out) = one_pass_over_a_file(d.path(), &[]);
    assert!(text.contains("the whole file (16.8 MB)"), "{text}");
    assert!(summary(&out)["analysis"]["coverage"]
        .get("target_bytes")
        .is_none());
}

/// A regular file written to its end is "the whole file", never "the whole drive": the
/// terminal, report.md, the card and summary.json (`span_is_file`, not `span_is_drive`).
pub fn a_file_written_whole_is_called_the_file_not_the_drive() {
    let d = scratch();
    let (text, out) = one_pass_over_a_file(d.path(), &[]);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let s = summary(&out);
    let a: slccache::detect::Analysis = serde_json::from_value(s["analysis"].clone()).unwrap();
    let note = slccache::report::pages::card::card_note(&a, slccache::units::UnitSystem::Decimal)
        .unwrap_or_default();
    for (name, o) in [
        ("the terminal", &text),
        ("report.md", &md),
        ("report.html", &html),
        ("the card", &note),
    ] {
        assert!(
            o.contains("filling the whole file (16.8 MB) completes at"),
            "{name}: {o}"
        );
        assert!(!o.contains("whole drive"), "{name}: {o}");
    }
    let c = &s["analysis"]["coverage"];
    assert_eq!(c["span_is_file"], true, "{c}");
    assert_eq!(c["span_is_drive"], false, "{c}");
}

/// A run given no --max-bytes ends its one pass over the file and says that, in the terminal,
/// report.md and summary.json alike; "byte limit reached" only when --max-bytes was given and
/// reached.
pub fn the_stop_reason_says_one_pass_or_byte_limit_as_it_was() {
    let d = scratch();
    let (text, out) = one_pass_over_a_file(d.path(), &[]);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let s = summary(&out);
    assert!(
        text.contains("stopped: one pass over the span written"),
        "{text}"
    );
    assert!(
        md.contains("| Stop reason | one pass over the span written |"),
        "{md}"
    );
    for (name, o) in [("the terminal", &text), ("report.md", &md)] {
        assert!(!o.contains("byte limit"), "{name}: {o}");
    }
    assert_eq!(s["run"]["stop_reason"], "span_written");
    assert_eq!(s["stop"]["reason"], "span_written");

    // A long --duration without the early stop ends at the pass too, and says so.
    let d = scratch();
    let (text, out) = one_pass_over_a_file(d.path(), &["--duration", "30m", "--no-early-stop"]);
    assert!(
        text.contains("stopped: one pass over the span written"),
        "{text}"
    );
    assert_eq!(summary(&out)["run"]["stop_reason"], "span_written");

    let d = scratch();
    let (text, out) = one_pass_over_a_file(d.path(), &["--max-bytes", "8MiB"]);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let s = summary(&out);
    assert!(text.contains("stopped: byte limit reached"), "{text}");
    assert!(md.contains("| Stop reason | byte limit reached |"), "{md}");
    assert_eq!(s["run"]["stop_reason"], "max_bytes");
    assert_eq!(s["stop"]["reason"], "max_bytes");
    assert_eq!(s["totals"]["bytes"], 8 << 20);
}

/// The io_uring engine writes each buffer at its offset and reads one back (on a file, so
/// it runs without root); skipped where io_uring cannot be set up here.
pub fn uring_writes_and_reads_land_where_asked() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f");
    std::fs::write(&p, vec![0u8; 1 << 16]).unwrap();
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&p)
        .unwrap();
    let mut b = match UringBackend::new(Arc::new(f), 2, 4096, 4096, 1) {
        Ok(b) => b,
        Err(e) => {
            crate::common::skip(setup_error_hint(&e));
            return;
        }
    };
    b.buffer_mut(0).fill(7);
    b.buffer_mut(1).fill(9);
    for (buf, off) in [(0usize, 8192u64), (1, 0)] {
        b.push(WriteOp {
            offset: off,
            len: 4096,
            buf,
            user_data: buf as u64 + 100,
        })
        .unwrap();
    }
    let mut out = Vec::new();
    while out.len() < 2 {
        b.submit_and_wait(2 - out.len(), Duration::from_secs(5), &mut out)
            .unwrap();
    }
    out.sort_by_key(|c| c.user_data);
    assert_eq!(
        out,
        vec![
            Completion {
                user_data: 100,
                result: 4096,
                latency: None,
            },
            Completion {
                user_data: 101,
                result: 4096,
                latency: None,
            }
        ]
    );
    // Reads fill a buffer from the file.
    b.push_read(WriteOp {
        offset: 8192,
        len: 4096,
        buf: 1,
        user_data: 5,
    })
    .unwrap();
    // With no timeout (the job loop's wait): returns once the read is done.
    let mut out = Vec::new();
    b.submit_and_wait(1, slccache::engine::NO_TIMEOUT, &mut out)
        .unwrap();
    assert_eq!(out[0].result, 4096);
    assert!(b.buffer_mut(1).iter().all(|&x| x == 7));
    drop(b);
    let data = std::fs::read(&p).unwrap();
    assert!(data[8192..12288].iter().all(|&x| x == 7));
    assert!(data[..4096].iter().all(|&x| x == 9));
    assert!(data[4096..8192].iter().all(|&x| x == 0));
}
