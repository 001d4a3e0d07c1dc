//! slccache's NVMe pass-through engine (`--engine io-uring-cmd`) against fio's `io_uring_cmd`
//! engine, side by side in one QEMU guest (the tests' rig: QEMU's emulated NVMe controller
//! on a `null-co` namespace, the guest's real NVMe driver), at 4K QD1, 4K QD32 and 128K QD32
//! sequential writes, and with `SLCCACHE_PT_POLL` the same rows with polled completions
//! (slccache's `--hipri` against fio's `--hipri`, both `IORING_SETUP_IOPOLL`, in a guest
//! whose NVMe driver has poll queues). Each round runs every row with fio at its defaults
//! (with registered buffers and files, as slccache), fio lean (`--gtod_reduce=1`, no clock
//! reads for latency)
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
//! `SLCCACHE_PT_SECONDS` (default 5, per run) change the length. `SLCCACHE_PT_POLL=1` adds
//! the polled rows (the guest then boots with `nvme.poll_queues=2`, which leaves the
//! interrupt-driven queues as they are), `SLCCACHE_PT_POLL=only` runs them alone.

#[path = "../tests/common/mod.rs"]
#[allow(unused_imports)]
mod common;

use common::nvme_util::*;
use std::path::PathBuf;
use std::time::Duration;

/// The rows: (block size, queue depth), each run with completions signalled by interrupt
/// and, with `SLCCACHE_PT_POLL`, polled.
const ROWS: [(&str, u32); 3] = [("4k", 1), ("4k", 32), ("128k", 32)];

/// One row of the table: a block size, a queue depth, and whether completions are polled.
#[derive(Clone, Copy)]
struct Row {
    bs: &'static str,
    qd: u32,
    poll: bool,
}

impl Row {
    fn label(&self) -> String {
        format!(
            "{} QD{}{}",
            self.bs,
            self.qd,
            if self.poll { " poll" } else { "" }
        )
    }

    /// fio's and slccache's flag for polled completions, or nothing.
    fn hipri(&self) -> &'static str {
        if self.poll {
            "--hipri"
        } else {
            ""
        }
    }

    /// The engine slccache's summary names.
    fn engine(&self) -> &'static str {
        if self.poll {
            "io_uring_cmd_poll"
        } else {
            "io_uring_cmd"
        }
    }
}

