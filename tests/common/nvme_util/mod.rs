//! The QEMU rig for tests/nvme_qemu.rs: a guest with an emulated NVMe controller (QEMU's
//! `-device nvme`, under software emulation), driven by the guest's real Linux NVMe driver,
//! with the slccache binary that cargo built for this test run inside it.
//!
//! - [`Rig::find`]: QEMU, a guest kernel and a static busybox, unpacked by `.ci/install-qemu`
//!   into one folder (`SLCCACHE_QEMU_DIR`, default `/opt/slccache-qemu`). Missing: the test
//!   skips and says why; under `CI=true` that is a failure.
//! - The initramfs: a newc cpio written here (no cpio tool needed) with busybox, the binary
//!   under test stripped of its debug info, its shared libraries and loader, and an `/init`
//!   made from the test's own shell script ([`Script`]).
//! - [`Guest`]: QEMU started with the controllers and drives a test asks for, a QMP socket
//!   ([`Qmp`]), and the serial console on a pipe. The guest's script sends results back on
//!   the console as base64 blobs between marker lines, and can stop at a named point
//!   (`sync NAME`) until the host has done something there (asked QMP for the bytes written,
//!   for instance) and answered.
//! - Cleanup: QEMU is killed and reaped, and its folder (initramfs, socket, images, console
//!   log) removed, on drop, also when the test fails. A guest that does not power off within
//!   its timeout is killed, and the failure message holds its console log.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Default folder of the unpacked QEMU, kernel and busybox (see `.ci/install-qemu`).
pub const DEFAULT_DIR: &str = "/opt/slccache-qemu";

/// How long a guest may run before it is taken as hung and killed: generous, because the
/// guest is emulated in software on a machine that others share. `SLCCACHE_QEMU_TIMEOUT`
/// (seconds) overrides it.
pub const GUEST_TIMEOUT: Duration = Duration::from_secs(240);

fn ci() -> bool {
    std::env::var("CI").map(|v| v == "true").unwrap_or(false)
}

/// What a guest needs from the machine.
#[derive(Debug, Clone)]
pub struct Rig {
    /// The unpacked folder.
    pub dir: PathBuf,
    /// `qemu-system-x86_64`.
    pub qemu: PathBuf,
    /// The guest kernel (`vmlinuz-*-cloud-amd64`: NVMe built in).
    pub kernel: PathBuf,
    /// Debian's generic kernel flavour, for the AHCI guest (`generic/` in the folder: the
    /// cloud kernel has no AHCI driver), where `.ci/install-qemu` has added it.
    pub generic: Option<GenericKernel>,
    /// A static busybox for the guest's userland.
    pub busybox: PathBuf,
    /// QEMU's version as its NVMe controller reports it for the firmware ("7.2.22").
    pub qemu_version: String,
}

impl Rig {
    /// The rig, or None after saying why the test skips. Under CI=true a missing rig is a
    /// failure (the test must run there).
    pub fn find(test: &str) -> Option<Rig> {
        match Rig::locate() {
            Ok(r) => Some(r),
            Err(why) => {
                assert!(
                    !ci(),
                    "{test}: CI=true but the QEMU rig is missing: {why} (run .ci/install-qemu)"
                );
                crate::common::skip(format!("{why} (as root, .ci/install-qemu installs it)"));
                None
            }
        }
    }

    fn locate() -> Result<Rig, String> {
        if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
            return Err("the rig boots an x86_64 Linux guest; this is not x86_64 Linux".into());
        }
        let dir = PathBuf::from(
            std::env::var("SLCCACHE_QEMU_DIR").unwrap_or_else(|_| DEFAULT_DIR.to_string()),
        );
        if !dir.join(".complete").is_file() {
            return Err(format!("no QEMU rig in {}", dir.display()));
        }
        let qemu = dir.join("usr/bin/qemu-system-x86_64");
        let busybox = dir.join("bin/busybox");
        let kernel = std::fs::read_dir(dir.join("boot"))
            .map_err(|e| format!("{}/boot: {e}", dir.display()))?
            .flatten()
            .map(|e| e.path())
            .find(|p| {
                p.file_name().is_some_and(|n| {
                    let n = n.to_string_lossy();
                    n.starts_with("vmlinuz-") && n.contains("cloud")
                })
            })
            .ok_or_else(|| format!("no guest kernel in {}/boot", dir.display()))?;
        for p in [&qemu, &busybox] {
            if !p.is_file() {
                return Err(format!("{} is missing", p.display()));
            }
        }
        for tool in ["strip", "ldd", "tar"] {
            if Command::new("sh")
                .args(["-c", &format!("command -v {tool}")])
                .output()
                .map(|o| !o.status.success())
                .unwrap_or(true)
            {
                return Err(format!("no `{tool}` on this machine"));
            }
        }
        let rig = Rig {
            qemu_version: String::new(),
            generic: GenericKernel::locate(&dir.join("generic")),
            dir,
            qemu,
            kernel,
            busybox,
        };
        let o = rig
            .command()
            .arg("--version")
            .output()
            .map_err(|e| format!("cannot run {}: {e}", rig.qemu.display()))?;
        let text = String::from_utf8_lossy(&o.stdout).to_string();
        // "QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3)"
        let version = text
            .split_whitespace()
            .skip_while(|w| *w != "version")
            .nth(1)
            .ok_or_else(|| format!("cannot read QEMU's version from {text:?}"))?
            .to_string();
        Ok(Rig {
            qemu_version: version,
            ..rig
        })
    }

    /// The rig with the generic kernel, or None after saying why the test skips (a rig
    /// installed before the generic kernel was part of it); under CI=true, a failure.
    pub fn find_generic(test: &str) -> Option<(Rig, GenericKernel)> {
        let rig = Rig::find(test)?;
        match rig.generic.clone() {
            Some(g) => Some((rig, g)),
            None => {
                let why = format!(
                    "no generic kernel in {}/generic (the AHCI guest needs it)",
                    rig.dir.display()
                );
                assert!(!ci(), "{test}: CI=true but {why} (run .ci/install-qemu)");
                crate::common::skip(format!("{why}; as root, .ci/install-qemu adds it"));
                None
            }
        }
    }

    /// QEMU with its modules (the TCG accelerator is one) and firmware found in the folder.
    fn command(&self) -> Command {
        let mut c = Command::new(&self.qemu);
        c.env(
            "QEMU_MODULE_DIR",
            self.dir.join("usr/lib/x86_64-linux-gnu/qemu"),
        );
        c.arg("-L")
            .arg(self.dir.join("usr/share/qemu"))
            .arg("-L")
            .arg(self.dir.join("usr/share/seabios"));
        c
    }
}

