//! The README's code blocks, compiled (and the runnable ones run) as doctests, so that the README
//! stays true.

/// The README, whose Rust blocks are this item's doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
