//! How a kernel captures an [`OffsetView`]: read (an [`OffsetReadAccess`] on the host) or written
//! at its iteration index (an [`OffsetWriteAccess`]); on the GPU an `fk::OffsetView` parameter (the
//! View's descriptor and the begins). Its launch access carries the begins, so that the launch's
//! bounds proof uses the OffsetView's own ranges (`kernel/bounds.rs`). Atomics on an OffsetView and
//! passing one to a `#[device]` function are not offered (its View is: `o.view()`).

use super::offset_view::OffsetView;
use crate::kernel::capture::{Borrowed, Capture, IntoCapture, KernelValue, KernelWritable, Write};
use crate::kernel::params::ParamWriter;
use crate::kernel::value::DeviceValue;
use crate::kernel::view_expr::OffsetExpr;
use crate::layout::Layout;
use crate::seal::{Sealed, SealedKernelValue};
use crate::space::MemorySpace;
use crate::view::kernel_access::{AccessMode, ViewAccess};
use crate::view::offset_access::{OffsetReadAccess, OffsetWriteAccess};

/// The C++ spelling of an OffsetView parameter.
fn offset_cxx<T: DeviceValue, const R: usize, L: Layout>(konst: bool) -> String {
    let c = if konst { "const " } else { "" };
    format!("fk::OffsetView<{c}{}, {R}, fk::{}>", T::cxx_name(), L::NAME)
}

impl<T: DeviceValue, const R: usize, L: Layout, M: MemorySpace> OffsetView<T, R, L, M> {
    /// The launch access of the capture `name`, with the begins.
    fn access(&self, name: &'static str, mode: AccessMode) -> ViewAccess<'_> {
        ViewAccess {
            begins: self.begins_slice(),
            ..ViewAccess::of(name, self.view(), mode)
        }
    }

    /// Appends the `fk::OffsetView` descriptor.
    fn pack(&self, w: &mut ParamWriter<'_>) {
        let v = self.view();
        w.push_offset_view(
            v.as_ptr() as u64,
            &v.extents(),
            &v.strides(),
            self.begins_slice(),
        );
    }
}

impl<T: DeviceValue, const R: usize, L: Layout, M: MemorySpace> IntoCapture
    for OffsetView<T, R, L, M>
{
    type Value = OffsetView<T, R, L, M>;
    fn capture_value(&self) -> Self::Value {
        self.clone()
    }
}

impl<T: DeviceValue, const R: usize, L: Layout, M: MemorySpace> Sealed for OffsetView<T, R, L, M> {}

impl<T: DeviceValue, const R: usize, L: Layout, M: MemorySpace> SealedKernelValue
    for OffsetView<T, R, L, M>
{
}

impl<T: DeviceValue, const R: usize, L: Layout, M: MemorySpace> KernelValue
    for OffsetView<T, R, L, M>
{
    type Host<'a> = OffsetReadAccess<'a, T, R, L>;
    type Shadow = OffsetExpr<T, R, L>;
    fn read_access(&self, name: &'static str) -> Option<ViewAccess<'_>> {
        Some(self.access(name, AccessMode::Read))
    }
    fn read_host<'a>(&'a self, _: &Borrowed) -> OffsetReadAccess<'a, T, R, L> {
        // SAFETY: as for a View's `read_host` (kernel/capture.rs): the proof says the launch holds
        // the allocation's borrow while the accessor is used, and the host launch checked that the
        // memory is host-accessible.
        unsafe { OffsetReadAccess::new(self.view(), self.begins()) }
    }
    fn read_shadow(&self, cxx_name: &str) -> Self::Shadow {
        OffsetExpr::new(cxx_name)
    }
    fn read_cxx_type() -> String {
        offset_cxx::<T, R, L>(true)
    }
    fn read_pack(&self, w: &mut ParamWriter<'_>) {
        self.pack(w);
    }
}

impl<T: DeviceValue, const R: usize, L: Layout, M: MemorySpace> KernelWritable
    for OffsetView<T, R, L, M>
{
}

impl<T: DeviceValue, const R: usize, L: Layout, M: MemorySpace> Sealed
    for Write<OffsetView<T, R, L, M>>
{
}

impl<T, const R: usize, L, M> Capture for Write<OffsetView<T, R, L, M>>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
{
    type Host<'a> = OffsetWriteAccess<'a, T, R, L>;
    type Shadow = OffsetExpr<T, R, L>;
    fn name(&self) -> &'static str {
        self.name
    }
    fn access(&self) -> Option<ViewAccess<'_>> {
        Some(self.value.access(self.name, AccessMode::Write))
    }
    fn host<'a>(&'a self, _: &Borrowed) -> OffsetWriteAccess<'a, T, R, L> {
        // SAFETY: as for a View's `Write` capture (kernel/capture.rs): the launch holds the
        // exclusive borrow while the accessor is used, its element methods are `unsafe` (the race
        // rules are their contract), and the host launch checked that the memory is host-accessible.
        unsafe { OffsetWriteAccess::new(self.value.view(), self.value.begins()) }
    }
    fn shadow(&self, cxx_name: &str) -> Self::Shadow {
        OffsetExpr::new(cxx_name)
    }
    fn cxx_type() -> String {
        offset_cxx::<T, R, L>(false)
    }
    fn pack(&self, w: &mut ParamWriter<'_>) {
        self.value.pack(w);
    }
}
