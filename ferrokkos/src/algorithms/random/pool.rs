//! [`RandomPool`]: Kokkos' `Random_XorShift64_Pool` and `Random_XorShift1024_Pool`, one generator
//! state per thread that runs at once, in the execution space's memory, which kernels take a state
//! of (`let mut rng = pool.get_state();`), draw from, and give back.

use std::marker::PhantomData;

use super::access::{PoolAccess, Words};
use super::generator::{Generator, XorShift64, XorShift1024, ZERO_SEED};
use super::shadow::PoolShadow;
use crate::error::{Error, Result};
use crate::kernel::capture::{Borrowed, Capture, IntoCapture, KernelRandomPool, PoolUse};
use crate::kernel::params::ParamWriter;
use crate::layout::LayoutRight;
use crate::space::ExecutionSpace;
use crate::space::host_space::HostSpace;
use crate::view::kernel_access::{AccessMode, ViewAccess};
use crate::view::{View, create_mirror_view_and_copy, deep_copy, subview, view_alloc};

/// The most states a pool has (Kokkos counts them in an `int`).
const MAX_STATES: usize = i32::MAX as usize;

/// States of generator `G` for the threads of execution space `S`: Kokkos' random pools. Name it as
/// [`RandomXorShift64Pool`] or [`RandomXorShift1024Pool`].
///
/// A kernel takes a state with `let mut rng = pool.get_state();`, draws from it (`rng.drand()`,
/// `rng.urand_below(n)`, `rng.normal()`, ... the methods of [`XorShift64`]) and gives it back with
/// `pool.free_state(rng);` (or at the end of its block: a held state is given back whatever way
/// the block ends). While an iteration holds a state no other thread touches it, so the draws need
/// no atomics and streams never interleave. An iteration holds one state of a pool at a time.
///
/// The states are seeded as Kokkos seeds them: a seed gives the same states, hence the same
/// streams, as Kokkos' pool of that generator, seed and number of states. Which state an iteration
/// gets depends on the thread that runs it: on Serial (one state) the numbers are Kokkos' Serial
/// numbers, on Threads and Cuda the same streams are spread over the iterations as the threads
/// come. A clone shares the states (Kokkos' shallow copy). A launch holds the pool's states
/// exclusively: launches on several instances that share a pool run one after the other on a GPU,
/// and on the host the second is refused with `Error::Borrow` (give each instance a pool of its
/// own, as `partition_space` users do).
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::RandomXorShift64Pool;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let pool = RandomXorShift64Pool::new(&exec, 12345)?;
/// // The fraction of points of the unit square inside the quarter circle: pi / 4.
/// let n = 200_000;
/// let inside: u64 = parallel_reduce(
///     "pi",
///     RangePolicy::new(&exec, 0, n)?,
///     kernel!(|_i, acc: &mut u64| {
///         let mut rng = pool.get_state();
///         let (x, y) = (rng.drand(), rng.drand());
///         if x * x + y * y <= 1.0 {
///             *acc += 1;
///         }
///         pool.free_state(rng);
///     }),
///     Sum::new(),
/// )?;
/// let pi = 4.0 * inside as f64 / n as f64;
/// assert!((pi - std::f64::consts::PI).abs() < 0.02);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub struct RandomPool<G: Generator, S: ExecutionSpace> {
    /// The states' words (`Words`): per state a lock word, then the generator's words.
    words: View<u64, 1, LayoutRight, S::MemorySpace>,
    states: usize,
    state_stride: usize,
    word_stride: usize,
    _gen: PhantomData<fn() -> (G, S)>,
}

/// Kokkos' `Random_XorShift64_Pool`: [`XorShift64`] states (8 bytes each).
pub type RandomXorShift64Pool<S> = RandomPool<XorShift64, S>;

/// Kokkos' `Random_XorShift1024_Pool`: [`XorShift1024`] states (136 bytes each, a period of
/// 2^1024 - 1).
pub type RandomXorShift1024Pool<S> = RandomPool<XorShift1024, S>;

impl<G: Generator, S: ExecutionSpace> Clone for RandomPool<G, S> {
    /// Another handle of the same states.
    fn clone(&self) -> Self {
        RandomPool {
            words: self.words.clone(),
            states: self.states,
            state_stride: self.state_stride,
            word_stride: self.word_stride,
            _gen: PhantomData,
        }
    }
}

impl<G: Generator, S: ExecutionSpace> std::fmt::Debug for RandomPool<G, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct(G::KOKKOS_NAME)
            .field("space", &S::NAME)
            .field("states", &self.states)
            .finish()
    }
}

impl<G: Generator, S: ExecutionSpace> RandomPool<G, S> {
    /// A pool of `exec.concurrency()` states seeded with `seed` (Kokkos' `Pool(seed)`; a seed of 0
    /// is taken as 1318319, as in Kokkos).
    pub fn new(exec: &S, seed: u64) -> Result<Self> {
        Self::with_states(exec, seed, exec.concurrency())
    }

