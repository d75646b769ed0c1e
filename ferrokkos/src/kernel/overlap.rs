//! Disjoint access, proved at launch (beyond Kokkos): `kernel!` records each View access as an
//! affine map of the iteration index per coordinate (`y[i + n]`, `a[(j, m - 1 - k)]`), and where
//! the race rules cannot settle a written View by syntax alone (a read at another map than the
//! write's, two writes at different maps, a write whose map has a coefficient other than ±1), the
//! kernel carries an [`Overlap`]: two maps whose images over the launch's iteration range must not
//! intersect. The launch checks them against the policy's bounds before any iteration runs, and
//! refuses the launch with [`crate::Error::KernelOverlap`] naming both index expressions otherwise.
//!
//! Soundness: a map's image is computed exactly (in `i128`) over the box of iterations. Two images
//! are disjoint when their intervals are disjoint in some coordinate, or when `c1·p + o1 = c2·q + o2`
//! has no integer solution (`gcd(c1, c2)` does not divide `o2 - o1`). The kernel computes indices in
//! its index type with wrapping arithmetic, which gives the exact value whenever that value fits the
//! type's signed range; so every interval must lie within `(-2^(B-1), 2^(B-1))` for a `B`-bit type,
//! and, for types narrower than 64 bits, above zero too (a negative value of an unsigned 32-bit index
//! wraps to a large one that a View of more than 2^31 elements could hold; of 64 bits, to one beyond
//! any View). A check that cannot be made in those terms refuses the launch.

use crate::error::{Error, Result};

/// One coordinate of an index, as a function of the iteration index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub enum Coord {
    /// `coef · index[param] + offset`, in the index type.
    Param {
        /// Which coordinate of the iteration index (0 for a range).
        param: u8,
        /// The literal coefficient (never 0).
        coef: i64,
        /// The offset, evaluated when the kernel was made (captures and literals).
        offset: i128,
    },
    /// `Σ coefs[p] · index[p] + offset` over several coordinates of the iteration index, or with
    /// a coefficient of launch constants (a flat index `m · j + i`); a coefficient of 0 is a
    /// coordinate the map does not use.
    Mixed {
        /// The coefficient of each coordinate of the iteration index.
        coefs: [i64; MAX_PARAMS],
        /// The offset, evaluated when the kernel was made.
        offset: i128,
    },
    /// A value that does not depend on the iteration (captures and literals), in a type of `bits`
    /// bits (8 when it has no captured term: a literal takes its type from its use, which may be
    /// `u8`).
    Fixed {
        /// The value.
        value: i128,
        /// The width of its type.
        bits: u32,
    },
    /// Anything else: no constraint is known.
    Any,
}

impl Coord {
    /// `coef · index[param] + offset`.
    pub const fn param(param: u8, coef: i64, offset: i128) -> Coord {
        Coord::Param {
            param,
            coef,
            offset,
        }
    }

    /// A value that does not depend on the iteration.
    pub const fn fixed(value: i128, bits: u32) -> Coord {
        Coord::Fixed { value, bits }
    }

    /// `Σ coef · index[param] + offset` for the `(param, coef)` pairs of `terms` (coefficients
    /// evaluated from the kernel's captures); [`Coord::Any`] when a coefficient is beyond `±2^62`
    /// or a coordinate beyond the policies' ranks, so no check relies on a value it misstates.
    pub fn mixed(terms: &[(u8, i128)], offset: i128) -> Coord {
        let mut coefs = [0i64; MAX_PARAMS];
        for &(param, coef) in terms {
            let Some(slot) = coefs.get_mut(usize::from(param)) else {
                return Coord::Any;
            };
            match i64::try_from(coef) {
                Ok(c) if c.unsigned_abs() < 1 << 62 && *slot == 0 => *slot = c,
                _ => return Coord::Any,
            }
        }
        Coord::Mixed { coefs, offset }
    }
}

