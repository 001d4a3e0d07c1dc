//! Reading timelines: fio bandwidth logs (windowed and per-I/O), two-column CSVs, errors.

use slccache::timeline::import::{
    self, parse_rate_unit, parse_text, parse_time_unit, ImportOptions,
};

fn parse(text: &str) -> Result<slccache::timeline::Timeline, String> {
    parse_text(text, "in.log", &ImportOptions::default()).map_err(|e| e.to_string())
}

#[test]
fn windowed_fio_log_is_kib_per_s_per_window() {
    let t =
        parse("1000, 1024, 1, 4096, 0\n2000, 2048, 1, 4096, 0\n3000, 1024, 1, 4096, 0\n").unwrap();
    assert_eq!(t.samples.len(), 3);
    assert_eq!(t.samples[0].t_s, 1.0);
    assert_eq!(t.samples[0].interval_s, 1.0);
    assert_eq!(t.samples[1].bytes_per_sec, 2048.0 * 1024.0);
    assert_eq!(t.bytes_total(), (1024 + 2048 + 1024) * 1024);
    assert_eq!(t.meta.workload.block_size, Some(4096));
}

#[test]
fn six_seven_and_eight_column_fio_logs_are_read() {
    for extra in [", 0", ", 0, 123", ", 0, 123, 7"] {
        let text: String = (1..=5)
            .map(|i| format!("{}, 1000, 1, 4096, 0{extra}\n", i * 1000))
            .collect();
        assert_eq!(parse(&text).unwrap().samples.len(), 5, "{extra}");
    }
}

#[test]
fn mixed_log_uses_write_rows_and_ignores_others() {
    let text = "1000, 500, 0, 4096, 0\n1000, 1000, 1, 4096, 0\n1000, 7, 2, 4096, 0\n\
                2000, 500, 0, 4096, 0\n2000, 3000, 1, 4096, 0\n";
    let t = parse(text).unwrap();
    let rates: Vec<f64> = t.samples.iter().map(|s| s.bytes_per_sec / 1024.0).collect();
    assert_eq!(rates, vec![1000.0, 3000.0]);
}

#[test]
fn read_only_fio_log_is_an_error_naming_file_and_line() {
    let e = parse("\n1000, 500, 0, 4096, 0\n2000, 500, 0, 4096, 0\n").unwrap_err();
    assert!(e.starts_with("in.log:2:"), "{e}");
    assert!(e.contains("reads"), "{e}");
}

#[test]
fn per_io_log_is_summed_into_intervals_by_block_size() {
    // 300 s of 4 KiB writes, 10 per second at irregular times; 2 per second after 200 s.
    let mut text = String::new();
    let mut t_ms = 0.0f64;
    let mut count = 0u64;
    while t_ms < 300_000.0 {
        let gap = if t_ms < 200_000.0 { 100.0 } else { 500.0 };
        t_ms += gap * (0.5 + ((count * 7919) % 100) as f64 / 100.0);
        if t_ms >= 300_000.0 {
            break;
        }
        text.push_str(&format!("{}, {}, 1, 4096, 0\n", t_ms.round(), 40960));
        count += 1;
    }
    let t = parse(&text).unwrap();
    // At least 200 intervals of 1 s; every write counted once.
    assert!(
        t.samples.len() >= 200 && t.samples.len() <= 301,
        "{}",
        t.samples.len()
    );
    assert_eq!(t.samples[0].interval_s, 1.0);
    assert_eq!(t.bytes_total(), count * 4096);
    let early = t.samples[50].bytes_per_sec;
    let late = t.samples[250].bytes_per_sec;
    assert!(early > 3.0 * late, "{early} vs {late}");
}

#[test]
fn two_column_csv_units_from_the_header() {
    let cases = [
        ("second,write_MiB_s", 1.0, 1048576.0),
        ("seconds,MB/s", 1.0, 1e6),
        ("t_s,KiB/s", 1.0, 1024.0),
        ("time (s),throughput (GB/s)", 1.0, 1e9),
        ("time_ms,MBps", 1e-3, 1e6),
    ];
    for (header, ts, rs) in cases {
        let step = 1.0 / ts;
        let text = format!(
            "{header}\n{},10\n{},20\n{},30\n",
            step,
            2.0 * step,
            3.0 * step
        );
        let t = parse(&text).unwrap_or_else(|e| panic!("{header}: {e}"));
        assert_eq!(t.samples.len(), 3, "{header}");
        assert!((t.samples[2].t_s - 3.0).abs() < 1e-9, "{header}");
        assert!(
            (t.samples[1].bytes_per_sec - 20.0 * rs).abs() < 1e-6 * rs,
            "{header}"
        );
    }
}

