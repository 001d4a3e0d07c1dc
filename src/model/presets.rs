//! Built-in drive presets, each citing its row of `published-drives.csv`; overrides
//! (`960evo-500g,cache=30GB,after=500MB/s`) and drive models read from TOML files.
//!
//! Row numbers are line numbers of `data/published-drives.csv` (line 1 is the header).
//! Figures the file does not give are marked "assumed" in the preset's `source`.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;

use super::{DriveModel, Thermal};
use crate::error::usage;
use crate::units::{
    format_bytes, format_rate, parse_duration, parse_rate, parse_size, Bytes, Rate, UnitSystem,
};

/// The keys accepted in overrides (`PRESET,key=value,...`) and in model TOML files, with what
/// they set. Sizes: `30GB` (decimal) or `30GiB`/`30g` (binary); rates: `500MB/s`; durations:
/// `25us`, `2s`; fractions: `0.8` or `80%`.
pub const KEYS: &[(&str, &str)] = &[
    ("preset", "(TOML files only) start from this preset"),
    ("name", "short name used for output folders"),
    ("model", "full name shown in reports"),
    ("source", "where the figures come from"),
    ("capacity", "user capacity (size)"),
    (
        "link",
        "the link the drive sits on, whose usable rate caps its rates: sata-6g, sata-3g, \
         sata-1.5g, usb-480m, usb-5g, usb-10g, usb-20g, pcieGxW (generation 1-5, width 1, 2, \
         4, 8 or 16; e.g. pcie3x4), or 'none' to drop a preset's link",
    ),
    (
        "cache",
        "SLC cache of the empty drive (size); static and dynamic parts scale with it",
    ),
    ("static", "static part of the SLC cache (size)"),
    (
        "dynamic",
        "dynamic part of the SLC cache on an empty drive (size)",
    ),
    (
        "dyn_until",
        "fill level at which the dynamic part is gone (fraction, default 1)",
    ),
    (
        "fill",
        "fill level of the drive at the start (fraction); shrinks the dynamic part",
    ),
    (
        "in",
        "write rate inside the cache (rate; sets random too unless rand_in is given)",
    ),
    (
        "after",
        "write rate after the cache (rate; sets random too unless rand_after is given)",
    ),
    ("rand_in", "random write rate inside the cache (rate)"),
    ("rand_after", "random write rate after the cache (rate)"),
    (
        "iops",
        "write IOPS limit, in and after the cache (number, e.g. 330000 or 330k; 'none' to drop)",
    ),
    (
        "iops_after",
        "lower write IOPS limit after the cache (number or 'none')",
    ),
    (
        "fold_after",
        "bytes written after the cache before a slower folding phase (size or 'none')",
    ),
    ("fold", "write rate in the folding phase (rate)"),
    ("lat", "fixed latency per write (duration, e.g. 25us)"),
    (
        "noise",
        "rate noise, sd of log rate per 0.1 s (fraction, e.g. 0.04)",
    ),
    (
        "dips",
        "garbage-collection dips per minute outside the cache",
    ),
    ("dip_depth", "fraction of the rate left during a dip"),
    ("dip_len", "length of a dip (duration)"),
    (
        "recover",
        "idle folding rate: how fast the cache comes back (rate)",
    ),
    (
        "recover_delay",
        "idle time before folding starts (duration)",
    ),
    ("thermal", "thermal model on or off"),
    (
        "ambient",
        "ambient temperature, °C (turns the thermal model on)",
    ),
    (
        "heat",
        "heating, °C per GB written (turns the thermal model on)",
    ),
    (
        "cool",
        "cooling time constant (duration; turns the thermal model on)",
    ),
    (
        "throttle_at",
        "throttle temperature, °C (turns the thermal model on)",
    ),
    (
        "throttle",
        "fraction of the rate left while throttled (turns the thermal model on)",
    ),
    (
        "hysteresis",
        "degrees to cool below throttle_at before full speed",
    ),
    ("seed", "seed of the noise and dips (number)"),
    (
        "read",
        "sequential (and random) read rate [assumed: 1.5x in]",
    ),
    ("rand_read", "random read rate (bandwidth)"),
    (
        "read_iops",
        "read IOPS limit (none: bandwidth only) [assumed: iops]",
    ),
    ("read_lat", "fixed latency per read [80us]"),
    (
        "mix_penalty",
        "fraction lost at a 50/50 read/write mix [0.3]",
    ),
];

const GB: u64 = 1_000_000_000;
const MBS: f64 = 1e6;

