//! Reading timelines: fio bandwidth logs (windowed and per-I/O), two-column CSVs, errors.

use slccache::timeline::import::{parse_rate_unit, parse_text, parse_time_unit, ImportOptions};

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
