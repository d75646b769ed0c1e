//! TeaLeaf, the 2D implicit heat-conduction mini-app (UoB-HPC/TeaLeaf), written once over
//! ferrokkos' execution spaces: every kernel is a `kernel!` and the whole simulation is generic
//! over `S: Space`, so it runs on Serial, Threads or Cuda, chosen at run time.
#![forbid(unsafe_code)]

pub mod app;
pub mod chunk;
pub mod comms;
pub mod deck;
pub mod decompose;
pub mod diffuse;
pub mod error;
pub mod exchange;
pub mod format;
pub mod halo;
pub mod launch;
pub mod problems;
pub mod profile;
pub mod settings;
pub mod solvers;
pub mod states;
pub mod summary;

pub use error::{Result, TeaError};

/// The execution spaces TeaLeaf runs on: they launch every pattern ([`ferrokkos::traits::Launch`]) and
/// run graphs ([`ferrokkos::traits::GraphSpace`]). Every ferrokkos space is one.
pub trait Space: ferrokkos::traits::Launch + ferrokkos::traits::GraphSpace {}

impl<S: ferrokkos::traits::Launch + ferrokkos::traits::GraphSpace> Space for S {}
