//! The link between the host and the drive, and the rate it lets through: a SATA drive's
//! in-cache rate is often the 6 Gb/s link's ceiling, not its cache's, and a USB bridge or a
//! narrow PCIe link caps a drive the same way. When the rate in the cache is within
//! [`NEAR`] of the link's usable rate, the outputs say the cache phase is limited by the
//! link ([`Link::limited_text`]).
//!
//! Usable rates, each below the raw rate after line coding:
//! - SATA 1.5, 3 and 6 Gb/s use 8b/10b coding: 150, 300 and 600 MB/s raw. Frame (FIS)
//!   headers, CRCs, primitives between frames and the command handshakes take the rest:
//!   the fastest SATA SSDs measure 550-560 MB/s sequential (Samsung rates its 860 and 870
//!   EVO at 550 MB/s sequential write and 560 MB/s read, the 6 Gb/s link's limit). The
//!   usable rate taken here is 93 % of raw: 558, 279 and 139.5 MB/s.
//! - USB (the speed sysfs reports for the bridge, Mb/s): 480 Mb/s (USB 2.0) carries at most
//!   about 40 MB/s of mass storage (bulk transfers and the BOT protocol: 35-42 MB/s measured
//!   by reviewers); 5000 Mb/s (USB 3.x Gen 1, 8b/10b, 500 MB/s raw) about 450 MB/s with UASP;
//!   10000 Mb/s (Gen 2, 128b/132b, 1212 MB/s raw) about 1050 MB/s; 20000 Mb/s (Gen 2x2)
//!   about 2100 MB/s. Those usable figures are the fastest portable SSDs' published results
//!   on each link, not a calculation.
//! - PCIe: per lane, 2.5 and 5 GT/s with 8b/10b (250 and 500 MB/s raw), 8, 16 and 32 GT/s
//!   with 128b/130b (985, 1969, 3938 MB/s raw); packet headers take about 14 % at the usual
//!   256-byte payloads (a PCIe 3.0 x4 drive tops out near 3.5 GB/s of 3.94): 86 % of raw.

use serde::{Deserialize, Serialize};

use crate::units::{format_rate, UnitSystem};

/// How near the link's usable rate the in-cache rate must be for the cache phase to count as
/// limited by the link: 94 %, within 6 % of it (a SATA drive writing 525 MB/s or more).
pub const NEAR: f64 = 0.94;

/// How near the link's usable rate a run with no cliff must be for the link to hide where a
/// cache would run out: 85 %. The usable rates are the fastest results seen on each link; a
/// bridge or controller of its own can carry 10-15 % less (USB 3 bridges without UASP write
/// 380-420 MB/s of the 450 taken here), so a run with no cliff this near the link may have
/// met the link's ceiling before and after a cache ran out.
pub const HIDES_NEAR: f64 = 0.85;

/// What an emulated drive on a SATA or USB link says of its counters (`info`, report.md): the
/// emulator keeps them in NVMe's form whatever the link.
pub const EMULATED_COUNTERS_NOTE: &str = "the emulated drive keeps its counters as an NVMe \
     drive's SMART / Health log, whatever its link; an ATA drive's SMART attributes are not \
     emulated";

/// What `info` says of an emulated drive's counters: they are the run's, not the drive's.
pub const EMULATED_COUNTERS_FROM_ZERO: &str = "an emulated drive's counters start from zero on \
     each run: they count that run's writes, not the drive's wear";

/// The first words of the warning that says a run was limited by its link; the card shows
/// the warning up to its colon.
pub const LIMITED_PREFIX: &str = "cache phase limited by the";

/// A link and the rate it lets through.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Link {
    /// What the link is: "SATA 6.0 Gb/s", "USB 5000 Mb/s", "PCIe x4 at 8.0 GT/s".
    pub name: String,
    /// Its rate after line coding, bytes/s.
    pub raw_bytes_per_sec: f64,
    /// The rate data can reach over it, bytes/s (see the module's notes).
    pub usable_bytes_per_sec: f64,
}

const MB: f64 = 1e6;

impl Link {
    /// Whether this is a PCIe link (an NVMe drive's own, or a controller's), not the SATA
    /// or USB link of a drive that speaks ATA.
    pub fn is_pcie(&self) -> bool {
        self.name.starts_with("PCIe")
    }

