//! Compiled kernels in memory: each (kernel, capture types, reducer, entry variant) is compiled by
//! the driver's run-time compiler for the device once per process, or loaded from its on-disk
//! cache ([`Driver::Compiler`]), and kept loaded until finalize (DESIGN.md decision 6).

use std::any::Any;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use super::codegen::{self, TranslationUnit};
use super::driver::{Compiler as _, DeviceInfo as _, Driver, Function as _, Module as _};
use super::fault::Faults;
use crate::dispatch::Obtained;
use crate::error::{Error, Result};
use crate::kernel::DeviceKey;

/// What identifies one compiled entry: the kernel's code, the reducer (reductions and scans) and
/// the entry variant (pattern, walk order, index width, captures by pointer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct JitKey {
    pub(crate) kernel: DeviceKey,
    pub(crate) reducer: &'static str,
    pub(crate) variant: u32,
}

impl JitKey {
    /// Equality by the types' identities and the names' addresses (a fast check that may miss equal
    /// keys whose names are stored twice; [`PartialEq`] then decides).
    fn same(&self, other: &JitKey) -> bool {
        let k = (&self.kernel, &other.kernel);
        k.0.hash == k.1.hash
            && k.0.line == k.1.line
            && k.0.column == k.1.column
            && self.variant == other.variant
            && k.0.type_id == k.1.type_id
            && std::ptr::eq(k.0.file, k.1.file)
            && std::ptr::eq(self.reducer, other.reducer)
    }
}

thread_local! {
    /// The last kernel this thread looked up (most launches repeat the previous one): weak, so that
    /// finalize still unloads it. A `Loaded` of the driver that looked it up.
    static LAST: std::cell::RefCell<Option<(JitKey, LastLoaded)>> =
        const { std::cell::RefCell::new(None) };
}

/// The weak handle of the last kernel a thread looked up (of whichever driver).
type LastLoaded = std::sync::Weak<dyn Any + Send + Sync>;

impl Hash for JitKey {
    // Hashes the capture types by their `TypeId` (a launch hashes its key, and the names are long)
    // and the reducer's name by its length and last bytes (its own name, after the path), never
    // by address: `type_name` gives equal names at different addresses from different call sites
    // (a launch and a preparation), which must find the same entry. Equality compares the names.
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.kernel.hash);
        state.write_u32(self.kernel.line);
        state.write_u32(self.kernel.column);
        self.kernel.type_id.hash(state);
        let name = self.reducer.as_bytes();
        state.write_usize(name.len());
        state.write(&name[name.len().saturating_sub(16)..]);
        state.write_u32(self.variant);
    }
}

/// A fast hasher for [`JitKey`] (the keys are few and not adversarial).
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(u64::from(v));
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}

/// An entry a launch or preparation asks for: its key, the suffix of its second entry (`"_join"`,
/// `"_prefix"`) and the dynamic shared memory each thread of the main entry needs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Wanted {
    pub(crate) key: JitKey,
    pub(crate) extra: Option<&'static str>,
    pub(crate) shared_per_thread: usize,
}

/// A loaded entry, with its launch configuration.
pub(crate) struct Loaded<D: Driver> {
    /// The main entry.
    pub(crate) main: D::Function,
    /// The second entry of a reduction (`_join`) or scan (`_prefix`).
    pub(crate) extra: Option<D::Function>,
    /// The block size the occupancy calculator suggests for `main`.
    pub(crate) block: u32,
    /// The grid that fills the device at that block size (resident blocks times multiprocessors).
    pub(crate) full_grid: u32,
    /// The last block size and dynamic shared memory a league of teams asked
    /// [`Loaded::resident_blocks`] for, and its answer (`block << 53 | shared << 32 | blocks`, when
    /// the block is below 2^11 threads and the memory below 2^21 bytes; 0: none yet).
    team_wave: AtomicU64,
    /// The dynamic shared memory `main` has been allowed beyond the default 48 KiB (0: none), see
    /// [`Loaded::allow_dynamic_shared`]; the lock orders the driver calls that raise it.
    dynamic_allowed: AtomicUsize,
    raising: Mutex<()>,
}

