//! [`TeamPolicy`]: a league of teams of threads (Kokkos' hierarchical parallelism), with the sizes
//! that may be left to the space ([`AUTO`]) and the scratch memory each team asks for.

use super::range::Schedule;
use crate::error::{Error, Result};
use crate::space::ExecutionSpace;

/// Leaves a team size or a vector length to the execution space (Kokkos' `Kokkos::AUTO`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Auto;

/// Leaves a team size or a vector length to the execution space: `TeamPolicy::new(&exec, n, AUTO)`.
pub const AUTO: Auto = Auto;

/// A team size or a vector length: a number, or [`AUTO`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TeamSize {
    /// The space chooses (see each space's mapping in `docs/architecture.md`).
    Auto,
    /// This many (at least 1).
    Fixed(usize),
}

impl From<Auto> for TeamSize {
    fn from(_: Auto) -> TeamSize {
        TeamSize::Auto
    }
}

impl From<usize> for TeamSize {
    fn from(n: usize) -> TeamSize {
        TeamSize::Fixed(n)
    }
}

/// Per team: `PerTeam(bytes)` is a scratch request of `bytes` for each team
/// (`policy.set_scratch_size(0, PerTeam(1024))`), and `single(PerTeam(&team), ..)` runs once per
/// team (Kokkos uses one name for both).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PerTeam<T>(pub T);

/// Per thread: `PerThread(bytes)` is a scratch request of `bytes` for each thread of a team, and
/// `single(PerThread(&team), ..)` runs once per thread (not once per vector lane).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PerThread<T>(pub T);

/// The scratch memory a team asks for at one level: bytes for the team, plus bytes for each of its
/// threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ScratchRequest {
    /// Bytes shared by the team.
    pub per_team: usize,
    /// Bytes for each thread of the team.
    pub per_thread: usize,
}

impl ScratchRequest {
    /// The bytes one team of `team_size` threads needs: `per_team + per_thread * team_size`, or
    /// `None` if that overflows.
    pub fn total(&self, team_size: usize) -> Option<usize> {
        self.per_thread
            .checked_mul(team_size)?
            .checked_add(self.per_team)
    }
}

impl From<PerTeam<usize>> for ScratchRequest {
    fn from(r: PerTeam<usize>) -> ScratchRequest {
        ScratchRequest {
            per_team: r.0,
            per_thread: 0,
        }
    }
}

impl From<PerThread<usize>> for ScratchRequest {
    fn from(r: PerThread<usize>) -> ScratchRequest {
        ScratchRequest {
            per_team: 0,
            per_thread: r.0,
        }
    }
}

impl From<(PerTeam<usize>, PerThread<usize>)> for ScratchRequest {
    fn from((t, p): (PerTeam<usize>, PerThread<usize>)) -> ScratchRequest {
        ScratchRequest {
            per_team: t.0,
            per_thread: p.0,
        }
    }
}

/// The largest vector length a policy may ask for (Kokkos' limit on Cuda is the warp, 32; the host
/// spaces run a vector range as one loop whatever its length).
pub const MAX_VECTOR_LENGTH: usize = 1024;

/// `league_size` teams, each of `team_size` threads with `vector_length` vector lanes, run on the
/// execution-space instance `S` (Kokkos' `TeamPolicy`). The kernel runs once per team member
/// with a [`crate::TeamMember`] that gives its league rank, its team rank and the team's scratch
/// memory; nested ranges (`TeamThreadRange`, `ThreadVectorRange`, ...) split work within the team.
///
/// ```
/// use ferrokkos::prelude::*;
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let p = TeamPolicy::new(&exec, 100, AUTO)?.set_scratch_size(0, PerTeam(4096))?;
/// assert_eq!(p.league_size(), 100);
/// assert_eq!(p.scratch_size(0, 1), 4096);
/// let e = TeamPolicy::new(&exec, 100, 0).unwrap_err();
/// assert_eq!(e.to_string(), "invalid TeamPolicy: the team size must be at least 1");
/// # Ok::<(), ferrokkos::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct TeamPolicy<S: ExecutionSpace> {
    space: S,
    league_size: usize,
    team_size: TeamSize,
    vector_length: TeamSize,
    chunk: Option<usize>,
    schedule: Schedule,
    scratch: [ScratchRequest; 2],
}