/// Debian's generic kernel flavour as `.ci/install-qemu` unpacks it into `generic/`: its
/// image, and the modules an ATA disk needs (drivers/ata, drivers/scsi, block, lib, crypto).
#[derive(Debug, Clone)]
pub struct GenericKernel {
    /// `generic/boot/vmlinuz-*`.
    pub image: PathBuf,
    /// `generic/lib/modules/RELEASE/kernel`.
    pub modules: PathBuf,
}

impl GenericKernel {
    fn locate(dir: &Path) -> Option<GenericKernel> {
        if !dir.join(".complete").is_file() {
            return None;
        }
        let first = |d: PathBuf, prefix: &str| {
            std::fs::read_dir(d)
                .ok()?
                .flatten()
                .map(|e| e.path())
                .find(|p| {
                    p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
                })
        };
        let image = first(dir.join("boot"), "vmlinuz-")?;
        let modules = first(dir.join("lib/modules"), "")?.join("kernel");
        modules.is_dir().then_some(GenericKernel { image, modules })
    }

    /// The `.ko` files that load `wanted` (module names), in an order `insmod` takes them:
    /// each after the modules its `depends=` (in the file's `.modinfo`) names. Names with
    /// `-` and `_` are the same module, as the kernel takes them.
    pub fn load_order(&self, wanted: &[&str]) -> Vec<(String, PathBuf)> {
        let norm = |n: &str| n.replace('-', "_");
        let mut files = HashMap::new();
        let mut stack = vec![self.modules.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if let Some(stem) = p
                    .file_name()
                    .and_then(|n| n.to_str())
                    .and_then(|n| n.strip_suffix(".ko"))
                {
                    files.insert(norm(stem), p);
                }
            }
        }
        fn visit(
            name: &str,
            files: &HashMap<String, PathBuf>,
            seen: &mut Vec<String>,
            out: &mut Vec<(String, PathBuf)>,
        ) {
            let key = name.replace('-', "_");
            if seen.contains(&key) {
                return;
            }
            seen.push(key.clone());
            let path = files
                .get(&key)
                .unwrap_or_else(|| panic!("no module {name} in the generic kernel's modules"));
            for dep in module_depends(&std::fs::read(path).unwrap()) {
                visit(&dep, files, seen, out);
            }
            out.push((key, path.clone()));
        }
        let (mut seen, mut out) = (Vec::new(), Vec::new());
        for w in wanted {
            visit(&norm(w), &files, &mut seen, &mut out);
        }
        out
    }
}

/// The modules a `.ko` file depends on: its `.modinfo` string `depends=a,b` (empty for none).
pub fn module_depends(ko: &[u8]) -> Vec<String> {
    let key = b"\0depends=";
    let Some(at) = ko.windows(key.len()).position(|w| w == key) else {
        return Vec::new();
    };
    let rest = &ko[at + key.len()..];
    let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
    String::from_utf8_lossy(&rest[..end])
        .split(',')
        .filter(|d| !d.is_empty())
        .map(str::to_string)
        .collect()
}

// ---------------------------------------------------------------------------------------
// The initramfs.

/// A newc ("070701") cpio archive, as the kernel unpacks it into its initial root.
#[derive(Default)]
pub struct Cpio {
    buf: Vec<u8>,
    ino: u32,
}

impl Cpio {
    fn entry(&mut self, name: &str, mode: u32, rdev: (u32, u32), data: &[u8]) {
        self.ino += 1;
        let name = name.trim_start_matches('/');
        let fields = [
            self.ino,
            mode,
            0,
            0,
            1,
            0,
            data.len() as u32,
            0,
            0,
            rdev.0,
            rdev.1,
            name.len() as u32 + 1,
            0,
        ];
        self.buf.extend_from_slice(b"070701");
        for f in fields {
            self.buf.extend_from_slice(format!("{f:08x}").as_bytes());
        }
        self.buf.extend_from_slice(name.as_bytes());
        self.buf.push(0);
        self.pad();
        self.buf.extend_from_slice(data);
        self.pad();
    }

    fn pad(&mut self) {
        while !self.buf.len().is_multiple_of(4) {
            self.buf.push(0);
        }
    }

    /// A folder.
    pub fn dir(&mut self, name: &str) {
        self.entry(name, 0o040755, (0, 0), &[]);
    }

    /// A regular file with mode `perm`.
    pub fn file(&mut self, name: &str, perm: u32, data: &[u8]) {
        self.entry(name, 0o100000 | perm, (0, 0), data);
    }

    /// A character device node.
    pub fn chardev(&mut self, name: &str, major: u32, minor: u32) {
        self.entry(name, 0o020600, (major, minor), &[]);
    }

