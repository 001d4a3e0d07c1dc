//! Reads need written data. An SSD answers a read of a block that was never written (or was
//! trimmed) from its mapping table without touching the flash, so such a read measures
//! nothing. Before a run that reads:
//!
//! - a **file** must have data over the whole span: holes (found with `SEEK_HOLE`) are
//!   refused, with the command that fills the file;
//! - an **emulated drive** reads as a filled drive would (the model keeps no map of written
//!   blocks), and the run says so;
//! - a **block device** cannot tell: the run warns unless the user states that the span holds
//!   data (`--assume-written`) or fills it first (`--prefill`, where available).

use std::fs::File;
use std::path::Path;

use anyhow::Result;
use rustix::fs::{seek, SeekFrom};

use super::{refuse_read, TargetInfo, TargetKind};

/// The first hole in `path` below `span` bytes, if any (`None` when the file has data all the
/// way, or the filesystem does not report holes: then it answers the file end).
pub fn first_hole(path: &Path, span: u64) -> std::io::Result<Option<u64>> {
    let f = File::open(path)?;
    let len = f.metadata()?.len();
    if len < span {
        // Past the end there is nothing at all.
        let hole = match seek(&f, SeekFrom::Hole(0)) {
            Ok(h) => h.min(len),
            Err(_) => len,
        };
        return Ok(Some(hole));
    }
    match seek(&f, SeekFrom::Hole(0)) {
        Ok(h) if h < span => Ok(Some(h)),
        Ok(_) => Ok(None),
        // ENXIO: no hole at or after 0 (cannot happen with a nonempty file, but harmless).
        Err(e) if e == rustix::io::Errno::NXIO => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The command that writes `bytes` of data over the whole of file `spec` (a seqwrite probe
/// stops at one pass over the span), or creates it at that size.
fn fill_command(spec: &str, bytes: u64, create: bool) -> String {
    let q = crate::shell::quote(spec);
    let bs = crate::shell::size_arg(fill_block(bytes));
    if create {
        format!(
            "`slccache probe {q} --pattern seqwrite --bs {bs} --size {}`",
            crate::shell::size_arg(bytes)
        )
    } else {
        format!(
            "`slccache probe {q} --pattern seqwrite --bs {bs} --overwrite` (or `dd \
             if=/dev/urandom of={q} bs=1M count={} oflag=direct`)",
            bytes.div_ceil(1 << 20)
        )
    }
}

/// The block size of the write that fills `span` bytes: 1 MiB, or the largest power of two
/// below it that `span` is a whole number of. A seqwrite probe writes whole blocks, and at 1
/// MiB it left the last part of a 95.4 MiB span unwritten, so the read it was advised for was
/// refused again, for a hole at byte 99614720.
fn fill_block(span: u64) -> u64 {
    let mut bs = 1u64 << 20;
    while bs > 512 && !span.is_multiple_of(bs) {
        bs /= 2;
    }
    bs
}

/// Before a run that reads a file: a file that does not exist has nothing to read, whatever
/// `--size` says (it would be created as one hole). Checked before the target is inspected, so
/// the advice is to create *and fill* it, not to give `--size`. `size` is `--size`, if given.
pub fn check_file_exists(spec: &str, size: Option<u64>) -> Result<()> {
    if spec.starts_with("emu:") || Path::new(spec).exists() {
        return Ok(());
    }
    Err(refuse_read(
        spec,
        format!(
            "the file does not exist, so there is nothing to read (a read of blocks never \
             written measures nothing); create and fill it first: {}, then run the read again",
            fill_command(spec, size.unwrap_or(1 << 30), true)
        ),
    ))
}

/// What to tell the user before a run with reads of `span` bytes of the target, or a refusal
/// (files with holes, files this run would create). `exists` says whether the file is there
/// already.
pub fn check_readable(
    info: &TargetInfo,
    span: u64,
    assume_written: bool,
    prefilled: bool,
) -> Result<Option<String>> {
    match info.kind {
        TargetKind::Emulated => Ok(Some(
            "reads: the emulated drive reads as a filled drive would (the model keeps no map \
             of written blocks; its read figures are in summary.json under model.read_source)"
                .into(),
        )),
        TargetKind::File => {
            let fill = format!("fill it first: {}", fill_command(&info.spec, span, false));
            let path = match &info.path {
                Some(p) if info.exists => p,
                _ => return check_file_exists(&info.spec, Some(span)).map(|_| None),
            };
            match first_hole(path, span)? {
                Some(h) => Err(refuse_read(
                    &info.spec,
                    format!(
                        "reads need written data, but the file has a hole (never-written \
                         blocks) at byte {h} of the {} to read; a read there measures nothing; \
                         {fill}",
                        crate::units::format_bytes(span as f64, crate::units::UnitSystem::Binary)
                    ),
                )),
                None => Ok(None),
            }
        }
        TargetKind::Block if prefilled || assume_written => Ok(None),
        TargetKind::Block => Ok(Some(format!(
            "warning: reads of {} measure nothing where its blocks were never written or were \
             trimmed (the drive answers from its mapping table). Fill the span first (a \
             seqwrite probe, or --prefill where available) or, if it holds data, say so with \
             --assume-written",
            info.spec
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Seek, Write};

    #[test]
    fn holes_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        // Data, then a hole: write 64 KiB, then extend to 8 MiB.
        let mut f = File::create(&p).unwrap();
        f.write_all(&vec![1u8; 65536]).unwrap();
        f.set_len(8 << 20).unwrap();
        drop(f);
        match first_hole(&p, 8 << 20).unwrap() {
            Some(h) => assert!((65536..8 << 20).contains(&h), "{h}"),
            None => crate::note!("this filesystem reports no holes; skipped"),
        }
        assert_eq!(
            first_hole(&p, 65536).unwrap(),
            None,
            "the data part has no hole"
        );
        // Past the end of a short file is a hole too.
        assert_eq!(
            first_hole(&p, 16 << 20).unwrap().map(|h| h <= 8 << 20),
            Some(true)
        );
        // A file written all the way has none.
        let q = dir.path().join("g");
        let mut g = File::create(&q).unwrap();
        g.write_all(&vec![2u8; 1 << 20]).unwrap();
        g.rewind().unwrap();
        assert_eq!(first_hole(&q, 1 << 20).unwrap(), None);
    }
}
