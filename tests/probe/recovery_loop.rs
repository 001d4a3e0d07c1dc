//! `slccache recovery` in real time on a loop device this test creates, with a kernel-made
//! cliff that recovers while idle (as `scripts/loop-cliff.sh` makes its cliff): the test puts
//! slccache in a cgroup-v1 blkio child and plays the drive's cache itself, watching the
//! sectors written in `/sys/block/loopN/stat`. The write limit is high while the "cache" has
//! room and low once CACHE bytes went in; after DELAY without writes the cache comes back at
//! RATE bytes/s and the limit goes up again. This checks the mechanics: the pauses, the
//! bursts stopping at their cliffs, the outputs.
//!
//! Needs root (loop devices, cgroups) and cgroup v1 blkio throttling. Outside root it says why
//! it skips; in CI (`CI=true`) it must run.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::fault_util;
use fault_util::{is_root, run};

const CG_ROOT: &str = "/sys/fs/cgroup/blkio";

fn may_run(test: &str) -> bool {
    let ci = std::env::var("CI").map(|v| v == "true").unwrap_or(false);
    if !is_root() {
        assert!(
            !ci,
            "{test}: CI=true but not running as root; loop devices need root"
        );
        crate::common::skip("loop devices and cgroups need root (run the tests as root)");
        return false;
    }
    let throttle = Path::new(CG_ROOT).join("blkio.throttle.write_bps_device");
    if !throttle.exists() {
        assert!(
            !ci,
            "{test}: CI=true but cgroup v1 blkio throttling is missing at {CG_ROOT}"
        );
        crate::common::skip(format!(
            "cgroup v1 blkio throttling is not available at {CG_ROOT}"
        ));
        return false;
    }
    true
}

/// Everything the test makes, removed on drop (also when the test fails): the child process,
/// the cgroup, the loop device and its backing file.
struct Rig {
    child: Option<Child>,
    cg: PathBuf,
    dev: String,
    _dir: tempfile::TempDir,
}

impl Rig {
    fn new(size: u64) -> Rig {
        let dir = tempfile::Builder::new()
            .prefix("recovery-loop-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap();
        let backing = dir.path().join("backing.img");
        let f = std::fs::File::create(&backing).unwrap();
        f.set_len(size).unwrap();
        drop(f);
        let dev = run(
            "losetup",
            &["-f", "--show", "--direct-io=on", backing.to_str().unwrap()],
        );
        assert!(dev.starts_with("/dev/loop"), "losetup said {dev}");
        let cg = Path::new(CG_ROOT).join(format!(
            "slccache-recovery-test-{}-{}",
            std::process::id(),
            dev.trim_start_matches("/dev/")
        ));
        let rig = Rig {
            child: None,
            cg: cg.clone(),
            dev,
            _dir: dir,
        };
        std::fs::create_dir(&cg).unwrap();
        rig
    }

    fn majmin(&self) -> String {
        let name = self.dev.trim_start_matches("/dev/");
        std::fs::read_to_string(format!("/sys/block/{name}/dev"))
            .unwrap()
            .trim()
            .to_string()
    }

    fn set_limit(&self, bps: u64) {
        std::fs::write(
            self.cg.join("blkio.throttle.write_bps_device"),
            format!("{} {bps}", self.majmin()),
        )
        .unwrap();
    }

    /// Bytes written to the device so far (field 7 of its stat: 512-byte sectors).
    fn written(&self) -> u64 {
        let name = self.dev.trim_start_matches("/dev/");
        let stat = std::fs::read_to_string(format!("/sys/block/{name}/stat")).unwrap();
        let sectors: u64 = stat.split_whitespace().nth(6).unwrap().parse().unwrap();
        sectors * 512
    }
}

impl Drop for Rig {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
        if self.cg.exists() {
            if let Ok(procs) = std::fs::read_to_string(self.cg.join("cgroup.procs")) {
                for p in procs.lines() {
                    let _ = std::fs::write(Path::new(CG_ROOT).join("cgroup.procs"), p);
                }
            }
            let _ = std::fs::remove_dir(&self.cg);
        }
        let _ = Command::new("losetup").args(["-d", &self.dev]).status();
    }
}

