//! `--secure-erase` on an ATA drive: the ATA Security feature set's SECURITY ERASE UNIT,
//! as people run it by hand with hdparm, with its traps closed.
//!
//! The checks come first, before anything is sent ([`check`], pure): the drive must have the
//! Security feature set (IDENTIFY word 128 bit 0), must not be frozen (bit 3; the BIOS of
//! most machines freezes drives at boot), must not have security enabled already (bit 1: a
//! password someone else set), must not be behind a USB bridge (a bridge may time out or
//! reset during the long erase and leave the drive locked), and the target must be the whole
//! drive, not a partition. Mounted partitions and holders were refused when the target was
//! inspected.
//!
//! Then ([`erase`]): SECURITY SET PASSWORD (user password [`TEMP_PASSWORD`], high level),
//! SECURITY ERASE PREPARE, SECURITY ERASE UNIT (enhanced where the drive supports it), each
//! through [`AtaTransport`]. The erase's time-out comes from the drive's own estimate (words
//! 89 and 90). A successful erase clears the password itself (ACS-3 7.39: the drive returns
//! to security disabled); on any failure or interruption, SECURITY DISABLE PASSWORD is sent
//! with the temporary password, and the error names the password, so that a drive is never
//! left locked with a password nobody knows.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};

use super::ata::{identify, op, AtaCommand, AtaData, AtaError, AtaIdentify, AtaTransport};
use super::TargetInfo;
use crate::error::{usage, InterruptedEarly};

/// The temporary user password set for the erase (as hdparm writes a password: its bytes
/// after the control word, zero padded to 32).
pub const TEMP_PASSWORD: &str = "slccache";

/// The time-out of the erase when the drive gives no estimate.
pub const NO_ESTIMATE_TIMEOUT: Duration = Duration::from_secs(6 * 3600);

/// What the erase will send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErasePlan {
    /// The enhanced erase (word 128 bit 5).
    pub enhanced: bool,
    /// The drive's estimate, minutes (word 90 for the enhanced erase, word 89 otherwise).
    pub estimate_min: Option<u32>,
    /// How long to wait for SECURITY ERASE UNIT: the estimate and half again, at least
    /// 10 minutes; [`NO_ESTIMATE_TIMEOUT`] without an estimate.
    pub timeout: Duration,
}

/// The time-out for an erase the drive estimates at `estimate_min` minutes.
pub fn erase_timeout(estimate_min: Option<u32>) -> Duration {
    match estimate_min {
        Some(m) => Duration::from_secs((m as u64 * 90).max(600)),
        None => NO_ESTIMATE_TIMEOUT,
    }
}

/// Checks that `--secure-erase` may run on ATA drive `id` (`spec` the target as given,
/// `usb` whether it sits behind a USB bridge, `partition` whether the target is a partition),
/// and what it will send. Usage errors (exit code 2), before anything is sent. Pure.
pub fn check(spec: &str, id: &AtaIdentify, usb: bool, partition: bool) -> Result<ErasePlan> {
    let flag = "--secure-erase";
    let s = &id.security;
    if partition {
        return Err(usage(format!(
            "{flag} erases the whole drive (SECURITY ERASE UNIT), and {spec} is a partition of \
             it; give the drive, or use --trim"
        )));
    }
    if usb {
        return Err(usage(format!(
            "{flag}: {spec} is behind a USB bridge; an ATA secure erase through one may be cut \
             by a bridge reset or time-out and leave the drive locked with a password. Connect \
             the drive to a SATA port, or use --trim"
        )));
    }
    if !s.supported {
        return Err(usage(format!(
            "{flag}: {spec} has no ATA Security feature set (IDENTIFY DEVICE word 128 bit 0 is \
             clear), so no SECURITY ERASE UNIT; use --trim"
        )));
    }
    if s.enabled || s.locked {
        return Err(usage(format!(
            "{flag}: {spec} already has security enabled{} (a user password someone set); \
             slccache will not erase with a password it did not set. Disable it with the \
             password first (hdparm --user-master u --security-disable PASSWORD {spec})",
            if s.locked { " and is LOCKED" } else { "" }
        )));
    }
    if s.frozen {
        return Err(usage(format!(
            "{flag}: {spec} is security frozen (IDENTIFY DEVICE word 128 bit 3: the BIOS froze \
             it at boot), and refuses every security command until it is unfrozen. Unfreeze it \
             with a suspend and resume (systemctl suspend, then wake the machine), or by \
             unplugging and plugging in the drive's SATA power (hot-plug) while the machine \
             runs; then check with slccache info {spec}"
        )));
    }
    let enhanced = s.enhanced_erase_supported;
    let estimate_min = if enhanced {
        s.enhanced_erase_minutes
    } else {
        s.erase_minutes
    };
    Ok(ErasePlan {
        enhanced,
        estimate_min,
        timeout: erase_timeout(estimate_min),
    })
}

