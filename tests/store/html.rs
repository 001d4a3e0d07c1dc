//! `slccache runs --html DIR`: the library page in headless Chromium (as tests/report_html.rs
//! loads report.html): offline, no console message, its filters by drive and host work (the
//! page's own self-test), and every link opens a run's report.html written beside it.

use crate::common::store_util;

use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;

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

/// Chromium headless on `url` with no network; returns (stdout, console lines).
fn browse(chrome: &Path, profile: &Path, url: &str, size: &str) -> (String, Vec<String>) {
    let o = Command::new(chrome)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--dump-dom",
        ])
        .arg(format!("--window-size={size}"))
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(url)
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "chromium failed on {url}: {log}");
    let console = log
        .lines()
        .filter(|l| l.contains(":CONSOLE") || l.contains("Uncaught"))
        .map(String::from)
        .collect();
    (String::from_utf8_lossy(&o.stdout).into_owned(), console)
}

pub fn the_library_page_lists_filters_and_links_every_run() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let db = w.join("r.db");
    let db_s = db.to_str().unwrap();
    // Two drives recorded on this host, and one imported folder (host unknown).
    for (i, preset) in ["960evo-250g", "p5-1tb"].iter().enumerate() {
        store_util::ok(
            store_util::slccache(&db)
                .args(["simulate", preset, "--seed", &i.to_string(), "--out"])
                .arg(w.join(format!("s{i}"))),
        );
    }
    let old = w.join("old");
    store_util::ok(
        Command::cargo_bin("slccache")
            .unwrap()
            .args([
                "--no-record",
                "simulate",
                "960evo-250g",
                "--seed",
                "5",
                "--out",
            ])
            .arg(&old),
    );
    let mut c = Command::cargo_bin("slccache").unwrap();
    store_util::ok(c.args(["--db", db_s, "runs", "import"]).arg(&old));
    let page = w.join("lib");
    let mut c = Command::cargo_bin("slccache").unwrap();
    let out = store_util::ok(c.args(["--db", db_s, "runs", "--html"]).arg(&page));
    assert!(out.contains("3 runs"), "{out}");
    let html = std::fs::read_to_string(page.join("index.html")).unwrap();
    assert!(html.contains("default-src 'none'"));
    assert_eq!(html.matches("<polyline").count(), 3, "a sparkline per run");
    for id in 1..=3 {
        assert!(html.contains(&format!("href=\"{id}/report.html\"")));
        assert!(page.join(format!("{id}/report.html")).is_file());
    }
    let Some(chrome) = chromium() else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "chromium is not installed (.ci/run installs it)"
        );
        crate::common::skip("the browser part: chromium is not installed");
        return;
    };
    let url = format!("file://{}#selftest", page.join("index.html").display());
    let (dom, console) = browse(&chrome, &w.join("profile"), &url, "1280,1000");
    assert!(console.is_empty(), "console output: {console:#?}");
    assert!(
        dom.contains("data-ready=\"yes\""),
        "the script did not finish"
    );
    let st = dom
        .split("data-selftest=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .expect("no self-test result");
    assert!(st.contains("all:3"), "{st}");
    assert!(
        st.contains("drive:ok") && st.contains("host:ok") && st.contains("reset:ok"),
        "{st}"
    );
    assert!(!st.contains("fail"), "{st}");
}

/// The library page once scrolled sideways in a 1400 px window (long drive names and cache
/// intervals on one line each): its long cells now wrap, and only the table's own box may
/// scroll. Measured in Chromium: the page's width is the window's.
pub fn the_library_page_fits_1400_px() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let db = w.join("r.db");
    let db_s = db.to_str().unwrap();
    for (i, preset) in ["870evo-4tb", "660p-1tb", "970evo-500g", "fx700-2tb"]
        .iter()
        .enumerate()
    {
        store_util::ok(
            store_util::slccache(&db)
                .args(["simulate", preset, "--seed", &i.to_string(), "--out"])
                .arg(w.join(format!("s{i}"))),
        );
    }
    let page = w.join("lib");
    let mut c = Command::cargo_bin("slccache").unwrap();
    store_util::ok(c.args(["--db", db_s, "runs", "--html"]).arg(&page));
    let Some(widths) = widths_at_1400_px(&page, w) else {
        return;
    };
    assert!(
        widths[0] <= widths[1],
        "the page is {} px wide in a {} px window",
        widths[0],
        widths[1]
    );
}