    /// A SATA link of `gbps` (1.5, 3 or 6).
    pub fn sata(gbps: f64) -> Option<Link> {
        if !(gbps.is_finite() && gbps > 0.0) {
            return None;
        }
        let raw = gbps * 1e9 * 0.8 / 8.0;
        Some(Link {
            name: format!("SATA {gbps:.1} Gb/s"),
            raw_bytes_per_sec: raw,
            usable_bytes_per_sec: raw * 0.93,
        })
    }

    /// A USB link that sysfs says runs at `mbps`.
    pub fn usb(mbps: u32) -> Option<Link> {
        let (raw, usable) = match mbps {
            0 => return None,
            m if m <= 12 => (1.5 * MB, 1.0 * MB),
            m if m <= 480 => (60.0 * MB, 40.0 * MB),
            m if m <= 5000 => (500.0 * MB, 450.0 * MB),
            m if m <= 10000 => (1212.0 * MB, 1050.0 * MB),
            _ => (2424.0 * MB, 2100.0 * MB),
        };
        Some(Link {
            name: format!("USB {mbps} Mb/s"),
            raw_bytes_per_sec: raw,
            usable_bytes_per_sec: usable,
        })
    }

    /// A PCIe link of `width` lanes at `gt_s` GT/s.
    pub fn pcie(gt_s: f64, width: u32) -> Option<Link> {
        if !(gt_s.is_finite() && gt_s > 0.0) || width == 0 {
            return None;
        }
        let coding = if gt_s < 8.0 { 0.8 } else { 128.0 / 130.0 };
        let raw = gt_s * 1e9 * coding / 8.0 * width as f64;
        Some(Link {
            name: format!("PCIe x{width} at {gt_s:.1} GT/s"),
            raw_bytes_per_sec: raw,
            usable_bytes_per_sec: raw * 0.86,
        })
    }

    /// A link named as a drive model file names it: `sata-6g`, `sata-3g`, `sata-1.5g`,
    /// `usb-480m`, `usb-5g`, `usb-10g`, `usb-20g`, `pcie3x4` (generation 1 to 5, a width of
    /// 1, 2, 4, 8 or 16 lanes: the widths PCIe has).
    pub fn parse(spec: &str) -> Result<Link, String> {
        let s = spec.trim().to_ascii_lowercase();
        let bad = || {
            format!(
                "link '{spec}': give sata-6g, sata-3g, sata-1.5g, usb-480m, usb-5g, usb-10g, \
                 usb-20g or pcieGxW (generation G 1 to 5, width W 1, 2, 4, 8 or 16: e.g. \
                 pcie3x4)"
            )
        };
        if let Some(g) = s.strip_prefix("sata-").and_then(|r| r.strip_suffix('g')) {
            return match g {
                "6" | "1.5" | "3" => Link::sata(g.parse().map_err(|_| bad())?).ok_or_else(bad),
                _ => Err(bad()),
            };
        }
        if let Some(r) = s.strip_prefix("usb-") {
            let mbps = match r {
                "480m" => 480,
                "5g" => 5000,
                "10g" => 10000,
                "20g" => 20000,
                _ => return Err(bad()),
            };
            return Link::usb(mbps).ok_or_else(bad);
        }
        if let Some((g, w)) = s.strip_prefix("pcie").and_then(|r| r.split_once('x')) {
            let gt = match g {
                "1" => 2.5,
                "2" => 5.0,
                "3" => 8.0,
                "4" => 16.0,
                "5" => 32.0,
                _ => return Err(bad()),
            };
            let w: u32 = w.parse().map_err(|_| bad())?;
            if ![1, 2, 4, 8, 16].contains(&w) {
                return Err(bad());
            }
            return Link::pcie(gt, w).ok_or_else(bad);
        }
        Err(bad())
    }

    /// Whether an in-cache rate of `bytes_per_sec` is limited by this link: within
    /// [`NEAR`] of its usable rate, or above it.
    pub fn limits(&self, bytes_per_sec: f64) -> bool {
        bytes_per_sec >= NEAR * self.usable_bytes_per_sec
    }

