//! [`UnorderedMap`]: Kokkos' `Kokkos::UnorderedMap`, a fixed-capacity hash map in a memory space
//! that kernels insert into, look up and erase from concurrently.

use std::marker::PhantomData;

use super::map_access::{MapAccess, MapParts, VALID};
use super::map_types::{MapKey, MapValue, hash};
use crate::error::{Error, Result};
use crate::kernel::capture::{Borrowed, IntoCapture, KernelScalar, KernelValue};
use crate::kernel::params::ParamWriter;
use crate::layout::LayoutRight;
use crate::seal::SealedKernelValue;
use crate::space::MemorySpace;
use crate::space::host_space::HostSpace;
use crate::view::kernel_access::{AccessMode, ViewAccess};
use crate::view::{View, create_mirror_view, deep_copy, subview};

use super::map_shadow::MapShadow;

/// The most slots a map may have (slot indices fit in 32 bits on the device).
const MAX_CAPACITY: usize = 1 << 31;

/// A hash map from integer keys `K` to values `V` (`()`: a set) in memory space `M`, of a fixed
/// capacity: Kokkos' `UnorderedMap`.
///
/// Kernels capture it and call `m.insert(k, v)` (a set: `m.insert(k)`), which returns an
/// [`InsertResult`](crate::InsertResult) (`success()`, `existing()`, `failed()`, `index()`),
/// `m.find(k)` (the key's slot, `usize::MAX` if absent), `m.exists(k)`, `m.erase(k)`,
/// `m.valid_at(i)`, `m.key_at(i)`, `m.value_at(i)` and `m.capacity()`, from any number of
/// iterations at once. A key is stored once; an insert of a key already there keeps its value. An
/// insert that finds no free slot fails and sets [`failed_insert`](UnorderedMap::failed_insert):
/// [`rehash`](UnorderedMap::rehash) to a larger capacity and insert again (Kokkos' pattern). Slots
/// of erased keys are reused only after a `rehash` or [`clear`](UnorderedMap::clear).
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::UnorderedMap;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// // The first i that gives each value of i * i % 97.
/// let first = UnorderedMap::<u64, u64>::new("first", 100)?;
/// parallel_for("insert", RangePolicy::new(&exec, 0, 1000)?, kernel!(|i| {
///     let k = (i * i % 97) as u64;
///     let r = first.insert(k, i as u64);
///     if r.failed() {
///         ferrokkos::abort("no room");
///     }
/// }))?;
/// assert_eq!(first.size()?, 49); // the squares mod 97
/// assert!(!first.failed_insert()?);
/// let mut entries = first.entries()?;
/// entries.sort();
/// assert_eq!(entries[0].0, 0);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub struct UnorderedMap<K: MapKey, V: MapValue = (), M: MemorySpace = HostSpace> {
    /// The table's words: the failed-insert flag (word 0), the slots' states, keys and values
    /// ([`Layout`]).
    table: View<u64, 1, LayoutRight, M>,
    capacity: usize,
    _entries: PhantomData<(K, V)>,
}

/// Where the parts of a table of `capacity` slots lie, in bytes from its start.
#[derive(Clone, Copy, Debug)]
struct Layout {
    states: usize,
    keys: usize,
    values: usize,
    /// The table's length in `u64` words.
    words: usize,
}

impl Layout {
    fn of<K: MapKey, V: MapValue>(capacity: usize) -> Layout {
        let up = |at: usize, align: usize| at.div_ceil(align) * align;
        let states = 8;
        let keys = up(states + 4 * capacity, align_of::<K>());
        let values = up(keys + size_of::<K>() * capacity, align_of::<V::Slot>());
        let stored = if V::STORED { capacity } else { 0 };
        let end = values + size_of::<V::Slot>() * stored;
        Layout {
            states,
            keys,
            values,
            words: end.div_ceil(8),
        }
    }
}

impl<K: MapKey, V: MapValue, M: MemorySpace> Clone for UnorderedMap<K, V, M> {
    /// Another handle of the same table (Kokkos' shallow copy).
    fn clone(&self) -> Self {
        UnorderedMap {
            table: self.table.clone(),
            capacity: self.capacity,
            _entries: PhantomData,
        }
    }
}

impl<K: MapKey, V: MapValue, M: MemorySpace> std::fmt::Debug for UnorderedMap<K, V, M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UnorderedMap")
            .field("label", &self.label())
            .field("capacity", &self.capacity)
            .field("space", &M::NAME)
            .finish()
    }
}

