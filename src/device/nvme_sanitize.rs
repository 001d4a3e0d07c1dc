//! `--sanitize`: before the run, the drive is emptied with a Sanitize block erase (SANACT
//! 010b), which the controller runs in the background on every namespace of its NVM
//! subsystem; its progress is read from the Sanitize Status log until it has succeeded or
//! failed. On a real drive this empties the SLC cache and the mapping tables, as
//! `--secure-erase` does, where the drive has no Format NVM with a user data erase or formats
//! all its namespaces together.
//!
//! The checks come first, before anything is sent ([`plan`], the pure [`check`]): the target
//! must be an NVMe namespace itself (not a partition), the controller must support the block
//! erase (SANICAP bit 1), no namespace of the controller may be mounted, swap or held (all of
//! them are erased), and no sanitize may be running already.
//!
//! Offsets, checked against libnvme's `src/nvme/types.h` (`struct nvme_id_ctrl`: `sanicap`
//! after `hctma` (322), `mntmt` and `mxtmt`, so at byte 328; `enum nvme_id_ctrl_sanicap`: CES
//! bit 0, BES bit 1, OWS bit 2; `struct nvme_sanitize_log_page`: `sprog` u16 at 0, `sstat` u16
//! at 2, `scdw10` u32 at 4, `eto`, `etbe`, `etce` u32 at 8, 12, 16; `enum
//! nvme_sanitize_sstat`: status bits 2:0 = 0 never sanitized, 1 succeeded, 2 in progress, 3
//! failed, 4 succeeded without deallocation, Global Data Erased bit 8; `enum
//! nvme_sanitize_sanact`: 2 = start block erase) and the kernel's `include/linux/nvme.h`
//! (`struct nvme_id_ctrl`, `nvme_admin_sanitize_nvm = 0x84`); NVMe Base Specification 2.0,
//! Sanitize command (section 5.24, CDW10: SANACT bits 2:0, AUSE bit 3, NDAS bit 9) and the
//! Sanitize Status log page (section 5.16.1.25).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};
use serde::Serialize;

use super::nvme::{controller_namespaces, SanitizeCaps, SANITIZE_LOG_LEN};
use super::{refuse, TargetInfo, TargetKind};
use crate::error::{usage, InterruptedEarly};

/// Sanitize CDW10 for a block erase: SANACT 010b (start a block erase) with AUSE (bit 3) set,
/// so that a failed sanitize leaves the drive in the unrestricted failure state, which the
/// Exit Failure Mode action (`nvme sanitize -a exit-failure`) leaves; NDAS (bit 9) clear:
/// the drive deallocates everything afterwards.
pub const BLOCK_ERASE_CDW10: u32 = 0b010 | 1 << 3;
/// How often the Sanitize Status log is read while the sanitize runs.
pub const POLL: Duration = Duration::from_millis(500);
/// Longest wait for a sanitize when the drive gives no estimate (and the least otherwise).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(3600);

/// The status of the most recent sanitize (SSTAT bits 2:0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SanitizeState {
    /// 000b: the NVM subsystem has never been sanitized.
    NeverSanitized,
    /// 001b: the most recent sanitize succeeded.
    Succeeded,
    /// 010b: a sanitize is in progress.
    InProgress,
    /// 011b: the most recent sanitize failed.
    Failed,
    /// 100b: the most recent sanitize succeeded without deallocating (No-Deallocate After
    /// Sanitize was asked for).
    SucceededNoDeallocate,
    /// A value the specification reserves.
    Reserved(u8),
}

/// What the Sanitize Status log says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SanitizeStatus {
    /// Sanitize Progress (SPROG, bytes 1:0): the fraction done of the running sanitize, in
    /// 65536ths (65535 when none runs).
    pub progress: u16,
    /// SSTAT bits 2:0.
    pub state: SanitizeState,
    /// SSTAT bit 8, Global Data Erased: no user data has been written since the last
    /// sanitize (or ever).
    pub global_data_erased: bool,
    /// Command Dword 10 of the Sanitize command that started the most recent sanitize
    /// (SCDW10, bytes 7:4).
    pub cdw10: u32,
    /// Estimated Time For Block Erase (ETBE, bytes 15:12), seconds; None when the drive does
    /// not report one (FFFFFFFFh).
    pub block_erase_estimate_s: Option<u32>,
}