    /// Whether a run with no cliff at `bytes_per_sec` is near enough this link's ceiling
    /// ([`HIDES_NEAR`]) that the link may hide where its cache ran out.
    pub fn may_hide(&self, bytes_per_sec: f64) -> bool {
        bytes_per_sec >= HIDES_NEAR * self.usable_bytes_per_sec
    }

    /// The warning for a run with no cliff that this link may hide ([`Link::may_hide`]), or
    /// None.
    pub fn hiding_text(&self, bytes_per_sec: f64, units: UnitSystem) -> Option<String> {
        self.may_hide(bytes_per_sec).then(|| {
            format!(
                "no cliff seen through the {} link: the run wrote at {}, {:.0}% of the link's \
                 usable {} ({} raw); a drive that writes faster than this link both in its \
                 cache and after it shows no cliff, so the run says nothing of the cache",
                self.name,
                format_rate(bytes_per_sec, units),
                100.0 * bytes_per_sec / self.usable_bytes_per_sec,
                format_rate(self.usable_bytes_per_sec, units),
                format_rate(self.raw_bytes_per_sec, units)
            )
        })
    }

    /// The warning for an in-cache rate this link limits, or None.
    pub fn limited_text(&self, bytes_per_sec: f64, units: UnitSystem) -> Option<String> {
        self.limits(bytes_per_sec).then(|| {
            format!(
                "{LIMITED_PREFIX} {} link, perhaps not by the drive: {} in the cache against the \
                 link's usable {} ({} raw); the drive's cache may write faster than this link \
                 shows",
                self.name,
                format_rate(bytes_per_sec, units),
                format_rate(self.usable_bytes_per_sec, units),
                format_rate(self.raw_bytes_per_sec, units)
            )
        })
    }
}

/// The warning for a run whose rate in the cache (else its one steady level, for a run that
/// never left the cache) is `rate` on `link`, where the link limits it.
pub fn warning(
    link: Option<&Link>,
    rate: Option<f64>,
    units: UnitSystem,
) -> Option<crate::detect::Warning> {
    let link = link?;
    let text = link.limited_text(rate?, units)?;
    let kind = crate::detect::WarningKind::LinkLimited {
        link: link.name.clone(),
    };
    Some(crate::detect::Warning::new(kind, text))
}

/// The narrowest of `links`: the one with the lowest usable rate.
pub fn narrowest(links: impl IntoIterator<Item = Link>) -> Option<Link> {
    links
        .into_iter()
        .min_by(|a, b| a.usable_bytes_per_sec.total_cmp(&b.usable_bytes_per_sec))
}

/// Where `link` limits the rate in the cache `rate`: its warning on `a`, and the link's name
/// in [`Analysis::link_limited`](crate::detect::Analysis::link_limited), which the card reads.
pub fn note(
    a: &mut crate::detect::Analysis,
    link: Option<&Link>,
    rate: Option<f64>,
    units: UnitSystem,
) {
    // A short dip at the very end, after a run at the link's ceiling, is no cliff either:
    // through the link it bounds nothing (its "the cache is at least" spoke of the link), so
    // it goes, and the link's warning tells of it.
    let end_dip = a
        .unconfirmed_drop
        .as_ref()
        .filter(|d| {
            d.at == crate::detect::DropWhere::End
                && a.cliffs.is_empty()
                && !a.read_only
                && link.is_some_and(|l| {
                    l.may_hide(d.before_bytes_per_sec) && rate.is_some_and(|r| l.may_hide(r))
                })
        })
        .cloned();
    if end_dip.is_some() {
        a.unconfirmed_drop = None;
        a.warnings
            .retain(|w| w.kind != crate::detect::WarningKind::UnconfirmedDrop);
    }
    let no_cliff = a.cliffs.is_empty() && a.unconfirmed_drop.is_none() && !a.read_only;
    // No cliff near the link's ceiling: the link may hide where a cache ran out, and there is
    // no cache phase to speak of ("cache phase limited by the link" said there was one).
    let hidden = || {
        let (link, rate) = (link?, rate?);
        let mut text = link.hiding_text(rate, units).filter(|_| no_cliff)?;
        if let Some(d) = &end_dip {
            text.push_str(&format!(
                "; the rate fell from {} to {} in the last {:.1} s, too short to tell from a pause",
                format_rate(d.before_bytes_per_sec, units),
                format_rate(d.after_bytes_per_sec, units),
                d.after_s
            ));
        }
        let kind = crate::detect::WarningKind::LinkLimited {
            link: link.name.clone(),
        };
        Some(crate::detect::Warning::new(kind, text))
    };
    let w = if no_cliff {
        hidden()
    } else {
        warning(link, rate, units)
    };
    if let Some(w) = w {
        if let crate::detect::WarningKind::LinkLimited { link } = &w.kind {
            a.link_limited = Some(link.clone());
        }
        // No cliff, and the whole run at the link's limit: the link hides where a cache
        // would run out, so the run bounds nothing ("no cache, or one larger than" would be
        // said of the link, not of the drive).
        if no_cliff {
            a.cache_lower_bound_bytes = None;
            a.warnings
                .retain(|w| !matches!(w.kind, crate::detect::WarningKind::NoCliff { .. }));
        }
        a.warnings.push(w);
    }
}

