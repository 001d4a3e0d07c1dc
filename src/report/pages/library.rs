//! The library page (`slccache runs --html DIR`): one self-contained `index.html` listing every
//! recorded run with a sparkline of its throughput, filters by drive and host, and a link to
//! each run's own report.html. Offline by construction, like report.html: a CSP that forbids
//! every load, inline style and script only.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::report::pages::html::esc;

/// One run on the page (plain data, filled in by the command).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LibraryEntry {
    /// Run id.
    pub id: i64,
    /// Date shown.
    pub date: String,
    /// Drive name.
    pub drive: String,
    /// The drive as the drive filter offers it: the same for every run of one drive, as
    /// `runs --by drive` and `history` take one (`store::drive`), so that emulated drives of
    /// one preset with other options are not one choice.
    pub drive_filter: String,
    /// Serial, or "-".
    pub serial: String,
    /// Host, or "-".
    pub host: String,
    /// What ran.
    pub kind: String,
    /// The workload in a few words (`randwrite 4K QD32`), or "-".
    pub workload: String,
    /// Cache size text.
    pub cache: String,
    /// In-cache rate text.
    pub in_rate: String,
    /// After-cache rate text.
    pub after_rate: String,
    /// Throughput samples for the sparkline (any unit; drawn scaled to their maximum).
    pub spark: Vec<f64>,
    /// The run's report.html, relative to the page.
    pub link: Option<String>,
    /// Where there is no link: the outputs the stored run lacks (`report.html`, `charts`),
    /// which its cell names.
    pub lacks: Vec<String>,
}

/// At most this many points per sparkline (means over equal runs of samples).
pub const SPARK_POINTS: usize = 120;

/// `samples` reduced to at most [`SPARK_POINTS`] means, in order.
pub fn spark_points(samples: &[f64]) -> Vec<f64> {
    if samples.len() <= SPARK_POINTS {
        return samples.to_vec();
    }
    (0..SPARK_POINTS)
        .map(|i| {
            let a = i * samples.len() / SPARK_POINTS;
            let b = ((i + 1) * samples.len() / SPARK_POINTS).max(a + 1);
            samples[a..b].iter().sum::<f64>() / (b - a) as f64
        })
        .collect()
}

/// An inline SVG polyline of `v`, 160x28 pixels, scaled to its maximum.
pub fn sparkline_svg(v: &[f64]) -> String {
    let (w, h) = (160.0, 28.0);
    let max = v.iter().copied().fold(0.0, f64::max);
    if v.len() < 2 || max <= 0.0 {
        return String::new();
    }
    let pts: Vec<String> = v
        .iter()
        .enumerate()
        .map(|(i, y)| {
            format!(
                "{:.1},{:.1}",
                i as f64 * w / (v.len() - 1) as f64,
                h - 1.0 - (y / max) * (h - 2.0)
            )
        })
        .collect();
    format!(
        "<svg class=\"spark\" xmlns=\"http://www.w3.org/2000/svg\" width=\"160\" height=\"28\" \
         viewBox=\"0 0 160 28\"><polyline fill=\"none\" stroke=\"#D55E00\" stroke-width=\"1.5\" \
         points=\"{}\"/></svg>",
        pts.join(" ")
    )
}

/// A cell's text, escaped, with a figure kept on one line with what follows it: the space
/// after a digit is a no-break space (`22.0 GB`, `554 MB/s`, `2026-12-04 18:59`), so that a
/// narrow column breaks a long cell between words, never inside a figure.
fn cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut after_digit = false;
    for ch in text.chars() {
        if ch == ' ' && after_digit {
            out.push('\u{a0}');
        } else {
            out.push(ch);
        }
        after_digit = ch.is_ascii_digit();
    }
    esc(&out)
}

fn options(values: &mut Vec<String>) -> String {
    values.sort();
    values.dedup();
    values
        .iter()
        .map(|v| format!("<option value=\"{0}\">{0}</option>", esc(v)))
        .collect()
}

