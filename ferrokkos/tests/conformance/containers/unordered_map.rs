//! UnorderedMap: concurrent inserts store each key once with the value of exactly one of its
//! inserts, report success once per key and existing otherwise, lookups find every key and no
//! other, erase removes, a full map fails inserts and says so, and rehash keeps every entry. On
//! every space, against a `BTreeMap`; the C++ compiles with NVRTC and hiprtc.

use std::collections::{BTreeMap, BTreeSet};

use crate::common::check_device_code;
use crate::spaces::{SView, download};
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{Error, InsertResult, Result, UnorderedMap, kernel};

type SMap<S, K, V> = UnorderedMap<K, V, <S as ExecutionSpace>::MemorySpace>;

/// The key of iteration `i` (many iterations share one): 0..3000 spread over u64.
fn key(i: usize) -> u64 {
    ((i * 7919) % 3001) as u64 * 0x9e37_79b9
}

/// Each key's first insert succeeds, the others find it; its value is one of its inserters'.
fn concurrent_inserts_store_each_key_once<S: Launch>(exec: &S) -> Result<()> {
    let n = 60_000usize;
    let map = SMap::<S, u64, u64>::new("map", 4000)?;
    assert_eq!(map.capacity(), 4096);
    let status = SView::<S, u32, 1>::new("status", [n])?;
    parallel_for(
        "insert",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let k = ((i * 7919) % 3001) as u64 * 0x9e37_79b9;
            let r = map.insert(k, i as u64);
            let same = map.key_at(r.index()) == k && map.valid_at(r.index());
            status[i] = r.success() as u32 + 2 * r.existing() as u32 + 4 * same as u32;
        }),
    )?;
    let status = download(&status)?;
    let mut want: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for i in 0..n {
        want.entry(key(i)).or_default().push(i as u64);
    }
    let successes = status.iter().filter(|&&s| s & 1 != 0).count();
    assert_eq!(successes, want.len(), "one success per key");
    assert!(
        status.iter().all(|&s| s == 5 || s == 6),
        "success or existing, at the key's slot"
    );
    assert_eq!(map.size()?, want.len());
    assert!(!map.failed_insert()?);
    let entries = map.entries()?;
    assert_eq!(entries.len(), want.len());
    for (k, v) in entries {
        let inserters = &want[&k];
        assert!(
            inserters.contains(&v),
            "key {k}: value {v} from an inserter"
        );
    }
    Ok(())
}

per_space!(
    concurrent_inserts_store_each_key_once,
    concurrent_inserts_store_each_key_once
);

/// Lookups in a kernel: find/exists/value_at for present and absent keys; erase removes once.
fn lookups_and_erase_agree_with_a_btreemap<S: Launch>(exec: &S) -> Result<()> {
    let map = SMap::<S, i32, f64>::new("map", 1000)?;
    parallel_for(
        "insert evens",
        RangePolicy::new(exec, 0, 800)?,
        kernel!(|i| {
            let _ = map.insert((2 * i) as i32 - 400, i as f64 * 0.5);
        }),
    )?;
    let found = SView::<S, f64, 1>::new("found", [1600])?;
    let erased = SView::<S, u32, 1>::new("erased", [1600])?;
    parallel_for(
        "look up",
        RangePolicy::new(exec, 0, 1600)?,
        kernel!(|i| {
            let k = i as i32 - 400;
            let at = map.find(k);
            found[i] = if map.exists(k) {
                map.value_at(at)
            } else {
                -1.0
            };
            erased[i] = (k % 3 == 0 && map.erase(k)) as u32;
        }),
    )?;
    let (found, erased) = (download(&found)?, download(&erased)?);
    let mut left = BTreeMap::new();
    for i in 0..1600usize {
        let k = i as i32 - 400;
        let present = k % 2 == 0 && k < 1200;
        let v = if present {
            ((k + 400) / 2) as f64 * 0.5
        } else {
            -1.0
        };
        assert_eq!(found[i], v, "key {k}");
        assert_eq!(erased[i], (present && k % 3 == 0) as u32, "erase {k}");
        if present && k % 3 != 0 {
            left.insert(k, v);
        }
    }
    let got: BTreeMap<i32, f64> = map.entries()?.into_iter().collect();
    assert_eq!(got, left);
    // An erased key is absent, and inserting it again succeeds.
    let again = SView::<S, u32, 1>::new("again", [1])?;
    parallel_for(
        "again",
        RangePolicy::new(exec, 0, 1)?,
        kernel!(|i| {
            let r = map.insert(0, 9.0);
            again[i] = r.success() as u32 + 2 * (map.value_at(map.find(0)) == 9.0) as u32;
        }),
    )?;
    assert_eq!(download(&again)?, [3]);
    Ok(())
}

per_space!(
    lookups_and_erase_agree_with_a_btreemap,
    lookups_and_erase_agree_with_a_btreemap
);

