//! The guide for Kokkos users (`docs/guide/`): each chapter is included here as the documentation
//! of an item, so that every code block in it is compiled, and run where it can, as a doctest.
//! Chapters whose `no_run` blocks name the CUDA backend's types are tested with the `cuda`
//! feature (a default one).

/// The guide's index.
#[doc = include_str!("../../docs/guide/README.md")]
pub struct Readme;

/// Chapter: Views and spaces (its GPU blocks name the CUDA backend's types).
#[cfg(feature = "cuda")]
#[doc = include_str!("../../docs/guide/views-and-spaces.md")]
pub struct ViewsAndSpaces;

/// Chapter: mirrors and copies (its GPU blocks name the CUDA backend's types).
#[cfg(feature = "cuda")]
#[doc = include_str!("../../docs/guide/mirrors-and-copies.md")]
pub struct MirrorsAndCopies;

/// Chapter: policies and patterns (its GPU blocks name the CUDA backend's types).
#[cfg(feature = "cuda")]
#[doc = include_str!("../../docs/guide/policies-and-patterns.md")]
pub struct PoliciesAndPatterns;

/// Chapter: reductions.
#[doc = include_str!("../../docs/guide/reductions.md")]
pub struct Reductions;

/// Chapter: teams and scratch.
#[doc = include_str!("../../docs/guide/teams-and-scratch.md")]
pub struct TeamsAndScratch;

/// Chapter: the kernel language and its race rules.
#[doc = include_str!("../../docs/guide/kernel-language.md")]
pub struct KernelLanguage;

/// Chapter: instances and graphs.
#[doc = include_str!("../../docs/guide/instances-and-graphs.md")]
pub struct InstancesAndGraphs;

/// Chapter: MPI and NCCL (its GPU blocks name the CUDA backend's types).
#[cfg(feature = "cuda")]
#[doc = include_str!("../../docs/guide/mpi-and-nccl.md")]
pub struct MpiAndNccl;

/// Chapter: Tools.
#[doc = include_str!("../../docs/guide/tools.md")]
pub struct Tools;

/// Chapter: ScatterView.
#[doc = include_str!("../../docs/guide/scatter-view.md")]
pub struct ScatterViewChapter;

/// Chapter: DualView.
#[doc = include_str!("../../docs/guide/dual-view.md")]
pub struct DualViewChapter;

/// Chapter: UniqueToken.
#[doc = include_str!("../../docs/guide/unique-token.md")]
pub struct UniqueTokenChapter;

/// Chapter: UnorderedMap and Bitset.
#[doc = include_str!("../../docs/guide/unordered-map.md")]
pub struct UnorderedMapChapter;

/// Chapter: OffsetView.
#[doc = include_str!("../../docs/guide/offset-view.md")]
pub struct OffsetViewChapter;

/// Chapter: random numbers.
#[doc = include_str!("../../docs/guide/random-numbers.md")]
pub struct RandomNumbers;

/// Chapter: sorting.
#[doc = include_str!("../../docs/guide/sorting.md")]
pub struct Sorting;

/// Chapter: std algorithms and device closures.
#[doc = include_str!("../../docs/guide/std-algorithms.md")]
pub struct StdAlgorithms;

/// The Kokkos -> ferrokkos name table.
#[doc = include_str!("../../docs/guide/names.md")]
pub struct Names;
