//! `--secure-erase`: before the run, the whole NVMe namespace is erased with Format NVM and
//! Secure Erase Settings 1 (user data erase), keeping its LBA format, metadata and protection
//! settings. On a real drive this empties the SLC cache and the mapping tables, a stronger
//! known state than a discard.
//!
//! The checks come first, before anything is written ([`plan`]): the target must be an NVMe
//! namespace itself (not a partition: the whole namespace is erased), the controller must
//! support Format NVM (OACS bit 1), and where the controller formats or erases all its
//! namespaces together (FNA bits 0 and 1) it must have no other namespace. Offsets: NVMe Base
//! Specification 2.0, Identify Controller (Figure 275: OACS bytes 257:256, FNA byte 524) and
//! Format NVM (section 5.14, Figure 188: CDW10); NVM Command Set 1.0, Identify Namespace
//! (Figure 97: FLBAS byte 26, DPS byte 29).

use std::time::Instant;

use anyhow::{anyhow, Result};

use super::nvme::controller_namespaces;
use super::{refuse, TargetInfo, TargetKind};
use crate::error::usage;

/// What the format will send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormatPlan {
    /// The namespace.
    pub nsid: u32,
    /// Command Dword 10 of Format NVM.
    pub cdw10: u32,
    /// The LBA format kept.
    pub lbaf: u8,
}

/// Format NVM's CDW10 that keeps the namespace's format (FLBAS, DPS from Identify Namespace)
/// and asks for a user data erase: LBAF bits 3:0 and 13:12, MSET bit 4, PI bits 7:5, PIL bit
/// 8, SES bits 11:9 = 001b.
pub fn format_cdw10(flbas: u8, dps: u8) -> (u32, u8) {
    let lbaf = (flbas & 0x0F) | (((flbas >> 5) & 0x03) << 4);
    let cdw10 = (lbaf as u32 & 0x0F)
        | (((flbas >> 4) & 1) as u32) << 4
        | ((dps & 0x07) as u32) << 5
        | (((dps >> 3) & 1) as u32) << 8
        | 1 << 9
        | ((lbaf as u32 >> 4) & 0x03) << 12;
    (cdw10, lbaf)
}

/// The refusal for a controller that formats (FNA bit 0) or securely erases (FNA bit 1) all
/// its namespaces together, where it has more than one: all of them would be erased. `fna` is
/// Identify Controller byte 524, `namespaces` the controller's namespaces. Pure.
///
/// QEMU's controller (hw/nvme, 7.2) clears both bits and has no property to set them, so
/// this refusal is tested here on canned pages, not in a guest.
pub fn check_namespaces(spec: &str, fna: u8, namespaces: &[String]) -> Result<()> {
    if fna & 0x3 != 0 && namespaces.len() > 1 {
        return Err(refuse(
            spec,
            format!(
                "--secure-erase: this controller formats all its namespaces together (FNA \
                 {fna:#04x}), and it has {} ({}): all of them would be erased",
                namespaces.len(),
                namespaces.join(", ")
            ),
        ));
    }
    Ok(())
}

/// Checks that `--secure-erase` may run on `info`, and what it will send. Usage errors and
/// refusals, before anything is written.
pub fn plan(info: &TargetInfo) -> Result<FormatPlan> {
    let flag = "--secure-erase";
    let spec = &info.spec;
    let Some(nvme) = info
        .nvme
        .as_ref()
        .filter(|_| info.kind == TargetKind::Block)
    else {
        return Err(usage(format!(
            "{flag} formats an NVMe namespace (Format NVM) or erases an ATA drive (SECURITY \
             ERASE UNIT); {spec} is neither (use --trim)"
        )));
    };
    let dev = info
        .dev
        .ok_or_else(|| anyhow!("{spec}: no device number"))?;
    if super::sysfs::sys_dir(dev).is_some_and(|d| d.join("partition").exists()) {
        return Err(refuse(
            spec,
            format!(
                "{flag} erases the whole namespace, and {spec} is a partition of it; give \
                 the namespace, or use --trim"
            ),
        ));
    }
    let id = nvme
        .identify_controller_page()
        .map_err(|e| anyhow!("{flag}: Identify Controller on {spec}: {e}"))?;
    let oacs = u16::from_le_bytes([id[256], id[257]]);
    if oacs & 0x2 == 0 {
        return Err(usage(format!(
            "{flag}: the controller of {spec} does not support Format NVM (OACS bit 1); use \
             --trim"
        )));
    }
    check_namespaces(spec, id[524], &controller_namespaces(dev))?;
    let nsid = nvme
        .namespace_id()
        .map_err(|e| anyhow!("{flag}: the namespace ID of {spec}: {e}"))?;
    let ns = nvme
        .identify_namespace_page(nsid)
        .map_err(|e| anyhow!("{flag}: Identify Namespace on {spec}: {e}"))?;
    let (cdw10, lbaf) = format_cdw10(ns[26], ns[29]);
    Ok(FormatPlan { nsid, cdw10, lbaf })
}

