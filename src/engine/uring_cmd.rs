//! The NVMe pass-through backend (`--engine io-uring-cmd`): NVMe Write and Read commands sent
//! straight to the namespace's character device (`/dev/ng0n1`) through io_uring's
//! `IORING_OP_URING_CMD`, as fio's `io_uring_cmd` engine sends them. The block layer is not
//! involved: no bio, no request queue, no scheduler, no merges.
//!
//! Kernel interface facts (from the uapi headers `linux/nvme_ioctl.h` and `linux/io_uring.h`):
//! the command is `struct nvme_uring_cmd`, 72 bytes (opcode u8, flags u8, rsvd1 u16, nsid u32,
//! cdw2 u32, cdw3 u32, metadata u64, addr u64, metadata_len u32, data_len u32, cdw10..cdw15
//! u32 each, timeout_ms u32, rsvd2 u32), carried in the big (128-byte) submission entry's
//! command area; `cmd_op` is `NVME_URING_CMD_IO` = `_IOWR('N', 0x80, struct nvme_uring_cmd)`.
//! The completion's result is 0 on success, the NVMe status (> 0) when the drive failed the
//! command, or a negated errno; big (32-byte) completion entries are required. Registered
//! buffers (`IORING_URING_CMD_FIXED`) need Linux 6.1; the command itself Linux 5.19.
//!
//! From the NVM Command Set Specification 1.0: Write is opcode 01h, Read 02h; Command Dwords
//! 10 and 11 hold the starting LBA, Dword 12 bits 15:0 the number of logical blocks, 0-based.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::time::Duration;

use io_uring::{cqueue, opcode, squeue, types, IoUring};

use super::buffers::AlignedBuffers;
use super::uring::{build_ring, enter};
use super::{Backend, Completion, WriteOp};

/// `_IOWR('N', 0x80, struct nvme_uring_cmd)`: direction read|write (3) << 30, size 72 << 16,
/// type 'N' << 8, number 0x80.
pub const NVME_URING_CMD_IO: u32 = (3 << 30) | (72 << 16) | ((b'N' as u32) << 8) | 0x80;

/// NVM command set opcodes.
const OPC_WRITE: u8 = 0x01;
const OPC_READ: u8 = 0x02;

/// Most logical blocks one command moves: Dword 12's 16-bit 0-based count.
pub const MAX_BLOCKS_PER_COMMAND: u64 = 1 << 16;

/// `struct nvme_uring_cmd` from `linux/nvme_ioctl.h`, field for field.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
struct NvmeUringCmd {
    opcode: u8,
    flags: u8,
    rsvd1: u16,
    nsid: u32,
    cdw2: u32,
    cdw3: u32,
    metadata: u64,
    addr: u64,
    metadata_len: u32,
    data_len: u32,
    cdw10: u32,
    cdw11: u32,
    cdw12: u32,
    cdw13: u32,
    cdw14: u32,
    cdw15: u32,
    timeout_ms: u32,
    rsvd2: u32,
}

const _: () = assert!(std::mem::size_of::<NvmeUringCmd>() == 72);

/// The namespace to send commands to.
#[derive(Debug, Clone)]
pub struct Namespace {
    /// The namespace's character device (`/dev/ng0n1`), opened read-write.
    pub file: Arc<File>,
    /// Its path, for reports.
    pub path: std::path::PathBuf,
    /// Its namespace identifier.
    pub nsid: u32,
    /// log2 of its logical block size.
    pub lba_shift: u32,
}

/// The 80-byte command area of a big submission entry for one NVMe read or write of `len`
/// bytes at byte `offset` of namespace `nsid`, from the buffer at `addr`.
fn command_bytes(
    write: bool,
    nsid: u32,
    lba_shift: u32,
    offset: u64,
    len: u32,
    addr: u64,
) -> io::Result<[u8; 80]> {
    let block = 1u64 << lba_shift;
    if !offset.is_multiple_of(block) || len == 0 || !(len as u64).is_multiple_of(block) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("an NVMe command moves whole {block}-byte blocks: {len} bytes at {offset}"),
        ));
    }
    let blocks = len as u64 >> lba_shift;
    if blocks > MAX_BLOCKS_PER_COMMAND {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{blocks} blocks is more than one NVMe command moves"),
        ));
    }
    let slba = offset >> lba_shift;
    let cmd = NvmeUringCmd {
        opcode: if write { OPC_WRITE } else { OPC_READ },
        nsid,
        addr,
        data_len: len,
        cdw10: slba as u32,
        cdw11: (slba >> 32) as u32,
        cdw12: (blocks - 1) as u32,
        ..Default::default()
    };
    let mut out = [0u8; 80];
    // SAFETY: NvmeUringCmd is repr(C), 72 bytes (checked at compile time), made only of
    // integers with no padding between them; reading it as bytes reads initialised memory.
    let bytes = unsafe {
        std::slice::from_raw_parts(
            (&cmd as *const NvmeUringCmd).cast::<u8>(),
            std::mem::size_of::<NvmeUringCmd>(),
        )
    };
    out[..bytes.len()].copy_from_slice(bytes);
    Ok(out)
}

