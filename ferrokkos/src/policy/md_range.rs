//! [`MDRangePolicy`]: a box of iterations in 2 to 6 dimensions, walked tile by tile.

use super::index::IndexType;
use crate::error::{Error, Result};
use crate::space::ExecutionSpace;
use crate::view::{Layout, LayoutLeft};

/// The order in which a multidimensional range is walked (Kokkos' `Iterate`). See
/// [`Iterate::for_layout`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Iterate {
    /// The last index varies fastest (matches `LayoutRight`, the host spaces' default).
    #[default]
    Right,
    /// The first index varies fastest (matches `LayoutLeft`).
    Left,
}

impl Iterate {
    /// The order that walks memory contiguously for Views of layout `L`: `Left` for `LayoutLeft`,
    /// `Right` otherwise (for `LayoutStride` no order is contiguous in general; `Right` is Kokkos'
    /// choice there too).
    pub fn for_layout<L: Layout>() -> Iterate {
        if L::NAME == LayoutLeft::NAME {
            Iterate::Left
        } else {
            Iterate::Right
        }
    }
}

/// The index arrays a multidimensional kernel can receive, with their tuple form: an `MDRangePolicy` of
/// rank 3 over `i64` calls its kernel with `(i64, i64, i64)`. Implemented for ranks 2 to 6.
pub trait IndexTuple<I>: Copy {
    /// The tuple the kernel receives.
    type Tuple: Copy + Send;
    /// The tuple with the same elements.
    fn to_tuple(self) -> Self::Tuple;
}

macro_rules! index_tuple {
    ($($n:literal => ($($k:tt),*);)*) => {$(
        impl<I: IndexType> IndexTuple<I> for [I; $n] {
            type Tuple = ($(index_tuple!(@ty $k I),)*);
            #[inline(always)]
            fn to_tuple(self) -> Self::Tuple {
                ($(self[$k],)*)
            }
        }
    )*};
    (@ty $k:tt $i:ident) => { $i };
}

index_tuple! {
    2 => (0, 1);
    3 => (0, 1, 2);
    4 => (0, 1, 2, 3);
    5 => (0, 1, 2, 3, 4);
    6 => (0, 1, 2, 3, 4, 5);
}

/// The points `lower[r] <= i_r < upper[r]` of a box of rank `R` (2 to 6), run on the instance `S`.
///
/// The box is cut into tiles (by default a tile is one line along the fastest dimension); threads take
/// whole tiles, and each tile is walked in the policy's [`Iterate`] order. Negative lower bounds are
/// allowed with a signed index type, as in Kokkos. The kernel receives the index as a tuple
/// (`(i, j)` at rank 2).
///
/// ```
/// use ferrokkos::prelude::*;
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Serial::default_instance()?;
/// let p = MDRangePolicy::new(&exec, [-1i64, 0, 0], [2, 3, 4])?.tile_sizes([2, 2, 3])?;
/// assert_eq!((p.len(), p.tile_count()), (3 * 3 * 4, 2 * 2 * 2));
///
/// let e = MDRangePolicy::new(&exec, [0, 5], [4, 3]).unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "invalid MDRangePolicy<2>: lower bound (5) is greater than the upper bound (3) in dimension 1"
/// );
/// # Ok::<(), ferrokkos::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct MDRangePolicy<S: ExecutionSpace, const R: usize, I: IndexType = i64> {
    space: S,
    lower: [I; R],
    upper: [I; R],
    tiles: Option<[u64; R]>,
    iterate: Iterate,
    schedule: super::Schedule,
}

