//! Copying and filling a byte range, optionally with non-temporal (streaming) stores.
//!
//! A streaming store writes a whole cache line to memory without reading it into the cache first
//! (no read-for-ownership) and without evicting data the program will use again, so a copy of a
//! range larger than the caches moves 2 bytes per byte copied instead of 3. The range is cut into
//! a head up to the first 64-byte line boundary, whole lines, and a tail; only the whole lines are
//! streamed, with 16- or 32-byte vector stores to aligned addresses, and an `sfence` at the end
//! orders them before whatever the caller does next (the pool's completion signal, which is an
//! ordinary release store that does not order streaming stores on x86).
//!
//! Invariants: every write stays inside `[dst, dst + len)`; every read inside `[src, src + len)`
//! or inside the [`Pattern`]'s buffer (`phase + n <= period + LINE` for every piece of `n <= LINE`
//! bytes read at `phase < period`).

/// The cache-line size the streaming loop works in.
pub(super) const LINE: usize = 64;

/// The bytes of a fill: `bytes[k] = value[k % value.len()]` for `k < period + LINE`, where `period`
/// is the least common multiple of the element size and [`LINE`], so that the `LINE` bytes written
/// at any offset `off` of the filled range are `bytes[off % period..][..LINE]`.
#[derive(Debug)]
pub(super) struct Pattern {
    bytes: Vec<u8>,
    period: usize,
}

impl Pattern {
    /// The pattern of `value` (not empty).
    pub(super) fn new(value: &[u8]) -> Pattern {
        let size = value.len().max(1);
        let period = size / gcd(size, LINE) * LINE;
        let bytes = (0..period + LINE)
            .map(|k| value.get(k % size).copied().unwrap_or(0))
            .collect();
        Pattern { bytes, period }
    }

    /// The `n <= LINE` bytes that belong at offset `off` of the filled range.
    fn at(&self, off: usize, n: usize) -> &[u8] {
        let phase = off % self.period;
        &self.bytes[phase..phase + n]
    }
}

fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// How `[dst, dst + len)` splits: the head's length (up to the first line boundary), the number of
/// whole lines after it, and the tail's length.
fn split(dst: usize, len: usize) -> (usize, usize, usize) {
    let head = ((LINE - dst % LINE) % LINE).min(len);
    let lines = (len - head) / LINE;
    (head, lines, len - head - lines * LINE)
}

/// Copies `len` bytes from `src` to `dst`, streaming the whole lines of `dst` when `streaming`.
///
/// # Safety
/// `src` must be valid for reads and `dst` for writes of `len` bytes, the ranges must not overlap,
/// and no other thread may access `dst` or write `src` during the call.
pub(super) unsafe fn copy(dst: *mut u8, src: *const u8, len: usize, streaming: bool) {
    if !streaming || !cfg!(target_arch = "x86_64") {
        // SAFETY: the caller's contract.
        unsafe { std::ptr::copy_nonoverlapping(src, dst, len) };
        return;
    }
    let (head, lines, tail) = split(dst as usize, len);
    // SAFETY: head, lines and tail partition `[0, len)`; the caller's contract covers every byte,
    // and `dst + head` is 64-byte aligned as `stream_lines` requires.
    unsafe {
        std::ptr::copy_nonoverlapping(src, dst, head);
        stream_lines(dst.add(head), lines, |k| src.add(head + k * LINE));
        let done = head + lines * LINE;
        std::ptr::copy_nonoverlapping(src.add(done), dst.add(done), tail);
    }
}

/// Writes `len` bytes of the fill `pattern` to `dst`, which is at offset `off` of the filled range,
/// streaming the whole lines when `streaming`.
///
/// # Safety
/// `dst` must be valid for writes of `len` bytes, and no other thread may access them during the
/// call.
pub(super) unsafe fn fill(
    dst: *mut u8,
    pattern: &Pattern,
    off: usize,
    len: usize,
    streaming: bool,
) {
    let (head, lines, tail) = if streaming && cfg!(target_arch = "x86_64") {
        split(dst as usize, len)
    } else {
        (0, 0, len)
    };
    let plain = |at: usize, n: usize| {
        let mut done = 0;
        while done < n {
            let piece = (n - done).min(LINE);
            let bytes = pattern.at(off + at + done, piece);
            // SAFETY: `at + done + piece <= len`, inside the caller's range.
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst.add(at + done), piece) };
            done += piece;
        }
    };
    plain(0, head);
    // SAFETY: the lines lie inside `[head, len - tail)` of the caller's range, start 64-byte
    // aligned, and each reads `LINE` bytes of the pattern's buffer (`Pattern::at`).
    unsafe {
        stream_lines(dst.add(head), lines, |k| {
            pattern.at(off + head + k * LINE, LINE).as_ptr()
        });
    }
    plain(head + lines * LINE, tail);
}

