//! The README's commands about the results library and the fleet, run as a user types them.
//!
//! Every command in a code block of the README's section "The results library" is either run
//! here, in the README's order, by `sh` in a scratch home (so `~` and globs are the shell's),
//! or named in [`ELSEWHERE`] with the test that runs it. A command added to that section
//! without either fails this test. Only what cannot be on this machine is changed, each by a
//! plain text substitution listed in [`substitutions`]: the lab's server `db.lab` becomes the
//! test's own PostgreSQL server, and the scratch drive `/dev/nvme1n1` an emulated drive.

use crate::common::store_util;

use std::path::Path;
use std::process::Command;

/// Commands of the section that another test runs, and which one.
const ELSEWHERE: &[(&str, &str)] = &[
    (
        "ansible-playbook -i benches.ini scripts/fleet/probe.yml -e slccache_db=postgres://lab@db.lab/slccache",
        "fleet_ansible: the same playbook over the local inventory (a lab's benches.ini names \
         its own machines)",
    ),
    (
        "ansible-playbook -i scripts/fleet/benches-local.ini scripts/fleet/probe.yml \\\n  -e slccache_db=postgres://lab@localhost/slccache        # three emulated benches on this machine",
        "fleet_ansible",
    ),
    (
        "slccache --db postgres://lab@db.lab/slccache runs --by host",
        "fleet_ansible, after the playbook",
    ),
];

const LAB_PASSWORD: &str = "lab-Pw@:/7";
const DBA_PASSWORD: &str = "dba-Pw@:/8";

/// The commands in code blocks of the README's results-library section, each as one string
/// (continuation lines and quoted newlines kept), in order. Lines that are a program's output
/// (`slccache: warning: ...`, tables) are not commands.
fn readme_commands() -> Vec<String> {
    let readme = crate::common::docs::readme();
    crate::common::docs::block_commands(
        crate::common::docs::section(&readme, crate::common::docs::RESULTS_LIBRARY),
        &["slccache ", "ansible-playbook ", "psql "],
    )
}

/// The changes from the README's text to what runs here.
fn substitutions(port: u16, bin: &Path) -> Vec<(String, String)> {
    vec![
        (
            "postgres://lab@db.lab/slccache".into(),
            format!("postgres://lab@127.0.0.1:{port}/slccache"),
        ),
        (
            "postgres://dba@db.lab/lab".into(),
            format!("postgres://dba@127.0.0.1:{port}/lab"),
        ),
        (
            "psql -h db.lab lab".into(),
            format!("{}/psql -h 127.0.0.1 -p {port} -U dba lab", bin.display()),
        ),
        (
            "probe /dev/nvme1n1 --destroy-data".into(),
            "probe emu:970evo-500g,cache=1GB --max-bytes 2GB".into(),
        ),
    ]
}

/// One step of the walk through the section.
enum Step {
    /// A README command (its text as the README has it), with what it must print.
    Readme(&'static str, Check),
    /// The test's own preparation between commands.
    Setup(fn(&mut World)),
}

/// What a README command must do beyond exiting 0.
#[derive(Clone, Copy)]
enum Check {
    None,
    /// Its stdout holds each of these.
    Prints(&'static [&'static str]),
    /// Its stdout parses as JSON holding this many elements.
    JsonArray(usize),
}

/// The scratch machine the commands run on.
struct World {
    pg: store_util::PgServer,
    home: tempfile::TempDir,
    /// Replacements decided while the walk runs (run ids).
    ids: Vec<(String, String)>,
    /// `SLCCACHE_DB` of the user's shell, where a step sets one.
    env_db: Option<String>,
}

impl World {
    fn dir(&self) -> &Path {
        self.home.path()
    }