#[test]
fn headerless_two_column_csv_needs_the_unit_flags() {
    let text = "1,100\n2,200\n3,100\n";
    let e = parse(text).unwrap_err();
    assert!(e.contains("--time-unit") && e.contains("in.log:1:"), "{e}");
    let opts = ImportOptions {
        time_scale: parse_time_unit("ms"),
        rate_scale: parse_rate_unit("MiB/s"),
    };
    let t = parse_text("1000,100\n2000,200\n3000,100\n", "x.csv", &opts).unwrap();
    assert_eq!(t.samples[1].bytes_per_sec, 200.0 * 1048576.0);
    assert_eq!(t.samples[1].t_s, 2.0);
    assert_eq!(parse_rate_unit("furlongs/s"), None);
    assert_eq!(parse_time_unit("fortnight"), None);
}

#[test]
fn rows_sharing_a_time_are_averaged() {
    let t = parse("second,MB/s\n1,100\n1,300\n2,200\n2,200\n").unwrap();
    assert_eq!(t.samples.len(), 2);
    assert_eq!(t.samples[0].bytes_per_sec, 200e6);
}

#[test]
fn bad_input_errors_name_file_and_line() {
    let cases = [
        ("", "empty"),
        ("   \n\n", "empty"),
        ("hello world\n", "in.log:1: unknown format"),
        ("a,b,c\n1,2,3\n", "in.log:1: unknown format"),
        (
            "second,MB/s\n1,100\n3,100\n2,100\n",
            "in.log:4: time goes backwards",
        ),
        (
            "second,MB/s\n1,100\n2,-5\n",
            "in.log:3: column 2 must be finite and non-negative",
        ),
        (
            "second,MB/s\n1,100\n2,NaN\n",
            "in.log:3: column 2 must be finite",
        ),
        (
            "second,MB/s\n1,100\n2,fast\n",
            "in.log:3: column 2 is not a number",
        ),
        (
            "1000, 1, 1, 4096, 0\n900, 1, 1, 4096, 0\n",
            "in.log:2: time goes backwards",
        ),
        (
            "1000, 1, 1, 4096, 0\n2000, 1, 1\n",
            "in.log:2: expected 5 to 8 columns",
        ),
        ("second,rate\n1,100\n", "does not name the rate unit"),
    ];
    for (text, want) in cases {
        let e = parse(text).unwrap_err();
        assert!(e.contains(want), "{text:?}: got '{e}', want '{want}'");
    }
}

#[test]
fn slccache_timeline_with_time_going_backwards_is_an_error() {
    let text = "t_s,interval_s,bytes,bytes_total,bytes_per_sec\n1,1,10,10,10\n2,1,10,20,10\n\
                1.5,1,10,30,10\n";
    let e = parse(text).unwrap_err();
    assert!(e.starts_with("in.log:4:"), "{e}");
}

#[test]
fn fio_logs_with_unix_epoch_times_start_at_zero() {
    let t0 = 1_780_000_000_000u64;
    let text: String = (1..=5)
        .map(|i| format!("{}, 1000, 1, 4096, 0\n", t0 + i * 1000))
        .collect();
    let t = parse(&text).unwrap();
    assert_eq!(t.samples[0].t_s, 1.0);
    assert_eq!(t.samples[4].t_s, 5.0);
    // Per-I/O rows too: about 250 s of writes at irregular times.
    let mut ms = t0;
    let text: String = (1..=1000u64)
        .map(|i| {
            ms += 50 + (i * 7919) % 400;
            format!("{ms}, 1000, 1, 4096, 0\n")
        })
        .collect();
    let t = parse(&text).unwrap();
    assert!(t.duration_s() < 300.0, "{}", t.duration_s());
    assert_eq!(t.bytes_total(), 1000 * 4096);
}

fn diskspd_sample() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/diskspd/seqwrite_128k_2threads_D.xml")
}