    /// A pool of `states` states seeded with `seed` (Kokkos' `init(seed, num_states)`): fewer
    /// states than threads make threads wait for one another in `get_state`.
    /// `Err(Error::InvalidArgument)` for 0 states or more than 2^31 - 1.
    pub fn with_states(_exec: &S, seed: u64, states: usize) -> Result<Self> {
        if states == 0 || states > MAX_STATES {
            return Err(Error::InvalidArgument {
                operation: G::KOKKOS_NAME,
                reason: format!(
                    "a pool for {} has {states} states; it needs 1 to 2^31 - 1",
                    S::NAME
                ),
            });
        }
        let per_state = 1 + G::WORDS;
        // On a GPU word j of every state is together (a warp reads its threads' states at once);
        // on the host each state is whole, on cache lines of its own.
        let (state_stride, word_stride) = if S::DEVICE_TYPE.is_gpu() {
            (1, states)
        } else {
            (per_state.next_multiple_of(8), 1)
        };
        let len = states
            .checked_mul(per_state.max(state_stride))
            .ok_or_else(|| Error::InvalidArgument {
                operation: G::KOKKOS_NAME,
                reason: format!("{states} states do not fit in memory"),
            })?;
        let mut host = vec![0u64; len];
        let mut seeder = XorShift64::new(if seed == 0 { ZERO_SEED } else { seed });
        for _ in 0..17 {
            seeder.rand();
        }
        let mut buf = [0u64; 17];
        for i in 0..states {
            G::seeded(&mut seeder).store(&mut buf[..G::WORDS]);
            for (j, w) in buf[..G::WORDS].iter().enumerate() {
                host[i * state_stride + (1 + j) * word_stride] = *w;
            }
        }
        let words = View::new(
            view_alloc(format!("Kokkos::{}::state", G::KOKKOS_NAME)).without_initializing(),
            [len],
        )?;
        View::<u64, 1, LayoutRight, HostSpace>::with_slice("pool seeds", &mut host, [len], |s| {
            deep_copy(&words, s)
        })??;
        Ok(RandomPool {
            words,
            states,
            state_stride,
            word_stride,
            _gen: PhantomData,
        })
    }

    /// The number of states (Kokkos' `num_states()`).
    pub fn num_states(&self) -> usize {
        self.states
    }

    /// A copy of state `k` as it is now (after the work that used the pool so far), e.g. to check
    /// or to save a stream. `Err(Error::InvalidArgument)` for `k` past the states.
    pub fn state(&self, k: usize) -> Result<G> {
        if k >= self.states {
            return Err(Error::InvalidArgument {
                operation: G::KOKKOS_NAME,
                reason: format!("state {k} of a pool of {} states", self.states),
            });
        }
        let first = k * self.state_stride + self.word_stride;
        let mut buf = [0u64; 17];
        if self.word_stride == 1 {
            let span = subview(&self.words, (first..first + G::WORDS,))?;
            let host = create_mirror_view_and_copy(HostSpace, &span)?.to_vec()?;
            buf[..G::WORDS].copy_from_slice(&host);
        } else {
            // A GPU pool's words of one state are `states` apart: copied one by one.
            for (j, w) in buf[..G::WORDS].iter_mut().enumerate() {
                let at = first + j * self.word_stride;
                let one = subview(&self.words, (at..at + 1,))?;
                *w = create_mirror_view_and_copy(HostSpace, &one)?.to_vec()?[0];
            }
        }
        Ok(G::load(&buf[..G::WORDS]))
    }
}

impl<G: Generator, S: ExecutionSpace> IntoCapture for RandomPool<G, S> {
    type Value = RandomPool<G, S>;
    fn capture_value(&self) -> Self::Value {
        self.clone()
    }
}

impl<G: Generator, S: ExecutionSpace> crate::seal::Sealed for RandomPool<G, S> {}

impl<G: Generator, S: ExecutionSpace> KernelRandomPool for RandomPool<G, S> {}

impl<G: Generator, S: ExecutionSpace> crate::seal::Sealed for PoolUse<RandomPool<G, S>> {}

impl<G: Generator, S: ExecutionSpace> Capture for PoolUse<RandomPool<G, S>> {
    type Host<'a> = PoolAccess<'a, G>;
    type Shadow = PoolShadow<G>;
    fn name(&self) -> &'static str {
        self.name
    }
    /// Held exclusively: a state's words are read and written plainly by the iteration holding
    /// it, so no host code and no other launch may touch them during the launch (which checks
    /// that its space reaches them).
    fn access(&self) -> Option<ViewAccess<'_>> {
        Some(ViewAccess::of(
            self.name,
            &self.value.words,
            AccessMode::Atomic,
        ))
    }
    fn host<'a>(&'a self, _: &Borrowed) -> PoolAccess<'a, G> {
        let p = &self.value;
        // SAFETY: the words hold `states` states of `1 + G::WORDS` words as the strides say
        // (`with_states`); the proof says the launch holds them exclusively (host-accessible: a
        // host launch checked it) while the accessor is used; every lock is 0 between launches
        // (a held state is given back when its iteration ends, whatever way it ends).
        unsafe {
            PoolAccess::new(Words {
                base: p.words.as_mut_ptr(),
                states: p.states,
                state_stride: p.state_stride,
                word_stride: p.word_stride,
            })
        }
    }
    fn shadow(&self, cxx_name: &str) -> PoolShadow<G> {
        PoolShadow::name(cxx_name)
    }
    fn cxx_type() -> String {
        PoolShadow::<G>::cxx_type()
    }
    fn pack(&self, w: &mut ParamWriter<'_>) {
        let p = &self.value;
        w.push([
            p.words.as_ptr() as u64,
            p.states as u64,
            p.state_stride as u64,
            p.word_stride as u64,
        ]);
    }
}

/// Compile-time check that both generators fit the accessor's buffers.
const _: () = assert!(XorShift64::WORDS <= 17 && XorShift1024::WORDS <= 17);
