//! A table of text cells fitted to a terminal's width: steps that leave out the less
//! important columns, put shorter forms of a column's cells in, or narrow a column (its cells
//! cut with "…"; what follows a cell's qualifier, where it cannot stay whole, as a numbered
//! mark said under the table), taken in order until the table fits. Every line then fits, or
//! the steps ran out; a last line names what was left out.

/// One way to make the table narrower.
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
pub struct Table {
    pub head: Vec<String>,
    pub rows: Vec<Vec<String>>,
    pub right: Vec<usize>,
}

fn chars(s: &str) -> usize {
    s.chars().count()
}

/// `s` cut to `w` characters, with "…" for what was cut. A cell with a qualifier in
/// parentheses (`Crucial P5 1TB (simulated)`, `... (emulated), cache=2GB`) keeps the
/// qualifier whole, and keeps what tells such cells apart longest: what follows the
/// qualifier (the options a drive was made with) and the last word before it (a drive's
/// capacity), so that `Samsung…250GB (simulated)` and `Samsung…500GB (simulated)` stay two
/// drives. The leading words are cut first.
fn cut(s: &str, w: usize) -> String {
    if chars(s) <= w {
        return s.to_string();
    }
    if let Some((head, q, rest)) = qualifier(s).filter(|_| least_width(s) <= w) {
        // What follows whole, where the words before it keep at least a word's start.
        if w >= chars(q) + chars(rest) + 4 {
            return format!("{}{q}{rest}", cut_head(head, w - chars(q) - chars(rest)));
        }
        if chars(head) + chars(q) < w {
            // The words before it whole; what follows cut.
            return format!("{head}{q}{}", plain_cut(rest, w - chars(head) - chars(q)));
        }
        let tail = if rest.is_empty() { "" } else { "…" };
        let room = w - chars(q) - chars(tail);
        return format!("{}{q}{tail}", cut_head(head, room));
    }
    plain_cut(s, w)
}

/// `s` cut to `w` characters as [`cut`] cuts it, but where the words before its qualifier
/// share words with the others of its column (`column`, where the cell `s` is cut from is
/// `me`), those go first, the most shared
/// first, each run of them one "…": `Samsung…250GB (simulated)` beside other 960 EVOs,
/// `Kingston NV2 1TB (simulated)` kept whole beside `Kingston A2000 1TB`, where cutting the
/// middle would have made both `Kingston…1TB`.
fn cut_among(s: &str, w: usize, column: &[&str], me: &str) -> String {
    if chars(s) <= w {
        return s.to_string();
    }
    if let Some((head, q, rest)) = qualifier(s) {
        let budget = w as isize - chars(q) as isize - chars(rest) as isize;
        if budget >= 4 {
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
            let t = elide(&words, &shared, budget as usize);
            if chars(&t) <= budget as usize {
                return format!("{t}{q}{rest}");
            }
        }
    }
    cut(s, w)
}

