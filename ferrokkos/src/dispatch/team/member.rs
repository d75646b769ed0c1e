//! [`TeamMember`]: what a team kernel gets on the host spaces (Kokkos' `TeamPolicy::member_type`).
//!
//! On Serial and Threads a team is one thread (`team_size()` is 1, as on Kokkos' Serial): the
//! team's threads and vector lanes are the iterations of plain loops, so `team_barrier` has nothing
//! to wait for and a broadcast is the value itself. The member borrows its scratch arenas for one
//! league rank; it is neither `Send` nor `Sync`, so it stays on the thread running the team.

use super::scratch::ScratchArena;

/// One thread of one team of a [`crate::TeamPolicy`] launch: its league rank, its team rank, the
/// team's and its own scratch memory, and the team's collectives.
///
/// ```
/// use ferrokkos::prelude::*;
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// // The sum over teams of each team's sum of 0..10 (Kokkos' nested reduction).
/// let total = parallel_reduce(
///     "teams",
///     TeamPolicy::new(&exec, 4, AUTO)?,
///     |team: &TeamMember, acc: &mut u64| {
///         let part = TeamThreadRange::new(team, 0u64, 10).parallel_reduce(|i, s: &mut u64| *s += i, Sum::new());
///         single(PerTeam(team), || *acc += part);
///     },
///     Sum::new(),
/// )?;
/// assert_eq!(total, 4 * 45);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub struct TeamMember<'a> {
    league_rank: usize,
    league_size: usize,
    vector_length: usize,
    /// Levels 0 and 1, then an empty arena for any other level.
    team_scratch: [ScratchArena<'a>; 3],
    thread_scratch: [ScratchArena<'a>; 3],
}

impl<'a> TeamMember<'a> {
    /// The member running `league_rank` of `league_size` with the given arenas (levels 0, 1, and an
    /// empty one for other levels).
    pub(crate) fn new(
        league_rank: usize,
        league_size: usize,
        vector_length: usize,
        team_scratch: [ScratchArena<'a>; 3],
        thread_scratch: [ScratchArena<'a>; 3],
    ) -> Self {
        TeamMember {
            league_rank,
            league_size,
            vector_length,
            team_scratch,
            thread_scratch,
        }
    }

    /// This team's index in the league, `0..league_size()`.
    pub fn league_rank(&self) -> usize {
        self.league_rank
    }

    /// The number of teams.
    pub fn league_size(&self) -> usize {
        self.league_size
    }

    /// This thread's index in its team, `0..team_size()` (always 0 on the host spaces).
    pub fn team_rank(&self) -> usize {
        0
    }

    /// The number of threads in a team (1 on the host spaces).
    pub fn team_size(&self) -> usize {
        1
    }

    /// The vector length the launch gave the team (the host spaces run vector ranges as loops
    /// whatever it is).
    pub fn vector_length(&self) -> usize {
        self.vector_length
    }

    /// Waits until every thread of the team has reached it (nothing to wait for on the host spaces,
    /// where a team is one thread).
    pub fn team_barrier(&self) {}

    /// The team's scratch memory at `level` (0 or 1), shared by its threads; views are carved from
    /// it with [`ScratchArena::view`]. Another level gives an arena with no room.
    pub fn team_scratch(&self, level: usize) -> &ScratchArena<'a> {
        &self.team_scratch[level.min(2)]
    }

    /// This thread's own scratch memory at `level` (the `PerThread` part of the request).
    pub fn thread_scratch(&self, level: usize) -> &ScratchArena<'a> {
        &self.thread_scratch[level.min(2)]
    }

    /// `value` as the thread of team rank `source` has it, on every thread of the team (Kokkos'
    /// `team_broadcast`). On the host spaces a team is one thread: `value` itself.
    ///
    /// # Panics
    /// If `source` is not a team rank (at least [`TeamMember::team_size`]), as an index out of
    /// bounds panics: there is no such thread to take the value from. (On a GPU the kernel records
    /// a fault instead, which the next wait for the device returns as
    /// [`crate::Error::DeviceOutOfBounds`].)
    pub fn team_broadcast<T: Clone>(&self, value: T, source: usize) -> T {
        let size = self.team_size();
        assert!(
            source < size,
            "team_broadcast from team rank {source}, but the team has {size} thread{}",
            if size == 1 { "" } else { "s" }
        );
        value
    }
}