impl SanitizeStatus {
    /// The progress of a running sanitize, percent.
    pub fn percent(&self) -> f64 {
        self.progress as f64 * 100.0 / 65536.0
    }
}

/// Parses the Sanitize Status log page (LID 81h). Errors when `page` is shorter than the 20
/// bytes read.
pub fn parse_sanitize_log(page: &[u8]) -> Result<SanitizeStatus, String> {
    if page.len() < 20 {
        return Err(format!(
            "a Sanitize Status log page is {SANITIZE_LOG_LEN} bytes, got {}",
            page.len()
        ));
    }
    let le16 = |o: usize| u16::from_le_bytes([page[o], page[o + 1]]);
    let le32 = |o: usize| u32::from_le_bytes([page[o], page[o + 1], page[o + 2], page[o + 3]]);
    let sstat = le16(2);
    let state = match (sstat & 0x7) as u8 {
        0 => SanitizeState::NeverSanitized,
        1 => SanitizeState::Succeeded,
        2 => SanitizeState::InProgress,
        3 => SanitizeState::Failed,
        4 => SanitizeState::SucceededNoDeallocate,
        v => SanitizeState::Reserved(v),
    };
    let etbe = le32(12);
    Ok(SanitizeStatus {
        progress: le16(0),
        state,
        global_data_erased: sstat & 0x100 != 0,
        cdw10: le32(4),
        block_erase_estimate_s: (etbe != u32::MAX).then_some(etbe),
    })
}

/// What the sanitize will send, and what it erases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SanitizePlan {
    /// Command Dword 10 of the Sanitize command.
    pub cdw10: u32,
    /// The namespaces of the controller (all of them are erased), `nvme0n1`, ...
    pub namespaces: Vec<String>,
    /// How long to wait for the sanitize at most.
    pub timeout: Duration,
}

/// The checks of `--sanitize` on what was read: the controller's capabilities, its
/// namespaces with the reason each is in use (None when free), and the Sanitize Status log
/// now. Usage error when the controller has no block erase; refusals when a namespace is in
/// use or a sanitize already runs. Pure.
pub fn check(
    spec: &str,
    caps: SanitizeCaps,
    namespaces: &[(String, Option<String>)],
    status: Result<SanitizeStatus, String>,
) -> Result<SanitizePlan> {
    let flag = "--sanitize";
    if !caps.block_erase {
        let has = if caps == SanitizeCaps::default() {
            "SANICAP 0: no sanitize operation at all".to_string()
        } else {
            format!("SANICAP bit 1 clear; it has {} only", caps.text())
        };
        return Err(usage(format!(
            "{flag}: the controller of {spec} does not support a Sanitize block erase \
             ({has}); nothing was sent. Use --secure-erase or --trim"
        )));
    }
    let names: Vec<&str> = namespaces.iter().map(|(n, _)| n.as_str()).collect();
    if let Some((n, why)) = namespaces
        .iter()
        .find_map(|(n, w)| w.as_ref().map(|w| (n, w)))
    {
        return Err(refuse(
            spec,
            format!(
                "{flag} erases every namespace of the controller ({}), and {n} is in use: \
                 {why}",
                names.join(", ")
            ),
        ));
    }
    let status = status.map_err(|e| anyhow!("{flag}: the Sanitize Status log of {spec}: {e}"))?;
    if status.state == SanitizeState::InProgress {
        return Err(refuse(
            spec,
            format!(
                "{flag}: a sanitize is already in progress on its controller ({:.0}% done); \
                 wait for it to end",
                status.percent()
            ),
        ));
    }
    // The drive's own estimate, three times over, and never less than an hour.
    let timeout = status
        .block_erase_estimate_s
        .map(|s| Duration::from_secs(3 * s as u64).max(DEFAULT_TIMEOUT))
        .unwrap_or(DEFAULT_TIMEOUT);
    Ok(SanitizePlan {
        cdw10: BLOCK_ERASE_CDW10,
        namespaces: names.iter().map(|n| n.to_string()).collect(),
        timeout,
    })
}

