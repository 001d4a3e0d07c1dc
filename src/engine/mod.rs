//! The write engine: backends that issue writes (io_uring, threads + `pwrite`, an emulated
//! drive) behind one [`Backend`] trait, and the job loop that keeps them at queue depth.

use std::io;
use std::time::Duration;

/// One I/O to issue: a write ([`Backend::push`]) or, with the same fields, a read
/// ([`Backend::push_read`], which fills the buffer instead of writing it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteOp {
    /// Byte offset in the target, aligned to the target's direct-I/O alignment.
    pub offset: u64,
    /// Length in bytes.
    pub len: u32,
    /// Index of the backend buffer that holds the data (`0..queue_depth`).
    pub buf: usize,
    /// Opaque tag returned in the [`Completion`].
    pub user_data: u64,
}

/// A finished write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    /// The tag given in [`WriteOp::user_data`].
    pub user_data: u64,
    /// Bytes written (>= 0) or a negated errno (< 0), as io_uring reports it.
    pub result: i32,
    /// The I/O's latency as the device itself timed it, where the backend knows it better than
    /// a clock read at submission and at reaping: an emulated drive, whose model clock may run
    /// up to half a millisecond behind the wall clock, so that an I/O the model finished
    /// before it was reaped would read as taking a microsecond. `None`: timed by the job loop.
    pub latency: Option<Duration>,
}

/// One job's connection to the target. Each job thread owns one backend (its own ring).
///
/// The caller never has more than the backend's queue depth in flight, and only reuses a
/// buffer after the write that used it has completed.
pub trait Backend: Send {
    /// Short name for reports: "io_uring", "sync", "emulated".
    fn name(&self) -> &'static str;
    /// The data buffer `idx`, to fill before pushing a write that uses it.
    fn buffer_mut(&mut self, idx: usize) -> &mut [u8];
    /// Queues a write; it is issued at the latest by the next [`Backend::submit_and_wait`].
    fn push(&mut self, op: WriteOp) -> io::Result<()>;
    /// Queues a read of `op.len` bytes at `op.offset` into buffer `op.buf`; completes like a
    /// write. Backends that cannot read say so.
    fn push_read(&mut self, op: WriteOp) -> io::Result<()> {
        let _ = op;
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!("the {} engine cannot read", self.name()),
        ))
    }
    /// Issues queued writes and waits until at least `min_complete` writes have completed or
    /// `timeout` has passed ([`NO_TIMEOUT`]: no limit); appends what completed to `out`.
    fn submit_and_wait(
        &mut self,
        min_complete: usize,
        timeout: Duration,
        out: &mut Vec<Completion>,
    ) -> io::Result<()>;
}

/// A [`Backend::submit_and_wait`] timeout meaning "wait until `min_complete` writes are
/// done, however long": on io_uring a wait with no timer (a timed wait arms and cancels a
/// kernel hrtimer on every call, which costs CPU per write where timers are dear, as on VMs).
pub const NO_TIMEOUT: Duration = Duration::MAX;

pub mod buffers;
pub mod emulated;
pub mod job;
pub mod offsets;
pub mod sync;
pub mod uring;
pub mod uring_cmd;