/// What a pass-through completion's result says, as a [`Completion::result`]: the bytes of
/// the command on success, a negated errno otherwise (an NVMe status becomes `EIO`).
fn completion_result(res: i32, len: u32) -> i32 {
    match res {
        0 => len as i32,
        r if r > 0 => -libc::EIO,
        r => r,
    }
}

/// A ring of big entries sending NVMe commands to one namespace.
pub struct UringCmdBackend {
    // Field order matters: the ring is dropped (and its registrations released) before the
    // buffers it points into are freed.
    ring: IoUring<squeue::Entry128, cqueue::Entry32>,
    bufs: AlignedBuffers,
    ns: Namespace,
    fixed_bufs: bool,
    fixed_file: bool,
    needs_enable: bool,
    polled: bool,
    /// Per buffer, the tag and length of the command in flight on it (the entry's own
    /// user_data is the buffer index: the result of a good command is 0, not its length).
    inflight: Vec<(u64, u32)>,
}

impl UringCmdBackend {
    /// A ring of `queue_depth` big entries with `queue_depth` buffers of `block_size` bytes,
    /// aligned to `mem_align` and filled from `seed`, for namespace `ns`; completions polled
    /// where `poll`. Nothing is sent: [`UringCmdBackend::check_read`] tries one command.
    pub fn new(
        ns: Namespace,
        queue_depth: u32,
        block_size: usize,
        mem_align: usize,
        seed: u64,
        poll: bool,
        allow_fixed: bool,
    ) -> io::Result<UringCmdBackend> {
        let (ring, deferred) = build_ring::<squeue::Entry128, cqueue::Entry32>(queue_depth, poll)?;
        let bufs = AlignedBuffers::new(queue_depth as usize, block_size, mem_align, seed)?;
        let iovecs: Vec<libc::iovec> = (0..bufs.count())
            .map(|i| libc::iovec {
                iov_base: bufs.ptr(i).cast(),
                iov_len: bufs.size(),
            })
            .collect();
        // SAFETY: every iovec points into `bufs`, which lives in the same struct as the ring
        // and is dropped after it (field order), so the registered memory outlives the
        // registration.
        let fixed_bufs =
            allow_fixed && unsafe { ring.submitter().register_buffers(&iovecs) }.is_ok();
        let fixed_file = ring
            .submitter()
            .register_files(&[ns.file.as_raw_fd()])
            .is_ok();
        let count = bufs.count();
        Ok(UringCmdBackend {
            ring,
            bufs,
            ns,
            fixed_bufs,
            fixed_file,
            needs_enable: deferred,
            polled: poll,
            inflight: vec![(0, 0); count],
        })
    }

    /// Sends one read of the namespace's first logical block and waits for it: tells whether
    /// the kernel, the driver and the permissions let commands through, before anything is
    /// written. A kernel that takes the command but not registered buffers with it (before
    /// Linux 6.1) is retried without them. Must be called on the thread that will use the
    /// ring (the ring's single issuer).
    pub fn check_read(&mut self) -> io::Result<()> {
        let len = 1u32 << self.ns.lba_shift;
        let op = WriteOp {
            offset: 0,
            len,
            buf: 0,
            user_data: u64::MAX,
        };
        let first = self.one(op);
        match first {
            Err(e) if self.fixed_bufs && e.raw_os_error() == Some(libc::EINVAL) => {
                self.fixed_bufs = false;
                self.one(op)
            }
            r => r,
        }
    }

