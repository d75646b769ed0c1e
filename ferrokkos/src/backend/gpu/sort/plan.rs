//! [`Plan`]: what a GPU sort of `n` keys needs (pure, unit-tested): how the values travel, the
//! passes, the blocks and their chunks, the counts' width, and where each temporary lies in one
//! buffer.

use super::source::TILE;
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
    /// The blocks of `up` and `down`, and the tiles of each one's chunk.
    pub(crate) blocks: usize,
    pub(crate) per_block: usize,
    /// The width of a count (4 while `n` fits a `u32`, else 8).
    pub(crate) count_bytes: usize,
    /// Byte offsets in the buffer: the other keys, the other values (or indices), the indices
    /// (`Indexed` only), the copy of the values (`Indexed` only), the counts (`blocks * 256`), the
    /// totals of the values (256).
    pub(crate) alt_keys: usize,
    pub(crate) alt_values: usize,
    pub(crate) index: usize,
    pub(crate) value_copy: usize,
    pub(crate) counts: usize,
    pub(crate) totals: usize,
    pub(crate) bytes: usize,
}

/// Blocks of `up` and `down` per multiprocessor.
const BLOCKS_PER_SM: usize = 4;

impl Plan {
    /// The plan for `n` keys of `key_bytes` (4 or 8) and values of `value` (size, alignment) bytes,
    /// on a GPU of `sms` multiprocessors.
    pub(crate) fn new(
        n: usize,
        key_bytes: usize,
        value: Option<(usize, usize)>,
        sms: usize,
    ) -> Result<Plan> {
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
        let tiles = n.div_ceil(TILE).max(1);
        let per_block = tiles.div_ceil(sms.max(1) * BLOCKS_PER_SM);
        let blocks = tiles.div_ceil(per_block);
        let count_bytes = if n <= u32::MAX as usize { 4 } else { 8 };
        let sweep_value = match carry {
            Carry::None => 0,
            Carry::Direct(size) => size,
            Carry::Indexed { .. } => 4,
        };
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
        let totals = align(counts + blocks * 256 * count_bytes);
        let bytes = totals + 256 * count_bytes;
        Ok(Plan {
            n,
            key_bytes,
            carry,
            passes,
            blocks,
            per_block,
            count_bytes,
            alt_keys,
            alt_values,
            index,
            value_copy,
            counts,
            totals,
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

    /// Temporaries do not overlap, the chunks cover the tiles, and the widths follow the sizes.
    #[test]
    fn plans_lay_out_disjoint_temporaries() {
        let p = Plan::new(1 << 26, 4, Some((4, 4)), 132).unwrap();
        let tiles = (1usize << 26) / TILE;
        assert_eq!((p.passes, p.count_bytes), (4, 4));
        assert!(p.blocks <= 132 * BLOCKS_PER_SM && p.blocks * p.per_block >= tiles);
        assert!(
            (p.blocks - 1) * p.per_block < tiles,
            "no block without keys"
        );
        assert_eq!(p.carry, Carry::Direct(4));
        assert!(p.alt_values >= p.alt_keys + (1 << 28));
        assert!(p.counts >= p.alt_values + (1 << 28));
        assert!(p.totals >= p.counts + p.blocks * 256 * 4);
        assert_eq!(p.bytes, p.totals + 256 * 4);

        let q = Plan::new(1000, 8, Some((12, 4)), 132).unwrap();
        assert_eq!(q.carry, Carry::Indexed { word: 4, words: 3 });
        assert_eq!(
            (q.passes, q.blocks, q.per_block, q.sweep_value_bytes()),
            (8, 1, 1, 4)
        );
        assert!(q.value_copy >= q.index + 4000 && q.counts >= q.value_copy + 12000);

        let big = Plan::new(u32::MAX as usize + 1, 4, None, 132).unwrap();
        assert_eq!((big.count_bytes, big.sweep_value_bytes()), (8, 0));
        let odd = Plan::new(10, 4, Some((8, 4)), 1).unwrap();
        assert_eq!(odd.carry, Carry::Indexed { word: 4, words: 2 });
        assert!(Plan::new(u32::MAX as usize + 1, 4, Some((2, 2)), 132).is_err());
    }
}
