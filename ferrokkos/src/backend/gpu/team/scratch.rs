//! The layout of a league's scratch memory on a GPU (pure: unit-tested below).
//!
//! Each request is rounded up to 8 bytes, as on the host (`dispatch/team/scratch.rs`), so a
//! kernel's scratch Views fit alike on every space. A team thread's part is shared by its vector
//! lanes (as in Kokkos).
//!
//! - Level 0 is the block's dynamic shared memory: the team part at offset 0, then the parts of
//!   team threads `0 .. team_size`; then, at the next multiple of [`SHARED_ALIGN`], what the
//!   pattern itself needs there (a team reduction's value per thread).
//! - Level 1 is global memory: one buffer the instance owns, block `b` using the slice at
//!   `b * block_stride` (team part, then the threads' parts, as at level 0); the stride is the
//!   slice's size rounded up to [`GLOBAL_ALIGN`], so blocks share no cache line. The buffer holds
//!   `grid * block_stride` bytes; a league with level-1 scratch runs one wave of blocks at most
//!   (`launch/plan.rs`), the blocks that can run at once, as Kokkos bounds its level-1 scratch by
//!   the teams that run at once. The instance grows the buffer (`backend/gpu/scratch.rs`) and keeps it.
//!
//! A block's slices serve every league rank it runs (grid-stride), one after the other: the entry
//! waits at a barrier between league ranks when the launch has scratch (`codegen/team_entry.rs`).

use crate::error::{Error, Result};
use crate::policy::ScratchRequest;

/// The alignment of the pattern's part of the dynamic shared memory, after level-0 scratch.
pub(crate) const SHARED_ALIGN: u64 = 16;

/// The alignment of each block's slice of level-1 scratch.
pub(crate) const GLOBAL_ALIGN: u64 = 128;

/// Where a league's scratch lies, per level (index 0 and 1), in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ScratchLayout {
    /// The team part of each level (the request rounded up to 8).
    pub(crate) team: [u64; 2],
    /// Each team thread's part of each level (the request rounded up to 8).
    pub(crate) thread: [u64; 2],
    /// The threads of a team.
    pub(crate) team_size: u32,
    /// The bytes of level 1 between the slices of consecutive blocks.
    pub(crate) block_stride: u64,
}

impl ScratchLayout {
    /// The layout of `requests` for teams of `team_size` threads; a size that overflows 64 bits is
    /// an error naming the level and the bytes (`what` describes the launch).
    pub(crate) fn new(
        requests: &[ScratchRequest; 2],
        team_size: u32,
        what: &dyn Fn() -> String,
    ) -> Result<ScratchLayout> {
        let mut layout = ScratchLayout {
            team_size,
            ..ScratchLayout::default()
        };
        for (level, r) in requests.iter().enumerate() {
            let overflow = || Error::Policy {
                policy: "TeamPolicy".into(),
                reason: format!(
                    "{}: level-{level} scratch of {} bytes per team + {} per thread x {team_size} \
                     threads is larger than any memory",
                    what(),
                    r.per_team,
                    r.per_thread
                ),
            };
            let round = |bytes: usize| {
                u64::try_from(bytes)
                    .ok()
                    .and_then(|b| b.checked_next_multiple_of(8))
            };
            layout.team[level] = round(r.per_team).ok_or_else(overflow)?;
            layout.thread[level] = round(r.per_thread).ok_or_else(overflow)?;
            layout.level_bytes(level).ok_or_else(overflow)?;
        }
        layout.block_stride = layout
            .level_bytes(1)
            .and_then(|b| b.checked_next_multiple_of(GLOBAL_ALIGN))
            .ok_or_else(|| Error::Policy {
                policy: "TeamPolicy".into(),
                reason: format!(
                    "{}: level-1 scratch per block is larger than any memory",
                    what()
                ),
            })?;
        Ok(layout)
    }

    /// The bytes of one team's scratch at `level`: its team part and its threads' parts (`None`
    /// on overflow).
    pub(crate) fn level_bytes(&self, level: usize) -> Option<u64> {
        self.thread[level]
            .checked_mul(u64::from(self.team_size))?
            .checked_add(self.team[level])
    }

