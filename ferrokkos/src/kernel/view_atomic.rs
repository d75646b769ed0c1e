//! The atomic operations of a captured View in the typed shadow: `h.atomic_add(k, v)`,
//! `h.atomic_fetch_max(k, v)`, `h.atomic_mul_fetch(k, v)`, `h.atomic_compare_exchange(k, expected,
//! desired)` and their `_ord` forms become calls of the device header's `fk::atomic_*` (same
//! semantics as the host's, `view/atomic.rs`; the methods come from the same tables).
//!
//! An operation whose value is used is written as its own statement into a fresh local
//! (`const i32 fk_old1 = fk::atomic_add(&h(k), 1);`), so it runs exactly once and in the order of
//! the body's statements, whatever the expression around it does with its value. A memory order
//! puts `fk::atomic_fence_device()` (or `_system()`) before the operation for a release and after
//! it for an acquire.

use super::builder;
use super::expr::Expr;
use super::ty::DeviceScalar;
use super::view_expr::{DeviceIndex, ViewExpr};
use crate::view::atomic::{
    HostAtomic, HostAtomicBits, HostAtomicScalar, MemoryOrder, MemoryScope, for_each_atomic_op,
    for_each_atomic_step,
};

const RELAXED: MemoryOrder = MemoryOrder::Relaxed;
const DEVICE: MemoryScope = MemoryScope::Device;

impl<T: DeviceScalar, const R: usize, L> ViewExpr<T, R, L> {
    /// `f(&element, args...)` as a statement, fenced for `order`.
    fn atomic_stmt(
        self,
        f: &str,
        index: impl DeviceIndex<R>,
        args: &[String],
        order: MemoryOrder,
        scope: MemoryScope,
    ) {
        let call = atomic_call(f, &self.element(index), args);
        fenced(order, scope, || builder::line(format!("{call};")));
    }

    /// `f(&element, args...)` as the value of a fresh local, fenced for `order`.
    fn atomic_value(
        self,
        f: &str,
        index: impl DeviceIndex<R>,
        args: &[String],
        order: MemoryOrder,
        scope: MemoryScope,
    ) -> Expr<T> {
        let call = atomic_call(f, &self.element(index), args);
        let old = builder::fresh_temp("fk_old");
        fenced(order, scope, || {
            builder::line(format!("const {} {old} = {call};", T::CXX))
        });
        Expr::name(&old)
    }
}

/// Writes `op`'s lines between the fences that give a relaxed atomic `order`.
fn fenced(order: MemoryOrder, scope: MemoryScope, op: impl FnOnce()) {
    let fence = match scope {
        MemoryScope::Device => "fk::atomic_fence_device();",
        MemoryScope::System => "fk::atomic_fence_system();",
    };
    if order.fence_before() {
        builder::line(fence.to_string());
    }
    op();
    if order.fence_after() {
        builder::line(fence.to_string());
    }
}

fn atomic_call(f: &str, place: &str, args: &[String]) -> String {
    let mut text = format!("{f}(&{place}");
    for a in args {
        text.push_str(", ");
        text.push_str(a);
    }
    text.push(')');
    text
}

/// Shadow methods for each row of `for_each_atomic_op!`: the form without a result is a
/// statement, the others the value of `fk::atomic_<op>` (previous) or `fk::atomic_<op>_fetch`
/// (new). The bound is on each method, so that another element type gets the bound's message (as
/// the host accessor's methods, `view/atomic_access.rs`).
macro_rules! shadow_atomic_ops {
    ($($bound:ident: $plain:ident $fetch:ident $op_fetch:ident, $plain_ord:ident $fetch_ord:ident
        $op_fetch_ord:ident ($arg:ty) $kind:ident $f:ident $pure:ident $cxx:literal $what:literal;)*) => {
        impl<T: DeviceScalar, const R: usize, L> ViewExpr<T, R, L> {$(
            #[doc = concat!("`h.", stringify!($plain), "(index, v)`.")]
            pub fn $plain(self, index: impl DeviceIndex<R>, v: Expr<$arg>) where T: $bound {
                self.$plain_ord(index, v, RELAXED, DEVICE)
            }

            #[doc = concat!("`h.", stringify!($fetch), "(index, v)`: the previous value.")]
            pub fn $fetch(self, index: impl DeviceIndex<R>, v: Expr<$arg>) -> Expr<T>
            where T: $bound {
                self.$fetch_ord(index, v, RELAXED, DEVICE)
            }

            #[doc = concat!("`h.", stringify!($op_fetch), "(index, v)`: the new value.")]
            pub fn $op_fetch(self, index: impl DeviceIndex<R>, v: Expr<$arg>) -> Expr<T>
            where T: $bound {
                self.$op_fetch_ord(index, v, RELAXED, DEVICE)
            }

            #[doc = concat!("`h.", stringify!($plain_ord), "(index, v, order, scope)`.")]
            pub fn $plain_ord(self, index: impl DeviceIndex<R>, v: Expr<$arg>,
                order: MemoryOrder, scope: MemoryScope) where T: $bound {
                let f = concat!("fk::atomic_", $cxx);
                self.atomic_stmt(f, index, &[v.text()], order, scope)
            }

            #[doc = concat!("`h.", stringify!($fetch_ord), "(index, v, order, scope)`.")]
            pub fn $fetch_ord(self, index: impl DeviceIndex<R>, v: Expr<$arg>,
                order: MemoryOrder, scope: MemoryScope) -> Expr<T> where T: $bound {
                let f = concat!("fk::atomic_", $cxx);
                self.atomic_value(f, index, &[v.text()], order, scope)
            }

            #[doc = concat!("`h.", stringify!($op_fetch_ord), "(index, v, order, scope)`.")]
            pub fn $op_fetch_ord(self, index: impl DeviceIndex<R>, v: Expr<$arg>,
                order: MemoryOrder, scope: MemoryScope) -> Expr<T> where T: $bound {
                let f = concat!("fk::atomic_", $cxx, "_fetch");
                self.atomic_value(f, index, &[v.text()], order, scope)
            }
        )*}
    };
}

