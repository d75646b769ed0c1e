//! What the patterns accept: a kernel that may need to prepare itself at launch.
//!
//! A plain closure is ready as it is. A `kernel!` kernel first checks and borrows its captured Views
//! (DESIGN.md decision 4) and builds the accessors its host body uses; the launch runs that body and
//! releases the borrows when it ends. [`ForFunctor`] and its siblings express both: they lend the
//! launch a body implementing the per-iteration trait.
//!
//! Closures and `kernel!`s implement these traits. A functor struct of your own implements
//! [`ForKernel`] (or its siblings) and is launched wrapped in [`Functor`]:
//! `parallel_for("x", policy, Functor(my_struct))`.
//!
//! The traits are sealed: the body of a `kernel!` writes its Views through accessors whose
//! soundness rests on the launch running each index once, which only this crate's drivers
//! guarantee. A body handed to other code could be run on any index, any number of times, from many
//! threads. What a launch uses of a functor (its body, the overlap check, the device translation)
//! lives in a hidden seal supertrait (`seal::SealedForFunctor` and its siblings), whose methods take
//! the crate's `Token`: another crate's implementation is refused with the seal's message, which
//! says what to implement instead, and a method it writes is "not a member" of the public trait.

use super::kernel::{ForKernel, ReduceKernel, ScanKernel};
use super::reach::{HostOnly, Reach};
use crate::error::Result;
use crate::seal::Token;

/// Defines the seals of functor traits, written once for ranges and teams: in the private module
/// `seal`, each seal holds the body a launch runs (`type Body`, of the kernel trait it names), with
/// `with_body` (which every pattern has) and the further methods in its braces. The public traits
/// are written out by hand, with their seal as supertrait, so that the diagnostics that show their
/// declaration show it as written.
macro_rules! functor_seals {
    (
        $(#[$mod_meta:meta])*
        mod seal { $($import:item)* }
        $(
            $(#[$seal_meta:meta])*
            pub trait $seal:ident $(<$($p:ident),+>)? {
                type Body: $kernel:ident $(<$($kp:ident),+>)?, once per $what:literal;
                $($seal_item:tt)*
            }
        )+
    ) => {
        $(#[$mod_meta])*
        pub(crate) mod seal {
            $($import)*
            $(
                $(#[$seal_meta])*
                pub trait $seal $(<$($p),+>)? {
                    #[doc = concat!("The body a launch runs once per ", $what, ".")]
                    type Body: $kernel $(<$($kp),+>)?;

                    #[doc = concat!(
                        "Prepares the body (checking and borrowing captures; `what` names the \
                         launch for errors), runs `run` with it, and releases what it took. Only \
                         this crate's drivers call it; `run` applies the body once per ",
                        $what,
                        " of the launch."
                    )]
                    fn with_body<R>(
                        &self,
                        what: &dyn Fn() -> String,
                        run: impl FnOnce(&Self::Body) -> R,
                        _: Token,
                    ) -> Result<R>;

                    $($seal_item)*
                }
            )+
        }
    };
}
pub(crate) use functor_seals;

/// The methods of a range functor's seal besides `with_body`: `with_body_over` (for the patterns
/// whose `kernel!`s may be proven in bounds over the launch's box), the overlap check and the
/// device translation.
macro_rules! range_seal_methods {
    (with_body_over) => {
        /// As `with_body`, for a host launch over the iteration box `ranges` (an index type of
        /// `bits` bits): a `kernel!`'s body may then be proven in bounds over it
        /// (`Body::in_bounds`).
        fn with_body_over<R>(
            &self,
            what: &dyn Fn() -> String,
            ranges: &[(i128, i128)],
            bits: u32,
            run: impl FnOnce(&Self::Body) -> R,
            t: Token,
        ) -> Result<R> {
            let _ = (ranges, bits);
            self.with_body(what, run, t)
        }

        range_seal_methods!();
    };
    () => {
        /// Checks, before a launch over the iteration box `ranges` (an index type of `bits` bits),
        /// that the accesses the kernel's race rules left to the launch are disjoint (`kernel!`s
        /// with such accesses; see `Error::KernelOverlap`).
        fn check_overlaps(
            &self,
            ranges: &[(i128, i128)],
            bits: u32,
            what: &dyn Fn() -> String,
            _: Token,
        ) -> Result<()> {
            let _ = (ranges, bits, what);
            Ok(())
        }

        /// The device translation (`Some` for `kernel!`s), which a launch trusts to match the
        /// kernel's captures and pattern.
        fn device_kernel(&self, _: Token) -> Option<&dyn DeviceKernel> {
            None
        }
    };
}

/// Something [`crate::parallel_for`] can run: a closure, a `kernel!` kernel, or a functor struct.
///
/// Sealed: a functor struct of your own implements [`ForKernel`] and is launched as
/// [`Functor`]`(my_struct)` (host spaces), or writes its kernel as a `#[ferrokkos::functor]`
/// method (every space).
#[diagnostic::on_unimplemented(
    message = "this kernel cannot run over an index of type `{A}`",
    label = "the policy iterates over `{A}`",
    note = "a `kernel!`'s index is `usize` for a RangePolicy and `(i64, i64, ..)` for an \
            MDRangePolicy unless annotated (`|i: i64|`, `|(i, j): (usize, usize)|`); annotate \
            it as the policy's index type, or make the policy with the kernel's \
            (`RangePolicy::<_, i64>`)",
    note = "a plain closure names its parameter's type (`|i: usize|`) and runs on host spaces only"
)]
pub trait ForFunctor<A>: seal::SealedForFunctor<A> {
    /// Where the functor can run: [`HostOnly`] for closures and functor structs,
    /// [`Everywhere`](super::Everywhere) for `kernel!`s. A launch on a GPU space of a host-only
    /// functor does not compile.
    type Reach: Reach;
}

