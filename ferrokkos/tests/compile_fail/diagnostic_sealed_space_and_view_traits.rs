// The traits that describe spaces and Views are sealed: a functor's reach, a space's kind, a View's
// layout, a subview's arguments and a policy's index type. A type of the user's that implements
// one is refused with a message that names the trait and what to use instead.
use ferrokkos::traits::{HostKind, IndexType, Layout, Reach, ReachesSpace, SpaceKind, SubviewArgs};

#[derive(Clone, Copy, Debug, Default)]
struct Mine;

impl ReachesSpace<HostKind> for Mine {}
impl Reach for Mine {}
impl SpaceKind for Mine {}
impl Layout for Mine {}
impl SubviewArgs<2> for Mine {}

#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
struct Idx(i64);

impl std::fmt::Display for Idx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl IndexType for Idx {}

fn main() {}
