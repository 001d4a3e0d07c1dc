//! Tests that cannot run on every machine (they need root for loop devices, mounts and cgroups,
//! or the QEMU rig, PostgreSQL, Chromium, Ansible, a shell, `script`, FUSE...) call [`skip`]
//! with the reason and return, and the binary reports them as **ignored, with that reason**,
//! never as passed:
//!
//! ```text
//! test block::probes_a_loop_device_it_created ... ignored (loop devices, mounts and cgroups need root)
//! test result: ok. 0 passed; 0 failed; 7 ignored; 0 measured; 66 filtered out; finished in 0.00s
//! ```
//!
//! libtest cannot mark a test ignored once it has started, so the binaries that hold such tests
//! run on libtest-mimic (`harness = false` in Cargo.toml): their tests are `pub fn`s without
//! `#[test]`, listed in the binary's main.rs with [`tests!`](crate::tests). A test function that
//! is not listed is dead code, which clippy refuses; a `#[test]` attribute in such a binary would
//! drop its function silently, so [`run`] adds a test that refuses one.
//!
//! Under `CI=true` nothing may be skipped: CI runs as root with everything installed (`.ci/run`),
//! so [`skip`] fails the test there.

use std::cell::RefCell;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use libtest_mimic::{Arguments, Completion, Trial};

thread_local! {
    /// Why the test running on this thread skipped, once it has.
    static SKIPPED: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Whether this binary's harness reports skipped tests (set by [`run`]).
static REPORTS_SKIPS: AtomicBool = AtomicBool::new(false);

/// Whether the tests run under CI (`CI=true`), where every requirement must be met.
pub fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Says that the running test cannot run here, and why; the caller returns right after, and
/// the test is reported as ignored with `reason`. Under `CI=true` the test fails instead. Call
/// it on the test's own thread.
pub fn skip(reason: impl std::fmt::Display) {
    let reason = reason.to_string();
    assert!(!ci(), "CI=true but this test cannot run here: {reason}");
    assert!(
        REPORTS_SKIPS.load(Ordering::Relaxed),
        "a test skipped ({reason}) in a binary run by libtest, which would count it as passed: \
         give the binary `harness = false` in Cargo.toml and a main.rs that calls \
         common::harness::run"
    );
    eprintln!("skipped: {reason}");
    SKIPPED.with(|s| *s.borrow_mut() = Some(reason));
}

/// A test: its name (`module::function`) and its function.
pub type Test = (&'static str, fn());

/// Runs `tests` as libtest would, reporting those that called [`skip`] as ignored. With
/// `SLCCACHE_TEST_TIMES` set, each test's wall time goes to stderr (`time   12.3 s  NAME`). `main_rs` is
/// the binary's `file!()`, to check its folder for `#[test]` attributes that would not run.
///
/// `per_core` tests run at once for each core, unless `--test-threads` or `RUST_TEST_THREADS`
/// says otherwise: 1 for tests that keep a core busy, more for a binary whose tests mostly
/// wait (on a drive emulated in real time, on PostgreSQL, on child processes).
pub fn run(main_rs: &'static str, per_core: usize, tests: Vec<Test>) -> ExitCode {
    REPORTS_SKIPS.store(true, Ordering::Relaxed);
    let mut args = Arguments::from_args();
    if args.test_threads.is_none() {
        args.test_threads = std::env::var("RUST_TEST_THREADS")
            .ok()
            .and_then(|v| v.parse().ok())
            .or_else(|| {
                let cores = std::thread::available_parallelism().map_or(1, usize::from);
                Some(cores * per_core.max(1))
            });
    }
    let times = std::env::var_os("SLCCACHE_TEST_TIMES").is_some();
    let mut trials: Vec<Trial> = tests
        .into_iter()
        .map(|(name, f)| {
            Trial::ignorable_test(name, move || {
                SKIPPED.with(|s| s.borrow_mut().take());
                let start = std::time::Instant::now();
                f();
                if times {
                    eprintln!("time {:7.1} s  {name}", start.elapsed().as_secs_f64());
                }
                Ok(match SKIPPED.with(|s| s.borrow_mut().take()) {
                    Some(reason) => Completion::ignored_with(reason),
                    None => Completion::Completed,
                })
            })
        })
        .collect();
    trials.push(Trial::test("no_test_attribute_left_unrun", move || {
        no_test_attribute(main_rs).map_err(Into::into)
    }));
    libtest_mimic::run(&args, trials).exit_code()
}

/// The variable that names a child to run ([`run_child`]).
pub const CHILD_VAR: &str = "SLCCACHE_TEST_CHILD";

/// When this process was started as a test's child (the variable [`CHILD_VAR`] names one of
/// `children`, as `module::function`), runs that function and returns its exit code; else
/// `None`. A child is a half of a test (a process the test starts and kills, say), not a test
/// of its own: it is never listed, so it never counts as a pass.
pub fn run_child(children: Vec<Test>) -> Option<ExitCode> {
    let name = std::env::var(CHILD_VAR).ok()?;
    let (_, f) = children
        .into_iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("{CHILD_VAR}={name}: no such child in this binary"));
    f();
    Some(ExitCode::SUCCESS)
}

/// No module of the binary whose main.rs is `main_rs` (relative to the crate) has a `#[test]`:
/// without libtest, such a function is compiled out and never runs.
fn no_test_attribute(main_rs: &str) -> Result<(), String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(main_rs)
        .parent()
        .unwrap()
        .to_path_buf();
    for entry in std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            // `#[test]` in any form: alone, with a function or a comment on its line, or
            // under `cfg_attr`.
            let attr = |l: &str| {
                let l = l.trim_start();
                !l.starts_with("//")
                    && (l.starts_with("#[test]")
                        || (l.starts_with("#[cfg_attr(")
                            && (l.contains(" test)") || l.contains(", test)"))))
            };
            if text.lines().any(attr) {
                return Err(format!(
                    "{} has a #[test], which this binary's harness never runs: make it a \
                     `pub fn` and list it in main.rs",
                    path.display()
                ));
            }
        }
    }
    Ok(())
}

/// The list of tests for [`run`]: `tests![module::function, ...]`.
#[macro_export]
macro_rules! tests {
    ($($m:ident :: $f:ident),* $(,)?) => {
        vec![$((concat!(stringify!($m), "::", stringify!($f)), $m::$f as fn())),*]
    };
}
