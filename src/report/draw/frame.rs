//! The frame of a chart: the grid, the axes with their ticks and labels, the header (title,
//! subtitle, legend) and the footer, and text fitted to a width ([`fit_text`]).

use super::*;

/// Tint strength of a phase band: grey (a steady run) lighter than the colours, and the
/// throttled stretches' vermillion stronger, so that it reads apart from the orange of the
/// phase after the cache it interrupts.
pub(super) fn band_alpha(c: Rgb) -> f64 {
    use crate::report::charts::palette;
    if c == palette::GREY {
        0.07
    } else if c == palette::VERMILLION {
        0.22
    } else {
        0.14
    }
}

pub(super) fn draw_grid<DB: DrawingBackend>(
    plot: &DrawingArea<DB, Shift>,
    spec: &ChartSpec,
    p: &Px,
    local: impl Fn(i32, i32) -> (i32, i32),
) -> Result<()> {
    let grid = color(colors(spec.theme).grid).stroke_width(1);
    for &t in &spec.x.ticks {
        let x = p.x(&spec.x, t);
        plot.draw(&PathElement::new(
            vec![local(x, p.top), local(x, p.bottom)],
            grid,
        ))
        .map_err(err)?;
    }
    for &t in &spec.y.ticks {
        let y = p.y(&spec.y, t);
        plot.draw(&PathElement::new(
            vec![local(p.left, y), local(p.right, y)],
            grid,
        ))
        .map_err(err)?;
    }
    Ok(())
}

pub(super) fn draw_axes<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &ChartSpec,
    p: &Px,
    l: &Layout,
) -> Result<()> {
    let s = l.scale;
    let cs = colors(spec.theme);
    let axis = color(cs.axis).stroke_width(((1.5 * s).round() as u32).max(1));
    let tick_len = (7.0 * s) as i32;
    let gap = (5.0 * s) as i32;
    let tick = Style::new(l.font(font_px::TICK)).color(cs.text);
    let desc = Style::new(l.font(font_px::AXIS)).color(cs.title);
    let mut lines = vec![
        vec![(p.left, p.top), (p.left, p.bottom)],
        vec![(p.left, p.bottom), (p.right, p.bottom)],
    ];
    if spec.y2.is_some() {
        lines.push(vec![(p.right, p.top), (p.right, p.bottom)]);
    }
    for ln in lines {
        root.draw(&PathElement::new(ln, axis)).map_err(err)?;
    }
    let tick_style = color(cs.axis).stroke_width(((1.2 * s).round() as u32).max(1));
    // x ticks and labels.
    for &t in &spec.x.ticks {
        let x = p.x(&spec.x, t);
        root.draw(&PathElement::new(
            vec![(x, p.bottom), (x, p.bottom + tick_len)],
            tick_style,
        ))
        .map_err(err)?;
        root.draw(&Label::new(
            tick_label(t),
            (x, p.bottom + tick_len + gap),
            tick.anchor(HPos::Center),
        ))
        .map_err(err)?;
    }
    let x_desc_y = p.bottom + tick_len + gap + tick.height() as i32 + (14.0 * s) as i32;
    root.draw(&Label::new(
        spec.x.label.clone(),
        ((p.left + p.right) / 2, x_desc_y),
        desc.anchor(HPos::Center),
    ))
    .map_err(err)?;
    // y ticks and labels, left.
    let mid_y = (p.top + p.bottom) / 2;
    let half = (tick.height() * 0.45) as i32;
    for &t in &spec.y.ticks {
        let y = p.y(&spec.y, t);
        root.draw(&PathElement::new(
            vec![(p.left - tick_len, y), (p.left, y)],
            tick_style,
        ))
        .map_err(err)?;
        root.draw(&Label::new(
            tick_label(t),
            (p.left - tick_len - gap, y - half),
            tick.anchor(HPos::Right),
        ))
        .map_err(err)?;
    }
    root.draw(&Label::new(
        spec.y.label.clone(),
        ((10.0 * s) as i32, mid_y),
        desc.anchor(HPos::Center).up(),
    ))
    .map_err(err)?;
    // Second axis, right.
    if let Some(y2) = &spec.y2 {
        for &t in &y2.ticks {
            let y = p.y(y2, t);
            root.draw(&PathElement::new(
                vec![(p.right, y), (p.right + tick_len, y)],
                tick_style,
            ))
            .map_err(err)?;
            root.draw(&Label::new(
                tick_label(t),
                (p.right + tick_len + gap, y - half),
                tick,
            ))
            .map_err(err)?;
        }
        root.draw(&Label::new(
            y2.label.clone(),
            (
                spec.size.0 as i32 - (10.0 * s) as i32 - desc.height() as i32,
                mid_y,
            ),
            desc.anchor(HPos::Center).up(),
        ))
        .map_err(err)?;
    }
    Ok(())
}