/// The most coordinates an iteration index has (an `MDRangePolicy` of rank 6).
pub const MAX_PARAMS: usize = 6;

/// The width in bits of an integer's type (a fixed coordinate's type, for the overlap checks).
#[doc(hidden)]
pub fn int_bits<T: Copy>(_: &T) -> u32 {
    (std::mem::size_of::<T>() * 8) as u32
}

/// Two accesses of one written View whose images over the iteration range must not intersect
/// (`second` `None`: the first access's map must be injective, i.e. not wrap around its type).
#[derive(Clone, Debug)]
#[doc(hidden)]
pub struct Overlap {
    /// The View as the kernel names it.
    pub view: &'static str,
    /// The first access as written (`y[i + n]`) and its map.
    pub first: (&'static str, Vec<Coord>),
    /// The second access, if any.
    pub second: Option<(&'static str, Vec<Coord>)>,
}

/// The iteration box of a launch: per index coordinate `[begin, end)`, and the width in bits of the
/// index type.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bounds<'a> {
    pub(crate) ranges: &'a [(i128, i128)],
    pub(crate) bits: u32,
}

/// Why a coordinate's interval cannot be used.
struct Unprovable;

/// The values `c` takes over `bounds`, or `None` (no constraint); `Err` when the interval leaves
/// the range where the kernel's arithmetic is exact.
fn interval(c: &Coord, b: Bounds<'_>) -> std::result::Result<Option<(i128, i128)>, Unprovable> {
    let (lo, hi, bits) = match *c {
        Coord::Any => return Ok(None),
        Coord::Fixed { value, bits } => (value, value, bits),
        Coord::Param {
            param,
            coef,
            offset,
        } => {
            let &(begin, end) = b.ranges.get(usize::from(param)).ok_or(Unprovable)?;
            let (c, last) = (i128::from(coef), end - 1);
            let (x, y) = (c * begin + offset, c * last + offset);
            (x.min(y), x.max(y), b.bits)
        }
        Coord::Mixed { coefs, offset } => {
            let (mut lo, mut hi) = (offset, offset);
            for (p, &coef) in coefs.iter().enumerate().filter(|(_, c)| **c != 0) {
                let &(begin, end) = b.ranges.get(p).ok_or(Unprovable)?;
                let c = i128::from(coef);
                let x = c.checked_mul(begin).ok_or(Unprovable)?;
                let y = c.checked_mul(end - 1).ok_or(Unprovable)?;
                lo = lo.checked_add(x.min(y)).ok_or(Unprovable)?;
                hi = hi.checked_add(x.max(y)).ok_or(Unprovable)?;
            }
            (lo, hi, b.bits)
        }
    };
    let half = 1i128 << (bits.clamp(8, 64) - 1);
    let exact = if bits >= 64 {
        lo > -half && hi < half
    } else {
        lo >= 0 && hi < half
    };
    if exact {
        Ok(Some((lo, hi)))
    } else {
        Err(Unprovable)
    }
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 { a.abs() } else { gcd(b, a % b) }
}

/// Whether the images of `a` and `b` over `bounds` are disjoint (`Err`: cannot be proved).
fn disjoint(a: &[Coord], b: &[Coord], bounds: Bounds<'_>) -> std::result::Result<bool, Unprovable> {
    if a.len() != b.len() {
        return Err(Unprovable);
    }
    let mut apart = false;
    for (ca, cb) in a.iter().zip(b) {
        let (ia, ib) = (interval(ca, bounds)?, interval(cb, bounds)?);
        if let (Some((alo, ahi)), Some((blo, bhi))) = (ia, ib)
            && (ahi < blo || bhi < alo)
        {
            apart = true;
        }
        // Lattices: `c1·p + o1 = c2·q + o2` needs gcd(c1, c2) | (o2 - o1).
        let lattice = |c: &Coord| match *c {
            Coord::Param { coef, offset, .. } => Some((i128::from(coef), offset)),
            Coord::Fixed { value, .. } => Some((0, value)),
            Coord::Mixed { .. } | Coord::Any => None,
        };
        if let (Some((c1, o1)), Some((c2, o2))) = (lattice(ca), lattice(cb)) {
            let g = gcd(c1, c2);
            if g != 0 && (o2 - o1) % g != 0 {
                apart = true;
            }
        }
    }
    Ok(apart)
}

/// Whether `map` is injective over `bounds`: its values do not wrap around their type, and each
/// coordinate of several iteration coordinates is a mixed-radix number over them (taken by
/// increasing magnitude, each coefficient exceeds the span the smaller ones cover: `m · j + i`
/// needs `m` at least the number of `i`s).
fn fits(map: &[Coord], bounds: Bounds<'_>) -> std::result::Result<(), &'static str> {
    const WRAPS: &str = "its values may wrap around the index type over this range, so two \
                         iterations could write one element";
    const MIXED: &str = "it combines iteration coordinates whose ranges overlap over this launch \
                         (`m * j + i` needs `m` at least the number of `i`s), so two iterations \
                         could write one element";
    for c in map {
        interval(c, bounds).map_err(|_| WRAPS)?;
        if let Coord::Mixed { coefs, .. } = c {
            let mut digits: Vec<(i128, i128)> = Vec::new();
            for (p, &coef) in coefs.iter().enumerate().filter(|(_, c)| **c != 0) {
                let &(begin, end) = bounds.ranges.get(p).ok_or(WRAPS)?;
                if end - begin > 1 {
                    digits.push((i128::from(coef).abs(), end - begin - 1));
                }
            }
            digits.sort_unstable();
            let mut span = 0i128;
            for (coef, steps) in digits {
                if coef <= span {
                    return Err(MIXED);
                }
                span = coef
                    .checked_mul(steps)
                    .and_then(|s| span.checked_add(s))
                    .ok_or(MIXED)?;
            }
        }
    }
    Ok(())
}

/// The number of iterations in `bounds` (not empty), saturated.
fn iterations(bounds: Bounds<'_>) -> u128 {
    bounds.ranges.iter().fold(1u128, |n, (lo, hi)| {
        n.saturating_mul(u128::try_from(hi - lo).unwrap_or(u128::MAX))
    })
}

/// Checks a kernel's overlaps against a launch's iteration box; `what` names the launch.
pub(crate) fn check(
    overlaps: &[Overlap],
    bounds: Bounds<'_>,
    what: &dyn Fn() -> String,
) -> Result<()> {
    if bounds.ranges.iter().any(|(lo, hi)| lo >= hi) {
        return Ok(()); // no iterations
    }
    for o in overlaps {
        let (first, map) = (o.first.0, &o.first.1);
        let fail = |second: &'static str, reason: &'static str| Error::KernelOverlap {
            launch: what(),
            view: o.view,
            first,
            second,
            reason,
        };
        match &o.second {
            // A map with no iteration coordinate (a rank-0 View's `s[()]`) is one element for
            // every iteration: injective only over one iteration.
            None if !map
                .iter()
                .any(|c| matches!(c, Coord::Param { .. } | Coord::Mixed { .. })) =>
            {
                let iterations = iterations(bounds);
                if iterations > 1 {
                    return Err(Error::KernelSharedWrite {
                        launch: what(),
                        view: o.view,
                        access: first,
                        iterations,
                    });
                }
            }
            None => fits(map, bounds).map_err(|reason| fail(first, reason))?,
            Some((second, other)) => match disjoint(map, other, bounds) {
                Ok(true) => {}
                Ok(false) => {
                    return Err(fail(
                        second,
                        "over this launch's iterations both can reach the same element",
                    ));
                }
                Err(Unprovable) => {
                    return Err(fail(
                        second,
                        "their indices may wrap around the index type over this range, so \
                         the launch cannot prove them apart",
                    ));
                }
            },
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
