//! The span categories of a ferrokkos trace (the events' `cat`) and their colours.

use plotters::style::RGBColor;

use super::palette::darker;

/// What a span is, from its `cat`: one colour each in the picture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Category {
    /// A `parallel_for` / `parallel_reduce` / `parallel_scan` launch.
    Kernel,
    /// A `deep_copy` between memory spaces.
    Copy,
    /// A `deep_copy` of a value into a View.
    Fill,
    /// A fence (of an instance or global).
    Fence,
    /// A profiling region (`push_region` .. `pop_region`).
    Region,
    /// A profile section's run.
    Section,
    /// A kernel's compilation by NVRTC or its load from the disk cache (`jit`).
    Jit,
    /// An NCCL operation between GPUs (`comm`: an all-reduce, an exchange).
    Comm,
    /// Any other `cat` (e.g. `runtime`: the start-up of the backends).
    Other,
}

impl Category {
    /// Every category, in legend order.
    pub(crate) const ALL: [Category; 9] = [
        Category::Kernel,
        Category::Copy,
        Category::Fill,
        Category::Fence,
        Category::Region,
        Category::Section,
        Category::Jit,
        Category::Comm,
        Category::Other,
    ];

    /// The category of an event's `cat` (exact, lower-case names; anything else is `Other`).
    pub(crate) fn from_cat(cat: &str) -> Category {
        match cat {
            "kernel" => Category::Kernel,
            "copy" => Category::Copy,
            "fill" => Category::Fill,
            "fence" => Category::Fence,
            "region" => Category::Region,
            "section" => Category::Section,
            "jit" => Category::Jit,
            "comm" => Category::Comm,
            _ => Category::Other,
        }
    }

    /// The name in the legend.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Category::Kernel => "kernel",
            Category::Copy => "copy",
            Category::Fill => "fill",
            Category::Fence => "fence",
            Category::Region => "region",
            Category::Section => "section",
            Category::Jit => "jit",
            Category::Comm => "comm",
            Category::Other => "other",
        }
    }

    /// The fill colour of its spans: light enough for dark labels, distinct from one another.
    pub(crate) fn fill(self) -> RGBColor {
        match self {
            Category::Kernel => RGBColor(0x6f, 0xa8, 0xf0),
            Category::Copy => RGBColor(0xf5, 0xa3, 0x4f),
            Category::Fill => RGBColor(0x8c, 0xd4, 0x8f),
            Category::Fence => RGBColor(0xec, 0x6f, 0x73),
            Category::Region => RGBColor(0xcf, 0xbd, 0xe8),
            Category::Section => RGBColor(0xf2, 0xd8, 0x5a),
            Category::Jit => RGBColor(0x5c, 0xc8, 0xc0),
            Category::Comm => RGBColor(0xe8, 0x8f, 0xc8),
            Category::Other => RGBColor(0xc4, 0xc4, 0xc4),
        }
    }

    /// The colour of its spans' borders: the fill, darker.
    pub(crate) fn border(self) -> RGBColor {
        darker(self.fill())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_is_other() {
        for category in Category::ALL {
            if category != Category::Other {
                assert_eq!(Category::from_cat(category.label()), category);
            }
        }
        assert_eq!(Category::from_cat("allocation"), Category::Other);
        assert_eq!(Category::from_cat("Kernel"), Category::Other);
    }

    #[test]
    fn colours_are_distinct() {
        let fills: Vec<_> = Category::ALL.iter().map(|c| c.fill()).collect();
        for (i, a) in fills.iter().enumerate() {
            for b in &fills[i + 1..] {
                assert_ne!((a.0, a.1, a.2), (b.0, b.1, b.2));
            }
        }
    }
}
