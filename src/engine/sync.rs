//! The `sync` backend, for kernels or containers without io_uring: one worker thread per
//! in-flight write, each doing a blocking `pwrite` (or `pread` for reads) on the `O_DIRECT`
//! file. Queue depth N means
//! N threads, so the drive still sees N writes at once.

use std::collections::VecDeque;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::buffers::AlignedBuffers;
use super::{Backend, Completion, WriteOp};

#[derive(Default)]
struct Queues {
    /// Queued I/Os, with true for a read.
    work: VecDeque<(WriteOp, bool)>,
    done: Vec<Completion>,
    shutdown: bool,
}

struct Shared {
    q: Mutex<Queues>,
    work_cv: Condvar,
    done_cv: Condvar,
}

/// Base address of the buffers, sent to the worker threads.
#[derive(Clone, Copy)]
struct BufBase {
    ptr: *mut u8,
    size: usize,
    count: usize,
}

// SAFETY: the pointer is only dereferenced for buffer `op.buf` while that write is in flight;
// the Backend contract guarantees the owner does not touch that buffer until its completion
// is returned, and the allocation outlives the workers (they are joined in Drop before the
// buffers are freed).
unsafe impl Send for BufBase {}

/// Threads + `pwrite`.
pub struct SyncBackend {
    shared: Arc<Shared>,
    pending: Vec<(WriteOp, bool)>,
    workers: Vec<JoinHandle<()>>,
    // Dropped after the workers are joined (Drop joins them first).
    bufs: AlignedBuffers,
}

impl SyncBackend {
    /// `queue_depth` worker threads and buffers of `block_size` bytes aligned to `mem_align`.
    pub fn new(
        file: Arc<File>,
        queue_depth: u32,
        block_size: usize,
        mem_align: usize,
        seed: u64,
    ) -> io::Result<SyncBackend> {
        let bufs = AlignedBuffers::new(queue_depth as usize, block_size, mem_align, seed)?;
        let shared = Arc::new(Shared {
            q: Mutex::new(Queues::default()),
            work_cv: Condvar::new(),
            done_cv: Condvar::new(),
        });
        let base = BufBase {
            ptr: bufs.ptr(0),
            size: bufs.size(),
            count: bufs.count(),
        };
        let mut workers = Vec::new();
        for i in 0..queue_depth {
            let shared = shared.clone();
            let file = file.clone();
            let h = std::thread::Builder::new()
                .name(format!("slccache-pwrite-{i}"))
                .spawn(move || worker(&shared, &file, base))?;
            workers.push(h);
        }
        Ok(SyncBackend {
            shared,
            pending: Vec::new(),
            workers,
            bufs,
        })
    }
}

fn worker(shared: &Shared, file: &File, base: BufBase) {
    loop {
        let (op, read) = {
            let mut q = shared.q.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if q.shutdown {
                    return;
                }
                if let Some(op) = q.work.pop_front() {
                    break op;
                }
                q = shared.work_cv.wait(q).unwrap_or_else(|e| e.into_inner());
            }
        };
        let result = if op.buf < base.count && op.len as usize <= base.size {
            let done = if read {
                // SAFETY: op.buf < count and len <= size, so the slice lies in the allocation;
                // the buffer is not touched by anyone else while this read is in flight (see
                // BufBase), so a mutable slice of it aliases nothing.
                let data = unsafe {
                    std::slice::from_raw_parts_mut(
                        base.ptr.add(op.buf * base.size),
                        op.len as usize,
                    )
                };
                file.read_at(data, op.offset)
            } else {
                // SAFETY: op.buf < count and len <= size, so the slice lies in the allocation;
                // the buffer is not touched by anyone else while this write is in flight (see
                // BufBase).
                let data = unsafe {
                    std::slice::from_raw_parts(base.ptr.add(op.buf * base.size), op.len as usize)
                };
                file.write_at(data, op.offset)
            };
            match done {
                Ok(n) => n as i32,
                Err(e) => -e.raw_os_error().unwrap_or(libc::EIO),
            }
        } else {
            -libc::EINVAL
        };
        let mut q = shared.q.lock().unwrap_or_else(|e| e.into_inner());
        q.done.push(Completion {
            user_data: op.user_data,
            result,
            latency: None,
        });
        shared.done_cv.notify_one();
    }
}

