//! [`UniqueToken`]: Kokkos' `Kokkos::Experimental::UniqueToken`, ids that the iterations running
//! at one time hold one each, to index per-thread scratch (a work array's row, a private
//! accumulator) without atomics.

use std::marker::PhantomData;

use super::token_access::{HOST_SLOT_WORDS, TokenAccess};
use crate::error::{Error, Result};
use crate::kernel::capture::{Borrowed, Capture, IntoCapture, KernelToken, TokenUse};
use crate::kernel::expr::Expr;
use crate::kernel::params::ParamWriter;
use crate::kernel::shadow::TokenShadow;
use crate::layout::LayoutRight;
use crate::space::ExecutionSpace;
use crate::view::View;
use crate::view::kernel_access::{AccessMode, ViewAccess};

/// Which work a [`UniqueToken`]'s ids are unique across (Kokkos' `UniqueTokenScope`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UniqueTokenScope {
    /// The launches of one execution-space instance: as many ids as the instance runs threads.
    Instance,
    /// Every instance of the space: as many ids as the whole space runs threads.
    Global,
}

/// Ids `0..size()` that kernels acquire and release, each held by one thread at a time: Kokkos'
/// `UniqueToken`. A kernel indexes per-thread scratch with the id it holds.
///
/// In a kernel, `let id = token.acquire();` holds an id until `token.release(id);` (or the end of
/// its block: a held id is released whatever way the block ends). A View that the kernel indexes
/// with a held id (`work[(id, k)]`) may be written there: while it holds the id, the iteration is
/// the only one touching those elements, so the race rules accept the write. Every access of such
/// a View must then be at an id held from the same token, in the same place of the index. An
/// iteration holds one id of a token at a time.
///
/// The default size is the instance's concurrency ([`ExecutionSpace::concurrency`]): on Serial 1,
/// on Threads its threads, on Cuda the threads the GPU holds at once.
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::UniqueToken;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let token = UniqueToken::new(&exec)?;
/// // One row of partial sums per id.
/// let partial = View::<f64, 2>::new("partial", [token.size(), 4])?;
/// parallel_for("bin", RangePolicy::new(&exec, 0, 1000)?, kernel!(|i| {
///     let id = token.acquire();
///     partial[(id, i % 4)] += i as f64;
///     token.release(id);
/// }))?;
/// let total: f64 = partial.to_vec()?.iter().sum();
/// assert_eq!(total, 499_500.0);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub struct UniqueToken<S: ExecutionSpace> {
    /// The ids' state, zero when free: on the host one word per id, each on a cache line of its
    /// own ([`HOST_SLOT_WORDS`] words); on a GPU a bitset.
    slots: View<u32, 1, LayoutRight, S::MemorySpace>,
    size: usize,
    scope: UniqueTokenScope,
    _space: PhantomData<fn() -> S>,
}

impl<S: ExecutionSpace> Clone for UniqueToken<S> {
    /// Another handle of the same ids.
    fn clone(&self) -> Self {
        UniqueToken {
            slots: self.slots.clone(),
            size: self.size,
            scope: self.scope,
            _space: PhantomData,
        }
    }
}

impl<S: ExecutionSpace> std::fmt::Debug for UniqueToken<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UniqueToken")
            .field("space", &S::NAME)
            .field("size", &self.size)
            .field("scope", &self.scope)
            .finish()
    }
}

/// The most ids a token has (the device code counts them in 32-bit words).
const MAX_SIZE: usize = 1 << 36;

impl<S: ExecutionSpace> UniqueToken<S> {
    /// A token of instance scope for `exec`, with `exec.concurrency()` ids.
    pub fn new(exec: &S) -> Result<Self> {
        Self::make(exec.concurrency(), UniqueTokenScope::Instance)
    }

    /// A token of instance scope with `size` ids (Kokkos' `UniqueToken(size, exec)`): fewer ids
    /// than threads make threads wait for one another in `acquire`, more leave some unused.
    /// `Err(Error::InvalidArgument)` for 0 ids or more than 2^36.
    pub fn with_size(_exec: &S, size: usize) -> Result<Self> {
        Self::make(size, UniqueTokenScope::Instance)
    }

    /// A token of global scope: the concurrency of the space's default instance (every thread
    /// the space has).
    pub fn global() -> Result<Self> {
        Self::make(
            S::default_instance()?.concurrency(),
            UniqueTokenScope::Global,
        )
    }

    fn make(size: usize, scope: UniqueTokenScope) -> Result<Self> {
        if size == 0 || size > MAX_SIZE {
            return Err(Error::InvalidArgument {
                operation: "UniqueToken",
                reason: format!("a token of {} has {size} ids; it needs 1 to 2^36", S::NAME),
            });
        }
        // Either form fits the other's reads: a host token's words are at least a bitset's, and
        // a bitset has at least one host slot (no launch reaches a token of another form: each
        // lives in its space's memory, which only that space's launches reach).
        let words = if S::DEVICE_TYPE.is_gpu() {
            size.div_ceil(32).max(HOST_SLOT_WORDS)
        } else {
            size * HOST_SLOT_WORDS
        };
        let slots = View::new(format!("UniqueToken<{}>", S::NAME), [words])?;
        Ok(UniqueToken {
            slots,
            size,
            scope,
            _space: PhantomData,
        })
    }

    /// The number of ids (Kokkos' `size()`): ids are `0..size()`.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The token's scope.
    pub fn scope(&self) -> UniqueTokenScope {
        self.scope
    }
}

impl<S: ExecutionSpace> IntoCapture for UniqueToken<S> {
    type Value = UniqueToken<S>;
    fn capture_value(&self) -> Self::Value {
        self.clone()
    }
}

impl<S: ExecutionSpace> crate::seal::Sealed for UniqueToken<S> {}

impl<S: ExecutionSpace> KernelToken for UniqueToken<S> {}

impl<S: ExecutionSpace> crate::seal::Sealed for TokenUse<UniqueToken<S>> {}

impl<S: ExecutionSpace> Capture for TokenUse<UniqueToken<S>> {
    type Host<'a> = TokenAccess<'a>;
    type Shadow = Expr<TokenShadow>;
    fn name(&self) -> &'static str {
        self.name
    }
    /// Shared: launches on several instances may hold ids of one token at the same time (every
    /// access of its words is atomic), and the launch checks that its space reaches them.
    fn access(&self) -> Option<ViewAccess<'_>> {
        Some(ViewAccess::of(
            self.name,
            &self.value.slots,
            AccessMode::Read,
        ))
    }
    fn host<'a>(&'a self, _: &Borrowed) -> TokenAccess<'a> {
        // SAFETY: the proof says the launch holds the words' allocation (host-accessible: a host
        // launch checked it) while the accessor is used; nothing but token accessors, all atomic,
        // touches the words after they were zeroed.
        unsafe { TokenAccess::new(&self.value.slots, self.value.size) }
    }
    fn shadow(&self, cxx_name: &str) -> Self::Shadow {
        Expr::name(cxx_name)
    }
    fn cxx_type() -> String {
        "const fk::UniqueToken".to_string()
    }
    fn pack(&self, w: &mut ParamWriter<'_>) {
        w.push([self.value.slots.as_ptr() as u64, self.value.size as u64]);
    }
}