/// Fits `text` into `max_w` pixels: first by shrinking the font (down to 75%), then by cutting
/// it with an ellipsis at the end of a word, never inside one, before a closing "(...)" (a
/// run's "(simulated)" or "(emulated)"), which stays whole: "Write throughput over time:
/// Samsung SSD 970 EVO… (emulated)". Only a first word too long alone is cut inside.
pub fn fit_text(text: &str, st: Style, max_w: f64) -> (String, Style) {
    if st.width(text) <= max_w {
        return (text.to_string(), st);
    }
    // The width is measured at f32 and rounded, so the exact ratio can leave the text a hair
    // over: a few small steps more, down to 75%.
    let floor = st.em * 0.75;
    let mut smaller = Style {
        em: (st.em * max_w / st.width(text)).max(floor),
        ..st
    };
    for _ in 0..8 {
        if smaller.width(text) <= max_w {
            return (text.to_string(), smaller);
        }
        if smaller.em <= floor {
            break;
        }
        smaller.em = (smaller.em * 0.995).max(floor);
    }
    // The closing group in parentheses, kept whole where it leaves room for a word.
    let (head, tail) = match text.rfind(" (") {
        Some(i) if text.ends_with(')') && !text[i + 2..].contains('(') => (&text[..i], &text[i..]),
        _ => (text, ""),
    };
    for tail in [tail, ""] {
        let words: Vec<&str> = head.split(' ').collect();
        for n in (1..words.len()).rev() {
            let kept = words[..n]
                .join(" ")
                .trim_end_matches([' ', ',', ':', ';', '·', '(', '-', '/'])
                .to_string();
            if kept.is_empty() {
                continue;
            }
            let t = format!("{kept}…{tail}");
            if smaller.width(&t) <= max_w {
                return (t, smaller);
            }
        }
    }
    let mut chars: Vec<char> = text.chars().collect();
    while !chars.is_empty() {
        chars.pop();
        let t: String = chars.iter().collect::<String>().trim_end().to_string() + "…";
        if smaller.width(&t) <= max_w {
            return (t, smaller);
        }
    }
    (String::new(), smaller)
}

pub(super) fn draw_header<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &ChartSpec,
    l: &Layout,
) -> Result<()> {
    let s = l.scale;
    // Lines of text are spaced for the type they hold.
    let ts = l.text_scale;
    let cs = colors(spec.theme);
    let x0 = (24.0 * s) as i32;
    let max_w = spec.size.0 as f64 - 2.0 * x0 as f64;
    let (title, st) = fit_text(
        &spec.title,
        Style::new(l.font(font_px::TITLE)).bold().color(cs.title),
        max_w,
    );
    root.draw(&Label::new(title, (x0, (16.0 * ts) as i32), st))
        .map_err(err)?;
    let (sub, st) = fit_text(
        &spec.subtitle,
        Style::new(l.font(font_px::SUBTITLE)).color(cs.text),
        max_w,
    );
    root.draw(&Label::new(sub, (x0, (58.0 * ts) as i32), st))
        .map_err(err)?;
    // Legend: rows of entries, each a line sample (or a swatch for a shaded phase) and its
    // name.
    let st = Style::new(l.font(font_px::LEGEND)).color(cs.text);
    for (r, row) in legend_rows(&spec.legend, spec.size).iter().enumerate() {
        let y = ((94.0 + LEGEND_ROW_H * r as f64) * ts) as i32;
        let mid = y + (st.height() * 0.42) as i32;
        let mut x = x0;
        for &i in row {
            let e = &spec.legend[i];
            let sw = legend_sample_w(e, s) as i32;
            if e.swatch {
                let h = (st.height() * 0.8) as i32;
                let boost = if spec.theme == Theme::Dark { 1.6 } else { 1.0 };
                // A strip's swatch (in any colour: a comparison's are the runs') as the strip.
                let strip = crate::report::charts::THROTTLE_STYLE;
                let alpha = if (LineStyle {
                    color: strip.color,
                    ..e.style
                }) == strip
                {
                    0.85
                } else {
                    (band_alpha(e.style.color) * 2.5 * boost).min(1.0)
                };
                root.draw(&Rectangle::new(
                    [(x, mid - h / 2), (x + sw, mid + h / 2)],
                    color(ink(spec.theme, e.style.color)).mix(alpha).filled(),
                ))
                .map_err(err)?;
            } else {
                let st2 = LineStyle {
                    color: ink(spec.theme, e.style.color),
                    ..e.style
                };
                stroke(root, vec![(x, mid), (x + sw, mid)], &st2, s)?;
            }
            x += sw + (8.0 * s) as i32;
            let room = (x0 as f64 + max_w) - x as f64;
            let (name, st) = fit_text(&e.name, st, room.max(0.0));
            root.draw(&Label::new(name.clone(), (x, y), st))
                .map_err(err)?;
            x += st.width(&name) as i32 + (30.0 * s) as i32;
        }
    }
    Ok(())
}

