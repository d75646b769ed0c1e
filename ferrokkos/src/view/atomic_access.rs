//! The methods of [`AtomicAccess`] (what a host body calls for `h.atomic_add(k, v)` and the rest of
//! Kokkos' atomics, `atomic.rs`): each form of each operation, and its `_ord` form taking a
//! [`MemoryOrder`] and a [`MemoryScope`] (the scope changes nothing on the host). The bounds are on
//! each method, not on the `impl`, so that a View of another element type gets the bound's message
//! ("`f64` has no atomic integer operations") rather than "its trait bounds were not satisfied".

use super::atomic::{
    HostAtomic, HostAtomicBits, HostAtomicScalar, MemoryOrder, MemoryScope, for_each_atomic_op,
    for_each_atomic_step,
};
use super::element::Element;
use super::kernel_access::{AtomicAccess, KernelIndex};
use crate::layout::Layout;

const RELAXED: MemoryOrder = MemoryOrder::Relaxed;
const DEVICE: MemoryScope = MemoryScope::Device;

/// The previous value of one row's operation on `*$p` (a `fetch` function, or `update` with the
/// pure one).
macro_rules! previous {
    (fetch $f:ident, $p:ident, $v:ident, $o:ident) => {
        // SAFETY: `p` is the element (bounds-checked), aligned; by the race rules every access to
        // this View in the kernel is atomic, and the launch holds the allocation's exclusive borrow.
        unsafe { T::$f($p, $v, $o.rmw()) }
    };
    (update $f:ident, $p:ident, $v:ident, $o:ident) => {
        // SAFETY: as for `fetch`.
        unsafe { T::update($p, $o, |x| T::$f(x, $v)) }
    };
}

macro_rules! host_atomic_ops {
    ($($bound:ident: $plain:ident $fetch:ident $op_fetch:ident, $plain_ord:ident $fetch_ord:ident
        $op_fetch_ord:ident ($arg:ty) $kind:ident $f:ident $pure:ident $cxx:literal $what:literal;)*) => {
        impl<T: Element, const R: usize, L: Layout> AtomicAccess<'_, T, R, L> {$(
            #[doc = concat!("`h.", stringify!($plain), "(index, v)`: ", $what, ", atomically.")]
            #[inline(always)]
            #[track_caller]
            pub fn $plain(&self, index: impl KernelIndex<R>, v: $arg) where T: $bound {
                self.$fetch_ord(index, v, RELAXED, DEVICE);
            }

            #[doc = concat!("`h.", stringify!($fetch), "(index, v)`: ", $what,
                ", atomically; returns the element's previous value.")]
            #[inline(always)]
            #[track_caller]
            pub fn $fetch(&self, index: impl KernelIndex<R>, v: $arg) -> T where T: $bound {
                self.$fetch_ord(index, v, RELAXED, DEVICE)
            }

            #[doc = concat!("`h.", stringify!($op_fetch), "(index, v)`: ", $what,
                ", atomically; returns the element's new value.")]
            #[inline(always)]
            #[track_caller]
            pub fn $op_fetch(&self, index: impl KernelIndex<R>, v: $arg) -> T where T: $bound {
                self.$op_fetch_ord(index, v, RELAXED, DEVICE)
            }

            #[doc = concat!("`h.", stringify!($plain_ord), "(index, v, order, scope)`: `",
                stringify!($plain), "` with a memory order.")]
            #[inline(always)]
            #[track_caller]
            pub fn $plain_ord(&self, index: impl KernelIndex<R>, v: $arg, order: MemoryOrder,
                scope: MemoryScope) where T: $bound {
                self.$fetch_ord(index, v, order, scope);
            }

            #[doc = concat!("`h.", stringify!($fetch_ord), "(index, v, order, scope)`: `",
                stringify!($fetch), "` with a memory order.")]
            #[inline(always)]
            #[track_caller]
            pub fn $fetch_ord(&self, index: impl KernelIndex<R>, v: $arg, order: MemoryOrder,
                _scope: MemoryScope) -> T where T: $bound {
                let p = self.raw.element(index.to_index());
                previous!($kind $f, p, v, order)
            }

            #[doc = concat!("`h.", stringify!($op_fetch_ord), "(index, v, order, scope)`: `",
                stringify!($op_fetch), "` with a memory order.")]
            #[inline(always)]
            #[track_caller]
            pub fn $op_fetch_ord(&self, index: impl KernelIndex<R>, v: $arg, order: MemoryOrder,
                scope: MemoryScope) -> T where T: $bound {
                T::$pure(self.$fetch_ord(index, v, order, scope), v)
            }
        )*}
    };
}

for_each_atomic_op!(host_atomic_ops);

/// The result of an increment or decrement from the previous value `$old`.
macro_rules! step_result {
    (none $pure:ident, $old:expr) => {{
        let _ = $old;
    }};
    (old $pure:ident, $old:expr) => {
        $old
    };
    (new $pure:ident, $old:expr) => {
        T::$pure($old, T::ONE)
    };
}

/// What an increment or decrement returns.
macro_rules! step_type {
    (none) => {
        ()
    };
    (old) => {
        T
    };
    (new) => {
        T
    };
}

