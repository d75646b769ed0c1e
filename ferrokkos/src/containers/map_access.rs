//! What a host kernel sees of a captured [`UnorderedMap`](super::UnorderedMap): inserts, lookups
//! and erases of one open-addressing table, concurrent from every thread of the launch.
//!
//! The table: `capacity` slots (a power of two), each a state word, a key and (unless the map is
//! a set) a value. A key's probe sequence starts at its hash and goes up by one, wrapping. A slot
//! goes `EMPTY → BUSY → VALID (→ ERASED)` and never back within a launch (only the host's `clear`
//! and `rehash`, which borrow the table exclusively, empty slots).
//!
//! Soundness (no data race on keys and values): a slot's key and value are written only by the
//! thread whose compare-exchange took it from `EMPTY` to `BUSY`, before that thread stores `VALID`
//! (`Release`); they are read only after a load of the state that saw `VALID` or `ERASED`
//! (`Acquire`), and never written again. An insert that meets a `BUSY` slot waits for it (it may
//! hold the same key), so a key is in at most one slot, in the first one its probe found free;
//! slots never empty again, so a lookup stops at the first `EMPTY` slot. Every index is checked
//! against `capacity`.

use std::marker::PhantomData;
use std::sync::atomic::{AtomicU32, Ordering};

use super::map_types::{EXISTING, FAILED, InsertResult, MapKey, MapValue, SUCCESS, hash};
use crate::kernel::value::DeviceValue;

/// Slot states (also in `device/unordered_map.cuh`).
pub(crate) const EMPTY: u32 = 0;
pub(crate) const BUSY: u32 = 1;
pub(crate) const VALID: u32 = 2;
pub(crate) const ERASED: u32 = 3;

/// A captured UnorderedMap in a host kernel. Its lifetime is the launch's.
pub struct MapAccess<'a, K: MapKey, V: MapValue> {
    states: *const AtomicU32,
    keys: *mut K,
    values: *mut V::Slot,
    capacity: usize,
    failed: *const AtomicU32,
    _launch: PhantomData<&'a AtomicU32>,
}

impl<K: MapKey, V: MapValue> Clone for MapAccess<'_, K, V> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K: MapKey, V: MapValue> Copy for MapAccess<'_, K, V> {}

// SAFETY: the slots are shared by the rules of the module's documentation: states and the failed
// flag are atomics, keys and values are written once by the slot's owner before it publishes them.
unsafe impl<K: MapKey, V: MapValue> Sync for MapAccess<'_, K, V> {}
// SAFETY: as for `Sync`.
unsafe impl<K: MapKey, V: MapValue> Send for MapAccess<'_, K, V> {}

/// The table a [`MapAccess`] is made over (raw parts of the map's Views).
pub(crate) struct MapParts<K, S> {
    pub(crate) states: *mut u32,
    pub(crate) keys: *mut K,
    pub(crate) values: *mut S,
    pub(crate) capacity: usize,
    pub(crate) failed: *mut u32,
}

impl<'a, K: MapKey, V: MapValue> MapAccess<'a, K, V> {
    /// The accessor of a table.
    ///
    /// # Safety
    /// `capacity` is a power of two; `states` and `keys` hold `capacity` elements, `values` too
    /// when `V::STORED`, `failed` one; all are host-accessible, held by the launch while the
    /// accessor is used, and accessed meanwhile only by accessors (the module's rules).
    pub(crate) unsafe fn new(parts: MapParts<K, V::Slot>) -> Self {
        debug_assert!(parts.capacity.is_power_of_two());
        MapAccess {
            states: parts.states.cast::<AtomicU32>(),
            keys: parts.keys,
            values: parts.values,
            capacity: parts.capacity,
            failed: parts.failed.cast::<AtomicU32>(),
            _launch: PhantomData,
        }
    }