impl<K: MapKey, V: MapValue, M: MemorySpace> UnorderedMap<K, V, M> {
    /// An empty map `label` with room for at least `capacity_hint` keys (Kokkos'
    /// `UnorderedMap(capacity_hint)`): [`capacity`](UnorderedMap::capacity) is the hint rounded up
    /// to a power of two. `Err(Error::InvalidArgument)` past 2^31 slots, or for a value type
    /// aligned to more than 8 bytes.
    pub fn new(label: &str, capacity_hint: usize) -> Result<Self> {
        let capacity = capacity_hint.max(1).checked_next_power_of_two();
        let capacity = match capacity {
            Some(c) if c <= MAX_CAPACITY => c,
            _ => {
                return Err(invalid(
                    label,
                    format!("room for {capacity_hint} keys; a map has at most 2^31 slots"),
                ));
            }
        };
        if align_of::<V::Slot>() > 8 {
            return Err(invalid(
                label,
                format!(
                    "values aligned to {} bytes; a map stores values aligned to at most 8",
                    align_of::<V::Slot>()
                ),
            ));
        }
        Ok(UnorderedMap {
            table: View::new(label, [Layout::of::<K, V>(capacity).words])?,
            capacity,
            _entries: PhantomData,
        })
    }

    /// The number of slots: the most keys the map holds (Kokkos' `capacity()`).
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The label.
    pub fn label(&self) -> &str {
        self.table.label()
    }

    /// The table's bytes, read on the host after the work that uses the map.
    fn download(&self) -> Result<Vec<u8>> {
        let host = create_mirror_view(&self.table)?;
        deep_copy(&host, &self.table)?;
        Ok(host
            .to_vec()?
            .iter()
            .flat_map(|w| w.to_ne_bytes())
            .collect())
    }

    /// The number of keys in the map (Kokkos' `size()`).
    pub fn size(&self) -> Result<usize> {
        let bytes = self.download()?;
        Ok(Table::<K, V>::new(&bytes, self.capacity).valid().count())
    }

    /// Whether an insert found no free slot since the map was made, cleared or rehashed, or the
    /// flag was reset (Kokkos' `failed_insert()`).
    pub fn failed_insert(&self) -> Result<bool> {
        let host = View::<u64, 1>::new(self.label(), [1])?;
        deep_copy(&host, &subview(&self.table, 0..1)?)?;
        Ok(host.get(0)? != 0)
    }

    /// Forgets failed inserts (Kokkos' `reset_failed_insert_flag()`).
    pub fn reset_failed_insert(&self) -> Result<()> {
        deep_copy(&subview(&self.table, 0..1)?, 0u64)
    }

    /// Removes every key (Kokkos' `clear()`); the capacity stays.
    pub fn clear(&self) -> Result<()> {
        deep_copy(&self.table, 0u64)
    }

    /// Every key and its value, in slot order.
    pub fn entries(&self) -> Result<Vec<(K, V)>> {
        let bytes = self.download()?;
        let t = Table::<K, V>::new(&bytes, self.capacity);
        Ok(t.valid().map(|i| (t.key(i), t.value(i))).collect())
    }

    /// Moves the keys into a table of room for at least `capacity_hint` keys (Kokkos'
    /// `rehash(n)`), on the host; erased slots become free and the failed-insert flag is reset.
    /// `Err(Error::InvalidArgument)` when that is fewer slots than keys (then nothing changes).
    pub fn rehash(&mut self, capacity_hint: usize) -> Result<()> {
        let bytes = self.download()?;
        let old = Table::<K, V>::new(&bytes, self.capacity);
        let keys = old.valid().count();
        let grown = Self::new(self.label(), capacity_hint)?;
        if grown.capacity < keys {
            return Err(invalid(
                self.label(),
                format!(
                    "rehash to {} slots, fewer than its {keys} keys",
                    grown.capacity
                ),
            ));
        }
        let layout = Layout::of::<K, V>(grown.capacity);
        let mut out = vec![0u8; 8 * layout.words];
        let mask = grown.capacity - 1;
        for i in old.valid() {
            let k = old.key(i);
            let mut s = hash(k.bits()) as usize & mask;
            while read::<u32>(&out, layout.states + 4 * s) != 0 {
                s = (s + 1) & mask;
            }
            write(&mut out, layout.states + 4 * s, VALID);
            write(&mut out, layout.keys + size_of::<K>() * s, k);
            if V::STORED {
                let v: V::Slot = read(&bytes, old.layout.values + size_of::<V::Slot>() * i);
                write(&mut out, layout.values + size_of::<V::Slot>() * s, v);
            }
        }
        let host = View::<u64, 1>::new(self.label(), [layout.words])?;
        {
            let mut g = host.host_mut()?;
            for (k, w) in out.chunks_exact(8).enumerate() {
                g[k] = u64::from_ne_bytes(w.try_into().expect("8 bytes"));
            }
        }
        deep_copy(&grown.table, &host)?;
        *self = grown;
        Ok(())
    }

    /// Copies the keys and values of `src`, in any memory space, into this map (Kokkos'
    /// `deep_copy` of maps). `Err(Error::InvalidArgument)` naming both when their capacities
    /// differ; then nothing is copied.
    pub fn deep_copy_from<M2: MemorySpace>(&self, src: &UnorderedMap<K, V, M2>) -> Result<()> {
        if src.capacity != self.capacity {
            return Err(Error::InvalidArgument {
                operation: "UnorderedMap deep_copy",
                reason: format!(
                    "destination \"{}\" has {} slots, source \"{}\" has {}",
                    self.label(),
                    self.capacity,
                    src.label(),
                    src.capacity
                ),
            });
        }
        deep_copy(&self.table, &src.table)
    }

