//! The io_uring backend: one ring per job, the target registered as a fixed file and the data
//! buffers registered once (`IORING_OP_WRITE_FIXED`), so a write costs no page pinning or fd
//! lookup. The file is opened with `O_DIRECT`, so the page cache is not involved.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::time::Duration;

use io_uring::{cqueue, opcode, squeue, types, EnterFlags, IoUring};

use super::buffers::AlignedBuffers;
use super::{Backend, Completion, WriteOp};

/// Why a ring could not be set up, with the advice to give the user.
pub fn setup_error_hint(e: &io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::ENOSYS) => format!(
            "io_uring is not available: the kernel does not know io_uring_setup ({e}; kernel older \
             than 5.1 or built without io_uring). Run with --engine sync instead"
        ),
        Some(libc::EPERM) | Some(libc::EACCES) => format!(
            "io_uring is not allowed here ({e}): a container's seccomp profile or the sysctl \
             kernel.io_uring_disabled blocks it. Run with --engine sync instead"
        ),
        Some(libc::ENOMEM) => format!(
            "io_uring setup ran out of locked memory ({e}); raise `ulimit -l`, lower --qd or \
             --bs, or run with --engine sync"
        ),
        _ => format!("io_uring setup failed ({e}); try --engine sync"),
    }
}

/// A ring of at least `queue_depth` entries, set up as fio sets its own, with polled
/// completions where `poll`. Returns the ring and whether it was made disabled with deferred
/// task work (then the thread that uses it must enable it first: see
/// `register_enable_rings`). Generic over the entry sizes, so the NVMe pass-through engine
/// (big entries) sets its ring up the same way.
pub(crate) fn build_ring<S: squeue::EntryMarker, C: cqueue::EntryMarker>(
    queue_depth: u32,
    poll: bool,
) -> io::Result<(IoUring<S, C>, bool)> {
    let entries = queue_depth.max(1).next_power_of_two();
    let builder = || {
        let mut b = IoUring::<S, C>::builder();
        if poll {
            b.setup_iopoll();
        }
        b
    };
    // Like fio: no task-work interrupts (COOP_TASKRUN), one submitting thread, and
    // completion work deferred to the moment we enter the kernel (DEFER_TASKRUN); the
    // TASKRUN flag tells a non-blocking submit that completions are waiting to be posted. The
    // ring is made here but used by the job thread, so it starts disabled and the job thread
    // enables it (becoming its single issuer) on first use. Older kernels reject these flags:
    // fall back to a plain ring.
    match builder()
        .setup_coop_taskrun()
        .setup_taskrun_flag()
        .setup_single_issuer()
        .setup_defer_taskrun()
        .setup_r_disabled()
        .build(entries)
    {
        Ok(r) => Ok((r, true)),
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => Ok((builder().build(entries)?, false)),
        Err(e) => Err(e),
    }
}