/// Sends the format and waits for it (up to an hour: a drive may take minutes). Returns what
/// was done, for the record.
pub fn run(info: &TargetInfo, plan: &FormatPlan) -> Result<String> {
    let nvme = info
        .nvme
        .as_ref()
        .ok_or_else(|| anyhow!("{}: not an NVMe namespace", info.spec))?;
    let t = Instant::now();
    nvme.format_nvm(plan.nsid, plan.cdw10)
        .map_err(|e| anyhow!("--secure-erase: Format NVM on {}: {e}", info.spec))?;
    Ok(format!(
        "Format NVM with user data erase (SES=1) of namespace {}, LBA format {} kept, in {:.1} s",
        plan.nsid,
        plan.lbaf,
        t.elapsed().as_secs_f64()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_controller_that_formats_all_namespaces_together_is_refused_with_two() {
        let two = vec!["nvme0n1".to_string(), "nvme0n2".to_string()];
        let one = vec!["nvme0n1".to_string()];
        // FNA from a canned Identify Controller page, bit 0 (format) or bit 1 (erase).
        for fna in [0x01u8, 0x02, 0x03] {
            let mut page = crate::device::nvme::tests::identify_page();
            page[524] = fna;
            let id = crate::device::nvme::parse_identify_controller(&page).unwrap();
            assert!(id.format_all_namespaces || id.secure_erase_all_namespaces);
            let e = check_namespaces("/dev/nvme0n1", page[524], &two).unwrap_err();
            assert_eq!(crate::error::exit_code(&e), 1);
            let m = format!("{e:#}");
            assert!(
                m.contains(&format!(
                    "formats all its namespaces together (FNA {fna:#04x}), and it has 2 \
                     (nvme0n1, nvme0n2): all of them would be erased"
                )),
                "{m}"
            );
            // With one namespace there is nothing else to erase.
            check_namespaces("/dev/nvme0n1", page[524], &one).unwrap();
        }
        // QEMU's controller: FNA 0, one namespace at a time.
        let id = crate::device::nvme::parse_identify_controller(
            &crate::device::nvme::tests::identify_page(),
        )
        .unwrap();
        assert!(!id.format_all_namespaces && !id.secure_erase_all_namespaces);
        check_namespaces("/dev/nvme0n1", 0, &two).unwrap();
        // Bit 2 (cryptographic erase supported) alone changes nothing.
        check_namespaces("/dev/nvme0n1", 0x04, &two).unwrap();
    }

    #[test]
    fn cdw10_keeps_the_format_and_asks_for_a_user_data_erase() {
        // Format 4, no metadata, no protection: LBAF 4, SES 1.
        assert_eq!(format_cdw10(0x04, 0), (0x0204, 4));
        // Format 1 with extended metadata (MSET), PI type 1 in the first bytes (PIL).
        assert_eq!(
            format_cdw10(0x11, 0x09),
            (0x0200 | 0x01 | 0x10 | 0x20 | 0x100, 1)
        );
        // Format 17 (FLBAS bits 6:5 = 01b, bits 3:0 = 0001b): CDW10 bits 13:12 = 01b.
        assert_eq!(format_cdw10(0x21, 0), (0x1201, 17));
    }
}