    fn one(&mut self, op: WriteOp) -> io::Result<()> {
        self.push_op(op, false)?;
        let mut out = Vec::with_capacity(1);
        while out.is_empty() {
            self.submit_and_wait(1, Duration::from_secs(30), &mut out)?;
        }
        match out[0].result {
            r if r < 0 => Err(io::Error::from_raw_os_error(-r)),
            _ => Ok(()),
        }
    }

    fn push_op(&mut self, op: WriteOp, write: bool) -> io::Result<()> {
        if op.len as usize > self.bufs.size() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "I/O longer than its buffer",
            ));
        }
        self.enable()?;
        let ptr = self.bufs.ptr(op.buf); // panics on a bad index rather than sending garbage
        let cmd = command_bytes(
            write,
            self.ns.nsid,
            self.ns.lba_shift,
            op.offset,
            op.len,
            ptr as u64,
        )?;
        let buf_index = self.fixed_bufs.then_some(op.buf as u16);
        let entry = if self.fixed_file {
            opcode::UringCmd80::new(types::Fixed(0), NVME_URING_CMD_IO)
        } else {
            opcode::UringCmd80::new(types::Fd(self.ns.file.as_raw_fd()), NVME_URING_CMD_IO)
        }
        .cmd(cmd)
        .buf_index(buf_index)
        .build()
        .user_data(op.buf as u64);
        self.inflight[op.buf] = (op.user_data, op.len);
        // SAFETY: the command's data address is buffer `op.buf` of `self.bufs`, which stays
        // allocated for the life of the ring; the Backend contract says the caller does not
        // touch that buffer until the command completes. The device stays open (the Arc).
        let pushed = unsafe { self.ring.submission().push(&entry) };
        if pushed.is_err() {
            self.ring.submit()?;
            // SAFETY: as above.
            unsafe { self.ring.submission().push(&entry) }
                .map_err(|_| io::Error::other("io_uring submission queue full"))?;
        }
        Ok(())
    }

    /// Tries namespace `ns` with one read of its first block on a ring of its own, from the
    /// calling thread: Ok(whether registered buffers work with commands), or the error of the
    /// ring's setup or of the read, which [`check_error_hint`] explains.
    pub fn try_namespace(ns: &Namespace, mem_align: usize, poll: bool) -> io::Result<bool> {
        let mut b =
            UringCmdBackend::new(ns.clone(), 1, 1 << ns.lba_shift, mem_align, 0, poll, true)?;
        b.check_read()?;
        Ok(b.fixed_bufs)
    }

    /// Enables a ring made disabled, from the thread that uses it (its single issuer).
    fn enable(&mut self) -> io::Result<()> {
        if self.needs_enable {
            self.ring.submitter().register_enable_rings()?;
            self.needs_enable = false;
        }
        Ok(())
    }

    /// True when the buffers are registered (commands carry `IORING_URING_CMD_FIXED`).
    pub fn uses_fixed_buffers(&self) -> bool {
        self.fixed_bufs
    }

    /// True when the character device is registered.
    pub fn uses_fixed_file(&self) -> bool {
        self.fixed_file
    }
}

/// Tries the namespace at `path` with `try_read` ([`UringCmdBackend::try_namespace`] on a ring
/// that polls its completions where `poll`): Ok(whether registered buffers work with
/// commands), or why it takes no commands, with what to do, in one line. `flag` is what the
/// user typed for the engine, `poll_flag` what they typed for polling.
pub fn check_namespace(
    try_read: impl Fn(bool) -> io::Result<bool>,
    poll: bool,
    flag: &str,
    poll_flag: &str,
    path: &std::path::Path,
) -> Result<bool, String> {
    match try_read(poll) {
        Ok(fixed) => Ok(fixed),
        // Linux 5.19 and 6.0 take commands through io_uring but refuse every one on a ring
        // that polls, with the EOPNOTSUPP of a device that takes none: the same read on a
        // ring that does not poll tells the two apart.
        Err(e) if poll && e.raw_os_error() == Some(libc::EOPNOTSUPP) && try_read(false).is_ok() => {
            Err(format!(
                "{poll_flag}: this kernel takes NVMe commands through io_uring on {} but does \
                 not poll their completions ({e}; Linux 6.1 or later needed); without \
                 {poll_flag}, --engine io-uring-cmd works here",
                path.display()
            ))
        }
        Err(e) => Err(check_error_hint(&e, flag, path)),
    }
}

