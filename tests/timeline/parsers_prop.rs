//! Property tests for every parser: sizes, durations and rates (units), slccache timelines,
//! fio bandwidth logs (windowed and per-I/O), two-column CSVs, scenario TOML, drive model
//! specs (`emu:` / `simulate` specs) and model TOML files. Random input must never panic, and
//! a timeline that slccache wrote must read back to the same samples.
//!
//! Random text comes in two kinds: any characters at all, and text built from the pieces the
//! parser looks for (digits, unit suffixes, separators, keys), which reaches much deeper.

use proptest::prelude::*;
use slccache::config::Scenario;
use slccache::model::presets::{parse_spec, KEYS};
use slccache::timeline::import::{parse_text, ImportOptions};
use slccache::timeline::{read_slccache_csv, CsvWriter, RunMeta, Sample, Timeline};
use slccache::units::{parse_duration, parse_rate, parse_size};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// A number as people and programs write them, including the awkward ones.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        "-?[0-9]{1,30}(\\.[0-9]{0,6})?([eE][+-]?[0-9]{1,3})?",
        Just("NaN".to_string()),
        Just("inf".to_string()),
        Just("-inf".to_string()),
        Just("1e308".to_string()),
        Just("18446744073709551616".to_string()),
        Just("".to_string()),
        any::<f64>().prop_map(|x| x.to_string()),
        any::<u64>().prop_map(|x| x.to_string()),
    ]
}

fn size_unit() -> impl Strategy<Value = String> {
    "(|k|m|g|t|p|e|b|B|K|KB|kB|KiB|MB|MiB|M|G|GB|GiB|T|TB|TiB|PB|PiB|EB|EiB|ZB|YB| kb| GB|x)"
        .prop_map(|s| s.to_string())
}

fn time_unit() -> impl Strategy<Value = String> {
    "(|ns|us|µs|ms|s|sec|m|min|h|hours|d|days|w|weeks|M|y|years|q| s)".prop_map(|s| s.to_string())
}

