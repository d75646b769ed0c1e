//! The benchmark's matrix and vectors on the host: the 3D 7-point Laplacian on an n x n x n grid in
//! CSR form, the input vector x, the serial product every implementation is checked against, and
//! the bytes one product moves.

/// Bytes of one row offset (`u32`).
pub const ROW_PTR_BYTES: usize = size_of::<u32>();

/// The largest number of nonzeros: offsets and column indices are 32-bit and must be valid as C
/// `int` and as cuSPARSE's `CUSPARSE_INDEX_32I` (signed), so every one stays below 2^31.
pub const MAX_NNZ: u64 = i32::MAX as u64;

/// The number of rows of the matrix of grid size `n` (n^3), if it fits in `u64`.
pub fn rows_of(n: u64) -> Option<u64> {
    n.checked_mul(n)?.checked_mul(n)
}

/// The number of nonzeros of the matrix of grid size `n`: a diagonal entry per row, and two
/// off-diagonal entries (one in each direction) per pair of grid neighbours, of which there are
/// 3 n^2 (n - 1). So `7 n^3 - 6 n^2`. `None` if it overflows `u64`.
pub fn nnz_of(n: u64) -> Option<u64> {
    let pairs = n
        .checked_mul(n)?
        .checked_mul(n.saturating_sub(1))?
        .checked_mul(3)?;
    rows_of(n)?.checked_add(pairs.checked_mul(2)?)
}

/// The largest grid size whose matrix has at most [`MAX_NNZ`] nonzeros.
pub fn max_size() -> u64 {
    let mut n = 1;
    while nnz_of(n + 1).is_some_and(|nnz| nnz <= MAX_NNZ) {
        n += 1;
    }
    n
}

/// The bytes one product y = A x moves at least: the values and column indices once each
/// (`nnz * (8 + 4)`), the row offsets once (`(rows + 1) * 4`), x read once (on the assumption that
/// the neighbours' reuse of x hits in cache) and y written once (`rows * 8 * 2`).
pub fn bytes_moved(rows: usize, nnz: usize) -> usize {
    nnz * (size_of::<f64>() + size_of::<u32>())
        + (rows + 1) * ROW_PTR_BYTES
        + rows * size_of::<f64>() * 2
}

/// The formula of [`bytes_moved`], as printed.
pub const BYTES_FORMULA: &str = "nnz*(8+4) + (rows+1)*4 + rows*8*2 (values and column indices, \
                                 row offsets, x read once, y written)";

/// A sparse matrix in CSR form: row `i`'s entries are `val[k]` at column `col[k]` for `k` in
/// `row_ptr[i]..row_ptr[i + 1]`, columns increasing.
#[derive(Debug, Clone, PartialEq)]
pub struct Csr {
    /// The grid size n (the matrix is n^3 x n^3).
    pub n: usize,
    /// Row offsets: `rows + 1` entries, the first 0, the last `nnz`.
    pub row_ptr: Vec<u32>,
    /// Column index of each entry.
    pub col: Vec<u32>,
    /// Value of each entry.
    pub val: Vec<f64>,
}

/// A vector of `len` elements from `f`, its memory reserved fallibly (an error, not an abort, when
/// the allocator refuses it).
fn vec_of<T>(what: &str, len: usize, f: impl FnMut(usize) -> T) -> Result<Vec<T>, String> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|e| {
        format!(
            "spmv: could not allocate {what} ({len} elements of {} bytes): {e}",
            size_of::<T>()
        )
    })?;
    v.extend((0..len).map(f));
    Ok(v)
}

impl Csr {
    /// The 3D 7-point Laplacian on an n x n x n grid with Dirichlet boundaries: the row of grid
    /// point (x, y, z), number `(z * n + y) * n + x`, has 6 on the diagonal and -1 at each of its
    /// neighbours inside the grid (so rows at the boundary have fewer entries). `n` must be at
    /// least 1 and its matrix must have at most [`MAX_NNZ`] nonzeros (an error otherwise).
    pub fn laplacian_3d(n: usize) -> Result<Csr, String> {
        let nnz = nnz_of(n as u64)
            .filter(|&nnz| n > 0 && nnz <= MAX_NNZ)
            .ok_or_else(|| format!("spmv: no matrix of grid size {n} (1 to {})", max_size()))?;
        let rows = n * n * n;
        let mut row_ptr = vec_of("the row offsets", rows + 1, |_| 0u32)?;
        let mut col = vec_of("the column indices", nnz as usize, |_| 0u32)?;
        let mut val = vec_of("the values", nnz as usize, |_| 0.0f64)?;
        let mut k = 0usize;
        let mut row = 0usize;
        for z in 0..n {
            for y in 0..n {
                for x in 0..n {
                    // Neighbours in increasing column order: -z, -y, -x, self, +x, +y, +z.
                    let plane = n * n;
                    let entries = [
                        (z > 0, row.wrapping_sub(plane), -1.0),
                        (y > 0, row.wrapping_sub(n), -1.0),
                        (x > 0, row.wrapping_sub(1), -1.0),
                        (true, row, 6.0),
                        (x + 1 < n, row + 1, -1.0),
                        (y + 1 < n, row + n, -1.0),
                        (z + 1 < n, row + plane, -1.0),
                    ];
                    for (inside, c, v) in entries {
                        if inside {
                            col[k] = c as u32;
                            val[k] = v;
                            k += 1;
                        }
                    }
                    row += 1;
                    row_ptr[row] = k as u32;
                }
            }
        }
        debug_assert_eq!(k as u64, nnz);
        Ok(Csr {
            n,
            row_ptr,
            col,
            val,
        })
    }