#[test]
fn a_diskspd_xml_result_is_a_timeline_of_iops_times_block_size() {
    let text = std::fs::read_to_string(diskspd_sample()).unwrap();
    let t = import::load(&diskspd_sample()).unwrap();
    assert_eq!(t.samples.len(), 90);
    assert_eq!(t.meta.workload.block_size, Some(131072));
    assert_eq!(t.meta.workload.interval_s, Some(1.0));
    // Each interval is the sum over both threads of Write IOPS x 128 KiB, which is the
    // total bucket DiskSPD writes beside them.
    let totals: Vec<f64> = text
        .lines()
        .filter(|l| l.starts_with("      <Bucket SampleMillisecond="))
        .map(|l| {
            let w = l.split("Write=\"").nth(1).unwrap();
            w[..w.find('"').unwrap()].parse::<f64>().unwrap()
        })
        .collect();
    assert_eq!(totals.len(), 90);
    for (s, w) in t.samples.iter().zip(&totals) {
        assert_eq!(s.bytes_per_sec, w * 131072.0, "{s:?}");
        assert_eq!(s.interval_s, 1.0);
        assert!(s.read.is_none());
    }
    assert_eq!(t.samples[0].t_s, 1.0);
    // The cliff: 30.0 GB written, inside the 12-13 s interval.
    let a = slccache::detect::analyze(&t);
    assert_eq!(a.cliffs.len(), 1, "{:#?}", a.cliffs);
    let c = &a.cliffs[0];
    assert!((12.0..13.0).contains(&c.t_s), "{c:?}");
    let e = a.cache_estimate.as_ref().unwrap();
    assert!((e.bytes as f64 / 30e9 - 1.0).abs() < 0.01, "{e:?}");
    assert!(e.low_bytes as f64 <= 30e9 * 1.001 && 30e9 * 0.999 <= e.high_bytes as f64);
}

/// A DiskSPD result in the layout of its XML writer: `targets` are (path, block size), and
/// each thread's buckets are (path, [(read IOPS, write IOPS)]); 1 s buckets unless
/// `bucket_ms`.
/// One thread's targets: (path, [(read IOPS, write IOPS)] per bucket).
type ThreadBuckets<'a> = Vec<(&'a str, Vec<(u64, u64)>)>;

fn diskspd_xml(
    targets: &[(&str, u64)],
    threads: &[ThreadBuckets],
    bucket_ms: u64,
    warmup_s: u64,
) -> String {
    let mut x = String::from("<Results>\n  <System><ComputerName>T</ComputerName></System>\n");
    x.push_str("  <Profile>\n    <TimeSpans>\n      <TimeSpan>\n");
    x.push_str(&format!(
        "        <Duration>60</Duration>\n        <Warmup>{warmup_s}</Warmup>\n        \
         <IoBucketDuration>{bucket_ms}</IoBucketDuration>\n        <Targets>\n"
    ));
    for (p, bs) in targets {
        x.push_str(&format!(
            "          <Target>\n            <Path>{p}</Path>\n            \
             <BlockSize>{bs}</BlockSize>\n          </Target>\n"
        ));
    }
    x.push_str("        </Targets>\n      </TimeSpan>\n    </TimeSpans>\n  </Profile>\n");
    x.push_str("  <TimeSpan>\n    <TestTimeSeconds>60.00</TestTimeSeconds>\n");
    // The latency percentiles are Buckets too, without a SampleMillisecond.
    x.push_str(
        "    <Latency><Bucket><Percentile>50</Percentile><WriteMilliseconds>1.0\
         </WriteMilliseconds></Bucket></Latency>\n",
    );
    for (id, th) in threads.iter().enumerate() {
        x.push_str(&format!("    <Thread>\n      <Id>{id}</Id>\n"));
        for (p, b) in th {
            x.push_str(&format!(
                "      <Target>\n        <Path>{p}</Path>\n        <Iops>\n"
            ));
            for (i, (r, w)) in b.iter().enumerate() {
                x.push_str(&format!(
                    "          <Bucket SampleMillisecond=\"{}\" Read=\"{r}\" Write=\"{w}\" \
                     Total=\"{}\"/>\n",
                    (i as u64 + 1) * bucket_ms,
                    r + w
                ));
            }
            x.push_str("        </Iops>\n      </Target>\n");
        }
        x.push_str("    </Thread>\n");
    }
    x.push_str("  </TimeSpan>\n</Results>");
    x
}

