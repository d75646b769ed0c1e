//! Ahead-of-time compilation: [`Prepare`] collects kernels with the policies they will run over,
//! and compiles them for those policies' spaces on all cores before their first launch.
//!
//! A request asks the policy's launch seam ([`super::LaunchRange::prepare_range`],
//! [`super::LaunchMDRange::prepare_md`]) for a [`Job`]: the space chooses the compiled entry the
//! launch would need (the same choice, from the same policy and captures) and generates its code
//! at once; the job compiles and loads it later, on any thread. Host spaces compile nothing and
//! give no job.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{ParallelFor, ParallelReduce, ParallelScan};
use crate::error::Result;
use crate::kernel::DeviceKernel;
use crate::reducer::{ReduceTarget, Reducer, ReducerCxx, ReductionScalar, Sum};
use crate::seal::Token;

/// How a job obtained its compiled entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// Constructed by the Cuda backend's compilations (its `jit`) and by the tests; the host compiles nothing.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) enum Obtained {
    /// Compiled (NVRTC for Cuda).
    Compiled,
    /// Read from the on-disk kernel cache.
    FromDisk,
    /// Loaded before (by a launch or an earlier preparation), or being compiled by another job of
    /// the same preparation: nothing to do.
    AlreadyLoaded,
}

/// The reducer of a reduction or scan to prepare: its type's name (part of the compiled entry's
/// key) and its device description.
#[derive(Clone, Copy)]
// Read by the Cuda backend when it compiles a reduction or scan ahead of its launch.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) struct ReducerOf {
    pub(crate) name: &'static str,
    pub(crate) cxx: fn(Token) -> Option<ReducerCxx>,
}

impl ReducerOf {
    fn of<R: Reducer>() -> ReducerOf {
        ReducerOf {
            name: std::any::type_name::<R>(),
            cxx: R::device_cxx,
        }
    }
}

/// The pattern a kernel is prepared for.
#[derive(Clone, Copy)]
// The reducers are read by the Cuda backend, which compiles the pattern's entry.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) enum RequestPattern {
    For,
    Reduce(ReducerOf),
    Scan(ReducerOf),
}

impl RequestPattern {
    /// A `parallel_reduce` with the reducer `R`.
    pub(crate) fn reduce<R: Reducer>() -> Self {
        RequestPattern::Reduce(ReducerOf::of::<R>())
    }

    /// A `parallel_scan` with the reducer `R`.
    pub(crate) fn scan<R: Reducer>() -> Self {
        RequestPattern::Scan(ReducerOf::of::<R>())
    }
}

/// One kernel to prepare, as a launch seam receives it. Public only because the seams' methods
/// name it; no other crate can build one.
// Read by the Cuda backend's `prepare_range` / `prepare_md`; host spaces compile nothing.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub struct Request<'a> {
    pub(crate) label: &'a str,
    /// The kernel's device translation (`None` for closures and host-only functors).
    pub(crate) kernel: Option<&'a dyn DeviceKernel>,
    pub(crate) pattern: RequestPattern,
}

impl<'a> Request<'a> {
    /// The request of `kernel` (its device translation, if any) for `pattern`.
    pub(crate) fn new(
        label: &'a str,
        kernel: Option<&'a dyn DeviceKernel>,
        pattern: RequestPattern,
    ) -> Self {
        Request {
            label,
            kernel,
            pattern,
        }
    }
}

/// A compilation a space will do for a [`Prepare`]: it runs on any thread. Public only because the
/// seams' methods name it.
pub struct Job {
    work: Box<dyn Work>,
}

impl Job {
    /// A job that does `work` (the Cuda backend's compilations, and the tests' stand-ins).
    #[cfg(any(feature = "cuda", test))]
    pub(crate) fn new(work: impl Work + 'static) -> Job {
        Job {
            work: Box::new(work),
        }
    }
}

/// A backend's compilation of one or more kernels (what a [`Job`] holds): jobs of one device may
/// join into one work, which the backend compiles together.
pub(crate) trait Work: Send {
    /// Compiles and loads; one result per kernel, in the order they joined.
    fn run(self: Box<Self>) -> Vec<Result<Obtained>>;
    /// Takes `other`'s kernels into this work if they compile together (the same device), and
    /// gives `other` back otherwise.
    fn absorb(&mut self, other: Box<dyn Work>) -> Option<Box<dyn Work>>;
    /// The work as `Any` (for `absorb`; the Cuda backend's works recognize each other by it).
    #[cfg(any(feature = "cuda", test))]
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;
    /// This work's kernels in at most `threads` batches, each of at least about `per_batch`
    /// distinct kernels and about as much work as the others, with the positions of each batch's
    /// kernels in this work; each batch compiles on up to `program_threads` threads.
    fn split(
        self: Box<Self>,
        threads: usize,
        per_batch: usize,
        program_threads: usize,
    ) -> Vec<(Vec<usize>, Box<dyn Work>)>;
}