    /// `sh -c TEXT` in the scratch home, with the binary on PATH and no store or spool of the
    /// project's test environment (so the default store is the home's).
    fn sh(&self, text: &str) -> (Option<i32>, String, String) {
        let exe = Path::new(env!("CARGO_BIN_EXE_slccache"));
        let path = format!(
            "{}:{}",
            exe.parent().unwrap().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut c = Command::new("sh");
        c.arg("-c")
            .arg(text)
            .current_dir(self.dir())
            .env("HOME", self.dir())
            .env("PATH", path)
            .env_remove("XDG_DATA_HOME")
            .env_remove("SLCCACHE_DB")
            .env_remove("SLCCACHE_SPOOL")
            .env_remove("PGPASSWORD")
            .env("SLCCACHE_HOST", "desk");
        if let Some(db) = &self.env_db {
            c.env("SLCCACHE_DB", db);
        }
        let o = c.output().unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    }

    fn ok(&self, text: &str) -> String {
        let (code, out, err) = self.sh(text);
        assert_eq!(code, Some(0), "{text}\n{out}{err}");
        out
    }

    /// The default store's runs, as `runs --json` lists them.
    fn runs(&self) -> Vec<serde_json::Value> {
        serde_json::from_str(&self.ok("slccache runs --json")).unwrap()
    }
}

fn steps() -> Vec<Step> {
    use Check::*;
    use Step::*;
    vec![
        // A run whose store is down waits in the spool; the user's shell names the lab's
        // store in SLCCACHE_DB.
        Setup(|w| {
            w.env_db = Some(format!("postgres://lab@127.0.0.1:{}/slccache", w.pg.port));
            w.pg.pause();
            let (code, _, err) = w.sh("slccache simulate 960evo-250g --seed 5 --out output/run-a");
            assert_eq!(code, Some(0), "{err}");
            assert!(err.contains("slccache runs import --pending"), "{err}");
            w.pg.resume();
        }),
        Readme(
            "slccache runs import --pending     # each waiting run once, with its own date, host and folder",
            Prints(&["recorded as run 1 in postgres://lab@127.0.0.1:"]),
        ),
        Setup(|w| {
            w.env_db = Option::None;
            // Folders made before the store existed.
            w.ok("slccache --no-record simulate 970evo-500g --seed 1 --out output/old-run-1");
            w.ok("slccache --no-record simulate p5-1tb --seed 2 --out output/old-run-2");
        }),
        Readme(
            "slccache probe emu:960evo-250g,cache=2GB --max-bytes 4GB      # three emulated drives",
            None,
        ),
        Readme(
            "slccache probe emu:970evo-500g,cache=2GB --max-bytes 4GB",
            None,
        ),
        Readme("slccache probe emu:p5-1tb,cache=2GB --max-bytes 4GB", None),
        Readme(
            "slccache runs import output/old-run-*      # folders made before the store existed (each once)",
            None,
        ),
        Setup(|w| assert_eq!(w.runs().len(), 5)),
        Readme(
            "slccache runs                              # id, date, drive, serial, host, what ran, workload, cache, rates",
            Prints(&["960 EVO", "970 EVO", "P5", "desk"]),
        ),
        Readme(
            "slccache runs --drive \"960 evo\" --since 2026-01-01 --kind probe --json   # or --csv",
            JsonArray(1),
        ),
        Readme(
            "slccache runs show 3                       # the row and its summary.json",
            Prints(&["\"slccache_version\""]),
        ),
        Readme(
            "slccache compare 1 3 --out output/1-vs-3   # run ids as well as folders",
            None,
        ),
        Setup(|w| assert!(w.dir().join("output/1-vs-3/summary.json").is_file())),
        Readme(
            "slccache runs export 3 --out output/run-3  # the folder again, from the store alone",
            None,
        ),
        Setup(|w| {
            for f in ["summary.json", "timeline.csv", "report.html", "card.png"] {
                assert!(w.dir().join("output/run-3").join(f).is_file(), "{f}");
            }
        }),
        Readme("slccache runs rm 3", None),
        Setup(|w| assert_eq!(w.runs().len(), 4)),
        Readme(
            "slccache --host bench-2 --tag rack=r3 --tag ticket=LAB-88 probe /dev/nvme1n1 --destroy-data",
            None,
        ),
        Readme(
            "slccache runs --host bench --tag rack=r3          # bench-1, bench-2, ... in rack r3",
            Prints(&["bench-2"]),
        ),
        Setup(|w| {
            // Old folders that name no host.
            for (i, preset) in ["960evo-250g", "970evo-500g"].iter().enumerate() {
                let dir = w.dir().join(format!("old/run-{i}"));
                w.ok(&format!(
                    "slccache --no-record simulate {preset} --seed {} --out {}",
                    10 + i,
                    dir.display()
                ));
                let p = dir.join("summary.json");
                let mut v: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
                v.as_object_mut().unwrap().remove("origin");
                std::fs::write(&p, serde_json::to_string_pretty(&v).unwrap() + "\n").unwrap();
            }
        }),
        Readme(
            "slccache runs import --host bench-1 old/*         # old folders, which name no host",
            None,
        ),
        Readme(
            "slccache runs --by host                           # per host: runs, median and range of cache and after-cache rate",
            Prints(&[
                "host                      runs  cache: median (range)",
                "after cache: median (range)",
                "bench-1 (mixes 2 drives)     2",
                "bench-2                      1",
                "desk (mixes 4 drives)        4",
            ]),
        ),
        Readme(
            "slccache runs --by drive                          # per drive and workload (4K random and 128K sequential apart)",
            Prints(&["drive", " workload ", "cache: median (range)", "randwrite 4K QD32"]),
        ),
        Readme(
            "slccache runs --by tag:rack --json                # the same per rack, as JSON",
            Prints(&["\"group\": \"r3\"", "\"by\": \"tag:rack\""]),
        ),
        Setup(|w| {
            let runs = w.runs();
            let of = |host: &str| {
                runs.iter()
                    .find(|r| r["host"] == host)
                    .unwrap_or_else(|| panic!("no run of {host}"))["id"]
                    .to_string()
            };
            w.ids = vec![(
                "compare 31 44".into(),
                format!("compare {} {} --out output/hosts", of("bench-2"), of("bench-1")),
            )];
        }),
        Readme(
            "slccache compare 31 44                            # runs of two hosts: \"bench-2 #31: ...\", \"bench-5 #44: ...\"",
            Prints(&["compared 2 runs"]),
        ),
        Setup(|w| {
            let s: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(w.dir().join("output/hosts/summary.json")).unwrap(),
            )
            .unwrap();
            let names: Vec<&str> = s["runs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["name"].as_str().unwrap())
                .collect();
            assert!(names[0].starts_with("bench-2 #"), "{names:?}");
            assert!(names[1].starts_with("bench-1 #"), "{names:?}");
        }),
        // A bench-3 run for the copy back.
        Setup(|w| {
            w.ok("slccache --host bench-3 simulate 960evo-250g --seed 21 --out output/b3");
        }),
        Readme(
            "slccache runs copy --from ~/.local/share/slccache/results.db --to postgres://lab@db.lab/slccache",
            None,
        ),
        Setup(|w| {
            // Every run of the desk's store is on the server, beside the one that waited.
            let n: i64 = w
                .pg
                .admin("slccache")
                .query_one("SELECT count(*) FROM slccache.runs", &[])
                .unwrap()
                .get(0);
            assert_eq!(n as usize, w.runs().len() + 1);
        }),
        Readme(
            "slccache --db postgres://lab@db.lab/slccache runs copy --to bench-3.db --host bench-3",
            None,
        ),
        Setup(|w| {
            let list = w.ok("slccache --db bench-3.db runs --json");
            let v: Vec<serde_json::Value> = serde_json::from_str(&list).unwrap();
            assert_eq!(v.len(), 1, "{list}");
            assert_eq!(v[0]["host"], "bench-3");
        }),
        Readme("slccache --db postgres://dba@db.lab/lab db migrate", None),
        Readme(
            "psql -h db.lab lab -c 'GRANT USAGE ON SCHEMA slccache TO fleet;\n  GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA slccache TO fleet;\n  ALTER DEFAULT PRIVILEGES IN SCHEMA slccache GRANT SELECT, INSERT ON TABLES TO fleet;'",
            None,
        ),
        Setup(|w| {
            // The fleet's role records into the store it was given and lists it.
            let url = format!("postgres://fleet@127.0.0.1:{}/lab", w.pg.port);
            let out = w.ok(&format!(
                "slccache --db {url} --require-record simulate 960evo-250g --seed 3 \
                 --out output/fleet-1 2>&1 && slccache --db {url} runs"
            ));
            assert!(out.contains("recorded as run 1"), "{out}");
        }),
    ]
}

pub fn every_store_and_fleet_command_of_the_readme_runs() {
    let Some((pg, _)) = store_util::PgServer::start_secure() else {
        return;
    };
    let bin = store_util::pg_bin_dir().expect("the server started from it");
    let mut admin = pg.admin("postgres");
    for sql in [
        format!("CREATE ROLE lab LOGIN PASSWORD '{LAB_PASSWORD}'"),
        "CREATE DATABASE slccache OWNER lab".into(),
        format!("CREATE ROLE dba LOGIN PASSWORD '{DBA_PASSWORD}'"),
        "CREATE DATABASE lab OWNER dba".into(),
        format!("CREATE ROLE fleet LOGIN PASSWORD '{LAB_PASSWORD}'"),
    ] {
        admin.batch_execute(&sql).unwrap();
    }
    drop(admin);
    let home = tempfile::tempdir().unwrap();
    // The passwords where PostgreSQL users keep them.
    let pgpass = home.path().join(".pgpass");
    let esc = |p: &str| p.replace('\\', "\\\\").replace(':', "\\:");
    std::fs::write(
        &pgpass,
        format!(
            "127.0.0.1:{port}:*:lab:{}\n127.0.0.1:{port}:*:dba:{}\n127.0.0.1:{port}:*:fleet:{}\n",
            esc(LAB_PASSWORD),
            esc(DBA_PASSWORD),
            esc(LAB_PASSWORD),
            port = pg.port
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o600)).unwrap();

    let subs = substitutions(pg.port, &bin);
    let mut world = World {
        pg,
        home,
        ids: Vec::new(),
        env_db: None,
    };
    let steps = steps();

    // Every command of the section is run here or elsewhere, and nothing else is claimed.
    let listed: Vec<&str> = steps
        .iter()
        .filter_map(|s| match s {
            Step::Readme(c, _) => Some(*c),
            Step::Setup(_) => None,
        })
        .chain(ELSEWHERE.iter().map(|(c, _)| *c))
        .collect();
    let readme = readme_commands();
    for c in &readme {
        assert!(
            listed.contains(&c.as_str()),
            "the README's command is run by no test:\n{c}"
        );
    }
    for c in &listed {
        assert!(
            readme.iter().any(|r| r == c),
            "not (or no longer) in the README:\n{c}"
        );
    }

    for step in steps {
        match step {
            Step::Setup(f) => f(&mut world),
            Step::Readme(text, check) => {
                let mut run = text.to_string();
                for (from, to) in subs.iter().chain(&world.ids) {
                    run = run.replace(from.as_str(), to);
                }
                let (code, out, err) = world.sh(&run);
                assert_eq!(code, Some(0), "{run}\n{out}{err}");
                for secret in [LAB_PASSWORD, DBA_PASSWORD] {
                    assert!(
                        !out.contains(secret) && !err.contains(secret),
                        "{run}: a password"
                    );
                }
                match check {
                    Check::None => {}
                    Check::Prints(wanted) => {
                        for w in wanted {
                            assert!(out.contains(w), "{run}: no {w:?} in\n{out}{err}");
                        }
                    }
                    Check::JsonArray(n) => {
                        let v: Vec<serde_json::Value> = serde_json::from_str(&out)
                            .unwrap_or_else(|e| panic!("{run}: {e}\n{out}"));
                        assert_eq!(v.len(), n, "{run}:\n{out}");
                    }
                }
            }
        }
    }
    // The walk's folders hold no password either.
    for (name, data) in store_util::folder(world.dir()) {
        if name.ends_with(".db") || name.starts_with(".pgpass") {
            continue;
        }
        let text = String::from_utf8_lossy(&data);
        for secret in [LAB_PASSWORD, DBA_PASSWORD] {
            assert!(!text.contains(secret), "{name} holds a password");
        }
    }
}