/// Why the namespace at `path` takes no commands through the ring, with what to do; `flag` is
/// what the user typed. For the error of [`UringCmdBackend::try_namespace`].
pub fn check_error_hint(e: &io::Error, flag: &str, path: &std::path::Path) -> String {
    let path = path.display();
    match e.raw_os_error() {
        Some(libc::EOPNOTSUPP) | Some(libc::ENOTTY) => format!(
            "{flag}: the kernel does not take NVMe commands through io_uring on {path} ({e}; \
             Linux 5.19 or later needed); leave {flag} out"
        ),
        Some(libc::EINVAL) => format!(
            "{flag}: this kernel's io_uring has no big entries for NVMe commands ({e}; Linux \
             5.19 or later needed); leave {flag} out"
        ),
        Some(libc::EACCES) | Some(libc::EPERM) => format!(
            "{flag}: NVMe commands on {path} are not allowed ({e}): they need root, or a \
             seccomp profile or kernel.io_uring_disabled blocks io_uring"
        ),
        Some(libc::EIO) => format!(
            "{flag}: the drive failed a one-block read through {path} (an NVMe error status); \
             nothing was written"
        ),
        _ => format!("{flag}: a one-block read through {path} failed ({e}); nothing was written"),
    }
}

impl Drop for UringCmdBackend {
    fn drop(&mut self) {
        // As the block engine: release the registrations now, not in a kernel worker later.
        if self.fixed_file {
            let _ = self.ring.submitter().unregister_files();
        }
        let _ = self.ring.submitter().unregister_buffers();
    }
}

