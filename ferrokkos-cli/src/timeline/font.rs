//! Text: measured and rasterised with ab_glyph from the Hack font embedded in the
//! `epaint_default_fonts` crate (egui's), so that labels render the same on any machine, with no
//! fontconfig, freetype or font file on disk. Hack is a monospace face made for small sizes
//! (DejaVu Sans Mono lineage): legible at the 11 to 13 pixels of span labels.

use ab_glyph::{Font as _, FontRef, PxScale, ScaleFont as _, point};

/// The text face.
pub(crate) struct Font {
    /// Hack Regular.
    face: FontRef<'static>,
}

impl Font {
    /// The embedded face; an error (which would be a broken build) says what failed.
    pub(crate) fn new() -> Result<Font, String> {
        FontRef::try_from_slice(epaint_default_fonts::HACK_REGULAR)
            .map(|face| Font { face })
            .map_err(|e| format!("the embedded Hack font does not load: {e}"))
    }

    /// The width in pixels of `text` at `px` pixels per em.
    pub(crate) fn width(&self, text: &str, px: f32) -> f32 {
        let scaled = self.face.as_scaled(PxScale::from(px));
        let mut width = 0.0;
        let mut previous = None;
        for c in text.chars() {
            let id = scaled.glyph_id(c);
            if let Some(p) = previous {
                width += scaled.kern(p, id);
            }
            width += scaled.h_advance(id);
            previous = Some(id);
        }
        width
    }

    /// The height of a line of text at `px` (ascent plus descent).
    pub(crate) fn line_height(&self, px: f32) -> f32 {
        let scaled = self.face.as_scaled(PxScale::from(px));
        scaled.ascent() - scaled.descent()
    }

    /// `text` as it fits in `max_width` pixels at `px`: whole, or cut with `…` keeping at least
    /// `min_chars` characters; `None` when not even that fits.
    pub(crate) fn fit(
        &self,
        text: &str,
        px: f32,
        max_width: f32,
        min_chars: usize,
    ) -> Option<String> {
        if self.width(text, px) <= max_width {
            return Some(text.to_string());
        }
        let scaled = self.face.as_scaled(PxScale::from(px));
        let room = max_width - self.width("…", px);
        let (mut width, mut end, mut count) = (0.0, 0, 0);
        for (i, c) in text.char_indices() {
            width += scaled.h_advance(scaled.glyph_id(c));
            if width > room {
                break;
            }
            (end, count) = (i + c.len_utf8(), count + 1);
        }
        (count >= min_chars).then(|| format!("{}…", text[..end].trim_end()))
    }

    /// Rasterises `text` at `px` with the top of its line at `(x, top)`, calling `plot(x, y,
    /// coverage)` for each pixel it touches (coverage in `0..=1`).
    pub(crate) fn draw(
        &self,
        text: &str,
        px: f32,
        (x, top): (f32, f32),
        mut plot: impl FnMut(i32, i32, f32),
    ) {
        let scaled = self.face.as_scaled(PxScale::from(px));
        let baseline = top + scaled.ascent();
        let mut caret = x;
        let mut previous = None;
        for c in text.chars() {
            let id = scaled.glyph_id(c);
            if let Some(p) = previous {
                caret += scaled.kern(p, id);
            }
            let glyph = id.with_scale_and_position(PxScale::from(px), point(caret, baseline));
            caret += scaled.h_advance(id);
            previous = Some(id);
            if let Some(outline) = self.face.outline_glyph(glyph) {
                let bounds = outline.px_bounds();
                outline.draw(|gx, gy, coverage| {
                    plot(
                        bounds.min.x as i32 + gx as i32,
                        bounds.min.y as i32 + gy as i32,
                        coverage,
                    );
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_cuts_and_draws() {
        let font = Font::new().unwrap();
        let wide = font.width("deep_copy x -> x_mirror", 12.0);
        assert!(wide > 100.0 && wide < 250.0, "{wide}");
        assert_eq!(font.fit("axpy", 12.0, 100.0, 2).as_deref(), Some("axpy"));
        let cut = font.fit("deep_copy x -> x_mirror", 12.0, 60.0, 2).unwrap();
        assert!(
            cut.ends_with('…') && font.width(&cut, 12.0) <= 60.0,
            "{cut}"
        );
        assert_eq!(font.fit("deep_copy", 12.0, 5.0, 2), None);
        let mut inked = 0;
        font.draw("µs", 13.0, (0.0, 0.0), |x, y, c| {
            assert!((0..20).contains(&x) && (0..20).contains(&y), "({x}, {y})");
            if c > 0.5 {
                inked += 1;
            }
        });
        assert!(inked > 10);
    }
}
