//! The labels over the plot: the cliff and return markers' labels in their rows at the top,
//! and each phase band's label placed inside its band where it hides none of the data it
//! names ([`placed_labels`] says where each goes).

use super::*;

/// What a placed label is: a marker's (by its index in [`ChartSpec::markers`]), the zoom
/// mark's, or a phase band's (by its index in [`ChartSpec::bands`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabelOf {
    /// A cliff or return marker's label box.
    Marker(usize),
    /// The bracket along the top of the plot over the stretch a zoomed chart enlarges.
    ZoomBracket,
    /// The zoom mark's label box ("enlarged in ...").
    Zoom,
    /// A phase band's label.
    Band(usize),
}

/// A box or a line in pixels: (x0, y0, x1, y1).
type Rect = (i32, i32, i32, i32);

/// A label as drawn: what it is, its text and its box in pixels (x0, y0, x1, y1).
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedLabel {
    /// What it labels.
    pub of: LabelOf,
    /// Its lines.
    pub lines: Vec<String>,
    /// Its box, pixels: (x0, y0, x1, y1).
    pub rect: (i32, i32, i32, i32),
    /// A band label beside its band, too narrow to hold it: the leader line from the box's
    /// edge to a point inside the band at the band's level, pixels (x0, y0, x1, y1).
    pub leader: Option<(i32, i32, i32, i32)>,
    /// Whether its text runs left to right; `false` for a band label turned to run bottom to
    /// top inside a band too narrow to hold it upright.
    pub upright: bool,
}

/// Every label over the plot of `spec` where the drawing puts it: the marker labels in their
/// rows at the top (below the zoom bracket, when there is one), the zoom mark, and each band
/// label inside its band clear of all of them (upright, or turned where the band is too
/// narrow for it upright), or in the zoom mark's box (a sliver inside the zoomed stretch), or
/// beside the band with a leader line into it; a band label that finds no place is left out.
pub fn placed_labels(spec: &ChartSpec) -> Vec<PlacedLabel> {
    let l = super::layout_of(spec);
    place(spec, &Px::of(&l), &l)
}

/// The zoom bracket's geometry: (a, b, y of its line, tick length, line width).
pub(super) fn zoom_bracket(
    spec: &ChartSpec,
    p: &Px,
    l: &Layout,
) -> Option<(i32, i32, i32, i32, u32)> {
    let z = spec.zoom.as_ref()?;
    let s = l.scale;
    let a = p.x(&spec.x, z.x0);
    let b = p.x(&spec.x, z.x1).max(a + 3);
    let w = ((2.5 * s).round() as u32).max(1);
    let y = p.top + (2.0 * s) as i32;
    let tick = (10.0 * s) as i32;
    Some((a, b, y, tick, w))
}

/// `lines` with the widest cut at a word end and marked "…" until their box is no wider than
/// `avail` pixels (or no line can be cut further).
fn fit_lines(l: &Layout, lines: &[String], avail: f64) -> Vec<String> {
    let mut out = lines.to_vec();
    while l.label_box_w(&out) > avail {
        let Some(k) = (0..out.len()).max_by_key(|&k| out[k].chars().count()) else {
            break;
        };
        let head = out[k].trim_end_matches('…');
        let Some(cut) = head.trim_end().rfind(' ') else {
            break;
        };
        out[k] = format!("{}…", head[..cut].trim_end_matches([',', ';', ':', ' ']));
    }
    out
}