impl<S: ExecutionSpace, const R: usize, I: IndexType> MDRangePolicy<S, R, I>
where
    [I; R]: IndexTuple<I>,
{
    /// The same policy on the instance `space` (a graph node runs on the graph's instance).
    pub(crate) fn with_space(mut self, space: &S) -> Self {
        self.space = space.clone();
        self
    }

    /// The box `lower..upper` on `space`. An error if `lower[r] > upper[r]` in some dimension, or if
    /// the number of points does not fit in 64 bits.
    pub fn new(space: &S, lower: [I; R], upper: [I; R]) -> Result<Self> {
        for r in 0..R {
            if lower[r] > upper[r] {
                return Err(policy_error::<R>(format!(
                    "lower bound ({}) is greater than the upper bound ({}) in dimension {r}",
                    lower[r], upper[r]
                )));
            }
        }
        let policy = MDRangePolicy {
            space: space.clone(),
            lower,
            upper,
            tiles: None,
            iterate: Iterate::for_layout::<S::ArrayLayout>(),
            schedule: super::Schedule::Static,
        };
        let extents = policy.extents();
        if !extents.contains(&0) {
            extents
                .iter()
                .try_fold(1u64, |points, &e| points.checked_mul(e))
                .ok_or_else(|| {
                    policy_error::<R>(format!(
                        "the box {lower:?}..{upper:?} has 2^64 points or more, which does not fit \
                         in 64 bits"
                    ))
                })?;
        }
        Ok(policy)
    }

    /// Sets the tile sizes (Kokkos' third constructor argument). A tile that does not divide its
    /// extent leaves a partial tile at the end. A zero tile size is an error.
    pub fn tile_sizes(mut self, tiles: [usize; R]) -> Result<Self> {
        if let Some(r) = tiles.iter().position(|&t| t == 0) {
            return Err(policy_error::<R>(format!(
                "tile size in dimension {r} is 0; every tile size must be at least 1"
            )));
        }
        self.tiles = Some(tiles.map(|t| t as u64));
        Ok(self)
    }

    /// Sets the iteration order, of the tiles and inside each tile. The default follows the space's
    /// [`ExecutionSpace::ArrayLayout`] (`Right` on the host spaces).
    pub fn iterate(mut self, order: Iterate) -> Self {
        self.iterate = order;
        self
    }

    /// Sets how the host spaces hand tiles to threads (Kokkos' `Schedule<..>`; static by default:
    /// contiguous blocks of tiles, stolen from at the end; dynamic: tiles taken from a shared
    /// counter, for uneven work). Cuda ignores it.
    pub fn schedule(mut self, schedule: super::Schedule) -> Self {
        self.schedule = schedule;
        self
    }

    /// The schedule.
    pub fn get_schedule(&self) -> super::Schedule {
        self.schedule
    }

    /// Walks the box in the order that is contiguous for Views of layout `L` (Kokkos chooses the
    /// iteration pattern from the layout): `policy.iterate_like::<LayoutLeft>()`.
    pub fn iterate_like<L: Layout>(self) -> Self {
        self.iterate(Iterate::for_layout::<L>())
    }

    /// The lower bounds.
    pub fn lower(&self) -> [I; R] {
        self.lower
    }

    /// The upper bounds (exclusive).
    pub fn upper(&self) -> [I; R] {
        self.upper
    }

    /// The number of points in each dimension.
    pub fn extents(&self) -> [u64; R] {
        std::array::from_fn(|r| I::distance(self.lower[r], self.upper[r]))
    }

    /// The number of points of the box.
    pub fn len(&self) -> u64 {
        let extents = self.extents();
        if extents.contains(&0) {
            0
        } else {
            // Checked by `new`: a non-empty box has fewer than 2^64 points.
            extents.iter().product()
        }
    }

    /// Whether the box has no points.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The tile sizes the user set, if any (the Cuda backend's launch blocks).
    #[cfg(feature = "cuda")]
    pub(crate) fn explicit_tiles(&self) -> Option<[u64; R]> {
        self.tiles
    }

    /// The tile sizes in use: the ones set, or one line along the fastest dimension. On Cuda, tiles
    /// that are set (up to 1024 points) are the blocks of the launch.
    pub fn get_tile_sizes(&self) -> [u64; R] {
        self.tiles.unwrap_or_else(|| {
            let fastest = self.fastest_dim();
            let ext = self.extents();
            std::array::from_fn(|r| if r == fastest { ext[r].max(1) } else { 1 })
        })
    }

    /// The number of tiles (the units of work threads take).
    pub fn tile_count(&self) -> u64 {
        self.grid().count
    }

    /// The iteration order.
    pub fn get_iterate(&self) -> Iterate {
        self.iterate
    }

    /// The execution-space instance the work runs on.
    pub fn space(&self) -> &S {
        &self.space
    }

    fn fastest_dim(&self) -> usize {
        match self.iterate {
            Iterate::Right => R - 1,
            Iterate::Left => 0,
        }
    }

    /// The tiling of the box, for the dispatch layer.
    pub(crate) fn grid(&self) -> TileGrid<I, R> {
        let extents = self.extents();
        let tile = self.get_tile_sizes();
        let ntiles: [u64; R] = std::array::from_fn(|r| extents[r].div_ceil(tile[r]));
        let count = if extents.contains(&0) {
            0
        } else {
            ntiles.iter().product()
        };
        let order: [usize; R] = match self.iterate {
            Iterate::Right => std::array::from_fn(|k| k),
            Iterate::Left => std::array::from_fn(|k| R - 1 - k),
        };
        TileGrid {
            lower: self.lower,
            extents,
            tile,
            ntiles,
            order,
            count,
        }
    }
}