/// Checks that `--sanitize` may run on `info`, and what it will send. Usage errors and
/// refusals, before anything is sent.
pub fn plan(info: &TargetInfo) -> Result<SanitizePlan> {
    let flag = "--sanitize";
    let spec = &info.spec;
    let Some(nvme) = info
        .nvme
        .as_ref()
        .filter(|_| info.kind == TargetKind::Block)
    else {
        return Err(usage(format!(
            "{flag} sanitizes an NVMe drive (Sanitize block erase); {spec} is not an NVMe \
             namespace (use --trim)"
        )));
    };
    let dev = info
        .dev
        .ok_or_else(|| anyhow!("{spec}: no device number"))?;
    if super::sysfs::sys_dir(dev).is_some_and(|d| d.join("partition").exists()) {
        return Err(refuse(
            spec,
            format!(
                "{flag} erases every namespace of the drive, and {spec} is a partition; give \
                 the namespace, or use --trim"
            ),
        ));
    }
    let id = nvme
        .identify_controller_page()
        .map_err(|e| anyhow!("{flag}: Identify Controller on {spec}: {e}"))?;
    let caps = SanitizeCaps::from_identify(&id);
    let namespaces: Vec<(String, Option<String>)> = controller_namespaces(dev)
        .into_iter()
        .map(|n| {
            let why = super::sysfs::dev_of_name(&n).and_then(|d| {
                super::check_block_not_in_use(&n, d).err().map(|e| {
                    e.downcast_ref::<super::Refusal>()
                        .map(|r| r.reason.clone())
                        .unwrap_or_else(|| e.to_string())
                })
            });
            (n, why)
        })
        .collect();
    // The log is read only where the controller sanitizes at all (others may reject it).
    let status = if caps.block_erase {
        nvme.sanitize_log_page()
            .map_err(|e| e.to_string())
            .and_then(|p| parse_sanitize_log(&p))
    } else {
        Err("not read".into())
    };
    check(spec, caps, &namespaces, status)
}

/// Waits for a sanitize that has started: reads the status with `read` every `poll`, calls
/// `progress` with the percent done while it runs, and returns the final status once it has
/// succeeded. Errors when it failed, when the status cannot be read, when `timeout` passes
/// (on the clock `elapsed`), and when `interrupted` is set; the sanitize goes on in the drive
/// in all of these but a failure.
pub fn wait(
    mut read: impl FnMut() -> Result<SanitizeStatus, String>,
    timeout: Duration,
    poll: Duration,
    mut elapsed: impl FnMut() -> Duration,
    mut sleep: impl FnMut(Duration),
    interrupted: &AtomicBool,
    mut progress: impl FnMut(f64),
) -> Result<SanitizeStatus> {
    let goes_on = "the sanitize goes on in the drive; `nvme sanitize-log` shows its progress";
    loop {
        let s =
            read().map_err(|e| anyhow!("--sanitize: the Sanitize Status log: {e} ({goes_on})"))?;
        match s.state {
            SanitizeState::Succeeded | SanitizeState::SucceededNoDeallocate => return Ok(s),
            SanitizeState::Failed => {
                return Err(anyhow!(
                    "--sanitize: the drive reports that the sanitize failed (Sanitize Status \
                     SSTAT 011b); nothing was measured. The drive may refuse I/O until a \
                     sanitize succeeds or its failure mode is left (`nvme sanitize -a \
                     exit-failure`)"
                ))
            }
            SanitizeState::InProgress => progress(s.percent()),
            // The command completed, so the operation started: a drive that does not yet
            // show it is read again.
            SanitizeState::NeverSanitized | SanitizeState::Reserved(_) => {}
        }
        if interrupted.load(Ordering::SeqCst) {
            return Err(anyhow::Error::new(InterruptedEarly(format!(
                "while the drive sanitizes ({goes_on})"
            ))));
        }
        let t = elapsed();
        if t >= timeout {
            return Err(anyhow!(
                "--sanitize: not done after {:.0} s ({:.0}% by the drive's count; {goes_on})",
                t.as_secs_f64(),
                s.percent()
            ));
        }
        sleep(poll);
    }
}