/// The library page's table was about 1650 px wide in a 1400 px window (every cell on one
/// line but the drive, serial and cache: a long host name, workloads, rates) and scrolled
/// sideways in its own box, which the page's width did not show. Now every cell but the id
/// and date wraps, between words, never inside a figure: the table fits the window.
pub fn the_library_page_s_table_fits_1400_px() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path();
    let db = w.join("r.db");
    let db_s = db.to_str().unwrap();
    let long_host = "a-rather-long-host-name.lab.example.internal";
    for (i, (host, args)) in [
        ("vm", &["960evo-500g", "--pattern", "seqwrite"][..]),
        ("vm", &["870evo-4tb,in=560MB/s"]),
        ("vm", &["870evo-4tb,link=sata-3g"]),
        (long_host, &["660p-1tb"]),
        (
            long_host,
            &["p5-1tb", "--pattern", "seqwrite", "--bs", "1M"],
        ),
    ]
    .iter()
    .enumerate()
    {
        store_util::ok(
            store_util::slccache(&db)
                .args(["--host", host, "simulate"])
                .args(*args)
                .args(["--seed", &i.to_string(), "-q", "--out"])
                .arg(w.join(format!("s{i}"))),
        );
    }
    let page = w.join("lib");
    let mut c = Command::cargo_bin("slccache").unwrap();
    store_util::ok(c.args(["--db", db_s, "runs", "--html"]).arg(&page));
    let Some(widths) = widths_at_1400_px(&page, w) else {
        return;
    };
    assert!(
        widths[0] <= widths[1] && widths[2] <= widths[3],
        "in a {} px window the page is {} px wide, and the table {} px in a box of {} px",
        widths[1],
        widths[0],
        widths[2],
        widths[3]
    );
    // A figure stays whole on its line: `22.0 GB`, not `22.0` above `GB`.
    let html = std::fs::read_to_string(page.join("index.html")).unwrap();
    assert!(html.contains("\u{a0}MB/s"), "{html}");
}

/// `dir`'s index.html in headless Chromium at 1400x900: the page's scrollWidth and
/// clientWidth, then the table box's; `None` (the test skipped) without Chromium.
fn widths_at_1400_px(dir: &Path, work: &Path) -> Option<Vec<u32>> {
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    let Some(chrome) = chromium() else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "chromium is not installed (.ci/run installs it)"
        );
        crate::common::skip("chromium is not installed");
        return None;
    };
    // The page with a line of script that writes its widths into the DOM.
    let probe = html.replace(
        "</body>",
        "<script>var t=document.querySelector('.table');\
         document.body.setAttribute('data-widths',\
         document.documentElement.scrollWidth+' '+document.documentElement.clientWidth\
         +' '+t.scrollWidth+' '+t.clientWidth)</script></body>",
    );
    let measure = dir.join("measure.html");
    std::fs::write(&measure, probe).unwrap();
    let url = format!("file://{}", measure.display());
    let (dom, console) = browse(&chrome, &work.join("profile"), &url, "1400,900");
    assert!(console.is_empty(), "console output: {console:#?}");
    Some(
        dom.split("data-widths=\"")
            .nth(1)
            .and_then(|s| s.split('"').next())
            .expect("no widths measured")
            .split(' ')
            .map(|v| v.parse().unwrap())
            .collect(),
    )
}
