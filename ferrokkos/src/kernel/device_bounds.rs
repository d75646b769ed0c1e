//! The View reads of `#[device]` functions that a launch proves in bounds at a call site, so that
//! the proven form of a kernel body (`kernel/bounds.rs`) calls the function with its Views read
//! unchecked ([`ProvenRead`](crate::view::view_read::ProvenRead)).
//!
//! `#[device]` records each read `u[(i - 1, j)]` of a View parameter as a map of the function's
//! integer parameters ([`DeviceAccess`], in [`DeviceFunction::ACCESSES`]); `kernel!` records each
//! argument of a call as a map of the iteration index. [`device_bounds`] composes the two into
//! maps of the iteration index, which the launch proves like the body's own accesses.
//!
//! Soundness: the function computes an index in its parameter's type, which is the argument's
//! (Rust converts no integer implicitly), and the kernel computes the argument in that type too:
//! an argument affine in the iteration index has the index's type (the launch's `bits`), a fixed
//! one the type its [`Coord::Fixed`] names, and a literal coordinate of the function is taken to
//! be 8 bits wide. Each step wraps modulo the type's width, so the computed index is congruent to
//! the composed map's exact value, and equals it where the proof keeps that value in
//! `[0, 2^(bits - 1))` (as in `kernel/bounds.rs`).
//!
//! [`DeviceFunction::ACCESSES`]: super::device_fn::DeviceFunction::ACCESSES

use super::bounds::InBounds;
use super::overlap::Coord;

/// One coordinate of a `#[device]` function's View read, as a map of its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub enum DeviceCoord {
    /// `coef · (parameter number param) + offset` (parameters numbered from 0 as declared).
    Param {
        /// The parameter's position.
        param: usize,
        /// The literal coefficient (never 0).
        coef: i64,
        /// The literal offset.
        offset: i64,
    },
    /// A literal.
    Fixed(i64),
}

/// One read `view[map]` of a `#[device]` function's View parameter.
#[derive(Clone, Copy, Debug)]
#[doc(hidden)]
pub struct DeviceAccess {
    /// The View parameter's position.
    pub view: usize,
    /// The index map, one coordinate per dimension.
    pub map: &'static [DeviceCoord],
}

/// Whether a call may run the function with its Views unchecked: the function lists its reads
/// (`accesses`), each read View is a captured View of the kernel (`views[p]`, per parameter), and
/// each parameter a map uses has an argument affine in the iteration index (`known[p]`).
#[doc(hidden)]
pub const fn proves(accesses: Option<&[DeviceAccess]>, known: &[bool], views: &[bool]) -> bool {
    let Some(accesses) = accesses else {
        return false;
    };
    let mut a = 0;
    while a < accesses.len() {
        let access = &accesses[a];
        if access.view >= views.len() || !views[access.view] {
            return false;
        }
        let mut c = 0;
        while c < access.map.len() {
            if let DeviceCoord::Param { param, .. } = access.map[c]
                && (param >= known.len() || !known[param])
            {
                return false;
            }
            c += 1;
        }
        a += 1;
    }
    true
}

/// The reads one call makes, as maps of the iteration index for the launch to prove (nothing
/// when [`proves`] says the call runs checked): `views` names the captured View passed for each
/// parameter, `args` maps each argument (`Any` where unknown); `known` and `views` are what the
/// call site gave [`proves`].
#[doc(hidden)]
pub fn device_bounds(
    accesses: Option<&[DeviceAccess]>,
    known: &[bool],
    views: &[Option<&'static str>],
    args: &[Coord],
) -> Vec<InBounds> {
    let is_view: Vec<bool> = views.iter().map(Option::is_some).collect();
    if !proves(accesses, known, &is_view) {
        return Vec::new();
    }
    let accesses = accesses.unwrap_or_default();
    accesses
        .iter()
        .filter_map(|a| {
            let view = (*views.get(a.view)?)?;
            let map = a.map.iter().map(|c| compose(c, args)).collect();
            Some(InBounds { view, map })
        })
        .collect()
}

/// The function's coordinate `c` at the arguments `args`: `Any` where the argument is unknown or
/// a coefficient leaves the range the launch's checks take.
fn compose(c: &DeviceCoord, args: &[Coord]) -> Coord {
    let (param, coef, offset) = match *c {
        DeviceCoord::Fixed(value) => return Coord::fixed(i128::from(value), 8),
        DeviceCoord::Param {
            param,
            coef,
            offset,
        } => (param, coef, offset),
    };
    let (k, d) = (i128::from(coef), i128::from(offset));
    let composed = match args.get(param) {
        Some(&Coord::Param {
            param,
            coef: inner,
            offset: o,
        }) => i64::try_from(k * i128::from(inner))
            .ok()
            .zip(k.checked_mul(o).and_then(|v| v.checked_add(d)))
            .map(|(coef, offset)| Coord::param(param, coef, offset)),
        Some(&Coord::Fixed { value, bits }) => k
            .checked_mul(value)
            .and_then(|v| v.checked_add(d))
            .map(|v| Coord::fixed(v, bits)),
        _ => None,
    };
    composed.unwrap_or(Coord::Any)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LAP: &[DeviceAccess] = &[
        DeviceAccess {
            view: 0,
            map: &[
                DeviceCoord::Param {
                    param: 1,
                    coef: 1,
                    offset: -1,
                },
                DeviceCoord::Param {
                    param: 2,
                    coef: 1,
                    offset: 0,
                },
            ],
        },
        DeviceAccess {
            view: 0,
            map: &[
                DeviceCoord::Param {
                    param: 1,
                    coef: 2,
                    offset: 1,
                },
                DeviceCoord::Fixed(3),
            ],
        },
    ];

    #[test]
    fn a_call_composes_the_functions_maps_with_its_arguments() {
        // lap(&u, i + 1, 5) in a range kernel over i.
        let args = [Coord::Any, Coord::param(0, 1, 1), Coord::fixed(5, 64)];
        let b = device_bounds(
            Some(LAP),
            &[false, true, true],
            &[Some("u"), None, None],
            &args,
        );
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].view, "u");
        assert_eq!(b[0].map, vec![Coord::param(0, 1, 0), Coord::fixed(5, 64)]);
        // 2 (i + 1) + 1 and the literal 3.
        assert_eq!(b[1].map, vec![Coord::param(0, 2, 3), Coord::fixed(3, 8)]);
    }

    #[test]
    fn unknown_arguments_or_views_and_unlisted_functions_prove_nothing() {
        assert!(proves(
            Some(LAP),
            &[false, true, true],
            &[true, false, false]
        ));
        // The second parameter's argument is not affine in the index.
        assert!(!proves(
            Some(LAP),
            &[false, false, true],
            &[true, false, false]
        ));
        // The View is not one of the kernel's captures.
        assert!(!proves(
            Some(LAP),
            &[false, true, true],
            &[false, false, false]
        ));
        // The function reads its View in ways not listed.
        assert!(!proves(None, &[true; 3], &[true; 3]));
        let none = device_bounds(None, &[true; 3], &[Some("u"), None, None], &[Coord::Any; 3]);
        assert!(none.is_empty());
    }

    #[test]
    fn an_overflowing_composition_is_unknown() {
        let big = DeviceCoord::Param {
            param: 0,
            coef: i64::MAX,
            offset: 0,
        };
        assert_eq!(compose(&big, &[Coord::param(0, 2, 0)]), Coord::Any);
        assert_eq!(compose(&big, &[Coord::Any]), Coord::Any);
    }
}
