//! The picture of a trace: the parts drawn in order into an RGB buffer.

use super::axis::{draw_axis, draw_grid};
use super::counters::draw_counters;
use super::font::Font;
use super::header::draw_header;
use super::lanes::{draw_backgrounds, draw_lanes};
use super::layout::Layout;
use super::painter::Painter;
use super::palette::{GREY, PAPER};
use super::trace::Trace;

/// The most pixels a picture may have (300 MB of RGB).
const MAX_PIXELS: u64 = 100_000_000;
/// The size of the note on an empty picture.
const NOTE_PX: f32 = 14.0;

/// A drawn picture.
pub(crate) struct Picture {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The pixels, row by row, 3 bytes (R, G, B) each.
    pub rgb: Vec<u8>,
    /// The number of spans drawn (those in the window).
    pub spans: usize,
}

/// Draws `trace`, titled `name`, `width` pixels wide, showing the window `(from, to)` in
/// microseconds of trace time.
pub(crate) fn render(
    trace: &Trace,
    name: &str,
    width: u32,
    window: (f64, f64),
) -> Result<Picture, String> {
    let layout = Layout::new(width, trace.lanes.len(), !trace.counters.is_empty(), window);
    let pixels = u64::from(layout.width) * u64::from(layout.height);
    if pixels > MAX_PIXELS {
        return Err(format!(
            "{} lanes make a picture of {} x {} pixels, more than {MAX_PIXELS}",
            trace.lanes.len(),
            layout.width,
            layout.height
        ));
    }
    let mut rgb = vec![0; pixels as usize * 3];
    let font = Font::new()?;
    let painter = Painter::new(&mut rgb, (layout.width, layout.height), &font);
    painter.clear(PAPER)?;
    draw_backgrounds(&painter, &layout, &trace.lanes)?;
    draw_grid(&painter, &layout)?;
    let spans = draw_lanes(&painter, &layout, &trace.lanes)?;
    draw_counters(&painter, &layout, &trace.counters)?;
    draw_axis(&painter, &layout)?;
    let instants = trace.lanes.iter().flat_map(|l| &l.instants);
    let instants_shown = instants.clone().any(|i| layout.shows(i.time, i.time));
    draw_header(
        &painter,
        &layout,
        name,
        &trace.categories(),
        instants.count() > 0,
    )?;
    let note = if trace.lanes.is_empty() && trace.counters.is_empty() {
        Some("no events in this trace")
    } else if trace.lanes.is_empty() {
        Some("no spans or instants in this trace")
    } else if spans == 0 && !instants_shown {
        Some("no spans or instants in this time window")
    } else {
        None
    };
    if let Some(note) = note {
        let centre = (layout.plot_left + layout.plot_right) / 2;
        let (half, top) = (
            (font.width(note, NOTE_PX) / 2.0) as i32 + 8,
            layout.row_top(0) + 22,
        );
        painter.rect((centre - half, top - 2), (centre + half, top + 19), PAPER)?;
        painter.text_centred(note, NOTE_PX, (centre, top), GREY)?;
    }
    drop(painter);
    Ok(Picture {
        width: layout.width,
        height: layout.height,
        rgb,
        spans,
    })
}