pub(super) fn draw_footer<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &ChartSpec,
    l: &Layout,
) -> Result<()> {
    let s = l.scale;
    let st = Style::new(l.font(font_px::FOOTER)).color(colors(spec.theme).footer);
    // Lines spaced for the type they hold ([`Layout::text_scale`]).
    let ts = l.text_scale;
    let top = spec.size.1 as i32 - l.footer_h as i32 + (4.0 * ts) as i32;
    for (i, line) in spec.footer.iter().enumerate() {
        let (line, st) = fit_text(line, st, spec.size.0 as f64 - 48.0 * s);
        root.draw(&Label::new(
            line,
            ((24.0 * s) as i32, top + (i as f64 * 22.0 * ts) as i32),
            st,
        ))
        .map_err(err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A text up to a third wider than its room is drawn smaller, never cut: shrinking by the
    /// exact ratio once left some widths a hair over (the recovery chart's one-line footer
    /// was drawn "… slccache 0.…").
    #[test]
    fn a_text_within_the_shrink_is_never_cut() {
        let text = format!(
            "Drive: Samsung SSD 970 EVO 500GB (simulated), 500 GB  ·  Workload: seqwrite, \
             128 KiB blocks, QD32, 1 job, 1 s interval, simulated  ·  idle order (seed \
             1796311987158915479): 5 s  ·  2026-12-03 15:33 UTC  ·  slccache {}",
            crate::VERSION
        );
        let st = Style::new(15.0);
        let full = st.width(&text);
        for i in 0..400 {
            let max_w = full * (0.76 + i as f64 * 0.0006);
            let (drawn, small) = fit_text(&text, st, max_w);
            assert_eq!(drawn, text, "cut at max_w {max_w} (full {full})");
            assert!(small.width(&drawn) <= max_w, "{max_w}");
        }
    }

    /// A long subtitle was cut inside a word and its marker ("(sto…" for "(stopped early)"),
    /// a long title before its "(emulated)": a text is cut at a word's end, and a closing
    /// "(...)" stays whole.
    #[test]
    fn a_cut_ends_at_a_word_and_keeps_the_closing_marker() {
        let st = Style::new(20.0);
        let title = "Write throughput over time: Samsung SSD 970 EVO Plus 2TB (emulated)";
        for i in 0..200 {
            let max_w = st.width(title) * (0.3 + 0.0022 * i as f64);
            let (t, small) = fit_text(title, st, max_w);
            assert!(small.width(&t) <= max_w, "{t}");
            if t == title {
                continue;
            }
            assert!(t.ends_with("… (emulated)"), "{t}");
            let head = t.trim_end_matches("… (emulated)");
            assert!(
                title.starts_with(head) && title[head.len()..].starts_with([' ', ':']),
                "cut inside a word: {t}"
            );
        }
        let sub =
            "SLC cache 24.0 GB  ·  44.0 GB of 4.00 TB written in 100.0 s (stopped early)  ·  a \
                   slower tier may follow";
        for i in 0..200 {
            let max_w = st.width(sub) * (0.3 + 0.0022 * i as f64);
            let (t, _) = fit_text(sub, st, max_w);
            let head = t.trim_end_matches('…');
            assert!(
                sub.starts_with(head) && sub[head.len()..].starts_with([' ', ',']) || t == sub,
                "cut inside a word: {t}"
            );
        }
    }
}
