//! slccache's NVMe pass-through engine (`--engine io-uring-cmd`) against fio's `io_uring_cmd`
//! engine, side by side in one QEMU guest (the tests' rig: QEMU's emulated NVMe controller
//! on a `null-co` namespace, the guest's real NVMe driver), at 4K QD1, 4K QD32 and 128K QD32
//! sequential writes. Each round runs every row with fio at its defaults (with registered
//! buffers and files, as slccache), fio lean (`--gtod_reduce=1`, no clock reads for latency)
//! and slccache, the order turning from round to round; the ratio of a row is slccache's rate
//! over fio's in the same round, and the table gives the median and the range over the rounds.
//!
//! The guest runs under software emulation (TCG) on this machine, so the absolute rates are
//! the emulator's, not a drive's: what carries over is the ratio, the host-side cost per
//! command of one engine against the other with the same controller and driver.
//!
//! Run with `cargo bench --bench passthrough` on a quiet machine, as root, with the rig
//! installed (`.ci/install-qemu`) and fio on this machine (`apt-get install fio`; it is put
//! into the guest with its libraries). `SLCCACHE_PT_ROUNDS` (default 8) and
//! `SLCCACHE_PT_SECONDS` (default 5, per run) change the length.

#[path = "../tests/common/mod.rs"]
#[allow(unused_imports)]
mod common;

use common::nvme_util::*;
use std::path::PathBuf;
use std::time::Duration;

/// The rows: (block size, queue depth).
const ROWS: [(&str, u32); 3] = [("4k", 1), ("4k", 32), ("128k", 32)];

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --benches` would run this too: only run when
    // asked to bench.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let Some(rig) = Rig::find("passthrough bench") else {
        return;
    };
    let Some(fio) = ["/usr/bin/fio", "/usr/local/bin/fio"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
    else {
        eprintln!("SKIP: no fio on this machine (apt-get install fio)");
        return;
    };
    let rounds = env_or("SLCCACHE_PT_ROUNDS", 8);
    let secs = env_or("SLCCACHE_PT_SECONDS", 5);
    let mut body = String::from("fio --version > /tmp/v; blob fioversion /tmp/v\n");
    for r in 0..rounds {
        for (i, (bs, qd)) in ROWS.iter().enumerate() {
            let fio_cmd = |name: &str, extra: &str| {
                format!(
                    "cmd {name}{r}_{i} fio --name=w --filename=/dev/ng0n1 --ioengine=io_uring_cmd \
                     --cmd_type=nvme --rw=write --bs={bs} --iodepth={qd} --fixedbufs \
                     --registerfiles --time_based --runtime={secs} --size=64g {extra} \
                     --output-format=json\n"
                )
            };
            let slc_cmd = format!(
                "cmd s{r}_{i} slccache probe /dev/ng0n1 --engine io-uring-cmd --destroy-data \
                 --pattern seqwrite --bs {bs} --qd {qd} --duration {secs}s --no-early-stop \
                 --no-record --quiet --out /tmp/s{r}_{i}\nblob s{r}_{i}.sum \
                 /tmp/s{r}_{i}/summary.json\nrm -rf /tmp/s{r}_{i}\n"
            );
            // fio at its defaults, and lean (--gtod_reduce=1: no latency clock reads, which
            // cost much under TCG; slccache keeps its latency histogram). The order turns
            // from round to round, so that a trend in the guest favours none of the three.
            let mut three = [fio_cmd("f", ""), fio_cmd("g", "--gtod_reduce=1"), slc_cmd];
            three.rotate_left(r as usize % 3);
            for c in three {
                body.push_str(&c);
            }
        }
    }
    let per_round = ROWS.len() as u64 * 3 * (secs + 3);
    let spec = GuestSpec {
        controllers: vec![Controller {
            serial: "SLCBENCH".into(),
            namespaces: vec![Namespace::null(256 << 30)],
        }],
        script: Script::new(&body),
        cmdline: String::new(),
        timeout: Some(Duration::from_secs(120 + rounds * per_round * 2)),
    };
    let guest = Guest::start_with_programs(&rig, spec, &[fio], None);
    let out = guest.wait();
    println!(
        "guest: QEMU {} (TCG), {}, null-co namespace, {rounds} rounds of {secs} s per run",
        rig.qemu_version,
        out.text("fioversion").trim()
    );
    println!(
        "{:<10} {:>9} {:>9} {:>9} {:>22} {:>22}",
        "row",
        "fio MB/s",
        "lean MB/s",
        "slc MB/s",
        "slc/fio median (range)",
        "slc/lean median (range)"
    );
    let med = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        let n = v.len();
        if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        }
    };
    for (i, (bs, qd)) in ROWS.iter().enumerate() {
        let fio_rate = |tag: &str, r: u64| -> f64 {
            let name = format!("{tag}{r}_{i}");
            let f: serde_json::Value =
                serde_json::from_str(&out.expect(&name, 0)).unwrap_or_else(|e| {
                    panic!("fio's JSON: {e}: {}", out.text(&format!("{name}.err")))
                });
            f["jobs"][0]["write"]["bw_bytes"].as_f64().unwrap()
        };
        let (mut fs, mut gs, mut ss, mut rf, mut rg) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for r in 0..rounds {
            let (f, g) = (fio_rate("f", r), fio_rate("g", r));
            out.expect(&format!("s{r}_{i}"), 0);
            let s: serde_json::Value =
                serde_json::from_str(&out.text(&format!("s{r}_{i}.sum"))).unwrap();
            assert_eq!(s["run"]["workload"]["engine"], "io_uring_cmd");
            let t = &s["totals"];
            let slc = t["bytes"].as_f64().unwrap() / t["duration_s"].as_f64().unwrap();
            fs.push(f);
            gs.push(g);
            ss.push(slc);
            rf.push(slc / f);
            rg.push(slc / g);
        }
        let (mf, mg, ms) = (med(&mut fs), med(&mut gs), med(&mut ss));
        let (mrf, mrg) = (med(&mut rf), med(&mut rg));
        println!(
            "{:<10} {:>9.1} {:>9.1} {:>9.1} {:>22} {:>22}",
            format!("{bs} QD{qd}"),
            mf / 1e6,
            mg / 1e6,
            ms / 1e6,
            format!("{mrf:.3} ({:.3}-{:.3})", rf[0], rf[rf.len() - 1]),
            format!("{mrg:.3} ({:.3}-{:.3})", rg[0], rg[rg.len() - 1]),
        );
    }
}
