//! A table of text cells fitted to a terminal's width: steps that leave out the less
//! important columns, put shorter forms of a column's cells in, or narrow a column (its cells
//! cut with "…"; what follows a cell's qualifier, where it cannot stay whole, as a numbered
//! mark said under the table), taken in order until the table fits. Every line then fits, or
//! the steps ran out; a last line names what was left out.

/// One way to make the table narrower.
#[derive(Clone)]
pub enum Step {
    /// Leave out the column.
    Drop(usize),
    /// Give the column these cells (a shorter form of each, one per row) and its header.
    Short(usize, String, Vec<String>),
    /// As [`Step::Short`], with the notes the shorter cells' marks refer to (`*` for a
    /// qualifier left out of the cell), printed under the table when the step is taken.
    Marked(usize, String, Vec<String>, Vec<String>),
    /// As [`Step::Marked`] for several columns at once (each with its header and cells), so
    /// that one notation is taken by all of them or by none.
    MarkedAll(Vec<(usize, String, Vec<String>)>, Vec<String>),
    /// Narrow the column to what is left of the width, but to no fewer characters than this.
    Narrow(usize, usize),
}

/// A table: its header, its rows, and which columns are numbers (aligned right).
#[derive(Clone)]
pub struct Table {
    pub head: Vec<String>,
    pub rows: Vec<Vec<String>>,
    pub right: Vec<usize>,
}

fn chars(s: &str) -> usize {
    s.chars().count()
}

/// `s` cut to `w` characters as [`cut_among`] cuts it in a column of its own.
#[cfg(test)]
fn cut(s: &str, w: usize) -> String {
    cut_among(s, w, &[], s)
}

/// `s` cut to `w` characters, with "…" for each run of words cut, keeping what tells the cell
/// apart from the others of its column (`column`, where the cell `s` is cut from is `me`).
/// A cell with a qualifier in parentheses (`Crucial P5 1TB (simulated)`, `... (emulated),
/// cache=2GB`) keeps the qualifier whole, always; then the drive's capacity (`250GB`, the
/// last word where none is one); then the other words before the qualifier, those fewer
/// others of the column share first (the maker first of its equals, remarks in parentheses
/// last): `960…250GB (sim)` beside other 960 EVOs, `…NV2 1TB (simulated)` beside `Kingston
/// A2000 1TB`; and what follows the qualifier (the options a drive was made with) only where
/// all of that is whole, else nothing of it (the table puts a numbered mark in its place).
/// The words a width keeps are a start of that order, so that a wider column never shows
/// less of a name than a narrower one: "… (emu), cache=1GB" at 80 columns beside
/// "960…250GB (emu)¹" at 50 had lost the model and the capacity to keep the options.
fn cut_among(s: &str, w: usize, column: &[&str], me: &str) -> String {
    if chars(s) <= w {
        return s.to_string();
    }
    let Some((head, q, _)) = qualifier(s) else {
        return plain_cut(s, w);
    };
    let words: Vec<&str> = head.split_whitespace().collect();
    let others: Vec<Vec<&str>> = column
        .iter()
        .filter(|o| **o != me)
        .map(|o| {
            qualifier(o)
                .map_or(*o, |(h, _, _)| h)
                .split_whitespace()
                .collect()
        })
        .collect();
    let shared: Vec<usize> = words
        .iter()
        .map(|w| others.iter().filter(|o| o.contains(w)).count())
        .collect();
    let mut keep = vec![false; words.len()];
    let mut best: Option<String> = None;
    for k in keep_order(&words, &shared) {
        keep[k] = true;
        let t = format!("{}{q}", render_kept(&words, &keep, None));
        if chars(&t) > w {
            // The start of the word that does not fit, where three letters of it do
            // (`PM9…960GB (sim)`), once something else of the name is kept.
            if best.is_some() {
                keep[k] = false;
                for n in (3..chars(words[k])).rev() {
                    let t = format!("{}{q}", render_kept(&words, &keep, Some((k, n))));
                    if chars(&t) <= w {
                        best = Some(t);
                        break;
                    }
                }
            }
            break;
        }
        best = Some(t);
    }
    best.unwrap_or_else(|| {
        let bare = format!("…{q}");
        if chars(&bare) <= w {
            bare
        } else {
            plain_cut(s, w)
        }
    })
}