impl<D: Driver> Loaded<D> {
    /// How many blocks of `block` threads (a team's), each with `shared_bytes` of dynamic shared
    /// memory, are resident on one multiprocessor: an error naming both when none fits. The answer
    /// is kept for the last block size and memory asked (launches of one kernel mostly repeat
    /// theirs). Call [`Loaded::allow_dynamic_shared`] first for more than 48 KiB.
    pub(crate) fn resident_blocks(
        &self,
        block: u32,
        shared_bytes: usize,
        what: &dyn Fn() -> String,
    ) -> Result<u32> {
        let key = (block < 1 << 11 && shared_bytes < 1 << 21)
            .then(|| u64::from(block) << 53 | (shared_bytes as u64) << 32);
        let last = self.team_wave.load(Ordering::Relaxed);
        if let Some(key) = key
            && last != 0
            && last & !u64::from(u32::MAX) == key
        {
            return Ok(last as u32);
        }
        let blocks = self
            .main
            .max_active_blocks_per_sm(block, shared_bytes, what)?;
        if blocks == 0 {
            return Err(Error::Unsupported {
                what: what(),
                reason: format!(
                    "a block of {block} threads with {shared_bytes} bytes of dynamic shared memory \
                     does not fit on a multiprocessor for this kernel (its registers or shared \
                     memory); ask for a smaller team, less level-0 scratch, or AUTO"
                ),
            });
        }
        if let Some(key) = key {
            self.team_wave
                .store(key | u64::from(blocks), Ordering::Relaxed);
        }
        Ok(blocks)
    }

    /// Allows launches of `main` with `bytes` of dynamic shared memory per block: above the
    /// driver's default, raises the function's limit to `bytes` unless it allows that much already
    /// (so once per function and size, never lowered).
    pub(crate) fn allow_dynamic_shared(
        &self,
        bytes: usize,
        what: &dyn Fn() -> String,
    ) -> Result<()> {
        if bytes <= D::DEFAULT_DYNAMIC_SHARED
            || bytes <= self.dynamic_allowed.load(Ordering::Acquire)
        {
            return Ok(());
        }
        let _raising = self.raising.lock().unwrap_or_else(|e| e.into_inner());
        if bytes <= self.dynamic_allowed.load(Ordering::Acquire) {
            return Ok(());
        }
        self.main.set_max_dynamic_shared(bytes, what)?;
        self.dynamic_allowed.store(bytes, Ordering::Release);
        Ok(())
    }
}

/// How a process's kernels were obtained (see [`crate::Cuda::jit_stats`]): each time is from a
/// first launch's request to loaded code (generating the C++, compiling or reading the binary,
/// loading the module).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JitStats {
    /// Kernels compiled by the run-time compiler (NVRTC on Cuda) in this process.
    pub compiled: u64,
    /// Kernels loaded from the on-disk cache (not compiled).
    pub from_disk: u64,
    /// The first kernel compiled in this process (it also loads the compiler).
    pub first_compile: Duration,
    /// The slowest kernel compiled.
    pub slowest_compile: Duration,
    /// The slowest kernel loaded from the disk cache.
    pub slowest_from_disk: Duration,
}

/// The process's loaded kernels.
pub(crate) struct KernelCache<D: Driver> {
    map: RwLock<HashMap<JitKey, Arc<Loaded<D>>, BuildHasherDefault<KeyHasher>>>,
    builtin: Mutex<HashMap<&'static str, D::Function>>,
    /// The keys that [`KernelCache::prepare_batch`] jobs are compiling now.
    preparing: Mutex<HashSet<JitKey, BuildHasherDefault<KeyHasher>>>,
    disk: D::Compiler,
    compiled: AtomicU64,
    from_disk: AtomicU64,
    first_compile_ns: AtomicU64,
    slowest_compile_ns: AtomicU64,
    slowest_disk_ns: AtomicU64,
    /// The fault record that every loaded kernel reports out-of-bounds accesses to.
    faults: Arc<Faults<D>>,
}

impl<D: Driver> KernelCache<D> {
    /// An empty cache whose kernels report faults to `faults`.
    pub(crate) fn new(faults: Arc<Faults<D>>) -> KernelCache<D> {
        KernelCache {
            faults,
            map: RwLock::default(),
            builtin: Mutex::default(),
            preparing: Mutex::default(),
            disk: D::Compiler::from_env(),
            compiled: AtomicU64::new(0),
            from_disk: AtomicU64::new(0),
            first_compile_ns: AtomicU64::new(0),
            slowest_compile_ns: AtomicU64::new(0),
            slowest_disk_ns: AtomicU64::new(0),
        }
    }

