//! Colours: `Rgb` and the palette every chart and the embedded-font text draw with.

/// A colour, 8 bits per channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

/// The Okabe-Ito palette: distinguishable with the common colour-vision deficiencies. Together
/// with different widths and dash patterns, lines stay apart when printed in grey.
pub mod palette {
    use super::Rgb;
    /// Black.
    pub const BLACK: Rgb = Rgb(0, 0, 0);
    /// Orange.
    pub const ORANGE: Rgb = Rgb(230, 159, 0);
    /// Sky blue.
    pub const SKY_BLUE: Rgb = Rgb(86, 180, 233);
    /// Bluish green.
    pub const BLUISH_GREEN: Rgb = Rgb(0, 158, 115);
    /// Yellow.
    pub const YELLOW: Rgb = Rgb(240, 228, 66);
    /// Blue.
    pub const BLUE: Rgb = Rgb(0, 114, 178);
    /// Vermillion.
    pub const VERMILLION: Rgb = Rgb(213, 94, 0);
    /// Reddish purple.
    pub const REDDISH_PURPLE: Rgb = Rgb(204, 121, 167);
    /// Mid grey, for neutral marks.
    pub const GREY: Rgb = Rgb(120, 120, 120);
}