/// Whether `w` is a drive's capacity: "250GB", "1TB", "960G", "1.92TB".
fn is_capacity(w: &str) -> bool {
    let digits = w.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = &w[digits.len()..];
    !digits.is_empty()
        && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
        && digits.starts_with(|c: char| c.is_ascii_digit())
        && matches!(unit, "GB" | "TB" | "G" | "T" | "GiB" | "TiB")
}

/// The order in which a cut keeps the words before a cell's qualifier ([`cut_among`]): the
/// capacities (else the last word), then those fewer of the column's other cells share (by
/// `shared`), of equals the first word, then the earlier; words in parentheses (a model's
/// remarks, "(QLC)") last.
fn keep_order(words: &[&str], shared: &[usize]) -> Vec<usize> {
    let mut depth = 0i32;
    let remark: Vec<bool> = words
        .iter()
        .map(|w| {
            let inside = depth > 0 || w.starts_with('(');
            depth += w.matches('(').count() as i32 - w.matches(')').count() as i32;
            inside
        })
        .collect();
    let sized: Vec<usize> = (0..words.len())
        .filter(|&k| is_capacity(words[k]))
        .collect();
    let first: Vec<usize> = if sized.is_empty() {
        (0..words.len())
            .rev()
            .find(|&k| !remark[k])
            .into_iter()
            .collect()
    } else {
        sized
    };
    let mut rest: Vec<usize> = (0..words.len()).filter(|k| !first.contains(k)).collect();
    rest.sort_by_key(|&k| (remark[k], shared[k], k != 0, k));
    first.into_iter().chain(rest).collect()
}

/// `words` joined with spaces where `keep`, each run of left-out words one "…"
/// (`Samsung…250GB`, `…A2000 1TB`); `part`: a word of which only its first characters are
/// kept, a "…" after them.
fn render_kept(words: &[&str], keep: &[bool], part: Option<(usize, usize)>) -> String {
    let mut out = String::new();
    let mut gap = false;
    for (k, (w, on)) in words.iter().zip(keep).enumerate() {
        if let Some((_, n)) = part.filter(|(p, _)| *p == k) {
            if k > 0 && !gap {
                out.push(' ');
            }
            out.extend(w.chars().take(n));
            out.push('…');
            gap = true;
            continue;
        }
        if !*on {
            if !gap {
                out.push('…');
            }
            gap = true;
            continue;
        }
        if k > 0 && !gap {
            out.push(' ');
        }
        out.push_str(w);
        gap = false;
    }
    out
}

/// `n` in superscript digits (`¹`, `¹²`): a mark that numbers what it stands for.
fn superscript(n: usize) -> String {
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    n.to_string()
        .chars()
        .map(|d| DIGITS[d.to_digit(10).unwrap_or(0) as usize])
        .collect()
}

/// `s` cut to `w` characters, with "…" for what was cut.
fn plain_cut(s: &str, w: usize) -> String {
    if chars(s) <= w {
        s.to_string()
    } else {
        let mut c: String = s.chars().take(w.saturating_sub(1)).collect();
        c = c.trim_end().to_string();
        c.push('…');
        c
    }
}

/// A cell's last qualifier in parentheses (` (simulated)`, ` (not steady)`): the words
/// before it, it, and what follows it.
fn qualifier(s: &str) -> Option<(&str, &str, &str)> {
    let i = s.rfind(" (")?;
    let j = i + s[i..].find(')')? + 1;
    Some((&s[..i], &s[i..j], &s[j..]))
}

/// The fewest characters `s` can be cut to as [`cut_among`] cuts it: its qualifier and its
/// capacity (else its last word) whole, a "…" for the words cut and a mark for anything
/// after the qualifier.
fn least_width(s: &str) -> usize {
    qualifier(s).map_or(0, |(head, q, rest)| {
        let words: Vec<&str> = head.split_whitespace().collect();
        let order = keep_order(&words, &vec![0; words.len()]);
        let mut keep = vec![false; words.len()];
        for &k in order.iter().take_while(|&&k| is_capacity(words[k])) {
            keep[k] = true;
        }
        if !keep.contains(&true) {
            if let Some(&k) = order.first() {
                keep[k] = true;
            }
        }
        (chars(&render_kept(&words, &keep, None)) + chars(q) + usize::from(!rest.is_empty()))
            .min(chars(s))
    })
}