/// Writes `lines` whole lines from `dst` on with streaming stores, line `k` from the `LINE` bytes at
/// `source(k)`, then fences them.
///
/// # Safety
/// `dst` must be 64-byte aligned and valid for writes of `lines * LINE` bytes, and each `source(k)`
/// valid for reads of `LINE` bytes; none of it accessed by other threads during the call.
#[cfg(target_arch = "x86_64")]
unsafe fn stream_lines(dst: *mut u8, lines: usize, source: impl Fn(usize) -> *const u8) {
    if lines == 0 {
        return;
    }
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: the CPU has AVX (checked above); the caller's contract covers the memory.
        unsafe { stream_lines_avx(dst, lines, source) }
    } else {
        // SAFETY: SSE2 is part of x86-64; the caller's contract covers the memory.
        unsafe { stream_lines_sse2(dst, lines, source) }
    }
}

/// Without x86-64 the callers never stream (`cfg!` above); this copies plainly.
#[cfg(not(target_arch = "x86_64"))]
unsafe fn stream_lines(dst: *mut u8, lines: usize, source: impl Fn(usize) -> *const u8) {
    for k in 0..lines {
        // SAFETY: the caller's contract.
        unsafe { std::ptr::copy_nonoverlapping(source(k), dst.add(k * LINE), LINE) };
    }
}

/// [`stream_lines`] with 32-byte stores.
///
/// # Safety
/// As [`stream_lines`], on a CPU with AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn stream_lines_avx(dst: *mut u8, lines: usize, source: impl Fn(usize) -> *const u8) {
    use std::arch::x86_64::{__m256i, _mm_sfence, _mm256_loadu_si256, _mm256_stream_si256};
    for k in 0..lines {
        let s = source(k).cast::<__m256i>();
        let d = dst.wrapping_add(k * LINE).cast::<__m256i>();
        // SAFETY: `s` is readable for 64 bytes (unaligned loads); `d` is 64-byte aligned and
        // writable for 64 bytes (the caller's contract).
        unsafe {
            let (a, b) = (_mm256_loadu_si256(s), _mm256_loadu_si256(s.add(1)));
            _mm256_stream_si256(d, a);
            _mm256_stream_si256(d.add(1), b);
        }
    }
    _mm_sfence();
}

/// [`stream_lines`] with 16-byte stores.
///
/// # Safety
/// As [`stream_lines`].
#[cfg(target_arch = "x86_64")]
unsafe fn stream_lines_sse2(dst: *mut u8, lines: usize, source: impl Fn(usize) -> *const u8) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_sfence, _mm_stream_si128};
    for k in 0..lines {
        let s = source(k).cast::<__m128i>();
        let d = dst.wrapping_add(k * LINE).cast::<__m128i>();
        for q in 0..4 {
            // SAFETY: as in `stream_lines_avx`, in four 16-byte pieces (16-byte aligned stores).
            unsafe { _mm_stream_si128(d.add(q), _mm_loadu_si128(s.add(q))) };
        }
    }
    // SAFETY: SSE is part of x86-64.
    unsafe { _mm_sfence() };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every split of every offset and length, streaming or not, copies exactly the range.
    #[test]
    fn copies_exactly_the_range_at_every_alignment() {
        let src: Vec<u8> = (0..700u32).map(|k| (k * 7 + 3) as u8).collect();
        for streaming in [false, true] {
            for start in 0..70 {
                for len in [0, 1, 63, 64, 65, 127, 128, 200, 511, 600] {
                    let mut dst = vec![0xEEu8; 700];
                    // SAFETY: both vectors hold `start + len <= 670` bytes; distinct allocations.
                    unsafe {
                        copy(
                            dst.as_mut_ptr().add(start),
                            src.as_ptr().add(3),
                            len,
                            streaming,
                        )
                    };
                    for (k, &b) in dst.iter().enumerate() {
                        let want = if (start..start + len).contains(&k) {
                            src[k - start + 3]
                        } else {
                            0xEE
                        };
                        assert_eq!(
                            b, want,
                            "start {start} len {len} streaming {streaming} byte {k}"
                        );
                    }
                }
            }
        }
    }

    /// A fill written in pieces at offsets writes the element's bytes in sequence from the
    /// range's start, for element sizes that divide the line and sizes that do not.
    #[test]
    fn fills_continue_the_pattern_across_pieces() {
        for size in [1usize, 2, 4, 8, 12, 16, 24, 40, 64, 72] {
            let value: Vec<u8> = (0..size)
                .map(|k| (k as u8).wrapping_mul(31).wrapping_add(1))
                .collect();
            let pattern = Pattern::new(&value);
            for streaming in [false, true] {
                for start in [0usize, 1, 8, 13, 64] {
                    let total = size * 37;
                    let mut dst = vec![0u8; total + 128];
                    // Three pieces, cut at arbitrary offsets.
                    let cuts = [0, total / 3 + 1, 2 * total / 3 + 5, total];
                    for w in cuts.windows(2) {
                        // SAFETY: `start + w[1] <= total + 64` bytes of `dst`.
                        unsafe {
                            fill(
                                dst.as_mut_ptr().add(start + w[0]),
                                &pattern,
                                w[0],
                                w[1] - w[0],
                                streaming,
                            )
                        };
                    }
                    for (k, &b) in dst.iter().enumerate() {
                        let want = if (start..start + total).contains(&k) {
                            value[(k - start) % size]
                        } else {
                            0
                        };
                        assert_eq!(
                            b, want,
                            "size {size} start {start} streaming {streaming} byte {k}"
                        );
                    }
                }
            }
        }
    }
}
