//! Differential tests of everyday Kokkos idioms in kernels: subviews made in the kernel, a flat
//! index over an MDRange, rank-0 Views read everywhere and written by a launch of one iteration,
//! View aliases, on pseudo-random inputs.

use super::*;

mod subviews_flat_indices_and_rank0_views {
    use super::*;

    type Input = (usize, usize, Vec<f64>, f64);

    fn inputs(seed: u64) -> Input {
        let mut rng = Rng::new(seed);
        let (n, m) = (3 + (seed % 5) as usize, 17 + (seed % 7) as usize);
        let a: Vec<f64> = (0..n * m).map(|_| rng.f64_in(-4.0, 4.0)).collect();
        (n, m, a, rng.f64_in(0.5, 2.0))
    }

    fn run<S: Launch>(exec: &S, input: &Input) -> Result<Outputs> {
        let (n, m, data, s) = input;
        let (n, m, s) = (*n, *m, *s);
        let a = upload_nd::<S, f64, 2, LayoutRight>("a", [n, m], data)?;
        let scale = SView::<S, f64, 0>::new("scale", [])?;
        let flat = SView::<S, f64, 1>::new("flat", [n * m])?;
        let rows = SView::<S, f64, 2>::new("rows", [n, m])?;
        let corner = SView::<S, f64, 0>::new("corner", [])?;
        parallel_for(
            "set scale",
            RangePolicy::new(exec, 0, 1)?,
            kernel!(|_i| {
                scale[()] = s;
            }),
        )?;
        let m64 = m as i64;
        parallel_for(
            "flat",
            MDRangePolicy::new(exec, [0, 0], [n as i64, m64])?,
            kernel!(|(j, i)| {
                let row = subview(&a, (j, ALL));
                let out = rows.subview((j, ALL))?;
                let k = scale[()];
                flat[(j * m64 + i) as usize] = row[i] * k - row[m - 1 - i as usize];
                out[i] = row[i] + row.extent(0) as f64;
            }),
        )?;
        parallel_for(
            "corner",
            RangePolicy::new(exec, 0, 1)?,
            kernel!(|_i| {
                let w = &rows;
                corner[()] = w[(0, 0)] + w[(n - 1, m - 1)] * scale[()];
            }),
        )?;
        let mut o = Outputs::new();
        o.put("flat", download(&flat)?)
            .put("rows", download(&rows)?)
            .put("corner", download(&corner)?);
        Ok(o)
    }

    fn reference(input: &Input) -> Outputs {
        let (n, m, a, s) = input;
        let (n, m, s) = (*n, *m, *s);
        let mut flat = vec![0.0; n * m];
        let mut rows = vec![0.0; n * m];
        for j in 0..n {
            for i in 0..m {
                flat[j * m + i] = a[j * m + i] * s - a[j * m + m - 1 - i];
                rows[j * m + i] = a[j * m + i] + m as f64;
            }
        }
        let corner = rows[0] + rows[n * m - 1] * s;
        let mut o = Outputs::new();
        o.put("flat", flat)
            .put("rows", rows)
            .put("corner", vec![corner]);
        o
    }

    differential!(inputs, run, reference);
}