/// A table's columns as [`Table::fit`] leaves them.
struct Fitted {
    shown: Vec<bool>,
    widths: Vec<usize>,
    left_out: Vec<String>,
    narrowed: bool,
    notes: Vec<String>,
}

/// The width of a table of the columns `shown` at `widths`, two spaces between them.
fn total(shown: &[bool], widths: &[usize]) -> usize {
    let cols: Vec<usize> = (0..shown.len())
        .filter(|&i| shown[i])
        .map(|i| widths[i])
        .collect();
    cols.iter().sum::<usize>() + 2 * cols.len().saturating_sub(1)
}

impl Table {
    /// The columns' widths as their cells need them.
    fn widths(&self) -> Vec<usize> {
        let mut w: Vec<usize> = self.head.iter().map(|h| chars(h)).collect();
        for r in &self.rows {
            for (w, c) in w.iter_mut().zip(r) {
                *w = (*w).max(chars(c));
            }
        }
        w
    }

    /// The table fitted to `width` by `steps` (`None`: as it is): its cells as the steps
    /// left them, which columns are shown, their widths, and what is said of it.
    fn fit(&mut self, width: Option<usize>, steps: Vec<Step>) -> Fitted {
        let n = self.head.len();
        let mut shown = vec![true; n];
        let mut widths = self.widths();
        let mut left_out: Vec<String> = Vec::new();
        let mut narrowed = false;
        let mut notes: Vec<String> = Vec::new();
        if let Some(limit) = width {
            for step in steps {
                if total(&shown, &widths) <= limit {
                    break;
                }
                match step {
                    Step::Drop(i) => {
                        shown[i] = false;
                        left_out.push(self.head[i].clone());
                    }
                    Step::Short(i, head, cells) => {
                        self.head[i] = head;
                        for (r, c) in self.rows.iter_mut().zip(cells) {
                            r[i] = c;
                        }
                        widths = self.widths();
                        narrowed = true;
                    }
                    Step::Marked(i, head, cells, marks) => {
                        self.head[i] = head;
                        for (r, c) in self.rows.iter_mut().zip(cells) {
                            r[i] = c;
                        }
                        for m in marks {
                            if !notes.contains(&m) {
                                notes.push(m);
                            }
                        }
                        widths = self.widths();
                        narrowed = true;
                    }
                    Step::MarkedAll(columns, marks) => {
                        for (i, head, cells) in columns {
                            self.head[i] = head;
                            for (r, c) in self.rows.iter_mut().zip(cells) {
                                r[i] = c;
                            }
                        }
                        for m in marks {
                            if !notes.contains(&m) {
                                notes.push(m);
                            }
                        }
                        widths = self.widths();
                        narrowed = true;
                    }
                    Step::Narrow(i, min) => {
                        let others = total(&shown, &widths) - widths[i];
                        // Never below what keeps every cell's qualifier whole.
                        let least = self.rows.iter().map(|r| least_width(&r[i])).max();
                        let w = limit
                            .saturating_sub(others)
                            .max(min)
                            .max(least.unwrap_or(0))
                            .max(chars(&self.head[i]));
                        if w < widths[i] {
                            widths[i] = w;
                            narrowed = true;
                        }
                    }
                }
            }
        }
        // A column narrowed before a later step left a column out gets back what that freed,
        // up to its cells' own width.
        if let Some(limit) = width {
            let natural = self.widths();
            let mut slack = limit.saturating_sub(total(&shown, &widths));
            for i in (0..n).filter(|&i| shown[i]) {
                let add = natural[i].saturating_sub(widths[i]).min(slack);
                widths[i] += add;
                slack -= add;
            }
        }
        Fitted {
            shown,
            widths,
            left_out,
            narrowed,
            notes,
        }
    }

