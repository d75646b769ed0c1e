//! [`Permute`]: the Views whose rows `BinSort::sort` reorders (ranks 1 to 3, any element a kernel
//! copies): the rows gathered by the permutation into a temporary, then copied back in place.
//! The copies are kernels (any layout, any row range).

use crate::dispatch::{Launch, parallel_for};
use crate::error::Result;
use crate::kernel::value::DeviceValue;
use crate::layout::{Layout, LayoutRight};
use crate::policy::RangePolicy;
use crate::seal::Sealed;
use crate::space::MemorySpace;
use crate::view::{Element, View, view_alloc};

/// A View whose rows [`super::BinSort::sort`] reorders: ranks 1 to 3 (sealed).
#[diagnostic::on_unimplemented(
    message = "BinSort::sort reorders Views of rank 1 to 3 in the keys' memory space",
    label = "not such a View"
)]
pub trait Permute<M: MemorySpace>: Sealed {
    /// Writes row `perm[i] - key_first + first` of `self` into row `first + i`, for every `i`
    /// of `perm`, on `exec`.
    #[doc(hidden)]
    fn permute_in_place<S: Launch>(
        &self,
        exec: &S,
        perm: &View<usize, 1, LayoutRight, M>,
        first: usize,
        key_first: usize,
    ) -> Result<()>;
}

/// A temporary of `extents` in `M`, uninitialized.
fn scratch<T: Element, const R: usize, M: MemorySpace>(
    extents: [usize; R],
) -> Result<View<T, R, LayoutRight, M>> {
    View::new(
        view_alloc("Kokkos::BinSort::sorted_values").without_initializing(),
        extents,
    )
}

impl<T: Element + DeviceValue, L: Layout, M: MemorySpace> Permute<M> for View<T, 1, L, M> {
    fn permute_in_place<S: Launch>(
        &self,
        exec: &S,
        perm: &View<usize, 1, LayoutRight, M>,
        first: usize,
        key_first: usize,
    ) -> Result<()> {
        let n = perm.extent(0);
        let tmp = scratch::<T, 1, M>([n])?;
        let src = self;
        parallel_for(
            "Kokkos::BinSort::copy_permute",
            RangePolicy::new(exec, 0, n)?,
            crate::kernel!(|i| tmp[i] = src[perm[i] - key_first + first]),
        )?;
        let dst = self;
        parallel_for(
            "Kokkos::BinSort::copy_back",
            RangePolicy::new(exec, 0, n)?,
            crate::kernel!(|i| dst[first + i] = tmp[i]),
        )
    }
}

impl<T: Element + DeviceValue, L: Layout, M: MemorySpace> Permute<M> for View<T, 2, L, M> {
    fn permute_in_place<S: Launch>(
        &self,
        exec: &S,
        perm: &View<usize, 1, LayoutRight, M>,
        first: usize,
        key_first: usize,
    ) -> Result<()> {
        let n = perm.extent(0);
        let m = self.extent(1);
        let tmp = scratch::<T, 2, M>([n, m])?;
        let src = self;
        parallel_for(
            "Kokkos::BinSort::copy_permute",
            RangePolicy::new(exec, 0, n)?,
            crate::kernel!(|i| {
                let row = perm[i] - key_first + first;
                for j in 0..m {
                    tmp[(i, j)] = src[(row, j)];
                }
            }),
        )?;
        let dst = self;
        parallel_for(
            "Kokkos::BinSort::copy_back",
            RangePolicy::new(exec, 0, n)?,
            crate::kernel!(|i| {
                for j in 0..m {
                    dst[(first + i, j)] = tmp[(i, j)];
                }
            }),
        )
    }
}

impl<T: Element + DeviceValue, L: Layout, M: MemorySpace> Permute<M> for View<T, 3, L, M> {
    fn permute_in_place<S: Launch>(
        &self,
        exec: &S,
        perm: &View<usize, 1, LayoutRight, M>,
        first: usize,
        key_first: usize,
    ) -> Result<()> {
        let n = perm.extent(0);
        let (m, p) = (self.extent(1), self.extent(2));
        let tmp = scratch::<T, 3, M>([n, m, p])?;
        let src = self;
        parallel_for(
            "Kokkos::BinSort::copy_permute",
            RangePolicy::new(exec, 0, n)?,
            crate::kernel!(|i| {
                let row = perm[i] - key_first + first;
                for j in 0..m {
                    for k in 0..p {
                        tmp[(i, j, k)] = src[(row, j, k)];
                    }
                }
            }),
        )?;
        let dst = self;
        parallel_for(
            "Kokkos::BinSort::copy_back",
            RangePolicy::new(exec, 0, n)?,
            crate::kernel!(|i| {
                for j in 0..m {
                    for k in 0..p {
                        dst[(first + i, j, k)] = tmp[(i, j, k)];
                    }
                }
            }),
        )
    }
}