proptest! {
    #![proptest_config(config())]

    // --- sizes, durations, rates ---

    #[test]
    fn sizes_never_panic(s in "\\PC{0,24}") {
        let _ = parse_size(&s);
    }

    #[test]
    fn sizes_built_from_pieces_never_panic(n in number(), u in size_unit()) {
        let _ = parse_size(&format!("{n}{u}"));
    }

    #[test]
    fn sizes_mean_what_they_say(n in 0u64..(1 << 30), i in 0usize..7) {
        let (suffix, scale) = [
            ("", 1u64), ("k", 1 << 10), ("KiB", 1 << 10), ("KB", 1000), ("m", 1 << 20),
            ("MB", 1_000_000), ("GiB", 1 << 30),
        ][i];
        prop_assert_eq!(parse_size(&format!("{n}{suffix}")).unwrap(), n * scale);
    }

    #[test]
    fn durations_never_panic(s in "\\PC{0,24}") {
        let _ = parse_duration(&s);
    }

    #[test]
    fn durations_built_from_pieces_never_panic(n in number(), u in time_unit()) {
        let _ = parse_duration(&format!("{n}{u}"));
    }

    #[test]
    fn durations_mean_what_they_say(ms in 0u64..10_000_000) {
        prop_assert_eq!(parse_duration(&format!("{ms}ms")).unwrap().as_millis() as u64, ms);
        prop_assert_eq!(parse_duration(&format!("{ms}s")).unwrap().as_secs(), ms);
    }

    #[test]
    fn rates_never_panic(n in number(), u in size_unit(), per in "(/s|ps|/h|)") {
        let _ = parse_rate(&format!("{n}{u}{per}"));
    }

    // --- slccache timeline.csv ---

    #[test]
    fn timeline_text_never_panics(s in "\\PC{0,200}") {
        let _ = read_slccache_csv(&s, "t.csv");
        let _ = parse_text(&s, "t.csv", &ImportOptions::default());
    }

    #[test]
    fn timeline_rows_never_panic(rows in prop::collection::vec(
        prop::collection::vec(number(), 0..12), 0..12)
    ) {
        let mut text = String::from(
            "t_s,interval_s,bytes,bytes_total,bytes_per_sec,iops,lat_p50_us,lat_p99_us,\
             lat_max_us,temp_c\n");
        for r in &rows {
            text.push_str(&r.join(","));
            text.push('\n');
        }
        let _ = read_slccache_csv(&text, "t.csv");
        let _ = parse_text(&text, "t.csv", &ImportOptions::default());
    }

    #[test]
    fn a_written_timeline_reads_back_the_same(samples in samples()) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("timeline.csv");
        let t = Timeline { samples: samples.clone(), meta: RunMeta::default() };
        CsvWriter::write_all(&path, &t).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let back = read_slccache_csv(&text, "timeline.csv").unwrap();
        prop_assert_eq!(back, samples);
    }

    // --- fio logs ---

    #[test]
    fn fio_rows_never_panic(rows in prop::collection::vec(
        prop::collection::vec(number(), 5..=8), 1..20)
    ) {
        let text: String = rows.iter().map(|r| r.join(", ") + "\n").collect();
        let _ = parse_text(&text, "x_bw.1.log", &ImportOptions::default());
    }

    #[test]
    fn windowed_fio_logs_parse(rates in prop::collection::vec(1u64..10_000_000, 2..50),
                               window_ms in 1u64..2000) {
        let text: String = rates.iter().enumerate()
            .map(|(i, r)| format!("{}, {r}, 1, 4096, 0\n", (i as u64 + 1) * window_ms))
            .collect();
        let t = parse_text(&text, "x_bw.1.log", &ImportOptions::default()).unwrap();
        prop_assert!(t.samples.len() >= 2);
        prop_assert!(t.samples.iter().all(|s| s.bytes_per_sec.is_finite()));
    }

    #[test]
    fn per_io_fio_logs_never_panic(
        ios in prop::collection::vec((0u64..5, 0u64..3_000_000, 0u64..3, 0u64..(1 << 21)), 1..200)
    ) {
        // One row per completed I/O: time (ms, non-decreasing), value, ddir, bs, offset.
        let mut t = 0;
        let text: String = ios.iter().map(|(dt, v, dir, bs)| {
            t += dt;
            format!("{t}, {v}, {dir}, {bs}, 0\n")
        }).collect();
        let _ = parse_text(&text, "x_bw.1.log", &ImportOptions::default());
    }

    // --- two-column CSV ---

    #[test]
    fn two_column_csvs_never_panic(
        header in "(|seconds,MB/s|time_ms,MiB/s|t,rate|time (s),throughput (GB/s)|MB,MB/s|\\PC{0,12},\\PC{0,12})",
        rows in prop::collection::vec((number(), number()), 0..30),
        time_scale in prop::option::of(prop_oneof![Just(1.0), Just(1e-3), any::<f64>()]),
        rate_scale in prop::option::of(prop_oneof![Just(1e6), Just(1048576.0), any::<f64>()]),
    ) {
        let mut text = String::new();
        if !header.is_empty() {
            text.push_str(&header);
            text.push('\n');
        }
        for (a, b) in &rows {
            text.push_str(&format!("{a},{b}\n"));
        }
        let opts = ImportOptions { time_scale, rate_scale };
        let _ = parse_text(&text, "two.csv", &opts);
    }

    // --- scenario TOML ---

    #[test]
    fn scenario_text_never_panics(s in "\\PC{0,120}") {
        let _ = Scenario::parse(&s, "s.toml");
    }

    #[test]
    fn scenario_keys_never_panic(lines in prop::collection::vec((scenario_key(), toml_value()), 0..8)) {
        let text: String = lines.iter().map(|(k, v)| format!("{k} = {v}\n")).collect();
        let _ = Scenario::parse(&text, "s.toml");
    }

    // --- drive model specs and model TOML ---

    #[test]
    fn model_specs_never_panic(
        head in "(960evo-500g|pm983-960g|870evo-4tb|660p-1tb|nope|)",
        pairs in prop::collection::vec((model_key(), spec_value()), 0..6),
    ) {
        let mut spec = head;
        for (k, v) in &pairs {
            spec.push_str(&format!(",{k}={v}"));
        }
        let _ = parse_spec(&spec);
    }

    #[test]
    fn model_spec_text_never_panics(s in "[a-z0-9,=.: -]{0,40}") {
        // Only names that cannot be files here: a spec ending in .toml is read as a file.
        let _ = parse_spec(&s.replace(".toml", ".tom"));
    }

    #[test]
    fn model_toml_never_panics(lines in prop::collection::vec((model_key(), toml_value()), 0..8)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.toml");
        let text: String = lines.iter().map(|(k, v)| format!("{k} = {v}\n")).collect();
        std::fs::write(&path, text).unwrap();
        let _ = parse_spec(path.to_str().unwrap());
    }
}