    /// The table as text, every line within `width` columns when the steps allow it
    /// (`None`: as wide as its cells, every column whole).
    pub fn render(self, width: Option<usize>, steps: Vec<Step>) -> String {
        let n = self.head.len();
        // As it was given, to fit to the wider widths.
        let given = (self.clone(), steps.clone());
        let mut t = self;
        let Fitted {
            shown,
            mut widths,
            left_out,
            narrowed,
            mut notes,
        } = t.fit(width, steps);
        // A column the steps may cut is no wider than it is at any wider width: a later step
        // that leaves a column out gave it back what that freed, and "FX700 2TB (sim)" at 68
        // columns was "…2TB (sim)" at 69. Its width at each width up to where the table fits
        // whole bounds it.
        if let Some(limit) = width {
            let cut: Vec<usize> = (0..n)
                .filter(|&i| {
                    shown[i]
                        && given
                            .1
                            .iter()
                            .any(|s| matches!(s, Step::Narrow(j, _) if *j == i))
                })
                .collect();
            if !cut.is_empty() {
                let whole = total(&vec![true; n], &given.0.widths());
                for wider in limit + 1..whole {
                    let f = given.0.clone().fit(Some(wider), given.1.clone());
                    for &i in cut.iter().filter(|&&i| f.shown[i]) {
                        widths[i] = widths[i].min(f.widths[i]);
                    }
                }
            }
        }
        let last = (0..n).rev().find(|&i| shown[i]).unwrap_or(0);
        // Each column's cells, for a cut that keeps what tells a cell from the others.
        let columns: Vec<Vec<&str>> = (0..n)
            .map(|i| t.rows.iter().map(|r| r[i].as_str()).collect())
            .collect();
        // What follows a cell's qualifier, where a cut cannot keep it whole (the options a
        // drive was made with: "960… (sim)…" beside "960… (sim)" told two drives apart by a
        // "…" nothing explained): a numbered mark in its place, and what it stands for said
        // under the table, each different one once.
        let mut tails: Vec<(usize, String)> = Vec::new();
        let mut fit_cell = |i: usize, c: &str| -> String {
            let w = widths[i];
            let cut = cut_among(c, w, &columns[i], c);
            match qualifier(c) {
                Some((head, q, rest)) if !rest.is_empty() && !cut.ends_with(rest) => {
                    // The whole cell in the note: "… (emu), cache=1GB" left the drive unnamed
                    // where its name was cut too.
                    let tail = (i, c.to_string());
                    let k = match tails.iter().position(|t| *t == tail) {
                        Some(k) => k,
                        None => {
                            tails.push(tail);
                            tails.len() - 1
                        }
                    };
                    let mark = superscript(k + 1);
                    let stem = format!("{head}{q}");
                    let room = w.saturating_sub(chars(&mark));
                    format!("{}{mark}", cut_among(&stem, room, &columns[i], c))
                }
                _ => cut,
            }
        };
        let cells: Vec<Vec<String>> = t
            .rows
            .iter()
            .map(|r| {
                r.iter()
                    .enumerate()
                    .map(|(i, c)| {
                        if shown[i] {
                            fit_cell(i, c)
                        } else {
                            String::new()
                        }
                    })
                    .collect()
            })
            .collect();
        let line = |cells: &[String]| {
            let mut s = String::new();
            let mut first = true;
            for (i, c) in cells.iter().enumerate().filter(|(i, _)| shown[*i]) {
                if !first {
                    s += "  ";
                }
                first = false;
                let w = widths[i];
                let c = cut_among(c, w, &columns[i], c);
                if t.right.contains(&i) {
                    s += &format!("{c:>w$}");
                } else if i == last {
                    s += &c;
                } else {
                    s += &format!("{c:<w$}");
                }
            }
            s.trim_end().to_string() + "\n"
        };
        let mut s = line(&t.head);
        for r in &cells {
            s += &line(r);
        }
        for (k, (i, tail)) in tails.iter().enumerate() {
            notes.push(format!("{} {}: {tail}", superscript(k + 1), t.head[*i]));
        }
        // A note as wide as the table may be, broken between words, its later lines indented.
        for n in &notes {
            for l in wrap_note(n, width) {
                s += &l;
                s.push('\n');
            }
        }
        // The widest line of the table itself: where the steps ran out before it fitted, the
        // line under it says so, never "to fit" (rows of 62 characters under "(to fit 50
        // columns: ...)").
        let widest = s.lines().map(chars).max().unwrap_or(0);
        let over = width.is_some_and(|limit| widest > limit);
        if let Some(limit) = width.filter(|_| !left_out.is_empty() || narrowed || over) {
            let mut why = Vec::new();
            if !left_out.is_empty() {
                why.push(format!("left out {}", left_out.join(", ")));
            }
            if narrowed {
                why.push("shortened".to_string());
            }
            let long = if over {
                why.push(format!("still {widest} wide"));
                format!(
                    "(cannot fit {limit} columns: {}; --wide shows every column whole)",
                    why.join("; ")
                )
            } else {
                format!(
                    "(to fit {limit} columns: {}; --wide shows every column whole)",
                    why.join("; ")
                )
            };
            // Whole, broken to the width where it is wider: a column left out is always named.
            for l in wrap_note(&long, Some(limit)) {
                s += &l;
                s.push('\n');
            }
        }
        s
    }
}

