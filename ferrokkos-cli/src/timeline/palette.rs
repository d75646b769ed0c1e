//! The colours of the picture other than the categories': text, lines, stripes, markers, and the
//! counter series.

use plotters::style::RGBColor;

/// The background.
pub(crate) const PAPER: RGBColor = RGBColor(0xff, 0xff, 0xff);
/// Dark text.
pub(crate) const INK: RGBColor = RGBColor(0x20, 0x20, 0x24);
/// Secondary text, the axis.
pub(crate) const GREY: RGBColor = RGBColor(0x6a, 0x6a, 0x70);
/// Separators between lanes and panels.
pub(crate) const RULE: RGBColor = RGBColor(0xd4, 0xd4, 0xd8);
/// Vertical grid lines at the ticks.
pub(crate) const GRID: RGBColor = RGBColor(0xea, 0xea, 0xee);
/// The background of every other lane.
pub(crate) const STRIPE: RGBColor = RGBColor(0xf6, 0xf7, 0xf9);
/// Instant markers.
pub(crate) const INSTANT: RGBColor = RGBColor(0x6a, 0x1b, 0x9a);
/// The counter series, in turn: strong colours that read as lines on white.
pub(crate) const SERIES: [RGBColor; 8] = [
    RGBColor(0x1f, 0x5f, 0xbf),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x2c, 0x8c, 0x2c),
    RGBColor(0x94, 0x4f, 0xbd),
    RGBColor(0xe0, 0x7b, 0x00),
    RGBColor(0x17, 0x9c, 0xa8),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0x55, 0x55, 0x55),
];

/// `color` at 60% brightness.
pub(crate) fn darker(color: RGBColor) -> RGBColor {
    let scale = |c: u8| (u16::from(c) * 3 / 5) as u8;
    RGBColor(scale(color.0), scale(color.1), scale(color.2))
}
