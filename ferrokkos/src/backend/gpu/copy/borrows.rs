//! [`Borrows`]: the borrows of one copy (exclusive on the destination, shared on the source), or of
//! one collective operation (`backend/cuda/collective.rs`), released on drop.

use std::sync::Arc;

use crate::backend::gpu::driver::Driver;
use crate::backend::gpu::queue::Submission;
use crate::error::Result;
use crate::space::Allocation;

/// Borrowed allocations, each with whether the work writes it (then the borrow is exclusive).
pub(crate) struct Borrows<'a> {
    held: Vec<(&'a Arc<Allocation>, bool)>,
}

impl<'a> Borrows<'a> {
    /// Borrows `dst` exclusively and `src` shared (once, when both are one allocation).
    pub(super) fn take(
        dst: Option<&'a Arc<Allocation>>,
        src: Option<&'a Arc<Allocation>>,
    ) -> Result<Borrows<'a>> {
        let mut b = Borrows { held: Vec::new() };
        if let Some(d) = dst {
            d.borrow_exclusive_async()?;
            b.held.push((d, true));
        }
        if let Some(s) = src
            && !dst.is_some_and(|d| Arc::ptr_eq(d, s))
        {
            s.borrow_shared_async()?;
            b.held.push((s, false));
        }
        Ok(b)
    }

    /// Borrows each allocation of `uses` (distinct allocations), exclusively where its flag says
    /// the work writes it; on a conflict, what was taken is released and the error returned.
    pub(crate) fn take_each(uses: &[(&'a Arc<Allocation>, bool)]) -> Result<Borrows<'a>> {
        let mut b = Borrows { held: Vec::new() };
        for &(a, writes) in uses {
            if writes {
                a.borrow_exclusive_async()?;
            } else {
                a.borrow_shared_async()?;
            }
            b.held.push((a, writes));
        }
        Ok(b)
    }

    /// The borrowed allocations.
    pub(crate) fn allocs(&self) -> impl Iterator<Item = &'a Allocation> + '_ {
        self.held.iter().map(|(a, _)| -> &'a Allocation { a })
    }

    /// Orders `sub` after the work on other queues that uses the borrowed allocations.
    pub(crate) fn order<D: Driver>(
        &self,
        sub: &mut Submission<'_, D>,
        what: &dyn Fn() -> String,
    ) -> Result<()> {
        for (a, writes) in &self.held {
            sub.order_after(a, *writes, what)?;
        }
        Ok(())
    }
}

impl Drop for Borrows<'_> {
    fn drop(&mut self) {
        for (a, exclusive) in &self.held {
            if *exclusive {
                a.release_exclusive();
            } else {
                a.release_shared();
            }
        }
    }
}