/// `note` in lines of at most `width` characters (`None`: one line), broken between words,
/// each line after the first indented by two spaces so that it reads as the same note.
pub(super) fn wrap_note(note: &str, width: Option<usize>) -> Vec<String> {
    let Some(width) = width else {
        return vec![note.to_string()];
    };
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in note.split(' ') {
        let lead = if lines.is_empty() { 0 } else { 2 };
        if !cur.is_empty() && lead + chars(&cur) + 1 + chars(word) > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        } else if !lines.is_empty() {
            cur.push_str("  ");
        }
        cur.push_str(word);
    }
    lines.push(cur);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Table {
        Table {
            head: vec!["id".into(), "drive".into(), "host".into(), "cache".into()],
            rows: vec![
                vec![
                    "1".into(),
                    "Samsung SSD 960 EVO 500GB (emulated)".into(),
                    "bench-1".into(),
                    "22.0 GB (21.9 GB to 22.4 GB)".into(),
                ],
                vec!["12".into(), "hand".into(), "vm".into(), "40.0 GB".into()],
            ],
            right: vec![0],
        }
    }

    /// A note under a fitted table was printed whole, wider than the width the table was
    /// fitted to (the hidden-tier note: 108 characters under an 80-column table).
    #[test]
    fn a_note_is_broken_to_the_width_the_table_is_fitted_to() {
        let note = "‡ cache: or a later tier's, were a faster first tier hidden in the first \
                    sample (runs show ID says how large)";
        let t = table();
        let cells = t.rows.iter().map(|r| format!("{} ‡", &r[3][..7])).collect();
        let out = t.render(
            Some(60),
            vec![Step::Marked(3, "cache".into(), cells, vec![note.into()])],
        );
        assert!(out.lines().all(|l| l.chars().count() <= 60), "{out}");
        let joined: Vec<&str> = out
            .lines()
            .skip_while(|l| !l.starts_with('‡'))
            .take_while(|l| !l.starts_with('('))
            .map(str::trim)
            .collect();
        assert_eq!(joined.join(" "), note, "{out}");
    }

    /// A cut keeps a cell's qualifier whole, then its capacity, then the words before it,
    /// the maker first; what follows the qualifier only where all of that is whole (the table
    /// marks it where it is not, [`a_tail_the_cut_leaves_out_is_marked_and_said`]).
    #[test]
    fn a_cut_keeps_the_qualifier() {
        assert_eq!(cut("Crucial P5 1TB (simulated)", 18), "…1TB (simulated)");
        assert_eq!(
            cut("Crucial P5 1TB (simulated)", 23),
            "Crucial…1TB (simulated)"
        );
        let emu = "Samsung SSD 960 EVO 250GB (emulated), cache=2GB";
        assert_eq!(cut(emu, 20), "Sam…250GB (emulated)");
        assert_eq!(cut(emu, 19), "…250GB (emulated)");
        assert_eq!(cut(emu, 30), "Samsung SSD…250GB (emulated)");
        assert_eq!(cut(emu, 34), "Samsung SSD 960…250GB (emulated)");
        assert_eq!(cut(emu, 46), "Samsung SSD 960 EVO 250GB (emulated)");
        assert_eq!(cut(emu, 47), emu);
        // A model's remark in parentheses goes before its words.
        assert_eq!(
            cut("HP FX700 2TB (QLC) (simulated)", 26),
            "HP FX700 2TB… (simulated)"
        );
        assert_eq!(cut("plain words here", 8), "plain w…");
    }

    /// At 80 columns `runs` cut a drive made with options to "… (emu), cache=1GB", at 50 to
    /// "960…250GB (emu)¹": a cut to a wider column keeps every word a narrower one keeps, and
    /// never the marker or the capacity.
    #[test]
    fn a_wider_cut_keeps_what_a_narrower_one_keeps() {
        let column = [
            "960 EVO 250GB (emu), cache=1GB",
            "960 EVO 250GB (emu), cache=2GB",
            "960 EVO 250GB (sim)",
            "960 EVO 1TB (sim)",
            "FX700 2TB (sim)",
            "Kingston NV2 1TB (simulated)",
            "Kingston A2000 1TB (simulated)",
        ];
        for me in column {
            let words = |t: &str| -> Vec<String> {
                t.split([' ', '…'])
                    .filter(|w| !w.is_empty())
                    .map(|w| w.trim_end_matches(',').to_string())
                    .collect()
            };
            // Each word shown before is shown whole, or its start (`PM9…`) is.
            let covers = |wide: &[String], narrow: &[String]| {
                narrow
                    .iter()
                    .all(|n| wide.iter().any(|w| w.starts_with(n.as_str())))
            };
            let mut prev = String::new();
            for w in least_width(me)..=chars(me) {
                let t = cut_among(me, w, &column, me);
                assert!(chars(&t) <= w, "{t:?} at {w}");
                let (head, q, _) = qualifier(me).unwrap();
                assert!(t.contains(q), "{t:?} at {w}");
                let cap = head.rsplit(' ').next().unwrap();
                assert!(t.contains(cap), "{t:?} at {w}");
                assert!(covers(&words(&t), &words(&prev)), "{prev:?} then {t:?}");
                prev = t;
            }
        }
        let at = |w| cut_among(column[0], w, &column, column[0]);
        assert_eq!(at(22), "960 EVO 250GB (emu)");
        assert_eq!(at(16), "960…250GB (emu)");
        assert_eq!(at(12), "…250GB (emu)");
        assert_eq!(least_width(column[0]), 13);
    }

    #[test]
    fn a_table_that_fits_is_left_whole() {
        let t = table().render(None, vec![Step::Drop(2)]);
        let wide = table().render(Some(200), vec![Step::Drop(2)]);
        assert_eq!(t, wide);
        assert!(t.contains("bench-1"), "{t}");
        assert!(t.lines().all(|l| !l.starts_with('(')), "{t}");
    }

    #[test]
    fn a_narrow_terminal_loses_columns_in_order_then_narrows() {
        let steps = || vec![Step::Drop(2), Step::Narrow(1, 10)];
        let t = table().render(Some(70), steps());
        assert!(!t.contains("bench-1"), "{t}");
        assert!(!t.lines().next().unwrap().contains("host"), "{t}");
        assert!(t.contains("Samsung SSD 960 EVO 500GB (emulated)"), "{t}");
        assert!(
            t.ends_with("(to fit 70 columns: left out host; --wide shows every column whole)\n"),
            "{t}"
        );
        let t = table().render(Some(51), steps());
        for l in t.lines().filter(|l| !l.starts_with('(')) {
            assert!(l.chars().count() <= 51, "{l:?}\n{t}");
        }
        // The model's words are cut, its capacity and "(emulated)" kept.
        assert!(t.contains(" …500GB (emulated)  "), "{t}");
        assert!(t.contains("22.0 GB (21.9 GB to 22.4 GB)"), "{t}");
        // The line that says so names what was left out, broken to the width, not dropped
        // for a shorter one that does not ("(fitted to 50 columns; ...)" named no column).
        assert!(
            t.ends_with(
                "(to fit 51 columns: left out host; shortened;\n  --wide shows every column \
                 whole)\n"
            ),
            "{t}"
        );
        assert!(t.lines().all(|l| l.chars().count() <= 51), "{t}");
    }

    /// Where the steps run out before the table fits, the line under it says so: `runs` at 50
    /// columns printed rows of 62 characters over "(to fit 50 columns: ...)".
    #[test]
    fn a_table_that_cannot_fit_says_so() {
        let t = table().render(Some(30), vec![Step::Drop(2), Step::Narrow(1, 10)]);
        let widest = t.lines().take(3).map(|l| l.chars().count()).max().unwrap();
        assert!(widest > 30, "{t}");
        assert!(!t.contains("(to fit"), "{t}");
        let joined = t.replace("\n  ", " ");
        assert!(
            joined.contains(&format!(
                "(cannot fit 30 columns: left out host; shortened; still {widest} wide; --wide \
                 shows every column whole)"
            )),
            "{t}"
        );
        // Where it fits, the line says "to fit", and every line of the table does fit.
        for width in [40, 50, 60, 70] {
            let t = table().render(Some(width), vec![Step::Drop(2), Step::Narrow(1, 10)]);
            if t.contains("(to fit") {
                assert!(t.lines().all(|l| l.chars().count() <= width), "{t}");
            }
        }
    }

    /// Drives that differ only in capacity or in the options they were made with stay told
    /// apart when the drive column is narrowed ("Samsung S… (simulated)" was all of them).
    #[test]
    fn narrowed_drive_names_stay_apart() {
        let names = [
            "Samsung SSD 960 EVO 250GB (simulated)",
            "Samsung SSD 960 EVO 500GB (simulated)",
            "Samsung SSD 960 EVO 1TB (simulated)",
            "Samsung SSD 960 EVO 500GB (simulated), cache=2GB",
            "Crucial P5 1TB (simulated)",
            "Kingston NV2 1TB (simulated)",
            "Kingston A2000 1TB (simulated)",
        ];
        let t = drive_table(&names, 40);
        let cells: Vec<&str> = t
            .lines()
            .skip(1)
            .take(names.len())
            .map(|l| l[3..].trim_end_matches("13.0 GB").trim())
            .collect();
        assert_eq!(cells.len(), names.len(), "{t}");
        let distinct: std::collections::BTreeSet<&&str> = cells.iter().collect();
        assert_eq!(distinct.len(), names.len(), "{t}");
        for c in &cells {
            assert!(c.contains(" (simulated)"), "{t}");
        }
    }

    /// A table of an id, a drive's name and a cache size for each of `names`, its drive column
    /// narrowed to fit `width`.
    fn drive_table(names: &[&str], width: usize) -> String {
        Table {
            head: vec!["id".into(), "drive".into(), "cache".into()],
            rows: names
                .iter()
                .enumerate()
                .map(|(i, n)| vec![i.to_string(), n.to_string(), "13.0 GB".into()])
                .collect(),
            right: vec![0],
        }
        .render(Some(width), vec![Step::Narrow(1, 12)])
    }

    /// A cut that cannot keep what follows a cell's qualifier left a bare "…" after it, the
    /// only thing telling two drives apart, said nowhere: a numbered mark takes its place, one
    /// per different tail, and the table says what each stands for.
    #[test]
    fn a_tail_the_cut_leaves_out_is_marked_and_said() {
        let names = [
            "Samsung SSD 960 EVO 500GB (simulated)",
            "Samsung SSD 960 EVO 500GB (simulated), cache=8GB",
            "Samsung SSD 960 EVO 500GB (simulated), cache=8GB",
            "Samsung SSD 960 EVO 500GB (simulated), after=300MB/s",
        ];
        let t = drive_table(&names, 38);
        assert!(t.lines().all(|l| l.chars().count() <= 38), "{t}");
        assert!(!t.contains(")…"), "{t}");
        let cells: Vec<&str> = t
            .lines()
            .skip(1)
            .take(names.len())
            .map(|l| l[3..].trim_end_matches("13.0 GB").trim())
            .collect();
        assert!(cells[0].ends_with(" (simulated)"), "{t}");
        assert!(cells[1].ends_with(" (simulated)¹"), "{t}");
        assert_eq!(cells[1], cells[2], "{t}");
        assert!(cells[3].ends_with(" (simulated)²"), "{t}");
        // The note names the drive whole, not "… (simulated), cache=8GB": where the name was
        // cut too, nothing said which drive it was.
        let joined = t.replace("\n  ", " ");
        assert!(
            joined.contains("\n¹ drive: Samsung SSD 960 EVO 500GB (simulated), cache=8GB\n"),
            "{t}"
        );
        assert!(
            joined.contains("\n² drive: Samsung SSD 960 EVO 500GB (simulated), after=300MB/s\n"),
            "{t}"
        );
        // Where it fits, a tail stays whole and no mark is made.
        let t = Table {
            head: vec!["drive".into()],
            rows: vec![vec![names[1].to_string()]],
            right: vec![],
        }
        .render(Some(60), vec![Step::Narrow(0, 12)]);
        assert!(t.contains(names[1]) && !t.contains('¹'), "{t}");
    }
}
