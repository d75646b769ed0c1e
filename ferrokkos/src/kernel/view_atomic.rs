//! The atomic operations of a captured View in the typed shadow: `h.atomic_add(k, v)`,
//! `h.atomic_fetch_max(k, v)`, `h.atomic_compare_exchange(k, expected, desired)` become calls of
//! the device header's `fk::atomic_*` (same semantics as the host's, `view/atomic.rs`).
//!
//! An operation whose value is used is written as its own statement into a fresh local
//! (`const i32 fk_old1 = fk::atomic_add(&h(k), 1);`), so it runs exactly once and in the order of
//! the body's statements, whatever the expression around it does with its value.

use super::builder;
use super::expr::Expr;
use super::ty::DeviceScalar;
use super::view_expr::{DeviceIndex, ViewExpr};
use crate::view::atomic::{HostAtomic, HostAtomicBits};

impl<T: DeviceScalar, const R: usize, L> ViewExpr<T, R, L> {
    /// `f(&element, args...)` as a statement.
    fn atomic_stmt(self, f: &str, index: impl DeviceIndex<R>, args: &[Expr<T>]) {
        let call = atomic_call(f, &self.element(index), args);
        builder::line(format!("{call};"));
    }

    /// `f(&element, args...)` as the value of a fresh local.
    fn atomic_value(self, f: &str, index: impl DeviceIndex<R>, args: &[Expr<T>]) -> Expr<T> {
        let call = atomic_call(f, &self.element(index), args);
        let old = builder::fresh_temp("fk_old");
        builder::line(format!("const {} {old} = {call};", T::CXX));
        Expr::name(&old)
    }
}

fn atomic_call<T>(f: &str, place: &str, args: &[Expr<T>]) -> String {
    let mut text = format!("{f}(&{place}");
    for a in args {
        text.push_str(", ");
        text.push_str(&a.text());
    }
    text.push(')');
    text
}

/// Shadow methods `$name(index, v)` (a statement) and `$fetch(index, v)` (the previous value) that
/// call the header's `$f`. The bound is on each method, so that another element type gets the
/// bound's message (as the host accessor's methods, `view/atomic.rs`).
macro_rules! shadow_atomics {
    ($bound:ident: $($name:ident, $fetch:ident => $f:literal;)*) => {
        impl<T: DeviceScalar, const R: usize, L> ViewExpr<T, R, L> {
            $(
                #[doc = concat!("`h.", stringify!($name), "(index, v)`.")]
                pub fn $name(self, index: impl DeviceIndex<R>, v: Expr<T>)
                where
                    T: $bound,
                {
                    self.atomic_stmt($f, index, &[v])
                }

                #[doc = concat!("`h.", stringify!($fetch), "(index, v)`: the previous value.")]
                pub fn $fetch(self, index: impl DeviceIndex<R>, v: Expr<T>) -> Expr<T>
                where
                    T: $bound,
                {
                    self.atomic_value($f, index, &[v])
                }
            )*
        }
    };
}

shadow_atomics! {
    HostAtomic:
    atomic_add, atomic_fetch_add => "fk::atomic_add";
    atomic_sub, atomic_fetch_sub => "fk::atomic_sub";
    atomic_min, atomic_fetch_min => "fk::atomic_min";
    atomic_max, atomic_fetch_max => "fk::atomic_max";
}

shadow_atomics! {
    HostAtomicBits:
    atomic_and, atomic_fetch_and => "fk::atomic_and";
    atomic_or, atomic_fetch_or => "fk::atomic_or";
    atomic_xor, atomic_fetch_xor => "fk::atomic_xor";
}

impl<T: DeviceScalar + HostAtomic, const R: usize, L> ViewExpr<T, R, L> {
    /// `h.atomic_exchange(index, v)`: the previous value.
    pub fn atomic_exchange(self, index: impl DeviceIndex<R>, v: Expr<T>) -> Expr<T> {
        self.atomic_value("fk::atomic_exchange", index, &[v])
    }

    /// `h.atomic_compare_exchange(index, expected, desired)`: the previous value.
    pub fn atomic_compare_exchange(
        self,
        index: impl DeviceIndex<R>,
        expected: Expr<T>,
        desired: Expr<T>,
    ) -> Expr<T> {
        self.atomic_value("fk::atomic_compare_exchange", index, &[expected, desired])
    }

    /// `h.atomic_load(index)`.
    pub fn atomic_load(self, index: impl DeviceIndex<R>) -> Expr<T> {
        self.atomic_value("fk::atomic_load", index, &[])
    }

    /// `h.atomic_store(index, v)`.
    pub fn atomic_store(self, index: impl DeviceIndex<R>, v: Expr<T>) {
        self.atomic_stmt("fk::atomic_store", index, &[v])
    }
}