#[test]
fn diskspd_reads_and_writes_are_kept_apart_and_targets_use_their_own_block_size() {
    let x = diskspd_xml(
        &[("D:\\a.dat", 4096), ("D:\\b.dat", 65536)],
        &[
            vec![("D:\\a.dat", vec![(100, 200), (300, 400), (0, 10)])],
            vec![("D:\\b.dat", vec![(1, 2), (3, 4), (5, 6)])],
        ],
        500,
        0,
    );
    let (t, notes) =
        import::parse_text_notes(&x, "mixed.xml", &import::ReadOptions::default()).unwrap();
    assert_eq!(t.samples.len(), 3);
    assert_eq!(t.samples[1].t_s, 1.0);
    assert_eq!(t.samples[1].interval_s, 0.5);
    // Write: 400 x 4 KiB + 4 x 64 KiB per second; read: 300 x 4 KiB + 3 x 64 KiB.
    assert_eq!(t.samples[1].bytes_per_sec, 400.0 * 4096.0 + 4.0 * 65536.0);
    let r = t.samples[1].read.as_ref().unwrap();
    assert_eq!(r.bytes as f64, 0.5 * (300.0 * 4096.0 + 3.0 * 65536.0));
    assert_eq!(r.iops, 303.0);
    assert_eq!(t.samples[1].iops, 404.0);
    assert_eq!(t.meta.workload.block_size, None);
    assert!(
        notes.iter().any(|n| n.contains("2 thread targets")),
        "{notes:?}"
    );
}

#[test]
fn diskspd_without_d_or_with_a_warm_up_says_what_to_do() {
    // No per-interval IOPS (run without -D).
    let x = diskspd_xml(&[("#1", 131072)], &[vec![("#1", vec![])]], 1000, 0);
    let e = import::parse_text(&x, "nod.xml", &Default::default()).unwrap_err();
    assert!(e.to_string().contains("run DiskSPD with -D"), "{e}");
    // A warm-up wrote data the timeline does not hold.
    let x = diskspd_xml(
        &[("#1", 131072)],
        &[vec![("#1", vec![(0, 100), (0, 100), (0, 50)])]],
        1000,
        5,
    );
    let (_, notes) =
        import::parse_text_notes(&x, "w.xml", &import::ReadOptions::default()).unwrap();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("5 s warm-up") && n.contains("-W0")),
        "{notes:?}"
    );
    // Not well-formed: the line is named.
    let e = import::parse_text(
        "<Results>\n<TimeSpan>\n</Results>\n",
        "bad.xml",
        &Default::default(),
    )
    .unwrap_err();
    assert_eq!(e.line, Some(3), "{e}");
    // Another XML document.
    let e = import::parse_text(
        "<?xml version=\"1.0\"?>\n<svg/>\n",
        "p.xml",
        &Default::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("not DiskSPD's <Results>"), "{e}");
}

#[test]
fn a_diskspd_result_saved_by_powershell_as_utf16_is_read() {
    let text = std::fs::read_to_string(diskspd_sample()).unwrap();
    let mut bytes = vec![0xff, 0xfe];
    for u in text.encode_utf16() {
        bytes.extend_from_slice(&u.to_le_bytes());
    }
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("out.xml");
    std::fs::write(&p, bytes).unwrap();
    let a = import::load(&p).unwrap();
    let b = import::load(&diskspd_sample()).unwrap();
    assert_eq!(a.samples, b.samples);
}

/// `text` read both ways: whole (`parse_text_notes`) and as a file (`load_with_notes`, row by
/// row for fio logs, two-column CSVs and slccache's own timelines). Both must agree; the
/// reading and its notes, or the error with its place.
fn read_both(
    text: &str,
    file: &str,
    opts: &import::ReadOptions,
) -> Result<(slccache::timeline::Timeline, Vec<String>), String> {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join(file);
    std::fs::write(&p, text).unwrap();
    let name = p.display().to_string();
    let whole = import::parse_text_notes(text, &name, opts).map_err(|e| e.to_string());
    let streamed = import::load_with_notes(&p, opts)
        .map(|(mut t, n)| {
            t.meta.label = String::new();
            (t, n)
        })
        .map_err(|e| e.to_string());
    let whole_cmp = whole.as_ref().map(|(t, n)| (t.samples.clone(), n.clone()));
    let streamed_cmp = streamed
        .as_ref()
        .map(|(t, n)| (t.samples.clone(), n.clone()));
    assert_eq!(whole_cmp, streamed_cmp, "{file}: the two readers differ");
    let dir = format!("{}/", d.path().display());
    whole
        .map(|(t, n)| (t, n.into_iter().map(|s| s.replace(&dir, "")).collect()))
        .map_err(|e| e.replace(&dir, ""))
}

