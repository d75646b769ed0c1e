//! The one error type of ferrokkos.
//!
//! Every fallible operation returns [`Result<T>`]. Each variant carries the facts a user needs to act on
//! the failure: the View's label, the memory space, sizes, shapes and bounds.

mod backend;
mod facts;
mod format;
#[cfg(test)]
mod tests;
mod variants;

pub use backend::BackendError;
pub use facts::{BorrowKind, DeviceTarget};
pub use variants::Error;

pub(crate) use format::index_ranges;

/// `Result<T, ferrokkos::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;