fn seed_of(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A TLC-style drive with the common defaults; presets adjust from here.
#[allow(clippy::too_many_arguments)]
fn drive(
    name: &str,
    model: &str,
    source: &str,
    capacity_gb: u64,
    static_gb: f64,
    dynamic_gb: f64,
    in_mbs: f64,
    after_mbs: f64,
) -> DriveModel {
    DriveModel {
        name: name.into(),
        model: model.into(),
        source: source.into(),
        capacity: Bytes(capacity_gb * GB),
        static_cache: Bytes((static_gb * GB as f64).round() as u64),
        dynamic_cache: Bytes((dynamic_gb * GB as f64).round() as u64),
        dynamic_until: 1.0,
        fill: 0.0,
        seq_in: Rate(in_mbs * MBS),
        seq_after: Rate(after_mbs * MBS),
        rand_in: Rate(in_mbs * MBS),
        rand_after: Rate(after_mbs * MBS),
        iops_in: None,
        iops_after: None,
        fold_after: None,
        fold: Rate(after_mbs * MBS),
        latency_s: 25e-6,
        noise: 0.04,
        dips_per_min: 2.0,
        dip_depth: 0.4,
        dip_len_s: 0.5,
        recover: Rate(after_mbs * MBS),
        recover_delay_s: 1.0,
        thermal: None,
        seed: seed_of(name),
        seq_read: Rate(0.0),
        rand_read: Rate(0.0),
        read_iops: None,
        read_latency_s: READ_LATENCY_S,
        mix_penalty: MIX_PENALTY,
        read_source: String::new(),
        link: None,
    }
}

/// Assumed read latency (a TLC page read plus command overhead), seconds.
const READ_LATENCY_S: f64 = 80e-6;
/// Assumed share of the throughput lost at a 50/50 read/write mix.
const MIX_PENALTY: f64 = 0.3;

/// Fills in the read figures of a model that has none: data/published-drives.csv has no read
/// columns, so every preset's reads are assumed, and say so. Sequential reads: 1.5x the
/// in-cache write rate (NVMe drives read faster than they write), but at least that rate and
/// at most 550 MB/s on drives writing at SATA speed (under 600 MB/s); random reads: the same
/// bandwidth with the write IOPS limit (or, without one, the bandwidth of 4 KiB blocks at a
/// third of the sequential rate).
pub fn assume_reads(m: &mut DriveModel) {
    if m.seq_read.0 > 0.0 {
        return;
    }
    let seq = if m.seq_in.0 < 600.0 * MBS {
        m.seq_in.0.max(550.0 * MBS)
    } else {
        1.5 * m.seq_in.0
    };
    m.seq_read = Rate(seq);
    if m.rand_read.0 <= 0.0 {
        m.rand_read = Rate(seq);
    }
    m.read_iops = Some(m.iops_in.unwrap_or(seq / 3.0 / 4096.0));
    m.read_source = format!(
        "reads assumed (data/published-drives.csv has no read figures): {} sequential, \
         {:.0}k IOPS, {:.0} µs read latency, {:.0}% lost at a 50/50 mix",
        format_rate(seq, UnitSystem::Decimal),
        m.read_iops.unwrap_or(0.0) / 1e3,
        m.read_latency_s * 1e6,
        m.mix_penalty * 100.0
    );
}

/// All built-in presets, in the order `slccache presets` lists them.
pub fn all() -> Vec<DriveModel> {
    let mut v = presets_without_reads();
    for m in &mut v {
        assume_reads(m);
    }
    v
}

fn presets_without_reads() -> Vec<DriveModel> {
    let mut v = Vec::new();

    // published-drives.csv line 2: Samsung 960 EVO 250GB, 13 GB TurboWrite, 1500 -> 300 MB/s
    // (vendor spec via AnandTech). 4K IOPS limit 300k assumed (Samsung spec, not in the file).
    let mut m = drive(
        "960evo-250g",
        "Samsung SSD 960 EVO 250GB",
        "published-drives.csv line 2 (Samsung 960 EVO 250GB: 13 GB, 1500 -> 300 MB/s, vendor spec via AnandTech); 4K IOPS limit 300k assumed",
        250,
        13.0,
        0.0,
        1500.0,
        300.0,
    );
    m.iops_in = Some(300e3);
    v.push(m);

    // lines 3, 5, 6: Samsung 960 EVO 500GB, 22 GB, 1800 -> 600 MB/s; 4K random 1365 MB/s
    // (~333k IOPS) in the cache, 591 MB/s after (StarWind seed test).
    let mut m = drive(
        "960evo-500g",
        "Samsung SSD 960 EVO 500GB",
        "published-drives.csv lines 3, 5, 6 (Samsung 960 EVO 500GB: 22 GB, 1800 -> 600 MB/s vendor spec; 4K random 1365 -> 591 MB/s, StarWind seed test)",
        500,
        22.0,
        0.0,
        1800.0,
        600.0,
    );
    m.iops_in = Some(1365e6 / 4096.0);
    m.rand_after = Rate(591.0 * MBS);
    v.push(m);

    // line 4: Samsung 960 EVO 1TB, 42 GB, 1900 -> 1200 MB/s. 4K IOPS limit 380k assumed.
    let mut m = drive(
        "960evo-1tb",
        "Samsung SSD 960 EVO 1TB",
        "published-drives.csv line 4 (Samsung 960 EVO 1TB: 42 GB, 1900 -> 1200 MB/s, vendor spec via AnandTech); 4K IOPS limit 380k assumed",
        1000,
        42.0,
        0.0,
        1900.0,
        1200.0,
    );
    m.iops_in = Some(380e3);
    v.push(m);

    // lines 7, 11, 12: Samsung 970 EVO 250GB, 4 + 9 GB, ~1500 -> ~300 MB/s (FPGA recorder
    // measured 13-14 GB, ~1500 in, 250-330 after; PCPer ~300).
    v.push(drive(
        "970evo-250g",
        "Samsung SSD 970 EVO 250GB",
        "published-drives.csv lines 7, 11, 12 (Samsung 970 EVO 250GB: 4 + 9 GB dynamic, ~1500 -> ~300 MB/s)",
        250,
        4.0,
        9.0,
        1500.0,
        300.0,
    ));

    // lines 8, 12, 13: Samsung 970 EVO 500GB, 4 + 18 GB, ~2500 -> ~650 MB/s (PCPer ~2500 /
    // ~700; TechPowerUp >2000 / a bit above 600). No published figure gives its idle
    // recovery: 300 MB/s after 5 s of idle is assumed, slow enough that the cache takes over a
    // minute to come back, so that the recovery experiment's default idle times see the ramp.
    let mut m = drive(
        "970evo-500g",
        "Samsung SSD 970 EVO 500GB",
        "published-drives.csv lines 8, 12, 13 (Samsung 970 EVO 500GB: 4 + 18 GB dynamic, ~2500 -> ~650 MB/s); idle recovery 300 MB/s after 5 s assumed",
        500,
        4.0,
        18.0,
        2500.0,
        650.0,
    );
    m.recover = Rate(300.0 * MBS);
    m.recover_delay_s = 5.0;
    v.push(m);

    // lines 9, 12: Samsung 970 EVO 1TB, 6 + 36 GB, ~2500 -> ~1200 MB/s.
    v.push(drive(
        "970evo-1tb",
        "Samsung SSD 970 EVO 1TB",
        "published-drives.csv lines 9, 12 (Samsung 970 EVO 1TB: 6 + 36 GB dynamic, ~2500 -> ~1200 MB/s)",
        1000,
        6.0,
        36.0,
        2500.0,
        1200.0,
    ));

    // line 18: Samsung 980 PRO 1TB, ~113 GB, 4000 -> 1500 MB/s (TechPowerUp whole-drive fill).
    let mut m = drive(
        "980pro-1tb",
        "Samsung SSD 980 PRO 1TB",
        "published-drives.csv line 18 (Samsung 980 PRO 1TB: ~113 GB, 4000 -> 1500 MB/s, TechPowerUp)",
        1000,
        0.0,
        113.0,
        4000.0,
        1500.0,
    );
    m.latency_s = 20e-6;
    v.push(m);

    // line 21: Crucial P1 1TB (QLC), ~140 GB, 1600 -> 150 MB/s (TechPowerUp); cache is a
    // static buffer plus up to 14% of capacity (TechReport). Static part 5 GB assumed.
    let mut m = drive(
        "p1-1tb",
        "Crucial P1 1TB (QLC)",
        "published-drives.csv line 21 (Crucial P1 1TB QLC: ~140 GB, 1600 -> 150 MB/s, TechPowerUp); static part 5 GB assumed",
        1000,
        5.0,
        135.0,
        1600.0,
        150.0,
    );
    m.noise = 0.06;
    m.dips_per_min = 3.0;
    v.push(m);

    // line 24: Crucial P5 1TB, ~100 GB, 2000 -> 1000 MB/s (TechPowerUp); HardwareLUXX saw
    // thermal throttling after >460 GB in a hot environment: the thermal model is on, tuned
    // so that the first throttle comes near 460 GB written at 50 °C ambient.
    let mut m = drive(
        "p5-1tb",
        "Crucial P5 1TB",
        "published-drives.csv line 24 (Crucial P5 1TB: ~100 GB, 2000 -> 1000 MB/s, TechPowerUp; throttling after >460 GB in a hot test, HardwareLUXX); thermal constants assumed",
        1000,
        0.0,
        100.0,
        2000.0,
        1000.0,
    );
    m.thermal = Some(Thermal {
        ambient_c: 50.0,
        heat_c_per_gb: 0.105,
        tau_s: 300.0,
        throttle_c: 75.0,
        throttle_factor: 0.5,
        hysteresis_c: 3.0,
    });
    v.push(m);

    // line 48: HP FX700 2TB (QLC), three phases: ~5000 MB/s to 54 GB, ~3500 MB/s to ~460 GB,
    // then ~130 MB/s (TechPowerUp).
    let mut m = drive(
        "fx700-2tb",
        "HP FX700 2TB (QLC)",
        "published-drives.csv line 48 (HP FX700 2TB QLC: 5000 MB/s to 54 GB, 3500 MB/s to 460 GB, then 130 MB/s, TechPowerUp)",
        2000,
        0.0,
        54.0,
        5000.0,
        3500.0,
    );
    m.fold_after = Some(Bytes((460 - 54) * GB));
    m.fold = Rate(130.0 * MBS);
    m.latency_s = 20e-6;
    m.recover = Rate(500.0 * MBS);
    v.push(m);

    // line 27: Intel 660p 1TB (QLC), 12 GB static, up to ~140 GB on an empty drive, ~12 GB
    // when >= 75% full; 1800 -> ~100 MB/s (Intel spec via press).
    let mut m = drive(
        "660p-1tb",
        "Intel SSD 660p 1TB (QLC)",
        "published-drives.csv line 27 (Intel 660p 1TB QLC: 12 GB static, ~140 GB empty, ~12 GB when >= 75% full, 1800 -> ~100 MB/s)",
        1000,
        12.0,
        128.0,
        1800.0,
        100.0,
    );
    m.dynamic_until = 0.75;
    m.noise = 0.06;
    m.dips_per_min = 3.0;
    v.push(m);

    // line 28: Kingston NV2 1TB, ~88 GB, ~2800 -> 600 MB/s, after ~800 GB oscillates
    // 600 <-> 80 MB/s, ~400 MB/s average (TechPowerUp): a folding phase at 400 MB/s with
    // frequent deep dips.
    let mut m = drive(
        "nv2-1tb",
        "Kingston NV2 1TB",
        "published-drives.csv line 28 (Kingston NV2 1TB: ~88 GB, ~2800 -> 600 MB/s, ~400 MB/s average after ~800 GB, TechPowerUp)",
        1000,
        0.0,
        88.0,
        2800.0,
        600.0,
    );
    m.fold_after = Some(Bytes((800 - 88) * GB));
    m.fold = Rate(400.0 * MBS);
    v.push(m);

    // line 29: Kingston A2000 1TB, ~150 GB, 2000 -> 500 MB/s, 400 MB/s after >600 GB.
    let mut m = drive(
        "a2000-1tb",
        "Kingston A2000 1TB",
        "published-drives.csv line 29 (Kingston A2000 1TB: ~150 GB, 2000 -> 500 MB/s, 400 MB/s after >600 GB, TechPowerUp)",
        1000,
        0.0,
        150.0,
        2000.0,
        500.0,
    );
    m.fold_after = Some(Bytes((600 - 150) * GB));
    m.fold = Rate(400.0 * MBS);
    v.push(m);

    // line 20: Samsung 870 EVO 4TB (SATA), ~24 GB, ~480 -> 400 MB/s: a small cliff.
    let mut m = drive(
        "870evo-4tb",
        "Samsung SSD 870 EVO 4TB (SATA)",
        "published-drives.csv line 20 (Samsung 870 EVO 4TB SATA: ~24 GB, ~480 -> 400 MB/s, TechPowerUp)",
        4000,
        0.0,
        24.0,
        480.0,
        400.0,
    );
    m.latency_s = 60e-6;
    m.noise = 0.02;
    m.dips_per_min = 1.0;
    // A SATA drive: the 6 Gb/s link caps it (558 MB/s usable; src/link.rs). At 480 MB/s
    // in the cache it is the drive's own rate; `in=560MB/s` meets the link.
    m.link = Some("sata-6g".into());
    v.push(m);

    // line 49: Samsung PM983 960GB, enterprise, no SLC cache advertised; 1050 MB/s sequential
    // write (vendor spec); 4K Q8T8 388 MB/s with a 32 GiB test (blog).
    let mut m = drive(
        "pm983-960g",
        "Samsung PM983 960GB (enterprise)",
        "published-drives.csv line 49 (Samsung PM983 960GB: no SLC cache, 1050 MB/s sequential vendor spec, 4K Q8T8 388 MB/s with 32 GiB)",
        960,
        0.0,
        0.0,
        1050.0,
        1050.0,
    );
    m.rand_in = Rate(388.0 * MBS);
    m.rand_after = Rate(388.0 * MBS);
    m.latency_s = 20e-6;
    m.noise = 0.03;
    m.dips_per_min = 1.0;
    m.dip_depth = 0.7;
    v.push(m);

    v
}

/// The preset called `name` (case-insensitive), if any.
pub fn find(name: &str) -> Option<DriveModel> {
    all()
        .into_iter()
        .find(|m| m.name.eq_ignore_ascii_case(name.trim()))
}

fn preset_names() -> String {
    all()
        .iter()
        .map(|m| m.name.clone())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Parses a model spec: `PRESET[,key=value...]` or `FILE.toml[,key=value...]`.
pub fn parse_spec(spec: &str) -> Result<DriveModel> {
    let mut parts = spec.split(',');
    let head = parts.next().unwrap_or("").trim();
    if head.is_empty() {
        return Err(usage(format!(
            "drive model '{spec}': give a preset name ({}) or a model TOML file",
            preset_names()
        )));
    }
    let path = Path::new(head);
    let mut m = if head.ends_with(".toml") || path.is_file() {
        load_toml(path)?
    } else {
        find(head).ok_or_else(|| {
            usage(format!(
                "unknown drive preset '{head}'; presets: {} (see `slccache presets`), or give a model TOML file",
                preset_names()
            ))
        })?
    };
    let mut pairs = Vec::new();
    for p in parts {
        let p = p.trim();
        if p.is_empty() {
            continue;
        }
        let (k, v) = p.split_once('=').ok_or_else(|| {
            usage(format!(
                "drive model '{spec}': '{p}' is not key=value (e.g. cache=30GB)"
            ))
        })?;
        let k = k.trim().to_string();
        if pairs.iter().any(|(seen, _): &(String, String)| *seen == k) {
            return Err(usage(format!(
                "drive model '{spec}': '{k}' is given twice; give each key once"
            )));
        }
        pairs.push((k, v.trim().to_string()));
    }
    apply_all(&mut m, &pairs).map_err(|e| usage(format!("drive model '{spec}': {e}")))?;
    // A rate inside a cache the drive does not have would change nothing: refused, not
    // ignored.
    if m.cache_empty() == 0 {
        if let Some((k, _)) = pairs.iter().find(|(k, _)| k == "in" || k == "rand_in") {
            let after = if k == "in" { "after" } else { "rand_after" };
            return Err(usage(format!(
                "drive model '{spec}': {k}= sets the rate inside the SLC cache, and this drive \
                 has none, so it would change nothing; give cache=SIZE too, or set the drive's \
                 rate with {after}="
            )));
        }
        // The folding after a cache and the cache's return in idle: nothing without a cache
        // (`pm983-960g,fold=500MB/s` ran at 1050 MB/s with "fold=500MB/s" on its card).
        if let Some((k, _)) = pairs.iter().find(|(k, _)| {
            matches!(
                k.as_str(),
                "fold" | "fold_after" | "recover" | "recover_delay"
            )
        }) {
            return Err(usage(format!(
                "drive model '{spec}': {k}= is of what follows an SLC cache, and this drive \
                 has none, so it would change nothing; give cache=SIZE too"
            )));
        }
    } else {
        // An after= faster than the cache has no cache to measure
        // (`960evo-250g,after=2000MB/s` gave "cache 13.0 GB, 1229 MB/s -> 1229 MB/s"); an in=
        // below the drive's rate after it stays allowed (a slow cache that heats a drive).
        for (after, inside, a, i) in [
            ("after", "in", m.seq_after.0, m.seq_in.0),
            ("rand_after", "rand_in", m.rand_after.0, m.rand_in.0),
        ] {
            if a > i && pairs.iter().any(|(k, _)| k == after) {
                return Err(usage(format!(
                    "drive model '{spec}': {after}= ({}) is faster than the rate in the SLC \
                     cache ({}): a drive writes no faster once its cache runs out; give \
                     {inside}= above it, or a lower {after}=",
                    crate::units::format_rate(a, crate::units::UnitSystem::Decimal),
                    crate::units::format_rate(i, crate::units::UnitSystem::Decimal)
                )));
            }
        }
    }
    m.validate()
        .map_err(|e| usage(format!("drive model '{spec}': {e}")))?;
    Ok(m)
}

fn priority(key: &str) -> u8 {
    match key {
        "preset" => 0,
        "cache" | "in" | "after" => 1,
        _ => 2,
    }
}

/// Applies `key=value` overrides in a fixed order (`cache`, `in`, `after` before the keys
/// that refine them), so `after=500MB/s,rand_after=400MB/s` means what it says.
pub fn apply_all(m: &mut DriveModel, pairs: &[(String, String)]) -> Result<(), String> {
    let mut sorted: Vec<&(String, String)> = pairs.iter().collect();
    sorted.sort_by_key(|(k, _)| priority(k));
    for (k, v) in sorted {
        // Each error names its key, as a model file's name the key of their line.
        apply(m, k, v).map_err(|e| {
            let named = e.starts_with("unknown key")
                || e.strip_prefix(k.as_str())
                    .is_some_and(|r| r.starts_with(':') || r.starts_with(' '));
            if named {
                e
            } else {
                format!("{k}: {e}")
            }
        })?;
    }
    Ok(())
}

fn fraction(v: &str) -> Result<f64, String> {
    let t = v.trim();
    let x = if let Some(p) = t.strip_suffix('%') {
        p.trim().parse::<f64>().map(|x| x / 100.0)
    } else {
        t.parse::<f64>()
    };
    x.map_err(|_| format!("'{v}' is not a fraction; give e.g. 0.8 or 80%"))
}

fn number(v: &str) -> Result<f64, String> {
    let t = v.trim();
    let (num, scale) = match t.chars().last() {
        Some('k') | Some('K') => (&t[..t.len() - 1], 1e3),
        Some('M') => (&t[..t.len() - 1], 1e6),
        _ => (t, 1.0),
    };
    num.trim()
        .parse::<f64>()
        .map(|x| x * scale)
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| format!("'{v}' is not a number; give e.g. 330000 or 330k"))
}

fn is_none(v: &str) -> bool {
    matches!(v.trim().to_ascii_lowercase().as_str(), "none" | "off" | "")
}

fn thermal(m: &mut DriveModel) -> &mut Thermal {
    m.thermal.get_or_insert_with(Thermal::default)
}

/// Sets one key (see [`KEYS`]). Errors say what is wrong and what would work.
pub fn apply(m: &mut DriveModel, key: &str, value: &str) -> Result<(), String> {
    // A bare number is bytes (or bytes/s): `cache = 30` surely meant 30 GB, not 30 B. A bare
    // number below a million makes no sense for a drive's sizes and rates: refuse it and ask
    // for a unit. (0 is the same in every unit; 1920000000 is plainly bytes.)
    let unitless = |v: &str, example: &str| -> Result<(), String> {
        match v.trim().parse::<f64>() {
            Ok(x) if x != 0.0 && x.abs() < 1e6 => Err(format!(
                "'{v}' has no unit, so it would mean {v} bytes{}, too small for a drive; \
                 write e.g. '{v}{example}'",
                if example.ends_with("/s") { "/s" } else { "" }
            )),
            _ => Ok(()),
        }
    };
    let size = |v: &str| {
        unitless(v, "GB")?;
        parse_size(v).map_err(|e| e.to_string())
    };
    let rate = |v: &str| {
        unitless(v, "MB/s")?;
        parse_rate(v).map_err(|e| e.to_string())
    };
    let secs = |v: &str| {
        parse_duration(v)
            .map(|d| d.as_secs_f64())
            .map_err(|e| e.to_string())
    };
    match key {
        "preset" => {
            *m = find(value)
                .ok_or_else(|| format!("unknown preset '{value}'; presets: {}", preset_names()))?;
        }
        "name" => m.name = value.to_string(),
        "model" => m.model = value.to_string(),
        "source" => m.source = value.to_string(),
        "capacity" => m.capacity = Bytes(size(value)?),
        "cache" => {
            let want = size(value)? as f64;
            let total = m.cache_empty() as f64;
            if total > 0.0 {
                let s = (m.static_cache.as_f64() * want / total).round() as u64;
                m.static_cache = Bytes(s);
                m.dynamic_cache = Bytes((want.round() as u64).saturating_sub(s));
            } else {
                m.static_cache = Bytes(want.round() as u64);
                m.dynamic_cache = Bytes(0);
            }
        }
        "static" => m.static_cache = Bytes(size(value)?),
        "dynamic" => m.dynamic_cache = Bytes(size(value)?),
        "dyn_until" => m.dynamic_until = fraction(value)?,
        "fill" => m.fill = fraction(value)?,
        "link" => {
            m.link = if is_none(value) {
                None
            } else {
                crate::link::Link::parse(value).map_err(|e| format!("{e}; or none for no link"))?;
                Some(value.trim().to_ascii_lowercase())
            }
        }
        "in" => {
            m.seq_in = rate(value)?;
            m.rand_in = m.seq_in;
        }
        "after" => {
            m.seq_after = rate(value)?;
            m.rand_after = m.seq_after;
        }
        "rand_in" => m.rand_in = rate(value)?,
        "rand_after" => m.rand_after = rate(value)?,
        "iops" => {
            m.iops_in = if is_none(value) {
                None
            } else {
                Some(number(value)?)
            }
        }
        "iops_after" => {
            m.iops_after = if is_none(value) {
                None
            } else {
                Some(number(value)?)
            }
        }
        "fold_after" => {
            m.fold_after = if is_none(value) {
                None
            } else {
                Some(Bytes(size(value)?))
            }
        }
        "fold" => m.fold = rate(value)?,
        "lat" => m.latency_s = secs(value)?,
        "read" => {
            m.seq_read = rate(value)?;
            m.rand_read = m.seq_read;
            m.read_source = "given".into();
        }
        "rand_read" => {
            m.rand_read = rate(value)?;
            m.read_source = "given".into();
        }
        "read_iops" => {
            m.read_iops = if is_none(value) {
                None
            } else {
                Some(number(value)?)
            };
            m.read_source = "given".into();
        }
        "read_lat" => m.read_latency_s = secs(value)?,
        "mix_penalty" => m.mix_penalty = fraction(value)?,
        "noise" => m.noise = fraction(value)?,
        "dips" => m.dips_per_min = number(value)?,
        "dip_depth" => m.dip_depth = fraction(value)?,
        "dip_len" => m.dip_len_s = secs(value)?,
        "recover" => m.recover = rate(value)?,
        "recover_delay" => m.recover_delay_s = secs(value)?,
        "thermal" => match value.trim().to_ascii_lowercase().as_str() {
            "on" | "true" | "yes" | "1" => {
                thermal(m);
            }
            "off" | "false" | "no" | "0" => m.thermal = None,
            _ => return Err(format!("thermal: '{value}' is not on or off")),
        },
        "ambient" => thermal(m).ambient_c = number(value)?,
        "heat" => thermal(m).heat_c_per_gb = number(value)?,
        "cool" => thermal(m).tau_s = secs(value)?,
        "throttle_at" => thermal(m).throttle_c = number(value)?,
        "throttle" => thermal(m).throttle_factor = fraction(value)?,
        "hysteresis" => thermal(m).hysteresis_c = number(value)?,
        "seed" => {
            m.seed = value
                .trim()
                .parse()
                .map_err(|_| format!("seed: '{value}' is not a whole number"))?
        }
        _ => {
            return Err(format!(
                "unknown key '{key}'; keys: {}",
                KEYS.iter()
                    .filter(|(k, _)| *k != "preset")
                    .map(|(k, _)| *k)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        }
    }
    Ok(())
}

/// A model with nothing set: a TOML file without `preset` must give at least `capacity`,
/// `in` and `after`.
fn blank(name: &str) -> DriveModel {
    drive(name, name, "model file", 0, 0.0, 0.0, 0.0, 0.0)
}

/// Reads a whole drive model from a TOML file. Keys are those of [`KEYS`]; `preset = "..."`
/// starts from a preset. Unknown keys and bad values are errors naming the file, the line and
/// the key.
pub fn load_toml(path: &Path) -> Result<DriveModel> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| usage(format!("drive model file {name}: {e}")))?;
    let line_of = |pos: usize| text[..pos.min(text.len())].matches('\n').count() + 1;
    let table: BTreeMap<String, toml::Spanned<toml::Value>> =
        toml::from_str(&text).map_err(|e| match e.span() {
            Some(s) => usage(format!(
                "drive model file {name}, line {}: {}",
                line_of(s.start),
                e.message()
            )),
            None => usage(format!("drive model file {name}: {}", e.message())),
        })?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "model".into());
    let mut m = blank(&stem);
    let mut entries: Vec<(&String, &toml::Spanned<toml::Value>)> = table.iter().collect();
    entries.sort_by_key(|(k, v)| (priority(k), v.span().start));
    let mut has_preset = false;
    let mut given = std::collections::BTreeSet::new();
    for (key, val) in entries {
        let line = line_of(val.span().start);
        let at = |msg: String| {
            usage(format!(
                "drive model file {name}, line {line}, key '{key}': {msg}"
            ))
        };
        if !KEYS.iter().any(|(k, _)| k == key) {
            return Err(at(format!(
                "unknown key; keys: {}",
                KEYS.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
            )));
        }
        let text_value = match val.get_ref() {
            toml::Value::String(s) => s.clone(),
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Float(f) => f.to_string(),
            toml::Value::Boolean(b) => if *b { "on" } else { "off" }.to_string(),
            other => {
                return Err(at(format!(
                    "expected a string or a number, found {}",
                    other.type_str()
                )))
            }
        };
        if key == "preset" {
            has_preset = true;
            let keep_name = m.name.clone();
            apply(&mut m, key, &text_value).map_err(at)?;
            // The file's own name stays the default name unless `name` is given.
            if !table.contains_key("name") {
                m.name = keep_name;
            }
            continue;
        }
        apply(&mut m, key, &text_value).map_err(at)?;
        given.insert(key.as_str());
    }
    if !has_preset {
        for k in ["capacity", "in", "after"] {
            if !given.contains(k) {
                return Err(usage(format!(
                    "drive model file {name}: key '{k}' is missing (or give preset = \"NAME\" to start from a preset)"
                )));
            }
        }
        if !given.contains("fold") {
            m.fold = m.seq_after;
        }
        if !given.contains("recover") {
            m.recover = m.seq_after;
        }
        m.source = table
            .get("source")
            .and_then(|v| v.get_ref().as_str().map(String::from))
            .unwrap_or_else(|| format!("model file {name}"));
    }
    assume_reads(&mut m);
    m.validate()
        .map_err(|e| usage(format!("drive model file {name}: {e}")))?;
    Ok(m)
}

