//! The functor traits for [`Kernel`] (what `kernel!` produces): a kernel runs everywhere, its host
//! body borrows the captures for the launch, and its device translation is the kernel itself.

use super::functor::{ForFunctor, ReduceFunctor, ScanFunctor, seal};
use super::kernel::{ForKernel, ReduceKernel, ScanKernel};
use super::reach::Everywhere;
use crate::error::Result;
use crate::kernel::capture::Captures;
use crate::kernel::overlap::Bounds;
use crate::kernel::shadow::Mut;
use crate::kernel::{
    DeviceKernel, Expr, ForKind, HostBody, Kernel, ReduceKind, ScanKind, ShadowIndex,
};

/// The functor trait of one pattern, and its seal (what the launch uses), for a kernel and for a
/// reference to it: the launch builds the host body with [`Kernel::run_host`]. `host` lists the host closure's arguments after the
/// captures; `over` adds `with_body_over` (patterns whose host bodies have a proven form, see
/// `kernel/bounds.rs`).
macro_rules! functors {
    ($trait:ident<$($p:ident),+> / $seal:ident, $kind:ident, host ($($arg:ty),+), ($($sh:ty),+) $(, $over:ident)?) => {
        functors!(@one $trait<$($p),+> / $seal, Kernel<$kind<$($p),+>, C, H, S>, ($($arg),+), ($($sh),+) $(, $over)?);
        functors!(@one $trait<$($p),+> / $seal, &Kernel<$kind<$($p),+>, C, H, S>, ($($arg),+), ($($sh),+) $(, $over)?);
    };
    (@one $trait:ident<$($p:ident),+> / $seal:ident, $t:ty, ($($arg:ty),+), ($($sh:ty),+) $(, $over:ident)?) => {
        #[diagnostic::do_not_recommend]
        impl<$($p,)+ C, H, S> seal::$seal<$($p),+> for $t
        where
            $($p: 'static,)+
            A: ShadowIndex,
            C: Captures + 'static,
            H: for<'b> Fn(&'b C::Host<'b>, $($arg),+) + Copy + Sync + 'static,
            S: Fn(C::Shadow, $($sh),+) + Sync + 'static,
        {
            type Body = HostBody<C, H>;
            fn with_body<R>(
                &self,
                what: &dyn Fn() -> String,
                run: impl FnOnce(&Self::Body) -> R,
                _: crate::seal::Token,
            ) -> Result<R> {
                self.run_host(what, None, run)
            }
            $(functors!(@$over);)?
            fn check_overlaps(
                &self,
                ranges: &[(i128, i128)],
                bits: u32,
                what: &dyn Fn() -> String,
                _: crate::seal::Token,
            ) -> Result<()> {
                Kernel::check_overlaps(self, ranges, bits, what)
            }
            fn device_kernel(&self, _: crate::seal::Token) -> Option<&dyn DeviceKernel> {
                Some(self)
            }
        }

        #[diagnostic::do_not_recommend]
        impl<$($p,)+ C, H, S> $trait<$($p),+> for $t
        where
            $($p: 'static,)+
            A: ShadowIndex,
            C: Captures + 'static,
            H: for<'b> Fn(&'b C::Host<'b>, $($arg),+) + Copy + Sync + 'static,
            S: Fn(C::Shadow, $($sh),+) + Sync + 'static,
        {
            type Reach = Everywhere;
        }
    };
    (@over) => {
        fn with_body_over<R>(
            &self,
            what: &dyn Fn() -> String,
            ranges: &[(i128, i128)],
            bits: u32,
            run: impl FnOnce(&Self::Body) -> R,
            _: crate::seal::Token,
        ) -> Result<R> {
            self.run_host(what, Some(Bounds { ranges, bits }), run)
        }
    };
}

functors!(ForFunctor<A> / SealedForFunctor, ForKind, host(A, bool), (A::Exprs), over);
functors!(ReduceFunctor<A, V> / SealedReduceFunctor, ReduceKind, host (A, &mut V, bool), (A::Exprs, Expr<Mut<V>>), over);
functors!(ScanFunctor<A, V> / SealedScanFunctor, ScanKind, host (A, &mut V, bool), (A::Exprs, Expr<Mut<V>>, Expr<bool>));

// The host body of a kernel is the kernel the host drivers run: each iteration gets the captures
// lent for that call only.

// The closure's last argument selects the body's form: `false` the checked body, `true` the proven
// one, whose recorded accesses skip their bounds checks (see `kernel/bounds.rs`). The drivers call
// each form with the flag as a constant, so that only that form is compiled into their loops.

impl<A, C, H> ForKernel<A> for HostBody<C, H>
where
    C: Captures + 'static,
    H: for<'b> Fn(&'b C::Host<'b>, A, bool) + Sync + Copy,
{
    #[inline(always)]
    fn with_local<R>(&self, f: impl FnOnce(&Self) -> R) -> R {
        f(&self.localized())
    }

    #[inline(always)]
    fn apply(&self, index: A) {
        (self.host)(self.captures(), index, false)
    }

    #[inline(always)]
    fn proven_box(&self) -> Option<&[(i128, i128)]> {
        self.proven.as_ref().map(|b| b.ranges())
    }

    #[inline(always)]
    unsafe fn apply_in_bounds(&self, index: A) {
        // The proven form's contract (`Kernel::new_for`) is the caller's: `index` lies in the box
        // where the launch proved the recorded accesses in bounds (`proven_box`).
        (self.host)(self.captures(), index, true)
    }
}

impl<A, V, C, H> ReduceKernel<A, V> for HostBody<C, H>
where
    C: Captures + 'static,
    H: for<'b> Fn(&'b C::Host<'b>, A, &mut V, bool) + Sync + Copy,
{
    #[inline(always)]
    fn with_local<R>(&self, f: impl FnOnce(&Self) -> R) -> R {
        f(&self.localized())
    }

    #[inline(always)]
    fn apply(&self, index: A, acc: &mut V) {
        (self.host)(self.captures(), index, acc, false)
    }

    #[inline(always)]
    fn proven_box(&self) -> Option<&[(i128, i128)]> {
        self.proven.as_ref().map(|b| b.ranges())
    }

    #[inline(always)]
    unsafe fn apply_in_bounds(&self, index: A, acc: &mut V) {
        // As for `ForKernel::apply_in_bounds` above.
        (self.host)(self.captures(), index, acc, true)
    }
}

impl<A, V, C, H> ScanKernel<A, V> for HostBody<C, H>
where
    C: Captures + 'static,
    H: for<'b> Fn(&'b C::Host<'b>, A, &mut V, bool) + Sync,
{
    #[inline(always)]
    fn apply(&self, index: A, partial: &mut V, is_final: bool) {
        (self.host)(self.captures(), index, partial, is_final)
    }
}