/// The rows `SLCCACHE_PT_POLL` asks for: unset or `0`, interrupts only; `1`, interrupts and
/// polled; `only`, polled only.
fn rows() -> Vec<Row> {
    let poll = std::env::var("SLCCACHE_PT_POLL").unwrap_or_default();
    let modes: &[bool] = match poll.as_str() {
        "" | "0" => &[false],
        "1" => &[false, true],
        "only" => &[true],
        other => panic!("SLCCACHE_PT_POLL={other}: 0, 1 or only"),
    };
    modes
        .iter()
        .flat_map(|&poll| ROWS.iter().map(move |&(bs, qd)| Row { bs, qd, poll }))
        .collect()
}

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
    let rows = rows();
    let polled = rows.iter().any(|r| r.poll);
    // `irqs NAME`: the interrupts of the I/O queues (nvme0q1, ...; poll queues have none),
    // kept around every polled run to show that both tools polled.
    let mut body = String::from(
        "fio --version > /tmp/v; blob fioversion /tmp/v\n\
         cat /sys/block/nvme0n1/queue/io_poll > /tmp/io_poll; blob io_poll /tmp/io_poll\n\
         irqs() { grep -E 'nvme0q[1-9]' /proc/interrupts > /tmp/$1; blob $1 /tmp/$1; }\n",
    );
    for r in 0..rounds {
        for (i, row) in rows.iter().enumerate() {
            let (bs, qd, hipri) = (row.bs, row.qd, row.hipri());
            let fio_cmd = |name: &str, extra: &str| {
                format!(
                    "cmd {name}{r}_{i} fio --name=w --filename=/dev/ng0n1 --ioengine=io_uring_cmd \
                     --cmd_type=nvme --rw=write --bs={bs} --iodepth={qd} --fixedbufs \
                     --registerfiles {hipri} --time_based --runtime={secs} --size=64g {extra} \
                     --output-format=json\n"
                )
            };
            let slc_cmd = format!(
                "cmd s{r}_{i} slccache probe /dev/ng0n1 --engine io-uring-cmd {hipri} \
                 --destroy-data --pattern seqwrite --bs {bs} --qd {qd} --duration {secs}s \
                 --no-early-stop --no-record --quiet --out /tmp/s{r}_{i}\nblob s{r}_{i}.sum \
                 /tmp/s{r}_{i}/summary.json\nrm -rf /tmp/s{r}_{i}\n"
            );
            // fio at its defaults, and lean (--gtod_reduce=1: no latency clock reads, which
            // cost much under TCG; slccache keeps its latency histogram). The order turns
            // from round to round, so that a trend in the guest favours none of the three.
            let mut three = [
                ("f", fio_cmd("f", "")),
                ("g", fio_cmd("g", "--gtod_reduce=1")),
                ("s", slc_cmd),
            ];
            three.rotate_left(r as usize % 3);
            for (tag, c) in three {
                if row.poll {
                    body.push_str(&format!("irqs {tag}{r}_{i}.i0\n{c}irqs {tag}{r}_{i}.i1\n"));
                } else {
                    body.push_str(&c);
                }
            }
        }
    }
    let per_round = rows.len() as u64 * 3 * (secs + 3);
    let spec = GuestSpec {
        controllers: vec![Controller {
            serial: "SLCBENCH".into(),
            namespaces: vec![Namespace::null(256 << 30)],
        }],
        script: Script::new(&body),
        // Poll queues for the polled rows; the driver keeps one interrupt-driven queue per
        // CPU beside them, so the other rows run as they would without.
        cmdline: if polled {
            "nvme.poll_queues=2".into()
        } else {
            String::new()
        },
        timeout: Some(Duration::from_secs(120 + rounds * per_round * 2)),
    };
    let guest = Guest::start_with_programs(&rig, spec, &[fio], None);
    let out = guest.wait();
    if polled {
        assert_eq!(out.text("io_poll").trim(), "1", "the guest's driver polls");
    }
    println!(
        "guest: QEMU {} (TCG), {}, null-co namespace, {rounds} rounds of {secs} s per run",
        rig.qemu_version,
        out.text("fioversion").trim()
    );
    println!(
        "{:<15} {:>9} {:>9} {:>9} {:>22} {:>22}",
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
    for (i, row) in rows.iter().enumerate() {
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
            assert_eq!(s["run"]["workload"]["engine"], row.engine());
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
            "{:<15} {:>9.1} {:>9.1} {:>9.1} {:>22} {:>22}",
            row.label(),
            mf / 1e6,
            mg / 1e6,
            ms / 1e6,
            format!("{mrf:.3} ({:.3}-{:.3})", rf[0], rf[rf.len() - 1]),
            format!("{mrg:.3} ({:.3}-{:.3})", rg[0], rg[rg.len() - 1]),
        );
    }
    // Polled runs raise no interrupt on the I/O queues: a tool that fell back to them shows.
    for (i, row) in rows.iter().enumerate().filter(|(_, r)| r.poll) {
        let raised = |tag: &str| -> u64 {
            (0..rounds)
                .map(|r| {
                    let n =
                        |end: &str| io_queue_interrupts(&out.text(&format!("{tag}{r}_{i}.{end}")));
                    n("i1") - n("i0")
                })
                .sum()
        };
        println!(
            "{}: I/O queue interrupts over the rounds: fio {}, lean {}, slccache {}",
            row.label(),
            raised("f"),
            raised("g"),
            raised("s")
        );
    }
}

/// The interrupts in lines of `/proc/interrupts` ("IRQ: count-per-CPU... type name"), summed.
fn io_queue_interrupts(lines: &str) -> u64 {
    lines
        .lines()
        .flat_map(|l| {
            l.split_whitespace()
                .skip(1)
                .map_while(|w| w.parse::<u64>().ok())
                .collect::<Vec<_>>()
        })
        .sum()
}
