//! Affine index maps: each coordinate of a View access as `coef · p + offset`, where `p` is one
//! coordinate of the iteration index, `coef` an integer literal, and `offset` a sum of integer
//! literals and launch constants (captured scalars and constants, each times a literal), or as a
//! value without `p`; anything else is unknown. The race rules compare these maps, and the launch
//! checks the ones they leave open ([`crate::race`], `ferrokkos::kernel::overlap`).

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::quote;
use syn::{BinOp, Expr, Lit, UnOp};

use crate::analyze::{ident_of, strip};

/// One coordinate of an access.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Coord {
    /// `coef · params[param] + offset`.
    Param {
        param: usize,
        coef: i128,
        offset: Offset,
    },
    /// `Σ coef_p · params[p] + offset` where the coordinate has several iteration coordinates or a
    /// coefficient of launch constants (a flat index `m · j + i`): injective only where the launch
    /// proves it (each coefficient beyond the span of the smaller ones).
    Mixed {
        terms: Vec<(usize, Offset)>,
        offset: Offset,
    },
    /// A value that does not depend on the iteration.
    Fixed(Offset),
    /// Anything else.
    Any,
}

/// A sum of launch constants times literals plus a literal.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Offset {
    /// Each constant's name and its coefficient (never 0), sorted by name.
    pub terms: BTreeMap<String, i128>,
    pub literal: i128,
}

