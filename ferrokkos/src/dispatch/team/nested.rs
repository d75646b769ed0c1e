//! The nested ranges of a team kernel (Kokkos' `TeamThreadRange`, `ThreadVectorRange`,
//! `TeamVectorRange`, `TeamThreadMDRange`) and their patterns, and `single`, on the host spaces.
//!
//! A range splits its iterations over the team's threads (`TeamThreadRange`), over one thread's
//! vector lanes (`ThreadVectorRange`) or over both (`TeamVectorRange`). On the host spaces a team
//! is one thread with one lane, so each runs as one loop that the compiler may vectorize, and
//! every thread of the team (the one) gets a nested reduction's or scan's result, as in Kokkos.
//! Kokkos' `parallel_for(TeamThreadRange(team, n), f)` is written
//! `TeamThreadRange::new(team, 0, n).parallel_for(f)` (Rust has no overloading on the argument
//! count, and the top-level `parallel_for` takes a label).

use super::member::TeamMember;
use crate::policy::{IndexTuple, IndexType, PerTeam, PerThread};
use crate::reducer::Reducer;

/// The iterations of `begin..end` (none when `begin >= end`), in order.
fn indices<I: IndexType>(begin: I, end: I) -> impl Iterator<Item = I> {
    let n = if begin < end {
        I::distance(begin, end)
    } else {
        0
    };
    (0..n).map(move |k| begin.advance(k))
}

macro_rules! nested_range {
    ($(#[$doc:meta])* $name:ident, $kokkos:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub struct $name<'t, 'a, I: IndexType = usize> {
            team: &'t TeamMember<'a>,
            begin: I,
            end: I,
        }

        impl<'t, 'a, I: IndexType> $name<'t, 'a, I> {
            #[doc = concat!("The iterations `begin..end` (none when `begin >= end`) of `team`, \
                             as Kokkos' `", $kokkos, "(team, begin, end)`.")]
            pub fn new(team: &'t TeamMember<'a>, begin: I, end: I) -> Self {
                $name { team, begin, end }
            }

            /// The team the range belongs to.
            pub fn team(&self) -> &'t TeamMember<'a> {
                self.team
            }

            /// Runs `f` once for each iteration.
            #[inline]
            pub fn parallel_for(self, f: impl Fn(I)) {
                for i in indices(self.begin, self.end) {
                    f(i);
                }
            }

            /// Runs `f` once for each iteration, each contributing to an accumulator of
            /// `reducer`'s, and returns the joined, finalized result on every thread of the team.
            /// An empty range gives the reducer's identity (finalized).
            #[inline]
            pub fn parallel_reduce<R: Reducer>(self, f: impl Fn(I, &mut R::Value), reducer: R) -> R::Value {
                let mut acc = reducer.init();
                for i in indices(self.begin, self.end) {
                    f(i, &mut acc);
                }
                reducer.finalize(&mut acc);
                acc
            }

            /// A scan over the iterations (Kokkos' nested `parallel_scan`): `f(i, partial, is_final)`
            /// gets the exclusive prefix of the earlier iterations in `partial` and adds its own
            /// contribution; when `is_final` holds the prefix is exact. Returns the total (finalized)
            /// on every thread of the team.
            #[inline]
            pub fn parallel_scan<R: Reducer>(self, f: impl Fn(I, &mut R::Value, bool), reducer: R) -> R::Value {
                let mut partial = reducer.init();
                for i in indices(self.begin, self.end) {
                    f(i, &mut partial, true);
                }
                reducer.finalize(&mut partial);
                partial
            }
        }
    };
}

nested_range!(
    /// Iterations split over the threads of a team (Kokkos' `TeamThreadRange`).
    TeamThreadRange,
    "TeamThreadRange"
);
nested_range!(
    /// Iterations split over the vector lanes of one thread (Kokkos' `ThreadVectorRange`).
    ThreadVectorRange,
    "ThreadVectorRange"
);
nested_range!(
    /// Iterations split over every thread and vector lane of a team (Kokkos' `TeamVectorRange`).
    TeamVectorRange,
    "TeamVectorRange"
);

/// A multidimensional box `0..extents[0]` × ... split over the threads of a team (Kokkos'
/// `TeamThreadMDRange`, ranks 2 and 3): `f` gets the index as a tuple, the last dimension fastest.
#[derive(Clone, Copy)]
pub struct TeamThreadMDRange<'t, 'a, const R: usize> {
    team: &'t TeamMember<'a>,
    extents: [usize; R],
}

impl<'t, 'a, const R: usize> TeamThreadMDRange<'t, 'a, R>
where
    [usize; R]: IndexTuple<usize>,
{
    /// The box `0..extents[0]` × `0..extents[1]` (× `0..extents[2]`) of `team`.
    pub fn new(team: &'t TeamMember<'a>, extents: [usize; R]) -> Self {
        TeamThreadMDRange { team, extents }
    }

    /// The team the range belongs to.
    pub fn team(&self) -> &'t TeamMember<'a> {
        self.team
    }

    /// Calls `visit` with each index of the box in order (the last dimension fastest).
    #[inline]
    fn each(&self, mut visit: impl FnMut([usize; R])) {
        if R == 0 || self.extents.contains(&0) {
            return;
        }
        let mut index = [0usize; R];
        loop {
            visit(index);
            let mut d = R;
            loop {
                if d == 0 {
                    return;
                }
                d -= 1;
                index[d] += 1;
                if index[d] < self.extents[d] {
                    break;
                }
                index[d] = 0;
            }
        }
    }

    /// Runs `f` once for each index of the box.
    #[inline]
    pub fn parallel_for(self, f: impl Fn(<[usize; R] as IndexTuple<usize>>::Tuple)) {
        self.each(|i| f(i.to_tuple()));
    }

    /// Runs `f` once for each index of the box into an accumulator of `reducer`'s and returns the
    /// joined, finalized result on every thread of the team.
    #[inline]
    pub fn parallel_reduce<Rd: Reducer>(
        self,
        f: impl Fn(<[usize; R] as IndexTuple<usize>>::Tuple, &mut Rd::Value),
        reducer: Rd,
    ) -> Rd::Value {
        let mut acc = reducer.init();
        self.each(|i| f(i.to_tuple(), &mut acc));
        reducer.finalize(&mut acc);
        acc
    }
}

/// Who runs the closure of [`single`]: one thread of the team (`PerTeam(team)`) or each thread
/// once, not each of its vector lanes (`PerThread(team)`). Sealed: the backends give each scope its
/// meaning (on Cuda, which threads run the closure and receive its value).
pub trait SingleScope<'a>: crate::seal::SealedSingleScope {
    /// The team.
    fn team(&self) -> &TeamMember<'a>;
}

impl crate::seal::Sealed for PerTeam<&TeamMember<'_>> {}
impl crate::seal::Sealed for PerThread<&TeamMember<'_>> {}

impl<'a> SingleScope<'a> for PerTeam<&TeamMember<'a>> {
    fn team(&self) -> &TeamMember<'a> {
        self.0
    }
}

impl<'a> SingleScope<'a> for PerThread<&TeamMember<'a>> {
    fn team(&self) -> &TeamMember<'a> {
        self.0
    }
}

/// Runs `f` once per team (`single(PerTeam(team), f)`) or once per thread
/// (`single(PerThread(team), f)`) and gives its value to every thread of that scope (Kokkos'
/// `single` with a broadcast value).
#[inline]
pub fn single<'a, T: Clone>(scope: impl SingleScope<'a>, f: impl FnOnce() -> T) -> T {
    let _ = scope.team();
    f()
}
