//! The README's fleet example as a lab runs it: `scripts/fleet/probe.yml` with
//! `ansible-playbook` over three inventory hosts on this machine (`ansible_connection=local`,
//! three emulated drives), recording into a PostgreSQL server of the test's own (password
//! authentication; the password from `PGPASSWORD`, never on a command line). The server is
//! stopped while the third host's probe still runs: that host fails under `--require-record`,
//! the other two succeed, and after `runs import --pending` on the third all three runs are in
//! the store, listed by host and compared by host name.

use crate::common::store_util;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const PASSWORD: &str = "fleet-Pw@:/1";

fn ansible_playbook() -> Option<&'static str> {
    let found = Command::new("ansible-playbook")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "ansible-playbook is missing (apt-get install ansible-core); .ci/run installs it"
        );
        crate::common::skip("ansible-playbook is not installed");
        return None;
    }
    Some("ansible-playbook")
}

fn slccache(url: &str, spool: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_slccache"));
    c.env("PGPASSWORD", PASSWORD)
        .env("SLCCACHE_SPOOL", spool)
        .arg("--db")
        .arg(url);
    c
}

fn hosts_recorded(pg: &store_util::PgServer) -> Vec<String> {
    let Ok(mut c) = postgres::Client::connect(&pg.admin_url("fleet"), postgres::NoTls) else {
        return vec![];
    };
    let Ok(schemas) = c.query(
        "SELECT table_schema FROM information_schema.tables WHERE table_name = 'runs'",
        &[],
    ) else {
        return vec![];
    };
    let Some(schema) = schemas.first().map(|r| r.get::<_, String>(0)) else {
        return vec![];
    };
    c.query(
        &format!("SELECT host FROM \"{schema}\".runs ORDER BY host"),
        &[],
    )
    .map(|rows| rows.iter().map(|r| r.get::<_, String>(0)).collect())
    .unwrap_or_default()
}

