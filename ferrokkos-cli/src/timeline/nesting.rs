//! The nesting levels of the spans of one lane: a span that lies within another is one level
//! deeper (a kernel in a region, a fence in a region in a section).

/// Two times closer than this (half the trace's 1 ns resolution) are equal: a span that starts
/// where the previous one ends is its sibling, not its child.
const EPSILON_US: f64 = 0.0005;

/// The level of each span `(start, end)` of a lane, in the given order: 0 for a span in no other,
/// else one more than the deepest span still open when it starts. Properly nested spans get their
/// containment depth; a span that overlaps another without lying within it (not something a
/// ferrokkos trace has) goes below it, so that neither hides the other.
pub(crate) fn depths(spans: &[(f64, f64)]) -> Vec<usize> {
    // Parents before children: by start, the longer first.
    let mut order: Vec<usize> = (0..spans.len()).collect();
    order.sort_by(|&a, &b| {
        let (sa, ea) = spans[a];
        let (sb, eb) = spans[b];
        sa.total_cmp(&sb).then(eb.total_cmp(&ea))
    });
    let mut depths = vec![0; spans.len()];
    // The end of the span open at each level, while any is.
    let mut open: Vec<f64> = Vec::new();
    for i in order {
        let (start, end) = spans[i];
        while open.last().is_some_and(|&e| e <= start + EPSILON_US) {
            open.pop();
        }
        depths[i] = open.len();
        open.push(end);
    }
    depths
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contained_spans_go_one_level_deeper() {
        // A region with two kernels, the second with a fence inside; then a sibling region.
        let spans = [
            (100.0, 2100.0),
            (120.0, 150.0),
            (200.0, 400.0),
            (300.0, 350.0),
            (2100.0, 2200.0),
        ];
        assert_eq!(depths(&spans), [0, 1, 1, 2, 0]);
    }

    #[test]
    fn order_in_the_file_does_not_matter_and_equal_spans_nest() {
        let spans = [(5.0, 6.0), (0.0, 10.0), (0.0, 10.0), (10.0, 12.0)];
        let d = depths(&spans);
        assert_eq!(d[0], 2);
        assert_eq!(d[1] + d[2], 1);
        assert_eq!(d[3], 0);
    }

    #[test]
    fn overlapping_spans_stack() {
        assert_eq!(depths(&[(0.0, 10.0), (5.0, 20.0)]), [0, 1]);
        assert!(depths(&[]).is_empty());
    }
}