for_each_atomic_op!(shadow_atomic_ops);

/// The header's function of an increment or decrement (by its host row and result).
macro_rules! step_cxx {
    (fetch_add new) => {
        "fk::atomic_inc_fetch"
    };
    (fetch_add $r:ident) => {
        "fk::atomic_inc"
    };
    (fetch_sub new) => {
        "fk::atomic_dec_fetch"
    };
    (fetch_sub $r:ident) => {
        "fk::atomic_dec"
    };
}

/// An increment's or decrement's shadow: a statement, or a value.
macro_rules! step_shadow {
    (none, $self:ident, $f:expr, $index:ident, $order:ident, $scope:ident) => {
        $self.atomic_stmt($f, $index, &[], $order, $scope)
    };
    ($r:ident, $self:ident, $f:expr, $index:ident, $order:ident, $scope:ident) => {
        $self.atomic_value($f, $index, &[], $order, $scope)
    };
}

/// What an increment's or decrement's shadow gives.
macro_rules! step_shadow_type {
    (none) => { () };
    ($r:ident) => { Expr<T> };
}

macro_rules! shadow_atomic_steps {
    ($($name:ident $name_ord:ident: $f:ident $pure:ident $result:ident $what:literal;)*) => {
        impl<T: DeviceScalar, const R: usize, L> ViewExpr<T, R, L> {$(
            #[doc = concat!("`h.", stringify!($name), "(index)`.")]
            pub fn $name(self, index: impl DeviceIndex<R>) -> step_shadow_type!($result)
            where T: HostAtomicBits {
                self.$name_ord(index, RELAXED, DEVICE)
            }

            #[doc = concat!("`h.", stringify!($name_ord), "(index, order, scope)`.")]
            pub fn $name_ord(self, index: impl DeviceIndex<R>, order: MemoryOrder,
                scope: MemoryScope) -> step_shadow_type!($result) where T: HostAtomicBits {
                step_shadow!($result, self, step_cxx!($f $result), index, order, scope)
            }
        )*}
    };
}

for_each_atomic_step!(shadow_atomic_steps);

impl<T: DeviceScalar + HostAtomic, const R: usize, L> ViewExpr<T, R, L> {
    /// `h.atomic_load(index)`.
    pub fn atomic_load(self, index: impl DeviceIndex<R>) -> Expr<T> {
        self.atomic_load_ord(index, RELAXED, DEVICE)
    }

    /// `h.atomic_load_ord(index, order, scope)`.
    pub fn atomic_load_ord(
        self,
        index: impl DeviceIndex<R>,
        order: MemoryOrder,
        scope: MemoryScope,
    ) -> Expr<T> {
        self.atomic_value("fk::atomic_load", index, &[], order, scope)
    }

    /// `h.atomic_store(index, v)`.
    pub fn atomic_store(self, index: impl DeviceIndex<R>, v: Expr<T>) {
        self.atomic_store_ord(index, v, RELAXED, DEVICE)
    }

    /// `h.atomic_store_ord(index, v, order, scope)`.
    pub fn atomic_store_ord(
        self,
        index: impl DeviceIndex<R>,
        v: Expr<T>,
        order: MemoryOrder,
        scope: MemoryScope,
    ) {
        self.atomic_stmt("fk::atomic_store", index, &[v.text()], order, scope)
    }
}

impl<T: DeviceScalar, const R: usize, L> ViewExpr<T, R, L> {
    /// `h.atomic_exchange(index, v)`: the previous value.
    pub fn atomic_exchange(self, index: impl DeviceIndex<R>, v: Expr<T>) -> Expr<T>
    where
        T: HostAtomicScalar,
    {
        self.atomic_exchange_ord(index, v, RELAXED, DEVICE)
    }

    /// `h.atomic_exchange_ord(index, v, order, scope)`: the previous value.
    pub fn atomic_exchange_ord(
        self,
        index: impl DeviceIndex<R>,
        v: Expr<T>,
        order: MemoryOrder,
        scope: MemoryScope,
    ) -> Expr<T>
    where
        T: HostAtomicScalar,
    {
        self.atomic_value("fk::atomic_exchange", index, &[v.text()], order, scope)
    }

    /// `h.atomic_compare_exchange(index, expected, desired)`: the previous value.
    pub fn atomic_compare_exchange(
        self,
        index: impl DeviceIndex<R>,
        expected: Expr<T>,
        desired: Expr<T>,
    ) -> Expr<T>
    where
        T: HostAtomicScalar,
    {
        self.atomic_compare_exchange_ord(index, expected, desired, RELAXED, DEVICE)
    }

    /// `h.atomic_compare_exchange_ord(index, expected, desired, order, scope)`.
    pub fn atomic_compare_exchange_ord(
        self,
        index: impl DeviceIndex<R>,
        expected: Expr<T>,
        desired: Expr<T>,
        order: MemoryOrder,
        scope: MemoryScope,
    ) -> Expr<T>
    where
        T: HostAtomicScalar,
    {
        let args = [expected.text(), desired.text()];
        self.atomic_value("fk::atomic_compare_exchange", index, &args, order, scope)
    }
}
