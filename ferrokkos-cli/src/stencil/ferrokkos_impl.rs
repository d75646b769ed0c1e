//! The benchmark written with ferrokkos: 2D Views with their halo, and one `kernel!` over a rank-2
//! `MDRangePolicy` per operation, written once and run on any execution space (Serial, Threads or
//! Cuda, chosen at run time).

use ferrokkos::Result;
use ferrokkos::kernel::{DeviceFor, DeviceReduce};
use ferrokkos::prelude::*;
use ferrokkos::traits::{Everywhere, ForFunctor, ReduceFunctor};

use super::Implementation;
use super::cg::{Dot, Update, Vectors};
use super::ping_pong::PingPong;
use super::problem::{self, C0, C1, C2, Grid};
use super::tea::TeaFields;
use crate::Failure;

/// A field with its halo, in the execution space's own memory space.
type Field<S> = View<f64, 2, LayoutRight, <S as ExecutionSpace>::MemorySpace>;

/// The index of a rank-2 MDRange kernel.
type Ij = (i64, i64);

pub use crate::spaces::on_device;

/// The sweep's two fields and CG's vectors as Views, and the instance the kernels run on.
pub struct FerrokkosStencil<S: Launch> {
    /// The instance the kernels run on.
    space: S,
    /// The grid.
    grid: Grid,
    /// The sweep's fields.
    fields: PingPong<Field<S>>,
    /// CG's vectors.
    cg: Vectors<Field<S>>,
    /// TeaLeaf-shaped CG's fields.
    tea: TeaFields<Field<S>>,
}

/// TeaLeaf's operator at `(i, j)` (its `SMVP`, in its order of operations) with face coefficients
/// `kx` and `ky`, as a new user writes it: one `#[device]` function reading the Views.
#[device]
pub fn tea_operator(kx: &View<f64, 2>, ky: &View<f64, 2>, p: &View<f64, 2>, i: i64, j: i64) -> f64 {
    (1.0 + (kx[(i + 1, j)] + kx[(i, j)]) + (ky[(i, j + 1)] + ky[(i, j)])) * p[(i, j)]
        - (kx[(i + 1, j)] * p[(i + 1, j)] + kx[(i, j)] * p[(i - 1, j)])
        - (ky[(i, j + 1)] * p[(i, j + 1)] + ky[(i, j)] * p[(i, j - 1)])
}

// Each kernel writes its Views at the iteration's own index only and reads its neighbours in
// Views it does not write (checked by `kernel!`), so no `unsafe` is needed. The start values are
// `#[device]` functions, called by path so that `kernel!` finds their device translations. The
// kernels are usable on the host, and by the CUDA backend through their device translations
// (`Reach = Everywhere`).
impl<S: Launch> FerrokkosStencil<S> {
    /// Allocates the Views (uninitialized) in `S::MemorySpace` and initializes them with kernels
    /// over every cell, so that on the host each page is first touched by a thread of the space.
    pub fn new(space: S, grid: Grid) -> std::result::Result<Self, Failure> {
        let w = grid.width();
        let alloc = |label: &str| Field::<S>::new(view_alloc(label).without_initializing(), [w, w]);
        let mut stencil = FerrokkosStencil {
            fields: PingPong::new(alloc("stencil::u")?, alloc("stencil::v")?),
            cg: Vectors {
                x: alloc("stencil::cg::x")?,
                r: alloc("stencil::cg::r")?,
                p: alloc("stencil::cg::p")?,
                ap: alloc("stencil::cg::ap")?,
            },
            tea: TeaFields {
                kx: alloc("stencil::tea::kx")?,
                ky: alloc("stencil::tea::ky")?,
                u: alloc("stencil::tea::u")?,
                r: alloc("stencil::tea::r")?,
                p: alloc("stencil::tea::p")?,
                w: alloc("stencil::tea::w")?,
            },
            space,
            grid,
        };
        let all = stencil.all()?;
        let (u, v) = stencil.fields.both_mut();
        parallel_for("stencil::init", all.clone(), Self::init_kernel(u, v))?;
        let (kx, ky) = (&stencil.tea.kx, &stencil.tea.ky);
        parallel_for("stencil::tea::init", all, Self::coefficients_kernel(kx, ky))?;
        stencil.cg_reset()?;
        Ok(stencil)
    }

    /// Every cell, halo included.
    fn all(&self) -> Result<MDRangePolicy<S, 2>> {
        let w = self.grid.width() as i64;
        MDRangePolicy::new(&self.space, [0, 0], [w, w])
    }