/// A hole in time: rows at 1..20 s, then 300..339 s. The row after the hole used to stand for
/// the 280 s before it, inventing 140 GB at its rate (an 86.6 GB cache at 382 MB/s, where the
/// rows say 40 GB at 2000 MB/s, then 500 MB/s). A gap is refused, naming its line.
#[test]
fn a_gap_in_time_is_refused_naming_its_line() {
    let plain = import::ReadOptions::default();
    let mut csv = String::from("seconds,MB/s\n");
    let mut fio = String::new();
    for t in (1..=20).chain(300..340) {
        let mbs = if t <= 20 { 2000 } else { 500 };
        csv.push_str(&format!("{t},{mbs}\n"));
        fio.push_str(&format!(
            "{}, {}, 1, 131072, 0\n",
            t * 1000,
            mbs * 1_000_000 / 1024
        ));
    }
    let e = read_both(&csv, "gap.csv", &plain).unwrap_err();
    assert!(e.starts_with("gap.csv:22:") && e.contains("gap"), "{e}");
    assert!(e.contains("20") && e.contains("300"), "{e}");
    let e = read_both(&fio, "gap_bw.1.log", &plain).unwrap_err();
    assert!(
        e.starts_with("gap_bw.1.log:21:") && e.contains("gap"),
        "{e}"
    );
    // A longer log (past the look-ahead of the row-by-row reader) too.
    let mut long = String::from("seconds,MB/s\n");
    for t in (1..=3000).chain(3300..3400) {
        long.push_str(&format!("{t},{}\n", if t < 1000 { 2000 } else { 500 }));
    }
    let e = read_both(&long, "long.csv", &plain).unwrap_err();
    assert!(e.starts_with("long.csv:3002:") && e.contains("gap"), "{e}");
    // Jitter and a few windows missing are no gap.
    let mut jit = String::from("seconds,MB/s\n");
    for i in (1..=100).filter(|i| !(40..43).contains(i)) {
        let t = i as f64 + (i % 3) as f64 * 0.05;
        jit.push_str(&format!("{t:.2},{}\n", 100 + i));
    }
    read_both(&jit, "jit.csv", &plain).unwrap();
}

/// A short hole (rows at 1..20 s, then 29..68 s: 8 windows missing) is no gap, and the row
/// after it stands for the 9 s at its rate: 4 GB of the 64 GB "written" were made up by the
/// reader, and the analysis said nothing of it. A note says how many rows, the longest, and
/// the bytes assumed; a log without missing windows gets none. A slccache timeline.csv with
/// its first rows cut off (8.6 GB written before its first row) was analysed as if its start
/// were known; a note says it is not.
#[test]
fn missing_windows_and_a_cut_start_are_said_not_read() {
    let plain = import::ReadOptions::default();
    let mut csv = String::from("seconds,MB/s\n");
    let mut fio = String::new();
    let mut whole = String::from("seconds,MB/s\n");
    for t in (1..=20).chain(29..=68) {
        let mbs = if t <= 20 { 2000 } else { 500 };
        csv.push_str(&format!("{t},{mbs}\n"));
        fio.push_str(&format!(
            "{}, {}, 1, 131072, 0\n",
            t * 1000,
            mbs * 1_000_000 / 1024
        ));
    }
    for t in 1..=68 {
        whole.push_str(&format!("{t},{}\n", if t <= 20 { 2000 } else { 500 }));
    }
    for (file, text, assumed) in [
        ("hole.csv", &csv, "4.00 GB of the 64.0 GB written"),
        ("hole_bw.1.log", &fio, "of the 64.0 GB written"),
    ] {
        let (_, notes) = read_both(text, file, &plain).unwrap();
        let note = notes
            .iter()
            .find(|n| n.contains("late or missing window"))
            .unwrap_or_else(|| panic!("{file}: no note in {notes:?}"));
        assert!(
            note.contains("1 row follows") && note.contains("9 s before the row at 29 s"),
            "{note}"
        );
        assert!(
            note.contains(assumed) && note.contains("assumed, not read"),
            "{note}"
        );
    }
    let (_, notes) = read_both(&whole, "whole.csv", &plain).unwrap();
    assert!(
        notes.iter().all(|n| !n.contains("missing window")),
        "{notes:?}"
    );

    let mut own = String::from("t_s,interval_s,bytes,bytes_total,bytes_per_sec\n");
    let mut total = 0u64;
    for i in 1..=30u64 {
        let b = if i <= 10 { 1_000_000_000 } else { 300_000_000 };
        total += b;
        if i > 7 {
            own.push_str(&format!("{i}.000000,1.000000,{b},{total},{b}.0\n"));
        }
    }
    let (_, notes) = read_both(&own, "timeline.csv", &plain).unwrap();
    assert!(
        notes.iter().any(
            |n| n.contains("the first row (at 8 s) follows 7.00 GB written")
                && n.contains("no rate before 7 s is known")
        ),
        "{notes:?}"
    );
}

