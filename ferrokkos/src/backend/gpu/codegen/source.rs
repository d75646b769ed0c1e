//! The public ways to see a kernel's CUDA C++: the constructors of [`TranslationUnit`], one per
//! pattern, on a `kernel!` value or on any kernel with a device translation (an
//! `impl DeviceFor<usize>` returned from a function).

use super::parts::{Pattern, UnitOptions};
use super::unit::{TranslationUnit, generate};
use crate::dispatch::{TeamForFunctor, TeamReduceFunctor};
use crate::kernel::{DeviceFor, DeviceKernel, DeviceReduce, DeviceReducer, DeviceScan};
use crate::policy::Iterate;
use crate::reducer::ReducerCxx;
use crate::seal::Token;

/// The device description of `R`. Every [`DeviceReducer`] has one (the trait is sealed and
/// implemented only where `device_cxx` is `Some`); were it missing, the unit would name a type
/// that does not exist, and NVRTC's error would name the reducer.
fn description<R: DeviceReducer>() -> ReducerCxx {
    R::device_cxx(Token::new()).unwrap_or_else(|| ReducerCxx {
        reducer: format!("fk_no_device_form_for /* {} */", std::any::type_name::<R>()),
        value: "fk_no_device_form".to_string(),
        definitions: String::new(),
        emit: Vec::new(),
        finalize: false,
        ordered: false,
        size: 0,
        align: 1,
    })
}

/// The translation units of kernels, one constructor per pattern (what a launch of the kernel on a
/// GPU compiles). The kernel is a `kernel!` value or any kernel with a device translation, also
/// behind `impl DeviceFor<A>` (or `DeviceReduce`, `DeviceScan`) returned from a function.
///
/// ```
/// use ferrokkos::codegen::TranslationUnit;
/// use ferrokkos::prelude::*;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let (x, y) = (View::<f32, 1>::new("x", [8])?, View::<f32, 1>::new("y", [8])?);
/// let a = 2.0f32;
/// let axpy = kernel!(|i| y[i] = a * x[i] + y[i]);
/// let unit = TranslationUnit::for_kernel(&axpy, Iterate::Right);
/// assert!(unit.generated().contains("y(fk_proven, i) = a * x(fk_proven, i) + y(fk_proven, i);"));
///
/// let dot = kernel!(|i, acc| *acc += x[i] * y[i]);
/// let unit = TranslationUnit::reduce_kernel::<Sum<f32>, _>(&dot, Iterate::Right);
/// assert!(unit.generated().contains("_join"));
/// # Ok::<(), ferrokkos::Error>(())
/// ```
impl TranslationUnit {
    /// The unit of a `parallel_for` kernel over index `A`: the device header, the device functions
    /// it calls and the entry `extern "C" __global__` function. A multidimensional index walks in
    /// `iterate` order (consecutive threads take consecutive points along the fastest dimension).
    pub fn for_kernel<A>(kernel: &impl DeviceFor<A>, iterate: Iterate) -> Self {
        Self::for_kernel_with(kernel, iterate, UnitOptions::default())
    }

    /// [`TranslationUnit::for_kernel`] with the entry variant `options`.
    pub fn for_kernel_with<A>(
        kernel: &impl DeviceFor<A>,
        iterate: Iterate,
        options: UnitOptions,
    ) -> Self {
        generate(&kernel.device_body(&[]), Pattern::For { iterate }, options)
    }

    /// The unit of a `parallel_reduce` kernel over index `A` with reducer `R`
    /// (`TranslationUnit::reduce_kernel::<Sum<f64>, _>(&k, Iterate::Right)`): the entry writes
    /// one partial value per block, and `<entry>_join` joins them.
    pub fn reduce_kernel<R: DeviceReducer, A>(
        kernel: &impl DeviceReduce<A, R>,
        iterate: Iterate,
    ) -> Self {
        Self::reduce_kernel_with(kernel, iterate, UnitOptions::default())
    }

    /// [`TranslationUnit::reduce_kernel`] with the entry variant `options`.
    pub fn reduce_kernel_with<R: DeviceReducer, A>(
        kernel: &impl DeviceReduce<A, R>,
        iterate: Iterate,
        options: UnitOptions,
    ) -> Self {
        let r = description::<R>();
        generate(
            &kernel.device_body(&r.emit),
            Pattern::reduce(&r, iterate),
            options,
        )
    }

    /// The unit of a `parallel_scan` kernel over index `A` with reducer `R` (`Sum` for
    /// [`crate::parallel_scan`]): `TranslationUnit::scan_kernel::<Sum<u64>, _>(&k)`.
    pub fn scan_kernel<R: DeviceReducer, A>(kernel: &impl DeviceScan<A, R>) -> Self {
        Self::scan_kernel_with(kernel, UnitOptions::default())
    }

    /// [`TranslationUnit::scan_kernel`] with the entry variant `options`.
    pub fn scan_kernel_with<R: DeviceReducer, A>(
        kernel: &impl DeviceScan<A, R>,
        options: UnitOptions,
    ) -> Self {
        let r = description::<R>();
        generate(&kernel.device_body(&r.emit), Pattern::scan(&r), options)
    }

    /// The unit of a team `kernel!` as a `parallel_for` over a `TeamPolicy`.
    pub fn team_kernel(kernel: &(impl TeamForFunctor + DeviceKernel)) -> Self {
        Self::team_kernel_with(kernel, UnitOptions::default())
    }

    /// [`TranslationUnit::team_kernel`] with the entry variant `options`.
    pub fn team_kernel_with(
        kernel: &(impl TeamForFunctor + DeviceKernel),
        options: UnitOptions,
    ) -> Self {
        generate(&kernel.device_body(&[]), Pattern::TeamFor, options)
    }

    /// The unit of a team `kernel!` as a `parallel_reduce` over a `TeamPolicy` with reducer `R`
    /// (`TranslationUnit::team_reduce_kernel::<Sum<f64>>(&k)`).
    pub fn team_reduce_kernel<R: DeviceReducer>(
        kernel: &(impl TeamReduceFunctor<R::Value> + DeviceKernel),
    ) -> Self {
        Self::team_reduce_kernel_with::<R>(kernel, UnitOptions::default())
    }

    /// [`TranslationUnit::team_reduce_kernel`] with the entry variant `options`.
    pub fn team_reduce_kernel_with<R: DeviceReducer>(
        kernel: &(impl TeamReduceFunctor<R::Value> + DeviceKernel),
        options: UnitOptions,
    ) -> Self {
        let r = description::<R>();
        generate(
            &kernel.device_body(&r.emit),
            Pattern::team_reduce(&r),
            options,
        )
    }
}
