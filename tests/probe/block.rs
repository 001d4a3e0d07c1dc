//! `slccache probe` against loop devices this test creates and removes: a real run, and the
//! refusals (mounted filesystem, no agreement without a terminal).
//!
//! Needs root (loop devices, mount). Outside root each test prints why it skipped; in CI
//! (`CI=true`) it must run, so there not being root is a failure.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use assert_cmd::prelude::*;
use slccache::timeline::read_slccache_csv;

use crate::common::fault_util;
use fault_util::{may_run, run};

/// A loop device over a scratch file; unmounted, detached and deleted on drop, also when the
/// test fails.
struct LoopDev {
    dev: String,
    _dir: tempfile::TempDir,
    mount: Option<tempfile::TempDir>,
    swap: bool,
}

impl LoopDev {
    fn new(size: u64, fill: u8) -> LoopDev {
        let dir = tempfile::Builder::new()
            .prefix("probe-loop-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap();
        let backing: PathBuf = dir.path().join("backing.img");
        std::fs::write(&backing, vec![fill; size as usize]).unwrap();
        let dev = run(
            "losetup",
            &["-f", "--show", "--direct-io=on", backing.to_str().unwrap()],
        );
        assert!(dev.starts_with("/dev/loop"), "losetup said {dev}");
        LoopDev {
            dev,
            _dir: dir,
            mount: None,
            swap: false,
        }
    }

    fn mount_ext4(&mut self) -> PathBuf {
        run("mkfs.ext4", &["-q", "-F", &self.dev]);
        let m = tempfile::Builder::new()
            .prefix("probe-mnt-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap();
        run("mount", &[&self.dev, m.path().to_str().unwrap()]);
        let p = m.path().to_path_buf();
        self.mount = Some(m);
        p
    }

    fn read_all(&self) -> Vec<u8> {
        std::fs::read(&self.dev).unwrap()
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        if self.swap {
            let _ = Command::new("swapoff").arg(&self.dev).status();
        }
        if let Some(m) = self.mount.take() {
            let _ = Command::new("umount").arg(m.path()).status();
        }
        let _ = Command::new("losetup").args(["-d", &self.dev]).status();
    }
}

use crate::common::slccache_process as slccache;

fn out_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("probe-out-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
}

pub fn probes_a_loop_device_it_created() {
    if !may_run("probes_a_loop_device_it_created") {
        return;
    }
    let lo = LoopDev::new(16 << 20, 0);
    let out = out_dir();
    slccache()
        .args([
            "probe",
            &lo.dev,
            "--destroy-data",
            "--bs",
            "4k",
            "--qd",
            "16",
        ])
        .args(["--interval", "50ms", "--quiet"])
        .arg("--out")
        .arg(out.path())
        .stdin(Stdio::null())
        .assert()
        .success();
    let text = std::fs::read_to_string(out.path().join("timeline.csv")).unwrap();
    let rows = read_slccache_csv(&text, "timeline.csv").unwrap();
    let sum: u64 = rows.iter().map(|r| r.bytes).sum();
    assert_eq!(sum, 16 << 20);
    assert_eq!(rows.last().unwrap().bytes_total, 16 << 20);
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("summary.json")).unwrap())
            .unwrap();
    let dev = &s["run"]["device"];
    assert_eq!(dev["kind"], "block");
    assert_eq!(dev["path"], lo.dev.as_str());
    assert_eq!(dev["capacity_bytes"], 16 << 20);
    assert_eq!(dev["logical_block_size"], 512);
    assert!(dev["physical_block_size"].is_number());
    // Every 4 KiB block of the device was written.
    let data = lo.read_all();
    for (i, b) in data.chunks(4096).enumerate() {
        assert!(b.iter().any(|&x| x != 0), "block {i} not written");
    }
}

pub fn refuses_a_block_device_without_agreement_off_a_terminal() {
    if !may_run("refuses_a_block_device_without_agreement_off_a_terminal") {
        return;
    }
    let lo = LoopDev::new(4 << 20, 0x5A);
    let before = lo.read_all();
    let out = out_dir();
    let a = slccache()
        .args(["probe", &lo.dev, "--quiet"])
        .arg("--out")
        .arg(out.path().join("o"))
        .stdin(Stdio::null())
        .assert()
        .code(1);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(err.contains("--destroy-data"), "{err}");
    assert_eq!(lo.read_all(), before, "nothing written");
    assert!(!out.path().join("o").exists());
}