/// About how many kernels [`Prepare::compile`] gives each batch at least (when there are fewer
/// kernels than threads times this, it makes fewer batches): NVRTC's cost per program is about that
/// of compiling a small kernel, and on the GPU machine its threads do not scale past a few.
const KERNELS_PER_BATCH: usize = 3;

/// The threads each batch's program compiles on when `threads` compile in all: NVRTC parses C++ one
/// program at a time in a process but optimizes and generates a program's functions in parallel
/// (its split compilation), so a few batches of several threads each beat one batch per thread.
/// On an H100 machine's 16 cores, heat_cg's 21 kernels prepared truly cold in a median 0.41–0.48 s
/// as 4 or 5 batches of 3 or 4 threads, against 0.59–0.65 s as 7 batches of one thread; a
/// program of a single small kernel compiles slower split (2.6 s against 2.2 s for heat_cg's
/// kernels compiled one by one at their first launch), so launches never split.
fn program_threads(threads: usize) -> usize {
    (threads / 4).clamp(1, 4)
}

/// What [`Prepare::compile`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrepareReport {
    /// The jobs run: one per kernel prepared for a space that compiles kernels (Cuda); host
    /// spaces need none.
    pub jobs: usize,
    /// Entries compiled (by NVRTC for Cuda).
    pub compiled: usize,
    /// Entries read from the on-disk kernel cache.
    pub from_disk: usize,
    /// Entries loaded before (by a launch or an earlier preparation), or requested twice (the
    /// same kernel over the same kind of policy: one job compiles it).
    pub already_loaded: usize,
    /// The batches the jobs were compiled in: a space compiles the kernels of one batch together
    /// (Cuda: as one NVRTC program, except those in the disk cache or loaded already).
    pub batches: usize,
    /// The threads that compiled.
    pub threads: usize,
    /// From the start of [`Prepare::compile`] to its end.
    pub elapsed: Duration,
    /// The batches' times added up (`busy / elapsed` is how many ran at once on average).
    pub busy: Duration,
    /// The slowest batch.
    pub slowest: Duration,
}

/// Compiles kernels ahead of their first launch, many at once on all cores (beyond Kokkos, whose
/// kernels are compiled with the program).
///
/// A Cuda kernel is otherwise compiled at its first launch (or read from the on-disk cache), inside
/// whatever that launch is timed with. Name each kernel with the policy it will run over and the
/// pattern (for a reduction, its target; for a scan, its value type), then [`Prepare::compile`]:
/// the later launches find their code loaded. A kernel prepared for one policy and launched over
/// another may need another variant (a 64-bit index for more than 2^31 iterations, a tiled
/// MDRange), which that launch then compiles. Requests over host spaces are accepted and need no
/// compilation, so the same code serves every space.
///
/// ```
/// use ferrokkos::prelude::*;
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let (x, y) = (View::<f64, 1>::new("x", [100])?, View::<f64, 1>::new("y", [100])?);
/// let policy = RangePolicy::new(&exec, 0, 100)?;
/// let axpy = kernel!(|i| y[i] += 2.0 * x[i]);
/// let dot = kernel!(|i, acc: &mut f64| *acc += x[i] * y[i]);
///
/// let report = Prepare::new()
///     .parallel_for("axpy", &policy, &axpy)?
///     .parallel_reduce("dot", &policy, &dot, Sum::<f64>::new())?
///     .compile()?;
/// assert_eq!(report.jobs, 0); // host spaces compile nothing
///
/// deep_copy(&x, 1.0)?;
/// parallel_for("axpy", policy.clone(), axpy)?;
/// assert_eq!(parallel_reduce("dot", policy, dot, Sum::new())?, 200.0);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
#[derive(Default)]
pub struct Prepare {
    jobs: Vec<Job>,
    /// At most this many compiling threads (`None`: one per core).
    threads: Option<usize>,
}

impl std::fmt::Debug for Prepare {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepare")
            .field("jobs", &self.jobs.len())
            .finish()
    }
}

impl Prepare {
    /// No kernels yet.
    pub fn new() -> Prepare {
        Prepare::default()
    }