    /// Slot `i`'s state (`i < capacity`).
    #[inline(always)]
    fn state(&self, i: usize) -> &'a AtomicU32 {
        debug_assert!(i < self.capacity);
        // SAFETY: `i < capacity` and `states` holds `capacity` words (`new`); `AtomicU32` has
        // `u32`'s layout.
        unsafe { &*self.states.add(i) }
    }

    /// Slot `i`'s key (`i < capacity`), once its state was seen `VALID` or `ERASED`.
    #[inline(always)]
    fn key(&self, i: usize) -> K {
        // SAFETY: in bounds (`i < capacity`); the key was written before the state was published
        // and is never written again (the module's rules).
        unsafe { self.keys.add(i).read() }
    }

    /// Waits while slot `i` is `BUSY`; its state then.
    #[inline]
    fn settled(&self, i: usize) -> u32 {
        let mut rounds = 0u32;
        loop {
            let s = self.state(i).load(Ordering::Acquire);
            if s != BUSY {
                return s;
            }
            rounds += 1;
            if rounds < 64 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// Inserts `k` (with `v` when values are stored).
    fn insert_slot(&self, k: K, v: Option<V::Slot>) -> InsertResult {
        let mask = self.capacity - 1;
        let mut i = hash(k.bits()) as usize & mask;
        for _ in 0..self.capacity {
            let mut s = self.state(i).load(Ordering::Acquire);
            if s == EMPTY {
                match self.state(i).compare_exchange(
                    EMPTY,
                    BUSY,
                    Ordering::Acquire,
                    Ordering::Acquire,
                ) {
                    Ok(_) => {
                        // SAFETY: this thread took the slot from EMPTY: it alone writes it until it
                        // publishes it below (the module's rules); `i < capacity`.
                        unsafe {
                            self.keys.add(i).write(k);
                            if let Some(v) = v {
                                self.values.add(i).write(v);
                            }
                        }
                        self.state(i).store(VALID, Ordering::Release);
                        return InsertResult::new(i, SUCCESS);
                    }
                    Err(now) => s = now,
                }
            }
            if s == BUSY {
                s = self.settled(i);
            }
            if s == VALID && self.key(i) == k {
                return InsertResult::new(i, EXISTING);
            }
            i = (i + 1) & mask;
        }
        // SAFETY: `failed` is one word held by the launch (`new`).
        unsafe { &*self.failed }.fetch_or(1, Ordering::Relaxed);
        InsertResult::new(usize::MAX, FAILED)
    }

    /// `m.find(k)`: the slot holding `k`, or `usize::MAX` when it is not in the map.
    pub fn find(&self, k: K) -> usize {
        let mask = self.capacity - 1;
        let mut i = hash(k.bits()) as usize & mask;
        for _ in 0..self.capacity {
            match self.state(i).load(Ordering::Acquire) {
                EMPTY => return usize::MAX,
                VALID if self.key(i) == k => return i,
                _ => {}
            }
            i = (i + 1) & mask;
        }
        usize::MAX
    }

    /// `m.exists(k)`: whether `k` is in the map.
    pub fn exists(&self, k: K) -> bool {
        self.find(k) != usize::MAX
    }

    /// `m.erase(k)`: removes `k`; true when this call removed it.
    pub fn erase(&self, k: K) -> bool {
        let i = self.find(k);
        i != usize::MAX
            && self
                .state(i)
                .compare_exchange(VALID, ERASED, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
    }

    /// `m.valid_at(i)`: whether slot `i` holds a key (false past `capacity()`).
    pub fn valid_at(&self, i: usize) -> bool {
        i < self.capacity && self.state(i).load(Ordering::Acquire) == VALID
    }

    /// `m.key_at(i)`: slot `i`'s key, or zero when `!valid_at(i)`.
    pub fn key_at(&self, i: usize) -> K {
        if self.valid_at(i) {
            self.key(i)
        } else {
            zero()
        }
    }

    /// `m.capacity()`: the number of slots, the most keys the map holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }
}

/// The all-zero value of a device value.
fn zero<T: DeviceValue>() -> T {
    // SAFETY: `T: DeviceValue: Element`, whose contract makes the all-zero bytes a valid value.
    unsafe { std::mem::zeroed() }
}

impl<K: MapKey> MapAccess<'_, K, ()> {
    /// `s.insert(k)` (a set): inserts `k`.
    pub fn insert(&self, k: K) -> InsertResult {
        self.insert_slot(k, None)
    }
}

impl<K: MapKey, V: DeviceValue + MapValue<Slot = V>> MapAccess<'_, K, V> {
    /// `m.insert(k, v)`: inserts `k` with value `v` (an existing key keeps its value).
    pub fn insert(&self, k: K, v: V) -> InsertResult {
        self.insert_slot(k, Some(v))
    }

    /// `m.value_at(i)`: slot `i`'s value, or zero when `!valid_at(i)`.
    pub fn value_at(&self, i: usize) -> V {
        if self.valid_at(i) {
            // SAFETY: `i < capacity`, values are stored (`V: DeviceValue`), and the state was seen
            // VALID: the value was written before and is never written again.
            unsafe { self.values.add(i).read() }
        } else {
            zero()
        }
    }
}
