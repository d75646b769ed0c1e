//! The two hashes that name a cache entry: FNV-1a 64 and an unrelated multiply–rotate hash, so
//! that an entry's 128-bit name is two independent 64-bit hashes of its key.

/// FNV-1a, 64 bits, over `bytes`.
pub(crate) fn fnv1a_64(bytes: &[u8]) -> u64 {
    const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes
        .iter()
        .fold(OFFSET_BASIS, |h, &b| (h ^ u64::from(b)).wrapping_mul(PRIME))
}

/// The SplitMix64 finalizer: a bijection of `u64` that spreads every input bit over the output.
fn splitmix64_finalize(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A second 64-bit hash, unrelated to FNV-1a: the bytes are read as little-endian 64-bit words
/// (the last one zero-padded), each word is scrambled by the SplitMix64 finalizer and folded in with
/// a rotate and a multiply by the golden-ratio constant; the length and a final SplitMix64 round
/// finish it.
pub(crate) fn mix_hash(bytes: &[u8]) -> u64 {
    const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut h: u64 = 0x243f_6a88_85a3_08d3; // The first digits of pi: any constant unlike FNV's.
    for chunk in bytes.chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        let w = splitmix64_finalize(u64::from_le_bytes(word));
        h = (h ^ w).rotate_left(29).wrapping_mul(GOLDEN);
    }
    splitmix64_finalize(h ^ bytes.len() as u64)
}