/// The page's HTML.
pub fn library_html(entries: &[LibraryEntry], store: &str) -> String {
    let mut h = String::new();
    h.push_str(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n",
    );
    h.push_str(PAGE_TITLE);
    h.push_str(
        "\n<style>\n\
body{font-family:sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse}\
td,th{padding:3px 8px;border-bottom:1px solid #ddd;text-align:left;overflow-wrap:break-word}\
th{background:#f3f3f3}td.num{text-align:right}td.num,td.date{white-space:nowrap}\
.spark{vertical-align:middle}\
tr.hidden{display:none}label{margin-right:1.5em}select{max-width:24em}\
td.wrap{overflow-wrap:anywhere}td.wide{min-width:8em}\
.table{overflow-x:auto;max-width:100%}\n</style></head><body>\n",
    );
    let _ = writeln!(
        h,
        "<h1>slccache results library</h1>\n<p>{} in {}</p>",
        crate::units::count_text(entries.len(), "run", "runs"),
        esc(store)
    );
    let mut drives: Vec<String> = entries.iter().map(|e| e.drive_filter.clone()).collect();
    let mut hosts: Vec<String> = entries.iter().map(|e| e.host.clone()).collect();
    let _ = writeln!(
        h,
        "<p><label>drive <select id=\"f-drive\"><option value=\"\">all</option>{}</select></label>\
<label>host <select id=\"f-host\"><option value=\"\">all</option>{}</select></label>\
<span id=\"shown\"></span></p>",
        options(&mut drives),
        options(&mut hosts)
    );
    h.push_str(
        "<div class=\"table\"><table id=\"runs\"><thead><tr><th>id</th><th>date</th><th>drive</th><th>serial</th>\
<th>host</th><th>ran</th><th>workload</th><th>cache (95% interval)</th><th>in cache</th><th>after cache</th>\
<th>throughput</th><th>report</th></tr></thead><tbody>\n",
    );
    for e in entries {
        let link = match &e.link {
            Some(l) => format!("<a href=\"{}\">report.html</a>", esc(l)),
            None if !e.lacks.is_empty() => cell(&format!("not stored: {}", e.lacks.join(", "))),
            None => "-".into(),
        };
        let _ = writeln!(
            h,
            "<tr data-drive=\"{}\" data-host=\"{}\"><td class=\"num\">{}</td><td class=\"date\">{}</td>\
<td class=\"wrap wide\">{}</td><td class=\"wrap\">{}</td><td class=\"wrap\">{}</td><td>{}</td><td>{}</td>\
<td class=\"wide\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&e.drive_filter),
            esc(&e.host),
            e.id,
            cell(&e.date),
            cell(&e.drive),
            cell(&e.serial),
            cell(&e.host),
            cell(&e.kind),
            cell(&e.workload),
            cell(&e.cache),
            cell(&e.in_rate),
            cell(&e.after_rate),
            sparkline_svg(&e.spark),
            link
        );
    }
    h.push_str("</tbody></table></div>\n");
    // What the "after cache" column means, beside it.
    if entries.iter().any(|e| e.after_rate != "-") {
        let _ = writeln!(
            h,
            "<p class=\"note\">{}</p>",
            esc(&crate::detect::after_cache_definition())
        );
    }
    // Filtering, and a self-test (`#selftest`) that the browser test reads from the DOM.
    h.push_str(
        "<script>\n\
(function(){\n\
var d=document.getElementById('f-drive'),o=document.getElementById('f-host');\n\
var rows=Array.prototype.slice.call(document.querySelectorAll('#runs tbody tr'));\n\
function apply(){var n=0;rows.forEach(function(r){\n\
var ok=(!d.value||r.getAttribute('data-drive')===d.value)&&(!o.value||r.getAttribute('data-host')===o.value);\n\
r.className=ok?'':'hidden';if(ok)n++;});\n\
document.getElementById('shown').textContent=' '+n+' of '+rows.length+' shown';return n;}\n\
d.addEventListener('change',apply);o.addEventListener('change',apply);apply();\n\
if(location.hash==='#selftest'){var res=[];\n\
var all=apply();res.push('all:'+all);\n\
if(d.options.length>1){d.value=d.options[1].value;var want=rows.filter(function(r){return r.getAttribute('data-drive')===d.value;}).length;\n\
res.push('drive:'+(apply()===want&&want>0?'ok':'fail'));d.value='';}\n\
if(o.options.length>1){o.value=o.options[1].value;var wh=rows.filter(function(r){return r.getAttribute('data-host')===o.value;}).length;\n\
res.push('host:'+(apply()===wh&&wh>0?'ok':'fail'));o.value='';}\n\
res.push('reset:'+(apply()===rows.length?'ok':'fail'));\n\
document.body.setAttribute('data-selftest',res.join(' '));}\n\
document.body.setAttribute('data-ready','yes');\n\
})();\n</script>\n</body></html>\n",
    );
    h
}