impl Backend for UringCmdBackend {
    fn name(&self) -> &'static str {
        if self.polled {
            "io_uring_cmd_poll"
        } else {
            "io_uring_cmd"
        }
    }

    fn buffer_mut(&mut self, idx: usize) -> &mut [u8] {
        self.bufs.get_mut(idx)
    }

    fn push(&mut self, op: WriteOp) -> io::Result<()> {
        self.push_op(op, true)
    }

    fn push_read(&mut self, op: WriteOp) -> io::Result<()> {
        self.push_op(op, false)
    }

    fn submit_and_wait(
        &mut self,
        min_complete: usize,
        timeout: Duration,
        out: &mut Vec<Completion>,
    ) -> io::Result<()> {
        self.enable()?;
        enter(&mut self.ring, min_complete, timeout)?;
        for cqe in self.ring.completion() {
            let buf = cqe.user_data() as usize;
            let (user_data, len) = self.inflight.get(buf).copied().unwrap_or((u64::MAX, 0));
            out.push(Completion {
                user_data,
                result: completion_result(cqe.result(), len),
                latency: None,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field_u32(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }

    #[test]
    fn the_command_op_is_the_kernels() {
        // linux/nvme_ioctl.h: NVME_URING_CMD_IO _IOWR('N', 0x80, struct nvme_uring_cmd),
        // as nvme-cli and fio print it.
        assert_eq!(NVME_URING_CMD_IO, 0xC048_4E80);
    }

    #[test]
    fn a_write_command_has_the_lba_and_count_where_the_spec_puts_them() {
        // 128 KiB at byte 5 GiB + 1 MiB on a 4096-byte namespace 3.
        let off = (5u64 << 30) + (1 << 20);
        let b = command_bytes(true, 3, 12, off, 128 << 10, 0x1234_5000).unwrap();
        assert_eq!(b[0], 0x01, "Write");
        assert_eq!(field_u32(&b, 4), 3, "nsid");
        assert_eq!(
            u64::from_le_bytes(b[24..32].try_into().unwrap()),
            0x1234_5000,
            "addr"
        );
        assert_eq!(field_u32(&b, 36), 128 << 10, "data_len");
        let slba = off >> 12;
        assert_eq!(field_u32(&b, 40), slba as u32, "cdw10");
        assert_eq!(field_u32(&b, 44), (slba >> 32) as u32, "cdw11");
        assert_eq!(field_u32(&b, 48), 31, "cdw12: 32 blocks, 0-based");
        // An LBA past 2^32 blocks (512-byte blocks, 3 TiB) puts its high part in cdw11.
        let b = command_bytes(false, 1, 9, 3 << 40, 512, 0).unwrap();
        assert_eq!(b[0], 0x02, "Read");
        assert_eq!(field_u32(&b, 44), ((3u64 << 40) >> 9 >> 32) as u32);
        assert_eq!(field_u32(&b, 48), 0);
    }

    #[test]
    fn partial_blocks_and_oversized_commands_are_refused() {
        assert!(command_bytes(true, 1, 12, 512, 4096, 0).is_err());
        assert!(command_bytes(true, 1, 12, 0, 1000, 0).is_err());
        assert!(command_bytes(true, 1, 9, 0, (512 << 16) + 512, 0).is_err());
        assert!(command_bytes(true, 1, 9, 0, 512 << 16, 0).is_ok());
    }

    /// Linux 5.19 and 6.0 take NVMe commands through io_uring but refuse every one on a ring
    /// that polls (EOPNOTSUPP, as on a device that takes no commands): the refusal must say
    /// that polling is what needs Linux 6.1, not send the user to Linux 5.19 for commands
    /// that work.
    #[test]
    fn a_kernel_that_does_not_poll_commands_is_told_apart() {
        let path = std::path::Path::new("/dev/ng0n1");
        let eopnotsupp = || io::Error::from_raw_os_error(libc::EOPNOTSUPP);
        let flag = "--engine io-uring-cmd";
        let check = |read: &dyn Fn(bool) -> io::Result<bool>, poll_flag: &str| {
            check_namespace(read, true, flag, poll_flag, path)
        };
        // Commands go through a plain ring, not a polled one.
        let old_kernel = |poll: bool| if poll { Err(eopnotsupp()) } else { Ok(true) };
        for poll_flag in ["--hipri", "--engine io-uring-cmd-poll"] {
            let e = check(&old_kernel, poll_flag).unwrap_err();
            assert!(
                e.starts_with(poll_flag) && e.contains("Linux 6.1") && !e.contains("5.19"),
                "{e}"
            );
            assert!(
                e.contains("--engine io-uring-cmd ") && e.contains(path.to_str().unwrap()),
                "{e}"
            );
            assert_eq!(e.lines().count(), 1, "{e}");
        }
        // No commands at all, polled or not: the kernel's own reason, as without polling.
        let e = check(&|_| Err(eopnotsupp()), "--hipri").unwrap_err();
        assert_eq!(e, check_error_hint(&eopnotsupp(), flag, path));
        // Another failure of the polled read is told as it is, without a second read.
        let tried = std::cell::Cell::new(0);
        let eio = |_| {
            tried.set(tried.get() + 1);
            Err(io::Error::from_raw_os_error(libc::EIO))
        };
        let e = check(&eio, "--hipri").unwrap_err();
        assert!(e.contains("NVMe error status"), "{e}");
        assert_eq!(tried.get(), 1);
        assert_eq!(check(&|_| Ok(false), "--hipri"), Ok(false));
        assert_eq!(
            check_namespace(
                |poll| if poll { Err(eopnotsupp()) } else { Ok(true) },
                false,
                flag,
                "--hipri",
                path
            ),
            Ok(true),
            "not polled"
        );
    }

    #[test]
    fn completions_read_as_bytes_or_errno() {
        assert_eq!(completion_result(0, 4096), 4096);
        assert_eq!(
            completion_result(0x4002, 4096),
            -libc::EIO,
            "an NVMe status"
        );
        assert_eq!(
            completion_result(-libc::EOPNOTSUPP, 4096),
            -libc::EOPNOTSUPP
        );
    }

    /// A file that is not an NVMe namespace takes no uring_cmd: the check read fails with
    /// the kernel's EOPNOTSUPP (or EINVAL/ENOSYS on kernels without big entries), and nothing
    /// panics. (Not /dev/null: since Linux 6.1 it takes every uring_cmd and does nothing, for
    /// io_uring's own tests.) Runs wherever io_uring does.
    #[test]
    fn a_device_without_nvme_commands_fails_the_check_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("plain");
        std::fs::write(&path, vec![0u8; 8192]).unwrap();
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        let ns = Namespace {
            file: Arc::new(file),
            path: path.clone(),
            nsid: 1,
            lba_shift: 9,
        };
        let mut b = match UringCmdBackend::new(ns, 2, 4096, 4096, 1, false, true) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("SKIP: no io_uring with big entries here: {e}");
                return;
            }
        };
        let e = b.check_read().unwrap_err();
        assert!(
            matches!(
                e.raw_os_error(),
                Some(libc::EOPNOTSUPP) | Some(libc::EINVAL) | Some(libc::ENOTTY)
            ),
            "{e}"
        );
    }
}
