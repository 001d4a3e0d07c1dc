//! The domain enums of a workload: what to write and with which engine. The command line
//! (`cli`) maps its flags onto these; nothing below `config` sees clap types.

use serde::{Deserialize, Serialize};

/// Access pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pattern {
    /// Random writes, every block once per pass.
    Randwrite,
    /// Sequential writes, wrapping at the end of the span.
    Seqwrite,
    /// Random reads (the span must hold written data).
    Randread,
    /// Sequential reads, wrapping at the end of the span.
    Seqread,
    /// Random reads and writes mixed by `--rwmix-read` (default 50% reads).
    Randrw,
    /// Sequential reads and writes mixed by `--rwmix-read` (default 50% reads).
    Rw,
}

impl Pattern {
    /// Every pattern, in the order the help lists them.
    pub const ALL: [Pattern; 6] = [
        Pattern::Randwrite,
        Pattern::Seqwrite,
        Pattern::Randread,
        Pattern::Seqread,
        Pattern::Randrw,
        Pattern::Rw,
    ];

    /// The name used on the command line, in scenario files and in `summary.json`.
    pub fn name(self) -> &'static str {
        match self {
            Pattern::Randwrite => "randwrite",
            Pattern::Seqwrite => "seqwrite",
            Pattern::Randread => "randread",
            Pattern::Seqread => "seqread",
            Pattern::Randrw => "randrw",
            Pattern::Rw => "rw",
        }
    }

    /// One line of help for the command line.
    pub fn help(self) -> &'static str {
        match self {
            Pattern::Randwrite => "Random writes, every block once per pass",
            Pattern::Seqwrite => "Sequential writes, wrapping at the end of the span",
            Pattern::Randread => "Random reads of written data (see README: reads)",
            Pattern::Seqread => "Sequential reads of written data, wrapping at the end",
            Pattern::Randrw => "Random reads and writes, --rwmix-read percent reads [50]",
            Pattern::Rw => "Sequential reads and writes, --rwmix-read percent reads [50]",
        }
    }

    /// True for the random patterns (offsets from a per-pass permutation).
    pub fn is_random(self) -> bool {
        matches!(
            self,
            Pattern::Randwrite | Pattern::Randread | Pattern::Randrw
        )
    }

    /// True for the mixed patterns, whose read share `--rwmix-read` sets.
    pub fn is_mixed(self) -> bool {
        matches!(self, Pattern::Randrw | Pattern::Rw)
    }

    /// The percentage of reads the pattern implies: 0 for writes, 100 for reads, `mix` (or
    /// 50, fio's default) for the mixed patterns.
    pub fn read_pct(self, mix: Option<u32>) -> u32 {
        match self {
            Pattern::Randwrite | Pattern::Seqwrite => 0,
            Pattern::Randread | Pattern::Seqread => 100,
            Pattern::Randrw | Pattern::Rw => mix.unwrap_or(50).min(100),
        }
    }

    /// The pure-write pattern with the same access order (random or sequential).
    pub fn write_equivalent(self) -> Pattern {
        if self.is_random() {
            Pattern::Randwrite
        } else {
            Pattern::Seqwrite
        }
    }

    /// The mixed pattern with the same access order, for a sweep over read shares.
    pub fn mixed_equivalent(self) -> Pattern {
        if self.is_random() {
            Pattern::Randrw
        } else {
            Pattern::Rw
        }
    }
}

impl std::fmt::Display for Pattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// I/O engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// io_uring with registered buffers and files (default).
    IoUring,
    /// One thread per in-flight write with `pwrite`, for kernels without io_uring.
    Sync,
    /// io_uring with polled completions (`IORING_SETUP_IOPOLL`, fio's `--hipri`): the job
    /// thread spins on the device's poll queues instead of waiting for an interrupt. Needs a
    /// block device whose driver has poll queues (NVMe: `nvme.poll_queues=N`).
    IoUringPoll,
    /// NVMe Write commands sent straight to the namespace's character device (`/dev/ng0n1`)
    /// through io_uring's `IORING_OP_URING_CMD`, as fio's `io_uring_cmd` engine: no block
    /// layer. NVMe namespaces only; Linux 5.19 or later, as root.
    IoUringCmd,
    /// The same with polled completions; needs poll queues (`nvme.poll_queues=N`).
    IoUringCmdPoll,
}

impl EngineKind {
    /// Every engine, in the order the help lists them.
    pub const ALL: [EngineKind; 5] = [
        EngineKind::IoUring,
        EngineKind::Sync,
        EngineKind::IoUringPoll,
        EngineKind::IoUringCmd,
        EngineKind::IoUringCmdPoll,
    ];

    /// The name used on the command line and in `summary.json`.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::IoUring => "io-uring",
            EngineKind::Sync => "sync",
            EngineKind::IoUringPoll => "io-uring-poll",
            EngineKind::IoUringCmd => "io-uring-cmd",
            EngineKind::IoUringCmdPoll => "io-uring-cmd-poll",
        }
    }

    /// One line of help for the command line.
    pub fn help(self) -> &'static str {
        match self {
            EngineKind::IoUring => "io_uring with registered buffers and files (default)",
            EngineKind::Sync => {
                "One thread per in-flight write with pwrite, for kernels without io_uring"
            }
            EngineKind::IoUringPoll => {
                "io_uring with polled completions (IORING_SETUP_IOPOLL, fio's --hipri); needs \
                 poll queues (NVMe: nvme.poll_queues=N)"
            }
            EngineKind::IoUringCmd => {
                "NVMe commands straight to the namespace's character device (io_uring \
                 uring_cmd, fio's io_uring_cmd): no block layer; NVMe only, Linux 5.19+, root"
            }
            EngineKind::IoUringCmdPoll => {
                "io-uring-cmd with polled completions; needs poll queues (nvme.poll_queues=N)"
            }
        }
    }
}

impl std::fmt::Display for EngineKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Named grids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepPreset {
    /// CrystalDiskMark's table: Seq Q32T1 (1 MiB), 4K Q8T8 and 4K Q1T1, read and write.
    Cdm,
}