/// slccache's own timeline.csv says where each row starts (`t_s - interval_s`): rows removed
/// leave a hole the reader sees, and the row after it is refused by line.
#[test]
fn a_timeline_with_rows_removed_is_refused_naming_the_line() {
    let mut text = String::from("t_s,interval_s,bytes,bytes_total,bytes_per_sec\n");
    let mut total = 0u64;
    for i in 1..=60u64 {
        let b = if i <= 30 { 2_000_000_000 } else { 500_000_000 };
        total += b;
        if (20..40).contains(&i) {
            continue;
        }
        text.push_str(&format!("{i}.000000,1.000000,{b},{total},{b}.0\n"));
    }
    let e = read_both(&text, "timeline.csv", &import::ReadOptions::default()).unwrap_err();
    assert!(e.starts_with("timeline.csv:21:"), "{e}");
    assert!(e.contains("19") && e.contains("39"), "{e}");
}

/// Positions that jump (rows missing from a CSV of data written) would make one chunk of
/// the whole jump, written at the row's rate: refused, naming the line.
#[test]
fn a_gap_in_positions_is_refused_naming_its_line() {
    let mut text = String::from("MiB,MB/s\n");
    for p in (1..=50).chain(500..520) {
        text.push_str(&format!("{},{}\n", p * 76, if p < 30 { 1500 } else { 300 }));
    }
    let e = read_both(&text, "pos.csv", &import::ReadOptions::default()).unwrap_err();
    assert!(e.starts_with("pos.csv:52:") && e.contains("gap"), "{e}");
}

/// Times no run can have (1e30 s) used to overflow the byte count to u64::MAX, "18447 PB",
/// with exit 0. They are refused by line, as rates above any drive's are.
#[test]
fn implausible_times_are_refused_naming_the_line() {
    let plain = import::ReadOptions::default();
    for (file, text, line) in [
        ("huge.csv", "seconds,MB/s\n1,100\n2,100\n1e30,100\n", 4),
        ("huge2.csv", "seconds,MB/s\n1,100\n1e12,100\n", 3),
        (
            "first.csv",
            "seconds,MB/s\n1e30,100\n2e30,100\n3e30,100\n",
            2,
        ),
        (
            "huge_bw.1.log",
            "1000, 100, 1, 4096, 0\n2000, 100, 1, 4096, 0\n1e33, 100, 1, 4096, 0\n",
            3,
        ),
        (
            "timeline.csv",
            "t_s,interval_s,bytes,bytes_total,bytes_per_sec\n1,1,10,10,10\n\
             1e30,1e30,10,20,10\n",
            3,
        ),
        (
            "bytes.csv",
            "t_s,interval_s,bytes,bytes_total,bytes_per_sec\n1,1,10,10,10\n\
             2,1,1e25,1e25,10\n",
            3,
        ),
    ] {
        let e = read_both(text, file, &plain).unwrap_err();
        assert!(
            e.starts_with(&format!("{file}:{line}:")) && e.contains("implausible"),
            "{file}: {e}"
        );
    }
}

/// A CSV of data written against rate whose first row is at 1e30 MB said "sample 1 (t =
/// 500000000000000000000000000 s) is implausible: 18446744073709551615 bytes written by
/// then": an overflowed count and a time in 27 digits.
#[test]
fn an_overflowed_count_is_not_printed_as_a_number() {
    let e = read_both(
        "MB,MB/s\n1e30,2000\n2e30,2000\n",
        "data.csv",
        &import::ReadOptions::default(),
    )
    .unwrap_err();
    assert!(e.contains("implausible"), "{e}");
    assert!(
        !e.contains("18446744073709551615") && !e.contains("000000000000"),
        "{e}"
    );
}