/// Something [`crate::parallel_reduce`] can run: a closure, a `kernel!` kernel, or a functor
/// struct.
///
/// Sealed: a functor struct of your own implements [`ReduceKernel`] and is launched as
/// [`Functor`]`(my_struct)`, or writes its kernel as a `#[ferrokkos::functor]` method.
#[diagnostic::on_unimplemented(
    message = "this kernel cannot reduce into `{V}` over an index of type `{A}`",
    label = "the policy iterates over `{A}` and the reducer's value is `{V}`",
    note = "a `kernel!`'s index is `usize` for a RangePolicy and `(i64, i64, ..)` for an \
            MDRangePolicy unless annotated; its accumulator's type (`acc: &mut f64`) must be \
            the reducer's value type"
)]
pub trait ReduceFunctor<A, V>: seal::SealedReduceFunctor<A, V> {
    /// Where the functor can run: [`HostOnly`] for closures and functor structs,
    /// [`Everywhere`](super::Everywhere) for `kernel!`s. A launch on a GPU space of a host-only
    /// functor does not compile.
    type Reach: Reach;
}

/// Something [`crate::parallel_scan`] can run: a closure, a `kernel!` kernel, or a functor struct.
///
/// Sealed: a functor struct of your own implements [`ScanKernel`] and is launched as
/// [`Functor`]`(my_struct)`, or writes its kernel as a `#[ferrokkos::functor]` method.
#[diagnostic::on_unimplemented(
    message = "this scan kernel cannot run over an index of type `{A}` with values `{V}`",
    label = "the policy iterates over `{A}` and the scan's value is `{V}`",
    note = "a `kernel!`'s index is `usize` for a RangePolicy unless annotated; its partial \
            value's type (`partial: &mut u64`) must be the scan's value type"
)]
pub trait ScanFunctor<A, V>: seal::SealedScanFunctor<A, V> {
    /// Where the functor can run: [`HostOnly`] for closures and functor structs,
    /// [`Everywhere`](super::Everywhere) for `kernel!`s. A launch on a GPU space of a host-only
    /// functor does not compile.
    type Reach: Reach;
}

