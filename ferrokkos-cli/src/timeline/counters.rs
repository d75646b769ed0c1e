//! The counter panel below the lanes: each counter series as a step line on one shared scale,
//! with its colour, name and maximum in the name column.

use super::layout::{Layout, MARGIN, NAME_COLUMN};
use super::painter::{Painter, Point};
use super::palette::{GREY, INK, RULE, SERIES};
use super::trace::Counter;
use super::units::format_value;

/// The size of the panel's text.
const TEXT_PX: f32 = 12.0;
/// The spacing of the series' lines in the name column.
const LINE: i32 = 16;

/// Draws the panel for `counters` if the layout has one.
pub(crate) fn draw_counters(
    painter: &Painter,
    layout: &Layout,
    counters: &[Counter],
) -> Result<(), String> {
    let Some(top) = layout.counters_top else {
        return Ok(());
    };
    let right = layout.width as i32 - 1;
    painter.line(vec![(0, top), (right, top)], RULE, 1)?;
    let (y_top, y_bottom) = (top + 22, layout.axis_top - 8);
    let bytes = counters.iter().all(|c| c.bytes);
    let max = counters.iter().map(Counter::max).fold(0.0, f64::max);
    let scale = if max > 0.0 { max } else { 1.0 };

    let heading = if bytes { "memory in use" } else { "counters" };
    painter.text(heading, TEXT_PX, (MARGIN, top + 6), GREY)?;
    painter.line(
        vec![(layout.plot_left, y_top), (layout.plot_right, y_top)],
        RULE,
        1,
    )?;
    painter.line(
        vec![(layout.plot_left, y_bottom), (layout.plot_right, y_bottom)],
        RULE,
        1,
    )?;
    let top_label = format_value(scale, bytes);
    let label_x = layout.plot_right - 4 - painter.font().width(&top_label, TEXT_PX).ceil() as i32;
    painter.text(&top_label, TEXT_PX, (label_x, y_top - 16), GREY)?;

    let rows = ((y_bottom - top - 22) / LINE).max(1) as usize;
    for (i, counter) in counters.iter().enumerate() {
        let color = SERIES[i % SERIES.len()];
        let y = |v: f64| y_bottom as f64 - v / scale * f64::from(y_bottom - y_top);
        painter.line(step_points(layout, counter, y), color, 2)?;
        if i < rows {
            let line_y = top + 28 + i as i32 * LINE;
            painter.rect((MARGIN, line_y - 1), (MARGIN + 14, line_y + 1), color)?;
            let max = format!(": max {}", format_value(counter.max(), counter.bytes));
            let font = painter.font();
            let room = (NAME_COLUMN - 36) as f32 - font.width(&max, TEXT_PX);
            let name = font
                .fit(&counter.name, TEXT_PX, room, 1)
                .unwrap_or_default();
            painter.text_middle(&(name + &max), TEXT_PX, (MARGIN + 20, line_y), INK)?;
        } else if i == rows {
            let more = format!("and {} more", counters.len() - rows);
            painter.text_middle(
                &more,
                TEXT_PX,
                (MARGIN + 20, top + 28 + i as i32 * LINE),
                GREY,
            )?;
        }
    }
    Ok(())
}

/// The corners of the step line of `counter` over the window, with `y` mapping values to pixels:
/// the value before the first event is 0, and each value holds until the next event.
fn step_points(layout: &Layout, counter: &Counter, y: impl Fn(f64) -> f64) -> Vec<Point> {
    let at = |t: f64, v: f64| (layout.x(t).round() as i32, y(v).round() as i32);
    let before = counter
        .points
        .iter()
        .take_while(|p| p.0 <= layout.from)
        .last();
    let mut value = before.map_or(0.0, |p| p.1);
    let mut points = vec![at(layout.from, value)];
    for &(t, v) in counter
        .points
        .iter()
        .filter(|p| p.0 > layout.from && p.0 <= layout.to)
    {
        points.push(at(t, value));
        points.push(at(t, v));
        value = v;
    }
    points.push(at(layout.to, value));
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_hold_their_value_until_the_next_event() {
        let layout = Layout::new(1274, 1, true, (0.0, 1000.0));
        let counter = Counter {
            name: "memory Cuda".into(),
            bytes: true,
            points: vec![(-5.0, 2.0), (250.0, 4.0), (500.0, 1.0), (2000.0, 9.0)],
        };
        let points = step_points(&layout, &counter, |v| v);
        let left = layout.plot_left;
        assert_eq!(
            points,
            [
                (left, 2),
                (left + 250, 2),
                (left + 250, 4),
                (left + 500, 4),
                (left + 500, 1),
                (left + 1000, 1)
            ]
        );
    }
}
