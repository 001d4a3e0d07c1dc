//! report.html in a real browser: headless Chromium (Debian's `chromium`, installed by .ci/run)
//! loads the report of a probe, an analyze, a simulate and a compare, with the network
//! disabled. Each must load with no console message at all, run its script to the end, pass the
//! page's own self-test (axis switch, run legend, tooltip) and give a screenshot of the
//! expected size that is not blank. Without Chromium the test fails under CI=true and says
//! why it skips otherwise.

use std::path::{Path, PathBuf};
use std::process::Command;

fn slccache() -> Command {
    Command::new(env!("CARGO_BIN_EXE_slccache"))
}

fn run_ok(c: &mut Command) {
    let o = c.output().unwrap();
    assert!(
        o.status.success(),
        "{c:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

fn chromium() -> Option<PathBuf> {
    for name in ["chromium", "chromium-browser"] {
        for dir in std::env::var("PATH").unwrap_or_default().split(':') {
            let p = Path::new(dir).join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// Runs Chromium headless on `url` with `extra` arguments and a fresh profile; returns
/// (stdout, console lines from the log).
fn browse(chrome: &Path, profile: &Path, url: &str, extra: &[&str]) -> (String, Vec<String>) {
    let o = Command::new(chrome)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            // No network at all: every host resolves nowhere.
            "--host-resolver-rules=MAP * ~NOTFOUND",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&o.stderr);
    let console: Vec<String> = log
        .lines()
        .filter(|l| l.contains(":CONSOLE") || l.contains("Uncaught"))
        .map(|l| l.to_string())
        .collect();
    assert!(o.status.success(), "chromium failed on {url}: {log}");
    (String::from_utf8_lossy(&o.stdout).into_owned(), console)
}

/// (width, height, distinct colours, share of pixels that are not the background) of a PNG.
fn png_stats(path: &Path) -> (u32, u32, usize, f64) {
    let dec = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut r = dec.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size()];
    let info = r.next_frame(&mut buf).unwrap();
    let ch = info.color_type.samples();
    let px: Vec<&[u8]> = buf[..info.buffer_size()].chunks(ch).collect();
    let bg = px[0];
    let mut colours = std::collections::HashSet::new();
    let mut ink = 0usize;
    for p in &px {
        colours.insert(p[..3].to_vec());
        if p[..3] != bg[..3] {
            ink += 1;
        }
    }
    (
        info.width,
        info.height,
        colours.len(),
        ink as f64 / px.len() as f64,
    )
}

fn check_report(chrome: &Path, work: &Path, name: &str, html: &Path, legend: bool) {
    let text = std::fs::read_to_string(html).unwrap();
    // Offline by construction: a CSP that forbids all loads, and no address to load from (the
    // SVG namespace names are identifiers, not loads).
    assert!(text.contains("default-src 'none'"), "{name}: no CSP");
    let stripped = text
        .replace("http://www.w3.org/2000/svg", "")
        .replace("http://www.w3.org/1999/xlink", "");
    assert!(
        !stripped.contains("http://") && !stripped.contains("https://"),
        "{name}: report.html names a network address"
    );
    assert!(!text.contains("<text"), "{name}: SVG text left as <text>");
    let url = format!("file://{}", html.display());
    let profile = work.join(format!("profile-{name}"));
    let (dom, console) = browse(
        chrome,
        &profile,
        &format!("{url}#selftest"),
        &["--dump-dom", "--window-size=1280,1600"],
    );
    assert!(console.is_empty(), "{name}: console output: {console:#?}");
    assert!(
        dom.contains("data-ready=\"yes\""),
        "{name}: the script did not finish"
    );
    let st = dom
        .split("data-selftest=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap_or_else(|| panic!("{name}: no self-test result"));
    assert!(st.contains("switch:ok"), "{name}: {st}");
    assert!(st.contains("tooltip:ok"), "{name}: {st}");
    assert!(!st.contains("fail"), "{name}: {st}");
    if legend {
        assert!(st.contains("legend:ok"), "{name}: {st}");
    }
    let shot = work.join(format!("{name}.png"));
    let (_, console) = browse(
        chrome,
        &profile,
        &url,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1280,1600",
            "--hide-scrollbars",
        ],
    );
    assert!(console.is_empty(), "{name}: console output: {console:#?}");
    let (w, h, colours, ink) = png_stats(&shot);
    assert_eq!((w, h), (1280, 1600), "{name}: screenshot size");
    assert!(colours > 50, "{name}: only {colours} colours: blank?");
    assert!(ink > 0.05, "{name}: {:.1}% drawn: blank?", ink * 100.0);
    if let Some(d) = std::env::var_os("SLCCACHE_GALLERY") {
        let d = PathBuf::from(d);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::copy(&shot, d.join(format!("browser-{name}.png"))).unwrap();
    }
}

pub fn reports_open_offline_in_chromium_without_console_messages() {
    let Some(chrome) = chromium() else {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("chromium is not installed (.ci/run installs it)");
        }
        crate::common::skip("chromium is not installed (apt-get install chromium)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    // simulate: the fx700 run the charts were tuned on (3.4 hours in virtual time).
    let sim = w.join("sim");
    run_ok(
        slccache()
            .args(["simulate", "fx700-2tb", "--pattern", "seqwrite", "--out"])
            .arg(&sim),
    );
    // probe: an emulated drive in real time, short.
    let probe = w.join("probe");
    run_ok(
        slccache()
            .args([
                "probe",
                "emu:960evo-250g,cache=300MB",
                "--pattern",
                "seqwrite",
                "--interval",
                "100ms",
                "--max-bytes",
                "900MB",
                "--quiet",
                "--seed",
                "1",
                "--out",
            ])
            .arg(&probe),
    );
    // analyze: a real fio log from tests/data.
    let ana = w.join("analyze");
    run_ok(
        slccache()
            .arg("analyze")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(
                "tests/data/real-traces/biwin_x570_1tb_fresh_seqwrite_1M_qd32_200GiB_bw.1.log",
            ))
            .arg("--out")
            .arg(&ana),
    );
    // compare: the three, dark, aligned on the cliff.
    let cmp = w.join("compare");
    run_ok(
        slccache()
            .arg("compare")
            .arg(&sim)
            .arg(&probe)
            .arg(&ana)
            .args(["--label", "fx700,emulated,biwin", "--align", "cliff"])
            .args(["--theme", "dark", "--out"])
            .arg(&cmp),
    );
    for (name, d, legend) in [
        ("simulate", &sim, false),
        ("probe", &probe, false),
        ("analyze", &ana, false),
        ("compare", &cmp, true),
    ] {
        check_report(&chrome, w, name, &d.join("report.html"), legend);
    }
}

/// A run of a million samples still makes a small report.html: charts and tooltip data are
/// reduced to the pixel columns.
pub fn a_million_samples_make_a_small_report_html() {
    use crate::common::report_util;
    let (t, a) = report_util::million();
    let dir = tempfile::tempdir().unwrap();
    let files = slccache::report::write_charts_and_report(
        dir.path(),
        &t,
        &a,
        &slccache::report::ReportOptions::default(),
    )
    .unwrap();
    let html = files
        .iter()
        .find(|f| f.ends_with("report.html"))
        .expect("report.html written");
    let len = std::fs::metadata(html).unwrap().len();
    assert!(len < 3_000_000, "report.html is {len} bytes");
}

/// `args`, run in `dir` (not recorded); panics with stderr when it fails.
fn ok_in(dir: &Path, args: &[&str]) {
    let mut c = slccache();
    c.current_dir(dir).args(args);
    // compare records no run: it takes no --no-record.
    if args.first() != Some(&"compare") {
        c.arg("--no-record");
    }
    run_ok(&mut c);
}

// Analysing a run again dropped the Host, Drive health, drive-count and
// Thermal rows from report.md and report.html, although summary.json kept them.
pub fn analysing_a_run_again_keeps_its_host_and_drive_rows() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    ok_in(
        p,
        &[
            "probe",
            "emu:960evo-250g",
            "--duration",
            "3s",
            "-q",
            "--out",
            "run",
        ],
    );
    let rows = [
        "| Host |",
        "| Drive health |",
        "| Written, by the drive's count |",
        "| Thermal management |",
    ];
    let md = std::fs::read_to_string(p.join("run/report.md")).unwrap();
    for r in rows {
        assert!(md.contains(r), "the probe's report.md has {r}");
    }
    ok_in(p, &["analyze", "run", "--out", "run"]);
    ok_in(p, &["analyze", "run/timeline.csv", "--out", "again"]);
    for dir in ["run", "again"] {
        let md = std::fs::read_to_string(p.join(dir).join("report.md")).unwrap();
        let html = std::fs::read_to_string(p.join(dir).join("report.html")).unwrap();
        for r in rows {
            assert!(md.contains(r), "{dir}/report.md lost {r}:\n{md}");
            let th = format!("<th>{}</th>", r.trim_matches(['|', ' ']));
            assert!(html.contains(&th), "{dir}/report.html has no {th}");
        }
        let v: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(p.join(dir).join("summary.json")).unwrap(),
        )
        .unwrap();
        assert!(
            v["host"].is_object() && v["drive_state"].is_object(),
            "{dir}: {v}"
        );
    }
}

// Report.html's "Drive state" was a raw dump of snake_case keys,
// smart_end.* before smart_start.*, values without units; its table lacked report.md's rows.
pub fn report_html_drive_state_reads_as_a_table_with_units() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    ok_in(
        p,
        &[
            "probe",
            "emu:960evo-250g",
            "--duration",
            "3s",
            "-q",
            "--trim",
            "--out",
            "run",
        ],
    );
    let html = std::fs::read_to_string(p.join("run/report.html")).unwrap();
    let at = html
        .find("<h2>Drive state</h2>")
        .expect("a drive state section");
    let sec = &html[at..at + html[at..].find("</section>").unwrap()];
    assert!(!sec.contains("smart_"), "no raw keys: {sec}");
    assert!(!sec.contains('_'), "no snake_case: {sec}");
    assert!(
        sec.contains("<th>at the start</th><th>at the end</th><th>change</th>"),
        "{sec}"
    );
    assert!(sec.contains("<th>Data written</th><td>0 B</td>"), "{sec}");
    assert!(sec.contains("<th>Power-on hours</th><td>0 h</td>"), "{sec}");
    assert!(sec.contains("Free SLC cache at the start (model)"), "{sec}");
    assert!(
        html.contains("<th>Drive health</th>"),
        "the summary table has report.md's rows"
    );
}