pub fn refuses_a_mounted_device_and_leaves_its_files_intact() {
    if !may_run("refuses_a_mounted_device_and_leaves_its_files_intact") {
        return;
    }
    let mut lo = LoopDev::new(32 << 20, 0);
    let mnt = lo.mount_ext4();
    let file = mnt.join("precious.txt");
    let content: Vec<u8> = (0..100_000u32).flat_map(|i| i.to_le_bytes()).collect();
    std::fs::write(&file, &content).unwrap();
    run("sync", &[]);
    let out = out_dir();
    let a = slccache()
        .args(["probe", &lo.dev, "--destroy-data", "--quiet"])
        .arg("--out")
        .arg(out.path().join("o"))
        .stdin(Stdio::null())
        .assert()
        .code(1);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(err.contains("mounted"), "{err}");
    assert!(
        err.contains(mnt.to_str().unwrap()),
        "names the mount point: {err}"
    );
    assert_eq!(std::fs::read(&file).unwrap(), content);
    // Still intact after unmounting and mounting again (nothing reached the device).
    let mp = mnt.clone();
    run("umount", &[mp.to_str().unwrap()]);
    run("mount", &[&lo.dev, mp.to_str().unwrap()]);
    assert_eq!(std::fs::read(&file).unwrap(), content);
    run("fsck.ext4", &["-n", "-f", &lo.dev]);
}

// A device whose partition is mounted: tests/nvme_qemu.rs
// (`partitions_a_second_namespace_and_sigint`), on a real NVMe namespace with a partition
// table in a guest whose kernel reads it; this machine's kernel reads no partition tables on
// loop devices.

pub fn refuses_a_device_in_use_as_swap() {
    if !may_run("refuses_a_device_in_use_as_swap") {
        return;
    }
    let mut lo = LoopDev::new(8 << 20, 0);
    run("mkswap", &["-q", &lo.dev]);
    lo.swap = true;
    if !Command::new("swapon")
        .args(["-p", "-2", &lo.dev])
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
    {
        lo.swap = false;
        crate::common::skip("swapon is not allowed here");
        return;
    }
    let a = slccache()
        .args(["probe", &lo.dev, "--destroy-data", "--quiet"])
        .stdin(Stdio::null())
        .assert()
        .code(1);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(err.contains("swap"), "{err}");
}

/// A small tmpfs (or another memory filesystem) mounted for one test; unmounted on drop.
struct SmallTmpfs {
    dir: tempfile::TempDir,
}

