//! [`Plan`]: what a GPU sort of `n` keys needs (pure, unit-tested): how the values travel, the
//! passes, the tiles, the ranges of tiles the scans use, the counts' width, and where each
//! temporary lies in one buffer.

use super::source::{RANGES, tile_for};
use crate::error::{Error, Result};

/// How the values travel with their keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Carry {
    /// No values.
    None,
    /// Values of 4 or 8 bytes, moved by the sweeps.
    Direct(usize),
    /// Other values: the sweeps move each key's index (u32), then a gather moves the values, in
    /// words of `word` bytes, `words` per element.
    Indexed { word: usize, words: usize },
}

/// The layout of a sort's temporaries in one device buffer, and its launches' shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    pub(crate) n: usize,
    pub(crate) key_bytes: usize,
    pub(crate) carry: Carry,
    /// Digits of 8 bits: 4 or 8 (even, so the sorted keys end in the caller's buffer).
    pub(crate) passes: usize,
    /// Keys per tile ([`tile_for`] the widths), the tiles (at least one), and the blocks of `up` and `down` (a tile each,
    /// up to the grid's limit; a block walks its tiles in steps of the grid).
    pub(crate) tile: usize,
    pub(crate) tiles: usize,
    pub(crate) blocks: usize,
    /// The ranges of tiles the scans split the counts into (a block each).
    pub(crate) ranges: usize,
    /// The width of a count (4 while `n` fits a `u32`, else 8).
    pub(crate) count_bytes: usize,
    /// Byte offsets in the buffer: the other keys, the other values (or indices), the indices
    /// (`Indexed` only), the copy of the values (`Indexed` only), the counts (`tiles * 256`), the
    /// sums of the ranges (`ranges * 256`).
    pub(crate) alt_keys: usize,
    pub(crate) alt_values: usize,
    pub(crate) index: usize,
    pub(crate) value_copy: usize,
    pub(crate) counts: usize,
    pub(crate) sums: usize,
    pub(crate) bytes: usize,
}

/// The most blocks of `up` and `down` in one grid.
const MAX_BLOCKS: usize = 1 << 30;

impl Plan {
    /// The plan for `n` keys of `key_bytes` (4 or 8) and values of `value` (size, alignment) bytes.
    pub(crate) fn new(n: usize, key_bytes: usize, value: Option<(usize, usize)>) -> Result<Plan> {
        let carry = match value {
            None => Carry::None,
            Some((size @ (4 | 8), align)) if align == size => Carry::Direct(size),
            Some((size, align)) => {
                let word = crate::backend::gpu::builtin::word_bytes(align);
                Carry::Indexed {
                    word,
                    words: size / word,
                }
            }
        };
        if matches!(carry, Carry::Indexed { .. }) && n > u32::MAX as usize {
            return Err(Error::Unsupported {
                what: format!("a sort of {n} keys on the GPU"),
                reason: format!(
                    "values of other than 4 or 8 bytes move by a 32-bit index, which takes at \
                     most {} keys",
                    u32::MAX
                ),
            });
        }
        let passes = key_bytes;
        let sweep_value = match carry {
            Carry::None => 0,
            Carry::Direct(size) => size,
            Carry::Indexed { .. } => 4,
        };
        let tile = tile_for(key_bytes, sweep_value);
        let tiles = n.div_ceil(tile).max(1);
        let blocks = tiles.min(MAX_BLOCKS);
        let ranges = tiles.min(RANGES);
        let count_bytes = if n <= u32::MAX as usize { 4 } else { 8 };
        let align = |at: usize| at.next_multiple_of(256);
        let alt_keys = 0;
        let alt_values = align(alt_keys + n * key_bytes);
        let index = align(alt_values + n * sweep_value);
        let indexed = |bytes: usize| match carry {
            Carry::Indexed { .. } => bytes,
            _ => 0,
        };
        let value_copy = align(index + indexed(n * 4));
        let counts = align(value_copy + indexed(n * value.map_or(0, |v| v.0)));
        let sums = align(counts + tiles * 256 * count_bytes);
        let bytes = sums + ranges * 256 * count_bytes;
        Ok(Plan {
            n,
            key_bytes,
            carry,
            passes,
            tile,
            tiles,
            blocks,
            ranges,
            count_bytes,
            alt_keys,
            alt_values,
            index,
            value_copy,
            counts,
            sums,
            bytes,
        })
    }

    /// The bytes of the values the sweeps move (0 for none).
    pub(crate) fn sweep_value_bytes(&self) -> usize {
        match self.carry {
            Carry::None => 0,
            Carry::Direct(size) => size,
            Carry::Indexed { .. } => 4,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Temporaries do not overlap, the tiles cover the keys, and the widths follow the sizes.
    #[test]
    fn plans_lay_out_disjoint_temporaries() {
        let p = Plan::new(1 << 26, 4, Some((4, 4))).unwrap();
        assert_eq!(p.tile, 256 * 24);
        assert_eq!(Plan::new(1 << 26, 4, None).unwrap().tile, 256 * 18);
        let tiles = (1usize << 26).div_ceil(p.tile);
        assert_eq!((p.passes, p.count_bytes), (4, 4));
        assert_eq!((p.tiles, p.blocks, p.ranges), (tiles, tiles, RANGES));
        assert_eq!(p.carry, Carry::Direct(4));
        assert!(p.alt_values >= p.alt_keys + (1 << 28));
        assert!(p.counts >= p.alt_values + (1 << 28));
        assert!(p.sums >= p.counts + tiles * 256 * 4);
        assert_eq!(p.bytes, p.sums + RANGES * 256 * 4);

        let q = Plan::new(1000, 8, Some((12, 4))).unwrap();
        assert_eq!(q.carry, Carry::Indexed { word: 4, words: 3 });
        assert_eq!(
            (q.passes, q.tiles, q.blocks, q.ranges, q.sweep_value_bytes()),
            (8, 1, 1, 1, 4)
        );
        assert!(q.value_copy >= q.index + 4000 && q.counts >= q.value_copy + 12000);
        assert_eq!(q.bytes, q.sums + 256 * 4);

        assert_eq!(q.tile, 256 * 16);
        let one = Plan::new(256 * 18 + 1, 4, None).unwrap();
        assert_eq!((one.tiles, one.blocks, one.ranges), (2, 2, 2));
        let empty = Plan::new(0, 4, None).unwrap();
        assert_eq!((empty.tiles, empty.blocks, empty.ranges), (1, 1, 1));

        let big = Plan::new(u32::MAX as usize + 1, 4, None).unwrap();
        assert_eq!((big.count_bytes, big.sweep_value_bytes()), (8, 0));
        assert_eq!(big.tiles, (u32::MAX as usize + 1).div_ceil(big.tile));
        assert_eq!(Plan::new(100, 8, Some((8, 8))).unwrap().tile, 256 * 16);
        assert_eq!(Plan::new(100, 4, Some((8, 8))).unwrap().tile, 256 * 16);
        let odd = Plan::new(10, 4, Some((8, 4))).unwrap();
        assert_eq!(odd.carry, Carry::Indexed { word: 4, words: 2 });
        assert!(Plan::new(u32::MAX as usize + 1, 4, Some((2, 2))).is_err());
    }
}
