//! Text for charts: DejaVu Sans (embedded through the `dejavu` crate) laid out and rasterised
//! with `ab_glyph`, as a plotters text style.
//!
//! Why not plotters' own ab_glyph text: in plotters 0.3.7 it drops each glyph's left side
//! bearing and truncates vertical offsets, so at chart sizes digits sit unevenly and a decimal
//! point floats ("14·0"). This style places glyphs at their exact positions with kerning, on
//! the same baseline 0.76 em below the top of the line. In SVG the same glyphs are written as
//! outlines at the same positions (see [`crate::report::draw::svg`]), so PNG and SVG agree.

use std::sync::OnceLock;

use ab_glyph::{point, Font, FontRef, PxScale, ScaleFont};
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{FontFamily, FontStyle, FontTransform};
use plotters_backend::{
    BackendColor, BackendCoord, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};

use crate::report::draw::color::Rgb;

struct Fonts {
    regular: FontRef<'static>,
    bold: FontRef<'static>,
}

fn fonts() -> &'static Fonts {
    static F: OnceLock<Fonts> = OnceLock::new();
    F.get_or_init(|| Fonts {
        // The dejavu crate's own TTF files: they always parse.
        regular: FontRef::try_from_slice(dejavu::sans::regular()).expect("DejaVu Sans parses"),
        bold: FontRef::try_from_slice(dejavu::sans::bold()).expect("DejaVu Sans Bold parses"),
    })
}

/// Where the baseline sits below the top of a line, in em (as the SVG backend's `dy`).
const BASELINE_EM: f64 = 0.76;
/// plotters' text "size" is 1.24 em (the SVG backend writes `font-size = size / 1.24`).
pub const SIZE_PER_EM: f64 = 1.24;

/// A text style: size in pixels per em, weight, colour, anchor, and whether it runs upwards.
#[derive(Clone, Copy)]
pub struct Style {
    /// Pixels per em.
    pub em: f64,
    /// Bold.
    pub bold: bool,
    /// Colour.
    pub color: Rgb,
    /// Opacity.
    pub alpha: f64,
    /// Horizontal anchor (the vertical anchor is always the top of the line).
    pub h: HPos,
    /// Rotated to run bottom to top (y axis descriptions).
    pub up: bool,
}

impl Style {
    /// Regular text of `em` pixels, dark grey, anchored at its left.
    pub fn new(em: f64) -> Style {
        Style {
            em,
            bold: false,
            color: Rgb(25, 25, 25),
            alpha: 1.0,
            h: HPos::Left,
            up: false,
        }
    }
    /// The same, bold.
    pub fn bold(self) -> Style {
        Style { bold: true, ..self }
    }
    /// The same in another colour.
    pub fn color(self, c: Rgb) -> Style {
        Style { color: c, ..self }
    }
    /// The same with another horizontal anchor.
    pub fn anchor(self, h: HPos) -> Style {
        Style { h, ..self }
    }
    /// The same, running bottom to top.
    pub fn up(self) -> Style {
        Style { up: true, ..self }
    }
    fn font(&self) -> &'static FontRef<'static> {
        let f = fonts();
        if self.bold {
            &f.bold
        } else {
            &f.regular
        }
    }
    fn scale(&self) -> PxScale {
        let f = self.font();
        let upem = f.units_per_em().unwrap_or(2048.0);
        PxScale::from((self.em as f32) * f.height_unscaled() / upem)
    }
    /// Width of `text` in pixels.
    pub fn width(&self, text: &str) -> f64 {
        let font = self.font().as_scaled(self.scale());
        let mut x = 0f32;
        let mut prev = None;
        for c in text.chars() {
            let id = font.glyph_id(c);
            if let Some(p) = prev {
                x += font.kern(p, id);
            }
            x += font.h_advance(id);
            prev = Some(id);
        }
        x as f64
    }
    /// Height of a line in pixels (one em).
    pub fn height(&self) -> f64 {
        self.em
    }
    /// Each glyph of `text` with its left edge in pixels (kerning applied), as drawn.
    pub fn glyph_positions(&self, text: &str) -> Vec<(ab_glyph::GlyphId, f32)> {
        let font = self.font().as_scaled(self.scale());
        let mut x = 0f32;
        let mut prev = None;
        let mut v = Vec::with_capacity(text.len());
        for c in text.chars() {
            let id = font.glyph_id(c);
            if let Some(p) = prev {
                x += font.kern(p, id);
            }
            v.push((id, x));
            x += font.h_advance(id);
            prev = Some(id);
        }
        v
    }
    /// The font (regular or bold).
    pub fn font_ref(&self) -> &'static FontRef<'static> {
        self.font()
    }
    /// Pixels per font unit at this size.
    pub fn units_to_px(&self) -> f64 {
        self.font().as_scaled(self.scale()).h_scale_factor() as f64
    }
    /// Distance of the baseline below the top of the line, pixels.
    pub fn baseline(&self) -> f64 {
        (self.em * BASELINE_EM) as f32 as f64
    }
}

