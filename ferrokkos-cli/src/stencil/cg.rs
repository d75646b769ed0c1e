//! The conjugate-gradient iteration, written once over the operations every implementation
//! provides (an operator apply, two dot products, three vector updates), so that all of them do
//! the same work in the same order: a fixed number of iterations, no convergence test.

use super::Implementation;
use crate::Failure;

/// CG's dot products.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dot {
    /// `p . ap`
    PAp,
    /// `r . r`
    RR,
}

/// CG's vector updates, each `y = y + a x` in some form, on the interior.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Update {
    /// `x += a p`
    X,
    /// `r += a ap` (CG passes `-alpha`)
    R,
    /// `p = r + a p`
    P,
}

/// CG's vectors, whatever holds them (Views, `Vec`s, C arrays).
pub struct Vectors<V> {
    /// The iterate.
    pub x: V,
    /// The residual.
    pub r: V,
    /// The search direction.
    pub p: V,
    /// `A p`.
    pub ap: V,
}

impl<V> Vectors<V> {
    /// The two vectors of a dot product.
    pub fn dot_operands(&self, dot: Dot) -> (&V, &V) {
        match dot {
            Dot::PAp => (&self.p, &self.ap),
            Dot::RR => (&self.r, &self.r),
        }
    }

    /// The vector an update writes, and the one it reads: x and p, r and ap, p and r.
    pub fn update_operands(&mut self, update: Update) -> (&mut V, &V) {
        match update {
            Update::X => (&mut self.x, &self.p),
            Update::R => (&mut self.r, &self.ap),
            Update::P => (&mut self.p, &self.r),
        }
    }
}

/// `iters` iterations of CG from its start (`imp.cg_reset()` done, `rr` = `r . r` of the start),
/// each: `ap = A p`, `alpha = rr / (p . ap)`, `x += alpha p`, `r -= alpha ap`, `rr' = r . r`,
/// `p = r + (rr' / rr) p`. Returns the residual norm `sqrt(r . r)` after each iteration. A zero
/// denominator (an exactly converged residual) gives a zero step instead of a NaN.
pub fn iterate(
    imp: &mut dyn Implementation,
    mut rr: f64,
    iters: usize,
) -> Result<Vec<f64>, Failure> {
    let mut norms = Vec::with_capacity(iters);
    for _ in 0..iters {
        imp.cg_apply()?;
        let pap = imp.cg_dot(Dot::PAp)?;
        let alpha = if pap == 0.0 { 0.0 } else { rr / pap };
        imp.cg_update(Update::X, alpha)?;
        imp.cg_update(Update::R, -alpha)?;
        let rr_new = imp.cg_dot(Dot::RR)?;
        let beta = if rr == 0.0 { 0.0 } else { rr_new / rr };
        imp.cg_update(Update::P, beta)?;
        rr = rr_new;
        norms.push(rr.sqrt());
    }
    Ok(norms)
}