/// Submits what is queued on `ring` and waits until `min_complete` completions are there or
/// `timeout` has passed ([`super::NO_TIMEOUT`]: no limit); the caller reaps them.
pub(crate) fn enter<S: squeue::EntryMarker, C: cqueue::EntryMarker>(
    ring: &mut IoUring<S, C>,
    min_complete: usize,
    timeout: Duration,
) -> io::Result<()> {
    let have = ring.completion().len();
    if min_complete == 0 || have >= min_complete {
        // Submit without waiting, but with GETEVENTS: on a DEFER_TASKRUN ring, completions
        // are only posted to the completion queue when the task enters the kernel asking
        // for events, so a bare submit could leave finished writes unseen until the next
        // wait. This is the call fio makes for every submission.
        let to_submit = ring.submission().len() as u32;
        // SAFETY: no argument pointer is passed (None), so the kernel reads no memory of
        // ours beyond the rings, which the IoUring owns; the submitted entries point into
        // buffers their backend keeps alive until they complete (see the backends' `push`).
        unsafe {
            ring.submitter().enter::<libc::sigset_t>(
                to_submit,
                0,
                EnterFlags::GETEVENTS.bits(),
                None,
            )
        }
        .or_else(|e| match e.raw_os_error() {
            // Interrupted or out of resources for now: what was not taken stays queued
            // for the next call, and completions are reaped by the caller either way.
            Some(libc::EINTR) | Some(libc::EAGAIN) | Some(libc::EBUSY) => Ok(0),
            _ => Err(e),
        })?;
    } else if timeout == Duration::MAX {
        // No timeout: a plain GETEVENTS wait, as fio makes it. A timed wait arms a kernel
        // timer on every call, and on a VM arming and cancelling it reprograms the
        // virtual timer device: measurable CPU per write at QD1 (docs/PERFORMANCE.md).
        match ring.submitter().submit_and_wait(min_complete) {
            Ok(_) => {}
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
            Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {}
            Err(e) => return Err(e),
        }
    } else {
        let ts = types::Timespec::from(timeout);
        let args = types::SubmitArgs::new().timespec(&ts);
        match ring.submitter().submit_with_args(min_complete, &args) {
            Ok(_) => {}
            Err(e) if matches!(e.raw_os_error(), Some(libc::ETIME) | Some(libc::EINTR)) => {}
            Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
                // Completion queue overflow pending: reap, then the caller retries.
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// A ring writing to one file or block device.
pub struct UringBackend {
    // Field order matters: the ring is dropped (and its registrations released) before the
    // buffers it points into are freed.
    ring: IoUring,
    bufs: AlignedBuffers,
    file: Arc<File>,
    fixed_bufs: bool,
    fixed_file: bool,
    /// The ring was made disabled and is enabled by the thread that first uses it.
    needs_enable: bool,
    /// Completions are polled (`IORING_SETUP_IOPOLL`).
    polled: bool,
}

impl UringBackend {
    /// A ring of `queue_depth` entries with `queue_depth` buffers of `block_size` bytes,
    /// aligned to `mem_align`, filled with random data from `seed`. Errors from
    /// `io_uring_setup` are returned as they are (see [`setup_error_hint`]).
    pub fn new(
        file: Arc<File>,
        queue_depth: u32,
        block_size: usize,
        mem_align: usize,
        seed: u64,
    ) -> io::Result<UringBackend> {
        UringBackend::with_polling(file, queue_depth, block_size, mem_align, seed, false)
    }

    /// The same, with `poll`: completions polled (`IORING_SETUP_IOPOLL`) rather than
    /// signalled by interrupt; the device needs poll queues, or every write fails with
    /// `EOPNOTSUPP`.
    pub fn with_polling(
        file: Arc<File>,
        queue_depth: u32,
        block_size: usize,
        mem_align: usize,
        seed: u64,
        poll: bool,
    ) -> io::Result<UringBackend> {
        let (ring, deferred) = build_ring(queue_depth, poll)?;
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
        let fixed_bufs = unsafe { ring.submitter().register_buffers(&iovecs) }.is_ok();
        let fixed_file = ring.submitter().register_files(&[file.as_raw_fd()]).is_ok();
        Ok(UringBackend {
            ring,
            bufs,
            file,
            fixed_bufs,
            fixed_file,
            needs_enable: deferred,
            polled: poll,
        })
    }

    /// Queues a write (or, with `read`, a read into the buffer) on the submission queue.
    fn push_op(&mut self, op: WriteOp, read: bool) -> io::Result<()> {
        if op.len as usize > self.bufs.size() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "I/O longer than its buffer",
            ));
        }
        self.enable()?;
        let ptr = self.bufs.ptr(op.buf); // panics on a bad index rather than writing garbage
        let fd = self.file.as_raw_fd();
        let entry = if read {
            match (self.fixed_file, self.fixed_bufs) {
                (true, true) => opcode::ReadFixed::new(types::Fixed(0), ptr, op.len, op.buf as u16)
                    .offset(op.offset)
                    .build(),
                (false, true) => opcode::ReadFixed::new(types::Fd(fd), ptr, op.len, op.buf as u16)
                    .offset(op.offset)
                    .build(),
                (true, false) => opcode::Read::new(types::Fixed(0), ptr, op.len)
                    .offset(op.offset)
                    .build(),
                (false, false) => opcode::Read::new(types::Fd(fd), ptr, op.len)
                    .offset(op.offset)
                    .build(),
            }
        } else {
            match (self.fixed_file, self.fixed_bufs) {
                (true, true) => {
                    opcode::WriteFixed::new(types::Fixed(0), ptr, op.len, op.buf as u16)
                        .offset(op.offset)
                        .build()
                }
                (false, true) => opcode::WriteFixed::new(
                    types::Fd(self.file.as_raw_fd()),
                    ptr,
                    op.len,
                    op.buf as u16,
                )
                .offset(op.offset)
                .build(),
                (true, false) => opcode::Write::new(types::Fixed(0), ptr, op.len)
                    .offset(op.offset)
                    .build(),
                (false, false) => opcode::Write::new(types::Fd(self.file.as_raw_fd()), ptr, op.len)
                    .offset(op.offset)
                    .build(),
            }
        }
        .user_data(op.user_data);
        // SAFETY: the entry points at buffer `op.buf` of `self.bufs`, which stays allocated
        // for the life of the ring; the Backend contract says the caller does not touch that
        // buffer until the write (or read) completes. The file stays open (we hold an Arc).
        let pushed = unsafe { self.ring.submission().push(&entry) };
        if pushed.is_err() {
            // The queue is full: submit what is there and try once more.
            self.ring.submit()?;
            // SAFETY: as above.
            unsafe { self.ring.submission().push(&entry) }
                .map_err(|_| io::Error::other("io_uring submission queue full"))?;
        }
        Ok(())
    }

    fn enable(&mut self) -> io::Result<()> {
        if self.needs_enable {
            self.ring.submitter().register_enable_rings()?;
            self.needs_enable = false;
        }
        Ok(())
    }

    /// True when the buffers are registered (writes use `WRITE_FIXED`).
    pub fn uses_fixed_buffers(&self) -> bool {
        self.fixed_bufs
    }

    /// True when the file is registered.
    pub fn uses_fixed_file(&self) -> bool {
        self.fixed_file
    }
}

