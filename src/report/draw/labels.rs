//! The labels over the plot: the cliff and return markers' labels in their rows at the top,
//! and each phase band's label placed where it hides none of the data it names.

use super::*;

/// Marker labels in their rows at the top; band labels where they hide no data.
pub(super) fn draw_labels<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &ChartSpec,
    p: &Px,
    l: &Layout,
    group: &dyn Fn(Option<usize>),
) -> Result<()> {
    let f = l.font(font_px::LABEL);
    let cs = colors(spec.theme);
    let st = Style::new(f).color(cs.title);
    let gap = l.label_gap() as i32;
    let pad = (0.4 * f) as i32;
    let line_h = (1.25 * f) as i32;
    let rows = spec
        .markers
        .iter()
        .filter(|m| !m.lines.is_empty())
        .map(|m| m.row + 1)
        .max()
        .unwrap_or(0);
    let mut row_h = vec![0i32; rows];
    for m in spec.markers.iter().filter(|m| !m.lines.is_empty()) {
        row_h[m.row] = row_h[m.row].max(l.label_box_h(m.lines.len()).round() as i32);
    }
    let boxes: Vec<(i32, i32, i32, i32)> = spec
        .markers
        .iter()
        .map(|m| {
            if m.lines.is_empty() {
                return (0, 0, -1, -1);
            }
            let bw = l.label_box_w(&m.lines).round() as i32;
            let bh = l.label_box_h(m.lines.len()).round() as i32;
            let xm = p.x(&spec.x, m.x);
            let x0 = match m.side {
                LabelSide::Right => xm + gap,
                LabelSide::Left => xm - gap - bw,
            }
            .clamp(p.left + 2, (p.right - bw - 2).max(p.left + 2));
            let y0 = p.top + gap + row_h[..m.row].iter().map(|h| h + gap).sum::<i32>();
            (x0, y0, x0 + bw, y0 + bh)
        })
        .collect();
    draw_band_labels(root, spec, p, l, &boxes)?;
    for (m, &(x0, y0, x1, y1)) in spec.markers.iter().zip(&boxes) {
        if m.lines.is_empty() {
            continue;
        }
        group(m.group);
        root.draw(&Rectangle::new(
            [(x0, y0), (x1, y1)],
            color(cs.bg).mix(0.92).filled(),
        ))
        .map_err(err)?;
        root.draw(&Rectangle::new(
            [(x0, y0), (x1, y1)],
            ShapeStyle {
                color: color(ink(spec.theme, m.style.color)).mix(1.0),
                filled: false,
                stroke_width: ((1.5 * l.scale).round() as u32).max(1),
            },
        ))
        .map_err(err)?;
        for (i, line) in m.lines.iter().enumerate() {
            let s = if i == 0 { st.bold() } else { st };
            root.draw(&Label::new(
                line.clone(),
                (x0 + pad, y0 + pad + i as i32 * line_h),
                s,
            ))
            .map_err(err)?;
        }
    }
    group(None);
    Ok(())
}

/// Each band's label goes just above the highest point of the lines over the label, or just
/// below the lowest, or at the bottom, whichever first fits inside the plot without covering a
/// cliff label; so it does not hide the data it describes.
pub(super) fn draw_band_labels<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &ChartSpec,
    p: &Px,
    l: &Layout,
    boxes: &[(i32, i32, i32, i32)],
) -> Result<()> {
    let f = l.font(font_px::LABEL);
    let cs = colors(spec.theme);
    let st = Style::new(f).color(cs.text);
    let gap = l.label_gap() as i32;
    let pad = (0.4 * f) as i32;
    let h = (1.25 * f) as i32 + 2 * pad - (0.25 * f) as i32;
    for b in &spec.bands {
        let (a, z) = (
            p.x(&spec.x, b.x0).max(p.left),
            p.x(&spec.x, b.x1).min(p.right),
        );
        let avail = z - a - 2 * gap;
        let inside = [&b.label, &b.short_label]
            .into_iter()
            .map(|t| (t, st.width(t) as i32))
            .find(|(_, w)| w + 2 * pad <= avail);
        // A band too narrow for its label (a short cache phase): the label goes just right of
        // the band, or left of it when the plot ends there (a last phase that is a sliver at
        // the right edge), beside its level, where no line and no cliff label is (below); the
        // short label when the long one finds no room.
        // Outside its band, a label points at it ("← SLC cache: 5017 MB/s" right of the
        // band, "... →" left of it), so that it is not read as the label of the tint it sits
        // on.
        let outside = inside.is_none();
        let tries: Vec<((String, i32), i32)> = match inside {
            Some((t, w)) => vec![((t.clone(), w), a + gap)],
            None => [&b.label, &b.short_label]
                .into_iter()
                .filter(|t| !t.is_empty())
                .flat_map(|t| {
                    let right = format!("← {t}");
                    let left = format!("{t} →");
                    let (wr, wl) = (st.width(&right) as i32, st.width(&left) as i32);
                    [
                        ((right.clone(), wr), z + gap),
                        ((right, wr), z + 4 * gap),
                        ((left, wl), a - gap - wl - 2 * pad),
                    ]
                })
                .collect(),
        };
        let placed = tries.into_iter().find_map(|((t, w), x0)| {
            band_label_y(spec, p, boxes, (a, z), (x0, w, h), (gap, pad), outside)
                .map(|y0| (t, w, x0, y0))
        });
        let Some((text, w, x0, y0)) = placed else {
            continue;
        };
        let x1 = x0 + w + 2 * pad;
        root.draw(&Rectangle::new(
            [(x0, y0), (x1, y0 + h)],
            color(cs.bg).mix(0.75).filled(),
        ))
        .map_err(err)?;
        root.draw(&Label::new(text, (x0 + pad, y0 + pad), st))
            .map_err(err)?;
    }
    Ok(())
}

