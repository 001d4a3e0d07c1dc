//! The Kubernetes example (`scripts/fleet/job.yaml`) cannot run here (no cluster, no image
//! builder), so what can be checked is checked: the manifest's fields (read with Python's
//! YAML parser, which Ansible brings), and the command it runs, with the environment it sets,
//! run against a file in place of the node's drive.

use std::path::Path;
use std::process::Command;

fn manifest() -> Option<serde_json::Value> {
    load("job.yaml")
}

/// A manifest of `scripts/fleet/` as JSON, or `None` (skipped) without Python's YAML module.
fn load(name: &str) -> Option<serde_json::Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scripts/fleet")
        .join(name);
    let o = Command::new("python3")
        .args([
            "-c",
            "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))",
        ])
        .arg(&path)
        .output();
    match o {
        Ok(o) if o.status.success() => Some(serde_json::from_slice(&o.stdout).unwrap()),
        _ => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "python3 with the yaml module is missing (ansible-core brings it)"
            );
            crate::common::skip("python3 with the yaml module is not installed");
            None
        }
    }
}

pub fn the_job_manifest_is_complete() {
    let Some(m) = manifest() else {
        return;
    };
    assert_eq!(m["kind"], "Job");
    assert_eq!(
        m["spec"]["backoffLimit"], 0,
        "a failed probe must not run again"
    );
    let pod = &m["spec"]["template"]["spec"];
    assert_eq!(pod["restartPolicy"], "Never");
    let c = &pod["containers"][0];
    assert!(
        c["image"].as_str().is_some_and(|i| !i.ends_with(":latest")),
        "a pinned image"
    );
    let args: Vec<&str> = c["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(args.contains(&"--require-record"));
    let env = c["env"].as_array().unwrap();
    let var = |n: &str| env.iter().find(|e| e["name"] == n).cloned();
    let db = var("SLCCACHE_DB").expect("SLCCACHE_DB");
    assert!(
        db["valueFrom"]["secretKeyRef"]["name"].is_string(),
        "the URL from a Secret"
    );
    assert!(db.get("value").is_none(), "no URL in the manifest");
    assert_eq!(
        var("SLCCACHE_HOST").unwrap()["valueFrom"]["fieldRef"]["fieldPath"],
        "spec.nodeName"
    );
    // --out and the spool lie on a volume that outlives the pod.
    let out = args[args.iter().position(|a| *a == "--out").unwrap() + 1];
    let spool = var("SLCCACHE_SPOOL").unwrap()["value"]
        .as_str()
        .unwrap()
        .to_string();
    let mounts = c["volumeMounts"].as_array().unwrap();
    for p in [out, spool.as_str()] {
        let m = mounts
            .iter()
            .find(|m| p.starts_with(m["mountPath"].as_str().unwrap()) && m["mountPath"] != "/dev")
            .unwrap_or_else(|| panic!("{p} is on no volume"));
        let vol = pod["volumes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == m["name"])
            .unwrap();
        assert!(vol["hostPath"]["path"].is_string(), "{p}: not on the node");
    }
    // Each run is a new Job (generateName: `kubectl create` twice runs twice), removed a
    // while after it finished.
    assert!(m["metadata"]["name"].is_null());
    assert!(m["metadata"]["generateName"]
        .as_str()
        .is_some_and(|n| n.ends_with('-')));
    assert!(m["spec"]["ttlSecondsAfterFinished"].as_i64().is_some());
    // The drive by a stable name.
    let drive = args.iter().find(|a| a.starts_with("/dev/")).unwrap();
    assert!(drive.starts_with("/dev/disk/by-id/"), "{drive}");
    // The CA certificate that the Secret's URL names (sslrootcert) is mounted from a Secret.
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/fleet/job.yaml"),
    )
    .unwrap();
    let root = text
        .split("sslrootcert=")
        .nth(1)
        .and_then(|r| r.split(['\'', '&', ' ']).next())
        .expect("the Secret's URL names sslrootcert");
    let ca = mounts
        .iter()
        .find(|m| root.starts_with(m["mountPath"].as_str().unwrap()))
        .unwrap_or_else(|| panic!("{root} is on no volume"));
    let vol = pod["volumes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == ca["name"])
        .unwrap();
    assert!(
        vol["secret"]["secretName"].is_string(),
        "{root}: not from a Secret"
    );

    // The Job that records what waits in the spool: the same Secrets, spool and volume.
    let imp = load("import-job.yaml").unwrap();
    let ipod = &imp["spec"]["template"]["spec"];
    let ic = &ipod["containers"][0];
    assert_eq!(imp["spec"]["backoffLimit"], 0);
    assert_eq!(ic["image"], c["image"]);
    assert_eq!(
        ic["args"],
        serde_json::json!(["runs", "import", "--pending"])
    );
    let ienv = ic["env"].as_array().unwrap();
    let ivar = |n: &str| ienv.iter().find(|e| e["name"] == n).cloned().unwrap();
    assert_eq!(ivar("SLCCACHE_DB"), db);
    assert_eq!(ivar("SLCCACHE_SPOOL")["value"], spool.as_str());
    let path_of = |pod: &serde_json::Value, c: &serde_json::Value, p: &str| -> String {
        let m = c["volumeMounts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| p.starts_with(m["mountPath"].as_str().unwrap()) && m["mountPath"] != "/dev")
            .unwrap()
            .clone();
        let v = pod["volumes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == m["name"])
            .unwrap()
            .clone();
        format!("{}{}", v["hostPath"]["path"], m["mountPath"])
    };
    assert_eq!(path_of(pod, c, &spool), path_of(ipod, ic, &spool));
    assert!(ic["volumeMounts"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| root.starts_with(m["mountPath"].as_str().unwrap())));

    // Where the image comes from is written beside it, and its recipe is in the repository.
    assert!(text.contains("scripts/fleet/Containerfile"));
    assert!(Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scripts/fleet/Containerfile")
        .is_file());
}

/// The Job's own arguments and environment, with the node's drive replaced by a file and the
/// Secret's URL by an SQLite store: the run is recorded under the node's name.
pub fn the_job_command_runs_and_records_under_the_node_name() {
    let Some(m) = manifest() else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let c = &m["spec"]["template"]["spec"]["containers"][0];
    let mut args: Vec<String> = c["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    let dev = args.iter().position(|a| a.starts_with("/dev/")).unwrap();
    args[dev] = d.path().join("drive.bin").display().to_string();
    // The pod's name, as Kubernetes expands $(POD_NAME); the volume's path, here.
    for a in args.iter_mut() {
        *a = a
            .replace("$(POD_NAME)", "slccache-bench-3-x7k2p")
            .replace("/var/lib/slccache", &d.path().display().to_string());
    }
    args.extend(["--size", "64MiB", "--max-bytes", "32MiB", "--bs", "1M"].map(String::from));
    let db = d.path().join("lab.db");
    let o = Command::new(env!("CARGO_BIN_EXE_slccache"))
        .args(&args)
        .env("SLCCACHE_DB", &db)
        .env("SLCCACHE_HOST", "bench-3")
        .env("SLCCACHE_SPOOL", d.path().join("pending"))
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(d
        .path()
        .join("runs/slccache-bench-3-x7k2p/summary.json")
        .is_file());
    let o = Command::new(env!("CARGO_BIN_EXE_slccache"))
        .arg("--db")
        .arg(&db)
        .args(["runs", "--host", "bench-3", "--json"])
        .output()
        .unwrap();
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(rows.len(), 1, "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(rows[0]["host"], "bench-3");
}
