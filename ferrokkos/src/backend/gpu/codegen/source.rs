//! The public ways to see a kernel's CUDA C++: [`Kernel::cuda_source`] on a `kernel!` value (team
//! kernels included), and
//! [`for_unit`] / [`reduce_unit`] / [`scan_unit`] on any kernel with a device translation (an
//! `impl DeviceFor<usize>` returned from a function).

use super::unit::{Pattern, TranslationUnit, UnitOptions, generate};
use crate::kernel::capture::Captures;
use crate::kernel::shadow::{Mut, TeamShadow};
use crate::kernel::{
    DeviceFor, DeviceReduce, DeviceReducer, DeviceScan, Expr, ForKind, Kernel, ReduceKind,
    ScanKind, ShadowIndex, TeamForKind, TeamReduceKind,
};
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
        size: 0,
        align: 1,
    })
}

/// The CUDA translation unit of a `parallel_for` kernel over index `A` (any kernel with a device
/// translation, also behind `impl DeviceFor<A>`); see [`Kernel::cuda_source`].
pub fn for_unit<A>(
    kernel: &impl DeviceFor<A>,
    iterate: Iterate,
    options: UnitOptions,
) -> TranslationUnit {
    generate(&kernel.device_body(&[]), Pattern::For { iterate }, options)
}

/// The CUDA translation unit of a `parallel_reduce` kernel with reducer `R`; see
/// [`Kernel::cuda_source`].
pub fn reduce_unit<A, R: DeviceReducer>(
    kernel: &impl DeviceReduce<A, R>,
    iterate: Iterate,
    options: UnitOptions,
) -> TranslationUnit {
    let r = description::<R>();
    generate(
        &kernel.device_body(&r.emit),
        Pattern::reduce(&r, iterate),
        options,
    )
}

/// The CUDA translation unit of a `parallel_scan` kernel with reducer `R`; see
/// [`Kernel::cuda_source`].
pub fn scan_unit<A, R: DeviceReducer>(
    kernel: &impl DeviceScan<A, R>,
    options: UnitOptions,
) -> TranslationUnit {
    let r = description::<R>();
    generate(&kernel.device_body(&r.emit), Pattern::scan(&r), options)
}

impl<A: ShadowIndex, C: Captures, H, S: Fn(C::Shadow, A::Exprs)> Kernel<ForKind<A>, C, H, S> {
    /// The CUDA C++ translation unit of this kernel as a `parallel_for`: the device header, the
    /// device functions it calls and the entry `extern "C" __global__` function. A multidimensional
    /// index walks in `iterate` order (consecutive threads take consecutive points along the
    /// fastest dimension).
    pub fn cuda_source(&self, iterate: Iterate) -> TranslationUnit {
        self.cuda_source_with(iterate, UnitOptions::default())
    }

    /// [`Kernel::cuda_source`] with the entry variant `options`.
    pub fn cuda_source_with(&self, iterate: Iterate, options: UnitOptions) -> TranslationUnit {
        generate(&self.body(), Pattern::For { iterate }, options)
    }
}

impl<A: ShadowIndex, V, C: Captures, H, S> Kernel<ReduceKind<A, V>, C, H, S>
where
    S: Fn(C::Shadow, A::Exprs, Expr<Mut<V>>),
{
    /// The CUDA C++ translation unit of this kernel as a `parallel_reduce` with reducer `R`: the
    /// entry writes one partial value per block, and `<entry>_join` joins them (see
    /// [`TranslationUnit`]).
    pub fn cuda_source<R: DeviceReducer<Value = V>>(&self, iterate: Iterate) -> TranslationUnit {
        self.cuda_source_with::<R>(iterate, UnitOptions::default())
    }

    /// [`Kernel::cuda_source`] with the entry variant `options`.
    pub fn cuda_source_with<R: DeviceReducer<Value = V>>(
        &self,
        iterate: Iterate,
        options: UnitOptions,
    ) -> TranslationUnit {
        let r = description::<R>();
        generate(
            &self.body_with(&r.emit),
            Pattern::reduce(&r, iterate),
            options,
        )
    }
}

impl<A: ShadowIndex, V, C: Captures, H, S> Kernel<ScanKind<A, V>, C, H, S>
where
    S: Fn(C::Shadow, A::Exprs, Expr<Mut<V>>, Expr<bool>),
{
    /// The CUDA C++ translation unit of this kernel as a `parallel_scan` with reducer `R` (`Sum`
    /// for [`crate::parallel_scan`]); see [`TranslationUnit`] for its entries.
    pub fn cuda_source<R: DeviceReducer<Value = V>>(&self) -> TranslationUnit {
        self.cuda_source_with::<R>(UnitOptions::default())
    }

    /// [`Kernel::cuda_source`] with the entry variant `options`.
    pub fn cuda_source_with<R: DeviceReducer<Value = V>>(
        &self,
        options: UnitOptions,
    ) -> TranslationUnit {
        let r = description::<R>();
        generate(&self.body_with(&r.emit), Pattern::scan(&r), options)
    }
}

impl<C: Captures, H, S: Fn(C::Shadow, TeamShadow)> Kernel<TeamForKind, C, H, S> {
    /// The CUDA C++ translation unit of this team kernel as a `parallel_for` over a `TeamPolicy`
    /// (see [`TranslationUnit`] for its entry).
    pub fn cuda_source(&self) -> TranslationUnit {
        self.cuda_source_with(UnitOptions::default())
    }

    /// [`Kernel::cuda_source`] with the entry variant `options`.
    pub fn cuda_source_with(&self, options: UnitOptions) -> TranslationUnit {
        generate(&self.body(), Pattern::TeamFor, options)
    }
}

impl<V, C: Captures, H, S> Kernel<TeamReduceKind<V>, C, H, S>
where
    S: Fn(C::Shadow, TeamShadow, Expr<Mut<V>>),
{
    /// The CUDA C++ translation unit of this team kernel as a `parallel_reduce` over a `TeamPolicy`
    /// with reducer `R` (see [`TranslationUnit`] for its entries).
    pub fn cuda_source<R: DeviceReducer<Value = V>>(&self) -> TranslationUnit {
        self.cuda_source_with::<R>(UnitOptions::default())
    }

    /// [`Kernel::cuda_source`] with the entry variant `options`.
    pub fn cuda_source_with<R: DeviceReducer<Value = V>>(
        &self,
        options: UnitOptions,
    ) -> TranslationUnit {
        let r = description::<R>();
        generate(&self.body_with(&r.emit), Pattern::team_reduce(&r), options)
    }
}
