//! The map workloads as ferrokkos runs them: into an `UnorderedMap`, or into a hand-written
//! open-addressing table (two atomic Views: keys, stored as key + 1 so that 0 is empty, and
//! values), the way a kernel author writes one without the container.

use ferrokkos::prelude::*;
use ferrokkos::traits::Launch;
use ferrokkos::{UnorderedMap, kernel};

use crate::Failure;

/// The key of insert `i` among `distinct` keys (a multiplicative hash: neighbouring iterations
/// insert scattered keys, and each key is inserted about n / distinct times).
#[ferrokkos::device]
pub fn key(i: usize, distinct: usize) -> u64 {
    ((i.wrapping_mul(2_654_435_761) >> 3) % distinct) as u64 * 2 + 1
}

/// The key of lookup `i`: every other one is a key inserted (odd), the others are not (even).
#[ferrokkos::device]
pub fn probe(i: usize, distinct: usize) -> u64 {
    ((i.wrapping_mul(40_503) >> 3) % distinct) as u64 * 2 + (i % 2) as u64
}

/// A key's value (the same from every insert of it, so any insert's is the one).
#[ferrokkos::device]
pub fn value(k: u64) -> u64 {
    k.wrapping_mul(3) + 7
}

/// The hand-written table's hash (MurmurHash3's finalizer, as the container's).
#[ferrokkos::device]
pub fn slot(k: u64) -> u64 {
    let mut x = k ^ (k >> 33);
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// Which table ferrokkos uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// `UnorderedMap<u64, u64>`.
    Container,
    /// Keys and values in atomic Views, by compare-exchange and linear probing.
    HandWritten,
}

impl Way {
    pub fn name(self) -> &'static str {
        match self {
            Way::Container => "UnorderedMap",
            Way::HandWritten => "hand-written table",
        }
    }
}

/// A table of `capacity` slots (a power of two) for one of the ways.
pub struct Tables<M: MemorySpace> {
    pub map: UnorderedMap<u64, u64, M>,
    pub keys: View<u64, 1, LayoutRight, M>,
    pub values: View<u64, 1, LayoutRight, M>,
}

impl<M: MemorySpace> Tables<M> {
    pub fn new(capacity: usize) -> Result<Self, Failure> {
        Ok(Tables {
            map: UnorderedMap::new("map", capacity)?,
            keys: View::new("keys", [capacity])?,
            values: View::new("values", [capacity])?,
        })
    }

    /// Empties the table of `way` (not timed).
    pub fn clear(&self, way: Way) -> Result<(), Failure> {
        match way {
            Way::Container => self.map.clear()?,
            Way::HandWritten => deep_copy(&self.keys, 0u64)?,
        }
        Ok(())
    }
}

/// `n` inserts of keys among `distinct`, finished when it returns; the number of keys stored.
pub fn insert<S: Launch>(
    exec: &S,
    way: Way,
    t: &Tables<S::MemorySpace>,
    n: usize,
    distinct: usize,
) -> Result<(), Failure> {
    let policy = RangePolicy::new(exec, 0, n)?;
    match way {
        Way::Container => {
            let map = &t.map;
            parallel_for(
                "map insert",
                policy,
                kernel!(|i| {
                    let k = key(i, distinct);
                    if map.insert(k, value(k)).failed() {
                        ferrokkos::abort("map: the UnorderedMap is full");
                    }
                }),
            )?;
        }
        Way::HandWritten => {
            let (keys, values) = (t.keys.atomic(), t.values.atomic());
            let mask = t.keys.extent(0) as u64 - 1;
            parallel_for(
                "table insert",
                policy,
                kernel!(|i| {
                    let k = key(i, distinct);
                    let mut s = slot(k) & mask;
                    loop {
                        let prev = keys.atomic_compare_exchange(s as usize, 0, k + 1);
                        if prev == 0 {
                            values.atomic_store(s as usize, value(k));
                            break;
                        }
                        if prev == k + 1 {
                            break;
                        }
                        s = (s + 1) & mask;
                    }
                }),
            )?;
        }
    }
    exec.fence("map insert")?;
    Ok(())
}

/// `n` lookups (half of them of keys not there): the sum of the values found.
pub fn lookup<S: Launch>(
    exec: &S,
    way: Way,
    t: &Tables<S::MemorySpace>,
    n: usize,
    distinct: usize,
) -> Result<u64, Failure> {
    let policy = RangePolicy::new(exec, 0, n)?;
    let mut sum = 0u64;
    match way {
        Way::Container => {
            let map = &t.map;
            parallel_reduce(
                "map lookup",
                policy,
                kernel!(|i, acc: &mut u64| {
                    let at = map.find(probe(i, distinct));
                    if map.valid_at(at) {
                        *acc += map.value_at(at);
                    }
                }),
                &mut sum,
            )?;
        }
        Way::HandWritten => {
            let (keys, values) = (&t.keys, &t.values);
            let mask = t.keys.extent(0) as u64 - 1;
            parallel_reduce(
                "table lookup",
                policy,
                kernel!(|i, acc: &mut u64| {
                    let k = probe(i, distinct);
                    let mut s = slot(k) & mask;
                    loop {
                        let got = keys[s as usize];
                        if got == k + 1 {
                            *acc += values[s as usize];
                            break;
                        }
                        if got == 0 {
                            break;
                        }
                        s = (s + 1) & mask;
                    }
                }),
                &mut sum,
            )?;
        }
    }
    Ok(sum)
}
