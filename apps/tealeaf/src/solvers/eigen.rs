//! The eigenvalue estimate Chebyshev and PPCG start from (TeaLeaf's `eigenvalue_driver`): CG's
//! step lengths and direction weights define a symmetric tridiagonal (Lanczos) matrix whose
//! eigenvalues approximate the operator's extremes.

use crate::TeaError;

/// The eigenvalues of the symmetric tridiagonal matrix with diagonal `diag` and off-diagonal
/// `off` (`off[i]` couples rows `i` and `i + 1`; `off.len() + 1 == diag.len()`), by the implicit
/// QL method with Wilkinson shifts. At most 30 sweeps per eigenvalue, as TeaLeaf.
pub fn tridiagonal_eigenvalues(diag: &[f64], off: &[f64]) -> Result<Vec<f64>, TeaError> {
    let n = diag.len();
    let mut d = diag.to_vec();
    // e[i] couples i and i + 1; e[n - 1] = 0 closes the matrix.
    let mut e: Vec<f64> = off.iter().copied().chain([0.0]).take(n).collect();
    e.resize(n, 0.0);
    for l in 0..n {
        let mut sweeps = 0;
        loop {
            // The first negligible off-diagonal element at or after l splits the matrix.
            let m = (l..n.saturating_sub(1))
                .find(|&m| {
                    let dd = d[m].abs() + d[m + 1].abs();
                    e[m].abs() + dd == dd
                })
                .unwrap_or(n - 1);
            if m == l {
                break;
            }
            sweeps += 1;
            if sweeps > 30 {
                return Err(TeaError::Solver(
                    "the eigenvalue iteration (QL) did not converge in 30 sweeps".into(),
                ));
            }
            // The shift: the eigenvalue of the leading 2x2 block nearer d[l].
            let mut g = (d[l + 1] - d[l]) / (2.0 * e[l]);
            let mut r = g.hypot(1.0);
            g = d[m] - d[l] + e[l] / (g + r.copysign(g));
            let (mut s, mut c, mut p) = (1.0, 1.0, 0.0);
            let mut underflow = false;
            for i in (l..m).rev() {
                let f = s * e[i];
                let b = c * e[i];
                r = f.hypot(g);
                e[i + 1] = r;
                if r == 0.0 {
                    // Deflate and start the sweep again.
                    d[i + 1] -= p;
                    e[m] = 0.0;
                    underflow = true;
                    break;
                }
                s = f / r;
                c = g / r;
                g = d[i + 1] - p;
                r = (d[i] - g) * s + 2.0 * c * b;
                p = s * r;
                d[i + 1] = g + p;
                g = c * r - b;
            }
            if underflow {
                continue;
            }
            d[l] -= p;
            e[l] = g;
            e[m] = 0.0;
        }
    }
    Ok(d)
}

/// The smallest and largest eigenvalue estimates from the first `alphas.len()` CG iterations,
/// widened by TeaLeaf's margins (5% each way). Negative estimates are an error, as in TeaLeaf.
pub fn estimate(alphas: &[f64], betas: &[f64]) -> Result<(f64, f64), TeaError> {
    let n = alphas.len();
    if n == 0 {
        return Err(TeaError::Solver(
            "no CG iterations to estimate eigenvalues from".into(),
        ));
    }
    let diag: Vec<f64> = (0..n)
        .map(|i| {
            let own = 1.0 / alphas[i];
            if i > 0 {
                own + betas[i - 1] / alphas[i - 1]
            } else {
                own
            }
        })
        .collect();
    let off: Vec<f64> = (0..n - 1).map(|i| betas[i].sqrt() / alphas[i]).collect();
    let eigenvalues = tridiagonal_eigenvalues(&diag, &off)?;
    let min = eigenvalues.iter().copied().fold(f64::MAX, f64::min);
    let max = eigenvalues
        .iter()
        .copied()
        .fold(f64::MIN_POSITIVE, f64::max);
    if min < 0.0 || max < 0.0 {
        return Err(TeaError::Solver(format!(
            "negative eigenvalue estimates ({min:e}, {max:e})"
        )));
    }
    Ok((min * 0.95, max * 1.05))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eigenvalues_of_a_known_tridiagonal_matrix() {
        // The 1D Laplacian tridiag(-1, 2, -1) of order n: 2 - 2 cos(k pi / (n + 1)).
        let n = 12;
        let mut got = tridiagonal_eigenvalues(&vec![2.0; n], &vec![-1.0; n - 1]).unwrap();
        got.sort_by(f64::total_cmp);
        for (k, g) in got.iter().enumerate() {
            let want = 2.0 - 2.0 * ((k + 1) as f64 * std::f64::consts::PI / (n + 1) as f64).cos();
            assert!((g - want).abs() < 1e-12, "{k}: {g} vs {want}");
        }
    }
}