pub fn three_benches_under_ansible_one_losing_its_server() {
    let Some(playbook_bin) = ansible_playbook() else {
        return;
    };
    let Some((mut pg, _)) = store_util::PgServer::start_secure() else {
        return;
    };
    // One statement each: CREATE DATABASE may not run inside the transaction that a
    // batch of statements is.
    let mut admin = pg.admin("postgres");
    admin
        .batch_execute(&format!("CREATE ROLE lab LOGIN PASSWORD '{PASSWORD}'"))
        .unwrap();
    admin
        .batch_execute("CREATE DATABASE fleet OWNER lab")
        .unwrap();
    let url = format!("postgres://lab@127.0.0.1:{}/fleet", pg.port);
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    // bench-3 writes for 40 s without stopping early: long enough to lose its server.
    let inventory = w.join("benches.ini");
    std::fs::write(
        &inventory,
        format!(
            "[benches]\n\
             bench-1 target=emu:960evo-250g,cache=1GB slccache_spool={w}/spool-1\n\
             bench-2 target=emu:970evo-500g,cache=1GB slccache_spool={w}/spool-2\n\
             bench-3 target=emu:p5-1tb,cache=1GB slccache_spool={w}/spool-3 \
             probe_args='[\"--pattern\", \"seqwrite\", \"--duration\", \"40s\", \"--no-early-stop\"]'\n\
             [benches:vars]\n\
             ansible_connection=local\n\
             ansible_python_interpreter=/usr/bin/python3\n\
             destroy_data=false\n\
             probe_args=[\"--pattern\", \"seqwrite\", \"--max-bytes\", \"3GB\"]\n\
             run_root={w}/runs\n",
            w = w.display()
        ),
    )
    .unwrap();
    let mut ansible = Command::new(playbook_bin)
        .arg("-i")
        .arg(&inventory)
        .arg(repo.join("scripts/fleet/probe.yml"))
        .arg("-e")
        .arg(format!("slccache={}", env!("CARGO_BIN_EXE_slccache")))
        .arg("-e")
        .arg(format!("slccache_db={url}"))
        // No fetch_to: the default, output/fleet under the folder the play started from.
        .current_dir(w)
        .env("PWD", w)
        .env("PGPASSWORD", PASSWORD)
        .env("ANSIBLE_LOCAL_TEMP", w.join("ansible-local"))
        .env("ANSIBLE_REMOTE_TEMP", w.join("ansible-remote"))
        .env("ANSIBLE_NOCOLOR", "1")
        .env("ANSIBLE_RETRY_FILES_ENABLED", "0")
        .stdout(std::fs::File::create(w.join("ansible.log")).unwrap())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let log = || std::fs::read_to_string(w.join("ansible.log")).unwrap_or_default();

    // bench-1 and bench-2 recorded; bench-3 still writing: stop the server.
    let deadline = Instant::now() + Duration::from_secs(150);
    loop {
        let hosts = hosts_recorded(&pg);
        if hosts == ["bench-1", "bench-2"] {
            break;
        }
        if let Some(st) = ansible.try_wait().unwrap() {
            panic!(
                "ansible ended ({st}) before the two short runs were recorded:\n{}",
                log()
            );
        }
        assert!(
            Instant::now() < deadline,
            "the two short runs were not recorded in time (hosts {hosts:?}):\n{}",
            log()
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    pg.pause();
    let deadline = Instant::now() + Duration::from_secs(180);
    let status = loop {
        if let Some(st) = ansible.try_wait().unwrap() {
            break st;
        }
        if Instant::now() > deadline {
            let _ = ansible.kill();
            panic!("ansible did not end:\n{}", log());
        }
        std::thread::sleep(Duration::from_millis(300));
    };
    pg.resume();
    let text = log();
    assert!(
        !status.success(),
        "one bench failed, so the play fails:\n{text}"
    );
    let recap = |host: &str| -> String {
        text.lines()
            .rev()
            .find(|l| l.starts_with(host) && l.contains("failed="))
            .unwrap_or_else(|| panic!("no recap line for {host}:\n{text}"))
            .to_string()
    };
    assert!(recap("bench-1").contains("failed=0"), "{text}");
    assert!(recap("bench-2").contains("failed=0"), "{text}");
    assert!(recap("bench-3").contains("failed=1"), "{text}");
    assert!(
        text.contains("bench-3: the run was not recorded (exit 1)")
            && text.contains(&format!("slccache --db {url} runs import --pending")),
        "{text}"
    );
    assert!(text.contains("bench-3: not recorded (exit 1)"), "{text}");
    assert!(
        !text.contains(PASSWORD),
        "the password is in Ansible's output"
    );
    // Every bench's folder was fetched, the losing one's too, each run into a folder of its
    // own (HOST/HOST-TIME/) under the folder the play started from; nothing beside the
    // playbook.
    for b in ["bench-1", "bench-2", "bench-3"] {
        let host = w.join("output/fleet").join(b);
        let runs: Vec<_> = std::fs::read_dir(&host)
            .unwrap_or_else(|e| panic!("{}: {e}", host.display()))
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(runs.len(), 1, "{runs:?}");
        let f = &runs[0];
        assert!(
            f.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(&format!("{b}-")),
            "{}",
            f.display()
        );
        for file in ["summary.json", "timeline.csv", "report.html"] {
            assert!(f.join(file).is_file(), "{} missing", f.join(file).display());
        }
    }
    assert!(!repo.join("scripts/fleet/output").exists());

    // On bench-3, the waiting run is recorded once its server is back.
    let o = slccache(&url, &w.join("spool-3"))
        .args(["runs", "import", "--pending"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success() && out.contains("recorded as run 3"),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(hosts_recorded(&pg), ["bench-1", "bench-2", "bench-3"]);

    // The lab's next commands: runs by host, and the three compared, named by host.
    let o = slccache(&url, &w.join("spool-3"))
        .args(["runs", "--by", "host"])
        .output()
        .unwrap();
    let by = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for b in ["bench-1", "bench-2", "bench-3"] {
        assert!(by.lines().any(|l| l.contains(b)), "{b} not in:\n{by}");
    }
    let o = slccache(&url, &w.join("spool-3"))
        .args(["compare", "1", "2", "3", "--out"])
        .arg(w.join("compare"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(w.join("compare/summary.json")).unwrap())
            .unwrap();
    let names: Vec<&str> = summary["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    // Each run by its host and id (the benches finish in any order).
    for b in ["bench-1", "bench-2", "bench-3"] {
        assert!(
            (1..=3).any(|id| names.iter().any(|n| n.starts_with(&format!("{b} #{id}: ")))),
            "compare names the runs {names:?}"
        );
    }
}