impl Drop for UringBackend {
    fn drop(&mut self) {
        // Closing a ring releases its registered file in a kernel worker, some time after
        // the process may have exited; a filesystem or device would then still look busy
        // (umount: target is busy). Unregistering is synchronous, so do it now. Errors are
        // ignored: the ring is going away either way.
        if self.fixed_file {
            let _ = self.ring.submitter().unregister_files();
        }
        if self.fixed_bufs {
            let _ = self.ring.submitter().unregister_buffers();
        }
    }
}

impl Backend for UringBackend {
    fn name(&self) -> &'static str {
        if self.polled {
            "io_uring_poll"
        } else {
            "io_uring"
        }
    }

    fn buffer_mut(&mut self, idx: usize) -> &mut [u8] {
        self.bufs.get_mut(idx)
    }

    fn push(&mut self, op: WriteOp) -> io::Result<()> {
        self.push_op(op, false)
    }

    fn push_read(&mut self, op: WriteOp) -> io::Result<()> {
        self.push_op(op, true)
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
            out.push(Completion {
                user_data: cqe.user_data(),
                result: cqe.result(),
                latency: None,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_errors_name_the_cause_and_the_way_out() {
        let e = setup_error_hint(&io::Error::from_raw_os_error(libc::ENOSYS));
        assert!(
            e.contains("not available") && e.contains("--engine sync"),
            "{e}"
        );
        let e = setup_error_hint(&io::Error::from_raw_os_error(libc::EPERM));
        assert!(e.contains("seccomp") && e.contains("--engine sync"), "{e}");
    }
}
