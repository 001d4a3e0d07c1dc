//! Block sizes that no emulated drive takes are refused in virtual time, as probe refuses
//! them.

use crate::common::slccache;

/// probe refused `--bs 1000` on a file ("direct I/O there needs multiples of 512 bytes")
/// while simulate ran it; every command that runs a drive model in virtual time refuses it
/// as probe does, before it creates anything.
#[test]
fn a_block_size_off_512_is_refused_in_virtual_time_as_probe_refuses_it() {
    let d = tempfile::tempdir().unwrap();
    let want = "--bs 1000 does not fit 960evo-250g: direct I/O there needs multiples of 512 \
                bytes; try --bs 1024";
    for args in [
        &["simulate", "960evo-250g", "--bs", "1000"][..],
        &["simulate", "emu:960evo-250g", "--bs", "1000"][..],
        &["sweep", "960evo-250g", "--simulate", "--bs", "1000"][..],
        &[
            "recovery",
            "960evo-250g",
            "--simulate",
            "--idle",
            "10s",
            "--bs",
            "1000",
        ][..],
        &["fill-sweep", "960evo-250g", "--simulate", "--bs", "1000"][..],
    ] {
        let o = slccache()
            .arg("--no-record")
            .args(args)
            .arg("--out")
            .arg(d.path().join("run"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim(), format!("slccache: error: {want}"), "{args:?}");
        assert!(!d.path().join("run").exists(), "{args:?}");
    }
}
