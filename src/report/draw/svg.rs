//! A plotters drawing backend that writes SVG with its text as glyph outlines.
//!
//! Charts must look the same in every viewer, but an SVG `<text>` element is drawn in whatever
//! font the viewer has. Here each glyph used (DejaVu Sans, embedded through the `dejavu` crate)
//! is written once as a `<path>` in `<defs>`, in font units, and every text places `<use>`
//! references to it: a font subset as outlines, a few kB per chart. Glyphs are placed exactly
//! where the PNG's rasteriser ([`crate::report::draw::text::Style`]) puts them, so the two images agree.
//! Each text group carries the text in an `aria-label` attribute, so screen readers, search
//! and tests still see it.
//!
//! Elements drawn while a comparison run's group is set (see [`GroupCell`]) are wrapped in
//! `<g class="run" data-run="i">`, so report.html can hide and show a run.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::rc::Rc;

use ab_glyph::{Font, FontRef, OutlineCurve};
use plotters::style::text_anchor::{HPos, VPos};
use plotters::style::{FontStyle, FontTransform};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};

use crate::report::draw::text::Style;

/// The comparison run that elements being drawn belong to; shared by the drawing code (which
/// sets it) and the backend (which groups elements by it).
pub type GroupCell = Rc<Cell<Option<usize>>>;

/// The error type of the backend (writing to a `String` cannot fail).
#[derive(Debug)]
pub struct SvgError;

impl std::fmt::Display for SvgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SVG writing failed")
    }
}

impl std::error::Error for SvgError {}

/// The backend; `present` writes the document into the string it was given.
pub struct GlyphSvg {
    size: (u32, u32),
    body: String,
    defs: String,
    glyphs: BTreeMap<(bool, u16), String>,
    group: GroupCell,
    open: Option<usize>,
    background: String,
    out: Rc<std::cell::RefCell<String>>,
}

fn rgb(c: BackendColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.rgb.0, c.rgb.1, c.rgb.2)
}