    /// The interior cells.
    fn interior(&self) -> Result<MDRangePolicy<S, 2>> {
        let end = self.grid.n as i64 + 1;
        MDRangePolicy::new(&self.space, [1, 1], [end, end])
    }

    /// `u = v =` the start values, halo included.
    fn init_kernel(
        u: &Field<S>,
        v: &Field<S>,
    ) -> impl ForFunctor<Ij, Reach = Everywhere> + DeviceFor<Ij> {
        kernel!(|(i, j)| {
            let start = problem::sweep_start(i, j);
            u[(i, j)] = start;
            v[(i, j)] = start;
        })
    }

    /// One sweep from `u` into `v`, on the interior.
    fn sweep_kernel(
        u: &Field<S>,
        v: &Field<S>,
    ) -> impl ForFunctor<Ij, Reach = Everywhere> + DeviceFor<Ij> {
        let (c0, c1, c2) = (C0, C1, C2);
        kernel!(|(i, j)| {
            v[(i, j)] = c0 * u[(i, j)]
                + c1 * (u[(i - 1, j)] + u[(i + 1, j)] + u[(i, j - 1)] + u[(i, j + 1)])
                + c2 * (u[(i - 1, j - 1)]
                    + u[(i - 1, j + 1)]
                    + u[(i + 1, j - 1)]
                    + u[(i + 1, j + 1)]);
        })
    }

    /// CG's start on every cell of `grid`: x = 0, r = p = the right-hand side (0 on the halo),
    /// ap = 0.
    fn reset_kernel(
        cg: &Vectors<Field<S>>,
        grid: Grid,
    ) -> impl ForFunctor<Ij, Reach = Everywhere> + DeviceFor<Ij> {
        let Vectors { x, r, p, ap } = cg;
        let last = grid.n as i64;
        kernel!(|(i, j)| {
            let inside = i >= 1 && i <= last && j >= 1 && j <= last;
            let b = if inside { problem::cg_rhs(i, j) } else { 0.0 };
            x[(i, j)] = 0.0;
            r[(i, j)] = b;
            p[(i, j)] = b;
            ap[(i, j)] = 0.0;
        })
    }

    /// `ap = A p` on the interior (the 5-point Laplacian; p's halo is zero).
    fn apply_kernel(
        p: &Field<S>,
        ap: &Field<S>,
    ) -> impl ForFunctor<Ij, Reach = Everywhere> + DeviceFor<Ij> {
        kernel!(|(i, j)| {
            ap[(i, j)] =
                4.0 * p[(i, j)] - (p[(i - 1, j)] + p[(i + 1, j)] + p[(i, j - 1)] + p[(i, j + 1)]);
        })
    }

    /// The sum of `a b` over the interior.
    fn dot_kernel(
        a: &Field<S>,
        b: &Field<S>,
    ) -> impl ReduceFunctor<Ij, f64, Reach = Everywhere> + DeviceReduce<Ij, Sum<f64>> {
        kernel!(|(i, j), acc| *acc += a[(i, j)] * b[(i, j)])
    }

    /// `y += a x` on the interior.
    fn axpy_kernel(
        y: &Field<S>,
        x: &Field<S>,
        a: f64,
    ) -> impl ForFunctor<Ij, Reach = Everywhere> + DeviceFor<Ij> {
        kernel!(|(i, j)| y[(i, j)] += a * x[(i, j)])
    }

    /// `p = r + beta p` on the interior.
    fn direction_kernel(
        p: &Field<S>,
        r: &Field<S>,
        beta: f64,
    ) -> impl ForFunctor<Ij, Reach = Everywhere> + DeviceFor<Ij> {
        kernel!(|(i, j)| p[(i, j)] = r[(i, j)] + beta * p[(i, j)])
    }

    /// TeaLeaf-shaped CG's face coefficients, on every cell.
    fn coefficients_kernel(
        kx: &Field<S>,
        ky: &Field<S>,
    ) -> impl ForFunctor<Ij, Reach = Everywhere> + DeviceFor<Ij> {
        kernel!(|(i, j)| {
            kx[(i, j)] = problem::tea_kx(i, j);
            ky[(i, j)] = problem::tea_ky(i, j);
        })
    }

    /// `w = A p` on the interior (TeaLeaf's operator), and the sum of `p w`.
    fn tea_w_kernel(
        tea: &TeaFields<Field<S>>,
    ) -> impl ReduceFunctor<Ij, f64, Reach = Everywhere> + DeviceReduce<Ij, Sum<f64>> {
        let TeaFields { kx, ky, p, w, .. } = tea;
        kernel!(|(i, j), acc| {
            let a = tea_operator(&kx, &ky, &p, i, j);
            w[(i, j)] = a;
            *acc += p[(i, j)] * a;
        })
    }

