//! The application's errors: each names what failed and where (a file, a line, a setting).

use std::path::PathBuf;

/// Everything that can stop a TeaLeaf run.
#[derive(Debug, thiserror::Error)]
pub enum TeaError {
    /// A file (deck or problems table) could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A line of an input file is malformed (a bad value, a state defined twice ...).
    #[error("{}:{line}: {message}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// An input file is wrong as a whole (no `*tea` block, a missing state ...).
    #[error("{}: {message}", path.display())]
    Input {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// The report could not be written.
    #[error("cannot write the output: {0}")]
    Output(#[source] std::io::Error),
    /// A command-line argument is wrong.
    #[error("{0}")]
    Usage(String),
    /// A solver could not go on (TeaLeaf's fatal conditions: negative eigenvalue estimates, the
    /// eigenvalue iteration not converging).
    #[error("solver: {0}")]
    Solver(String),
    /// Talking to the other ranks failed (a message of the wrong length, no such rank, MPI
    /// not available).
    #[error("comms: {0}")]
    Comms(String),
    /// ferrokkos refused or failed an operation (allocation, launch, copy).
    #[error(transparent)]
    Ferrokkos(#[from] ferrokkos::Error),
}

/// A result with a [`TeaError`].
pub type Result<T> = std::result::Result<T, TeaError>;
