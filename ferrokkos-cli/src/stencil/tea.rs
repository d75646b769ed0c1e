//! TeaLeaf-shaped CG: TeaLeaf's conjugate-gradient iteration (its `cg_calc_w`, `cg_calc_ur` and
//! `cg_calc_p`), written once over the three fused operations every implementation provides, so
//! that all of them do the same work in the same order: a fixed number of iterations, no
//! convergence test. The operator is TeaLeaf's, with variable face coefficients
//! ([`super::problem`]).

use super::Implementation;
use crate::Failure;

/// TeaLeaf-shaped CG's fields, whatever holds them (Views, `Vec`s, C arrays).
pub struct TeaFields<V> {
    /// The face coefficients in x (between rows `i - 1` and `i`), set once.
    pub kx: V,
    /// The face coefficients in y (between columns `j - 1` and `j`), set once.
    pub ky: V,
    /// The iterate.
    pub u: V,
    /// The residual.
    pub r: V,
    /// The search direction.
    pub p: V,
    /// `A p`.
    pub w: V,
}

/// `iters` iterations of TeaLeaf-shaped CG from its start (`imp.tea_reset()` done, `rro` the start's
/// `r . r`), each: `w = A p` with `pw = p . w`, `alpha = rro / pw`, `u += alpha p` and
/// `r -= alpha w` with `rrn = r . r`, `p = r + (rrn / rro) p`. Returns the residual norm
/// `sqrt(r . r)` after each iteration. A zero denominator gives a zero step instead of a NaN.
pub fn iterate(
    imp: &mut dyn Implementation,
    mut rro: f64,
    iters: usize,
) -> Result<Vec<f64>, Failure> {
    let mut norms = Vec::with_capacity(iters);
    for _ in 0..iters {
        let pw = imp.tea_w()?;
        let alpha = if pw == 0.0 { 0.0 } else { rro / pw };
        let rrn = imp.tea_ur(alpha)?;
        let beta = if rro == 0.0 { 0.0 } else { rrn / rro };
        imp.tea_p(beta)?;
        rro = rrn;
        norms.push(rro.sqrt());
    }
    Ok(norms)
}
