//! Drawing on the picture: plotters' bitmap backend over an RGB buffer for shapes, [`Font`] for
//! text, in pixel coordinates (x right, y down), with errors as strings.

use plotters::coord::Shift;
use plotters::prelude::{
    BitMapBackend, DrawingArea, IntoDrawingArea, PathElement, Polygon, Rectangle,
};
use plotters::style::{Color, RGBColor};

use super::font::Font;

/// Draws on one RGB buffer.
pub(crate) struct Painter<'a> {
    /// The whole picture.
    area: DrawingArea<BitMapBackend<'a>, Shift>,
    /// The text face.
    font: &'a Font,
}

/// A corner or point, in pixels.
pub(crate) type Point = (i32, i32);

/// The text of a drawing error.
fn failed(e: impl std::fmt::Display) -> String {
    format!("drawing the picture failed: {e}")
}

impl<'a> Painter<'a> {
    /// A painter on `buffer`, an RGB picture `size` pixels large (3 bytes a pixel, row by row).
    pub(crate) fn new(buffer: &'a mut [u8], size: (u32, u32), font: &'a Font) -> Painter<'a> {
        Painter {
            area: BitMapBackend::with_buffer(buffer, size).into_drawing_area(),
            font,
        }
    }

    /// The text face.
    pub(crate) fn font(&self) -> &Font {
        self.font
    }

    /// Paints the whole picture `color`.
    pub(crate) fn clear(&self, color: RGBColor) -> Result<(), String> {
        self.area.fill(&color).map_err(failed)
    }

    /// Fills the rectangle with corners `a` and `b` (both included).
    pub(crate) fn rect(&self, a: Point, b: Point, color: RGBColor) -> Result<(), String> {
        self.area
            .draw(&Rectangle::new([a, b], color.filled()))
            .map_err(failed)
    }

    /// Draws the 1-pixel outline of the rectangle with corners `a` and `b`.
    pub(crate) fn frame(&self, a: Point, b: Point, color: RGBColor) -> Result<(), String> {
        self.area
            .draw(&Rectangle::new([a, b], color.stroke_width(1)))
            .map_err(failed)
    }

    /// Draws the polyline through `points`, `width` pixels thick.
    pub(crate) fn line(
        &self,
        points: Vec<Point>,
        color: RGBColor,
        width: u32,
    ) -> Result<(), String> {
        self.area
            .draw(&PathElement::new(points, color.stroke_width(width)))
            .map_err(failed)
    }

    /// Fills the polygon through `points`.
    pub(crate) fn polygon(&self, points: Vec<Point>, color: RGBColor) -> Result<(), String> {
        self.area
            .draw(&Polygon::new(points, color.filled()))
            .map_err(failed)
    }

    /// Writes `text` at `px` pixels per em with the top of its line at `(x, top)`.
    pub(crate) fn text(
        &self,
        text: &str,
        px: f32,
        (x, top): Point,
        color: RGBColor,
    ) -> Result<(), String> {
        let mut outcome = Ok(());
        self.font
            .draw(text, px, (x as f32, top as f32), |x, y, coverage| {
                if outcome.is_ok() && coverage > 0.0 {
                    let ink = color.mix(f64::from(coverage.min(1.0)));
                    outcome = self.area.draw_pixel((x, y), &ink).map_err(failed);
                }
            });
        outcome
    }

    /// Writes `text` at `px` centred vertically on `middle`, starting at `x`.
    pub(crate) fn text_middle(
        &self,
        text: &str,
        px: f32,
        (x, middle): Point,
        color: RGBColor,
    ) -> Result<(), String> {
        let top = middle as f32 - self.font.line_height(px) / 2.0;
        self.text(text, px, (x, top.round() as i32), color)
    }

    /// Writes `text` at `px` centred horizontally on `centre`, with its top at `top`.
    pub(crate) fn text_centred(
        &self,
        text: &str,
        px: f32,
        (centre, top): Point,
        color: RGBColor,
    ) -> Result<(), String> {
        let x = centre as f32 - self.font.width(text, px) / 2.0;
        self.text(text, px, (x.round() as i32, top), color)
    }
}