/// A set (`()` values); a full one fails the extra inserts and says so; rehash to a larger
/// capacity keeps every key, and then the rest go in; clear empties it.
fn a_full_set_fails_then_rehash_makes_room<S: Launch>(exec: &S) -> Result<()> {
    let mut set = SMap::<S, u32, ()>::new("set", 64)?;
    let failed = SView::<S, u32, 1>::new("failed", [100])?;
    parallel_for(
        "insert 100",
        RangePolicy::new(exec, 0, 100)?,
        kernel!(|i| failed[i] = set.insert(i as u32 * 3).failed() as u32),
    )?;
    assert_eq!(download(&failed)?.iter().sum::<u32>(), 36);
    assert!(set.failed_insert()?);
    assert_eq!(set.size()?, 64);
    let kept: BTreeSet<u32> = set.entries()?.into_iter().map(|(k, ())| k).collect();
    set.rehash(128)?;
    assert_eq!(set.capacity(), 128);
    assert!(!set.failed_insert()?);
    let again: BTreeSet<u32> = set.entries()?.into_iter().map(|(k, ())| k).collect();
    assert_eq!(again, kept);
    parallel_for(
        "insert 100 again",
        RangePolicy::new(exec, 0, 100)?,
        kernel!(|i| failed[i] = set.insert(i as u32 * 3).failed() as u32),
    )?;
    assert_eq!(download(&failed)?.iter().sum::<u32>(), 0);
    let all: BTreeSet<u32> = set.entries()?.into_iter().map(|(k, ())| k).collect();
    assert_eq!(all, (0..100).map(|i| i * 3).collect());
    let e = set.rehash(64).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    assert!(e.to_string().contains("fewer than its 100 keys"), "{e}");
    assert_eq!(set.capacity(), 128);
    set.clear()?;
    assert_eq!(set.size()?, 0);
    Ok(())
}

per_space!(
    a_full_set_fails_then_rehash_makes_room,
    a_full_set_fails_then_rehash_makes_room
);

/// Maps copy between spaces (equal capacities only).
fn maps_copy_between_spaces<S: Launch>(exec: &S) -> Result<()> {
    let dev = SMap::<S, usize, u32>::new("dev", 16)?;
    parallel_for(
        "fill",
        RangePolicy::new(exec, 0, 10)?,
        kernel!(|i| {
            let _ = dev.insert(i * i, i as u32);
        }),
    )?;
    let host = UnorderedMap::<usize, u32, HostSpace>::new("host", 16)?;
    host.deep_copy_from(&dev)?;
    let mut got = host.entries()?;
    got.sort();
    assert_eq!(got, (0..10).map(|i| (i * i, i as u32)).collect::<Vec<_>>());
    let small = UnorderedMap::<usize, u32, HostSpace>::new("small", 8)?;
    let e = small.deep_copy_from(&dev).unwrap_err();
    assert!(
        e.to_string()
            .contains("destination \"small\" has 8 slots, source \"dev\" has 16"),
        "{e}"
    );
    Ok(())
}

per_space!(maps_copy_between_spaces, maps_copy_between_spaces);

/// The kernel's calls become `fk::map_*` calls on the `fk::UnorderedMap` parameter, which NVRTC
/// and hiprtc compile (a map and a set).
#[test]
fn map_kernels_compile_for_the_gpu() -> Result<()> {
    crate::common::runtime();
    let map = UnorderedMap::<i64, f32>::new("map", 64)?;
    let set = UnorderedMap::<u32>::new("set", 64)?;
    let y = View::<f32, 1>::new("y", [64])?;
    let k = kernel!(|i| {
        let r: InsertResult = map.insert(i as i64, 1.5);
        let s = set.insert(i as u32);
        let at = map.find(i as i64 - 1);
        let gone = map.erase(3);
        y[i] = map.value_at(at)
            + (r.success() && s.existing() && gone && map.exists(2)) as u32 as f32
            + map.key_at(r.index()) as f32
            + map.capacity() as f32
            + map.valid_at(at) as u32 as f32;
    });
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    assert!(
        text.contains("const fk::UnorderedMap<i64, f32> map"),
        "{text}"
    );
    assert!(
        text.contains("const fk::UnorderedMap<u32, u8> set"),
        "{text}"
    );
    assert!(text.contains("fk::map_insert(map, "), "{text}");
    assert!(text.contains("fk::map_find(map, "), "{text}");
    check_device_code(&tu);
    Ok(())
}

/// A functor struct holding a set and a Bitset (Kokkos' functor with container members): its
/// method inserts and marks like a kernel; a team kernel does the same per league rank.
struct Distinct<S: Launch> {
    seen: SMap<S, u32, ()>,
    marks: ferrokkos::Bitset<<S as ExecutionSpace>::MemorySpace>,
}

impl<S: Launch> Distinct<S> {
    #[ferrokkos::functor]
    fn add(&self, i: usize) {
        let k = (i % 97) as u32;
        if self.seen.insert(k).success() {
            self.marks.set(k as usize);
        }
    }
}

fn functor_members_and_team_kernels_use_containers<S: Launch>(exec: &S) -> Result<()> {
    let f = Distinct::<S> {
        seen: SMap::<S, u32, ()>::new("seen", 128)?,
        marks: ferrokkos::Bitset::new("marks", 128)?,
    };
    parallel_for("distinct", RangePolicy::new(exec, 0, 5000)?, f.add())?;
    assert_eq!((f.seen.size()?, f.marks.count()?), (97, 97));
    let teams = SMap::<S, u64, u64>::new("teams", 64)?;
    parallel_for(
        "per team",
        TeamPolicy::new(exec, 40, AUTO)?,
        kernel!(|team: &TeamMember| {
            let lr = team.league_rank();
            let _ = teams.insert((lr % 25) as u64, 1);
        }),
    )?;
    assert_eq!(teams.size()?, 25);
    Ok(())
}

per_space!(
    functor_members_and_team_kernels_use_containers,
    functor_members_and_team_kernels_use_containers
);
