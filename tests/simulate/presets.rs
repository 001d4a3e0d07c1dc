//! `slccache presets`, preset overrides and drive model TOML files, through the real binary.

use predicates::str::contains;

use crate::common::slccache;

#[test]
fn presets_lists_every_preset_with_figures_sources_and_keys() {
    let out = slccache().arg("presets").assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    for m in slccache::model::presets::all() {
        assert!(text.contains(&m.name), "{} missing:\n{text}", m.name);
        assert!(text.contains(&m.source), "{} source missing", m.name);
    }
    for name in [
        "960evo-250g",
        "960evo-500g",
        "960evo-1tb",
        "970evo-250g",
        "p1-1tb",
        "fx700-2tb",
        "660p-1tb",
        "pm983-960g",
    ] {
        assert!(text.contains(name), "{name}");
    }
    for (key, _) in slccache::model::presets::KEYS {
        assert!(
            text.contains(&format!("  {key} ")),
            "key {key} not documented"
        );
    }
    assert!(text.contains("22.0 GB") && text.contains("1800 MB/s") && text.contains("600 MB/s"));
}

#[test]
fn overrides_set_what_they_say() {
    use slccache::model::presets::parse_spec;
    use slccache::workload::Pattern;
    let m = parse_spec("960evo-500g,cache=30GB,after=500MB/s,lat=40us,noise=2%").unwrap();
    let t = m.truth(Pattern::Seqwrite, 1 << 20);
    assert_eq!(t.cache_bytes, 30_000_000_000);
    assert_eq!(t.after_cache_bytes_per_sec, 500e6);
    assert!((m.latency_s - 40e-6).abs() < 1e-12);
    assert!((m.noise - 0.02).abs() < 1e-12);
    let m = parse_spec("fx700-2tb,fold_after=100GB,fold=200MB/s").unwrap();
    let t = m.truth(Pattern::Seqwrite, 1 << 20);
    assert_eq!(t.folding_starts_at_bytes, Some(154_000_000_000));
    assert_eq!(t.folding_bytes_per_sec, Some(200e6));
    let m = parse_spec("960evo-500g,ambient=30,throttle_at=70").unwrap();
    let th = m.thermal.unwrap();
    assert_eq!((th.ambient_c, th.throttle_c), (30.0, 70.0));
}

#[test]
fn bad_override_is_a_usage_error() {
    slccache()
        .args(["simulate", "960evo-500g,cahce=1GB"])
        .assert()
        .code(2)
        .stderr(contains("unknown key 'cahce'"))
        .stderr(contains("cache"));
    slccache()
        .args(["simulate", "960evo-9tb"])
        .assert()
        .code(2)
        .stderr(contains("unknown drive preset '960evo-9tb'"))
        .stderr(contains("960evo-500g"));
    slccache()
        .args(["simulate", "960evo-500g,after=fast"])
        .assert()
        .code(2)
        .stderr(contains("invalid rate 'fast'"));
}

#[test]
fn model_toml_file_full_and_from_preset() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("mydrive.toml");
    std::fs::write(
        &p,
        "# a made-up drive\nmodel = \"Test Drive 1TB\"\ncapacity = \"1TB\"\nstatic = \"5GB\"\n\
         dynamic = \"15GB\"\nin = \"2000MB/s\"\nafter = \"400MB/s\"\niops = 250000\nnoise = 0.03\n\
         thermal = true\nthrottle_at = 80\n",
    )
    .unwrap();
    let m = slccache::model::presets::load_toml(&p).unwrap();
    assert_eq!(m.name, "mydrive");
    assert_eq!(m.model, "Test Drive 1TB");
    assert_eq!(m.cache_empty(), 20_000_000_000);
    assert_eq!(m.rand_after.0, 400e6);
    assert_eq!(m.iops_in, Some(250000.0));
    assert_eq!(m.thermal.as_ref().unwrap().throttle_c, 80.0);
    // A spec naming the file, with overrides on top.
    let spec = format!("{},cache=8GB", p.display());
    let m = slccache::model::presets::parse_spec(&spec).unwrap();
    assert_eq!(m.cache_empty(), 8_000_000_000);

    let q = dir.path().join("p1.toml");
    std::fs::write(&q, "preset = \"p1-1tb\"\nfill = \"50%\"\n").unwrap();
    let m = slccache::model::presets::load_toml(&q).unwrap();
    assert_eq!(m.seq_after.0, 150e6);
    assert_eq!(m.fill, 0.5);
    assert!(m.source.contains("line 21"));
}

#[test]
fn the_model_file_example_in_presets_works() {
    let text = slccache::model::presets::presets_text();
    let example: String = text
        .lines()
        .skip_while(|l| !l.starts_with("A model file"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| format!("{}\n", l.trim()))
        .collect();
    assert!(example.contains("cache = \"30GB\""), "{example}");
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("my-drive.toml");
    std::fs::write(&p, example).unwrap();
    let m = slccache::model::presets::load_toml(&p).unwrap();
    assert_eq!(m.model, "My Drive 500GB");
    assert_eq!(m.cache_empty(), 30_000_000_000);
    assert_eq!(m.fill, 0.4);
}

#[test]
fn model_toml_errors_name_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "unknown.toml",
            "preset = \"960evo-500g\"\n\ncahce = \"1GB\"\n",
            vec!["unknown.toml", "line 3", "cahce", "unknown key"],
        ),
        (
            "wrongtype.toml",
            "preset = \"960evo-500g\"\ncache = [1, 2]\n",
            vec!["wrongtype.toml", "line 2", "cache", "array"],
        ),
        (
            "badvalue.toml",
            "preset = \"960evo-500g\"\nafter = \"quick\"\n",
            vec!["badvalue.toml", "line 2", "after", "invalid rate"],
        ),
        (
            "missing.toml",
            "capacity = \"1TB\"\nin = \"1GB/s\"\n",
            vec!["missing.toml", "'after' is missing"],
        ),
        (
            "syntax.toml",
            "capacity = \"1TB\"\nin = \n",
            vec!["syntax.toml", "line 2"],
        ),
    ];
    for (file, text, wants) in cases {
        let p = dir.path().join(file);
        std::fs::write(&p, text).unwrap();
        let out = slccache()
            .args(["simulate", p.to_str().unwrap()])
            .current_dir(dir.path())
            .assert()
            .code(2);
        let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        for w in wants {
            assert!(err.contains(w), "{file}: want '{w}' in: {err}");
        }
    }
    slccache()
        .args(["simulate", "/nonexistent/drive.toml"])
        .assert()
        .code(2)
        .stderr(contains("/nonexistent/drive.toml"));
}