fn place(spec: &ChartSpec, p: &Px, l: &Layout) -> Vec<PlacedLabel> {
    let gap = l.label_gap() as i32;
    let bracket = zoom_bracket(spec, p, l);
    // The rows start below the zoom bracket (its line and its ticks), so no box covers it.
    let rows_top = match bracket {
        Some((_, _, y, tick, w)) => y + tick + w as i32,
        None => p.top,
    };
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
    let mut out = Vec::new();
    for (i, m) in spec.markers.iter().enumerate() {
        if m.lines.is_empty() {
            continue;
        }
        // A box wider than the plot has its longest lines cut at a word end, so that no
        // line runs off the chart (a comparison's label of a drop not confirmed ended "…ran
        // out in the first s" at the chart's edge).
        let lines = fit_lines(l, &m.lines, (p.right - p.left - 4).max(1) as f64);
        let bw = l.label_box_w(&lines).round() as i32;
        let bh = l.label_box_h(lines.len()).round() as i32;
        let xm = p.x(&spec.x, m.x);
        let x0 = match m.side {
            LabelSide::Right => xm + gap,
            LabelSide::Left => xm - gap - bw,
        }
        .clamp(p.left + 2, (p.right - bw - 2).max(p.left + 2));
        let y0 = rows_top + gap + row_h[..m.row].iter().map(|h| h + gap).sum::<i32>();
        out.push(PlacedLabel {
            of: LabelOf::Marker(i),
            lines,
            rect: (x0, y0, x0 + bw, y0 + bh),
            leader: None,
            upright: true,
        });
    }
    // The bands inside the zoomed stretch too narrow to hold their label even turned: each
    // named in the zoom mark's box, which the bracket ties to the stretch, not beside it on
    // another phase's tint (a 12 h chart's cache phase of 10 s).
    let mut in_zoom = Vec::new();
    if let (Some(z), Some((a, b, ..))) = (&spec.zoom, bracket) {
        let thick = (l.label_box_h(1) + 2.0 * gap as f64).round() as i32;
        for (i, band) in spec.bands.iter().enumerate() {
            let (ba, bz) = (p.x(&spec.x, band.x0), p.x(&spec.x, band.x1));
            let inside = band.x0 >= z.x0 && band.x1 <= z.x1 && ba >= a && bz <= b;
            if inside && bz - ba < thick && !band.label.is_empty() {
                in_zoom.push(i);
            }
        }
    }
    if let (Some(z), Some((a, b, y, tick, w))) = (&spec.zoom, bracket) {
        let mut lines = z.lines.clone();
        let at = lines.len().min(1);
        lines.splice(at..at, in_zoom.iter().map(|&i| spec.bands[i].label.clone()));
        out.push(PlacedLabel {
            of: LabelOf::ZoomBracket,
            lines: vec![],
            rect: (a, y - w as i32, b, y + tick),
            leader: None,
            upright: true,
        });
        let bw = l.label_box_w(&lines).round() as i32;
        let bh = l.label_box_h(lines.len()).round() as i32;
        let x0 = (b + gap).min(p.right - bw - 2);
        // Below the rows of marker labels, if any.
        let y0 = rows_top + gap + row_h.iter().map(|h| h + gap).sum::<i32>();
        out.push(PlacedLabel {
            of: LabelOf::Zoom,
            lines,
            rect: (x0, y0, x0 + bw, y0 + bh),
            leader: None,
            upright: true,
        });
    }
    let boxes: Vec<(i32, i32, i32, i32)> = out.iter().map(|b| b.rect).collect();
    out.extend(place_band_labels(spec, p, l, &boxes, &in_zoom));
    out
}

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
    let band_st = Style::new(f).color(cs.text);
    let pad = (0.4 * f) as i32;
    let line_h = (1.25 * f) as i32;
    let placed = place(spec, p, l);
    // The band labels first, under the boxes (they never overlap them).
    for b in placed.iter().filter(|b| matches!(b.of, LabelOf::Band(_))) {
        let (x0, y0, x1, y1) = b.rect;
        // A label beside its band: a line from the box into the band, a dot at its level.
        if let Some((lx0, ly0, lx1, ly1)) = b.leader {
            let ink = color(cs.text);
            let w = ((1.5 * l.scale).round() as u32).max(1);
            root.draw(&PathElement::new(
                vec![(lx0, ly0), (lx1, ly1)],
                ink.stroke_width(w),
            ))
            .map_err(err)?;
            root.draw(&Circle::new(
                (lx1, ly1),
                ((2.5 * l.scale).round() as i32).max(2),
                ink.filled(),
            ))
            .map_err(err)?;
        }
        root.draw(&Rectangle::new(
            [(x0, y0), (x1, y1)],
            color(cs.bg).mix(0.75).filled(),
        ))
        .map_err(err)?;
        // Turned: the top of the line at the box's left, its start at the box's foot.
        let (at, style) = if b.upright {
            ((x0 + pad, y0 + pad), band_st)
        } else {
            ((x0 + pad, y1 - pad), band_st.up())
        };
        root.draw(&Label::new(b.lines[0].clone(), at, style))
            .map_err(err)?;
    }
    for b in &placed {
        let (edge, grp) = match b.of {
            LabelOf::Marker(i) => (
                ink(spec.theme, spec.markers[i].style.color),
                spec.markers[i].group,
            ),
            LabelOf::Zoom => (cs.title, None),
            _ => continue,
        };
        let (x0, y0, x1, y1) = b.rect;
        group(grp);
        root.draw(&Rectangle::new(
            [(x0, y0), (x1, y1)],
            color(cs.bg).mix(0.92).filled(),
        ))
        .map_err(err)?;
        root.draw(&Rectangle::new(
            [(x0, y0), (x1, y1)],
            ShapeStyle {
                color: color(edge).mix(1.0),
                filled: false,
                stroke_width: ((1.5 * l.scale).round() as u32).max(1),
            },
        ))
        .map_err(err)?;
        for (i, line) in b.lines.iter().enumerate() {
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

/// Each band's label goes inside its band, in a stretch of it that no marker's line or shaded
/// interval crosses, just above the highest point of the lines over the
/// label, or just below the lowest, or at the bottom, whichever first fits inside the plot
/// without covering a marker label or the zoom mark; so it does not hide the data it
/// describes. The short label where the long one has no room. A band too narrow for either
/// (a short cache phase on a long time axis, a folding phase at the end of the data axis)
/// gets it turned to run upwards inside it, and only where it is too narrow for that, beside
/// it, with a leader line into it ([`beside_band`]): a label outside its band sits on another
/// phase's tint, and the line says which phase it names. The bands in `in_zoom` are named
/// in the zoom mark's box and get no label of their own.
fn place_band_labels(
    spec: &ChartSpec,
    p: &Px,
    l: &Layout,
    boxes: &[(i32, i32, i32, i32)],
    in_zoom: &[usize],
) -> Vec<PlacedLabel> {
    let f = l.font(font_px::LABEL);
    let cs = colors(spec.theme);
    let st = Style::new(f).color(cs.text);
    let gap = l.label_gap() as i32;
    let pad = (0.4 * f) as i32;
    let h = (1.25 * f) as i32 + 2 * pad - (0.25 * f) as i32;
    let mut out = Vec::new();
    let mut narrow = Vec::new();
    for (i, b) in spec.bands.iter().enumerate() {
        let (a, z) = (
            p.x(&spec.x, b.x0).max(p.left),
            p.x(&spec.x, b.x1).min(p.right),
        );
        // A band that is not drawn (outside a zoomed chart's range) has no label; one named
        // in the zoom mark's box has it there.
        if z <= a || in_zoom.contains(&i) {
            continue;
        }
        // Inside the band, clear of the cliffs' lines and shaded intervals (where the phase's
        // start or end is uncertain, or a first sample holds a drop): a label across one would
        // read as the marker's, or as the neighbouring phase's.
        let clear = clear_stretches(spec, p, (a, z), gap);
        let placed = [&b.label, &b.short_label]
            .into_iter()
            .filter(|t| !t.is_empty())
            .map(|t| (t, st.width(t) as i32))
            .find_map(|(t, w)| {
                clear
                    .iter()
                    .filter(|&&(ca, cz)| w + 2 * pad <= cz - ca - 2 * gap)
                    .find_map(|&(ca, _)| {
                        band_label_y(spec, p, boxes, ca, (ca + gap, w, h), (gap, pad))
                            .map(|y0| (t.clone(), w, ca + gap, y0))
                    })
            });
        let Some((text, w, x0, y0)) = placed else {
            narrow.push((i, a, z));
            continue;
        };
        out.push(PlacedLabel {
            of: LabelOf::Band(i),
            lines: vec![text],
            rect: (x0, y0, x0 + w + 2 * pad, y0 + h),
            leader: None,
            upright: true,
        });
    }
    // A band too narrow for its label upright: the label turned to run bottom to top inside
    // it, in a stretch no marker covers, above or below the lines as an upright one goes.
    // A label beside its band sits on another phase's tint, so this comes first.
    let mut beside = Vec::new();
    for (i, a, z) in narrow {
        let b = &spec.bands[i];
        let mut taken: Vec<(i32, i32, i32, i32)> = boxes.to_vec();
        taken.extend(out.iter().map(|b| b.rect));
        let clear = clear_stretches(spec, p, (a, z), gap);
        let turned = [&b.label, &b.short_label]
            .into_iter()
            .filter(|t| !t.is_empty())
            .find_map(|t| {
                let len = st.width(t) as i32 + 2 * pad;
                clear
                    .iter()
                    .filter(|&&(ca, cz)| h + 2 * gap <= cz - ca)
                    .find_map(|&(ca, cz)| {
                        let x0 = (ca + cz - h) / 2;
                        band_label_y(spec, p, &taken, ca, (x0, h - 2 * pad, len), (gap, pad))
                            .map(|y0| (t.clone(), (x0, y0, x0 + h, y0 + len)))
                    })
            });
        match turned {
            Some((text, rect)) => out.push(PlacedLabel {
                of: LabelOf::Band(i),
                lines: vec![text],
                rect,
                leader: None,
                upright: false,
            }),
            None => beside.push((i, a, z)),
        }
    }
    // The labels beside their bands, clear of every label placed so far and of their leader
    // lines.
    for (i, a, z) in beside {
        let mut taken: Vec<(i32, i32, i32, i32)> = boxes.to_vec();
        taken.extend(out.iter().map(|b| b.rect));
        let leaders: Vec<Rect> = out.iter().filter_map(|b| b.leader).collect();
        let b = &spec.bands[i];
        let placed = [&b.label, &b.short_label]
            .into_iter()
            .filter(|t| !t.is_empty())
            .find_map(|t| {
                let w = st.width(t) as i32 + 2 * pad;
                beside_band(spec, p, (&taken, &leaders), (i, a, z, b.level), (w, h), gap)
                    .map(|(rect, leader)| (t.clone(), rect, leader))
            });
        if let Some((text, rect, leader)) = placed {
            out.push(PlacedLabel {
                of: LabelOf::Band(i),
                lines: vec![text],
                rect,
                leader: Some(leader),
                upright: true,
            });
        }
    }
    out
}

/// A box of `w` by `h` pixels beside the band from pixel `a` to `z`, with the leader line from
/// its near edge to the band's `level` (y-axis units) just inside the band: on the side with
/// more room first, as close to the band's level as it goes without leaving the plot,
/// covering a box in `taken`, or covering the lines drawn under it (the neighbouring phase's
/// data); moved further out, up to its own width, where no height next to the band will do.
/// The box sits on a neighbouring phase's tint, so it keeps to its own band's side of that
/// phase's level (a cache's label over the next tier's line, never under it, where it would
/// read as that tier's), clear of every marker's line and shaded interval, and its leader
/// line crosses no box in `taken` and ends in the band's own tint, outside any marker's
/// shaded interval, so that it ties the label to its band, not to a cliff. Neither the box nor
/// the line comes within a gap of a leader line in `leaders` (a p5's heat labels at 30 s
/// samples: one leader ran through the point another ended on, each label seeming to point
/// at the other's spell), and neither lies over another band of the band's own colour (band
/// `own` of the spec): a label on another spell's tint, or a line across it, reads as that
/// spell's.
fn beside_band(
    spec: &ChartSpec,
    p: &Px,
    (taken, leaders): (&[Rect], &[Rect]),
    (own, a, z, level): (usize, i32, i32, Option<f64>),
    (w, h): (i32, i32),
    gap: i32,
) -> Option<(Rect, Rect)> {
    let mid = (a + z) / 2;
    // The band's level: the one its label names, else the median of the lines' points over
    // it, else the plot's middle.
    let mut ys: Vec<i32> = left_points(spec)
        .filter(|q| {
            let x = p.x(&spec.x, q.0);
            x >= a && x <= z
        })
        .map(|q| p.y(&spec.y, q.1))
        .collect();
    ys.sort_unstable();
    let level_px = |v: Option<f64>| match v {
        Some(v) if v.is_finite() && (!spec.y.log || v > 0.0) => {
            Some(p.y(&spec.y, v).clamp(p.top, p.bottom))
        }
        _ => None,
    };
    let level = level_px(level).unwrap_or_else(|| {
        ys.get(ys.len() / 2)
            .copied()
            .unwrap_or((p.top + p.bottom) / 2)
    });
    // Far enough from the band that the line shows past a cliff's shaded interval; the left
    // edge of the box nearest the band, and the way it moves out.
    let lead = 3 * gap;
    let right = (z + lead, 1);
    let left = (a - lead - w, -1);
    let sides = if mid - p.left < p.right - mid {
        [right, left]
    } else {
        [left, right]
    };
    // Tops of the box nearest the level first: centred on it, then stepping away.
    let centred = level - h / 2;
    let (lo, hi) = (p.top + gap, p.bottom - gap - h);
    let mut tops: Vec<i32> = (lo..=hi.max(lo)).step_by(gap.max(1) as usize).collect();
    tops.push(centred.clamp(lo, hi.max(lo)));
    tops.sort_by_key(|y| ((y - centred).abs(), *y));
    // The line ends just inside the band's own tint (in the middle of a sliver), so that it
    // hides little of the band's own line: in its widest stretch clear of the cliffs' shaded
    // intervals, where the band has one, so that the dot is on its band, not on a cliff's.
    let (ca, cz) = clear_stretches(spec, p, (a, z), 0)
        .into_iter()
        .max_by_key(|&(ca, cz)| cz - ca)
        .unwrap_or((a, z));
    let inside = ((cz - ca) / 2).min(2 * gap);
    let shades = shaded(spec, p, gap);
    // Moved out past a cliff's shaded interval beside the band if need be.
    let widest = shades.iter().map(|(s0, s1)| s1 - s0).max().unwrap_or(0);
    // The pixel columns of the other bands of this band's colour.
    let twins: Vec<(i32, i32)> = spec
        .bands
        .iter()
        .enumerate()
        .filter(|&(j, b)| j != own && b.color == spec.bands[own].color)
        .map(|(_, b)| (p.x(&spec.x, b.x0), p.x(&spec.x, b.x1)))
        .collect();
    for (start, dir) in sides {
        for k in 0..=((w + widest) / gap.max(1)) {
            let x0 = start + dir * k * gap.max(1);
            let x1 = x0 + w;
            if x0 < p.left + gap || x1 > p.right - gap {
                break;
            }
            let (from, to) = if dir > 0 {
                (x0, cz - inside)
            } else {
                (x1, ca + inside)
            };
            // A box across a cliff's line or shaded interval reads as the cliff's.
            if shades.iter().any(|&(s0, s1)| x1 >= s0 && x0 <= s1) {
                continue;
            }
            // Box and line over a twin band read as the twin's.
            let (c0, c1) = (x0.min(to), x1.max(to));
            if twins.iter().any(|&(t0, t1)| c1 > t0 && c0 < t1) {
                continue;
            }
            // Box and line keep to the band and the one beside it: a label two phases away,
            // its line across the phase between, sat in a phase it does not name ("tier 3:
            // 393 MB/s" in the SLC cache's tint, its line across the first post-cache level).
            let far = spec.bands.iter().enumerate().any(|(j, b)| {
                let (b0, b1) = (p.x(&spec.x, b.x0), p.x(&spec.x, b.x1));
                (j + 1 < own || j > own + 1) && c1 > b0 && c0 < b1
            });
            if far {
                continue;
            }
            // The level of the phase whose tint the box's middle sits on.
            let xm = (x0 + x1) / 2;
            let across = spec
                .bands
                .iter()
                .find(|b| p.x(&spec.x, b.x0) <= xm && xm < p.x(&spec.x, b.x1))
                .and_then(|b| level_px(b.level));
            let lines = line_spans(spec, p, x0 - gap, x1 + gap);
            let free = |y0: i32| {
                let y1 = y0 + h;
                let leader = (from, y0 + h / 2, to, level);
                y0 >= lo
                    && y1 <= p.bottom - gap
                    && taken
                        .iter()
                        .all(|&(bx0, by0, bx1, by1)| x1 < bx0 || x0 > bx1 || y1 < by0 || y0 > by1)
                    && lines
                        .iter()
                        .all(|&(top, bottom)| bottom < y0 - gap || top > y1 + gap)
                    && match across {
                        Some(n) if level < n => y1 < n,
                        Some(n) if level > n => y0 > n,
                        _ => true,
                    }
                    && taken.iter().all(|&r| !segment_meets(leader, r))
                    && leaders.iter().all(|&o| {
                        segments_apart(leader, o, gap)
                            && !segment_meets(o, (x0 - gap, y0 - gap, x1 + gap, y1 + gap))
                    })
            };
            if let Some(y0) = tops.iter().copied().find(|&y| free(y)) {
                return Some(((x0, y0, x1, y0 + h), (from, y0 + h / 2, to, level)));
            }
        }
    }
    None
}

/// The pixel columns (x0, x1) each marker covers: its line, widened by `gap` either side,
/// and its shaded interval (a cliff's 95 % interval, the first sample that holds a drop).
fn shaded(spec: &ChartSpec, p: &Px, gap: i32) -> Vec<(i32, i32)> {
    spec.markers
        .iter()
        .filter(|m| m.x.is_finite())
        .map(|m| {
            let xm = p.x(&spec.x, m.x);
            let (lo, hi) = m
                .interval
                .filter(|(lo, hi)| lo.is_finite() && hi.is_finite())
                .map_or((xm, xm), |(lo, hi)| (p.x(&spec.x, lo), p.x(&spec.x, hi)));
            (lo.min(xm) - gap, hi.max(xm) + gap)
        })
        .collect()
}

/// The stretches of the pixel columns `a` to `z` (a band) that no marker covers
/// ([`shaded`], widened by `gap`), left to right.
fn clear_stretches(spec: &ChartSpec, p: &Px, (a, z): (i32, i32), gap: i32) -> Vec<(i32, i32)> {
    let mut cover = shaded(spec, p, gap);
    cover.sort_unstable();
    let mut out = Vec::new();
    let mut from = a;
    for (s0, s1) in cover {
        if s1 < from {
            continue;
        }
        if s0 > from {
            out.push((from, s0.min(z)));
        }
        from = from.max(s1);
        if from >= z {
            break;
        }
    }
    if from < z {
        out.push((from, z));
    }
    out.retain(|(x0, x1)| x1 > x0);
    out
}

/// Whether the segment from `(x0, y0)` to `(x1, y1)` passes through the box `r` (pixels).
fn segment_meets((x0, y0, x1, y1): Rect, r: Rect) -> bool {
    let n = (x1 - x0).abs().max((y1 - y0).abs()).max(1);
    (0..=n).any(|k| {
        let x = x0 + (x1 - x0) * k / n;
        let y = y0 + (y1 - y0) * k / n;
        x >= r.0 && x <= r.2 && y >= r.1 && y <= r.3
    })
}

/// Whether the segments `a` and `b` (pixels, (x0, y0, x1, y1)) stay more than `gap` apart:
/// they do not cross, and no end of either is within `gap` of the other.
fn segments_apart(a: Rect, b: Rect, gap: i32) -> bool {
    let pt = |r: Rect| ((r.0 as f64, r.1 as f64), (r.2 as f64, r.3 as f64));
    let ((a0, a1), (b0, b1)) = (pt(a), pt(b));
    let cross = |o: (f64, f64), p: (f64, f64), q: (f64, f64)| {
        (p.0 - o.0) * (q.1 - o.1) - (p.1 - o.1) * (q.0 - o.0)
    };
    let (d1, d2) = (cross(b0, b1, a0), cross(b0, b1, a1));
    let (d3, d4) = (cross(a0, a1, b0), cross(a0, a1, b1));
    if d1 * d2 < 0.0 && d3 * d4 < 0.0 {
        return false;
    }
    // The distance from point `q` to the segment from `s0` to `s1`.
    let dist = |q: (f64, f64), s0: (f64, f64), s1: (f64, f64)| {
        let (dx, dy) = (s1.0 - s0.0, s1.1 - s0.1);
        let len2 = dx * dx + dy * dy;
        let t = if len2 > 0.0 {
            (((q.0 - s0.0) * dx + (q.1 - s0.1) * dy) / len2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        ((q.0 - s0.0 - t * dx).powi(2) + (q.1 - s0.1 - t * dy).powi(2)).sqrt()
    };
    let g = gap as f64;
    dist(a0, b0, b1) > g && dist(a1, b0, b1) > g && dist(b0, a0, a1) > g && dist(b1, a0, a1) > g
}

/// The points of the lines on the left axis that a log axis can draw.
fn left_points(spec: &ChartSpec) -> impl Iterator<Item = &(f64, f64)> {
    spec.series
        .iter()
        .filter(|s| s.side == YSide::Left)
        .flat_map(|s| s.points.iter())
        .filter(|q| q.0.is_finite() && q.1.is_finite() && (!spec.y.log || q.1 > 0.0))
}

/// The pixel rows (top, bottom) each segment of the left-axis lines covers between pixel
/// columns `x0` and `x1`: a step line's rise and fall count whole, so that no label is put
/// over a line that crosses it without a point inside it.
fn line_spans(spec: &ChartSpec, p: &Px, x0: i32, x1: i32) -> Vec<(i32, i32)> {
    let mut out = Vec::new();
    for s in spec.series.iter().filter(|s| s.side == YSide::Left) {
        let pts: Vec<Option<(i32, i32)>> = s
            .points
            .iter()
            .map(|q| {
                (q.0.is_finite() && q.1.is_finite() && (!spec.y.log || q.1 > 0.0))
                    .then(|| (p.x(&spec.x, q.0), p.y(&spec.y, q.1)))
            })
            .collect();
        for pair in pts.windows(2) {
            let (Some((xa, ya)), Some((xb, yb))) = (pair[0], pair[1]) else {
                continue;
            };
            if xa.max(xb) < x0 || xa.min(xb) > x1 {
                continue;
            }
            // The part of the segment between the columns (a vertical one whole).
            let at = |x: i32| {
                if xb == xa {
                    ya
                } else {
                    ya + ((yb - ya) as f64 * (x - xa) as f64 / (xb - xa) as f64).round() as i32
                }
            };
            let (y_a, y_b) = if xb == xa {
                (ya, yb)
            } else {
                (at(xa.min(xb).max(x0)), at(xa.max(xb).min(x1)))
            };
            out.push((y_a.min(y_b), y_a.max(y_b)));
        }
        // A single point (a one-sample line) has no segment.
        if pts.len() == 1 {
            if let Some((x, y)) = pts[0] {
                if x >= x0 && x <= x1 {
                    out.push((y, y));
                }
            }
        }
    }
    out
}

/// Where a band label of text width `w` and height `h` with its left edge at `x0` goes: the
/// top of its box, or `None` when it fits nowhere there (see [`draw_band_labels`]).
fn band_label_y(
    spec: &ChartSpec,
    p: &Px,
    boxes: &[(i32, i32, i32, i32)],
    a: i32,
    (x0, w, h): (i32, i32, i32),
    (gap, pad): (i32, i32),
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
    // The lines' extent over the label, leaving out the edge of the band (where the line
    // comes down a cliff) and the highest and lowest sixth of the points (spikes, dips and
    // the sample that straddles the cliff), so the label sits next to the level it names.
    let ys_in = |from: i32| ys_where(&|x| x > from && x <= x1 + gap);
    let ys = {
        let ys = ys_in(a + 3 * gap);
        if ys.len() < 3 {
            ys_in(a)
        } else {
            ys
        }
    };
    // No point over the label's columns (a long sample: the step line's corners lie at its
    // ends): the lines' segments that cross them. The label went to the foot of the chart,
    // far from its level (p5-1tb at 30 s samples: "1995 MB/s" at 0 MB/s).
    let ys = if ys.is_empty() {
        let mut ys: Vec<i32> = line_spans(spec, p, x0, x1)
            .into_iter()
            .flat_map(|(top, bottom)| [top, bottom])
            .collect();
        ys.sort_unstable();
        ys
    } else {
        ys
    };
    let (hi, lo) = level_extent(&ys);
    // The rows the right axis's lines (the temperature) take over the label's columns: a label
    // on the throughput's level was drawn over the temperature curve where it crossed.
    let right = right_spans(spec, p, x0 - gap, x1 + gap);
    let free = |y0: i32| {
        let y1 = y0 + h;
        y0 >= p.top + gap
            && y1 <= p.bottom - gap
            && boxes
                .iter()
                .all(|&(bx0, by0, bx1, by1)| x1 < bx0 || x0 > bx1 || y1 < by0 || y0 > by1)
            && right.iter().all(|&(t, b)| y1 + gap < t || y0 - gap > b)
    };
    let mut cands = Vec::new();
    if hi != i32::MAX {
        cands.push(hi - 2 * gap - h);
        cands.push(lo + 2 * gap);
        // Next to the level still, either side of the right axis's lines where they cross
        // there, nearest the level first; off the level itself, which the label would hide.
        let level = (hi + lo) / 2;
        let mut around: Vec<i32> = right
            .iter()
            .flat_map(|&(t, b)| [t - 2 * gap - h, b + 2 * gap])
            .filter(|&y| y + h + gap < hi || y - gap > lo)
            .collect();
        around.sort_by_key(|&y| (y + h / 2 - level).abs());
        cands.extend(around);
    }
    cands.push(p.bottom - gap - h);
    cands.into_iter().find(|&y| free(y))
}

/// The pixel rows (top, bottom) each line of the right axis takes between pixel columns `x0`
/// and `x1`: one span per segment that crosses them.
fn right_spans(spec: &ChartSpec, p: &Px, x0: i32, x1: i32) -> Vec<(i32, i32)> {
    let Some(y2) = spec.y2.as_ref() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for s in spec.series.iter().filter(|s| s.side == YSide::Right) {
        for w in s.points.windows(2) {
            let (ax, bx) = (p.x(&spec.x, w[0].0), p.x(&spec.x, w[1].0));
            let (ay, by) = (p.y(y2, w[0].1), p.y(y2, w[1].1));
            let (lo, hi) = (ax.min(bx), ax.max(bx));
            if hi < x0 || lo > x1 {
                continue;
            }
            // The segment's rows over the overlap of its columns with the label's.
            let at = |x: i32| {
                if bx == ax {
                    ay
                } else {
                    ay + ((by - ay) as f64 * (x - ax) as f64 / (bx - ax) as f64).round() as i32
                }
            };
            let (c0, c1) = (lo.max(x0), hi.min(x1));
            let (u, v) = (at(c0), at(c1));
            out.push((u.min(v), u.max(v)));
        }
        if let [only] = s.points.as_slice() {
            let x = p.x(&spec.x, only.0);
            if (x0..=x1).contains(&x) {
                let y = p.y(y2, only.1);
                out.push((y, y));
            }
        }
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::charts::{palette, Band, ChartKind, Marker, Series};

    /// A throughput chart of 33 minutes sampled every 2 minutes: a 49 s cache phase at
    /// 1631 MB/s (a sliver at the left), whose one sample straddles the cliff at 1430 MB/s,
    /// then a long tier at 495 MB/s and a last phase at 396 MB/s, each cliff with its label
    /// box at the top.
    fn narrow_high_phase_then_long_low_one(size: (u32, u32)) -> ChartSpec {
        let axis = |label: &str, max: f64| Axis {
            label: label.into(),
            min: 0.0,
            max,
            log: false,
            ticks: vec![],
        };
        let line = |points: Vec<(f64, f64)>, color: Rgb, width: f64| Series {
            name: "line".into(),
            points,
            style: LineStyle {
                color,
                alpha: 1.0,
                width,
                dash: Dash::Solid,
            },
            side: YSide::Left,
            in_legend: false,
            group: None,
        };
        // The per-interval step line and the smoothed one.
        let mut steps = vec![(0.0, 1430.0), (2.0, 1430.0)];
        for k in 1..8 {
            steps.push((2.0 * k as f64, 496.0));
            steps.push((2.0 * (k + 1) as f64, 496.0));
        }
        steps.extend([(16.0, 410.0), (18.0, 410.0), (18.0, 396.0), (33.3, 396.0)]);
        let smooth = vec![
            (1.0, 496.0),
            (8.0, 495.0),
            (16.3, 494.0),
            (16.3, 396.0),
            (32.5, 396.0),
        ];
        let band = |x0: f64, x1: f64, name: &str, level: f64, color: Rgb| Band {
            x0,
            x1,
            label: format!("{name}: {level:.0} MB/s"),
            short_label: format!("{level:.0} MB/s"),
            level: Some(level),
            color,
        };
        let marker = |x: f64, lines: [&str; 2]| Marker {
            x,
            interval: Some((x - 0.1, x + 1.2)),
            lines: lines.iter().map(|s| s.to_string()).collect(),
            style: LineStyle {
                color: palette::VERMILLION,
                alpha: 1.0,
                width: 2.5,
                dash: Dash::Dashed { on: 10, off: 6 },
            },
            side: LabelSide::Right,
            row: 0,
            group: None,
        };
        crate::report::charts::with_ticks(ChartSpec {
            kind: ChartKind::ThroughputTime,
            size,
            title: "Write throughput over time".into(),
            subtitle: "s".into(),
            footer: vec!["f".into()],
            x: axis("time since start (min)", 33.3),
            y: axis("write throughput (MB/s)", 1660.0),
            y2: None,
            series: vec![
                line(steps, palette::SKY_BLUE, 1.5),
                line(smooth, palette::BLUE, 3.0),
            ],
            bands: vec![
                band(0.0, 0.82, "SLC cache", 1631.0, palette::SKY_BLUE),
                band(0.82, 16.3, "tier 2", 495.0, palette::ORANGE),
                band(
                    16.3,
                    33.3,
                    "after the cache",
                    396.0,
                    palette::REDDISH_PURPLE,
                ),
            ],
            markers: vec![
                marker(
                    0.82,
                    ["cliff at 49.4 s, 80.7 GB written", "1631 -> 495 MB/s"],
                ),
                marker(
                    16.3,
                    ["cliff at 16.3 min, 597 GB written", "495 -> 396 MB/s"],
                ),
            ],
            legend: vec![],
            zoom: None,
            theme: Theme::Light,
            throttled: vec![],
        })
    }

    /// Whether the segment from `(x0, y0)` to `(x1, y1)` passes through the box `r`.
    fn crosses((x0, y0, x1, y1): Rect, r: Rect) -> bool {
        let n = (x1 - x0).abs().max((y1 - y0).abs()).max(1);
        (0..=n).any(|k| {
            let x = x0 + (x1 - x0) * k / n;
            let y = y0 + (y1 - y0) * k / n;
            x >= r.0 && x <= r.2 && y >= r.1 && y <= r.3
        })
    }

    /// `simulate a2000-1tb --interval 2m`: the cache phase's label, too wide for its sliver,
    /// was put beside it below the 495 MB/s line, on the second tier's tint under that tier's
    /// own label, with its leader line running up through both. A label beside its band
    /// stays on its band's side of the neighbouring phase's level, and its leader line
    /// crosses no other label.
    #[test]
    fn a_label_beside_a_high_sliver_stays_above_the_next_phase() {
        for size in [(1600, 900), (800, 450)] {
            let spec = narrow_high_phase_then_long_low_one(size);
            let l = layout_of(&spec);
            let p = Px::of(&l);
            let placed = placed_labels(&spec);
            let cache = placed
                .iter()
                .find(|b| b.of == LabelOf::Band(0))
                .unwrap_or_else(|| panic!("{size:?}: the cache phase has no label: {placed:?}"));
            let leader = cache.leader.expect("beside its sliver, with a leader line");
            let tier = p.y(&spec.y, 495.0);
            assert!(
                cache.rect.3 < tier,
                "{size:?}: {cache:?} is not above the 495 MB/s level at row {tier}"
            );
            for other in placed.iter().filter(|b| b.of != LabelOf::Band(0)) {
                assert!(
                    !crosses(leader, other.rect),
                    "{size:?}: the leader of {cache:?} crosses {other:?}"
                );
            }
        }
    }

    /// `compare` of three runs with drops not confirmed: the label of the one marked at 240 s,
    /// a line wider than the plot, ran off the chart's right edge ("…ran out in the first s").
    /// A marker's label is cut at a word end to fit, and its box lies inside the plot.
    #[test]
    fn a_marker_label_wider_than_the_plot_is_cut_to_fit() {
        for size in [(1600, 900), (800, 450)] {
            let mut spec = narrow_high_phase_then_long_low_one(size);
            spec.markers[1].lines = vec![
                "#6: Crucial P5 1TB (sim), randwrite 4K 240 s interval: >= 76.7 GB \
                 (unconfirmed; heat hides where it ran out), less if a faster first tier ran \
                 out in the first sample"
                    .into(),
                "drop inside the first 240 s sample".into(),
            ];
            let l = layout_of(&spec);
            let p = Px::of(&l);
            let placed = placed_labels(&spec);
            let b = placed
                .iter()
                .find(|b| b.of == LabelOf::Marker(1))
                .expect("the marker's label");
            assert!(b.rect.0 >= p.left && b.rect.2 <= p.right, "{size:?}: {b:?}");
            assert!(b.lines[0].ends_with('…'), "{size:?}: {:?}", b.lines);
            assert!(
                b.lines[0].starts_with("#6: Crucial P5 1TB (sim)"),
                "{:?}",
                b.lines
            );
            assert_eq!(b.lines[1], "drop inside the first 240 s sample");
        }
    }
}