/// Formats a preset's cache: `22.0 GB` or `4.00 GB + 18.0 GB dynamic`.
fn cache_text(m: &DriveModel) -> String {
    let u = UnitSystem::Decimal;
    match (m.static_cache.0, m.dynamic_cache.0) {
        (0, 0) => "none".into(),
        (s, 0) => format_bytes(s as f64, u),
        (0, d) => format_bytes(d as f64, u),
        (s, d) => format!(
            "{} + {} dyn",
            format_bytes(s as f64, u),
            format_bytes(d as f64, u)
        ),
    }
}

/// The `slccache presets` text.
pub fn presets_text() -> String {
    let u = UnitSystem::Decimal;
    let mut out = String::new();
    out.push_str("Built-in drive presets (use as emu:NAME or `slccache simulate NAME`):\n\n");
    out.push_str(&format!(
        "{:<12} {:>8} {:>22} {:>10} {:>11} {:<26} {}\n",
        "NAME", "CAPACITY", "SLC CACHE", "IN CACHE", "AFTER CACHE", "FURTHER PHASES", "DRIVE"
    ));
    for m in all() {
        let mut later = Vec::new();
        if let Some(f) = m.fold_after {
            later.push(format!(
                "{} after +{}",
                format_rate(m.fold.0, u),
                format_bytes(f.as_f64(), u)
            ));
        }
        if m.dynamic_until < 1.0 {
            later.push(format!(
                "dyn part gone at {:.0}% full",
                m.dynamic_until * 100.0
            ));
        }
        if let Some(th) = &m.thermal {
            later.push(format!("throttles at {:.0} °C", th.throttle_c));
        }
        if let Some(l) = m.link_info() {
            later.push(format!(
                "{} ≤ {}",
                l.name,
                format_rate(l.usable_bytes_per_sec, u)
            ));
        }
        out.push_str(&format!(
            "{:<12} {:>8} {:>22} {:>10} {:>11} {:<26} {}\n",
            m.name,
            format_bytes(m.capacity.as_f64(), u),
            cache_text(&m),
            format_rate(m.seq_in.0, u),
            format_rate(m.seq_after.0, u),
            later.join("; "),
            m.model
        ));
    }
    out.push_str("\nSources (data/published-drives.csv):\n");
    for m in all() {
        out.push_str(&format!("  {:<12} {}\n", m.name, m.source));
    }
    out.push_str(
        "\nOverride any field: emu:960evo-500g,cache=30GB,after=500MB/s  (or in a model TOML \
file, one key = value per line, optionally starting from preset = \"NAME\").\nKeys:\n",
    );
    for (k, doc) in KEYS {
        out.push_str(&format!("  {k:<14} {doc}\n"));
    }
    out.push_str(
        "\nUnits: sizes 30GB (decimal) or 30GiB / 30g (binary); rates 500MB/s; durations 25us, \
2s; fractions 0.8 or 80%.\n",
    );
    out.push_str(
        "\nA model file (slccache simulate my-drive.toml, or probe emu:my-drive.toml):\n  \
preset = \"970evo-500g\"   # optional; without it give at least capacity, in and after\n  \
model = \"My Drive 500GB\"\n  cache = \"30GB\"\n  after = \"500MB/s\"\n  fill = \"40%\"\n",
    );
    out
}