    /// The number of rows (and columns).
    pub fn rows(&self) -> usize {
        self.row_ptr.len() - 1
    }

    /// The number of nonzeros.
    pub fn nnz(&self) -> usize {
        self.val.len()
    }

    /// The input vector x: a deterministic, irregular value in [1, 2) per row (a multiplicative
    /// hash of the index over a prime, so that the products round and the neighbours differ).
    pub fn input(&self) -> Result<Vec<f64>, String> {
        vec_of("x", self.rows(), x_at)
    }

    /// y = A x, one row after the other, each row's products added in column order.
    pub fn multiply(&self, x: &[f64], y: &mut [f64]) {
        for (i, yi) in y.iter_mut().enumerate() {
            *yi = self.row_times(i, x);
        }
    }

    /// Row `i` of A times x, the products added in column order.
    #[inline]
    pub fn row_times(&self, i: usize, x: &[f64]) -> f64 {
        row_times(&self.row_ptr, &self.col, &self.val, i, x)
    }

    /// The serial reference y = A x (a fallible allocation).
    pub fn reference(&self, x: &[f64]) -> Result<Vec<f64>, String> {
        let mut y = vec_of("the reference y", self.rows(), |_| 0.0)?;
        self.multiply(x, &mut y);
        Ok(y)
    }
}

/// Row `i` of the CSR matrix (`row_ptr`, `col`, `val`) times x, the products added in column
/// order (as every implementation adds them).
#[inline]
pub fn row_times(row_ptr: &[u32], col: &[u32], val: &[f64], i: usize, x: &[f64]) -> f64 {
    let (lo, hi) = (row_ptr[i] as usize, row_ptr[i + 1] as usize);
    val[lo..hi]
        .iter()
        .zip(&col[lo..hi])
        .fold(0.0, |sum, (v, &c)| sum + v * x[c as usize])
}

/// Element `i` of the input vector x (see [`Csr::input`]).
pub fn x_at(i: usize) -> f64 {
    const PRIME: u64 = 1_000_003;
    let h = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
    1.0 + (h % PRIME) as f64 / PRIME as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonzeros_follow_the_formula() {
        for n in 1..8 {
            let a = Csr::laplacian_3d(n).unwrap();
            let n = n as u64;
            assert_eq!(a.nnz() as u64, 7 * n * n * n - 6 * n * n);
            assert_eq!(Some(a.nnz() as u64), nnz_of(n));
            assert_eq!(a.rows() as u64, n * n * n);
        }
        assert_eq!(nnz_of(120), Some(12_009_600));
        assert!(nnz_of(u64::MAX).is_none());
    }

    #[test]
    fn rows_hold_the_stencil_with_dirichlet_boundaries() {
        let n = 4;
        let a = Csr::laplacian_3d(n).unwrap();
        let entries = |i: usize| -> Vec<(u32, f64)> {
            let (lo, hi) = (a.row_ptr[i] as usize, a.row_ptr[i + 1] as usize);
            a.col[lo..hi]
                .iter()
                .copied()
                .zip(a.val[lo..hi].iter().copied())
                .collect()
        };
        // A corner has 3 neighbours, an interior point 6.
        assert_eq!(entries(0), vec![(0, 6.0), (1, -1.0), (4, -1.0), (16, -1.0)]);
        let inner = (n + 1) * n + 1; // (1, 1, 1)
        assert_eq!(
            entries(inner),
            vec![
                (5, -1.0),
                (17, -1.0),
                (20, -1.0),
                (21, 6.0),
                (22, -1.0),
                (25, -1.0),
                (37, -1.0)
            ]
        );
        // Columns increase in every row, and the matrix is symmetric.
        for i in 0..a.rows() {
            let e = entries(i);
            assert!(e.windows(2).all(|w| w[0].0 < w[1].0), "row {i}");
            for (c, v) in e {
                assert!(entries(c as usize).contains(&(i as u32, v)));
            }
        }
    }

    #[test]
    fn the_product_of_a_constant_counts_the_missing_neighbours() {
        // A 1 = 6 - (neighbours): 0 inside, 1 per face the point lies on.
        let a = Csr::laplacian_3d(5).unwrap();
        let mut y = vec![0.0; a.rows()];
        a.multiply(&vec![1.0; a.rows()], &mut y);
        assert_eq!(y[0], 3.0);
        assert_eq!(y[(2 * 5 + 2) * 5 + 2], 0.0);
        assert_eq!(y[(2 * 5 + 2) * 5], 1.0);
    }

    #[test]
    fn bad_sizes_are_errors_and_the_largest_fits_32_bit_indices() {
        assert!(Csr::laplacian_3d(0).is_err());
        let m = max_size();
        assert!(nnz_of(m).unwrap() <= MAX_NNZ && nnz_of(m + 1).unwrap() > MAX_NNZ);
        assert!(Csr::laplacian_3d(m as usize + 1).is_err());
    }

    #[test]
    fn input_values_are_irregular_and_in_range() {
        let x: Vec<f64> = (0..1000).map(x_at).collect();
        assert!(x.iter().all(|v| (1.0..2.0).contains(v)));
        let mut distinct = x.clone();
        distinct.sort_by(f64::total_cmp);
        distinct.dedup();
        assert!(distinct.len() > 990);
    }

    #[test]
    fn bytes_follow_the_stated_formula() {
        assert_eq!(bytes_moved(10, 40), 40 * 12 + 11 * 4 + 10 * 16);
    }
}