    /// The loaded entry `wanted`, compiling or loading `unit()` on the first request.
    pub(crate) fn get(
        &self,
        ctx: &Arc<D::Context>,
        info: &D::DeviceInfo,
        wanted: Wanted,
        unit: impl FnOnce() -> Result<TranslationUnit>,
    ) -> Result<Arc<Loaded<D>>> {
        let key = wanted.key;
        let last = LAST.with(|l| match &*l.borrow() {
            Some((k, loaded)) if k.same(&key) => loaded.upgrade()?.downcast::<Loaded<D>>().ok(),
            _ => None,
        });
        if let Some(hit) = last {
            return Ok(hit);
        }
        let found = self
            .map
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .map(Arc::clone);
        if let Some(hit) = found {
            let weak: LastLoaded =
                Arc::downgrade(&(Arc::clone(&hit) as Arc<dyn Any + Send + Sync>));
            LAST.with(|l| *l.borrow_mut() = Some((key, weak)));
            return Ok(hit);
        }
        let unit = unit()?;
        self.load_entry(ctx, info, wanted, &unit)
            .map(|(loaded, _)| loaded)
    }

    /// Compiles (or loads from disk) and loads entries ahead of their first launch (see
    /// [`crate::Prepare`]), one result per item in order. Entries loaded already, or being
    /// prepared by another job, are left alone. Those not in the disk cache compile as one program (see
    /// `codegen::batch_program`), the others load alone. Should the batch fail to compile or load,
    /// each of its units is compiled alone, so that each gets its own result. The batch's program
    /// compiles on up to `threads` threads (NVRTC's split compilation); units alone on one.
    pub(crate) fn prepare_batch(
        &self,
        ctx: &Arc<D::Context>,
        info: &D::DeviceInfo,
        items: &[(Wanted, TranslationUnit)],
        threads: u32,
    ) -> Vec<Result<Obtained>> {
        let mut results: Vec<Option<Result<Obtained>>> = items.iter().map(|_| None).collect();
        let mut claimed = Vec::new();
        {
            let map = self.map.read().unwrap_or_else(|e| e.into_inner());
            let mut preparing = self.preparing.lock().unwrap_or_else(|e| e.into_inner());
            for (k, (wanted, _)) in items.iter().enumerate() {
                if map.contains_key(&wanted.key) || !preparing.insert(wanted.key) {
                    results[k] = Some(Ok(Obtained::AlreadyLoaded));
                } else {
                    claimed.push(k);
                }
            }
        }
        let alone = |k: usize| {
            let (wanted, unit) = &items[k];
            self.load_entry(ctx, info, *wanted, unit)
                .map(|(_, from_disk)| obtained(from_disk))
        };
        let mut together = Vec::new();
        for &k in &claimed {
            let (_, unit) = &items[k];
            let on_disk = || self.disk.has(&unit.source, &unit.program_name(), info);
            if claimed.len() == 1 || on_disk() {
                results[k] = Some(alone(k));
            } else {
                together.push(k);
            }
        }
        match together.len() {
            0 => {}
            1 => results[together[0]] = Some(alone(together[0])),
            _ => match self.load_batch(ctx, info, items, &together, threads) {
                Ok(from_disk) => {
                    for &k in &together {
                        results[k] = Some(Ok(obtained(from_disk)));
                    }
                }
                Err(_) => {
                    for &k in &together {
                        results[k] = Some(alone(k));
                    }
                }
            },
        }
        let mut preparing = self.preparing.lock().unwrap_or_else(|e| e.into_inner());
        for &k in &claimed {
            preparing.remove(&items[k].0.key);
        }
        results
            .into_iter()
            .map(|r| r.unwrap_or(Ok(Obtained::AlreadyLoaded)))
            .collect()
    }