/// Was ignored on 2026-12-01 (it failed in about two of five full runs on this VM) for two
/// shapes the detector missed: a start-up burst above the throttle (241, 257 MB/s, then 199)
/// taken for a 0.3 s cache phase (`tests/data/kernel-cliff/startup-burst.csv`), and a slow
/// phase swinging 21-58 MB/s in which no change was found (`swinging-slow-phase.csv`). Both
/// are regression tests in `defects_detect.rs` now.
pub fn recovery_on_a_loop_device_with_a_kernel_made_cliff() {
    if !may_run("recovery_on_a_loop_device_with_a_kernel_made_cliff") {
        return;
    }
    // The throttle counts each loop write about twice: the rates seen are about half these.
    // Intervals of 200 ms: the slow limit lets writes through in clumps that 100 ms
    // samples see as zeros and spikes, and at 500 ms the 1.5 s cache phase was only three
    // samples, which the detector missed (tests/data/kernel-cliff/short-start-phase.csv).
    // A 512 MiB cache (2.7 s at the fast limit) for the same reason: with 256 MiB a CI run at
    // 0.2 s samples still put the first cliff 44% late, after a clumpy stretch right after it.
    const FAST: u64 = 200_000_000;
    const SLOW: u64 = 40_000_000;
    const CACHE: f64 = 512.0 * 1048576.0;
    const RATE: f64 = 80e6;
    const DELAY: f64 = 0.5;
    let mut rig = Rig::new(2 << 30);
    rig.set_limit(FAST);
    let out = tempfile::Builder::new()
        .prefix("recovery-loop-out-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let bin = env!("CARGO_BIN_EXE_slccache");
    // A shell moves itself into the cgroup, then becomes slccache.
    let script = format!(
        "echo $$ > {procs} && exec {bin} recovery {dev} --destroy-data --idle 1s,4s --seed 1 \
         --bs 1M --qd 8 --interval 200ms --after-cliff 1s --out {out} --quiet",
        procs = rig.cg.join("cgroup.procs").display(),
        dev = rig.dev,
        out = out.path().display(),
    );
    rig.child = Some(
        Command::new("sh")
            .args(["-c", &script])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    // Play the drive's cache until slccache exits.
    let mut left = CACHE;
    let mut fast = true;
    let mut last = rig.written();
    let mut last_write = Instant::now();
    let mut tick = Instant::now();
    let status = loop {
        if let Some(st) = rig.child.as_mut().unwrap().try_wait().unwrap() {
            break st;
        }
        std::thread::sleep(Duration::from_millis(5));
        let now = Instant::now();
        let dt = (now - tick).as_secs_f64();
        tick = now;
        let w = rig.written();
        if w > last {
            // Writes after the cliff go past the cache: they do not use it up further.
            left = (left - (w - last) as f64).max(0.0);
            last = w;
            last_write = now;
            if fast && left <= 0.0 {
                rig.set_limit(SLOW);
                fast = false;
            }
        } else if (now - last_write).as_secs_f64() > DELAY {
            left = (left + RATE * dt).min(CACHE);
            if !fast && left > 1e6 {
                rig.set_limit(FAST);
                fast = true;
            }
        }
    };
    let child = rig.child.take().unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(
        status.success(),
        "slccache failed: {}\n{}",
        String::from_utf8_lossy(&o.stderr),
        String::from_utf8_lossy(&o.stdout)
    );
    let s: Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(s["interrupted"], false);
    assert_eq!(s["run"]["device"]["kind"], "block");
    // The first burst stopped at its cliff, near the cache the test played.
    let first = &s["recovery"]["first_burst"];
    let first_rows =
        std::fs::read_to_string(out.path().join("bursts/00-first.csv")).unwrap_or_default();
    assert_eq!(first["end"], "cliff_confirmed", "{first}\n{first_rows}");
    let c0 = first["cache_bytes"].as_f64().unwrap();
    assert!(
        (c0 / CACHE - 1.0).abs() < 0.25,
        "first burst found {c0}\n{first}\n{first_rows}"
    );
    // Both pauses happened, longest first, and each was followed by a burst of its own; the
    // settling step (the longest idle and a burst, not a point) came before them.
    assert_eq!(s["recovery"]["order_s"], serde_json::json!([4.0, 1.0]));
    assert_eq!(s["recovery"]["settling"]["idle_s"], 4.0);
    assert_eq!(
        s["totals"]["idle_s"].as_f64().unwrap(),
        4.0 + 5.0,
        "{}\n{first_rows}\n{}",
        s["recovery"],
        s["warnings"]
    );
    let points = s["recovery"]["points"].as_array().unwrap();
    assert_eq!(points.len(), 2);
    assert_eq!(points[0]["idle_s"], 1.0);
    assert_eq!(points[1]["idle_s"], 4.0);
    let (r1, r3) = (
        points[0]["recovered_bytes"].as_f64().unwrap(),
        points[1]["recovered_bytes"].as_f64().unwrap(),
    );
    eprintln!(
        "first burst {c0:.0} B (played {CACHE:.0}); idle 1 s: {r1:.0} B, idle 4 s: {r3:.0} B"
    );
    assert!(r3 > r1, "4 s of idle brought back {r3}, 1 s {r1}");
    for p in points {
        let t = p["burst"]["timeline"].as_str().unwrap();
        let rows = std::fs::read_to_string(out.path().join(t)).unwrap();
        assert!(rows.lines().count() > 5, "{t} has too few rows");
        assert!(p["burst"]["bytes_written"].as_u64().unwrap() > 0);
    }
    for f in [
        "recovery.csv",
        "recovery.png",
        "recovery.svg",
        "recovery-bursts.png",
        "report.md",
    ] {
        assert!(out.path().join(f).is_file(), "{f} missing");
    }
}