fn policy_error<const R: usize>(reason: String) -> Error {
    Error::Policy {
        policy: format!("MDRangePolicy<{R}>"),
        reason,
    }
}

/// A box cut into tiles, numbered `0..count` in iteration order.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TileGrid<I, const R: usize> {
    lower: [I; R],
    extents: [u64; R],
    tile: [u64; R],
    ntiles: [u64; R],
    /// Dimensions from the slowest to the fastest.
    order: [usize; R],
    /// The number of tiles.
    pub(crate) count: u64,
}

impl<I: IndexType, const R: usize> TileGrid<I, R> {
    /// Whether the last dimension is the fastest (`Iterate::Right`); else the first is.
    #[inline]
    pub(crate) fn last_fastest(&self) -> bool {
        self.order[R - 1] == R - 1
    }

    /// The lower corner of the box.
    #[inline]
    pub(crate) fn lower(&self) -> [I; R] {
        self.lower
    }

    /// Calls `f` on every point of the tiles `tiles`, tile after tile, each in iteration order.
    #[cfg(test)]
    pub(crate) fn visit(&self, tiles: std::ops::Range<u64>, mut f: impl FnMut([I; R])) {
        let mut walk = |fast: usize, at: &[u64; R], xs: std::ops::Range<u64>| {
            for x in xs {
                f(std::array::from_fn(|d| {
                    self.lower[d].advance(if d == fast { x } else { at[d] })
                }));
            }
        };
        if self.last_fastest() {
            self.lines::<true>(tiles, |at, xs| walk(R - 1, at, xs))
        } else {
            self.lines::<false>(tiles, |at, xs| walk(0, at, xs))
        }
    }