    /// Compiles (or loads from disk) the units `which` of `items` as one program and keeps each
    /// entry under its key; says whether the program came from the disk cache. The program
    /// compiles on up to `threads` threads.
    fn load_batch(
        &self,
        ctx: &Arc<D::Context>,
        info: &D::DeviceInfo,
        items: &[(Wanted, TranslationUnit)],
        which: &[usize],
        threads: u32,
    ) -> Result<bool> {
        let start = Instant::now();
        let units: Vec<&TranslationUnit> = which.iter().map(|&k| &items[k].1).collect();
        let batch = codegen::batch_program(&units);
        let (module, from_disk) = self.load(ctx, info, &batch.source, &batch.program, threads)?;
        self.faults.attach_all(&module, || {
            which
                .iter()
                .map(|&k| describe(&items[k].0.key, &items[k].1))
                .collect()
        })?;
        let mut entries = Vec::with_capacity(which.len());
        for (&k, entry) in which.iter().zip(&batch.entries) {
            let wanted = items[k].0;
            entries.push((wanted.key, self.entry_of(&module, info, wanted, entry)?));
        }
        // One program, but each kernel counts (as the kernels a launch would have compiled).
        let others = which.len() as u64 - 1;
        if from_disk {
            self.from_disk.fetch_add(others, Ordering::Relaxed);
        } else {
            self.compiled.fetch_add(others, Ordering::Relaxed);
        }
        self.note_time(start.elapsed(), from_disk);
        let mut map = self.map.write().unwrap_or_else(|e| e.into_inner());
        for (key, loaded) in entries {
            map.entry(key).or_insert(loaded);
        }
        Ok(from_disk)
    }

    /// Compiles or loads `unit`, looks its entries up, and keeps them under `key`; says whether
    /// the CUBIN came from the disk cache.
    fn load_entry(
        &self,
        ctx: &Arc<D::Context>,
        info: &D::DeviceInfo,
        wanted: Wanted,
        unit: &TranslationUnit,
    ) -> Result<(Arc<Loaded<D>>, bool)> {
        let start = Instant::now();
        let (module, from_disk) = self.load(ctx, info, &unit.source, &unit.program_name(), 1)?;
        self.faults
            .attach(&module, || describe(&wanted.key, unit))?;
        let loaded = self.entry_of(&module, info, wanted, &unit.entry)?;
        self.note_time(start.elapsed(), from_disk);
        // A kernel prepared on two threads at once is compiled twice; the first one kept stays
        // (launches may already hold it).
        let mut map = self.map.write().unwrap_or_else(|e| e.into_inner());
        let kept = Arc::clone(map.entry(wanted.key).or_insert(loaded));
        Ok((kept, from_disk))
    }

    /// The loaded entry `wanted` of `module`, whose main entry is named `entry`.
    fn entry_of(
        &self,
        module: &Arc<D::Module>,
        info: &D::DeviceInfo,
        wanted: Wanted,
        entry: &str,
    ) -> Result<Arc<Loaded<D>>> {
        let what = || format!("loading kernel {entry}");
        let main = module.function(entry, what)?;
        let extra = match wanted.extra {
            Some(suffix) => Some(module.function(&format!("{entry}{suffix}"), what)?),
            None => None,
        };
        let (full_grid, block) =
            main.suggested_block_size(wanted.shared_per_thread, info.sm_count(), what)?;
        Ok(Arc::new(Loaded {
            main,
            extra,
            block: block.max(32),
            full_grid: full_grid.max(info.sm_count()),
            team_wave: AtomicU64::new(0),
            dynamic_allowed: AtomicUsize::new(0),
            raising: Mutex::new(()),
        }))
    }

    /// The built-in copy or fill kernel `entry` whose program is `source()` (each is its own
    /// program, compiled on first use).
    pub(crate) fn builtin(
        &self,
        ctx: &Arc<D::Context>,
        info: &D::DeviceInfo,
        entry: &'static str,
        source: impl FnOnce(&str) -> Option<String>,
    ) -> Result<D::Function> {
        let mut loaded = self.builtin.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(f) = loaded.get(entry) {
            return Ok(f.clone());
        }
        let start = Instant::now();
        let source = source(entry).ok_or_else(|| Error::InvalidArgument {
            operation: "deep_copy",
            reason: format!("{entry} is not a built-in kernel"),
        })?;
        let (module, from_disk) = self.load(ctx, info, &source, &format!("{entry}.cu"), 1)?;
        let f = module.function(entry, || format!("loading the built-in kernel {entry}"))?;
        self.note_time(start.elapsed(), from_disk);
        loaded.insert(entry, f.clone());
        Ok(f)
    }