/// Samples as the sampler writes them: times to the microsecond, rates to a tenth, latencies
/// to a thousandth, temperatures to a tenth (the precision of `timeline.csv`).
fn samples() -> impl Strategy<Value = Vec<Sample>> {
    prop::collection::vec(
        (
            1u64..5_000_000,
            0u64..(1 << 40),
            0u64..(1 << 40),
            0u64..(1 << 30),
            prop::option::of((0u64..1 << 30, 0u64..1 << 30, 0u64..1 << 30)),
            prop::option::of(-400i64..1500),
        ),
        0..40,
    )
    .prop_map(|rows| {
        let (mut t_us, mut total) = (0u64, 0u64);
        rows.into_iter()
            .map(|(dt_us, bytes, rate_tenths, iops_tenths, lat, temp)| {
                t_us += dt_us;
                total += bytes;
                Sample {
                    t_s: t_us as f64 / 1e6,
                    interval_s: dt_us as f64 / 1e6,
                    bytes,
                    bytes_total: total,
                    bytes_per_sec: rate_tenths as f64 / 10.0,
                    iops: iops_tenths as f64 / 10.0,
                    lat_p50_us: lat.map(|l| l.0 as f64 / 1000.0),
                    lat_p99_us: lat.map(|l| l.1 as f64 / 1000.0),
                    lat_max_us: lat.map(|l| l.2 as f64 / 1000.0),
                    temp_c: temp.map(|t| t as f64 / 10.0),
                    ..Default::default()
                }
            })
            .collect()
    })
}

fn scenario_key() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "description",
            "source",
            "pattern",
            "bs",
            "qd",
            "jobs",
            "interval",
            "span",
            "duration",
            "max_bytes",
            "passes",
            "seed",
        ])
        .prop_map(str::to_string),
        "[a-z_]{1,8}",
    ]
}

fn model_key() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(KEYS.iter().map(|(k, _)| *k).collect::<Vec<_>>())
            .prop_map(str::to_string),
        "[a-z_]{1,8}",
    ]
}

/// A TOML value: quoted strings with sizes, durations and rates, bare numbers, booleans,
/// arrays, and broken text.
fn toml_value() -> impl Strategy<Value = String> {
    prop_oneof![
        (number(), size_unit()).prop_map(|(n, u)| format!("\"{n}{u}\"")),
        (number(), time_unit()).prop_map(|(n, u)| format!("\"{n}{u}\"")),
        (number(), size_unit()).prop_map(|(n, u)| format!("\"{n}{u}/s\"")),
        number(),
        Just("true".to_string()),
        Just("\"seqwrite\"".to_string()),
        Just("\"randwrite\"".to_string()),
        Just("[1, 2]".to_string()),
        Just("{ a = 1 }".to_string()),
        "\\PC{0,10}",
    ]
}

/// A value in a `key=value` spec (no commas).
fn spec_value() -> impl Strategy<Value = String> {
    prop_oneof![
        (number(), size_unit()).prop_map(|(n, u)| format!("{n}{u}")),
        (number(), size_unit()).prop_map(|(n, u)| format!("{n}{u}/s")),
        (number(), time_unit()).prop_map(|(n, u)| format!("{n}{u}")),
        number(),
        "[^,]{0,10}",
    ]
}
