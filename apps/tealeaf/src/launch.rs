//! Launching a kernel, or only naming it for compilation ahead of the run.
//!
//! Every kernel of the app goes through a [`Launcher`]. Normally it launches; while the chunk is
//! being prepared ([`Launcher::prepare`]) it adds the kernel, with its policy and pattern, to a
//! [`Prepare`] instead, so that one walk over the kernel functions compiles every kernel before
//! the first step (on Cuda, with NVRTC on all cores; the host spaces compile nothing).
//!
//! Code that should also run inside a graph writes its kernels to a [`Kernels`] sink: the
//! [`Launcher`] launches (or prepares) them, a [`GraphChain`] adds them to a graph one after the
//! other.

use std::cell::{Cell, RefCell};

use ferrokkos::traits::{GraphPolicy, ParallelFor, ParallelReduce, ReduceTarget};
use ferrokkos::{GraphNode, Prepare, PrepareReport, Sum, parallel_for, parallel_reduce};

use crate::Space;

/// A policy that runs kernel `K` with `parallel_for`, by value or by reference, and that a
/// graph can re-aim: what both kinds of [`Kernels`] sink need.
pub trait ForNode<S: Space, K>:
    GraphPolicy<S> + ParallelFor<K> + for<'k> ParallelFor<&'k K>
{
}

impl<S: Space, K, P> ForNode<S, K> for P where
    P: GraphPolicy<S> + ParallelFor<K> + for<'k> ParallelFor<&'k K>
{
}

/// [`ForNode`] for `parallel_reduce` into `T`.
pub trait ReduceNode<S: Space, K, T: ReduceTarget>:
    GraphPolicy<S> + ParallelReduce<K, T> + for<'k> ParallelReduce<&'k K, T>
{
}

impl<S: Space, K, T: ReduceTarget, P> ReduceNode<S, K, T> for P where
    P: GraphPolicy<S> + ParallelReduce<K, T> + for<'k> ParallelReduce<&'k K, T>
{
}

/// Where kernels go: launched now (or prepared) by a [`Launcher`], or added to a graph by a
/// [`GraphChain`]. The bounds are what both need: a policy a graph can re-aim, and a kernel the
/// graph can keep.
pub trait Kernels<S: Space> {
    /// A `parallel_for` (or its node, or its preparation).
    fn for_each<P, K>(&self, label: &str, policy: P, kernel: K) -> ferrokkos::Result<()>
    where
        P: ForNode<S, K>,
        K: Send + Sync + 'static;

    /// A `parallel_reduce` into a View (or its node, or its preparation).
    fn reduce_into<P, K, T>(
        &self,
        label: &str,
        policy: P,
        kernel: K,
        target: T,
    ) -> ferrokkos::Result<()>
    where
        T: ReduceTarget<Output = ()> + Clone + Send + Sync + 'static,
        P: ReduceNode<S, K, T>,
        K: Send + Sync + 'static;
}

impl<S: Space> Kernels<S> for Launcher {
    fn for_each<P, K>(&self, label: &str, policy: P, kernel: K) -> ferrokkos::Result<()>
    where
        P: ForNode<S, K>,
        K: Send + Sync + 'static,
    {
        Launcher::for_each(self, label, policy, kernel)
    }

    fn reduce_into<P, K, T>(
        &self,
        label: &str,
        policy: P,
        kernel: K,
        target: T,
    ) -> ferrokkos::Result<()>
    where
        T: ReduceTarget<Output = ()> + Clone + Send + Sync + 'static,
        P: ReduceNode<S, K, T>,
        K: Send + Sync + 'static,
    {
        self.reduce(label, policy, kernel, target, ())
    }
}

/// Adds kernels to a graph, each after the one before (a chain from the node it starts at).
pub struct GraphChain<'g, S: Space> {
    last: Cell<GraphNode<'g, S>>,
}

impl<'g, S: Space> GraphChain<'g, S> {
    /// A chain that continues from `node`.
    pub fn after(node: GraphNode<'g, S>) -> Self {
        GraphChain {
            last: Cell::new(node),
        }
    }

    /// The chain's last node.
    pub fn last(&self) -> GraphNode<'g, S> {
        self.last.get()
    }
}

impl<S: Space> Kernels<S> for GraphChain<'_, S> {
    fn for_each<P, K>(&self, label: &str, policy: P, kernel: K) -> ferrokkos::Result<()>
    where
        P: ForNode<S, K>,
        K: Send + Sync + 'static,
    {
        let next = self.last.get().then_parallel_for(label, policy, kernel);
        self.last.set(next);
        Ok(())
    }

    fn reduce_into<P, K, T>(
        &self,
        label: &str,
        policy: P,
        kernel: K,
        target: T,
    ) -> ferrokkos::Result<()>
    where
        T: ReduceTarget<Output = ()> + Clone + Send + Sync + 'static,
        P: ReduceNode<S, K, T>,
        K: Send + Sync + 'static,
    {
        let next = self
            .last
            .get()
            .then_parallel_reduce(label, policy, kernel, target);
        self.last.set(next);
        Ok(())
    }
}

/// Launches kernels, or collects them for [`Prepare`].
#[derive(Debug, Default)]
pub struct Launcher {
    preparing: RefCell<Option<Prepare>>,
}

impl Launcher {
    /// A launcher that launches.
    pub fn new() -> Launcher {
        Launcher::default()
    }

    /// Whether kernels are being collected rather than run.
    pub fn is_preparing(&self) -> bool {
        self.preparing.borrow().is_some()
    }

    /// Collects the kernels that `walk` names (it must not depend on results: reductions give
    /// their `dry` value), then compiles them all. Returns what the compilation did and how many
    /// kernel requests there were.
    pub fn prepare<E: From<ferrokkos::Error>>(
        &self,
        walk: impl FnOnce() -> Result<(), E>,
    ) -> Result<(PrepareReport, usize), E> {
        *self.preparing.borrow_mut() = Some(Prepare::new());
        let walked = walk();
        let mut prep = self.preparing.borrow_mut().take().unwrap_or_default();
        walked?;
        let requests = prep.len();
        Ok((prep.compile()?, requests))
    }

    /// `parallel_for`, or its preparation.
    pub fn for_each<P: ParallelFor<K>, K>(
        &self,
        label: &str,
        policy: P,
        kernel: K,
    ) -> ferrokkos::Result<()> {
        match self.preparing.borrow_mut().as_mut() {
            Some(prep) => prep.parallel_for(label, &policy, &kernel).map(drop),
            None => parallel_for(label, policy, kernel),
        }
    }

    /// A `parallel_reduce` into `target`, or its preparation (then `dry` is the result).
    pub fn reduce<P, K, T>(
        &self,
        label: &str,
        policy: P,
        kernel: K,
        target: T,
        dry: T::Output,
    ) -> ferrokkos::Result<T::Output>
    where
        T: ReduceTarget,
        P: ParallelReduce<K, T>,
    {
        match self.preparing.borrow_mut().as_mut() {
            Some(prep) => prep
                .parallel_reduce(label, &policy, &kernel, target)
                .map(|_| dry),
            None => parallel_reduce(label, policy, kernel, target),
        }
    }

    /// A sum of `f64`s (`0.0` while preparing).
    pub fn sum<P, K>(&self, label: &str, policy: P, kernel: K) -> ferrokkos::Result<f64>
    where
        P: ParallelReduce<K, Sum<f64>>,
    {
        self.reduce(label, policy, kernel, Sum::new(), 0.0)
    }
}