    /// Adds `kernel` as [`crate::parallel_for`] will run it over `policy`. The kernel's code is
    /// generated now; an `Err` names what cannot run there (a closure on Cuda, say).
    pub fn parallel_for<P, K>(&mut self, label: &str, policy: &P, kernel: &K) -> Result<&mut Self>
    where
        P: ParallelFor<K>,
    {
        self.add(policy.prepare_for(label, kernel, Token::new()))
    }

    /// Adds `kernel` as [`crate::parallel_reduce`] will run it over `policy` into a target of
    /// `target`'s type (only its reducer matters; nothing is written to it).
    pub fn parallel_reduce<P, K, T>(
        &mut self,
        label: &str,
        policy: &P,
        kernel: &K,
        target: T,
    ) -> Result<&mut Self>
    where
        T: ReduceTarget,
        P: ParallelReduce<K, T>,
    {
        drop(target);
        self.add(policy.prepare_reduce(label, kernel, Token::new()))
    }

    /// Adds the scan `kernel` as [`crate::parallel_scan`] will run it over `policy`.
    pub fn parallel_scan<P, K, V>(
        &mut self,
        label: &str,
        policy: &P,
        kernel: &K,
    ) -> Result<&mut Self>
    where
        V: ReductionScalar,
        P: ParallelScan<K, Sum<V>>,
    {
        self.add(policy.prepare_scan(label, kernel, Token::new()))
    }

    /// Adds the scan `kernel` as [`crate::parallel_scan_with`] will run it with a reducer of
    /// `reducer`'s type.
    pub fn parallel_scan_with<P, K, Rd>(
        &mut self,
        label: &str,
        policy: &P,
        kernel: &K,
        reducer: &Rd,
    ) -> Result<&mut Self>
    where
        Rd: Reducer,
        P: ParallelScan<K, Rd>,
    {
        let _ = reducer;
        self.add(policy.prepare_scan(label, kernel, Token::new()))
    }

    /// Keeps the job a request gave, if any.
    fn add(&mut self, job: Result<Option<Job>>) -> Result<&mut Self> {
        self.jobs.extend(job?);
        Ok(self)
    }

    /// Compiles on at most `n` threads (at least one; by default one per core). Each compilation
    /// holds its compiler's memory (NVRTC: a few hundred MB) while it runs.
    pub fn max_threads(&mut self, n: usize) -> &mut Self {
        self.threads = Some(n.max(1));
        self
    }