    /// The table's parts at `base`, the table's first word.
    fn parts(&self, base: *mut u64) -> MapParts<K, V::Slot> {
        let l = Layout::of::<K, V>(self.capacity);
        let at = |off: usize| base.cast::<u8>().wrapping_add(off);
        MapParts {
            states: at(l.states).cast(),
            keys: at(l.keys).cast(),
            values: at(l.values).cast(),
            capacity: self.capacity,
            failed: base.cast(),
        }
    }
}

/// A downloaded table.
struct Table<'w, K, V> {
    bytes: &'w [u8],
    capacity: usize,
    layout: Layout,
    _entries: PhantomData<(K, V)>,
}

impl<'w, K: MapKey, V: MapValue> Table<'w, K, V> {
    fn new(bytes: &'w [u8], capacity: usize) -> Self {
        Table {
            bytes,
            capacity,
            layout: Layout::of::<K, V>(capacity),
            _entries: PhantomData,
        }
    }

    /// The slots that hold a key.
    fn valid(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.capacity).filter(|&i| read::<u32>(self.bytes, self.layout.states + 4 * i) == VALID)
    }

    fn key(&self, i: usize) -> K {
        read(self.bytes, self.layout.keys + size_of::<K>() * i)
    }

    fn value(&self, i: usize) -> V {
        if V::STORED {
            V::from_slot(read(
                self.bytes,
                self.layout.values + size_of::<V::Slot>() * i,
            ))
        } else {
            V::from_slot(read(&[0u8], 0))
        }
    }
}

/// The `T` at byte `off` of a table's `bytes`, which hold there a `T` that a map stored or zero
/// bytes.
fn read<T: crate::kernel::value::DeviceValue>(bytes: &[u8], off: usize) -> T {
    assert!(
        off + size_of::<T>() <= bytes.len(),
        "a table read in bounds"
    );
    // SAFETY: in bounds (checked); the bytes are a `T` that a map stored there, or zero bytes (a
    // valid `T` by `Element`'s contract); the read is unaligned.
    unsafe { bytes.as_ptr().add(off).cast::<T>().read_unaligned() }
}

/// Writes `v` at byte `off` of a table's `bytes`.
fn write<T: crate::kernel::value::DeviceValue>(bytes: &mut [u8], off: usize, v: T) {
    assert!(
        off + size_of::<T>() <= bytes.len(),
        "a table write in bounds"
    );
    // SAFETY: in bounds (checked); the write is unaligned, into plain bytes.
    unsafe { bytes.as_mut_ptr().add(off).cast::<T>().write_unaligned(v) }
}

fn invalid(label: &str, what: String) -> Error {
    Error::InvalidArgument {
        operation: "UnorderedMap",
        reason: format!("\"{label}\": {what}"),
    }
}

/// A kernel captures a map as itself and calls its kernel methods.
impl<K: MapKey, V: MapValue, M: MemorySpace> IntoCapture for UnorderedMap<K, V, M> {
    type Value = UnorderedMap<K, V, M>;
    fn capture_value(&self) -> Self::Value {
        self.clone()
    }
}

impl<K: MapKey, V: MapValue, M: MemorySpace> SealedKernelValue for UnorderedMap<K, V, M> {}

impl<K: MapKey, V: MapValue, M: MemorySpace> KernelValue for UnorderedMap<K, V, M> {
    type Host<'a> = MapAccess<'a, K, V>;
    type Shadow = MapShadow<K, V>;
    /// Updated atomically, so borrowed exclusively: host code reads the table plainly, and the
    /// exclusive borrow makes it wait for the launch; the launch checks that its space reaches it.
    fn read_access(&self, name: &'static str) -> Option<ViewAccess<'_>> {
        Some(ViewAccess::of(name, &self.table, AccessMode::Atomic))
    }
    fn read_host<'a>(&'a self, _: &Borrowed) -> MapAccess<'a, K, V> {
        // SAFETY: the table holds `Layout::of(capacity)` (`new`), a power of two, so the parts lie
        // in it, aligned (the View's words are 8-aligned, values at most 8-aligned); the proof says
        // the launch holds it (host-accessible: a host launch checked it) while the accessor is
        // used, and within the launch only accessors touch it.
        unsafe { MapAccess::new(self.parts(self.table.as_mut_ptr())) }
    }
    fn read_shadow(&self, cxx_name: &str) -> MapShadow<K, V> {
        MapShadow::name(cxx_name)
    }
    fn read_cxx_type() -> String {
        MapShadow::<K, V>::cxx_type()
    }
    fn read_pack(&self, w: &mut ParamWriter<'_>) {
        let p = self.parts(self.table.as_mut_ptr());
        w.push([
            p.states as u64,
            p.keys as u64,
            if V::STORED { p.values as u64 } else { 0 },
            self.capacity as u64,
            p.failed as u64,
        ]);
    }
}

impl<K: MapKey, V: MapValue, M: MemorySpace> KernelScalar for UnorderedMap<K, V, M> {}
