//! Checking each implementation's results against ferrokkos': the sweep's final field bit for bit
//! (every implementation does the same operations in the same order), CG's residual norms and
//! solution within a relative [`CG_TOLERANCE`] (the dot products add in different orders).

use super::problem::Grid;

/// The largest relative difference allowed between CG's residual norms (and solutions) and
/// ferrokkos'.
pub const CG_TOLERANCE: f64 = 1e-8;

/// Row and column of cell `k` of `grid`.
fn cell(grid: Grid, k: usize) -> (usize, usize) {
    (k / grid.width(), k % grid.width())
}

/// Where the sweep's final `field` first differs from ferrokkos' `reference` in any bit, said in
/// words (cell, both values); `None` when they are identical.
pub fn sweep_mismatch(field: &[f64], reference: &[f64], grid: Grid) -> Option<String> {
    if field.len() != reference.len() {
        return Some(format!(
            "{} cells where ferrokkos has {}",
            field.len(),
            reference.len()
        ));
    }
    let k = field
        .iter()
        .zip(reference)
        .position(|(a, b)| a.to_bits() != b.to_bits())?;
    let (i, j) = cell(grid, k);
    Some(format!(
        "first differing point (i, j) = ({i}, {j}): {} where ferrokkos has {}",
        field[k], reference[k]
    ))
}

/// Whether `a` and `b` agree within [`CG_TOLERANCE`], relative to the larger (NaN never does).
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= CG_TOLERANCE * a.abs().max(b.abs())
}

/// Where CG's residual `norms` (one per iteration) or solution `x` first differ from ferrokkos'
/// beyond [`CG_TOLERANCE`] (the solution relative to ferrokkos' largest value), said in words;
/// `None` when they agree.
pub fn cg_mismatch(
    norms: &[f64],
    reference_norms: &[f64],
    x: &[f64],
    reference_x: &[f64],
    grid: Grid,
) -> Option<String> {
    if norms.len() != reference_norms.len() || x.len() != reference_x.len() {
        return Some(format!(
            "{} residual norms and {} cells where ferrokkos has {} and {}",
            norms.len(),
            x.len(),
            reference_norms.len(),
            reference_x.len()
        ));
    }
    if let Some(k) = (0..norms.len()).find(|&k| !close(norms[k], reference_norms[k])) {
        return Some(format!(
            "residual norm after iteration {}: {} where ferrokkos has {} (relative tolerance \
             {CG_TOLERANCE:e})",
            k + 1,
            norms[k],
            reference_norms[k]
        ));
    }
    let scale = reference_x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let k = (0..x.len()).find(|&k| {
        let d = (x[k] - reference_x[k]).abs();
        d.is_nan() || d > CG_TOLERANCE * scale
    })?;
    let (i, j) = cell(grid, k);
    Some(format!(
        "solution at the first differing point (i, j) = ({i}, {j}): {} where ferrokkos has {} \
         (tolerance {CG_TOLERANCE:e} of ferrokkos' largest value {scale})",
        x[k], reference_x[k]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const GRID: Grid = Grid { n: 2 };

    #[test]
    fn sweeps_must_match_bit_for_bit() {
        let reference: Vec<f64> = (0..16).map(|k| k as f64 / 7.0).collect();
        assert_eq!(sweep_mismatch(&reference, &reference, GRID), None);
        let mut field = reference.clone();
        field[6] = f64::from_bits(field[6].to_bits() + 1);
        let m = sweep_mismatch(&field, &reference, GRID).unwrap();
        assert!(
            m.starts_with("first differing point (i, j) = (1, 2): "),
            "{m}"
        );
        // -0.0 and 0.0 compare equal but differ in their bits.
        let mut signed = reference.clone();
        signed[0] = -0.0;
        assert!(sweep_mismatch(&signed, &reference, GRID).is_some());
        assert!(sweep_mismatch(&reference[1..], &reference, GRID).is_some());
    }

    #[test]
    fn cg_agrees_within_the_tolerance() {
        let norms = [1.0, 0.5, 0.25];
        let x: Vec<f64> = (0..16).map(|k| k as f64).collect();
        assert_eq!(cg_mismatch(&norms, &norms, &x, &x, GRID), None);
        let near = [1.0, 0.5 * (1.0 + 1e-12), 0.25];
        assert_eq!(cg_mismatch(&near, &norms, &x, &x, GRID), None);
        let far = [1.0, 0.5 * (1.0 + 1e-7), 0.25];
        let m = cg_mismatch(&far, &norms, &x, &x, GRID).unwrap();
        assert!(m.starts_with("residual norm after iteration 2: "), "{m}");
        let mut y = x.clone();
        y[13] += 1e-4;
        let m = cg_mismatch(&norms, &norms, &y, &x, GRID).unwrap();
        assert!(m.contains("(i, j) = (3, 1)"), "{m}");
        let nan = [1.0, f64::NAN, 0.25];
        assert!(cg_mismatch(&nan, &norms, &x, &x, GRID).is_some());
    }
}
