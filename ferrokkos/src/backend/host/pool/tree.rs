//! The shape of a broadcast's completion tree: which participant waits for (and joins) which.
//!
//! Participants `0..count` form a radix-[`RADIX`] tree in which every subtree is a contiguous run of
//! indices: participant `i`'s children are `i + m * RADIX^j` (`m` in `1..RADIX`) for every `j` with
//! `RADIX^(j+1)` dividing `i` (every `j` for the root, participant 0), and the child `i + m * RADIX^j`
//! heads the subtree `i + m * RADIX^j .. i + (m + 1) * RADIX^j`. A participant joins its children in
//! ascending order, so after its last join it holds its whole subtree's partial results combined
//! left to right (only associativity is needed, and the grouping depends only on `count`). The root
//! has about `(RADIX - 1) * log_RADIX(count)` children; the tree is `log_RADIX(count)` levels deep.

/// Children per level of a participant.
pub(super) const RADIX: usize = 4;

/// The largest power of [`RADIX`] that divides `i` (participant 0, the root, has no bound).
fn span(i: usize) -> usize {
    if i == 0 {
        return usize::MAX;
    }
    let mut span = 1usize;
    while let Some(next) = span.checked_mul(RADIX)
        && i.is_multiple_of(next)
    {
        span = next;
    }
    span
}

/// The children of participant `i` among `count` participants, in ascending order.
pub(super) fn children(i: usize, count: usize) -> Children {
    Children {
        base: i,
        count,
        span: span(i),
        step: 1,
        m: 1,
    }
}

/// Iterator over a participant's children (see [`children`]).
pub(super) struct Children {
    base: usize,
    count: usize,
    /// Steps up to (not including) this one give children.
    span: usize,
    /// The current level's distance unit, `RADIX^j`.
    step: usize,
    /// The next child of the current level is `base + m * step`.
    m: usize,
}

impl Iterator for Children {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.m == RADIX {
            self.m = 1;
            self.step = self.step.checked_mul(RADIX)?;
        }
        if self.step >= self.span {
            return None;
        }
        let child = self.base.checked_add(self.m.checked_mul(self.step)?)?;
        // Children come in ascending order: once one is out of range, so are the rest.
        if child >= self.count {
            return None;
        }
        self.m += 1;
        Some(child)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parent of participant `c > 0`: `c` with its lowest nonzero base-RADIX digit cleared.
    fn parent(c: usize) -> usize {
        let mut place = 1;
        while (c / place).is_multiple_of(RADIX) {
            place *= RADIX;
        }
        c - (c / place % RADIX) * place
    }

    #[test]
    fn every_participant_but_the_root_has_exactly_one_parent() {
        for count in 1..300 {
            let mut parent_of = vec![None; count];
            for i in 0..count {
                for c in children(i, count) {
                    assert!(c > i && c < count, "child {c} of {i} with {count}");
                    assert_eq!(parent_of[c], None, "{c} has two parents with {count}");
                    parent_of[c] = Some(i);
                }
            }
            assert_eq!(parent_of[0], None);
            for (c, p) in parent_of.iter().enumerate().skip(1) {
                assert_eq!(*p, Some(parent(c)), "parent of {c} with {count}");
            }
        }
    }

    /// Folding children in ascending order covers each subtree as one contiguous run, so the joined
    /// result is the in-order combination of every participant.
    #[test]
    fn joining_children_in_order_yields_the_participants_in_order() {
        fn subtree(i: usize, count: usize) -> Vec<usize> {
            let mut run = vec![i];
            for c in children(i, count) {
                run.extend(subtree(c, count));
            }
            run
        }
        for count in 1..300 {
            assert_eq!(subtree(0, count), (0..count).collect::<Vec<_>>());
        }
    }

    #[test]
    fn the_tree_is_shallow_and_the_root_fan_out_is_logarithmic() {
        fn depth(i: usize, count: usize) -> usize {
            children(i, count)
                .map(|c| 1 + depth(c, count))
                .max()
                .unwrap_or(0)
        }
        assert_eq!(children(0, 16).collect::<Vec<_>>(), [1, 2, 3, 4, 8, 12]);
        assert_eq!(children(4, 16).collect::<Vec<_>>(), [5, 6, 7]);
        assert_eq!(children(3, 16).count(), 0);
        assert_eq!(depth(0, 16), 2);
        assert_eq!(depth(0, 64), 3);
        assert_eq!(depth(0, 1024), 5);
        assert_eq!(children(0, 1024).count(), 15);
        assert_eq!(children(0, 1).count(), 0);
    }
}