/// The title of every library page, also of those earlier versions wrote: what tells
/// slccache's own `index.html` from anyone else's.
const PAGE_TITLE: &str = "<title>slccache results library</title>";

/// Whether `dir`'s `index.html` is a library page (the title within the page's first
/// kilobytes).
pub fn is_library_page(dir: &Path) -> bool {
    use std::io::Read as _;
    let Ok(f) = std::fs::File::open(dir.join("index.html")) else {
        return false;
    };
    let mut head = Vec::new();
    if f.take(4096).read_to_end(&mut head).is_err() {
        return false;
    }
    String::from_utf8_lossy(&head).contains(PAGE_TITLE)
}

/// The temporary folder, beside `dir/ID/`, that run `id` is exported into before it is
/// renamed into place.
pub fn export_temp_name(id: i64) -> String {
    format!(".{id}.partial")
}

/// The run id of a temporary export folder's name ([`export_temp_name`]).
pub fn export_temp_id(name: &str) -> Option<i64> {
    name.strip_prefix('.')?
        .strip_suffix(".partial")?
        .parse()
        .ok()
}

/// Whether `dir` is a folder `runs --html` wrote: its `index.html` is a library page, or
/// (a page cut short before its index.html was written, by an earlier version or a full
/// disk) it holds only run folders (`ID/` with a summary.json) and temporary exports.
pub fn is_library_folder(dir: &Path) -> bool {
    if is_library_page(dir) {
        return true;
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        return false;
    };
    let mut any = false;
    for e in rd {
        let Ok(e) = e else { return false };
        let name = e.file_name();
        let name = name.to_str().unwrap_or_default();
        let run_folder = name.parse::<i64>().is_ok() && e.path().join("summary.json").is_file();
        let temp = export_temp_id(name).is_some() && e.path().is_dir();
        if !(run_folder || temp) {
            return false;
        }
        any = true;
    }
    any
}

/// Writes `index.html` into `dir` (created if missing); returns its path.
pub fn write_library_html(dir: &Path, entries: &[LibraryEntry], store: &str) -> Result<PathBuf> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let p = dir.join("index.html");
    std::fs::write(&p, library_html(entries, store))
        .with_context(|| format!("writing {}", p.display()))?;
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_counts_its_runs_in_words() {
        assert!(library_html(&[], "results.db").contains("<p>0 runs in results.db</p>"));
        assert!(!library_html(&[], "x").contains("run(s)"));
    }

    #[test]
    fn sparks_keep_their_shape_in_fewer_points() {
        let v: Vec<f64> = (0..3600).map(|i| if i < 600 { 2.0 } else { 0.5 }).collect();
        let s = spark_points(&v);
        assert_eq!(s.len(), SPARK_POINTS);
        assert_eq!(s[0], 2.0);
        assert_eq!(s[SPARK_POINTS - 1], 0.5);
        assert_eq!(spark_points(&[1.0, 2.0]), [1.0, 2.0]);
        assert!(sparkline_svg(&s).contains("<polyline"));
        assert_eq!(sparkline_svg(&[1.0]), "");
    }

    #[test]
    fn a_cell_breaks_between_words_never_inside_a_figure() {
        assert_eq!(
            cell("554 MB/s (at the SATA 6.0 Gb/s link's limit)"),
            "554\u{a0}MB/s (at the SATA 6.0\u{a0}Gb/s link's limit)"
        );
        assert_eq!(cell("2026-12-04 18:59"), "2026-12-04\u{a0}18:59");
        assert_eq!(cell("<b> 1"), "&lt;b&gt; 1");
    }

    #[test]
    fn the_page_escapes_and_lists_every_run() {
        let e = LibraryEntry {
            id: 7,
            drive: "A<b>".into(),
            host: "h".into(),
            workload: "randwrite 4K QD32".into(),
            link: Some("7/report.html".into()),
            ..Default::default()
        };
        let h = library_html(&[e.clone(), LibraryEntry { id: 8, ..e }], "x.db");
        assert!(h.contains("A&lt;b&gt;") && !h.contains("A<b>"));
        assert_eq!(h.matches("<tr data-drive").count(), 2);
        assert!(h.contains("href=\"7/report.html\""));
        // The workload, as `runs` lists it, in a column of its own.
        assert!(h.contains("<th>ran</th><th>workload</th>"), "{h}");
        assert!(h.contains("<td>randwrite 4K QD32</td>"), "{h}");
    }
}