    /// `u += alpha p`, `r -= alpha w` on the interior, and the sum of the new `r r`.
    fn tea_ur_kernel(
        tea: &TeaFields<Field<S>>,
        alpha: f64,
    ) -> impl ReduceFunctor<Ij, f64, Reach = Everywhere> + DeviceReduce<Ij, Sum<f64>> {
        let TeaFields { u, r, p, w, .. } = tea;
        kernel!(|(i, j), acc| {
            u[(i, j)] += alpha * p[(i, j)];
            let ri = r[(i, j)] - alpha * w[(i, j)];
            r[(i, j)] = ri;
            *acc += ri * ri;
        })
    }

    /// A View's cells on the host, row-major.
    fn read(v: &Field<S>) -> Result<Vec<f64>> {
        let mirror = create_mirror_view(v)?;
        deep_copy(&mirror, v)?;
        mirror.to_vec()
    }
}

impl<S: Launch> Implementation for FerrokkosStencil<S> {
    fn name(&self) -> String {
        crate::spaces::ferrokkos_line(&self.space, "kernel! over a rank-2 MDRangePolicy")
    }

    fn short_name(&self) -> &'static str {
        "ferrokkos"
    }

    fn is_ferrokkos(&self) -> bool {
        true
    }

    fn sweep(&mut self, steps: usize) -> std::result::Result<(), Failure> {
        for _ in 0..steps {
            let interior = self.interior()?;
            self.fields
                .step(|u, v| parallel_for("stencil::sweep", interior, Self::sweep_kernel(u, v)))?;
        }
        Ok(())
    }

    fn fence(&mut self) -> std::result::Result<(), Failure> {
        Ok(self.space.fence("stencil::fence")?)
    }

    fn field(&self) -> std::result::Result<Vec<f64>, Failure> {
        Ok(Self::read(self.fields.current())?)
    }

    fn cg_reset(&mut self) -> std::result::Result<(), Failure> {
        let kernel = Self::reset_kernel(&self.cg, self.grid);
        parallel_for("stencil::cg::reset", self.all()?, kernel)?;
        Ok(self.space.fence("stencil::cg::reset")?)
    }

    fn cg_apply(&mut self) -> std::result::Result<(), Failure> {
        let kernel = Self::apply_kernel(&self.cg.p, &self.cg.ap);
        Ok(parallel_for(
            "stencil::cg::apply",
            self.interior()?,
            kernel,
        )?)
    }

    fn cg_dot(&mut self, dot: Dot) -> std::result::Result<f64, Failure> {
        let (a, b) = self.cg.dot_operands(dot);
        let kernel = Self::dot_kernel(a, b);
        Ok(parallel_reduce(
            "stencil::cg::dot",
            self.interior()?,
            kernel,
            Sum::new(),
        )?)
    }

    fn cg_update(&mut self, update: Update, a: f64) -> std::result::Result<(), Failure> {
        let interior = self.interior()?;
        let (y, x) = self.cg.update_operands(update);
        match update {
            Update::X => parallel_for("stencil::cg::x", interior, Self::axpy_kernel(y, x, a)),
            Update::R => parallel_for("stencil::cg::r", interior, Self::axpy_kernel(y, x, a)),
            Update::P => parallel_for("stencil::cg::p", interior, Self::direction_kernel(y, x, a)),
        }?;
        Ok(())
    }

    fn cg_solution(&self) -> std::result::Result<Vec<f64>, Failure> {
        Ok(Self::read(&self.cg.x)?)
    }

    fn tea_reset(&mut self) -> std::result::Result<f64, Failure> {
        let TeaFields { u, r, p, w, .. } = &self.tea;
        let cells = Vectors {
            x: u.clone(),
            r: r.clone(),
            p: p.clone(),
            ap: w.clone(),
        };
        let kernel = Self::reset_kernel(&cells, self.grid);
        parallel_for("stencil::tea::reset", self.all()?, kernel)?;
        let kernel = Self::dot_kernel(r, r);
        Ok(parallel_reduce(
            "stencil::tea::rr",
            self.interior()?,
            kernel,
            Sum::new(),
        )?)
    }

    fn tea_w(&mut self) -> std::result::Result<f64, Failure> {
        let kernel = Self::tea_w_kernel(&self.tea);
        Ok(parallel_reduce(
            "stencil::tea::w",
            self.interior()?,
            kernel,
            Sum::new(),
        )?)
    }

    fn tea_ur(&mut self, alpha: f64) -> std::result::Result<f64, Failure> {
        let kernel = Self::tea_ur_kernel(&self.tea, alpha);
        Ok(parallel_reduce(
            "stencil::tea::ur",
            self.interior()?,
            kernel,
            Sum::new(),
        )?)
    }

    fn tea_p(&mut self, beta: f64) -> std::result::Result<(), Failure> {
        let TeaFields { r, p, .. } = &self.tea;
        let kernel = Self::direction_kernel(p, r, beta);
        Ok(parallel_for("stencil::tea::p", self.interior()?, kernel)?)
    }

    fn tea_solution(&self) -> std::result::Result<Vec<f64>, Failure> {
        Ok(Self::read(&self.tea.u)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::in_child::{test_name, with_runtime};
    use ferrokkos::codegen::TranslationUnit;

    type Stencil = FerrokkosStencil<Serial>;

    /// Every kernel has a device translation that NVRTC compiles for sm_80 and sm_90 (skipped
    /// without NVRTC, unless FERROKKOS_REQUIRE_NVRTC=1).
    #[test]
    fn the_kernels_compile_for_the_gpu() {
        let name = test_name(module_path!(), "the_kernels_compile_for_the_gpu");
        with_runtime(&name, || {
            let s =
                FerrokkosStencil::new(Serial::default_instance().unwrap(), Grid { n: 4 }).unwrap();
            let (u, v) = (s.fields.current(), &s.cg.x);
            let Vectors { x, r, p, ap } = &s.cg;
            // Each kernel as the checked entry and as the entry of a launch that proved it.
            let units = |o: &dyn Fn() -> ferrokkos::codegen::UnitOptions| {
                [
                    TranslationUnit::for_kernel_with(
                        &Stencil::init_kernel(u, v),
                        Iterate::Right,
                        o(),
                    ),
                    TranslationUnit::for_kernel_with(
                        &Stencil::coefficients_kernel(u, v),
                        Iterate::Right,
                        o(),
                    ),
                    TranslationUnit::reduce_kernel_with(
                        &Stencil::tea_w_kernel(&s.tea),
                        Iterate::Right,
                        o(),
                    ),
                    TranslationUnit::reduce_kernel_with(
                        &Stencil::tea_ur_kernel(&s.tea, 0.5),
                        Iterate::Right,
                        o(),
                    ),
                    TranslationUnit::for_kernel_with(
                        &Stencil::sweep_kernel(u, v),
                        Iterate::Right,
                        o(),
                    ),
                    TranslationUnit::for_kernel_with(
                        &Stencil::reset_kernel(&s.cg, s.grid),
                        Iterate::Right,
                        o(),
                    ),
                    TranslationUnit::for_kernel_with(
                        &Stencil::apply_kernel(p, ap),
                        Iterate::Right,
                        o(),
                    ),
                    TranslationUnit::reduce_kernel_with(
                        &Stencil::dot_kernel(p, ap),
                        Iterate::Right,
                        o(),
                    ),
                    TranslationUnit::for_kernel_with(
                        &Stencil::axpy_kernel(x, p, 0.5),
                        Iterate::Right,
                        o(),
                    ),
                    TranslationUnit::for_kernel_with(
                        &Stencil::direction_kernel(p, r, 0.5),
                        Iterate::Right,
                        o(),
                    ),
                ]
            };
            let checked = units(&Default::default);
            let proven = units(&|| ferrokkos::codegen::UnitOptions {
                proven: true,
                ..Default::default()
            });
            assert!(
                checked[6]
                    .generated()
                    .contains("ap(fk_proven, i, j) = 4.0 * p(fk_proven, i, j)"),
                "{}",
                checked[6].generated()
            );
            // The TeaLeaf operator's Views go to the #[device] function as proven Views.
            assert!(
                checked[2].generated().contains(
                    "tea_operator_fn(fk::proven(kx, fk_proven), fk::proven(ky, fk_proven), \
                     fk::proven(p, fk_proven), i, j)"
                ),
                "{}",
                checked[2].generated()
            );
            if !ferrokkos::nvrtc::require_or_skip() {
                return;
            }
            for unit in checked.iter().chain(&proven) {
                for arch in [80, 90] {
                    if let Err(e) = unit.compile_cubin(arch) {
                        panic!("{e}\n{}", unit.generated());
                    }
                }
            }
        });
    }
}
