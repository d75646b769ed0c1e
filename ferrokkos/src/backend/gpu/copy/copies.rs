//! [`GpuCopies`]: a GPU backend's `DeviceCopy`, which picks the instance and hands the work to
//! `transfer.rs` or `fill.rs`.

use std::any::Any;
use std::sync::Arc;

use crate::backend::gpu::driver::Driver;
use crate::backend::gpu::instance::Instance;
use crate::error::Result;
use crate::space::{DeviceCopy, Elem, Side};

/// The device rows of `deep_copy` for a GPU's memory spaces (their `MemorySpace::device_copy`),
/// with the backend's default instance for copies given none.
pub(crate) struct GpuCopies<D: Driver> {
    default: fn() -> Result<Arc<Instance<D>>>,
}

impl<D: Driver> GpuCopies<D> {
    /// The copies of a backend whose default instance `default` gives.
    pub(crate) const fn new(default: fn() -> Result<Arc<Instance<D>>>) -> GpuCopies<D> {
        GpuCopies { default }
    }

    /// The instance a copy runs on, and whether it is waited for: `exec` when it is one of
    /// this backend's instances. An instance of another backend (a host space, whose work
    /// runs synchronously) gets the copy on the default instance, waited for.
    fn instance(&self, exec: Option<&dyn Any>, blocking: bool) -> Result<(Arc<Instance<D>>, bool)> {
        let own = exec.and_then(|e| e.downcast_ref::<Arc<Instance<D>>>());
        let blocking = blocking || (exec.is_some() && own.is_none());
        let instance = match own {
            Some(e) => Arc::clone(e),
            None => (self.default)()?,
        };
        Ok((instance, blocking))
    }
}

impl<D: Driver> DeviceCopy for GpuCopies<D> {
    fn copy(
        &self,
        exec: Option<&dyn Any>,
        dst: &Side<'_>,
        src: &Side<'_>,
        elem: Elem,
        blocking: bool,
        what: &dyn Fn() -> String,
    ) -> Result<()> {
        if dst.count() == 0 {
            return Ok(());
        }
        let (gpu, blocking) = self.instance(exec, blocking)?;
        super::transfer::copy(&gpu, dst, src, elem, blocking, what)
    }

    fn fill(
        &self,
        exec: Option<&dyn Any>,
        dst: &Side<'_>,
        value: &[u8],
        elem: Elem,
        blocking: bool,
        what: &dyn Fn() -> String,
    ) -> Result<()> {
        if dst.count() == 0 {
            return Ok(());
        }
        let (gpu, blocking) = self.instance(exec, blocking)?;
        super::fill::fill(&gpu, dst, value, elem, blocking, what)
    }
}