impl Backend for SyncBackend {
    fn name(&self) -> &'static str {
        "sync"
    }

    fn buffer_mut(&mut self, idx: usize) -> &mut [u8] {
        self.bufs.get_mut(idx)
    }

    fn push(&mut self, op: WriteOp) -> io::Result<()> {
        if op.buf >= self.bufs.count() || op.len as usize > self.bufs.size() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "bad buffer index or length",
            ));
        }
        self.pending.push((op, false));
        Ok(())
    }

    fn push_read(&mut self, op: WriteOp) -> io::Result<()> {
        self.push(op)?;
        if let Some(last) = self.pending.last_mut() {
            last.1 = true;
        }
        Ok(())
    }

    fn submit_and_wait(
        &mut self,
        min_complete: usize,
        timeout: Duration,
        out: &mut Vec<Completion>,
    ) -> io::Result<()> {
        // None: no limit (NO_TIMEOUT, or a timeout past what the clock can hold).
        let deadline = Instant::now().checked_add(timeout);
        let mut q = self.shared.q.lock().unwrap_or_else(|e| e.into_inner());
        if !self.pending.is_empty() {
            let n = self.pending.len();
            q.work.extend(self.pending.drain(..));
            if n == 1 {
                self.shared.work_cv.notify_one();
            } else {
                self.shared.work_cv.notify_all();
            }
        }
        while q.done.len() < min_complete {
            q = match deadline {
                None => self
                    .shared
                    .done_cv
                    .wait(q)
                    .unwrap_or_else(|e| e.into_inner()),
                Some(deadline) => {
                    let now = Instant::now();
                    if now >= deadline {
                        break;
                    }
                    self.shared
                        .done_cv
                        .wait_timeout(q, deadline - now)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
            };
        }
        out.append(&mut q.done);
        Ok(())
    }
}

impl Drop for SyncBackend {
    fn drop(&mut self) {
        {
            let mut q = self.shared.q.lock().unwrap_or_else(|e| e.into_inner());
            q.shutdown = true;
            q.work.clear();
        }
        self.shared.work_cv.notify_all();
        for h in self.workers.drain(..) {
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_land_where_asked_and_all_complete() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, vec![0u8; 1 << 16]).unwrap();
        let f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
        let mut b = SyncBackend::new(Arc::new(f), 4, 4096, 4096, 1).unwrap();
        for i in 0..4usize {
            b.buffer_mut(i).fill(i as u8 + 1);
            b.push(WriteOp {
                offset: (3 - i as u64) * 4096,
                len: 4096,
                buf: i,
                user_data: i as u64,
            })
            .unwrap();
        }
        let mut out = Vec::new();
        while out.len() < 4 {
            b.submit_and_wait(4 - out.len(), Duration::from_secs(5), &mut out)
                .unwrap();
        }
        out.sort_by_key(|c| c.user_data);
        assert!(out.iter().all(|c| c.result == 4096), "{out:?}");
        drop(b);
        let data = std::fs::read(&p).unwrap();
        for i in 0..4usize {
            let at = (3 - i) * 4096;
            assert!(data[at..at + 4096].iter().all(|&x| x == i as u8 + 1));
        }
        // Reads fill the buffers from the file.
        let f = std::fs::OpenOptions::new().read(true).open(&p).unwrap();
        let mut b = SyncBackend::new(Arc::new(f), 2, 4096, 4096, 1).unwrap();
        b.push_read(WriteOp {
            offset: 4096,
            len: 4096,
            buf: 1,
            user_data: 7,
        })
        .unwrap();
        // With no timeout (the job loop's wait): returns once the read is done.
        let mut out = Vec::new();
        b.submit_and_wait(1, crate::engine::NO_TIMEOUT, &mut out)
            .unwrap();
        assert_eq!(out[0].result, 4096);
        assert!(
            b.buffer_mut(1).iter().all(|&x| x == 3),
            "read what i=2 wrote"
        );
        drop(b);
        // A bad buffer index is refused, not written.
        let f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
        let mut b = SyncBackend::new(Arc::new(f), 1, 4096, 4096, 1).unwrap();
        assert!(b
            .push(WriteOp {
                offset: 0,
                len: 4096,
                buf: 1,
                user_data: 0
            })
            .is_err());
    }
}