fn opacity(attr: &str, a: f64) -> String {
    if a >= 0.999 {
        String::new()
    } else {
        format!(" {attr}=\"{:.3}\"", a.max(0.0))
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

impl GlyphSvg {
    /// A backend for an image of `size` pixels whose background is `background` (a CSS
    /// colour), grouping elements by `group`; `present` writes the document into `out`.
    pub fn new(
        size: (u32, u32),
        background: &str,
        group: GroupCell,
        out: Rc<std::cell::RefCell<String>>,
    ) -> GlyphSvg {
        GlyphSvg {
            size,
            body: String::new(),
            defs: String::new(),
            glyphs: BTreeMap::new(),
            group,
            open: None,
            background: background.to_string(),
            out,
        }
    }

    /// The SVG document.
    fn finish(&mut self) -> String {
        self.sync_group(None);
        let (w, h) = self.size;
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" \
             width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">\n\
             <rect width=\"{w}\" height=\"{h}\" fill=\"{}\"/>\n<defs>\n{}</defs>\n{}</svg>\n",
            self.background, self.defs, self.body
        )
    }

    fn sync_group(&mut self, want: Option<usize>) {
        if self.open == want {
            return;
        }
        if self.open.is_some() {
            self.body.push_str("</g>\n");
        }
        if let Some(i) = want {
            let _ = writeln!(self.body, "<g class=\"run\" data-run=\"{i}\">");
        }
        self.open = want;
    }

    fn element(&mut self, s: &str) {
        let g = self.group.get();
        self.sync_group(g);
        self.body.push_str(s);
        self.body.push('\n');
    }

    /// The id of a glyph's outline in `<defs>`, written there the first time it is used.
    fn glyph(&mut self, font: &FontRef<'static>, bold: bool, id: ab_glyph::GlyphId) -> String {
        if let Some(name) = self.glyphs.get(&(bold, id.0)) {
            return name.clone();
        }
        let name = format!("{}{}", if bold { "b" } else { "r" }, id.0);
        let mut d = String::new();
        if let Some(o) = font.outline(id) {
            let mut last: Option<ab_glyph::Point> = None;
            let p = |q: ab_glyph::Point| format!("{:.0} {:.0}", q.x, -q.y);
            for c in &o.curves {
                let start = match c {
                    OutlineCurve::Line(a, _)
                    | OutlineCurve::Quad(a, _, _)
                    | OutlineCurve::Cubic(a, _, _, _) => *a,
                };
                if last != Some(start) {
                    if last.is_some() {
                        d.push('Z');
                    }
                    let _ = write!(d, "M{}", p(start));
                }
                match c {
                    OutlineCurve::Line(_, b) => {
                        let _ = write!(d, "L{}", p(*b));
                        last = Some(*b);
                    }
                    OutlineCurve::Quad(_, b, e) => {
                        let _ = write!(d, "Q{} {}", p(*b), p(*e));
                        last = Some(*e);
                    }
                    OutlineCurve::Cubic(_, b, c2, e) => {
                        let _ = write!(d, "C{} {} {}", p(*b), p(*c2), p(*e));
                        last = Some(*e);
                    }
                }
            }
            if last.is_some() {
                d.push('Z');
            }
        }
        let _ = writeln!(self.defs, "<path id=\"{name}\" d=\"{d}\"/>");
        self.glyphs.insert((bold, id.0), name.clone());
        name
    }
}

impl DrawingBackend for GlyphSvg {
    type ErrorType = SvgError;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }
    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<SvgError>> {
        Ok(())
    }
    fn present(&mut self) -> Result<(), DrawingErrorKind<SvgError>> {
        let doc = self.finish();
        *self.out.borrow_mut() = doc;
        Ok(())
    }
    fn draw_pixel(
        &mut self,
        p: BackendCoord,
        c: BackendColor,
    ) -> Result<(), DrawingErrorKind<SvgError>> {
        if c.alpha > 0.0 {
            let s = format!(
                "<rect x=\"{}\" y=\"{}\" width=\"1\" height=\"1\" fill=\"{}\"{}/>",
                p.0,
                p.1,
                rgb(c),
                opacity("fill-opacity", c.alpha)
            );
            self.element(&s);
        }
        Ok(())
    }
    fn draw_line<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        st: &S,
    ) -> Result<(), DrawingErrorKind<SvgError>> {
        self.draw_path([a, b], st)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        ul: BackendCoord,
        br: BackendCoord,
        st: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<SvgError>> {
        let c = st.color();
        if c.alpha <= 0.0 {
            return Ok(());
        }
        let (x0, y0) = (ul.0.min(br.0), ul.1.min(br.1));
        let (w, h) = ((br.0 - ul.0).abs(), (br.1 - ul.1).abs());
        let s = if fill {
            // The bitmap backend fills both end pixels: one more than the difference.
            format!(
                "<rect x=\"{x0}\" y=\"{y0}\" width=\"{}\" height=\"{}\" fill=\"{}\"{}/>",
                w + 1,
                h + 1,
                rgb(c),
                opacity("fill-opacity", c.alpha)
            )
        } else {
            format!(
                "<rect x=\"{}\" y=\"{}\" width=\"{w}\" height=\"{h}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{}/>",
                x0 as f64 + 0.5,
                y0 as f64 + 0.5,
                rgb(c),
                st.stroke_width(),
                opacity("stroke-opacity", c.alpha)
            )
        };
        self.element(&s);
        Ok(())
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        st: &S,
    ) -> Result<(), DrawingErrorKind<SvgError>> {
        let c = st.color();
        if c.alpha <= 0.0 {
            return Ok(());
        }
        // As the bitmap backend draws them: a single segment of even width covers one pixel
        // more (both edge pixels), centred on the pixel centre; a longer path is widened to
        // exactly its width, centred on the pixel corner for even widths.
        let path: Vec<BackendCoord> = path.into_iter().collect();
        let w0 = st.stroke_width();
        let (w, off) = match (path.len(), w0 > 1 && w0.is_multiple_of(2)) {
            (2, true) => (w0 + 1, 0.5),
            (_, true) => (w0, 0.0),
            _ => (w0, 0.5),
        };
        let mut pts = String::new();
        for (i, p) in path.into_iter().enumerate() {
            if i > 0 {
                pts.push(' ');
            }
            let _ = write!(pts, "{},{}", p.0 as f64 + off, p.1 as f64 + off);
        }
        let s = format!(
            "<polyline points=\"{pts}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{w}\" stroke-linejoin=\"round\"{}/>",
            rgb(c),
            opacity("stroke-opacity", c.alpha)
        );
        self.element(&s);
        Ok(())
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        st: &S,
    ) -> Result<(), DrawingErrorKind<SvgError>> {
        let c = st.color();
        let pts: Vec<String> = vert
            .into_iter()
            .map(|p| format!("{},{}", p.0, p.1))
            .collect();
        let s = format!(
            "<polygon points=\"{}\" fill=\"{}\"{}/>",
            pts.join(" "),
            rgb(c),
            opacity("fill-opacity", c.alpha)
        );
        self.element(&s);
        Ok(())
    }
    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        st: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<SvgError>> {
        let c = st.color();
        let paint = if fill {
            format!("fill=\"{}\"{}", rgb(c), opacity("fill-opacity", c.alpha))
        } else {
            format!(
                "fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{}",
                rgb(c),
                st.stroke_width(),
                opacity("stroke-opacity", c.alpha)
            )
        };
        let s = format!(
            "<circle cx=\"{}\" cy=\"{}\" r=\"{radius}\" {paint}/>",
            center.0, center.1
        );
        self.element(&s);
        Ok(())
    }
    fn estimate_text_size<T: BackendTextStyle>(
        &self,
        text: &str,
        st: &T,
    ) -> Result<(u32, u32), DrawingErrorKind<SvgError>> {
        let s = to_style(st);
        Ok((s.width(text).round() as u32, s.em.round() as u32))
    }
    fn draw_text<T: BackendTextStyle>(
        &mut self,
        text: &str,
        st: &T,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<SvgError>> {
        let c = st.color();
        if c.alpha <= 0.0 || text.is_empty() {
            return Ok(());
        }
        let s = to_style(st);
        let width = s.width(text).round() as i32;
        let height = s.em.round() as i32;
        // As plotters' own text placement: shift by the anchor, then rotate about `pos`.
        let anchor = st.anchor();
        let dx = match anchor.h_pos {
            HPos::Left => 0,
            HPos::Right => -width,
            HPos::Center => -width / 2,
        };
        let dy = match anchor.v_pos {
            VPos::Top => 0,
            VPos::Center => -height / 2,
            VPos::Bottom => -height,
        };
        // The bitmap backend rotates pixel squares: pixel (x, y) lands on (y, -x) for 270
        // degrees, which as a continuous map is one pixel further down (and so on).
        let (rot, ox, oy) = match st.transform() {
            FontTransform::Rotate90 => (" rotate(90)", 1, 0),
            FontTransform::Rotate180 => (" rotate(180)", 1, 1),
            FontTransform::Rotate270 => (" rotate(-90)", 0, 1),
            _ => ("", 0, 0),
        };
        let placed = s.glyph_positions(text);
        let font = s.font_ref();
        let k = s.units_to_px();
        let mut uses = String::new();
        for (id, x) in placed {
            let name = self.glyph(font, s.bold, id);
            let _ = write!(
                uses,
                "<use xlink:href=\"#{name}\" x=\"{:.0}\"/>",
                x as f64 / k
            );
        }
        let el = format!(
            "<g aria-label=\"{}\" fill=\"{}\"{} transform=\"translate({} {}){rot} translate({dx} {:.2}) scale({k:.6})\">{uses}</g>",
            esc(text),
            rgb(c),
            opacity("fill-opacity", c.alpha),
            pos.0 + ox,
            pos.1 + oy,
            dy as f64 + s.baseline()
        );
        self.element(&el);
        Ok(())
    }
}

/// A [`Style`] from any plotters text style (size, weight, colour).
fn to_style<T: BackendTextStyle>(st: &T) -> Style {
    let c = st.color();
    let mut s = Style::new(st.size() / crate::report::draw::text::SIZE_PER_EM)
        .color(crate::report::charts::Rgb(c.rgb.0, c.rgb.1, c.rgb.2));
    if matches!(st.style(), FontStyle::Bold) {
        s = s.bold();
    }
    s
}
