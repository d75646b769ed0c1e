//! Backends: each implements the generic traits of [`crate::space`] in its own folder.

pub(crate) mod cuda;
pub(crate) mod host;