/// [`note`] at the rate the findings of `a` give: the rate in the cache, else the run's one
/// steady level. probe, simulate, analyze and compare all call it, so that a run analysed
/// again says of the link what its own run said.
pub fn note_findings(a: &mut crate::detect::Analysis, link: Option<&Link>, units: UnitSystem) {
    let f = crate::detect::Findings::of(a);
    note(
        a,
        link,
        f.in_cache_bytes_per_sec.or(f.level_bytes_per_sec),
        units,
    );
}

/// The card's short form of the link finding: "cache phase limited by the SATA 6.0 Gb/s link,
/// not by the drive".
pub fn card_text(link: &str) -> String {
    format!("{LIMITED_PREFIX} {link} link, perhaps not by the drive")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sata_usb_and_pcie_rates() {
        let s6 = Link::sata(6.0).unwrap();
        assert_eq!(s6.raw_bytes_per_sec, 600e6);
        assert!((s6.usable_bytes_per_sec - 558e6).abs() < 1.0);
        assert!((Link::sata(3.0).unwrap().usable_bytes_per_sec - 279e6).abs() < 1.0);
        assert_eq!(Link::sata(1.5).unwrap().raw_bytes_per_sec, 150e6);
        assert_eq!(Link::usb(5000).unwrap().usable_bytes_per_sec, 450e6);
        assert_eq!(Link::usb(0), None);
        let p = Link::pcie(8.0, 4).unwrap();
        assert!((p.raw_bytes_per_sec - 3_938_461_538.0).abs() < 1.0);
        assert_eq!(p.name, "PCIe x4 at 8.0 GT/s");
        assert_eq!(Link::parse("sata-6g").unwrap(), s6);
        assert_eq!(Link::parse("PCIe3x4").unwrap(), p);
        assert_eq!(Link::parse("usb-10g").unwrap().name, "USB 10000 Mb/s");
        for bad in [
            "sata-12g", "usb", "pcie6x4", "pcie3x0", "pcie3x3", "pcie4x32", "fast",
        ] {
            assert!(Link::parse(bad).is_err(), "{bad}");
        }
        let n = narrowest([p, Link::usb(5000).unwrap(), s6.clone()]).unwrap();
        assert_eq!(n.name, "USB 5000 Mb/s");
    }

    #[test]
    fn within_a_few_percent_of_the_usable_rate_is_limited() {
        let s6 = Link::sata(6.0).unwrap();
        // 545 MB/s is 97.7 % of 558: limited. 480 MB/s (86 %) is the drive's own.
        let w = s6.limited_text(545e6, UnitSystem::Decimal).unwrap();
        assert!(
            w.starts_with(
                "cache phase limited by the SATA 6.0 Gb/s link, perhaps not by the drive: "
            ),
            "{w}"
        );
        assert!(
            w.contains("545 MB/s in the cache against the link's usable 558 MB/s"),
            "{w}"
        );
        let typed = warning(Some(&s6), Some(545e6), UnitSystem::Decimal).unwrap();
        assert_eq!(typed.text, w);
        assert_eq!(
            typed.kind,
            crate::detect::WarningKind::LinkLimited {
                link: "SATA 6.0 Gb/s".into()
            }
        );
        assert_eq!(
            card_text("SATA 6.0 Gb/s"),
            "cache phase limited by the SATA 6.0 Gb/s link, perhaps not by the drive"
        );
        assert_eq!(s6.limited_text(480e6, UnitSystem::Decimal), None);
        assert!(s6.limits(0.94 * 558e6) && !s6.limits(0.93 * 558e6));
    }

    /// A USB 5 Gb/s run with no cliff at 93.5 % of the link's usable rate (an emulated
    /// portable drive with a 1 GB cache, 3 GB written) said "no cache, or one larger than
    /// 3.00 GB": under the 94 % rule for a cache phase, the link still hides the cliff.
    #[test]
    fn no_cliff_near_the_link_bounds_no_cache() {
        use crate::timeline::{RunMeta, Timeline};
        let run = |rates: &[f64]| {
            let pts: Vec<(f64, f64, f64)> = rates
                .iter()
                .enumerate()
                .map(|(i, &r)| ((i + 1) as f64, 1.0, r))
                .collect();
            crate::detect::analyze(&Timeline::from_rates(&pts, RunMeta::default()))
        };
        let usb = Link::usb(5000).unwrap();
        let mut a = run(&[0.935 * 450e6; 30]);
        assert!(a.cliffs.is_empty() && a.cache_lower_bound_bytes.is_some());
        note_findings(&mut a, Some(&usb), UnitSystem::Decimal);
        assert_eq!(a.link_limited.as_deref(), Some("USB 5000 Mb/s"));
        assert_eq!(a.cache_lower_bound_bytes, None);
        let w = &a.warnings.last().unwrap().text;
        assert!(
            w.contains(
                "no cliff seen through the USB 5000 Mb/s link: the run wrote at 421 MB/s, 94% of \
                 the link's usable 450 MB/s"
            ),
            "{w}"
        );
        assert!(matches!(
            crate::detect::Findings::of(&a).cache,
            crate::detect::findings::Cache::HiddenByLink { .. }
        ));
        // A short dip at the very end of such a run (a pause of the drive's in the last 1.5 s
        // of a 4 TB run through a SATA 3 Gb/s link) said "too short to confirm ... the cache
        // is at least 4.00 TB" beside "cache phase limited by the link": the link hides the
        // cache all the same, and its warning tells of the dip.
        let s3 = Link::sata(3.0).unwrap();
        let mut rates = vec![276e6; 30];
        rates.extend([225e6, 225e6]);
        let mut e = run(&rates);
        assert!(
            e.unconfirmed_drop
                .as_ref()
                .is_some_and(|d| d.at == crate::detect::DropWhere::End),
            "{:?}",
            e.unconfirmed_drop
        );
        note_findings(&mut e, Some(&s3), UnitSystem::Decimal);
        assert!(matches!(
            crate::detect::Findings::of(&e).cache,
            crate::detect::findings::Cache::HiddenByLink { .. }
        ));
        assert_eq!(
            (e.cache_lower_bound_bytes, &e.unconfirmed_drop),
            (None, &None)
        );
        let texts: Vec<&str> = e.warnings.iter().map(|w| w.text.as_str()).collect();
        assert!(!texts.iter().any(|w| w.contains("at least")), "{texts:?}");
        assert!(
            texts.iter().any(
                |w| w.starts_with("no cliff seen through the SATA 3.0 Gb/s link")
                    && w.ends_with(
                        "the rate fell from 276 MB/s to 225 MB/s in the last 2.0 s, too \
                                short to tell from a pause"
                    )
            ),
            "{texts:?}"
        );
        // Far under the link (70 %), no cliff is the drive's: the bound stands.
        let mut b = run(&[0.70 * 450e6; 30]);
        let bound = b.cache_lower_bound_bytes;
        note_findings(&mut b, Some(&usb), UnitSystem::Decimal);
        assert_eq!(b.link_limited, None);
        assert_eq!(b.cache_lower_bound_bytes, bound);
        // With a cliff, 90 % of the link in the cache says nothing: that rule is 94 %.
        let mut rates = vec![0.90 * 450e6; 15];
        rates.extend([100e6; 30]);
        let mut c = run(&rates);
        assert_eq!(c.cliffs.len(), 1);
        let n = c.warnings.len();
        note_findings(&mut c, Some(&usb), UnitSystem::Decimal);
        assert_eq!(c.link_limited, None);
        assert_eq!(c.warnings.len(), n);
    }
}
