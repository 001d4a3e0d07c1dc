//! Every command that the documentation shows is run by a test: those in the README's code
//! blocks and those in the `--help` examples of every subcommand.
//!
//! [`COMMANDS`] names each documented command once, with how it runs here; a command added to
//! the README or to a help text without an entry there fails
//! `every_documented_command_is_listed`, and so does an entry whose command is no longer shown.
//! The README's results-library section is walked by `store::readme`, which checks the same
//! of that section.
//!
//! What runs is the documented text, in a scratch home (so `~` and globs are the shell's), with
//! only these changes, each written out in the entry's `run`:
//! - a real drive (`/dev/nvme0n1`, `/dev/sda`, `/dev/loop3`) becomes `$DRIVE`, a loop device
//!   over a 512 MiB sparse file made for the test (needs root: otherwise those commands are
//!   reported ignored); a command that asks for the device name on a terminal runs under
//!   `script` and is typed the name;
//! - long runs get a cap: `--max-bytes` on emulated drives and files, a shorter
//!   `--idle`/`--idle-before`/`--point-duration` on the scratch drive, a shorter
//!   `--after-cliff` hold for the real-time recovery on an emulated drive;
//! - a file's `--size` larger than the scratch folder's free space would be refused (as it
//!   should be), so `--size 8GiB` becomes `--size $SCRATCH_SIZE`: 8GiB where 9 GiB are free,
//!   else 1GiB (CI machines have had only 3 GB free);
//! - run ids (42; 12 and 14) become runs of the scratch store (1; 2 and 3);
//! - `cargo run --release --` is the binary under test (the same program, without a release
//!   build inside a test);
//! - all the examples run in one home, in the README's order, so a `before` removes what an
//!   earlier example left where a later one's glob would take it: a sweep's folder under
//!   `output/960evo-*` (which `compare` refuses: no timeline), and `output/compare` or a
//!   history folder under `output/*` (which `runs import` refuses: no run).
//!
//! Input files that the examples name (`fio_bw.1.log`, `trace.csv`, `output/run-a`, ...) are made
//! by [`setup`]; `before` prepares what one command needs (a fresh or a filled `scratch.bin`, an
//! output folder not yet there).

use std::path::Path;
use std::process::Command;

use crate::common::{docs, fault_util};

