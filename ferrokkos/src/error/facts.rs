//! The facts some variants carry: how a View was borrowed ([`BorrowKind`]) and what a GPU kernel
//! indexed out of bounds ([`DeviceTarget`]).

use std::fmt;

/// How a View's allocation is borrowed by host code (see [`crate::View::host`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BorrowKind {
    /// Read-only access, shared with other readers.
    Shared,
    /// Read-write access, excluding every other access.
    Exclusive,
}

impl fmt::Display for BorrowKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BorrowKind::Shared => "shared (read)",
            BorrowKind::Exclusive => "exclusive (write)",
        })
    }
}

/// What a kernel on the GPU indexed out of bounds
/// ([`Error::DeviceOutOfBounds`](super::Error::DeviceOutOfBounds)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DeviceTarget {
    /// A View's elements.
    View,
    /// An array (`[T; N]`: captured, a local, a struct's field or a View's element).
    Array,
    /// A View's dimensions (`x.extent(r)` with `r` at least the rank).
    Dimension,
    /// The threads of a team: `team.team_broadcast(v, source)` with `source` at least the team
    /// size (the extent); every thread got the value's zero.
    TeamRank,
    /// A subview's range of a View's dimension (`let row = subview(&a, (j, lo..hi))` in a
    /// kernel): `row[i]` with `i` at least `hi - lo` (the extent), or any element of a range that
    /// is not within the dimension (`lo > hi`, or `hi` past its extent: the extent is 0; for
    /// `row.extent(0)` of such a range, the index is `hi` and the extent the dimension's).
    SubviewRange,
}

impl fmt::Display for DeviceTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DeviceTarget::View => "a View",
            DeviceTarget::Array => "an array",
            DeviceTarget::Dimension => "the dimensions of a View (extent)",
            DeviceTarget::TeamRank => "the threads of a team (the source of team_broadcast)",
            DeviceTarget::SubviewRange => "a subview's range of a View's dimension",
        })
    }
}