/// Checks `--secure-erase` on an ATA target (or a SCSI disk whose bridge refused ATA
/// pass-through): IDENTIFY DEVICE is read again now, and [`check`] decides. Nothing but that
/// read is sent.
pub fn plan(info: &TargetInfo) -> Result<ErasePlan> {
    let spec = &info.spec;
    let partition = info
        .dev
        .and_then(super::sysfs::sys_dir)
        .is_some_and(|d| d.join("partition").exists());
    let Some(ata) = &info.ata else {
        let why = info
            .ata_note
            .clone()
            .unwrap_or_else(|| "it did not answer ATA IDENTIFY DEVICE".to_string());
        return Err(usage(format!(
            "--secure-erase: {spec} cannot take an ATA secure erase: {why}; use --trim"
        )));
    };
    let id =
        identify(&ata.sg).map_err(|e| anyhow!("--secure-erase: IDENTIFY DEVICE on {spec}: {e}"))?;
    check(spec, &id, ata.usb_mbps.is_some(), partition)
}

/// The 512 bytes of a SECURITY command's data: control word 0 (bit 0: 0 = the user password;
/// bit 1 for ERASE UNIT: enhanced), then the password in words 1-16.
pub fn security_block(control: u16, password: &str) -> Vec<u8> {
    let mut b = vec![0u8; 512];
    b[0..2].copy_from_slice(&control.to_le_bytes());
    let p = password.as_bytes();
    b[2..2 + p.len().min(32)].copy_from_slice(&p[..p.len().min(32)]);
    b
}

fn pio_out(command: u8) -> AtaCommand {
    let mut c = AtaCommand::new(command);
    c.count = 1;
    c
}

/// Short time-out of the security commands other than the erase.
const SHORT: Duration = Duration::from_secs(15);

/// SECURITY DISABLE PASSWORD with the temporary password: clears it after a failure.
fn disable_password(t: &dyn AtaTransport) -> Result<(), AtaError> {
    t.send(
        &pio_out(op::SECURITY_DISABLE_PASSWORD),
        AtaData::Out(&security_block(0, TEMP_PASSWORD)),
        SHORT,
    )
}

/// The error after a failed or interrupted erase, once the password was (or could not be)
/// cleared: it names the password and, where it is still set, how to clear it by hand.
fn failed(spec: &str, what: String, cleared: Result<(), AtaError>) -> anyhow::Error {
    match cleared {
        Ok(()) => anyhow!(
            "--secure-erase on {spec}: {what}; the temporary password \"{TEMP_PASSWORD}\" was \
             cleared (SECURITY DISABLE PASSWORD): the drive is not locked, and was not erased \
             completely"
        ),
        Err(e) => anyhow!(
            "--secure-erase on {spec}: {what}; clearing the temporary password \
             \"{TEMP_PASSWORD}\" failed too ({e}). The drive may be locked with that password: \
             unlock and clear it with hdparm --user-master u --security-unlock {TEMP_PASSWORD} \
             {spec}, then hdparm --user-master u --security-disable {TEMP_PASSWORD} {spec} (after \
             a power cycle if the drive is still erasing)"
        ),
    }
}