    /// Where the pattern's dynamic shared memory starts: after level 0, at a multiple of
    /// [`SHARED_ALIGN`].
    pub(crate) fn pattern_offset(&self) -> u64 {
        self.level_bytes(0)
            .and_then(|b| b.checked_next_multiple_of(SHARED_ALIGN))
            .unwrap_or(u64::MAX)
    }

    /// The dynamic shared memory of a block whose pattern needs `pattern_bytes` after the scratch
    /// (`None` on overflow).
    pub(crate) fn shared_bytes(&self, pattern_bytes: usize) -> Option<usize> {
        usize::try_from(self.pattern_offset())
            .ok()?
            .checked_add(pattern_bytes)
    }

    /// The bytes of level-1 scratch a grid of `grid` blocks needs; too large for the address space
    /// is an error naming level 1 and the bytes.
    pub(crate) fn global_bytes(&self, grid: u64, what: &dyn Fn() -> String) -> Result<usize> {
        grid.checked_mul(self.block_stride)
            .and_then(|b| usize::try_from(b).ok())
            .ok_or_else(|| Error::Policy {
                policy: "TeamPolicy".into(),
                reason: format!(
                    "{}: level-1 scratch of {grid} blocks x {} bytes is larger than any memory",
                    what(),
                    self.block_stride
                ),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn what() -> String {
        "parallel_for \"s\" on Cuda".into()
    }

    fn req(per_team: usize, per_thread: usize) -> ScratchRequest {
        ScratchRequest {
            per_team,
            per_thread,
        }
    }

    #[test]
    fn requests_round_up_to_eight_bytes_and_level_0_is_team_then_threads_then_the_pattern() {
        let l = ScratchLayout::new(&[req(100, 12), req(0, 0)], 3, &what).unwrap();
        assert_eq!((l.team, l.thread), ([104, 0], [16, 0]));
        assert_eq!(l.level_bytes(0), Some(104 + 3 * 16));
        // 152 bytes, the pattern's part at 160.
        assert_eq!(l.pattern_offset(), 160);
        assert_eq!(l.shared_bytes(3 * 8), Some(184));
        assert_eq!(l.block_stride, 0);
        let none = ScratchLayout::new(&[req(0, 0), req(0, 0)], 256, &what).unwrap();
        assert_eq!(
            none,
            ScratchLayout {
                team_size: 256,
                ..ScratchLayout::default()
            }
        );
        assert_eq!(
            (none.pattern_offset(), none.shared_bytes(2048)),
            (0, Some(2048))
        );
        assert_eq!(none.global_bytes(1000, &what).unwrap(), 0);
    }

    #[test]
    fn level_1_gives_each_block_a_slice_at_a_multiple_of_128_bytes() {
        let l = ScratchLayout::new(&[req(0, 0), req(1000, 8)], 4, &what).unwrap();
        assert_eq!(l.level_bytes(1), Some(1032));
        assert_eq!(l.block_stride, 1152);
        assert_eq!(l.global_bytes(10, &what).unwrap(), 11_520);
        assert_eq!(l.pattern_offset(), 0);
        let e = l
            .global_bytes(u64::MAX / 1000, &what)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("level-1 scratch of") && e.contains("x 1152 bytes"),
            "{e}"
        );
        assert!(e.contains("parallel_for \"s\" on Cuda"), "{e}");
    }

    #[test]
    fn sizes_that_overflow_are_errors_naming_the_level_and_the_bytes() {
        for level in 0..2 {
            let mut r = [req(0, 0); 2];
            r[level] = req(8, usize::MAX / 2);
            let e = ScratchLayout::new(&r, 1024, &what).unwrap_err();
            assert!(matches!(e, Error::Policy { .. }), "{e:?}");
            let e = e.to_string();
            assert!(
                e.contains(&format!(
                    "level-{level} scratch of 8 bytes per team + {} per thread x 1024 threads",
                    usize::MAX / 2
                )),
                "{e}"
            );
            r[level] = req(usize::MAX, 0);
            let e = ScratchLayout::new(&r, 1, &what).unwrap_err().to_string();
            assert!(e.contains(&format!("level-{level} scratch")), "{e}");
        }
    }
}
