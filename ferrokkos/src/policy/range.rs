//! [`RangePolicy`]: a one-dimensional range of iterations on an execution-space instance.

use super::index::IndexType;
use crate::error::{Error, Result};
use crate::space::ExecutionSpace;

/// How iterations are handed to threads (Kokkos' `Schedule<Static>` / `Schedule<Dynamic>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Schedule {
    /// Each thread gets a fixed share decided before the launch: one contiguous block per thread, or,
    /// with a chunk size, chunks dealt round-robin. The cheapest schedule and the default.
    #[default]
    Static,
    /// Threads take chunks from a shared counter as they finish their previous one, which balances
    /// uneven iterations at the price of one atomic operation per chunk.
    Dynamic,
}

/// The iterations `begin..end` of a kernel, run on the execution-space instance `S`.
///
/// The index type `I` is any [`IndexType`] (`usize` by default; signed types allow negative
/// bounds). Iteration `i` is passed to the kernel as an `I`.
///
/// ```
/// use ferrokkos::prelude::*;
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let p = RangePolicy::new(&exec, 10, 20)?.schedule(Schedule::Dynamic).chunk_size(4)?;
/// assert_eq!((p.begin(), p.end(), p.len(), p.get_chunk_size()), (10, 20, 10, Some(4)));
///
/// let e = RangePolicy::new(&exec, 100, 90).unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "invalid RangePolicy: lower bound (100) is greater than the upper bound (90)"
/// );
/// # Ok::<(), ferrokkos::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct RangePolicy<S: ExecutionSpace, I: IndexType = usize> {
    space: S,
    begin: I,
    end: I,
    chunk: Option<u64>,
    schedule: Schedule,
}

impl<S: ExecutionSpace, I: IndexType> RangePolicy<S, I> {
    /// The same policy on the instance `space` (a graph node runs on the graph's instance).
    pub(crate) fn with_space(mut self, space: &S) -> Self {
        self.space = space.clone();
        self
    }

    /// The iterations `begin..end` on `space`. An error if `begin > end` (an empty range, `begin ==
    /// end`, is valid: its kernels never run and its reductions return the identity).
    pub fn new(space: &S, begin: I, end: I) -> Result<Self> {
        if begin > end {
            return Err(Error::Policy {
                policy: "RangePolicy".into(),
                reason: format!("lower bound ({begin}) is greater than the upper bound ({end})"),
            });
        }
        Ok(RangePolicy {
            space: space.clone(),
            begin,
            end,
            chunk: None,
            schedule: Schedule::Static,
        })
    }

    /// Sets how many consecutive iterations a thread takes at a time. A hint, as in Kokkos: reductions
    /// and scans with very many chunks merge them so that at most a few thousand partial results exist.
    /// Zero is an error.
    pub fn chunk_size(mut self, chunk: usize) -> Result<Self> {
        if chunk == 0 {
            return Err(Error::Policy {
                policy: "RangePolicy".into(),
                reason: "the chunk size must be at least 1".into(),
            });
        }
        self.chunk = Some(chunk as u64);
        Ok(self)
    }

    /// Sets the schedule (static by default).
    pub fn schedule(mut self, schedule: Schedule) -> Self {
        self.schedule = schedule;
        self
    }

    /// The first iteration.
    pub fn begin(&self) -> I {
        self.begin
    }

    /// One past the last iteration.
    pub fn end(&self) -> I {
        self.end
    }

    /// The number of iterations.
    pub fn len(&self) -> u64 {
        I::distance(self.begin, self.end)
    }

    /// Whether the range has no iterations.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The chunk size, if one was set.
    pub fn get_chunk_size(&self) -> Option<usize> {
        self.chunk.map(|c| c as usize)
    }

    /// The schedule.
    pub fn get_schedule(&self) -> Schedule {
        self.schedule
    }

    /// The execution-space instance the work runs on.
    pub fn space(&self) -> &S {
        &self.space
    }

    pub(crate) fn chunk(&self) -> Option<u64> {
        self.chunk
    }
}