impl SmallTmpfs {
    fn ramfs() -> SmallTmpfs {
        let dir = tempfile::Builder::new()
            .prefix("probe-ramfs-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap();
        run(
            "mount",
            &["-t", "ramfs", "ramfs", dir.path().to_str().unwrap()],
        );
        SmallTmpfs { dir }
    }

    fn new(size: &str) -> SmallTmpfs {
        let dir = tempfile::Builder::new()
            .prefix("probe-tmpfs-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap();
        run(
            "mount",
            &[
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size}"),
                "tmpfs",
                dir.path().to_str().unwrap(),
            ],
        );
        SmallTmpfs { dir }
    }
}

impl Drop for SmallTmpfs {
    fn drop(&mut self) {
        let ok = Command::new("umount")
            .arg(self.dir.path())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if !ok {
            eprintln!(
                "umount {} failed; detaching lazily",
                self.dir.path().display()
            );
            let _ = Command::new("umount")
                .arg("-l")
                .arg(self.dir.path())
                .status();
        }
    }
}

pub fn a_write_error_mid_run_stops_keeps_outputs_and_names_offset_and_time() {
    if !may_run("a_write_error_mid_run_stops_keeps_outputs_and_names_offset_and_time") {
        return;
    }
    // A sparse 16 MiB file on a 2 MiB tmpfs: writes fail with ENOSPC once 2 MiB are used.
    let fs = SmallTmpfs::new("2M");
    let f = fs.dir.path().join("sparse.bin");
    std::fs::File::create(&f)
        .unwrap()
        .set_len(16 << 20)
        .unwrap();
    let out = out_dir();
    let a = slccache()
        .args([
            "probe",
            f.to_str().unwrap(),
            "--overwrite",
            "--pattern",
            "seqwrite",
        ])
        .args(["--bs", "64k", "--qd", "4", "--interval", "20ms", "--quiet"])
        .arg("--out")
        .arg(out.path())
        .stdin(Stdio::null())
        .assert()
        .code(1);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    if err.contains("direct I/O") {
        crate::common::skip(format!("tmpfs here does not do O_DIRECT: {err}"));
        return;
    }
    assert!(err.contains("at offset") && err.contains(" s: "), "{err}");
    assert!(err.contains("No space left"), "{err}");
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(s["run"]["stop_reason"], "write_error");
    assert!(s["error"].as_str().unwrap().contains("offset"), "{s}");
    let text = std::fs::read_to_string(out.path().join("timeline.csv")).unwrap();
    let rows = read_slccache_csv(&text, "timeline.csv").unwrap();
    let total = rows.last().unwrap().bytes_total;
    assert_eq!(rows.iter().map(|r| r.bytes).sum::<u64>(), total);
    assert!(total < 16 << 20 && total > 0, "stopped part way: {total}");
    assert_eq!(s["totals"]["bytes"], total);
}

/// Runs slccache under `script` so that it has a terminal, typing `answer` at the prompt.
fn probe_on_a_terminal(dev: &str, out: &Path, answer: &str) -> (Option<i32>, String) {
    let cmd = format!(
        "{} probe {dev} --bs 64k --interval 50ms --quiet --out {}",
        assert_cmd::cargo::cargo_bin("slccache").display(),
        out.display()
    );
    let mut child = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(format!("{answer}\n").as_bytes()).unwrap();
        // Keep the pty open until the child has read the answer; closing it early sends EOF.
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    let o = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
    (o.status.code(), text)
}

pub fn on_a_terminal_the_user_types_the_device_name() {
    if !may_run("on_a_terminal_the_user_types_the_device_name") {
        return;
    }
    if Command::new("script").arg("--version").output().is_err() {
        crate::common::skip("no `script` command");
        return;
    }
    let lo = LoopDev::new(4 << 20, 0x11);
    let name = lo.dev.trim_start_matches("/dev/").to_string();
    let before = lo.read_all();
    let out = out_dir();
    // A wrong answer: refused, nothing written.
    let (code, text) = probe_on_a_terminal(&lo.dev, &out.path().join("a"), "nope");
    assert!(text.contains("Type the device name"), "{text}");
    assert!(text.contains("refusing"), "{text}");
    assert_eq!(code, Some(1), "{text}");
    assert_eq!(
        lo.read_all(),
        before,
        "nothing written after a wrong answer"
    );
    // The right answer: written.
    let (code, text) = probe_on_a_terminal(&lo.dev, &out.path().join("b"), &name);
    assert_eq!(code, Some(0), "{text}");
    assert_ne!(lo.read_all(), before);
    assert!(out.path().join("b").join("summary.json").is_file());
}

pub fn a_filesystem_without_direct_io_gets_a_clear_error() {
    if !may_run("a_filesystem_without_direct_io_gets_a_clear_error") {
        return;
    }
    // ramfs has no direct I/O at all.
    let fs = SmallTmpfs::ramfs();
    let f = fs.dir.path().join("x.bin");
    let a = slccache()
        .args(["probe", f.to_str().unwrap(), "--size", "1MiB", "--quiet"])
        .arg("--out")
        .arg(fs.dir.path().join("out"))
        .assert()
        .code(1);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(err.contains("does not support direct I/O"), "{err}");
    assert!(!f.exists(), "the file it created is removed again");
    assert!(!fs.dir.path().join("out").exists());
}

/// The probe refuses the device that holds the root filesystem; skipped where `/` is on no
/// block device (an overlay or a tmpfs, as in a container).
pub fn the_root_device_is_refused() {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata("/").unwrap();
    let dev = (rustix::fs::major(m.dev()), rustix::fs::minor(m.dev()));
    if dev.0 == 0 {
        crate::common::skip("/ is not on a block device here (overlay or tmpfs)");
        return;
    }
    let e =
        slccache::device::block::check_block_not_in_use("/dev/root-under-test", dev).unwrap_err();
    let s = e.to_string();
    assert!(s.contains("root filesystem"), "{s}");
}

/// `--engine io-uring-cmd` sends NVMe commands: on a loop device (not NVMe) it is refused with
/// exit 2 before anything is written, by `probe`, `sweep` and `recovery` alike.
pub fn the_passthrough_engine_refuses_a_device_that_is_not_nvme() {
    if !may_run("the_passthrough_engine_refuses_a_device_that_is_not_nvme") {
        return;
    }
    let lo = LoopDev::new(8 << 20, 0x3C);
    let before = lo.read_all();
    let out = out_dir();
    for (i, cmd) in [
        vec!["probe", &lo.dev],
        vec!["sweep", &lo.dev, "--point-duration", "1s"],
        vec!["recovery", &lo.dev, "--idle", "1s"],
    ]
    .into_iter()
    .enumerate()
    {
        let dir = out.path().join(format!("o{i}"));
        let a = slccache()
            .args(&cmd)
            .args([
                "--engine",
                "io-uring-cmd",
                "--destroy-data",
                "--quiet",
                "--out",
            ])
            .arg(&dir)
            .stdin(Stdio::null())
            .assert()
            .code(2);
        let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
        assert!(
            err.contains("is not an NVMe namespace") && err.lines().count() == 1,
            "{}: {err}",
            cmd[0]
        );
        assert!(!dir.exists(), "{}: no output folder", cmd[0]);
    }
    assert_eq!(lo.read_all(), before, "nothing written");
}