// A comparison of 12 runs repeated the run date twelve times in the header,
// and its legend's colours repeated.
pub fn a_comparison_of_12_runs_dates_once_and_tells_every_run_apart() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let mut dirs = Vec::new();
    for i in 0..12 {
        let name = format!("r{i:02}");
        ok_in(
            p,
            &[
                "simulate",
                "960evo-250g",
                "--seed",
                &i.to_string(),
                "--max-bytes",
                "20GB",
                "--out",
                &name,
            ],
        );
        dirs.push(name);
    }
    let mut args: Vec<&str> = vec!["compare"];
    args.extend(dirs.iter().map(String::as_str));
    args.extend(["--out", "cmp"]);
    ok_in(p, &args);
    let html = std::fs::read_to_string(p.join("cmp/report.html")).unwrap();
    let meta = html
        .lines()
        .find(|l| l.starts_with("<p class=\"meta\">"))
        .unwrap();
    assert!(meta.contains("12 runs"), "{meta}");
    assert!(
        meta.matches("UTC").count() == 1,
        "one date, not one per run: {meta}"
    );
    let swatches: Vec<&str> = html
        .split("<svg class=\"swatch\"")
        .skip(1)
        .map(|s| &s[..s.find("/>").unwrap()])
        .collect();
    assert_eq!(swatches.len(), 12);
    let distinct: std::collections::BTreeSet<&str> = swatches.iter().copied().collect();
    assert_eq!(
        distinct.len(),
        12,
        "every run's swatch differs: {swatches:#?}"
    );
}