impl BackendTextStyle for Style {
    type FontError = std::fmt::Error;

    fn color(&self) -> BackendColor {
        BackendColor {
            alpha: self.alpha,
            rgb: (self.color.0, self.color.1, self.color.2),
        }
    }
    fn size(&self) -> f64 {
        self.em * SIZE_PER_EM
    }
    fn transform(&self) -> FontTransform {
        if self.up {
            FontTransform::Rotate270
        } else {
            FontTransform::None
        }
    }
    fn style(&self) -> FontStyle {
        if self.bold {
            FontStyle::Bold
        } else {
            FontStyle::Normal
        }
    }
    fn anchor(&self) -> Pos {
        Pos::new(self.h, VPos::Top)
    }
    fn family(&self) -> FontFamily<'_> {
        FontFamily::SansSerif
    }
    fn layout_box(&self, text: &str) -> Result<((i32, i32), (i32, i32)), Self::FontError> {
        Ok((
            (0, 0),
            (self.width(text).round() as i32, self.em.round() as i32),
        ))
    }
    fn draw<E, F: FnMut(i32, i32, BackendColor) -> Result<(), E>>(
        &self,
        text: &str,
        pos: BackendCoord,
        mut draw: F,
    ) -> Result<Result<(), E>, Self::FontError> {
        let scale = self.scale();
        let font = self.font().as_scaled(scale);
        let base = self.color();
        let baseline = (self.em * BASELINE_EM) as f32;
        let mut x = 0f32;
        let mut prev = None;
        let mut pixels = Vec::new();
        for c in text.chars() {
            let id = font.glyph_id(c);
            if let Some(p) = prev {
                x += font.kern(p, id);
            }
            let glyph = id.with_scale_and_position(scale, point(x, baseline));
            if let Some(o) = self.font().outline_glyph(glyph) {
                let b = o.px_bounds();
                o.draw(|gx, gy, cov| {
                    if cov > 0.0 {
                        pixels.push((b.min.x as i32 + gx as i32, b.min.y as i32 + gy as i32, cov));
                    }
                });
            }
            x += font.h_advance(id);
            prev = Some(id);
        }
        for (px, py, cov) in pixels {
            let c = BackendColor {
                alpha: base.alpha * (cov.min(1.0) as f64),
                rgb: base.rgb,
            };
            if let Err(e) = draw(pos.0 + px, pos.1 + py, c) {
                return Ok(Err(e));
            }
        }
        Ok(Ok(()))
    }
}

/// A text element at a pixel position (the anchor point: top of the line, and left, centre or
/// right edge as the style says).
pub struct Label {
    /// The text.
    pub text: String,
    /// Anchor position in pixels.
    pub pos: BackendCoord,
    /// Style.
    pub style: Style,
}

impl Label {
    /// A label.
    pub fn new(text: impl Into<String>, pos: (i32, i32), style: Style) -> Label {
        Label {
            text: text.into(),
            pos,
            style,
        }
    }
}

impl<'a> plotters::element::PointCollection<'a, BackendCoord> for &'a Label {
    type Point = &'a BackendCoord;
    type IntoIter = std::iter::Once<&'a BackendCoord>;
    fn point_iter(self) -> Self::IntoIter {
        std::iter::once(&self.pos)
    }
}

impl<DB: DrawingBackend> plotters::element::Drawable<DB> for Label {
    fn draw<I: Iterator<Item = BackendCoord>>(
        &self,
        mut points: I,
        backend: &mut DB,
        _: (u32, u32),
    ) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        match points.next() {
            Some(p) => backend.draw_text(&self.text, &self.style, p),
            None => Ok(()),
        }
    }
}