    /// Compiles (on up to `threads` threads) or loads from disk, and loads, one program; says
    /// whether it came from disk.
    fn load(
        &self,
        ctx: &Arc<D::Context>,
        info: &D::DeviceInfo,
        source: &str,
        program: &str,
        threads: u32,
    ) -> Result<(Arc<D::Module>, bool)> {
        let start = crate::tools::trace_start();
        let (image, from_disk) = self.disk.compile_cached(source, program, info, threads)?;
        if from_disk {
            self.from_disk.fetch_add(1, Ordering::Relaxed);
        } else {
            self.compiled.fetch_add(1, Ordering::Relaxed);
        }
        let module = D::Module::load(ctx, &image, || {
            format!("loading the compiled program {program}")
        })?;
        // In the trace: from the request to loaded code, on the launching thread's lane.
        let how = if from_disk { "load" } else { "compile" };
        crate::tools::host_span("jit", &format!("{how} {program}"), start);
        Ok((module, from_disk))
    }

    fn note_time(&self, t: Duration, from_disk: bool) {
        let ns = t.as_nanos().min(u128::from(u64::MAX)) as u64;
        let slowest = if from_disk {
            &self.slowest_disk_ns
        } else {
            let _ =
                self.first_compile_ns
                    .compare_exchange(0, ns, Ordering::Relaxed, Ordering::Relaxed);
            &self.slowest_compile_ns
        };
        slowest.fetch_max(ns, Ordering::Relaxed);
    }

    /// How the kernels so far were obtained.
    pub(crate) fn stats(&self) -> JitStats {
        JitStats {
            compiled: self.compiled.load(Ordering::Relaxed),
            from_disk: self.from_disk.load(Ordering::Relaxed),
            first_compile: Duration::from_nanos(self.first_compile_ns.load(Ordering::Relaxed)),
            slowest_compile: Duration::from_nanos(self.slowest_compile_ns.load(Ordering::Relaxed)),
            slowest_from_disk: Duration::from_nanos(self.slowest_disk_ns.load(Ordering::Relaxed)),
        }
    }

    /// Unloads every kernel (at finalize).
    pub(crate) fn clear(&self) {
        self.map.write().unwrap_or_else(|e| e.into_inner()).clear();
        self.builtin
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }
}

/// How an entry was obtained, from whether its CUBIN came from the disk cache.
fn obtained(from_disk: bool) -> Obtained {
    if from_disk {
        Obtained::FromDisk
    } else {
        Obtained::Compiled
    }
}

/// The kernel of `key` as a fault report names it.
fn describe(key: &JitKey, unit: &TranslationUnit) -> String {
    let k = &key.kernel;
    format!(
        "the kernel at {}:{}:{} ({})",
        k.file, k.line, k.column, unit.entry
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    /// A launch and a preparation name the reducer through `type_name` at different call sites:
    /// equal names at different addresses are one key (same hash, equal).
    #[test]
    fn reducer_names_key_by_value_not_address() {
        let name = String::from("ferrokkos::reducer::basic::Sum<f64>");
        let other: &'static str = Box::leak(name.clone().into_boxed_str());
        let first: &'static str = Box::leak(name.into_boxed_str());
        assert!(!std::ptr::eq(first, other));
        let key = |reducer: &'static str| JitKey {
            kernel: DeviceKey {
                file: "k.rs",
                line: 3,
                column: 9,
                hash: 77,
                types: "()",
                type_id: std::any::TypeId::of::<u8>(),
            },
            reducer,
            variant: 1,
        };
        let (a, b) = (key(first), key(other));
        let hasher = BuildHasherDefault::<KeyHasher>::default();
        assert_eq!(hasher.hash_one(a), hasher.hash_one(b));
        assert_eq!(a, b);
        let mut map: HashMap<JitKey, u32, BuildHasherDefault<KeyHasher>> = HashMap::default();
        map.insert(a, 5);
        assert_eq!(map.get(&b), Some(&5));
        assert_ne!(
            hasher.hash_one(key("ferrokkos::reducer::basic::Max<f64>")),
            hasher.hash_one(a)
        );
    }
}
