//! The functor traits for [`Kernel`] (what `kernel!` produces): a kernel runs everywhere, its host
//! body borrows the captures for the launch, and its device translation is the kernel itself.

use super::functor::{ForFunctor, ReduceFunctor, ScanFunctor};
use super::kernel::{ForKernel, ReduceKernel, ScanKernel};
use super::reach::Everywhere;
use crate::error::Result;
use crate::kernel::capture::Captures;
use crate::kernel::shadow::Mut;
use crate::kernel::{
    DeviceKernel, Expr, ForKind, HostBody, Kernel, ReduceKind, ScanKind, ShadowIndex,
};

/// The functor trait of one pattern for a kernel and for a reference to it: the launch builds the
/// host body with [`Kernel::run_host`].
macro_rules! functors {
    ($trait:ident<$($p:ident),+>, $kind:ident, ($($arg:ty),+), ($($sh:ty),+)) => {
        functors!(@one $trait<$($p),+>, Kernel<$kind<$($p),+>, C, H, S>, ($($arg),+), ($($sh),+));
        functors!(@one $trait<$($p),+>, &Kernel<$kind<$($p),+>, C, H, S>, ($($arg),+), ($($sh),+));
    };
    (@one $trait:ident<$($p:ident),+>, $t:ty, ($($arg:ty),+), ($($sh:ty),+)) => {
        #[diagnostic::do_not_recommend]
        impl<$($p,)+ C, H, S> $trait<$($p),+> for $t
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
                self.run_host(what, run)
            }
            type Reach = Everywhere;
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
    };
}

functors!(ForFunctor<A>, ForKind, (A), (A::Exprs));
functors!(ReduceFunctor<A, V>, ReduceKind, (A, &mut V), (A::Exprs, Expr<Mut<V>>));
functors!(ScanFunctor<A, V>, ScanKind, (A, &mut V, bool), (A::Exprs, Expr<Mut<V>>, Expr<bool>));

// The host body of a kernel is the kernel the host drivers run: each iteration gets the captures
// lent for that call only.

impl<A, C, H> ForKernel<A> for HostBody<C, H>
where
    C: Captures + 'static,
    H: for<'b> Fn(&'b C::Host<'b>, A) + Sync,
{
    #[inline(always)]
    fn apply(&self, index: A) {
        (self.host)(self.captures(), index)
    }
}

impl<A, V, C, H> ReduceKernel<A, V> for HostBody<C, H>
where
    C: Captures + 'static,
    H: for<'b> Fn(&'b C::Host<'b>, A, &mut V) + Sync,
{
    #[inline(always)]
    fn apply(&self, index: A, acc: &mut V) {
        (self.host)(self.captures(), index, acc)
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