/// Runs the erase on the drive behind `t` (`spec` for the messages): SET PASSWORD, ERASE
/// PREPARE, ERASE UNIT, with `progress` told every `tick` while the erase runs, and the
/// password cleared on any failure or if `interrupted` is set before the erase starts.
/// Returns what was done, for the record.
pub fn erase(
    t: &dyn AtaTransport,
    spec: &str,
    plan: &ErasePlan,
    interrupted: &AtomicBool,
    tick: Duration,
    progress: &mut dyn FnMut(String),
) -> Result<String> {
    if let Err(e) = t.send(
        &pio_out(op::SECURITY_SET_PASSWORD),
        AtaData::Out(&security_block(0, TEMP_PASSWORD)),
        SHORT,
    ) {
        // Nothing should be set, but a drive that failed half-way is not trusted.
        return Err(failed(
            spec,
            format!("SECURITY SET PASSWORD failed: {e}"),
            disable_password(t),
        ));
    }
    if interrupted.load(Ordering::SeqCst) {
        return match disable_password(t) {
            Ok(()) => Err(anyhow::Error::new(InterruptedEarly(format!(
                "before the secure erase (the temporary password \"{TEMP_PASSWORD}\" was cleared)"
            )))),
            Err(e) => Err(failed(spec, "interrupted".to_string(), Err(e))),
        };
    }
    if let Err(e) = t.send(
        &AtaCommand::new(op::SECURITY_ERASE_PREPARE),
        AtaData::None,
        SHORT,
    ) {
        return Err(failed(
            spec,
            format!("SECURITY ERASE PREPARE failed: {e}"),
            disable_password(t),
        ));
    }
    let control = if plan.enhanced { 0x0002 } else { 0x0000 };
    let block = security_block(control, TEMP_PASSWORD);
    let kind = if plan.enhanced { "enhanced" } else { "normal" };
    let estimate = match plan.estimate_min {
        Some(m) => format!("about {m} min by the drive's estimate"),
        None => "no estimate from the drive".to_string(),
    };
    progress(format!(
        "SECURITY ERASE UNIT ({kind}) sent: {estimate}; waiting up to {} min",
        plan.timeout.as_secs() / 60
    ));
    let start = Instant::now();
    let result = std::thread::scope(|s| {
        let h = s.spawn(|| {
            t.send(
                &pio_out(op::SECURITY_ERASE_UNIT),
                AtaData::Out(&block),
                plan.timeout,
            )
        });
        let mut next = tick;
        while !h.is_finished() {
            std::thread::sleep(Duration::from_millis(20).min(tick));
            let el = start.elapsed();
            if el >= next {
                next += tick;
                let of = match plan.estimate_min {
                    Some(m) => format!(" of about {m} min"),
                    None => String::new(),
                };
                progress(format!("secure erase: {:.0} s{of}", el.as_secs_f64()));
            }
        }
        h.join()
            .unwrap_or_else(|_| Err(AtaError::Other("the erase thread panicked".into())))
    });
    let took = start.elapsed().as_secs_f64();
    if let Err(e) = result {
        return Err(failed(
            spec,
            format!("SECURITY ERASE UNIT ({kind}) failed after {took:.0} s: {e}"),
            disable_password(t),
        ));
    }
    // A successful erase leaves security disabled; a drive that still says enabled gets
    // its password cleared all the same.
    if identify(t).map(|id| id.security.enabled).unwrap_or(true) {
        if let Err(e) = disable_password(t) {
            return Err(failed(
                spec,
                "the erase completed but the drive still has security enabled".to_string(),
                Err(e),
            ));
        }
    }
    if interrupted.load(Ordering::SeqCst) {
        return Err(anyhow::Error::new(InterruptedEarly(
            "after the secure erase (it completed)".into(),
        )));
    }
    Ok(format!(
        "ATA SECURITY ERASE UNIT ({kind}) in {took:.1} s ({estimate}); temporary password \
         cleared by the erase"
    ))
}

