//! The types of an [`UnorderedMap`](super::UnorderedMap)'s entries: its keys ([`MapKey`]: integers,
//! hashed alike on the host and on the device), its values ([`MapValue`]: device values, or `()`
//! for a set) and what an insert reports ([`InsertResult`]).

use crate::kernel::device_fn::{Ch, DeviceMethod};
use crate::kernel::expr::Expr;
use crate::kernel::shadow::{member_text, pop_receiver, text_value};
use crate::kernel::value::DeviceValue;

/// The hash of a key's 64-bit form (MurmurHash3's finalizer, also in `device/unordered_map.cuh`):
/// the host and the device probe one table, so both place a key alike.
#[inline(always)]
pub(crate) fn hash(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

mod seal {
    pub trait Sealed {}
}

/// A key of an [`UnorderedMap`](super::UnorderedMap): an integer (`u32`, `u64`, `i32`, `i64`,
/// `usize`), compared by value and hashed by its 64-bit form (sealed).
pub trait MapKey: DeviceValue + Eq + seal::Sealed {
    /// The key as 64 bits (sign-extended, as C++ converts it).
    #[doc(hidden)]
    fn bits(self) -> u64;
}

macro_rules! map_keys {
    ($($t:ty)*) => {$(
        impl seal::Sealed for $t {}
        impl MapKey for $t {
            #[inline(always)]
            fn bits(self) -> u64 {
                self as u64
            }
        }
    )*};
}

map_keys!(u32 u64 i32 i64 usize);

/// A value of an [`UnorderedMap`](super::UnorderedMap): a device value, or `()` for a set (sealed).
pub trait MapValue: Copy + Send + Sync + 'static + value_seal::Sealed {
    /// What one slot stores (`u8` for `()`, which stores nothing).
    #[doc(hidden)]
    type Slot: DeviceValue;
    /// Whether values are stored (false for a set).
    #[doc(hidden)]
    const STORED: bool;
    /// The value a slot holds.
    #[doc(hidden)]
    fn from_slot(slot: Self::Slot) -> Self;
}

mod value_seal {
    pub trait Sealed {}
}

impl<T: DeviceValue> value_seal::Sealed for T {}
impl<T: DeviceValue> MapValue for T {
    type Slot = T;
    const STORED: bool = true;
    fn from_slot(slot: T) -> T {
        slot
    }
}

impl value_seal::Sealed for () {}
impl MapValue for () {
    type Slot = u8;
    const STORED: bool = false;
    fn from_slot(_: u8) {}
}

/// What an [`UnorderedMap`](super::UnorderedMap) insert did (Kokkos' `UnorderedMapInsertResult`):
/// inserted the key (`success()`), found it there already (`existing()`, its value unchanged), or
/// found no free slot (`failed()`; the map's `failed_insert()` then reports it). `index()` is the
/// key's slot, for `value_at` and `key_at` (`usize::MAX` when it failed).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, crate::DeviceValue)]
pub struct InsertResult {
    index: u64,
    status: u64,
}

/// `InsertResult::status` values.
pub(crate) const FAILED: u64 = 0;
pub(crate) const SUCCESS: u64 = 1;
pub(crate) const EXISTING: u64 = 2;

impl InsertResult {
    pub(crate) fn new(index: usize, status: u64) -> Self {
        InsertResult {
            index: index as u64,
            status,
        }
    }
}

impl InsertResult {
    /// The key was not there and is now.
    pub fn success(&self) -> bool {
        self.status == SUCCESS
    }

    /// The key was there already; its value is unchanged.
    pub fn existing(&self) -> bool {
        self.status == EXISTING
    }

    /// The map had no free slot for the key.
    pub fn failed(&self) -> bool {
        self.status == FAILED
    }

    /// The key's slot (`usize::MAX` when the insert failed).
    pub fn index(&self) -> usize {
        self.index as usize
    }
}

/// The typed shadows of `InsertResult`'s methods (reached as a `#[device]` type's are, through
/// `device_method` and the `DeviceMethod` proofs below).
#[doc(hidden)]
impl InsertResult {
    fn status_is(status: u64) -> Expr<bool> {
        let r = pop_receiver::<InsertResult>();
        text_value(format!("{} == {status}ull", member_text(r, "status")))
    }

    pub fn __fk_success(&self) -> Expr<bool> {
        Self::status_is(SUCCESS)
    }

    pub fn __fkt_success(&self) -> Expr<bool> {
        Self::status_is(SUCCESS)
    }

    pub fn __fk_existing(&self) -> Expr<bool> {
        Self::status_is(EXISTING)
    }

    pub fn __fkt_existing(&self) -> Expr<bool> {
        Self::status_is(EXISTING)
    }

    pub fn __fk_failed(&self) -> Expr<bool> {
        Self::status_is(FAILED)
    }

    pub fn __fkt_failed(&self) -> Expr<bool> {
        Self::status_is(FAILED)
    }

    pub fn __fk_index(&self) -> Expr<usize> {
        let r = pop_receiver::<InsertResult>();
        text_value(format!("(usize){}", member_text(r, "index")))
    }

    pub fn __fkt_index(&self) -> Expr<usize> {
        self.__fk_index()
    }
}

/// `InsertResult`'s kernel methods, by name ([`Ch`] lists).
macro_rules! insert_result_methods {
    ($($($c:literal)*;)*) => {$(
        // SAFETY: `InsertResult::__fk_<name>` / `__fkt_<name>` emit the device form of the
        // method of that name above (the same field tests).
        #[diagnostic::do_not_recommend]
        unsafe impl DeviceMethod<insert_result_methods!(@name $($c)*)> for InsertResult {}
    )*};
    (@name) => { () };
    (@name $c:literal $($rest:literal)*) => { Ch<$c, insert_result_methods!(@name $($rest)*)> };
}

insert_result_methods! {
    's' 'u' 'c' 'c' 'e' 's' 's';
    'e' 'x' 'i' 's' 't' 'i' 'n' 'g';
    'f' 'a' 'i' 'l' 'e' 'd';
    'i' 'n' 'd' 'e' 'x';
}