/// Where a band label of text width `w` and height `h` with its left edge at `x0` goes: the
/// top of its box, or `None` when it fits nowhere there (see [`draw_band_labels`]).
fn band_label_y(
    spec: &ChartSpec,
    p: &Px,
    boxes: &[(i32, i32, i32, i32)],
    (a, z): (i32, i32),
    (x0, w, h): (i32, i32, i32),
    (gap, pad): (i32, i32),
    outside: bool,
) -> Option<i32> {
    let x1 = x0 + w + 2 * pad;
    if x0 < p.left + gap || x1 > p.right - gap {
        return None;
    }
    // The y of the left-axis points whose x passes `keep`, sorted.
    let ys_where = |keep: &dyn Fn(i32) -> bool| -> Vec<i32> {
        let mut ys: Vec<i32> = spec
            .series
            .iter()
            .filter(|s| s.side == YSide::Left)
            .flat_map(|s| s.points.iter())
            .filter(|q| !spec.y.log || q.1 > 0.0)
            .filter(|q| keep(p.x(&spec.x, q.0)))
            .map(|q| p.y(&spec.y, q.1))
            .collect();
        ys.sort_unstable();
        ys
    };
    let ys = if outside {
        // The band's own level, from the points inside the band.
        ys_where(&|x| x >= a && x < z)
    } else {
        // The lines' extent over the label, leaving out the edge of the band (where the line
        // comes down a cliff) and the highest and lowest sixth of the points (spikes, dips
        // and the sample that straddles the cliff), so the label sits next to the level it
        // names.
        let ys_in = |from: i32| ys_where(&|x| x > from && x <= x1 + gap);
        let ys = ys_in(a + 3 * gap);
        if ys.len() < 3 {
            ys_in(a)
        } else {
            ys
        }
    };
    let (hi, lo) = level_extent(&ys);
    // Outside its band, a label must also keep off every line point under it.
    let clear_of_lines = |y0: i32| {
        !outside
            || spec
                .series
                .iter()
                .flat_map(|s| s.points.iter())
                .filter(|q| !spec.y.log || q.1 > 0.0)
                .all(|q| {
                    let (x, y) = (p.x(&spec.x, q.0), p.y(&spec.y, q.1));
                    x < x0 - gap || x > x1 + gap || y < y0 - gap || y > y0 + h + gap
                })
    };
    let free = |y0: i32| {
        y0 >= p.top + gap
            && y0 + h <= p.bottom - gap
            && boxes
                .iter()
                .all(|&(bx0, by0, bx1, by1)| x1 < bx0 || x0 > bx1 || y0 + h < by0 || y0 > by1)
            && clear_of_lines(y0)
    };
    let mut cands = Vec::new();
    if hi != i32::MAX {
        if outside {
            // Level with the band's line, where it is clear.
            cands.push((hi + lo) / 2 - h / 2);
        }
        cands.push(hi - 2 * gap - h);
        cands.push(lo + 2 * gap);
    }
    if !outside {
        cands.push(p.bottom - gap - h);
    }
    cands.into_iter().find(|&y| free(y)).or(if outside {
        None
    } else {
        Some(p.bottom - gap - h)
    })
}

/// The pixel rows a band label must keep clear of, from the sorted pixel rows `ys` of the
/// lines under it: the highest and lowest sixth are left out, so that a spike, a dip or the
/// sample that straddles a cliff does not push the label away from the level it names.
/// `(i32::MAX, i32::MIN)` when there are no points.
pub(super) fn level_extent(ys: &[i32]) -> (i32, i32) {
    if ys.is_empty() {
        return (i32::MAX, i32::MIN);
    }
    (
        ys[ys.len() * 16 / 100],
        ys[(ys.len() * 84 / 100).min(ys.len() - 1)],
    )
}