/// How a documented command runs.
enum How {
    /// In the scratch home, as this shell text ("" for the documented text itself).
    Sh(&'static str),
    /// As [`How::Sh`], but in a scratch home of its own, beside the others: a real-time command
    /// that mostly waits (the results store it records into is its own, so the run ids the
    /// others use do not move).
    Apart(&'static str),
    /// As this shell text, with `$DRIVE` a scratch loop device (needs root).
    Drive(&'static str),
    /// As [`How::Drive`], on a terminal (`script`) where it asks for the device name, which is
    /// typed.
    Tty(&'static str),
    /// Run by another test, named here.
    Elsewhere(&'static str),
    /// Not run by any test, and why.
    NotRun(&'static str),
}

use How::*;

/// A fresh `scratch.bin` for a command that creates it.
const FRESH: &str = "rm -f scratch.bin";
/// A written `scratch.bin` for a command that reads it (as the refusal to read a hole advises).
const FILLED: &str =
    "rm -f scratch.bin && slccache --no-record probe scratch.bin --size 64MiB --pattern seqwrite --bs 1M";
/// No `output/compare` yet (a folder holding an earlier run's outputs is refused).
const NO_COMPARE: &str = "rm -rf output/compare";

/// Every documented command (as [`docs::key`] gives it), what to do before it, and how it runs.
const COMMANDS: &[(&str, &str, How)] = &[
    // First, while the scratch store holds runs of one 960 EVO drive only (with more, the name
    // is ambiguous and the command asks which drive, as the README shows).
    ("slccache history \"960 EVO\"", "", Sh("")),
    // The README, in its order.
    (
        "cargo run --release -- probe emu:960evo-500g --pattern seqwrite --bs 1M --max-bytes 40GB --out output/demo",
        "",
        Sh("slccache probe emu:960evo-500g --pattern seqwrite --bs 1M --max-bytes 4GB --out output/demo"),
    ),
    ("cargo test --all-targets --no-fail-fast", "", Elsewhere("it is the test suite itself; .ci/run runs it")),
    (
        "cargo test --lib --test detect --test timeline",
        "",
        Elsewhere("it is a part of the test suite itself"),
    ),
    ("cargo install --path .", "", NotRun("a release build of the whole crate inside a test takes minutes")),
    ("cargo install --path . --root ~/.local", "", NotRun("as `cargo install --path .`")),
    (
        "slccache completions bash > ~/.local/share/bash-completion/completions/slccache",
        "mkdir -p ~/.local/share/bash-completion/completions",
        Sh(""),
    ),
    ("slccache completions zsh > ~/.zfunc/_slccache", "mkdir -p ~/.zfunc", Sh("")),
    (
        "slccache completions fish > ~/.config/fish/completions/slccache.fish",
        "mkdir -p ~/.config/fish/completions",
        Sh(""),
    ),
    ("slccache man | man -l -", "", Sh("")),
    ("slccache man --out-dir ~/.local/share/man/man1", "", Sh("")),
    ("slccache probe /dev/nvme0n1 --pattern randwrite", "", Tty("slccache probe $DRIVE --pattern randwrite")),
    (
        "slccache probe /dev/nvme0n1 --pattern seqwrite --bs 128k --destroy-data",
        "",
        Drive("slccache probe $DRIVE --pattern seqwrite --bs 128k --destroy-data"),
    ),
    (
        "slccache probe scratch.bin --size 8GiB --duration 60s",
        FRESH,
        Sh("slccache probe scratch.bin --size $SCRATCH_SIZE --duration 60s --max-bytes 128MiB"),
    ),
    (
        "slccache probe emu:960evo-1tb --scenario iometer-128k-seq-qd32",
        "",
        Sh("slccache probe emu:960evo-1tb --scenario iometer-128k-seq-qd32 --max-bytes 2GB"),
    ),
    ("slccache analyze fio_bw.1.log --json", "", Sh("")),
    ("slccache simulate fx700-2tb --pattern seqwrite", "", Sh("")),
    (
        "slccache compare output/run-a output/run-b output/run-c --out output/compare",
        NO_COMPARE,
        Sh(""),
    ),
    ("slccache presets", "", Sh("")),
    ("slccache info /dev/nvme0n1", "", Drive("slccache info $DRIVE")),
    ("slccache info /dev/sda --json", "", Drive("slccache info $DRIVE --json")),
    ("slccache info emu:p5-1tb", "", Sh("")),
    ("slccache info emu:870evo-4tb", "", Sh("")),
    (
        "slccache info /dev/nvme0",
        "",
        Elsewhere("device::nvme_qemu: `info` on the guest's NVMe controller /dev/nvme0"),
    ),
    ("slccache compare run-a run-b run-c --label 'fresh,after TRIM,full'", "", Sh("")),
    ("slccache compare output/run-* --align cliff", "", Sh("")),
    ("slccache compare output/run-* --theme dark", "", Sh("")),
    (
        "slccache probe /dev/nvme0n1 --trim --idle-before 10m",
        "",
        Tty("slccache probe $DRIVE --trim --idle-before 1s"),
    ),
    (
        "slccache probe /dev/nvme0n1 --prefill 50 --idle-before 10m",
        "",
        Tty("slccache probe $DRIVE --prefill 50 --idle-before 1s"),
    ),
    (
        "slccache probe emu:660p-1tb,capacity=20GB,static=0.5GB,dynamic=1.5GB,fill=0.6 --trim",
        "",
        Sh("slccache probe emu:660p-1tb,capacity=20GB,static=0.5GB,dynamic=1.5GB,fill=0.6 --trim --max-bytes 2GB"),
    ),
    ("slccache simulate 960evo-500g --prefill 10 --idle-before 10m", "", Sh("")),
    ("slccache sweep emu:960evo-500g --simulate --qd 1,4,16,64,256 --jobs 1,4", "", Sh("")),
    // The --help examples not already in the README: `slccache --help` first, then each
    // subcommand's.
    (
        "slccache probe emu:960evo-250g,cache=2GB --pattern seqwrite",
        "",
        Sh("slccache probe emu:960evo-250g,cache=2GB --pattern seqwrite --max-bytes 2GB"),
    ),
    (
        "slccache probe scratch.bin --size 1GiB --duration 10s",
        FRESH,
        Sh("slccache probe scratch.bin --size 1GiB --duration 10s --max-bytes 128MiB"),
    ),
    ("slccache simulate 960evo-1tb --pattern seqwrite", "", Sh("")),
    ("slccache compare output/run-a output/run-b --out output/compare", NO_COMPARE, Sh("")),
    (
        "slccache probe /dev/nvme0n1 --destroy-data",
        "",
        Drive("slccache probe $DRIVE --destroy-data"),
    ),
    (
        "slccache probe emu:960evo-500g,cache=4GB --pattern seqwrite",
        "",
        Sh("slccache probe emu:960evo-500g,cache=4GB --pattern seqwrite --max-bytes 2GB"),
    ),
    (
        "slccache probe /dev/loop3 --pattern seqwrite --bs 128k --qd 32 --destroy-data",
        "",
        Drive("slccache probe $DRIVE --pattern seqwrite --bs 128k --qd 32 --destroy-data"),
    ),
    (
        "slccache probe emu:960evo-250g --scenario iometer-128k-seq-qd32",
        "",
        Sh("slccache probe emu:960evo-250g --scenario iometer-128k-seq-qd32 --max-bytes 2GB"),
    ),
    (
        "slccache probe scratch.bin --size 1GiB --prefill 50 --duration 10s",
        FRESH,
        Sh("slccache probe scratch.bin --size 1GiB --prefill 50 --duration 10s --max-bytes 128MiB"),
    ),
    (
        "slccache probe scratch.bin --pattern randread --duration 30s",
        FILLED,
        Sh("slccache probe scratch.bin --pattern randread --duration 30s --max-bytes 256MiB"),
    ),
    (
        "slccache probe /dev/loop3 --pattern randrw --rwmix-read 70 --assume-written",
        "",
        Tty("slccache probe $DRIVE --pattern randrw --rwmix-read 70 --assume-written"),
    ),
    ("slccache analyze output/run/timeline.csv", "", Sh("")),
    ("slccache analyze trace.csv --time-unit s --rate-unit MiB/s --out output/trace", "", Sh("")),
    ("slccache analyze chunks.csv --x bytes --x-unit MiB --rate-unit MB/s", "", Sh("")),
    ("slccache simulate 960evo-1tb", "", Sh("")),
    ("slccache simulate fx700-2tb --pattern seqwrite --max-bytes 600GB", "", Sh("")),
    ("slccache simulate my-drive.toml --duration 30m", "", Sh("")),
    (
        "slccache compare output/960evo-* --out output/compare",
        // Only run folders are to match `960evo-*`: not the folder of the sweep above.
        "rm -rf output/compare output/960evo-*-sweep-*",
        Sh(""),
    ),
    ("slccache compare a/timeline.csv b_bw.1.log --units binary", "", Sh("")),
    ("slccache info scratch.bin --units binary", FILLED, Sh("")),
    ("slccache sweep p5-1tb --simulate --rwmix-read 100,70,30,0 --qd 3 --jobs 1", "", Sh("")),
    ("slccache sweep emu:970evo-500g --simulate --preset cdm", "", Sh("")),
    (
        "slccache sweep /dev/loop3 --qd 1,32 --point-duration 5s --destroy-data",
        "",
        Drive("slccache sweep $DRIVE --qd 1,32 --point-duration 1s --destroy-data"),
    ),
    (
        "slccache sweep scratch.bin --pattern randread --qd 1,8,32 --jobs 1,4",
        FILLED,
        Sh("slccache sweep scratch.bin --pattern randread --qd 1,8,32 --jobs 1,4 --point-duration 1s"),
    ),
    ("slccache recovery emu:970evo-500g --simulate --idle 10s,60s,300s", "", Sh("")),
    (
        "slccache recovery /dev/nvme0n1 --idle 5s,15s,30s,60s,120s,300s --seed 7",
        "",
        Tty("slccache recovery $DRIVE --idle 1s,2s --seed 7"),
    ),
    (
        "slccache recovery emu:960evo-250g,cache=2GB --idle 2s,5s,10s",
        "",
        Apart("slccache recovery emu:960evo-250g,cache=2GB --idle 2s,5s,10s --after-cliff 1s"),
    ),
    ("slccache fill-sweep emu:660p-1tb --simulate --levels 0,25,50,75", "", Sh("")),
    (
        "slccache fill-sweep /dev/nvme0n1 --levels 0,25,50,75,90 --trim --idle 30m",
        "",
        Tty("slccache fill-sweep $DRIVE --levels 0,25,50,75,90 --trim --idle 1s"),
    ),
    ("slccache runs --drive 980 --since 2026-01-01 --json", "", Sh("")),
    ("slccache runs show 42", "", Sh("slccache runs show 1")),
    ("slccache runs export 42 --out output/run-42", "", Sh("slccache runs export 1 --out output/run-42")),
    (
        "slccache runs import output/*",
        // The example's folders are runs: not the compare and history folders made above.
        "rm -rf output/compare* output/history-*",
        Sh(""),
    ),
    ("slccache runs rm 42", "", Sh("slccache runs rm 1")),
    (
        "slccache --db postgres://lab@db.example/slccache runs --host bench-3",
        "",
        NotRun("needs a lab's PostgreSQL server; store::readme runs the README's `--db postgres://` commands on a server of its own"),
    ),
    (
        "slccache history S4EWNX0R123456 --out output/history",
        "",
        Elsewhere("store::cli::history_charts_a_drive_against_date_and_wear, with runs of serial H1"),
    ),
    (
        "slccache --db postgres://dba@db.example/lab db migrate",
        "",
        Elsewhere("store::readme: the README's `--db postgres://dba@db.lab/lab db migrate` on its own server"),
    ),
    ("slccache db migrate", "", Sh("")),
    (
        "slccache runs copy --from old.db --to postgres://lab@db.lab/slccache",
        "",
        NotRun("needs a lab's PostgreSQL server; store::readme runs the README's `runs copy` commands on a server of its own"),
    ),
    ("slccache runs copy --host bench-3 --to bench-3.db", "", Sh("")),
    ("slccache runs --drive 960 copy --to 960.db", "", Sh("")),
    (
        "slccache runs copy 12 14 --to other.db",
        "",
        Sh("slccache runs copy 2 3 --to other.db"),
    ),
];

/// The documented commands: the README's (outside the results-library section) and the
/// `--help` examples, as keys, each once.
fn documented() -> Vec<String> {
    let readme = docs::readme();
    let store = docs::section(&readme, docs::RESULTS_LIBRARY);
    let rest = readme.replace(store, "");
    // Help examples that the results-library section shows too are run by store::readme.
    let walked: Vec<String> = docs::block_commands(store, &["slccache "])
        .iter()
        .map(|c| docs::key(c))
        .collect();
    let mut out: Vec<String> = Vec::new();
    let help = docs::help_examples()
        .into_iter()
        .map(|(_, c)| c)
        .filter(|c| !walked.contains(&docs::key(c)));
    for c in docs::block_commands(&rest, &["slccache ", "cargo "])
        .into_iter()
        .chain(help)
    {
        let k = docs::key(&c);
        if !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

/// A command is found in a code block indented under a list item, and after `sudo`, `env` or
/// `NAME=value`; the output lines of a block are not commands.
pub fn commands_are_found_indented_and_after_sudo_or_env() {
    let text = "\
1. Probe as root:

   ```sh
   sudo slccache probe /dev/nvme0n1 --pattern randwrite
   SLCCACHE_DB=lab.db slccache runs
   ```

```
env SLCCACHE_HOST=bench-1 slccache probe emu:960evo-250g \\
  --max-bytes 1GB
slccache: warning: not a command
  slccache history '960 EVO' --drive-kind emulated
```
";
    assert_eq!(
        docs::block_commands(text, &["slccache "]),
        [
            "sudo slccache probe /dev/nvme0n1 --pattern randwrite",
            "SLCCACHE_DB=lab.db slccache runs",
            "env SLCCACHE_HOST=bench-1 slccache probe emu:960evo-250g \\\n  --max-bytes 1GB",
        ]
    );
}

pub fn every_documented_command_is_listed() {
    let documented = documented();
    for c in &documented {
        assert!(
            COMMANDS.iter().any(|(k, _, _)| k == c),
            "a documented command that no test runs (add it to COMMANDS in {}):\n{c}",
            file!()
        );
    }
    for (k, _, _) in COMMANDS {
        assert!(
            documented.iter().any(|c| c == k),
            "in COMMANDS but no longer in the README or a --help: {k}"
        );
    }
    for (k, _, how) in COMMANDS {
        match how {
            NotRun(why) => eprintln!("not run: {k}: {why}"),
            Elsewhere(test) => eprintln!("run by {test}: {k}"),
            _ => {}
        }
    }
}

/// The scratch home where the commands run.
struct Home {
    dir: tempfile::TempDir,
    drive: Option<String>,
}

impl Home {
    fn new() -> Home {
        let home = Home {
            dir: tempfile::tempdir().unwrap(),
            drive: None,
        };
        home.ok(&setup());
        home
    }

    /// `sh -c TEXT` in the home, the binary under test on PATH, no store or spool of the
    /// caller's environment; returns the exit code and what it printed.
    fn sh(&self, text: &str) -> (Option<i32>, String) {
        let exe = Path::new(env!("CARGO_BIN_EXE_slccache"));
        let path = format!(
            "{}:{}",
            exe.parent().unwrap().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut c = Command::new("sh");
        c.arg("-c")
            .arg(text)
            .current_dir(self.dir.path())
            .env("HOME", self.dir.path())
            .env("PATH", path)
            .env_remove("XDG_DATA_HOME")
            .env_remove("SLCCACHE_DB")
            .env_remove("SLCCACHE_SPOOL")
            .env("SLCCACHE_HOST", "desk")
            .stdin(std::process::Stdio::null());
        if let Some(d) = &self.drive {
            c.env("DRIVE", d);
        }
        c.env("SCRATCH_SIZE", scratch_size(self.dir.path()));
        let o = c.output().unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        (o.status.code(), text)
    }

    fn ok(&self, text: &str) {
        let (code, out) = self.sh(text);
        assert_eq!(code, Some(0), "{text}\n{out}");
    }

    /// Runs the documented command `key` as `how` says, after `before`.
    fn run(&self, key: &str, before: &str, text: &str, tty: bool) {
        if !before.is_empty() {
            self.ok(before);
        }
        let text = if text.is_empty() { key } else { text };
        let run = if tty {
            format!("(sleep 1; printf '%s\\n' \"$DRIVE\") | script -qec '{text}' /dev/null")
        } else {
            text.to_string()
        };
        let started = std::time::Instant::now();
        let (code, out) = self.sh(&run);
        if std::env::var_os("SLCCACHE_TEST_TIMES").is_some() {
            eprintln!("  {:6.1} s  {key}", started.elapsed().as_secs_f64());
        }
        assert_eq!(code, Some(0), "documented: {key}\nran: {run}\n{out}");
    }
}

/// `8GiB` where the folder's filesystem has 9 GiB free, else `1GiB`.
fn scratch_size(dir: &Path) -> &'static str {
    let st = rustix::fs::statvfs(dir).unwrap();
    if st.f_bavail.saturating_mul(st.f_frsize) >= 9 << 30 {
        "8GiB"
    } else {
        "1GiB"
    }
}

/// The input files and run folders that the examples name.
fn setup() -> String {
    let mut fio = String::new();
    for i in 1..=60 {
        let kib = if i <= 20 { 1_300_000 } else { 580_000 };
        fio.push_str(&format!("{}, {kib}, 1, 131072, 0\\n", i * 1000));
    }
    let mut trace = String::new();
    let mut chunks = String::new();
    for i in 1..=60 {
        let rate = if i <= 20 { 1200 } else { 500 };
        trace.push_str(&format!("{i},{rate}\\n"));
        chunks.push_str(&format!("{},{rate}\\n", i * 512));
    }
    [
        "slccache simulate 960evo-250g --seed 1 --out output/run-a".to_string(),
        "slccache simulate 970evo-500g --seed 2 --out output/run-b".into(),
        "slccache simulate p5-1tb --seed 3 --out output/run-c".into(),
        "cp -r output/run-a output/run && cp -r output/run-a output/960evo-250g".into(),
        "cp -r output/run-b output/960evo-500g".into(),
        "cp -r output/run-a run-a && cp -r output/run-b run-b && cp -r output/run-c run-c".into(),
        "mkdir a && cp output/run-a/timeline.csv a/".into(),
        format!("printf '{fio}' > fio_bw.1.log && cp fio_bw.1.log b_bw.1.log"),
        format!("printf '{trace}' > trace.csv && printf '{chunks}' > chunks.csv"),
        "printf 'model = \"My Drive 1TB\"\\ncapacity = \"1TB\"\\nstatic = \"5GB\"\\n\
         dynamic = \"15GB\"\\nin = \"2000MB/s\"\\nafter = \"400MB/s\"\\n' > my-drive.toml"
            .into(),
    ]
    .join(" && ")
}

/// The documented commands that need no device, in order, in one scratch home; those that
/// run apart each in a home of its own, at the same time.
pub fn documented_commands_run() {
    std::thread::scope(|scope| {
        let apart: Vec<_> = COMMANDS
            .iter()
            .filter_map(|(key, before, how)| match how {
                Apart(text) => Some(scope.spawn(move || Home::new().run(key, before, text, false))),
                _ => None,
            })
            .collect();
        let home = Home::new();
        for (key, before, how) in COMMANDS {
            if let Sh(text) = how {
                home.run(key, before, text, false);
            }
        }
        for t in apart {
            if let Err(panic) = t.join() {
                std::panic::resume_unwind(panic);
            }
        }
    });
}

/// The documented commands on a real drive, on a scratch loop device instead.
pub fn documented_device_commands_run() {
    if !fault_util::may_run("documented_device_commands_run") {
        return;
    }
    let mut home = Home::new();
    let lo = fault_util::LoopDev::sparse(&home.dir.path().join("drive.img"), 512 << 20, false);
    home.drive = Some(lo.dev.clone());
    for (key, before, how) in COMMANDS {
        match how {
            Drive(text) => home.run(key, before, text, false),
            Tty(text) => home.run(key, before, text, true),
            _ => {}
        }
    }
    drop(lo);
    drop(home);
}

/// The README's first paragraph says what running its first command a second time does,
/// without and with `--force`; this runs that sequence (capped as [`COMMANDS`] runs it) and
/// checks each claim.
pub fn the_first_paragraph_says_what_a_second_run_and_force_do() {
    let readme = docs::readme();
    let intro = readme.split("\n## ").next().unwrap();
    let intro = intro.split_whitespace().collect::<Vec<_>>().join(" ");
    for claim in [
        "Run it a second time as it is and it is refused, writing nothing: `output/demo/` \
         already holds files.",
        "Add `--force` to write the new run over them: the earlier run's outputs there are \
         replaced, those the new run does not write again (a zoom chart, say) are removed, and \
         every other file in the folder is kept where it is, no part of the run: the results \
         store records slccache's own files only.",
    ] {
        assert!(
            intro.contains(claim),
            "the README's first paragraph no longer says: {claim}"
        );
    }
    let first = COMMANDS
        .iter()
        .find(|(k, _, _)| k.starts_with("cargo run --release -- probe"))
        .map(|(_, _, how)| match how {
            Sh(text) => *text,
            _ => unreachable!("the first command runs in the scratch home"),
        })
        .unwrap();
    assert!(first.ends_with("--out output/demo"), "{first}");
    let home = Home {
        dir: tempfile::tempdir().unwrap(),
        drive: None,
    };
    let demo = home.dir.path().join("output/demo");
    let listing = || {
        let mut v: Vec<String> = std::fs::read_dir(&demo)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let read = |name: &str| std::fs::read(demo.join(name)).unwrap();
    home.ok(first);
    let (files, summary) = (listing(), read("summary.json"));
    // A second time as it is: refused, nothing written.
    let (code, out) = home.sh(first);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("--force"), "{out}");
    assert_eq!(listing(), files);
    assert_eq!(
        read("summary.json"),
        summary,
        "the refused run wrote summary.json"
    );
    // With --force: the earlier run's outputs replaced, an earlier zoom chart that this run
    // does not write removed, a file of the user's kept.
    std::fs::write(demo.join("report.md"), "the earlier run's report").unwrap();
    std::fs::write(
        demo.join("throughput-time-zoom.png"),
        "an earlier zoom chart",
    )
    .unwrap();
    std::fs::write(demo.join("notes.txt"), "mine").unwrap();
    home.ok(&format!("{first} --force"));
    let md = String::from_utf8(read("report.md")).unwrap();
    assert!(!md.contains("the earlier run's report"), "{md}");
    assert!(md.contains("960 EVO"), "{md}");
    assert!(!demo.join("throughput-time-zoom.png").exists());
    assert_eq!(read("notes.txt"), b"mine");
    let mut expected = files.clone();
    expected.push("notes.txt".to_string());
    expected.sort();
    assert_eq!(listing(), expected);
}