    /// Calls `line(at, xs)` for every line of the tiles `tiles` along the fastest dimension
    /// (the last one when `LAST_FASTEST`, else the first), tile after tile, each in iteration
    /// order: `at` holds the line's offsets from `lower` (its fastest one that of its first point),
    /// `xs` the offsets of its points along the fastest dimension.
    #[inline(always)]
    pub(crate) fn lines<const LAST_FASTEST: bool>(
        &self,
        tiles: std::ops::Range<u64>,
        mut line: impl FnMut(&[u64; R], std::ops::Range<u64>),
    ) {
        let fast = if LAST_FASTEST { R - 1 } else { 0 };
        if tiles.is_empty() {
            return;
        }
        // The coordinates (in tiles) of the first tile, by division; each next tile's by carrying
        // from the fastest dimension, as an odometer (a division per tile costs as much as a short
        // line).
        let mut tile = [0u64; R];
        let mut rem = tiles.start;
        for k in (0..R).rev() {
            let d = self.order[k];
            tile[d] = rem % self.ntiles[d];
            rem /= self.ntiles[d];
        }
        for _ in tiles {
            let lo: [u64; R] = std::array::from_fn(|d| tile[d] * self.tile[d]);
            let hi: [u64; R] = std::array::from_fn(|d| (lo[d] + self.tile[d]).min(self.extents[d]));
            for k in (0..R).rev() {
                let d = self.order[k];
                tile[d] += 1;
                if tile[d] < self.ntiles[d] {
                    break;
                }
                tile[d] = 0;
            }
            let mut cur = lo;
            'tile: loop {
                line(&cur, lo[fast]..hi[fast]);
                let mut k = R - 1;
                loop {
                    if k == 0 {
                        break 'tile;
                    }
                    k -= 1;
                    let d = self.order[k];
                    cur[d] += 1;
                    if cur[d] < hi[d] {
                        break;
                    }
                    cur[d] = lo[d];
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid<const R: usize>(
        lower: [i64; R],
        upper: [i64; R],
        tiles: [u64; R],
        iterate: Iterate,
    ) -> TileGrid<i64, R> {
        let extents: [u64; R] = std::array::from_fn(|r| (upper[r] - lower[r]) as u64);
        let ntiles = std::array::from_fn(|r| extents[r].div_ceil(tiles[r]));
        let order = match iterate {
            Iterate::Right => std::array::from_fn(|k| k),
            Iterate::Left => std::array::from_fn(|k| R - 1 - k),
        };
        TileGrid {
            lower,
            extents,
            tile: tiles,
            ntiles,
            order,
            count: ntiles.iter().product(),
        }
    }

    #[test]
    fn tiles_walk_their_points_in_order() {
        let g = grid([0, -1], [3, 2], [2, 2], Iterate::Right);
        assert_eq!(g.count, 4);
        let mut seen = Vec::new();
        g.visit(0..g.count, |p| seen.push(p));
        assert_eq!(
            seen,
            vec![
                [0, -1],
                [0, 0],
                [1, -1],
                [1, 0], // tile (0, 0)
                [0, 1],
                [1, 1], // tile (0, 1)
                [2, -1],
                [2, 0], // tile (1, 0)
                [2, 1], // tile (1, 1)
            ]
        );
    }

    #[test]
    fn the_order_follows_the_layout() {
        use crate::view::{LayoutRight, LayoutStride};
        assert_eq!(Iterate::for_layout::<LayoutLeft>(), Iterate::Left);
        assert_eq!(Iterate::for_layout::<LayoutRight>(), Iterate::Right);
        assert_eq!(Iterate::for_layout::<LayoutStride>(), Iterate::Right);
    }

    #[test]
    fn any_run_of_tiles_walks_its_part_of_the_whole_walk() {
        for iterate in [Iterate::Right, Iterate::Left] {
            let g = grid([-2, 1, 0], [5, 4, 7], [3, 2, 4], iterate);
            let mut all = Vec::new();
            g.visit(0..g.count, |p| all.push(p));
            assert_eq!(all.len(), 7 * 3 * 7);
            for start in 0..=g.count {
                for end in start..=g.count {
                    let mut parts = Vec::new();
                    g.visit(0..start, |p| parts.push(p));
                    g.visit(start..end, |p| parts.push(p));
                    g.visit(end..g.count, |p| parts.push(p));
                    assert_eq!(parts, all, "{iterate:?} {start}..{end}");
                }
            }
        }
    }

    #[test]
    fn left_order_walks_the_first_index_fastest() {
        let g = grid([0, 0], [2, 2], [2, 2], Iterate::Left);
        let mut seen = Vec::new();
        g.visit(0..g.count, |p| seen.push(p));
        assert_eq!(seen, vec![[0, 0], [1, 0], [0, 1], [1, 1]]);
    }
}