/// Sends the sanitize, waits for it with progress (`say` gets one line per whole percent),
/// and returns what was done, for the record.
pub fn run(
    info: &TargetInfo,
    plan: &SanitizePlan,
    interrupted: &AtomicBool,
    say: &mut dyn FnMut(String),
) -> Result<String> {
    let nvme = info
        .nvme
        .as_ref()
        .ok_or_else(|| anyhow!("{}: not an NVMe namespace", info.spec))?;
    let t = Instant::now();
    nvme.sanitize(plan.cdw10)
        .map_err(|e| anyhow!("--sanitize: Sanitize on {}: {e}", info.spec))?;
    let mut last = None;
    let s = wait(
        || {
            nvme.sanitize_log_page()
                .map_err(|e| e.to_string())
                .and_then(|p| parse_sanitize_log(&p))
        },
        plan.timeout,
        POLL,
        || t.elapsed(),
        std::thread::sleep,
        interrupted,
        |pct| {
            let whole = pct.floor() as u32;
            if last != Some(whole) {
                last = Some(whole);
                say(format!(
                    "sanitize: {whole}% (block erase, by the drive's count)"
                ));
            }
        },
    )?;
    Ok(format!(
        "Sanitize block erase of the NVM subsystem (namespaces {}), in {:.1} s{}",
        plan.namespaces.join(", "),
        t.elapsed().as_secs_f64(),
        if s.state == SanitizeState::SucceededNoDeallocate {
            "; the drive did not deallocate afterwards"
        } else {
            ""
        }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::nvme::SANICAP_OFFSET;
    use std::cell::Cell;

    /// A Sanitize Status log page with the fields at libnvme's offsets.
    fn log_page(sprog: u16, sstat: u16, scdw10: u32, etbe: u32) -> Vec<u8> {
        let mut p = vec![0u8; SANITIZE_LOG_LEN];
        p[0..2].copy_from_slice(&sprog.to_le_bytes());
        p[2..4].copy_from_slice(&sstat.to_le_bytes());
        p[4..8].copy_from_slice(&scdw10.to_le_bytes());
        p[8..12].copy_from_slice(&u32::MAX.to_le_bytes()); // ETO: not reported
        p[12..16].copy_from_slice(&etbe.to_le_bytes());
        p
    }

    fn identify_with_sanicap(v: u32) -> Vec<u8> {
        let mut p = crate::device::nvme::tests::identify_page();
        p[SANICAP_OFFSET..SANICAP_OFFSET + 4].copy_from_slice(&v.to_le_bytes());
        p
    }

    #[test]
    fn sanicap_at_byte_328() {
        let c = SanitizeCaps::from_identify(&identify_with_sanicap(0b010));
        assert_eq!(
            c,
            SanitizeCaps {
                crypto_erase: false,
                block_erase: true,
                overwrite: false
            }
        );
        assert_eq!(c.text(), "block erase");
        let all = SanitizeCaps::from_identify(&identify_with_sanicap(0b111 | 3 << 30));
        assert!(all.crypto_erase && all.block_erase && all.overwrite);
        assert_eq!(all.text(), "block erase, crypto erase, overwrite");
        // Bits next to SANICAP (MXTMT below it, HMMINDS above) do not count.
        let mut p = identify_with_sanicap(0);
        p[326..328].copy_from_slice(&0xFFFFu16.to_le_bytes());
        p[332..336].copy_from_slice(&u32::MAX.to_le_bytes());
        let none = SanitizeCaps::from_identify(&p);
        assert_eq!(none, SanitizeCaps::default());
        assert_eq!(none.text(), "not supported (SANICAP 0)");
        // And through the parsed Identify Controller.
        let id = crate::device::nvme::parse_identify_controller(&identify_with_sanicap(2)).unwrap();
        assert!(id.sanitize.block_erase);
        let j = serde_json::to_value(&id).unwrap();
        assert_eq!(j["sanitize"]["block_erase"], true, "{j}");
        assert_eq!(j["sanitize"]["crypto_erase"], false, "{j}");
    }

    #[test]
    fn the_status_log_at_its_offsets() {
        // 43% into a block erase, the drive's estimate 120 s.
        let s = parse_sanitize_log(&log_page(28_181, 2, BLOCK_ERASE_CDW10, 120)).unwrap();
        assert_eq!(s.state, SanitizeState::InProgress);
        assert_eq!(s.progress, 28_181);
        assert!((s.percent() - 43.0).abs() < 0.01, "{}", s.percent());
        assert_eq!(s.cdw10, 0x0A);
        assert_eq!(s.block_erase_estimate_s, Some(120));
        assert!(!s.global_data_erased);
        // Done, with Global Data Erased (bit 8); estimate not reported.
        let s = parse_sanitize_log(&log_page(0xFFFF, 0x101, 2, u32::MAX)).unwrap();
        assert_eq!(s.state, SanitizeState::Succeeded);
        assert!(s.global_data_erased);
        assert_eq!(s.block_erase_estimate_s, None);
        for (v, want) in [
            (0, SanitizeState::NeverSanitized),
            (3, SanitizeState::Failed),
            (4, SanitizeState::SucceededNoDeallocate),
            (5, SanitizeState::Reserved(5)),
            // Bits above 2:0 (the overwrite passes, bits 7:3) leave the status alone.
            (0b1111_1011, SanitizeState::Failed),
        ] {
            assert_eq!(
                parse_sanitize_log(&log_page(0, v, 0, 0)).unwrap().state,
                want,
                "{v:#x}"
            );
        }
        assert!(parse_sanitize_log(&[0u8; 8]).is_err());
    }

    fn free(names: &[&str]) -> Vec<(String, Option<String>)> {
        names.iter().map(|n| (n.to_string(), None)).collect()
    }

    fn idle_status() -> Result<SanitizeStatus, String> {
        parse_sanitize_log(&log_page(0xFFFF, 0, 0, 300))
    }

    #[test]
    fn a_controller_without_block_erase_is_a_usage_error_that_says_so() {
        // QEMU's controller: SANICAP 0.
        let e = check(
            "/dev/nvme0n1",
            SanitizeCaps::default(),
            &free(&["nvme0n1"]),
            Err("not read".into()),
        )
        .unwrap_err();
        assert_eq!(crate::error::exit_code(&e), 2);
        let m = format!("{e:#}");
        assert!(
            m.contains(
                "does not support a Sanitize block erase (SANICAP 0: no sanitize operation at all)"
            ),
            "{m}"
        );
        assert!(m.contains("nothing was sent"), "{m}");
        // Crypto erase alone is not enough: --sanitize is a block erase.
        let crypto = SanitizeCaps {
            crypto_erase: true,
            ..SanitizeCaps::default()
        };
        let e = check("/dev/nvme0n1", crypto, &free(&["nvme0n1"]), idle_status()).unwrap_err();
        assert!(
            format!("{e:#}").contains("(SANICAP bit 1 clear; it has crypto erase only)"),
            "{e:#}"
        );
    }

    #[test]
    fn any_namespace_in_use_refuses_it_and_is_named() {
        let caps = SanitizeCaps::from_identify(&identify_with_sanicap(2));
        let ns = vec![
            ("nvme0n1".to_string(), None),
            (
                "nvme0n2".to_string(),
                Some("nvme0n2p1 is mounted at /home; unmount it first".to_string()),
            ),
        ];
        let e = check("/dev/nvme0n1", caps, &ns, idle_status()).unwrap_err();
        assert_eq!(crate::error::exit_code(&e), 1);
        let m = format!("{e:#}");
        assert!(
            m.contains(
                "--sanitize erases every namespace of the controller (nvme0n1, nvme0n2), and \
                 nvme0n2 is in use: nvme0n2p1 is mounted at /home"
            ),
            "{m}"
        );
    }

    #[test]
    fn a_sanitize_in_progress_refuses_another_and_a_free_drive_gets_its_plan() {
        let caps = SanitizeCaps::from_identify(&identify_with_sanicap(2));
        let running = parse_sanitize_log(&log_page(32_768, 2, 2, 300));
        let e = check("/dev/nvme0n1", caps, &free(&["nvme0n1"]), running).unwrap_err();
        assert!(
            format!("{e:#}")
                .contains("a sanitize is already in progress on its controller (50% done)"),
            "{e:#}"
        );
        // The status log unreadable on a drive that claims to sanitize: an error, not a plan.
        let e = check(
            "/dev/nvme0n1",
            caps,
            &free(&["nvme0n1"]),
            Err("status 0x2".into()),
        )
        .unwrap_err();
        assert!(format!("{e:#}").contains("Sanitize Status log of /dev/nvme0n1: status 0x2"));
        let p = check(
            "/dev/nvme0n1",
            caps,
            &free(&["nvme0n1", "nvme0n2"]),
            idle_status(),
        )
        .unwrap();
        assert_eq!(p.cdw10, 0b1010, "SANACT 010b, AUSE");
        assert_eq!(p.namespaces, ["nvme0n1", "nvme0n2"]);
        assert_eq!(p.timeout, DEFAULT_TIMEOUT, "300 s estimated: an hour");
        let slow = parse_sanitize_log(&log_page(0xFFFF, 1, 2, 7200));
        let p = check("/dev/nvme0n1", caps, &free(&["nvme0n1"]), slow).unwrap();
        assert_eq!(
            p.timeout,
            Duration::from_secs(21_600),
            "three times the estimate"
        );
    }

    /// Runs [`wait`] over canned pages on a clock that each sleep advances.
    fn wait_on(
        pages: Vec<Vec<u8>>,
        timeout: Duration,
        interrupted: bool,
    ) -> (Result<SanitizeStatus>, Vec<f64>, usize) {
        let mut i = 0;
        let now = Cell::new(Duration::ZERO);
        let mut seen = Vec::new();
        let flag = AtomicBool::new(interrupted);
        let r = wait(
            || {
                let p = pages[i.min(pages.len() - 1)].clone();
                i += 1;
                parse_sanitize_log(&p)
            },
            timeout,
            POLL,
            || now.get(),
            |d| now.set(now.get() + d),
            &flag,
            |pct| seen.push(pct),
        );
        (r, seen, i)
    }

    #[test]
    fn progress_is_read_until_the_drive_says_done() {
        let pages = vec![
            // Right after the command, the log may still show the state before it.
            log_page(0xFFFF, 0, 0, 60),
            log_page(0, 2, 0x0A, 60),
            log_page(28_181, 2, 0x0A, 60),
            log_page(65_000, 2, 0x0A, 60),
            log_page(0xFFFF, 0x101, 0x0A, 60),
        ];
        let (r, seen, reads) = wait_on(pages, Duration::from_secs(60), false);
        let s = r.unwrap();
        assert_eq!(s.state, SanitizeState::Succeeded);
        assert_eq!(reads, 5);
        let whole: Vec<u32> = seen.iter().map(|p| p.floor() as u32).collect();
        assert_eq!(whole, [0, 43, 99]);
        // Succeeded without deallocation is done too.
        let (r, _, _) = wait_on(
            vec![log_page(0xFFFF, 4, 0x20A, 60)],
            Duration::from_secs(1),
            false,
        );
        assert_eq!(r.unwrap().state, SanitizeState::SucceededNoDeallocate);
    }

    #[test]
    fn a_failed_sanitize_is_an_error_that_says_what_to_do() {
        let pages = vec![log_page(100, 2, 0x0A, 60), log_page(0xFFFF, 3, 0x0A, 60)];
        let (r, seen, _) = wait_on(pages, Duration::from_secs(60), false);
        let m = format!("{:#}", r.unwrap_err());
        assert!(
            m.contains("the drive reports that the sanitize failed"),
            "{m}"
        );
        assert!(m.contains("nvme sanitize -a exit-failure"), "{m}");
        assert_eq!(seen.len(), 1);
    }

    #[test]
    fn a_sanitize_that_never_ends_times_out_with_its_progress() {
        let (r, seen, reads) = wait_on(
            vec![log_page(16_384, 2, 0x0A, 60)],
            Duration::from_secs(5),
            false,
        );
        let e = r.unwrap_err();
        assert_eq!(crate::error::exit_code(&e), 1);
        let m = format!("{e:#}");
        assert!(
            m.contains("--sanitize: not done after 5 s (25% by the drive's count"),
            "{m}"
        );
        assert!(m.contains("the sanitize goes on in the drive"), "{m}");
        // Read every 0.5 s for 5 s, and once at the deadline.
        assert_eq!(reads, 11);
        assert_eq!(seen.len(), 11);
        // Ctrl-C: interrupted, with the same word on what goes on.
        let (r, _, _) = wait_on(
            vec![log_page(16_384, 2, 0x0A, 60)],
            Duration::from_secs(5),
            true,
        );
        let e = r.unwrap_err();
        assert_eq!(crate::error::exit_code(&e), 130);
        assert!(
            format!("{e:#}").contains("while the drive sanitizes"),
            "{e:#}"
        );
    }
}