macro_rules! host_atomic_steps {
    ($($name:ident $name_ord:ident: $f:ident $pure:ident $result:ident $what:literal;)*) => {
        impl<T: Element, const R: usize, L: Layout> AtomicAccess<'_, T, R, L> {$(
            #[doc = concat!("`h.", stringify!($name), "(index)`: ", $what, ", atomically.")]
            #[inline(always)]
            #[track_caller]
            pub fn $name(&self, index: impl KernelIndex<R>) -> step_type!($result)
            where
                T: HostAtomicBits,
            {
                self.$name_ord(index, RELAXED, DEVICE)
            }

            #[doc = concat!("`h.", stringify!($name_ord), "(index, order, scope)`: `",
                stringify!($name), "` with a memory order.")]
            #[inline(always)]
            #[track_caller]
            pub fn $name_ord(&self, index: impl KernelIndex<R>, order: MemoryOrder,
                _scope: MemoryScope) -> step_type!($result)
            where
                T: HostAtomicBits,
            {
                let p = self.raw.element(index.to_index());
                let one = T::ONE;
                let old = previous!(fetch $f, p, one, order);
                step_result!($result $pure, old)
            }
        )*}
    };
}

for_each_atomic_step!(host_atomic_steps);

impl<T: HostAtomic, const R: usize, L: Layout> AtomicAccess<'_, T, R, L> {
    /// `h.atomic_load(index)`: reads the element atomically.
    #[inline(always)]
    #[track_caller]
    pub fn atomic_load(&self, index: impl KernelIndex<R>) -> T {
        self.atomic_load_ord(index, RELAXED, DEVICE)
    }

    /// `h.atomic_load_ord(index, order, scope)`: `atomic_load` with a memory order (a release
    /// order, which `kernel!` rejects, is made `SeqCst`).
    #[inline(always)]
    #[track_caller]
    pub fn atomic_load_ord(
        &self,
        index: impl KernelIndex<R>,
        order: MemoryOrder,
        _scope: MemoryScope,
    ) -> T {
        let p = self.raw.element(index.to_index());
        // SAFETY: as in `previous!`.
        unsafe { T::load(p, order.load()) }
    }

    /// `h.atomic_store(index, v)`: writes the element atomically.
    #[inline(always)]
    #[track_caller]
    pub fn atomic_store(&self, index: impl KernelIndex<R>, v: T) {
        self.atomic_store_ord(index, v, RELAXED, DEVICE)
    }

    /// `h.atomic_store_ord(index, v, order, scope)`: `atomic_store` with a memory order (an
    /// acquire order, which `kernel!` rejects, is made `SeqCst`).
    #[inline(always)]
    #[track_caller]
    pub fn atomic_store_ord(
        &self,
        index: impl KernelIndex<R>,
        v: T,
        order: MemoryOrder,
        _scope: MemoryScope,
    ) {
        let p = self.raw.element(index.to_index());
        // SAFETY: as in `previous!`.
        unsafe { T::store(p, v, order.store()) }
    }
}

impl<T: Element, const R: usize, L: Layout> AtomicAccess<'_, T, R, L> {
    /// `h.atomic_exchange(index, v)`: stores `v` in the element atomically; returns the previous
    /// value.
    #[inline(always)]
    #[track_caller]
    pub fn atomic_exchange(&self, index: impl KernelIndex<R>, v: T) -> T
    where
        T: HostAtomicScalar,
    {
        self.atomic_exchange_ord(index, v, RELAXED, DEVICE)
    }

    /// `h.atomic_exchange_ord(index, v, order, scope)`: `atomic_exchange` with a memory order.
    #[inline(always)]
    #[track_caller]
    pub fn atomic_exchange_ord(
        &self,
        index: impl KernelIndex<R>,
        v: T,
        order: MemoryOrder,
        _scope: MemoryScope,
    ) -> T
    where
        T: HostAtomicScalar,
    {
        let p = self.raw.element(index.to_index());
        // SAFETY: as in `previous!`.
        unsafe { T::exchange(p, v, order.rmw()) }
    }

    /// `h.atomic_compare_exchange(index, expected, desired)`: stores `desired` in the element if it
    /// holds `expected` (bit patterns for floats), atomically; returns the previous value (equal
    /// to `expected` exactly when the store happened), as Kokkos' `atomic_compare_exchange`.
    #[inline(always)]
    #[track_caller]
    pub fn atomic_compare_exchange(&self, index: impl KernelIndex<R>, expected: T, desired: T) -> T
    where
        T: HostAtomicScalar,
    {
        self.atomic_compare_exchange_ord(index, expected, desired, RELAXED, DEVICE)
    }

    /// `h.atomic_compare_exchange_ord(index, expected, desired, order, scope)`:
    /// `atomic_compare_exchange` with a memory order (a failed exchange is a load: its release
    /// part is dropped).
    #[inline(always)]
    #[track_caller]
    pub fn atomic_compare_exchange_ord(
        &self,
        index: impl KernelIndex<R>,
        expected: T,
        desired: T,
        order: MemoryOrder,
        _scope: MemoryScope,
    ) -> T
    where
        T: HostAtomicScalar,
    {
        let p = self.raw.element(index.to_index());
        // SAFETY: as in `previous!`.
        unsafe { T::compare_exchange(p, expected, desired, order) }
    }
}