/// Columns are found by name, in either order: `MB/s,time_s` and `time_s,bytes_per_sec` used
/// to be told the header "does not name the rate unit".
#[test]
fn two_column_headers_are_read_by_name_in_either_order() {
    let plain = import::ReadOptions::default();
    for (header, rate_first, scale) in [
        ("MB/s,time_s", true, 1e6),
        ("time_s,bytes_per_sec", false, 1.0),
        ("bytes_per_sec,t_s", true, 1.0),
        ("write MiB/s,seconds", true, 1048576.0),
        ("time_ms,B/s", false, 1.0),
    ] {
        let ms = header.contains("_ms");
        let mut text = format!("{header}\n");
        for i in 1..=5 {
            let t = if ms { i * 1000 } else { i };
            let r = 100 * i;
            if rate_first {
                text.push_str(&format!("{r},{t}\n"));
            } else {
                text.push_str(&format!("{t},{r}\n"));
            }
        }
        let (t, _) = read_both(&text, "swap.csv", &plain).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t.samples.len(), 5, "{header}");
        assert!((t.samples[4].t_s - 5.0).abs() < 1e-9, "{header}");
        let want = 500.0 * scale;
        assert!(
            (t.samples[4].bytes_per_sec - want).abs() < 1e-6 * want,
            "{header}: {}",
            t.samples[4].bytes_per_sec
        );
    }
    // A header that names no time or two rates says what is wrong with it.
    let e = read_both("MB/s,GB/s\n1,2\n3,4\n", "two.csv", &plain).unwrap_err();
    assert!(e.contains("both columns") && e.contains("rate"), "{e}");
    let e = read_both("MB/s,when\n1,2\n3,4\n", "when.csv", &plain).unwrap_err();
    assert!(e.contains("'when'") && e.contains("time unit"), "{e}");
}

/// A unit flag that the header contradicts is refused, naming both; one that agrees with it
/// is fine. (It used to be ignored, the header winning.)
#[test]
fn a_unit_flag_the_header_contradicts_is_refused_naming_both() {
    let text = "seconds,MB/s\n1,100\n2,100\n3,50\n";
    let with = |time: Option<f64>, rate: Option<f64>| import::ReadOptions {
        units: ImportOptions {
            time_scale: time,
            rate_scale: rate,
        },
        position_scale: None,
    };
    let e = read_both(text, "a.csv", &with(None, parse_rate_unit("KiB/s"))).unwrap_err();
    assert!(
        e.starts_with("a.csv:1:") && e.contains("--rate-unit KiB/s") && e.contains("'MB/s'"),
        "{e}"
    );
    let e = read_both(text, "a.csv", &with(parse_time_unit("ms"), None)).unwrap_err();
    assert!(
        e.contains("--time-unit ms") && e.contains("'seconds'"),
        "{e}"
    );
    let (_, notes) = read_both(
        text,
        "a.csv",
        &with(parse_time_unit("s"), parse_rate_unit("MB/s")),
    )
    .unwrap();
    assert!(notes.is_empty(), "{notes:?}");
}

/// Rows sharing a time, and the read rows of a mixed fio log, are left out of the timeline
/// as they were, but no longer silently: a note says how many.
#[test]
fn rows_left_out_are_counted_in_a_note() {
    let plain = import::ReadOptions::default();
    let (t, notes) = read_both(
        "second,MB/s\n1,100\n1,300\n2,200\n2,200\n3,100\n",
        "dup.csv",
        &plain,
    )
    .unwrap();
    assert_eq!(t.samples.len(), 3);
    assert!(
        notes
            .iter()
            .any(|n| n.contains("2 rows") && n.contains("same time")),
        "{notes:?}"
    );
    let mixed = "1000, 500, 0, 4096, 0\n1000, 1000, 1, 4096, 0\n1000, 7, 2, 4096, 0\n\
                 2000, 500, 0, 4096, 0\n2000, 3000, 1, 4096, 0\n3000, 3000, 1, 4096, 0\n";
    let (_, notes) = read_both(mixed, "mixed_bw.1.log", &plain).unwrap();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("2 read rows") && n.contains("1 trim row")),
        "{notes:?}"
    );
    // A pure write log has no such note.
    let (_, notes) = read_both(
        "1000, 1000, 1, 4096, 0\n2000, 3000, 1, 4096, 0\n",
        "w_bw.1.log",
        &plain,
    )
    .unwrap();
    assert!(notes.is_empty(), "{notes:?}");
}
