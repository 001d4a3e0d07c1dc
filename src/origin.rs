//! Where a run came from: the host that ran it (`--host`, `SLCCACHE_HOST`, else the machine's
//! name) and the lab's tags (`--tag KEY=VALUE`: lab, rack, firmware, ticket). Every command
//! that writes a run folder puts them into its `summary.json` as `origin`, so that a folder
//! imported or copied into another store still says where it came from.
//!
//! `main` sets the origin once from the flags ([`set`]); the summary writers read it
//! ([`current`]).

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

/// `origin` in `summary.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origin {
    /// The host that ran it.
    pub host: String,
    /// The lab's tags, by key.
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
}

static CURRENT: Mutex<Option<Origin>> = Mutex::new(None);

/// Sets this process's origin (`main`, from `--host`, `SLCCACHE_HOST` and `--tag`).
pub fn set(o: Origin) {
    *CURRENT.lock().unwrap_or_else(|e| e.into_inner()) = Some(o);
}

/// This process's origin: the one [`set`], else this machine's name without tags.
pub fn current() -> Origin {
    CURRENT
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
        .unwrap_or_else(|| Origin {
            host: machine_name().unwrap_or_default(),
            tags: BTreeMap::new(),
        })
}

/// This machine's name (`uname -n`).
pub fn machine_name() -> Option<String> {
    let u = rustix::system::uname();
    let n = u.nodename().to_string_lossy().into_owned();
    (!n.is_empty()).then_some(n)
}

/// The host a run records: `--host`, else `SLCCACHE_HOST`, else the machine's name. A name
/// that is empty, longer than 255 characters or holds control characters is a usage error.
pub fn resolve_host(flag: Option<&str>, env: Option<&str>) -> anyhow::Result<String> {
    let (given, from) = match (flag, env.filter(|e| !e.trim().is_empty())) {
        (Some(f), _) => (f, "--host"),
        (None, Some(e)) => (e, "SLCCACHE_HOST"),
        (None, None) => return Ok(machine_name().unwrap_or_default()),
    };
    let name = given.trim();
    if name.is_empty() || name.chars().count() > 255 || name.chars().any(char::is_control) {
        return Err(crate::error::usage(format!(
            "{from} '{given}': give the host's name (1 to 255 characters, no control characters)"
        )));
    }
    Ok(name.to_string())
}

/// Whether `key` is a tag key: 1 to 64 ASCII letters, digits, `_`, `-` or `.`.
pub fn valid_key(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= 64
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// One `--tag KEY=VALUE`: the key checked ([`valid_key`]), the value any text without control
/// characters (empty too). A usage error otherwise.
pub fn parse_tag(s: &str) -> anyhow::Result<(String, String)> {
    let Some((k, v)) = s.split_once('=') else {
        return Err(crate::error::usage(format!(
            "--tag '{s}': give KEY=VALUE, e.g. --tag rack=r3"
        )));
    };
    let k = k.trim();
    if !valid_key(k) {
        return Err(crate::error::usage(format!(
            "--tag '{s}': the key '{k}' may hold only letters, digits, '_', '-' and '.' \
             (1 to 64 of them)"
        )));
    }
    if v.chars().any(char::is_control) {
        return Err(crate::error::usage(format!(
            "--tag '{s}': the value holds a control character"
        )));
    }
    Ok((k.to_string(), v.to_string()))
}

/// Every `--tag`, by key; a key given twice is a usage error.
pub fn parse_tags(tags: &[String]) -> anyhow::Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for t in tags {
        let (k, v) = parse_tag(t)?;
        if let Some(old) = out.insert(k.clone(), v.clone()) {
            if old != v {
                return Err(crate::error::usage(format!(
                    "--tag {k}: given twice ('{old}' and '{v}'); give each key once"
                )));
            }
        }
    }
    Ok(out)
}

/// The `origin` of a `summary.json`, if it has one (older summaries do not).
pub fn of_summary(summary: &serde_json::Value) -> Option<Origin> {
    let o = summary.get("origin")?;
    serde_json::from_value(o.clone()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_keys_are_letters_digits_and_three_marks() {
        assert_eq!(
            parse_tag("fw.rev-2_b=3B2QEXM7").unwrap(),
            ("fw.rev-2_b".into(), "3B2QEXM7".into())
        );
        assert_eq!(parse_tag("ticket=").unwrap(), ("ticket".into(), "".into()));
        assert_eq!(
            parse_tag("note=a=b c").unwrap(),
            ("note".into(), "a=b c".into())
        );
        for bad in [
            "rack", "=x", "ra ck=1", "rack/1=2", "räck=1", "a\tb=1", "k=\n",
        ] {
            let e = parse_tag(bad).unwrap_err();
            assert_eq!(crate::error::exit_code(&e), 2, "{bad}");
        }
        assert!(parse_tags(&["a=1".into(), "a=2".into()]).is_err());
        assert_eq!(parse_tags(&["a=1".into(), "a=1".into()]).unwrap().len(), 1);
    }

    #[test]
    fn the_host_comes_from_the_flag_then_the_environment() {
        assert_eq!(resolve_host(Some("b2"), Some("e")).unwrap(), "b2");
        assert_eq!(resolve_host(None, Some(" bench-3 ")).unwrap(), "bench-3");
        assert_eq!(
            resolve_host(None, Some("")).unwrap(),
            machine_name().unwrap_or_default()
        );
        assert!(resolve_host(Some(" "), None).is_err());
        assert!(resolve_host(None, Some("a\nb")).is_err());
    }
}