/// Prints the presets with their key figures and the override keys (`slccache presets`).
pub fn print_presets(json: bool) -> Result<()> {
    if json {
        crate::say!("{}", presets_json());
    } else {
        crate::say_raw!("{}", presets_text());
    }
    Ok(())
}

/// `presets --json`: each preset's model as a model file gives it (SI units), with the cache
/// size and the rates it implies for a sequential write of 128 KiB blocks.
pub fn presets_json() -> serde_json::Value {
    let presets: Vec<serde_json::Value> = all()
        .into_iter()
        .map(|m| {
            let t = m.truth(crate::workload::Pattern::Seqwrite, 128 << 10);
            serde_json::json!({
                "name": m.name,
                "seqwrite_128k": {
                    "cache_bytes": t.cache_bytes,
                    "in_cache_bytes_per_sec": t.in_cache_bytes_per_sec,
                    "after_cache_bytes_per_sec": t.after_cache_bytes_per_sec,
                },
                "model": m,
            })
        })
        .collect();
    serde_json::json!({ "presets": presets })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_valid_and_cites_a_row() {
        let all = all();
        assert!(all.len() >= 8);
        for m in &all {
            m.validate().unwrap_or_else(|e| panic!("{}: {e}", m.name));
            assert!(m.source.contains("published-drives.csv line"), "{}", m.name);
        }
        let mut names: Vec<_> = all.iter().map(|m| m.name.clone()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len());
    }

    #[test]
    fn overrides() {
        let m = parse_spec("960evo-500g,cache=30GB,after=500MB/s").unwrap();
        assert_eq!(m.cache_empty(), 30 * GB);
        assert_eq!(m.seq_after.0, 500e6);
        assert_eq!(m.rand_after.0, 500e6);
        let m = parse_spec("970evo-500g,cache=11GB").unwrap();
        assert_eq!(m.static_cache.0, 2 * GB);
        assert_eq!(m.dynamic_cache.0, 9 * GB);
        let m = parse_spec("660p-1tb,fill=80%").unwrap();
        assert!(
            (m.truth(crate::workload::Pattern::Seqwrite, 1 << 20)
                .cache_bytes as f64
                - 12e9)
                .abs()
                < 2.0
        );
        let m = parse_spec("p5-1tb,thermal=off,iops=none").unwrap();
        assert!(m.thermal.is_none() && m.iops_in.is_none());
    }

    /// A preset's name says nothing of its cache, which an override can change:
    /// `pm983-960g,cache=5GB` was labelled "Samsung PM983 960GB (enterprise, no SLC cache)
    /// (simulated), cache=5GB" on every output. The truth is told by the model's figures.
    #[test]
    fn a_preset_s_name_says_nothing_an_override_can_change() {
        for p in all() {
            let m = parse_spec(&format!("{},cache=5GB", p.name)).unwrap();
            assert_eq!(m.cache_empty(), 5 * GB, "{}", p.name);
            let words = m.model.to_lowercase();
            assert!(
                !words.contains("cache") && !words.contains("slc"),
                "{}: {}",
                p.name,
                m.model
            );
        }
    }

    #[test]
    fn override_errors() {
        for (spec, want) in [
            ("nosuch", "unknown drive preset"),
            ("960evo-500g,foo=1", "unknown key 'foo'"),
            ("960evo-500g,cache", "not key=value"),
            ("960evo-500g,cache=lots", "invalid size"),
            ("960evo-500g,fill=2", "fill"),
            (
                "960evo-500g,cache=900GB",
                "the cache (900 GB) is larger than the capacity (500 GB)",
            ),
            (
                "960evo-500g,cache=500000000001",
                "the cache (500000000001 bytes) is larger than the capacity (500000000000 bytes)",
            ),
        ] {
            let e = parse_spec(spec).unwrap_err();
            assert_eq!(crate::error::exit_code(&e), 2, "{spec}");
            assert!(format!("{e:#}").contains(want), "{spec}: {e:#}");
        }
    }

    /// `link=` takes PCIe widths of x1, x2, x4, x8 and x16 only (x3 and x5 were taken), its
    /// error names the generations and widths, and `none` takes a preset's link away, in an
    /// override and in a model file.
    #[test]
    fn link_takes_real_pcie_widths_and_none() {
        for w in [1, 2, 4, 8, 16] {
            let m = parse_spec(&format!("960evo-250g,link=pcie3x{w}")).unwrap();
            assert_eq!(m.link.as_deref(), Some(format!("pcie3x{w}").as_str()));
        }
        for bad in ["pcie3x3", "pcie3x5", "pcie3x12", "pcie6x4", "pcie3x0"] {
            let e = parse_spec(&format!("960evo-250g,link={bad}")).unwrap_err();
            assert_eq!(crate::error::exit_code(&e), 2, "{bad}");
            let e = format!("{e:#}");
            assert!(
                e.contains(bad) && e.contains("1 to 5") && e.contains("1, 2, 4, 8 or 16"),
                "{bad}: {e}"
            );
            assert_eq!(e.lines().count(), 1, "{e}");
        }
        assert_eq!(
            parse_spec("870evo-4tb").unwrap().link.as_deref(),
            Some("sata-6g")
        );
        let m = parse_spec("870evo-4tb,link=none").unwrap();
        assert_eq!(m.link, None);
        assert!(m.link_cap().is_infinite());
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bare.toml");
        std::fs::write(&p, "preset = \"870evo-4tb\"\nlink = \"none\"\n").unwrap();
        assert_eq!(load_toml(&p).unwrap().link, None);
    }

    /// A value too large for its unit (`in=1e30MB/s`) showed Rust's own words, "number too
    /// large to fit in target type"; it is a usage error in one line naming the key and the
    /// value, in an override and in a model file.
    #[test]
    fn a_value_too_large_names_the_key_and_the_value() {
        for (spec, want) in [
            (
                "870evo-4tb,in=1e30MB/s",
                ": in: invalid rate '1e30MB/s': too large",
            ),
            (
                "870evo-4tb,cache=1e30GB",
                ": cache: invalid size '1e30GB': too large",
            ),
            (
                "870evo-4tb,after=x1MB/s",
                ": after: invalid rate 'x1MB/s': not a number",
            ),
        ] {
            let e = parse_spec(spec).unwrap_err();
            assert_eq!(crate::error::exit_code(&e), 2, "{spec}");
            let e = format!("{e:#}");
            assert!(e.contains(want), "{spec}: {e}");
            assert!(
                !e.contains("target type") && !e.contains("digit found"),
                "{e}"
            );
            assert_eq!(e.lines().count(), 1, "{e}");
        }
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("huge.toml");
        std::fs::write(&p, "preset = \"870evo-4tb\"\nin = \"1e30MB/s\"\n").unwrap();
        let e = format!("{:#}", load_toml(&p).unwrap_err());
        assert!(
            e.contains("line 2, key 'in': invalid rate '1e30MB/s': too large"),
            "{e}"
        );
    }

    #[test]
    fn a_rate_in_a_cache_the_drive_does_not_have_is_refused() {
        for (spec, key, instead) in [
            ("pm983-960g,in=1100MB/s,after=1000MB/s", "in=", "after="),
            ("pm983-960g,rand_in=500MB/s", "rand_in=", "rand_after="),
            ("960evo-250g,cache=0,in=2GB/s", "in=", "after="),
        ] {
            let e = parse_spec(spec).unwrap_err();
            assert_eq!(crate::error::exit_code(&e), 2, "{spec}");
            let e = format!("{e:#}");
            assert!(
                e.contains(key)
                    && e.contains("has none")
                    && e.contains("cache=SIZE")
                    && e.contains(&format!("with {instead}")),
                "{spec}: {e}"
            );
            assert_eq!(e.lines().count(), 1, "{e}");
        }
        // Nor what follows a cache: folding and the cache's return in idle.
        for key in [
            "fold=500MB/s",
            "fold_after=10GB",
            "recover=1GB/s",
            "recover_delay=2s",
        ] {
            let spec = format!("pm983-960g,{key}");
            let e = format!("{:#}", parse_spec(&spec).unwrap_err());
            assert!(
                e.contains("has none") && e.contains("cache=SIZE"),
                "{spec}: {e}"
            );
        }
        // A drive faster after its cache than in it.
        let e = format!(
            "{:#}",
            parse_spec("960evo-250g,after=2000MB/s").unwrap_err()
        );
        assert!(
            e.contains("is faster than the rate in the SLC cache"),
            "{e}"
        );
        parse_spec("960evo-250g,in=3000MB/s,after=2000MB/s").unwrap();
        parse_spec("960evo-500g,cache=100GB,in=200MB/s").unwrap();
        // With a cache it applies, on a preset that had none too.
        let m = parse_spec("pm983-960g,cache=10GB,in=1100MB/s,after=1000MB/s").unwrap();
        assert_eq!((m.cache_empty(), m.seq_in.0), (10_000_000_000, 1100e6));
        parse_spec("pm983-960g,after=1000MB/s").unwrap();
    }
}