/// Runs the erase on `info`'s ATA drive (see [`erase`]), with progress every 10 s.
pub fn run(
    info: &TargetInfo,
    plan: &ErasePlan,
    interrupted: &AtomicBool,
    progress: &mut dyn FnMut(String),
) -> Result<String> {
    let ata = info
        .ata
        .as_ref()
        .ok_or_else(|| anyhow!("{}: not an ATA drive", info.spec))?;
    erase(
        &ata.sg,
        &info.spec,
        plan,
        interrupted,
        Duration::from_secs(10),
        progress,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::health::ata::pages::{samsung_identify, seal, set_word};
    use crate::health::ata::parse_identify;
    use std::sync::Mutex;

    /// A fake ATA drive: records every command (opcode, FEATURE, the control word and
    /// password of its data), answers IDENTIFY with `identify`, fails the commands in
    /// `fail`, and takes `erase_delay` over SECURITY ERASE UNIT (timing out when that is
    /// longer than the time-out).
    struct FakeDrive {
        sent: Mutex<Vec<(u8, u16, String)>>,
        identify: Mutex<Vec<u8>>,
        fail: Vec<u8>,
        erase_delay: Duration,
    }

    impl FakeDrive {
        fn new(fail: &[u8]) -> FakeDrive {
            FakeDrive {
                sent: Mutex::new(Vec::new()),
                identify: Mutex::new(samsung_identify()),
                fail: fail.to_vec(),
                erase_delay: Duration::ZERO,
            }
        }

        fn opcodes(&self) -> Vec<u8> {
            self.sent.lock().unwrap().iter().map(|s| s.0).collect()
        }
    }

    impl AtaTransport for FakeDrive {
        fn send(
            &self,
            cmd: &AtaCommand,
            data: AtaData<'_>,
            timeout: Duration,
        ) -> Result<(), AtaError> {
            let word0 = match &data {
                AtaData::Out(b) => {
                    let pw: String = b[2..34]
                        .iter()
                        .take_while(|&&c| c != 0)
                        .map(|&c| c as char)
                        .collect();
                    format!("{:#06x}:{pw}", u16::from_le_bytes([b[0], b[1]]))
                }
                _ => String::new(),
            };
            self.sent
                .lock()
                .unwrap()
                .push((cmd.command, cmd.features, word0));
            if cmd.command == op::SECURITY_ERASE_UNIT && !self.erase_delay.is_zero() {
                if self.erase_delay > timeout {
                    std::thread::sleep(timeout);
                    return Err(AtaError::TimedOut {
                        command: cmd.command,
                        timeout_s: timeout.as_secs(),
                    });
                }
                std::thread::sleep(self.erase_delay);
            }
            if self.fail.contains(&cmd.command) {
                return Err(AtaError::Aborted {
                    command: cmd.command,
                    status: 0x51,
                    error: 0x04,
                });
            }
            if let AtaData::In(b) = data {
                b.copy_from_slice(&self.identify.lock().unwrap());
            }
            Ok(())
        }
    }

    fn plan_of(p: &[u8]) -> ErasePlan {
        check("/dev/sda", &parse_identify(p).unwrap(), false, false).unwrap()
    }

    const SET: u8 = op::SECURITY_SET_PASSWORD;
    const PREP: u8 = op::SECURITY_ERASE_PREPARE;
    const UNIT: u8 = op::SECURITY_ERASE_UNIT;
    const DIS: u8 = op::SECURITY_DISABLE_PASSWORD;
    const ID: u8 = op::IDENTIFY;

    #[test]
    fn the_sequence_sets_prepares_erases_enhanced() {
        let d = FakeDrive::new(&[]);
        let plan = plan_of(&samsung_identify());
        assert!(plan.enhanced);
        assert_eq!(plan.estimate_min, Some(2));
        // 2 min and half again is under the floor of 10 min.
        assert_eq!(plan.timeout, Duration::from_secs(600));
        let mut lines = Vec::new();
        let what = erase(
            &d,
            "/dev/sda",
            &plan,
            &AtomicBool::new(false),
            Duration::from_secs(10),
            &mut |l| lines.push(l),
        )
        .unwrap();
        assert_eq!(d.opcodes(), vec![SET, PREP, UNIT, ID]);
        let sent = d.sent.lock().unwrap().clone();
        // User password, high security; the erase enhanced (control bit 1), same password.
        assert_eq!(sent[0].2, "0x0000:slccache");
        assert_eq!(sent[2].2, "0x0002:slccache");
        assert!(
            what.starts_with("ATA SECURITY ERASE UNIT (enhanced) in "),
            "{what}"
        );
        assert!(
            lines[0].contains("about 2 min by the drive's estimate"),
            "{lines:?}"
        );
        // Without the enhanced erase: the normal one, with word 89's estimate.
        let mut p = samsung_identify();
        set_word(&mut p, 128, 0x0001);
        set_word(&mut p, 89, 40);
        seal(&mut p);
        let plan = plan_of(&p);
        assert_eq!((plan.enhanced, plan.estimate_min), (false, Some(80)));
        assert_eq!(plan.timeout, Duration::from_secs(80 * 90));
        let d = FakeDrive::new(&[]);
        erase(
            &d,
            "/dev/sda",
            &plan,
            &AtomicBool::new(false),
            Duration::from_secs(10),
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(d.sent.lock().unwrap()[2].2, "0x0000:slccache");
        assert_eq!(erase_timeout(None), NO_ESTIMATE_TIMEOUT);
    }

    #[test]
    fn a_failed_erase_clears_the_password_and_names_it() {
        let d = FakeDrive::new(&[UNIT]);
        let e = erase(
            &d,
            "/dev/sda",
            &plan_of(&samsung_identify()),
            &AtomicBool::new(false),
            Duration::from_secs(10),
            &mut |_| {},
        )
        .unwrap_err();
        assert_eq!(d.opcodes(), vec![SET, PREP, UNIT, DIS]);
        assert_eq!(d.sent.lock().unwrap()[3].2, "0x0000:slccache");
        let m = format!("{e:#}");
        assert!(m.contains("SECURITY ERASE UNIT (enhanced) failed"), "{m}");
        assert!(
            m.contains("the temporary password \"slccache\" was cleared"),
            "{m}"
        );
        // A failed prepare clears it too; a failed clear says how to clear it by hand.
        let d = FakeDrive::new(&[PREP, DIS]);
        let e = erase(
            &d,
            "/dev/sda",
            &plan_of(&samsung_identify()),
            &AtomicBool::new(false),
            Duration::from_secs(10),
            &mut |_| {},
        )
        .unwrap_err();
        assert_eq!(d.opcodes(), vec![SET, PREP, DIS]);
        let m = format!("{e:#}");
        assert!(m.contains("SECURITY ERASE PREPARE failed"), "{m}");
        assert!(
            m.contains("hdparm --user-master u --security-disable slccache /dev/sda"),
            "{m}"
        );
    }

    #[test]
    fn an_erase_that_times_out_clears_the_password() {
        let mut d = FakeDrive::new(&[]);
        d.erase_delay = Duration::from_secs(5);
        let plan = ErasePlan {
            timeout: Duration::from_millis(300),
            ..plan_of(&samsung_identify())
        };
        let mut lines = Vec::new();
        let e = erase(
            &d,
            "/dev/sda",
            &plan,
            &AtomicBool::new(false),
            Duration::from_millis(100),
            &mut |l| lines.push(l),
        )
        .unwrap_err();
        assert_eq!(d.opcodes(), vec![SET, PREP, UNIT, DIS]);
        let m = format!("{e:#}");
        assert!(m.contains("no answer to ATA command 0xf4"), "{m}");
        assert!(m.contains("\"slccache\" was cleared"), "{m}");
        // Progress was shown while it waited.
        assert!(
            lines.iter().any(|l| l.starts_with("secure erase: ")),
            "{lines:?}"
        );
    }

    #[test]
    fn an_interrupt_before_the_erase_clears_the_password() {
        let d = FakeDrive::new(&[]);
        let e = erase(
            &d,
            "/dev/sda",
            &plan_of(&samsung_identify()),
            &AtomicBool::new(true),
            Duration::from_secs(10),
            &mut |_| {},
        )
        .unwrap_err();
        assert_eq!(d.opcodes(), vec![SET, DIS]);
        assert!(e.downcast_ref::<InterruptedEarly>().is_some(), "{e:#}");
        assert!(format!("{e:#}").contains("\"slccache\" was cleared"));
        // A drive that still says enabled after the erase has its password cleared.
        let d = FakeDrive::new(&[]);
        let mut p = samsung_identify();
        set_word(&mut p, 128, 0x0023);
        seal(&mut p);
        *d.identify.lock().unwrap() = p;
        erase(
            &d,
            "/dev/sda",
            &plan_of(&samsung_identify()),
            &AtomicBool::new(false),
            Duration::from_secs(10),
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(d.opcodes(), vec![SET, PREP, UNIT, ID, DIS]);
    }

    #[test]
    fn refusals_before_anything_is_sent() {
        let ok = parse_identify(&samsung_identify()).unwrap();
        let refused = |id: &AtaIdentify, usb: bool, part: bool| {
            let e = check("/dev/sda", id, usb, part).unwrap_err();
            assert_eq!(crate::error::exit_code(&e), 2, "{e:#}");
            format!("{e:#}")
        };
        let with = |w128: u16| {
            let mut p = samsung_identify();
            set_word(&mut p, 128, w128);
            seal(&mut p);
            parse_identify(&p).unwrap()
        };
        assert!(refused(&with(0), false, false).contains("no ATA Security feature set"));
        let m = refused(&with(0x0009), false, false);
        assert!(m.contains("security frozen"), "{m}");
        assert!(
            m.contains("suspend and resume") && m.contains("hot-plug"),
            "{m}"
        );
        assert!(refused(&with(0x0003), false, false).contains("already has security enabled"));
        assert!(refused(&with(0x0007), false, false).contains("is LOCKED"));
        assert!(refused(&ok, true, false).contains("behind a USB bridge"));
        assert!(refused(&ok, false, true).contains("is a partition"));
        check("/dev/sda", &ok, false, false).unwrap();
    }
}