impl Offset {
    /// The offset as an `i128` expression; `leaf` gives the expression of each constant's value
    /// (a term `n as i64` is `n`'s, converted as written).
    pub fn tokens(&self, leaf: &dyn Fn(&str) -> TokenStream) -> TokenStream {
        let lit = self.literal;
        let terms = self.terms.iter().map(|(name, c)| {
            let v = term(name, leaf);
            quote!(+ (#c) * ((#v) as i128))
        });
        quote!((#lit #(#terms)*))
    }

    /// `self + sign · other`; `None` if a coefficient leaves `±BOUND`.
    fn add(mut self, other: Offset, sign: i128) -> Option<Offset> {
        self.literal = bounded(self.literal.checked_add(sign.checked_mul(other.literal)?)?)?;
        for (name, c) in other.terms {
            let e = self.terms.entry(name).or_insert(0);
            *e = bounded(e.checked_add(sign.checked_mul(c)?)?)?;
        }
        self.terms.retain(|_, c| *c != 0);
        Some(self)
    }

    /// A literal offset's value (no launch constants in it).
    pub fn literal_only(&self) -> Option<i128> {
        self.terms.is_empty().then_some(self.literal)
    }

    fn of_literal(literal: i128) -> Offset {
        Offset {
            literal,
            ..Offset::default()
        }
    }

    /// `k · self`; `None` if a coefficient leaves `±BOUND`.
    fn scale(mut self, k: i128) -> Option<Offset> {
        self.literal = bounded(self.literal.checked_mul(k)?)?;
        for c in self.terms.values_mut() {
            *c = bounded(c.checked_mul(k)?)?;
        }
        self.terms.retain(|_, c| *c != 0);
        Some(self)
    }
}

/// Every coefficient and literal of a map stays below this in magnitude, so that a coefficient
/// fits the `i64` the launch checks receive and no offset computed from launch constants (each
/// below 2^64) overflows `i128`. A map that would leave it is unknown (`Coord::Any`).
const BOUND: i128 = 1 << 62;

/// `v` if it lies within `±BOUND`.
fn bounded(v: i128) -> Option<i128> {
    (v.abs() < BOUND).then_some(v)
}

/// The value of one term: a constant, or a constant converted (`n as i64`).
pub fn term(name: &str, leaf: &dyn Fn(&str) -> TokenStream) -> TokenStream {
    match name.split_once(" as ") {
        Some((n, ty)) => {
            let v = leaf(n);
            let ty: TokenStream = ty.parse().unwrap_or_else(|_| quote!(i128));
            quote!(((#v) as #ty))
        }
        None => leaf(name),
    }
}

/// A linear combination being parsed: the coefficient of each iteration coordinate (literals, or
/// launch constants times literals), and the rest.
#[derive(Clone, Debug, Default)]
struct Linear {
    params: BTreeMap<usize, Offset>,
    rest: Offset,
}

impl Linear {
    fn add(mut self, other: Linear, sign: i128) -> Option<Linear> {
        for (p, c) in other.params {
            let e = self.params.entry(p).or_default();
            *e = std::mem::take(e).add(c, sign)?;
        }
        self.params.retain(|_, c| *c != Offset::default());
        self.rest = self.rest.add(other.rest, sign)?;
        Some(self)
    }

    fn scale(mut self, k: i128) -> Option<Linear> {
        for c in self.params.values_mut() {
            *c = std::mem::take(c).scale(k)?;
        }
        self.params.retain(|_, c| *c != Offset::default());
        self.rest = self.rest.scale(k)?;
        Some(self)
    }

    /// `self · other` where one factor is a literal, or one has no iteration coordinate and the
    /// other only literals (`m · j`, `(j + 1) · m`): the product stays linear in the launch
    /// constants. `None` otherwise.
    fn mul(self, other: Linear) -> Option<Linear> {
        let literal = |l: &Linear| l.params.is_empty().then(|| l.rest.literal_only()).flatten();
        if let Some(k) = literal(&self) {
            return (k.abs() < LIMIT).then_some(()).and(other.scale(k));
        }
        if let Some(k) = literal(&other) {
            return (k.abs() < LIMIT).then_some(()).and(self.scale(k));
        }
        let (constant, varying) = if self.params.is_empty() {
            (self.rest, other)
        } else if other.params.is_empty() {
            (other.rest, self)
        } else {
            return None;
        };
        let mut out = Linear {
            rest: constant.clone().scale(varying.rest.literal_only()?)?,
            ..Linear::default()
        };
        for (p, c) in varying.params {
            let c = constant.clone().scale(c.literal_only()?)?;
            if c != Offset::default() {
                out.params.insert(p, c);
            }
        }
        Some(out)
    }
}

/// An integer literal's value.
fn literal(e: &Expr) -> Option<i128> {
    match strip(e) {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) => i.base10_parse::<i128>().ok(),
            _ => None,
        },
        _ => None,
    }
}

/// The literal coefficients stay small, so no product of them overflows `i128`.
const LIMIT: i128 = 1 << 40;

fn linear(e: &Expr, params: &[String], constant: &dyn Fn(&str) -> bool) -> Option<Linear> {
    let e = strip(e);
    if let Some(v) = literal(e) {
        return (v.abs() < LIMIT).then(|| Linear {
            rest: Offset {
                literal: v,
                ..Offset::default()
            },
            ..Linear::default()
        });
    }
    if let Some(name) = ident_of(e) {
        if let Some(p) = params.iter().position(|n| *n == name) {
            return Some(Linear {
                params: BTreeMap::from([(p, Offset::of_literal(1))]),
                ..Linear::default()
            });
        }
        return constant(&name).then(|| Linear {
            rest: Offset {
                terms: BTreeMap::from([(name, 1)]),
                literal: 0,
            },
            ..Linear::default()
        });
    }
    // A subview's range coordinate: `i + lo` wherever its check passes (elsewhere it panics, or
    // on the device gives no coordinate of the View).
    if let Some((i, lo)) = crate::subview_range::offset(e) {
        return linear(i, params, constant)?.add(linear(lo, params, constant)?, 1);
    }
    match e {
        Expr::Binary(b) => match b.op {
            BinOp::Add(_) => {
                linear(&b.left, params, constant)?.add(linear(&b.right, params, constant)?, 1)
            }
            BinOp::Sub(_) => {
                linear(&b.left, params, constant)?.add(linear(&b.right, params, constant)?, -1)
            }
            BinOp::Mul(_) => {
                linear(&b.left, params, constant)?.mul(linear(&b.right, params, constant)?)
            }
            _ => None,
        },
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => {
            linear(&u.expr, params, constant)?.scale(-1)
        }
        // A launch constant converted to another integer type (`n as i64`): its own term, which
        // the launch evaluates with the same conversion.
        Expr::Cast(c) => {
            // Between 64-bit integer types a conversion is a bijection that keeps every value the
            // launch's checks take as exact (within ±2^63): the map is the operand's.
            let wide = matches!(
                quote::ToTokens::to_token_stream(&c.ty).to_string().as_str(),
                "i64" | "u64" | "isize" | "usize"
            );
            let Some(name) = ident_of(strip(&c.expr)).filter(|n| constant(n)) else {
                return if wide {
                    linear(&c.expr, params, constant)
                } else {
                    None
                };
            };
            let ty = quote::ToTokens::to_token_stream(&c.ty).to_string();
            Some(Linear {
                rest: Offset {
                    terms: BTreeMap::from([(format!("{name} as {ty}"), 1)]),
                    literal: 0,
                },
                ..Linear::default()
            })
        }
        _ => None,
    }
}

/// The coordinates of an index (`i`, `(j, k)`): each as a [`Coord`]. `constant` says which names
/// are launch constants (captured scalars the body never binds, and constants).
pub fn coords(index: &Expr, params: &[String], constant: &dyn Fn(&str) -> bool) -> Vec<Coord> {
    let one = |e: &Expr| match linear(e, params, constant) {
        None => Coord::Any,
        Some(l) if l.params.is_empty() => Coord::Fixed(l.rest),
        Some(l) => match l.params.iter().next() {
            Some((&param, coef)) if l.params.len() == 1 && coef.literal_only().is_some() => {
                Coord::Param {
                    param,
                    coef: coef.literal,
                    offset: l.rest,
                }
            }
            _ => Coord::Mixed {
                terms: l.params.into_iter().collect(),
                offset: l.rest,
            },
        },
    };
    match strip(index) {
        Expr::Tuple(t) => t.elems.iter().map(one).collect(),
        e => vec![one(e)],
    }
}

/// What makes an access's map injective: for each iteration coordinate, the one index coordinate
/// that holds it (its position, its coefficient there and the coordinate's offset; a coordinate
/// of several is injective only where the launch proves it). `None` when some iteration coordinate
/// is in no coordinate or in several.
pub type Key = Vec<(usize, Offset, Offset)>;

pub fn key(coords: &[Coord], n_params: usize) -> Option<Key> {
    (0..n_params)
        .map(|p| {
            let mut at = coords.iter().enumerate().filter_map(|(pos, c)| match c {
                Coord::Param {
                    param,
                    coef,
                    offset,
                } if *param == p => Some((pos, Offset::of_literal(*coef), offset.clone())),
                Coord::Mixed { terms, offset } => terms
                    .iter()
                    .find(|(q, _)| *q == p)
                    .map(|(_, coef)| (pos, coef.clone(), offset.clone())),
                _ => None,
            });
            let first = at.next()?;
            at.next().is_none().then_some(first)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coords_of(text: &str) -> Vec<Coord> {
        let e: Expr = syn::parse_str(text).expect("an expression");
        coords(&e, &["i".to_string(), "j".to_string()], &|n| n == "n")
    }

    #[test]
    fn shifted_and_scaled_indices_are_affine() {
        assert_eq!(
            coords_of("(i - 1, 2 * (j + n))"),
            vec![
                Coord::Param {
                    param: 0,
                    coef: 1,
                    offset: Offset {
                        terms: BTreeMap::new(),
                        literal: -1
                    }
                },
                Coord::Param {
                    param: 1,
                    coef: 2,
                    offset: Offset {
                        terms: BTreeMap::from([("n".to_string(), 2)]),
                        literal: 0
                    }
                },
            ]
        );
    }

    #[test]
    fn a_subview_range_coordinate_is_its_index_plus_its_start() {
        let offset = |literal, n| Offset {
            terms: BTreeMap::from([("n".to_string(), n)]),
            literal,
        };
        assert_eq!(
            coords_of("(j, __fk_subview_range(i - 1, n + 2, n + 5, a.extent(1)))"),
            vec![
                Coord::Param {
                    param: 1,
                    coef: 1,
                    offset: Offset::default()
                },
                Coord::Param {
                    param: 0,
                    coef: 1,
                    offset: offset(1, 1)
                },
            ]
        );
        // An index that is no map keeps the coordinate unknown, whatever the range.
        let unknown = "__fk_subview_range(i % 3, 1, 4, a.extent(0))";
        assert_eq!(coords_of(unknown), vec![Coord::Any]);
        // Another call is no subview range.
        assert_eq!(coords_of("f(i, 1, 4, 5)"), vec![Coord::Any]);
    }

    #[test]
    fn coefficients_beyond_the_bound_make_the_map_unknown() {
        // Each literal is below 2^40, their product is not below 2^62: a coefficient truncated to
        // i64 at the launch would misstate the map.
        let big = "1099511627775 * (1099511627775 * i)";
        assert_eq!(coords_of(big), vec![Coord::Any]);
        let offset = "i + 1099511627775 * (1099511627775 * n)";
        assert_eq!(coords_of(offset), vec![Coord::Any]);
        // Four nested factors would overflow i128 itself.
        let huge = "1099511627775 * (1099511627775 * (1099511627775 * (1099511627775 * i)))";
        assert_eq!(coords_of(huge), vec![Coord::Any]);
        assert_eq!(coords_of("i * j"), vec![Coord::Any]);
    }
}