/// Analysing a run again in its own folder replaced the command that reproduces the run (in
/// report.html, and so in the results store) with the analyze command. The run's own command
/// stays first, and the analyze commands that followed are named after it, once each.
pub fn analysing_a_run_again_keeps_the_command_that_made_it() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    ok_in(
        p,
        &[
            "simulate",
            "960evo-250g",
            "--seed",
            "3",
            "-q",
            "--out",
            "run",
        ],
    );
    let cmd = |dir: &str| {
        let html = std::fs::read(p.join(dir).join("report.html")).unwrap();
        slccache::report::pages::html::command_of(&html).expect("a command line")
    };
    assert_eq!(
        cmd("run"),
        "slccache simulate 960evo-250g --seed 3 -q --out run --no-record"
    );
    for _ in 0..2 {
        ok_in(
            p,
            &[
                "analyze",
                "run/timeline.csv",
                "--out",
                "run",
                "--force",
                "-q",
            ],
        );
        assert_eq!(
            cmd("run"),
            "slccache simulate 960evo-250g --seed 3 -q --out run --no-record\n\
             # analysed again by: slccache analyze run/timeline.csv --out run --force -q \
             --no-record"
        );
    }
    // A folder of its own is the analyze run's: its command is the analyze command.
    ok_in(p, &["analyze", "run/timeline.csv", "--out", "again", "-q"]);
    assert_eq!(
        cmd("again"),
        "slccache analyze run/timeline.csv --out again -q --no-record"
    );
    // With a store named (`--db`), whose value is masked where it must be: the command was
    // masked whole, which quoted its last word across the newline and the '#' ("... '-q\n#'
    // analysed again by: ..."), and the next analysis in place read back "slccache '(command'
    // line not shown: it named a 'store)".
    let rec = |args: &[&str]| {
        let mut c = slccache();
        c.current_dir(p).args(args);
        run_ok(&mut c);
    };
    rec(&[
        "simulate",
        "960evo-250g",
        "--seed",
        "3",
        "--db",
        "s.db",
        "-q",
        "--out",
        "db",
    ]);
    for _ in 0..2 {
        rec(&[
            "analyze",
            "db/timeline.csv",
            "--out",
            "db",
            "--db",
            "s.db",
            "-q",
        ]);
        assert_eq!(
            cmd("db"),
            "slccache simulate 960evo-250g --seed 3 --db s.db -q --out db\n\
             # analysed again by: slccache analyze db/timeline.csv --out db --db s.db -q"
        );
    }
}
