//! A tiny FUSE filesystem, served from a thread of the test, holding one file (`f`) whose
//! writes succeed up to a chosen byte offset and fail with EIO from there on: a real EIO from
//! the kernel, for the write-error tests. Speaks the FUSE protocol directly on `/dev/fuse`
//! (mounted with mount(2), so root only); unmounted on drop.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

const FUSE_LOOKUP: u32 = 1;
const FUSE_FORGET: u32 = 2;
const FUSE_GETATTR: u32 = 3;
const FUSE_OPEN: u32 = 14;
const FUSE_WRITE: u32 = 16;
const FUSE_RELEASE: u32 = 18;
const FUSE_FSYNC: u32 = 20;
const FUSE_FLUSH: u32 = 25;
const FUSE_INIT: u32 = 26;
const FUSE_DESTROY: u32 = 38;
const FUSE_BATCH_FORGET: u32 = 42;

const ROOT: u64 = 1;
const FILE: u64 = 2;
const MAX_WRITE: u32 = 128 << 10;

/// The mounted filesystem; the file is `self.file()`.
pub struct FailingFuse {
    pub mnt: tempfile::TempDir,
    server: Option<JoinHandle<()>>,
}

impl FailingFuse {
    /// Mounts a filesystem whose file `f` is `size` bytes and fails writes at or past
    /// `fail_at` with EIO. None when FUSE is not available here.
    pub fn mount(size: u64, fail_at: u64) -> Option<FailingFuse> {
        let dev = OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/fuse")
            .ok()?;
        let mnt = super::scratch("fault-fuse-");
        let opts = format!(
            "fd={},rootmode=40000,user_id=0,group_id=0,allow_other",
            dev.as_raw_fd()
        );
        let c = |s: &str| std::ffi::CString::new(s).unwrap();
        let (src, target, fstype, data) = (
            c("slccache-test"),
            c(mnt.path().to_str().unwrap()),
            c("fuse"),
            c(&opts),
        );
        // SAFETY: all four pointers are NUL-terminated strings that live until the call
        // returns; mount(2) does not keep them.
        let r = unsafe {
            libc::mount(
                src.as_ptr(),
                target.as_ptr(),
                fstype.as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV,
                data.as_ptr().cast(),
            )
        };
        if r != 0 {
            eprintln!("FUSE mount failed: {}", std::io::Error::last_os_error());
            return None;
        }
        let server = std::thread::spawn(move || serve(dev, size, fail_at));
        Some(FailingFuse {
            mnt,
            server: Some(server),
        })
    }

    pub fn file(&self) -> PathBuf {
        self.mnt.path().join("f")
    }
}

impl Drop for FailingFuse {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(self.mnt.path())
            .status();
        if let Some(h) = self.server.take() {
            let _ = h.join();
        }
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// `struct fuse_attr` (88 bytes).
fn attr(ino: u64, size: u64) -> Vec<u8> {
    let mut a = Vec::with_capacity(88);
    let (mode, nlink) = if ino == ROOT {
        (libc::S_IFDIR | 0o755, 2u32)
    } else {
        (libc::S_IFREG | 0o644, 1u32)
    };
    for v in [ino, size, size.div_ceil(512), 0, 0, 0] {
        a.extend_from_slice(&v.to_le_bytes());
    }
    for v in [0u32, 0, 0, mode, nlink, 0, 0, 0, 4096, 0] {
        a.extend_from_slice(&v.to_le_bytes());
    }
    a
}

fn reply(dev: &mut File, unique: u64, error: i32, body: &[u8]) {
    let mut out = Vec::with_capacity(16 + body.len());
    out.extend_from_slice(&((16 + body.len()) as u32).to_le_bytes());
    out.extend_from_slice(&error.to_le_bytes());
    out.extend_from_slice(&unique.to_le_bytes());
    out.extend_from_slice(body);
    // ENOENT: the request was interrupted meanwhile; nothing to do.
    let _ = dev.write_all(&out);
}

fn serve(mut dev: File, size: u64, fail_at: u64) {
    let mut buf = vec![0u8; MAX_WRITE as usize + 64 * 1024];
    loop {
        let n = match dev.read(&mut buf) {
            Ok(n) => n,
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => continue,
            Err(_) => return, // ENODEV: unmounted
        };
        let req = &buf[..n];
        if req.len() < 40 {
            continue;
        }
        let opcode = u32_at(req, 4);
        let unique = u64_at(req, 8);
        let node = u64_at(req, 16);
        let arg = &req[40..];
        match opcode {
            FUSE_INIT => {
                let mut o = Vec::new();
                for v in [7u32, 31, 0, 0] {
                    o.extend_from_slice(&v.to_le_bytes());
                }
                o.extend_from_slice(&16u16.to_le_bytes()); // max_background
                o.extend_from_slice(&12u16.to_le_bytes()); // congestion_threshold
                o.extend_from_slice(&MAX_WRITE.to_le_bytes());
                o.extend_from_slice(&1u32.to_le_bytes()); // time_gran
                o.resize(64, 0); // max_pages, map_alignment, flags2, ...: none

                reply(&mut dev, unique, 0, &o);
            }
            FUSE_LOOKUP => {
                let name = arg.split(|&b| b == 0).next().unwrap_or(&[]);
                if node == ROOT && name == b"f" {
                    let mut o = Vec::new();
                    for v in [FILE, 0, 1, 1] {
                        o.extend_from_slice(&v.to_le_bytes());
                    }
                    o.extend_from_slice(&[0u8; 8]);
                    o.extend_from_slice(&attr(FILE, size));
                    reply(&mut dev, unique, 0, &o);
                } else {
                    reply(&mut dev, unique, -libc::ENOENT, &[]);
                }
            }
            FUSE_GETATTR => {
                let mut o = Vec::new();
                o.extend_from_slice(&1u64.to_le_bytes());
                o.extend_from_slice(&[0u8; 8]);
                o.extend_from_slice(&attr(node, if node == ROOT { 0 } else { size }));
                reply(&mut dev, unique, 0, &o);
            }
            FUSE_OPEN => {
                let mut o = Vec::new();
                o.extend_from_slice(&1u64.to_le_bytes());
                o.extend_from_slice(&[0u8; 8]);
                reply(&mut dev, unique, 0, &o);
            }
            FUSE_WRITE => {
                let offset = u64_at(arg, 8);
                let len = u32_at(arg, 16);
                if offset + len as u64 > fail_at {
                    reply(&mut dev, unique, -libc::EIO, &[]);
                } else {
                    let mut o = Vec::new();
                    o.extend_from_slice(&len.to_le_bytes());
                    o.extend_from_slice(&[0u8; 4]);
                    reply(&mut dev, unique, 0, &o);
                }
            }
            FUSE_RELEASE | FUSE_FLUSH | FUSE_FSYNC | FUSE_DESTROY => {
                reply(&mut dev, unique, 0, &[]);
            }
            FUSE_FORGET | FUSE_BATCH_FORGET => {} // no reply
            _ => reply(&mut dev, unique, -libc::ENOSYS, &[]),
        }
    }
}

/// Whether `path` is on a FUSE mount (for messages).
pub fn is_fuse(path: &Path) -> bool {
    std::fs::read_to_string("/proc/self/mounts")
        .unwrap_or_default()
        .lines()
        .any(|l| l.contains(" fuse") && l.contains(path.to_str().unwrap_or("?")))
}
