//! Helpers for the fault tests: loop devices, small tmpfs mounts and cgroups that the tests
//! create and remove again on drop (also when a test fails), and the root/CI rule.
#![allow(dead_code)]

pub mod fuse;

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

pub fn ci() -> bool {
    std::env::var("CI").map(|v| v == "true").unwrap_or(false)
}

/// True when a root-only test may run; false (after saying why) when it must skip. Under
/// CI=true not being root is a failure.
pub fn may_run(test: &str) -> bool {
    if is_root() {
        return true;
    }
    assert!(
        !ci(),
        "{test}: CI=true but not running as root; loop devices need root"
    );
    crate::common::skip("loop devices, mounts and cgroups need root");
    false
}

/// Runs a command that must succeed; returns its trimmed stdout.
pub fn run(cmd: &str, args: &[&str]) -> String {
    let o = Command::new(cmd)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd}: {e}"));
    assert!(
        o.status.success(),
        "{cmd} {args:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

/// A scratch folder under the build's target/tmp.
pub fn scratch(prefix: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
}

pub fn slccache() -> Command {
    Command::new(assert_cmd::cargo::cargo_bin("slccache"))
}

/// A tmpfs of a given size mounted for one test; unmounted on drop.
pub struct Tmpfs {
    pub dir: tempfile::TempDir,
}

impl Tmpfs {
    pub fn new(size: &str) -> Tmpfs {
        let dir = scratch("fault-tmpfs-");
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
        Tmpfs { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let ok = Command::new("umount")
            .arg(self.dir.path())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if !ok {
            let _ = Command::new("umount")
                .arg("-l")
                .arg(self.dir.path())
                .status();
        }
    }
}

/// A loop device over a sparse backing file; detached on drop (the caller's folder holds the
/// backing file and removes it).
pub struct LoopDev {
    pub dev: String,
    pub backing: PathBuf,
}

impl LoopDev {
    /// A loop device over a new sparse file of `size` bytes at `backing`.
    pub fn sparse(backing: &Path, size: u64, direct_io: bool) -> LoopDev {
        std::fs::File::create(backing)
            .unwrap()
            .set_len(size)
            .unwrap();
        LoopDev::attach(backing, direct_io)
    }

    /// A loop device over the file `backing` as it is, with or without direct I/O.
    pub fn attach(backing: &Path, direct_io: bool) -> LoopDev {
        let dio = if direct_io {
            "--direct-io=on"
        } else {
            "--direct-io=off"
        };
        let dev = run("losetup", &["-f", "--show", dio, backing.to_str().unwrap()]);
        assert!(dev.starts_with("/dev/loop"), "losetup said {dev}");
        LoopDev {
            dev,
            backing: backing.to_path_buf(),
        }
    }

    /// `loopN`.
    pub fn name(&self) -> &str {
        self.dev.trim_start_matches("/dev/")
    }

    /// `MAJ:MIN`.
    pub fn majmin(&self) -> String {
        std::fs::read_to_string(format!("/sys/block/{}/dev", self.name()))
            .unwrap()
            .trim()
            .to_string()
    }

    /// Bytes written to the device so far, from its own counter (sectors written, always in
    /// 512-byte units).
    pub fn bytes_written(&self) -> u64 {
        let s = std::fs::read_to_string(format!("/sys/block/{}/stat", self.name())).unwrap();
        let sectors: u64 = s.split_whitespace().nth(6).unwrap().parse().unwrap();
        sectors * 512
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        let _ = Command::new("losetup").args(["-d", &self.dev]).status();
    }
}

/// A loop device over a backing file filled with one byte value, in a scratch folder of its
/// own: detached, and the folder removed, on drop (also when the test fails).
pub struct ScratchLoop {
    /// The device (declared first: it is detached before the folder goes).
    pub lo: LoopDev,
    _dir: tempfile::TempDir,
}

impl ScratchLoop {
    /// `size` bytes of `fill`, attached with or without direct I/O; `prefix` names the folder.
    pub fn filled(prefix: &str, size: usize, fill: u8, direct_io: bool) -> ScratchLoop {
        let dir = scratch(prefix);
        let backing = dir.path().join("backing.img");
        std::fs::write(&backing, vec![fill; size]).unwrap();
        ScratchLoop {
            lo: LoopDev::attach(&backing, direct_io),
            _dir: dir,
        }
    }

    /// The device's path, `/dev/loopN`.
    pub fn dev(&self) -> &str {
        &self.lo.dev
    }
}

/// A cgroup-v1 blkio child group, named with the test's pid; on drop its processes go back
/// to the root group and it is removed.
pub struct BlkioGroup {
    pub dir: PathBuf,
}

pub const BLKIO_ROOT: &str = "/sys/fs/cgroup/blkio";

impl BlkioGroup {
    /// None (after saying why) when cgroup-v1 blkio throttling is not available here.
    pub fn new(name: &str) -> Option<BlkioGroup> {
        let root = Path::new(BLKIO_ROOT);
        if !root.join("blkio.throttle.write_bps_device").exists() {
            return None;
        }
        let dir = root.join(format!("slccache-{name}-{}", std::process::id()));
        std::fs::create_dir(&dir).unwrap();
        Some(BlkioGroup { dir })
    }

    pub fn set_write_bps(&self, majmin: &str, bps: u64) {
        std::fs::write(
            self.dir.join("blkio.throttle.write_bps_device"),
            format!("{majmin} {bps}\n"),
        )
        .unwrap();
    }
}

impl Drop for BlkioGroup {
    fn drop(&mut self) {
        let procs = std::fs::read_to_string(self.dir.join("cgroup.procs")).unwrap_or_default();
        for p in procs.lines() {
            let _ = std::fs::write(Path::new(BLKIO_ROOT).join("cgroup.procs"), p);
        }
        for _ in 0..100 {
            if std::fs::remove_dir(&self.dir).is_ok() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        eprintln!("could not remove the cgroup {}", self.dir.display());
    }
}

/// A child process killed (SIGKILL) and reaped on drop unless it has ended.
pub struct Child(pub Option<std::process::Child>);

impl Child {
    pub fn pid(&self) -> i32 {
        self.0.as_ref().unwrap().id() as i32
    }

    pub fn wait(mut self) -> std::process::Output {
        self.0.take().unwrap().wait_with_output().unwrap()
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        if let Some(c) = self.0.as_mut() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

pub fn signal(pid: i32, sig: i32) {
    // SAFETY: kill has no memory-safety preconditions; pid is a child this test started and
    // has not reaped, so it cannot have been reused.
    let r = unsafe { libc::kill(pid, sig) };
    assert_eq!(r, 0, "kill({pid}, {sig}) failed");
}

/// A cliff made by the kernel: `slccache probe` of `lo` (seqwrite, 256 KiB blocks, QD4,
/// 200 ms samples, `total` bytes) inside the blkio group `cg`, whose write limit on the
/// device starts at `fast` bytes/s and drops to `slow` once the device's own counter has
/// taken `switch` bytes. Returns the probe's output and the bytes the device had taken when
/// the limit dropped (None when it never got there).
pub fn probe_with_kernel_cliff(
    lo: &LoopDev,
    cg: &BlkioGroup,
    out: &Path,
    (fast, slow): (u64, u64),
    switch: u64,
    total: u64,
) -> (std::process::Output, Option<u64>) {
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let majmin = lo.majmin();
    cg.set_write_bps(&majmin, fast);
    let base = lo.bytes_written();
    // A shell moves itself into the group, then becomes the probe.
    let script = format!(
        "echo $$ > {}/cgroup.procs && exec \"$0\" \"$@\"",
        cg.dir.display()
    );
    let child = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(assert_cmd::cargo::cargo_bin("slccache"))
        .args(["probe", &lo.dev, "--destroy-data", "--pattern", "seqwrite"])
        .args([
            "--bs",
            "256k",
            "--qd",
            "4",
            "--interval",
            "200ms",
            "--quiet",
        ])
        .args(["--max-bytes", &total.to_string()])
        .arg("--out")
        .arg(out)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = Child(Some(child));
    let started = Instant::now();
    let mut switched = None;
    loop {
        if child.0.as_mut().unwrap().try_wait().unwrap().is_some() {
            break;
        }
        if switched.is_none() && lo.bytes_written() - base >= switch {
            cg.set_write_bps(&majmin, slow);
            switched = Some(lo.bytes_written() - base);
        }
        // A hang guard only: such a run takes about ten seconds.
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "the probe hangs"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    (child.wait(), switched)
}