functor_seals! {
    /// The seals of the functor traits, holding what a launch uses of a functor. A private module:
    /// no other crate can name these traits, so none can implement the functor traits or lend a
    /// launch a body.
    mod seal {
        use super::super::kernel::{ForKernel, ReduceKernel, ScanKernel};
        use crate::error::Result;
        use crate::kernel::DeviceKernel;
        use crate::seal::Token;
    }

    /// What a launch uses of a [`super::ForFunctor`]: its body, the overlap check and the device
    /// translation.
    #[diagnostic::on_unimplemented(
        message = "`ForFunctor` is sealed: only closures, `kernel!`s and `Functor(..)` are functors",
        label = "`{Self}` cannot implement `ForFunctor`",
        note = "a launch runs a functor's body once per index, which the accessors of a `kernel!` \
                rely on, so only ferrokkos lends bodies to launches",
        note = "for a functor struct of your own, implement `ForKernel<{A}>` and launch \
                `Functor(my_struct)` (host spaces), or write its kernel as a method marked \
                `#[ferrokkos::functor]` (every space)"
    )]
    pub trait SealedForFunctor<A> {
        type Body: ForKernel<A>, once per "index";
        range_seal_methods!(with_body_over);
    }

    /// What a launch uses of a [`super::ReduceFunctor`] (as [`SealedForFunctor`]).
    #[diagnostic::on_unimplemented(
        message = "`ReduceFunctor` is sealed: only closures, `kernel!`s and `Functor(..)` are \
                   functors",
        label = "`{Self}` cannot implement `ReduceFunctor`",
        note = "a launch runs a functor's body once per index, which the accessors of a `kernel!` \
                rely on, so only ferrokkos lends bodies to launches",
        note = "for a functor struct of your own, implement `ReduceKernel<{A}, {V}>` and launch \
                `Functor(my_struct)` (host spaces), or write its kernel as a method marked \
                `#[ferrokkos::functor]` (every space)"
    )]
    pub trait SealedReduceFunctor<A, V> {
        type Body: ReduceKernel<A, V>, once per "index";
        range_seal_methods!(with_body_over);
    }

    /// What a launch uses of a [`super::ScanFunctor`] (as [`SealedForFunctor`]).
    #[diagnostic::on_unimplemented(
        message = "`ScanFunctor` is sealed: only closures, `kernel!`s and `Functor(..)` are \
                   functors",
        label = "`{Self}` cannot implement `ScanFunctor`",
        note = "a launch runs a functor's body once per index, which the accessors of a `kernel!` \
                rely on, so only ferrokkos lends bodies to launches",
        note = "for a functor struct of your own, implement `ScanKernel<{A}, {V}>` and launch \
                `Functor(my_struct)` (host spaces), or write its kernel as a method marked \
                `#[ferrokkos::functor]` (every space)"
    )]
    pub trait SealedScanFunctor<A, V> {
        type Body: ScanKernel<A, V>, once per "index";
        range_seal_methods!();
    }
}

/// A closure or a functor struct lends itself as the body: the seal's implementation (with the
/// body `$b` of `self`) and the functor trait's (host-only). For range and team functors alike.
macro_rules! lend_self {
    (impl[$($g:tt)*] $functor:ident $(<$($p:ty),+>)? / $seal:ident for $t:ty, Body = $body:ty, $s:tt => $b:expr) => {
        #[diagnostic::do_not_recommend]
        impl<$($g)*> seal::$seal $(<$($p),+>)? for $t {
            type Body = $body;
            #[inline]
            fn with_body<R>(
                &$s,
                _: &dyn Fn() -> String,
                run: impl FnOnce(&$body) -> R,
                _: Token,
            ) -> Result<R> {
                Ok(run($b))
            }
        }

        #[diagnostic::do_not_recommend]
        impl<$($g)*> $functor $(<$($p),+>)? for $t {
            type Reach = HostOnly;
        }
    };
}
pub(crate) use lend_self;

lend_self!(impl[A, F: Fn(A) + Sync] ForFunctor<A> / SealedForFunctor for F, Body = F, self => self);
lend_self!(impl[A, V, F: Fn(A, &mut V) + Sync] ReduceFunctor<A, V> / SealedReduceFunctor for F,
    Body = F, self => self);
lend_self!(impl[A, V, F: Fn(A, &mut V, bool) + Sync] ScanFunctor<A, V> / SealedScanFunctor for F,
    Body = F, self => self);

/// A functor struct of your own, launched by [`crate::parallel_for`], [`crate::parallel_reduce`] or
/// [`crate::parallel_scan`] on the host spaces: `T` implements [`ForKernel`], [`ReduceKernel`] or
/// [`ScanKernel`].
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::Functor;
/// use ferrokkos::traits::ForKernel;
///
/// struct Count<'a>(&'a std::sync::atomic::AtomicUsize);
/// impl ForKernel<usize> for Count<'_> {
///     fn apply(&self, _i: usize) {
///         self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
///     }
/// }
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let hits = std::sync::atomic::AtomicUsize::new(0);
/// parallel_for("count", 100, Functor(Count(&hits)))?;
/// assert_eq!(hits.into_inner(), 100);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Functor<T>(pub T);

lend_self!(impl[A, T: ForKernel<A>] ForFunctor<A> / SealedForFunctor for Functor<T>, Body = T,
    self => &self.0);
lend_self!(impl[A, V, T: ReduceKernel<A, V>] ReduceFunctor<A, V> / SealedReduceFunctor for Functor<T>,
    Body = T, self => &self.0);
lend_self!(impl[A, V, T: ScanKernel<A, V>] ScanFunctor<A, V> / SealedScanFunctor for Functor<T>,
    Body = T, self => &self.0);