    /// The archive, closed with its trailer.
    pub fn finish(mut self) -> Vec<u8> {
        self.entry("TRAILER!!!", 0, (0, 0), &[]);
        self.buf
    }
}

/// The part of the initramfs that every guest shares (busybox, the stripped binary under
/// test, its libraries), built once per test process. Each guest appends its own `/init`
/// as a second archive: the kernel unpacks concatenated archives in turn.
fn base_initramfs(rig: &Rig) -> &'static [u8] {
    static BASE: OnceLock<Vec<u8>> = OnceLock::new();
    BASE.get_or_init(|| {
        let scratch = tempfile::Builder::new()
            .prefix("nvme-strip-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap();
        let stripped = scratch.path().join("slccache");
        let bin = env!("CARGO_BIN_EXE_slccache");
        let o = Command::new("strip")
            .args(["--strip-debug", "-o"])
            .arg(&stripped)
            .arg(bin)
            .output()
            .expect("strip");
        assert!(
            o.status.success(),
            "strip {bin}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let mut c = Cpio::default();
        for d in [
            "bin", "dev", "proc", "sys", "tmp", "mnt", "out", "lib", "lib64", "usr", "usr/lib",
        ] {
            c.dir(d);
        }
        c.chardev("dev/console", 5, 1);
        c.file(
            "bin/busybox",
            0o755,
            &std::fs::read(&rig.busybox).expect("busybox"),
        );
        c.file(
            "bin/slccache",
            0o755,
            &std::fs::read(&stripped).expect("stripped binary"),
        );
        // The libraries and the loader, where ldd says the binary finds them.
        let o = Command::new("ldd").arg(&stripped).output().expect("ldd");
        let text = String::from_utf8_lossy(&o.stdout).to_string();
        let mut dirs = std::collections::BTreeSet::new();
        let mut libs = Vec::new();
        for line in text.lines() {
            let path = match line.split_once("=>") {
                Some((_, rhs)) => rhs.split_whitespace().next(),
                None => line
                    .split_whitespace()
                    .next()
                    .filter(|p| p.starts_with('/')),
            };
            if let Some(p) = path.filter(|p| p.starts_with('/')) {
                let parent = Path::new(p).parent().unwrap().to_string_lossy().to_string();
                let mut acc = String::new();
                for part in parent.trim_start_matches('/').split('/') {
                    acc = if acc.is_empty() {
                        part.to_string()
                    } else {
                        format!("{acc}/{part}")
                    };
                    dirs.insert(acc.clone());
                }
                libs.push(p.to_string());
            }
        }
        for d in dirs {
            if !["lib", "lib64", "usr", "usr/lib"].contains(&d.as_str()) {
                c.dir(&d);
            }
        }
        for l in libs {
            let data = std::fs::read(&l).unwrap_or_else(|e| panic!("{l}: {e}"));
            c.file(&l, 0o755, &data);
        }
        c.finish()
    })
}

/// The guest's `/init`: a busybox shell script. It starts with [`PRELUDE`] (mounts, and the
/// helpers `cmd`, `blob`, `getdir`, `sync`, `nvme_of`) and ends with a power-off.
pub struct Script {
    body: String,
}

/// The helpers every guest script has. Results go to the console as
/// `@@BLOB name` / base64 lines / `@@END`; `sync NAME` prints `@@SYNC NAME` and waits for
/// the host's answer line.
pub const PRELUDE: &str = r#"#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
echo 1 > /proc/sys/kernel/printk
stty -echo 2>/dev/null
# blob NAME FILE: the file's bytes to the host.
blob() { echo "@@BLOB $1"; base64 "$2"; echo "@@END"; }
# cmd NAME ARGS...: runs a command; its stdout, stderr and exit code go to the host.
cmd() {
  n=$1; shift
  "$@" >/tmp/$n.out 2>/tmp/$n.err </dev/null
  echo $? >/tmp/$n.rc
  blob $n.out /tmp/$n.out; blob $n.err /tmp/$n.err; blob $n.rc /tmp/$n.rc
  rm -f /tmp/$n.out /tmp/$n.err /tmp/$n.rc
}
# getdir NAME DIR: a folder as a tar.gz (pictures and HTML left out), to the host.
getdir() {
  (cd "$2" && tar czf /tmp/$1.tgz $(ls | grep -v -e '\.png$' -e '\.svg$' -e '\.html$'))
  blob $1.tgz /tmp/$1.tgz; rm -f /tmp/$1.tgz
}
# sync NAME: waits until the host has done what it does at NAME.
sync_host() { echo "@@SYNC $1"; read -r _answer; }
echo "@@BOOTED $(cut -d' ' -f1 /proc/uptime)"
"#;

impl Script {
    /// A script running `body` after the prelude.
    pub fn new(body: &str) -> Script {
        Script {
            body: body.to_string(),
        }
    }

    fn text(&self) -> String {
        format!(
            "{PRELUDE}\n{}\necho \"@@DONE $(cut -d' ' -f1 /proc/uptime)\"\nsync\npoweroff -f\n",
            self.body
        )
    }
}

// ---------------------------------------------------------------------------------------
// The guest.

/// One namespace's backing store.
#[derive(Debug, Clone)]
pub enum Backing {
    /// `null-co`: writes dropped, reads zeroes; `size` bytes. Fast and deterministic.
    Null(u64),
    /// A raw image file (sparse), where data must persist; discards punch holes.
    File(PathBuf),
}

/// A namespace: its backing, and its logical (= physical) block size.
#[derive(Debug, Clone)]
pub struct Namespace {
    /// The store.
    pub backing: Backing,
    /// 512 or 4096.
    pub block_size: u32,
}

impl Namespace {
    /// A null-co namespace of `size` bytes with 512-byte blocks.
    pub fn null(size: u64) -> Namespace {
        Namespace {
            backing: Backing::Null(size),
            block_size: 512,
        }
    }

    /// A raw image file.
    pub fn file(path: &Path) -> Namespace {
        Namespace {
            backing: Backing::File(path.to_path_buf()),
            block_size: 512,
        }
    }

    /// The same with 4096-byte blocks (4Kn).
    pub fn with_4k(mut self) -> Namespace {
        self.block_size = 4096;
        self
    }
}

/// A controller: its serial number and namespaces (NSID 1, 2, ... in order).
#[derive(Debug, Clone)]
pub struct Controller {
    /// `serial=`.
    pub serial: String,
    /// Its namespaces.
    pub namespaces: Vec<Namespace>,
}

/// The QEMU drive id of controller `c`'s namespace `n` (0-based): the name QMP knows.
pub fn drive_id(c: usize, n: usize) -> String {
    format!("nv{c}n{}", n + 1)
}

/// What a finished guest sent back.
#[derive(Debug, Default)]
pub struct GuestOutput {
    /// Blobs by name (`NAME.out`, `NAME.err`, `NAME.rc`, `NAME.tgz`, ...).
    pub blobs: HashMap<String, Vec<u8>>,
    /// The console, as text.
    pub console: String,
    /// Guest uptime (s) when the script started and when it ended.
    pub booted_s: Option<f64>,
    /// Guest uptime at the end of the script.
    pub done_s: Option<f64>,
    /// Host time from QEMU's start to the script's start.
    pub host_boot: Option<Duration>,
    /// Host time from QEMU's start to its exit.
    pub host_total: Duration,
}

impl GuestOutput {
    /// A blob as text; panics with the console when it is missing.
    pub fn text(&self, name: &str) -> String {
        String::from_utf8_lossy(self.blob(name)).to_string()
    }

    /// A blob's bytes; panics with the console when it is missing.
    pub fn blob(&self, name: &str) -> &[u8] {
        self.blobs.get(name).unwrap_or_else(|| {
            panic!(
                "the guest sent no {name}; console:\n{}",
                tail(&self.console, 8000)
            )
        })
    }

    /// The exit code of `cmd NAME`.
    pub fn rc(&self, name: &str) -> i32 {
        self.text(&format!("{name}.rc")).trim().parse().unwrap()
    }

    /// `cmd NAME`'s stdout, after checking that it exited with `code` (the message holds its
    /// stderr and the console's end).
    pub fn expect(&self, name: &str, code: i32) -> String {
        let rc = self.rc(name);
        assert_eq!(
            rc,
            code,
            "{name} exited {rc}, not {code}; stderr:\n{}\nstdout:\n{}\nconsole:\n{}",
            self.text(&format!("{name}.err")),
            self.text(&format!("{name}.out")),
            tail(&self.console, 4000)
        );
        self.text(&format!("{name}.out"))
    }

    /// A `getdir` folder unpacked into `dest`.
    pub fn unpack(&self, name: &str, dest: &Path) {
        let data = self.blob(&format!("{name}.tgz"));
        std::fs::create_dir_all(dest).unwrap();
        let mut c = Command::new("tar")
            .arg("xzf")
            .arg("-")
            .arg("-C")
            .arg(dest)
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        c.stdin.take().unwrap().write_all(data).unwrap();
        assert!(c.wait().unwrap().success(), "untar {name}");
    }
}

/// The last `n` bytes of a log (at a character boundary).
pub fn tail(s: &str, n: usize) -> &str {
    let mut i = s.len().saturating_sub(n);
    while !s.is_char_boundary(i) {
        i += 1;
    }
    &s[i..]
}

/// Decodes base64 (standard alphabet, with or without padding, whitespace ignored).
pub fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for v in s.bytes().filter_map(val) {
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

/// A QMP connection (QEMU's JSON control protocol).
pub struct Qmp {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
}

impl Qmp {
    fn connect(path: &Path) -> std::io::Result<Qmp> {
        let s = UnixStream::connect(path)?;
        s.set_read_timeout(Some(Duration::from_secs(60)))?;
        let mut q = Qmp {
            reader: BufReader::new(s.try_clone()?),
            writer: s,
        };
        let mut greeting = String::new();
        q.reader.read_line(&mut greeting)?;
        q.execute("qmp_capabilities", serde_json::json!({}))
            .map_err(std::io::Error::other)?;
        Ok(q)
    }

    /// Runs one command; its `return`, or its error as text.
    pub fn execute(
        &mut self,
        cmd: &str,
        args: serde_json::Value,
    ) -> Result<serde_json::Value, String> {
        let msg = serde_json::json!({"execute": cmd, "arguments": args});
        writeln!(self.writer, "{msg}").map_err(|e| e.to_string())?;
        loop {
            let mut line = String::new();
            let n = self
                .reader
                .read_line(&mut line)
                .map_err(|e| e.to_string())?;
            if n == 0 {
                return Err("QMP closed".into());
            }
            let v: serde_json::Value = serde_json::from_str(&line).map_err(|e| e.to_string())?;
            if let Some(r) = v.get("return") {
                return Ok(r.clone());
            }
            if let Some(e) = v.get("error") {
                return Err(format!("{cmd}: {e}"));
            }
            // An event: not the answer.
        }
    }

    /// Bytes written to a drive so far (`query-blockstats`, `wr_bytes`).
    pub fn wr_bytes(&mut self, drive: &str) -> u64 {
        let r = self
            .execute("query-blockstats", serde_json::json!({}))
            .unwrap();
        r.as_array()
            .unwrap()
            .iter()
            .find(|d| d["device"] == drive)
            .unwrap_or_else(|| panic!("no drive {drive} in {r}"))["stats"]["wr_bytes"]
            .as_u64()
            .unwrap()
    }

    /// Limits a drive's writes to `bps` bytes per second (0: no limit).
    pub fn throttle_writes(&mut self, drive: &str, bps: u64) {
        self.execute(
            "block_set_io_throttle",
            serde_json::json!({"device": drive, "bps": 0, "bps_rd": 0, "bps_wr": bps,
                               "iops": 0, "iops_rd": 0, "iops_wr": 0}),
        )
        .unwrap();
    }
}

/// What the host does when the guest reaches `sync NAME`: called with the name and a QMP
/// connection of its own.
pub type SyncHandler = Box<dyn FnMut(&str, &mut Qmp) + Send>;

/// A guest to boot.
pub struct GuestSpec {
    /// Controllers, in PCI order (`nvme0`, `nvme1`, ...).
    pub controllers: Vec<Controller>,
    /// The script.
    pub script: Script,
    /// Extra kernel command line.
    pub cmdline: String,
    /// How long it may run; None: [`GUEST_TIMEOUT`] (or `SLCCACHE_QEMU_TIMEOUT`).
    pub timeout: Option<Duration>,
}

/// An ATA disk on the `pc` machine's PIIX IDE controller ([`Guest::start_ata`]).
#[derive(Debug, Clone)]
pub struct AtaDisk {
    /// Its raw image file.
    pub image: PathBuf,
    /// IDENTIFY's serial number (`serial=`).
    pub serial: String,
    /// IDENTIFY's model number (`model=`).
    pub model: String,
    /// IDENTIFY's firmware revision (`ver=`, up to 8 characters).
    pub ver: String,
    /// Whether the disk takes DSM TRIM (`discard_granularity=512`, else 0: IDENTIFY word
    /// 169 is then clear).
    pub discard: bool,
    /// A `null-co` backend of this many bytes instead of the image (writes dropped: fast).
    pub null_size: Option<u64>,
}

/// The guest kernel's modules for an ATA disk on PIIX IDE, in load order (the cloud
/// kernel has none built in; each module's `depends=` gives the order).
pub const ATA_MODULES: &[&str] = &[
    "drivers/scsi/scsi_common.ko",
    "drivers/scsi/scsi_mod.ko",
    "drivers/ata/libata.ko",
    "drivers/ata/ata_piix.ko",
    "drivers/scsi/sd_mod.ko",
    "drivers/scsi/sg.ko",
];

/// The modules the AHCI guest asks for; [`GenericKernel::load_order`] adds what they depend
/// on.
pub const AHCI_WANTED: &[&str] = &["ahci", "sd_mod", "sg"];

/// The guest script's lines that load the modules of [`Guest::start_ahci`] in their order and
/// wait (up to 30 s) for `/dev/sda`; `$SDA_S` is the guest's uptime when it appeared.
pub const AHCI_INSMOD: &str = r#"for m in $(cat /lib/ata/order); do insmod /lib/ata/$m.ko || echo "insmod $m failed"; done
i=0; while [ ! -b /dev/sda ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
SDA_S=$(cut -d' ' -f1 /proc/uptime)
echo "@@SDA $SDA_S"
"#;

/// Where smartctl may be on this machine (`apt-get install smartmontools`).
pub const SMARTCTL: &[&str] = &["/usr/sbin/smartctl", "/usr/bin/smartctl"];

/// The guest script's lines that load [`ATA_MODULES`] and wait (up to 30 s) for `/dev/sda`.
pub const ATA_INSMOD: &str = r#"for m in scsi_common scsi_mod libata ata_piix sd_mod sg; do insmod /lib/ata/$m.ko || echo "insmod $m failed"; done
i=0; while [ ! -b /dev/sda ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
"#;

/// After [`ATA_INSMOD`] for two disks: waits for `/dev/sdb` too, and sets `$A` to the disk
/// whose sysfs model does not hold `NO TRIM` and `$B` to the one that does (libata probes
/// the ports at once, so which is `sda` varies from boot to boot).
pub const ATA_TWO_DISKS: &str = r#"i=0; while [ ! -b /dev/sdb ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
for d in /sys/block/sd*; do
  case "$(cat $d/device/model)" in *"NO TRIM"*) B=/dev/${d##*/};; *) A=/dev/${d##*/};; esac
done
echo "disks: A=$A B=$B"
"#;

/// One guest at a time: guests are emulated in software, and two at once on a small machine
/// would each see the other's load as changes in the throughput they measure.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// A running QEMU; killed and its folder removed on drop.
pub struct Guest {
    child: Option<Child>,
    /// The guest's folder: the initramfs.
    pub dir: tempfile::TempDir,
    /// The QMP socket.
    pub qmp_path: PathBuf,
    /// The socket's folder.
    _sock_dir: tempfile::TempDir,
    started: Instant,
    timeout: Duration,
    console: Arc<Mutex<String>>,
    booted_at: Arc<Mutex<Option<Instant>>>,
    reader: Option<std::thread::JoinHandle<HashMap<String, Vec<u8>>>>,
    _turn: std::sync::MutexGuard<'static, ()>,
}

impl Drop for Guest {
    fn drop(&mut self) {
        if let Some(c) = self.child.as_mut() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Guest {
    /// Boots `spec` and starts reading its console. `on_sync` answers `sync NAME`.
    pub fn start(rig: &Rig, spec: GuestSpec, on_sync: Option<SyncHandler>) -> Guest {
        Guest::start_on(
            rig,
            spec,
            "q35",
            &rig.kernel,
            None,
            Extra::default(),
            on_sync,
        )
    }

    /// [`Guest::start`] with programs of this machine in the guest's `/bin`, each with the
    /// shared libraries `ldd` names (fio, for the benchmarks that run it beside slccache).
    pub fn start_with_programs(
        rig: &Rig,
        spec: GuestSpec,
        programs: &[PathBuf],
        on_sync: Option<SyncHandler>,
    ) -> Guest {
        let extra = Extra {
            args: &[],
            programs,
        };
        Guest::start_on(rig, spec, "q35", &rig.kernel, None, extra, on_sync)
    }

    /// Boots `spec` on the `pc` machine with `disks` on its PIIX IDE controller (`ide.0`
    /// master, slave, then `ide.1`), and the guest kernel's libata modules in `/lib/ata`
    /// for the script to load ([`ATA_INSMOD`]). `spec` must have no NVMe controllers (their
    /// root ports need q35's PCIe bus).
    pub fn start_ata(
        rig: &Rig,
        spec: GuestSpec,
        disks: &[AtaDisk],
        on_sync: Option<SyncHandler>,
    ) -> Guest {
        assert!(
            spec.controllers.is_empty(),
            "ATA guests have no NVMe controllers"
        );
        let mut args = Vec::new();
        for (i, d) in disks.iter().enumerate() {
            let id = format!("sd{i}");
            args.push("-drive".to_string());
            args.push(match d.null_size {
                Some(size) => format!("driver=null-co,size={size},read-zeroes=on,if=none,id={id}"),
                None => format!(
                    "file={},format=raw,if=none,id={id},discard=unmap,cache=none,aio=threads",
                    d.image.display()
                ),
            });
            args.push("-device".to_string());
            args.push(format!(
                "ide-hd,drive={id},bus=ide.{},unit={},serial={},model={},ver={},\
                 discard_granularity={}",
                i / 2,
                i % 2,
                d.serial,
                d.model,
                d.ver,
                if d.discard { 512 } else { 0 }
            ));
        }
        let modules = std::fs::read_dir(rig.dir.join("lib/modules"))
            .expect("the rig's lib/modules")
            .flatten()
            .next()
            .expect("a kernel release in lib/modules")
            .path()
            .join("kernel");
        let modules = ATA_MODULES
            .iter()
            .map(|m| {
                let name = Path::new(m)
                    .file_stem()
                    .unwrap()
                    .to_string_lossy()
                    .to_string();
                (name, modules.join(m))
            })
            .collect();
        Guest::start_on(
            rig,
            spec,
            "pc",
            &rig.kernel,
            Some(modules),
            Extra {
                args: &args,
                programs: &[],
            },
            on_sync,
        )
    }

    /// Boots `spec` on the `pc` machine with the generic kernel `kernel` and `disks` on an
    /// AHCI controller (`-device ahci,id=ahci`, disk `i` on port `ahci.i`, a SATA link each),
    /// and the modules that load `ahci`, `sd_mod` and `sg` in `/lib/ata`, in their load order
    /// in `/lib/ata/order`, for the script to load ([`AHCI_INSMOD`]).
    pub fn start_ahci(
        rig: &Rig,
        kernel: &GenericKernel,
        spec: GuestSpec,
        disks: &[AtaDisk],
        on_sync: Option<SyncHandler>,
    ) -> Guest {
        assert!(
            spec.controllers.is_empty(),
            "ATA guests have no NVMe controllers"
        );
        let mut args = vec!["-device".to_string(), "ahci,id=ahci".to_string()];
        for (i, d) in disks.iter().enumerate() {
            let id = format!("sd{i}");
            args.push("-drive".to_string());
            args.push(match d.null_size {
                Some(size) => format!("driver=null-co,size={size},read-zeroes=on,if=none,id={id}"),
                None => format!(
                    "file={},format=raw,if=none,id={id},discard=unmap,cache=none,aio=threads",
                    d.image.display()
                ),
            });
            args.push("-device".to_string());
            args.push(format!(
                "ide-hd,drive={id},bus=ahci.{i},serial={},model={},ver={},\
                 discard_granularity={}",
                d.serial,
                d.model,
                d.ver,
                if d.discard { 512 } else { 0 }
            ));
        }
        let modules = kernel.load_order(AHCI_WANTED);
        Guest::start_on(
            rig,
            spec,
            "pc",
            &kernel.image,
            Some(modules),
            Extra {
                args: &args,
                programs: &[],
            },
            on_sync,
        )
    }

    /// Boots QEMU's `machine` with `kernel`; `ata_modules` (name, `.ko` file), in load
    /// order, go into `/lib/ata` with their order in `/lib/ata/order`, and smartctl into
    /// `/bin` where this machine has it.
    fn start_on(
        rig: &Rig,
        spec: GuestSpec,
        machine: &str,
        kernel: &Path,
        ata_modules: Option<Vec<(String, PathBuf)>>,
        extra: Extra,
        on_sync: Option<SyncHandler>,
    ) -> Guest {
        let Extra {
            args: extra_args,
            programs: host_bins,
        } = extra;
        // A test that failed while holding the turn poisoned the lock; the turn is free all
        // the same.
        let turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let dir = tempfile::Builder::new()
            .prefix("nvme-guest-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap();
        let initrd = dir.path().join("initrd.cpio");
        let mut init = Cpio::default();
        init.file("init", 0o755, spec.script.text().as_bytes());
        if let Some(modules) = ata_modules {
            init.dir("lib/ata");
            let mut order = String::new();
            for (name, path) in modules {
                let data =
                    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                init.file(&format!("lib/ata/{name}.ko"), 0o644, &data);
                order.push_str(&name);
                order.push('\n');
            }
            init.file("lib/ata/order", 0o644, order.as_bytes());
            // smartctl, where this machine has it, with its libraries: the reference the
            // ATA tests compare with (`/bin/smartctl` in the guest).
            if let Some(smartctl) = SMARTCTL.iter().map(Path::new).find(|p| p.is_file()) {
                add_host_binary(&mut init, smartctl, "bin/smartctl");
            }
        }
        for bin in host_bins {
            let name = bin.file_name().unwrap().to_string_lossy().into_owned();
            add_host_binary(&mut init, bin, &format!("bin/{name}"));
        }
        let mut img = base_initramfs(rig).to_vec();
        img.extend_from_slice(&init.finish());
        std::fs::write(&initrd, img).unwrap();
        // A Unix socket's path has at most 107 bytes, and the build folder may be deep: the
        // socket gets a short folder of its own in the system's temporary folder.
        let sock_dir = tempfile::Builder::new()
            .prefix("slc-qmp-")
            .tempdir()
            .unwrap();
        let qmp_path = sock_dir.path().join("qmp.sock");
        let timeout = spec.timeout.unwrap_or_else(|| {
            std::env::var("SLCCACHE_QEMU_TIMEOUT")
                .ok()
                .and_then(|s| s.parse().ok())
                .map(Duration::from_secs)
                .unwrap_or(GUEST_TIMEOUT)
        });
        let mut c = rig.command();
        c.args([
            "-nodefaults",
            "-no-user-config",
            "-display",
            "none",
            "-no-reboot",
        ])
        .args([
            "-machine",
            machine,
            "-accel",
            "tcg,thread=multi",
            "-cpu",
            "max",
        ])
        .args(["-smp", "2", "-m", "1024"])
        .args([
            "-chardev",
            "stdio,id=con,signal=off",
            "-serial",
            "chardev:con",
        ])
        .arg("-qmp")
        .arg(format!("unix:{},server=on,wait=off", qmp_path.display()))
        .arg("-kernel")
        .arg(kernel)
        .arg("-initrd")
        .arg(&initrd)
        .arg("-append")
        .arg(format!(
            "console=ttyS0 panic=-1 quiet loglevel=3 {}",
            spec.cmdline
        ));
        for (ci, ctrl) in spec.controllers.iter().enumerate() {
            c.arg("-device").arg(format!(
                "pcie-root-port,id=rp{ci},bus=pcie.0,chassis={},slot={ci}",
                ci + 1
            ));
            c.arg("-device").arg(format!(
                "nvme,id=nvme{ci},serial={},bus=rp{ci}",
                ctrl.serial
            ));
            for (ni, ns) in ctrl.namespaces.iter().enumerate() {
                let id = drive_id(ci, ni);
                let drive = match &ns.backing {
                    Backing::Null(size) => {
                        format!("driver=null-co,size={size},read-zeroes=on,if=none,id={id}")
                    }
                    Backing::File(p) => format!(
                        "file={},format=raw,if=none,id={id},discard=unmap,cache=none,aio=threads",
                        p.display()
                    ),
                };
                c.arg("-drive").arg(drive);
                c.arg("-device").arg(format!(
                    "nvme-ns,drive={id},bus=nvme{ci},nsid={},logical_block_size={bs},\
                     physical_block_size={bs}",
                    ni + 1,
                    bs = ns.block_size
                ));
            }
        }
        c.args(extra_args);
        c.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let started = Instant::now();
        let mut child = c.spawn().expect("cannot start QEMU");
        let stdout = child.stdout.take().unwrap();
        let stdin = child.stdin.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        let console = Arc::new(Mutex::new(String::new()));
        let booted_at = Arc::new(Mutex::new(None));
        // QEMU's own complaints go into the console log too.
        {
            let console = console.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    let mut g = console.lock().unwrap();
                    g.push_str("[qemu] ");
                    g.push_str(&line);
                    g.push('\n');
                }
            });
        }
        let reader = {
            let console = console.clone();
            let booted_at = booted_at.clone();
            let qmp_path = qmp_path.clone();
            std::thread::spawn(move || {
                read_console(stdout, stdin, &console, &booted_at, &qmp_path, on_sync)
            })
        };
        Guest {
            child: Some(child),
            dir,
            qmp_path,
            _sock_dir: sock_dir,
            started,
            timeout,
            console,
            booted_at,
            reader: Some(reader),
            _turn: turn,
        }
    }

    /// A QMP connection of its own (QEMU accepts one at a time: drop it before the next).
    pub fn qmp(&self) -> Qmp {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            match Qmp::connect(&self.qmp_path) {
                Ok(q) => return q,
                Err(e) if Instant::now() > deadline => panic!("QMP: {e}"),
                Err(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        }
    }

    /// Panics, with the console, once the guest has run longer than its timeout: for a test
    /// that waits on the guest in a loop of its own before [`Guest::wait`].
    pub fn check_timeout(&self, waiting_for: &str) {
        if self.started.elapsed() > self.timeout {
            panic!(
                "waited {:?} for {waiting_for}: the guest is killed; console:\n{}",
                self.timeout,
                tail(&self.console(), 12000)
            );
        }
    }

    /// Moves the timeout to `d` from now.
    pub fn set_timeout_from_now(&mut self, d: Duration) {
        self.timeout = self.started.elapsed() + d;
    }

    /// The console so far.
    pub fn console(&self) -> String {
        self.console.lock().unwrap().clone()
    }

    /// Waits for the guest to power off (killing it after the timeout, with its console in
    /// the panic message) and returns what it sent.
    pub fn wait(mut self) -> GuestOutput {
        let timeout = self.timeout;
        let child = self.child.as_mut().unwrap();
        let mut blobs = None;
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            // The console reader ends when QEMU closes the console, as it exits (the exit
            // may be seen a moment later), or when it panicked (in a sync handler): then the
            // guest waits for an answer that will not come.
            if self.reader.as_ref().is_some_and(|r| r.is_finished()) {
                match self.reader.take().unwrap().join() {
                    Ok(b) => blobs = Some(b),
                    Err(e) => {
                        let _ = child.kill();
                        let _ = child.wait();
                        let why = e
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_default();
                        panic!(
                            "the host's side of the console failed ({why}): guest killed; \
                             console:\n{}",
                            tail(&self.console(), 12000)
                        );
                    }
                }
            }
            if self.started.elapsed() > timeout {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "the guest did not power off within {timeout:?}: killed; console:\n{}",
                    tail(&self.console(), 12000)
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        let host_total = self.started.elapsed();
        self.child = None;
        let blobs = match (blobs, self.reader.take()) {
            (Some(b), _) => b,
            (None, Some(r)) => r.join().unwrap_or_default(),
            (None, None) => HashMap::new(),
        };
        let console = self.console();
        let host_boot = self.booted_at.lock().unwrap().map(|t| t - self.started);
        let up = |marker: &str| {
            console
                .lines()
                .find_map(|l| l.strip_prefix(marker))
                .and_then(|v| v.trim().parse().ok())
        };
        let out = GuestOutput {
            booted_s: up("@@BOOTED "),
            done_s: up("@@DONE "),
            blobs,
            host_boot,
            host_total,
            console,
        };
        assert!(
            out.done_s.is_some(),
            "the guest ended ({status}) before its script did; console:\n{}",
            tail(&out.console, 12000)
        );
        out
    }
}

fn read_console(
    stdout: std::process::ChildStdout,
    mut stdin: ChildStdin,
    console: &Mutex<String>,
    booted_at: &Mutex<Option<Instant>>,
    qmp_path: &Path,
    mut on_sync: Option<SyncHandler>,
) -> HashMap<String, Vec<u8>> {
    let mut blobs = HashMap::new();
    let mut current: Option<(String, String)> = None;
    let mut r = BufReader::new(stdout);
    let mut raw = Vec::new();
    loop {
        raw.clear();
        match r.read_until(b'\n', &mut raw) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let line = String::from_utf8_lossy(&raw);
        let line = line.trim_end_matches(['\n', '\r']);
        if let Some((name, data)) = current.as_mut() {
            if line == "@@END" {
                blobs.insert(name.clone(), base64_decode(data));
                current = None;
            } else {
                data.push_str(line);
            }
            continue;
        }
        {
            let mut g = console.lock().unwrap();
            g.push_str(line);
            g.push('\n');
        }
        if let Some(name) = line.strip_prefix("@@BLOB ") {
            current = Some((name.trim().to_string(), String::new()));
        } else if line.starts_with("@@BOOTED ") {
            *booted_at.lock().unwrap() = Some(Instant::now());
        } else if let Some(name) = line.strip_prefix("@@SYNC ") {
            if let Some(h) = on_sync.as_mut() {
                let mut q = Qmp::connect(qmp_path).expect("QMP at a sync point");
                h(name.trim(), &mut q);
            }
            let _ = stdin.write_all(b"\n");
            let _ = stdin.flush();
        }
    }
    // Whatever was left unread.
    let mut rest = String::new();
    let _ = r.read_to_string(&mut rest);
    blobs
}

/// An image file of `size` bytes, sparse.
pub fn sparse_image(path: &Path, size: u64) {
    std::fs::File::create(path).unwrap().set_len(size).unwrap();
}

/// Writes an MBR into the first sector of `path`: one primary partition per `(start, len)`
/// (in 512-byte sectors), type 0x83 (Linux).
pub fn write_mbr(path: &Path, parts: &[(u32, u32)]) {
    use std::os::unix::fs::FileExt;
    let mut mbr = [0u8; 512];
    for (i, (start, len)) in parts.iter().enumerate() {
        let e = &mut mbr[446 + 16 * i..462 + 16 * i];
        e[4] = 0x83;
        e[8..12].copy_from_slice(&start.to_le_bytes());
        e[12..16].copy_from_slice(&len.to_le_bytes());
    }
    mbr[510] = 0x55;
    mbr[511] = 0xAA;
    let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.write_all_at(&mbr, 0).unwrap();
}

/// The JSON in a blob.
pub fn json(out: &GuestOutput, name: &str) -> serde_json::Value {
    let t = out.text(name);
    serde_json::from_str(&t).unwrap_or_else(|e| panic!("{name} is not JSON ({e}):\n{t}"))
}

/// What a guest gets beyond its spec: QEMU arguments, and programs of this machine for `/bin`.
#[derive(Default, Clone, Copy)]
struct Extra<'a> {
    args: &'a [String],
    programs: &'a [PathBuf],
}

/// Puts the program at `path` into the initramfs at `dest`, with every shared library `ldd`
/// names at its own path (the guest's loader finds them there).
fn add_host_binary(init: &mut Cpio, path: &Path, dest: &str) {
    init.file(dest, 0o755, &std::fs::read(path).unwrap());
    let o = Command::new("ldd").arg(path).output().expect("ldd");
    for line in String::from_utf8_lossy(&o.stdout).lines() {
        let lib = match line.split_once("=>") {
            Some((_, rhs)) => rhs.split_whitespace().next(),
            None => line.split_whitespace().next(),
        };
        let Some(p) = lib.filter(|p| p.starts_with('/')) else {
            continue;
        };
        let mut acc = String::new();
        for part in Path::new(p).parent().unwrap().iter().skip(1) {
            acc = format!(
                "{acc}{}{}",
                if acc.is_empty() { "" } else { "/" },
                part.to_string_lossy()
            );
            init.dir(&acc);
        }
        init.file(p.trim_start_matches('/'), 0o755, &std::fs::read(p).unwrap());
    }
}