/// `words` joined with spaces, or, past `max` characters, without the words others share
/// (the most shared first, then the earlier, the first word last among its equals), each run
/// of left-out words one "…" (`Samsung…250GB`, `…A2000…`); as short as that makes it.
fn elide(words: &[&str], shared: &[usize], max: usize) -> String {
    let render = |keep: &[bool]| {
        let mut out = String::new();
        let mut gap = false;
        for (k, (w, on)) in words.iter().zip(keep).enumerate() {
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
    };
    let mut keep = vec![true; words.len()];
    // The first word (the maker) last of those as shared as it.
    let mut order: Vec<usize> = (0..words.len()).filter(|&k| shared[k] > 0).collect();
    order.sort_by_key(|&k| (std::cmp::Reverse(shared[k]), k == 0, k));
    let mut text = render(&keep);
    for k in order {
        if chars(&text) <= max {
            break;
        }
        keep[k] = false;
        text = render(&keep);
    }
    text
}

/// `n` in superscript digits (`¹`, `¹²`): a mark that numbers what it stands for.
fn superscript(n: usize) -> String {
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    n.to_string()
        .chars()
        .map(|d| DIGITS[d.to_digit(10).unwrap_or(0) as usize])
        .collect()
}

/// The words before a qualifier cut to `w` characters: the last word kept whole after a
/// "…" where the first word's first letter fits beside it (`Samsung…250GB`), else cut at the end.
fn cut_head(head: &str, w: usize) -> String {
    if chars(head) <= w {
        return head.to_string();
    }
    if let Some((front, last)) = head.rsplit_once(' ') {
        // At least a character of the front and its "…" beside the last word.
        if chars(last) + 2 <= w {
            let front: String = front.chars().take(w - chars(last) - 1).collect();
            return format!("{}…{last}", front.trim_end());
        }
    }
    plain_cut(head, w)
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

/// The fewest characters `s` can be cut to with its qualifier whole, the start of a word
/// before it and a "…" for anything after it.
fn least_width(s: &str) -> usize {
    qualifier(s).map_or(0, |(_, q, rest)| {
        (chars(q) + 4 + usize::from(!rest.is_empty())).min(chars(s))
    })
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

    /// The table as text, every line within `width` columns when the steps allow it
    /// (`None`: as wide as its cells, every column whole).
    pub fn render(mut self, width: Option<usize>, steps: Vec<Step>) -> String {
        let n = self.head.len();
        let mut shown = vec![true; n];
        let mut widths = self.widths();
        let mut left_out: Vec<String> = Vec::new();
        let mut narrowed = false;
        let mut notes: Vec<String> = Vec::new();
        let total = |shown: &[bool], widths: &[usize]| -> usize {
            let cols: Vec<usize> = (0..shown.len())
                .filter(|&i| shown[i])
                .map(|i| widths[i])
                .collect();
            cols.iter().sum::<usize>() + 2 * cols.len().saturating_sub(1)
        };
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
        let last = (0..n).rev().find(|&i| shown[i]).unwrap_or(0);
        // Each column's cells, for a cut that keeps what tells a cell from the others.
        let columns: Vec<Vec<&str>> = (0..n)
            .map(|i| self.rows.iter().map(|r| r[i].as_str()).collect())
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
        let cells: Vec<Vec<String>> = self
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
                if self.right.contains(&i) {
                    s += &format!("{c:>w$}");
                } else if i == last {
                    s += &c;
                } else {
                    s += &format!("{c:<w$}");
                }
            }
            s.trim_end().to_string() + "\n"
        };
        let mut s = line(&self.head);
        for r in &cells {
            s += &line(r);
        }
        for (k, (i, tail)) in tails.iter().enumerate() {
            notes.push(format!("{} {}: {tail}", superscript(k + 1), self.head[*i]));
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

    /// A cut keeps a cell's qualifier whole: the words before it go first, then what
    /// follows it.
    #[test]
    fn a_cut_keeps_the_qualifier() {
        assert_eq!(cut("Crucial P5 1TB (simulated)", 18), "Cr…1TB (simulated)");
        assert_eq!(
            cut("Crucial P5 1TB (simulated)", 20),
            "Cruc…1TB (simulated)"
        );
        assert_eq!(
            cut("Samsung SSD 960 EVO 250GB (emulated), cache=2GB", 20),
            "Sa…250GB (emulated)…"
        );
        assert_eq!(
            cut("Samsung SSD 960 EVO 250GB (emulated), cache=2GB", 30),
            "Sa…250GB (emulated), cache=2GB"
        );
        assert_eq!(
            cut("Samsung SSD 960 EVO 250GB (emulated), cache=2GB", 34),
            "Samsun…250GB (emulated), cache=2GB"
        );
        assert_eq!(cut("plain words here", 8), "plain w…");
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
        let t = table().render(Some(50), steps());
        for l in t.lines().filter(|l| !l.starts_with('(')) {
            assert!(l.chars().count() <= 50, "{l:?}\n{t}");
        }
        // The model's words are cut, its "(emulated)" kept.
        assert!(t.contains(" Sams… (emulated)  "), "{t}");
        assert!(t.contains("22.0 GB (21.9 GB to 22.4 GB)"), "{t}");
        // The line that says so names what was left out, broken to the width, not dropped
        // for a shorter one that does not ("(fitted to 50 columns; ...)" named no column).
        assert!(
            t.ends_with(
                "(to fit 50 columns: left out host; shortened;\n  --wide shows every column \
                 whole)\n"
            ),
            "{t}"
        );
        assert!(t.lines().all(|l| l.chars().count() <= 50), "{t}");
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
            .filter(|l| !l.starts_with('(') && !l.starts_with("  "))
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