    /// The compilations waiting for [`Prepare::compile`].
    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    /// Whether nothing waits to be compiled.
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Compiles and loads every kernel added since the last call, and returns when all are loaded.
    /// The kernels are dealt into batches (at least about three distinct kernels each, balanced
    /// by the size of their code), which compile at once; each batch compiles its kernels together
    /// as one program, itself on several threads where there are enough (NVRTC's split
    /// compilation: on 16 cores, 4 batches of 4 threads), using as many threads in all as the
    /// machine has cores (or [`Prepare::max_threads`]). Every kernel is
    /// compiled even when one fails; the error returned is the first one in the order the kernels
    /// were added.
    pub fn compile(&mut self) -> Result<PrepareReport> {
        let start = Instant::now();
        let jobs = std::mem::take(&mut self.jobs);
        let count = jobs.len();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads = self.threads.unwrap_or(cores).max(1);
        // The jobs of each device join into one work, which the backend splits into batches.
        let mut groups: Vec<(Vec<usize>, Box<dyn Work>)> = Vec::new();
        for (n, job) in jobs.into_iter().enumerate() {
            let mut work = Some(job.work);
            for (indices, group) in &mut groups {
                let Some(w) = work.take() else { break };
                match group.absorb(w) {
                    None => indices.push(n),
                    Some(w) => work = Some(w),
                }
            }
            if let Some(w) = work {
                groups.push((vec![n], w));
            }
        }
        let per_program = program_threads(threads);
        let programs = (threads / per_program).max(1);
        let mut batches: Vec<(Vec<usize>, Box<dyn Work>)> = Vec::new();
        for (indices, work) in groups {
            for (positions, w) in work.split(programs, KERNELS_PER_BATCH, per_program) {
                batches.push((positions.into_iter().map(|p| indices[p]).collect(), w));
            }
        }
        let batch_count = batches.len();
        let threads = threads.min(batch_count);
        let queue = Mutex::new(batches.into_iter());
        let results = Mutex::new(Vec::with_capacity(count));
        let times = Mutex::new(Vec::with_capacity(batch_count));
        let work = || {
            loop {
                let next = queue.lock().unwrap_or_else(|e| e.into_inner()).next();
                let Some((indices, work)) = next else { break };
                let start = Instant::now();
                let done = work.run();
                times
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(start.elapsed());
                results
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .extend(indices.into_iter().zip(done));
            }
        };
        if threads <= 1 {
            work();
        } else {
            std::thread::scope(|s| {
                for _ in 0..threads {
                    s.spawn(work);
                }
            });
        }
        let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
        results.sort_by_key(|(n, _)| *n);
        let times = times.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut report = PrepareReport {
            jobs: count,
            compiled: 0,
            from_disk: 0,
            already_loaded: 0,
            batches: batch_count,
            threads,
            elapsed: Duration::ZERO,
            busy: times.iter().sum(),
            slowest: times.iter().copied().max().unwrap_or_default(),
        };
        for (_, done) in results {
            match done? {
                Obtained::Compiled => report.compiled += 1,
                Obtained::FromDisk => report.from_disk += 1,
                Obtained::AlreadyLoaded => report.already_loaded += 1,
            }
        }
        report.elapsed = start.elapsed();
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    /// Kernels of a pretend device `device`, named by number; `bad` ones fail to compile.
    struct Fake {
        device: u32,
        kernels: Vec<(u32, bool)>,
        batches: std::sync::Arc<Mutex<Vec<Vec<u32>>>>,
    }

    impl Work for Fake {
        fn run(self: Box<Self>) -> Vec<Result<Obtained>> {
            let names = self.kernels.iter().map(|(k, _)| *k).collect();
            self.batches.lock().unwrap().push(names);
            self.kernels
                .iter()
                .map(|&(k, bad)| {
                    if bad {
                        Err(Error::InvalidArgument {
                            operation: "compile",
                            reason: format!("kernel {k}"),
                        })
                    } else {
                        Ok(Obtained::Compiled)
                    }
                })
                .collect()
        }
        fn absorb(&mut self, mut other: Box<dyn Work>) -> Option<Box<dyn Work>> {
            match other.as_any_mut().downcast_mut::<Fake>() {
                Some(o) if o.device == self.device => {
                    self.kernels.append(&mut o.kernels);
                    None
                }
                _ => Some(other),
            }
        }
        fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
            self
        }
        fn split(
            self: Box<Self>,
            threads: usize,
            per_batch: usize,
            _program_threads: usize,
        ) -> Vec<(Vec<usize>, Box<dyn Work>)> {
            let n = threads.min(self.kernels.len().div_ceil(per_batch)).max(1);
            (0..n)
                .map(|b| {
                    let positions: Vec<usize> = (b..self.kernels.len()).step_by(n).collect();
                    let work = Fake {
                        device: self.device,
                        kernels: positions.iter().map(|&p| self.kernels[p]).collect(),
                        batches: self.batches.clone(),
                    };
                    (positions, Box::new(work) as Box<dyn Work>)
                })
                .collect()
        }
    }

    /// Jobs of one device join and are split into batches of about three; another device's jobs
    /// are batched apart; every job runs, and the error is the first failing job's in the order
    /// they were added (not the order batches ran in).
    #[test]
    fn jobs_join_per_device_split_into_batches_and_report_in_order() {
        let batches = std::sync::Arc::new(Mutex::new(Vec::new()));
        let mut prep = Prepare::new();
        for k in 0..9u32 {
            let job = Job::new(Fake {
                device: k % 3 / 2, // kernels 2, 5, 8 on device 1
                kernels: vec![(k, k == 4 || k == 7)],
                batches: batches.clone(),
            });
            prep.jobs.push(job);
        }
        prep.max_threads(4);
        match prep.compile() {
            Err(Error::InvalidArgument { reason, .. }) => assert_eq!(reason, "kernel 4"),
            other => panic!("expected kernel 4's error, got {other:?}"),
        }
        let mut ran = batches.lock().unwrap().clone();
        ran.sort();
        // Device 0: kernels 0 1 3 4 6 7 in two batches; device 1: 2 5 8 in one.
        assert_eq!(ran, vec![vec![0, 3, 6], vec![1, 4, 7], vec![2, 5, 8]]);

        let mut prep = Prepare::new();
        for k in 0..5u32 {
            prep.jobs.push(Job::new(Fake {
                device: 0,
                kernels: vec![(k, false)],
                batches: batches.clone(),
            }));
        }
        let report = prep.compile().unwrap();
        assert_eq!((report.jobs, report.compiled, report.batches), (5, 5, 2));
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(report.threads, cores.min(2));
    }
}