/// [`Error::Policy`] for a `TeamPolicy`.
fn invalid(reason: String) -> Error {
    Error::Policy {
        policy: "TeamPolicy".into(),
        reason,
    }
}

impl<S: ExecutionSpace> TeamPolicy<S> {
    /// The same policy on the instance `space` (a graph node runs on the graph's instance).
    pub(crate) fn with_space(mut self, space: &S) -> Self {
        self.space = space.clone();
        self
    }

    /// `league_size` teams of `team_size` threads (a number or [`AUTO`]) on `space`, one vector lane
    /// each unless [`TeamPolicy::vector_length`] says otherwise. A team size of 0 is an error; a
    /// league of 0 teams is valid (its kernels never run and its reductions return the identity).
    pub fn new(space: &S, league_size: usize, team_size: impl Into<TeamSize>) -> Result<Self> {
        let team_size = team_size.into();
        if team_size == TeamSize::Fixed(0) {
            return Err(invalid("the team size must be at least 1".into()));
        }
        Ok(TeamPolicy {
            space: space.clone(),
            league_size,
            team_size,
            vector_length: TeamSize::Fixed(1),
            chunk: None,
            schedule: Schedule::Static,
            scratch: [ScratchRequest::default(); 2],
        })
    }

    /// Sets the vector length: a power of two up to [`MAX_VECTOR_LENGTH`], or [`AUTO`].
    pub fn vector_length(mut self, length: impl Into<TeamSize>) -> Result<Self> {
        let length = length.into();
        if let TeamSize::Fixed(n) = length
            && (n == 0 || !n.is_power_of_two() || n > MAX_VECTOR_LENGTH)
        {
            return Err(invalid(format!(
                "the vector length ({n}) must be a power of two from 1 to {MAX_VECTOR_LENGTH}"
            )));
        }
        self.vector_length = length;
        Ok(self)
    }

    /// Asks for scratch memory at `level` (0: small and fast, Cuda's shared memory; 1: larger, in
    /// the space's main memory): `PerTeam(bytes)`, `PerThread(bytes)` or both as a pair. Replaces
    /// the level's earlier request. A level other than 0 or 1 is an error; whether the space can
    /// give that much is checked at launch.
    pub fn set_scratch_size(
        mut self,
        level: usize,
        request: impl Into<ScratchRequest>,
    ) -> Result<Self> {
        let Some(slot) = self.scratch.get_mut(level) else {
            return Err(invalid(format!(
                "scratch level {level} does not exist (levels are 0 and 1)"
            )));
        };
        *slot = request.into();
        Ok(self)
    }

    /// Sets how many consecutive league ranks a host thread takes at a time (a hint, as in Kokkos).
    /// Zero is an error.
    pub fn chunk_size(mut self, chunk: usize) -> Result<Self> {
        if chunk == 0 {
            return Err(invalid("the chunk size must be at least 1".into()));
        }
        self.chunk = Some(chunk);
        Ok(self)
    }

    /// Sets how league ranks are handed to host threads (static by default).
    pub fn schedule(mut self, schedule: Schedule) -> Self {
        self.schedule = schedule;
        self
    }

    /// The number of teams.
    pub fn league_size(&self) -> usize {
        self.league_size
    }

    /// The team size asked for (the launch resolves [`AUTO`]; the kernel sees the size it got in
    /// `TeamMember::team_size`).
    pub fn team_size(&self) -> TeamSize {
        self.team_size
    }

    /// The vector length asked for.
    pub fn get_vector_length(&self) -> TeamSize {
        self.vector_length
    }

    /// The scratch request at `level` (the default, nothing, for a level other than 0 and 1).
    pub fn scratch_request(&self, level: usize) -> ScratchRequest {
        self.scratch.get(level).copied().unwrap_or_default()
    }

    /// The bytes of scratch memory one team of `team_size` threads gets at `level` (Kokkos'
    /// `scratch_size(level, team_size)`), saturating.
    pub fn scratch_size(&self, level: usize, team_size: usize) -> usize {
        self.scratch_request(level)
            .total(team_size)
            .unwrap_or(usize::MAX)
    }

    /// The chunk size, if one was set.
    pub fn get_chunk_size(&self) -> Option<usize> {
        self.chunk
    }

    /// The schedule.
    pub fn get_schedule(&self) -> Schedule {
        self.schedule
    }

    /// The execution-space instance the work runs on.
    pub fn space(&self) -> &S {
        &self.space
    }
}
