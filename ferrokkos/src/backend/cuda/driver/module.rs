//! Loaded CUBIN modules, their kernels, occupancy queries and launches.

use std::ffi::{CStr, CString, c_int, c_void};
use std::sync::Arc;

use cudarc::driver::sys;
use cudarc::driver::sys::CUfunction_attribute as FuncAttr;

use super::{Context, Stream, check};
use crate::error::{Error, Result};

#[cfg(test)]
/// The most bytes the parameters of one kernel may take together (CUDA 12.1+ on compute capability
/// 7.0+; older drivers and devices allow 4096, see `DeviceInfo::max_param_bytes`).
pub(crate) const MAX_PARAM_BYTES: usize = 32764;

/// A module loaded into a context (`cuModuleLoadData`), unloaded (`cuModuleUnload`) when the last
/// reference goes. It holds its [`Context`], so the context outlives it.
///
/// `Module` is `Send + Sync`: a loaded module is immutable, the driver API is thread-safe, and every
/// method binds the context first.
pub(crate) struct Module {
    /// The module handle.
    raw: sys::CUmodule,
    /// Its context.
    ctx: Arc<Context>,
}

// SAFETY: see the type's documentation.
unsafe impl Send for Module {}
// SAFETY: see the type's documentation; no method mutates the value.
unsafe impl Sync for Module {}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module")
            .field("raw", &self.raw)
            .field("device", &self.ctx.ordinal())
            .finish()
    }
}

/// Reads a little-endian integer of `N` bytes at `at`, if in bounds.
fn read_le<const N: usize>(image: &[u8], at: u64) -> Option<u64> {
    let start = usize::try_from(at).ok()?;
    let bytes: [u8; N] = image.get(start..start.checked_add(N)?)?.try_into().ok()?;
    let mut value = [0u8; 8];
    value[..N].copy_from_slice(&bytes);
    Some(u64::from_le_bytes(value))
}

/// Whether `count` tables of `entry` bytes each (`count` entries at `offset`) lie within `len`.
fn table_fits(offset: u64, count: u64, entry: u64, len: u64) -> bool {
    count
        .checked_mul(entry)
        .and_then(|size| size.checked_add(offset))
        .is_some_and(|end| end <= len)
}

/// Checks that `image` is something `cuModuleLoadData` can read without running past its end
/// (the driver takes no length): a little-endian 64-bit ELF (a CUBIN) whose headers, program
/// segments and sections all lie within the slice, or NUL-terminated text (PTX). Returns why not.
fn validate_image(image: &[u8]) -> std::result::Result<(), String> {
    if !image.starts_with(b"\x7fELF") {
        return if image.last() == Some(&0) {
            Ok(())
        } else {
            Err("the image is neither an ELF (CUBIN) nor NUL-terminated text (PTX)".to_string())
        };
    }
    let len = image.len() as u64;
    let bad = |what: &str| Err(format!("the CUBIN is truncated or malformed: {what}"));
    if image.len() < 64 || image[4] != 2 || image[5] != 1 {
        return bad("not a complete little-endian 64-bit ELF header");
    }
    let field = |at: u64, n: usize| match n {
        2 => read_le::<2>(image, at),
        4 => read_le::<4>(image, at),
        _ => read_le::<8>(image, at),
    };
    let header = (|| {
        Some((
            field(32, 8)?, // e_phoff
            field(40, 8)?, // e_shoff
            field(54, 2)?, // e_phentsize
            field(56, 2)?, // e_phnum
            field(58, 2)?, // e_shentsize
            field(60, 2)?, // e_shnum
        ))
    })();
    let Some((phoff, shoff, phentsize, phnum, shentsize, shnum)) = header else {
        return bad("unreadable ELF header");
    };
    if (phnum > 0 && (phentsize < 56 || !table_fits(phoff, phnum, phentsize, len)))
        || (shnum > 0 && (shentsize < 64 || !table_fits(shoff, shnum, shentsize, len)))
    {
        return bad("the header tables lie outside the image");
    }
    for i in 0..phnum {
        let at = phoff + i * phentsize;
        let (Some(offset), Some(size)) = (field(at + 8, 8), field(at + 32, 8)) else {
            return bad("unreadable program header");
        };
        if size != 0 && !table_fits(offset, 1, size, len) {
            return bad("a segment lies outside the image");
        }
    }
    const SHT_NOBITS: u64 = 8;
    for i in 0..shnum {
        let at = shoff + i * shentsize;
        let (Some(kind), Some(offset), Some(size)) =
            (field(at + 4, 4), field(at + 24, 8), field(at + 32, 8))
        else {
            return bad("unreadable section header");
        };
        if kind != SHT_NOBITS && size != 0 && !table_fits(offset, 1, size, len) {
            return bad("a section lies outside the image");
        }
    }
    Ok(())
}

impl Module {
    /// Loads `image` into `ctx` (`cuModuleLoadData`). `image` is a CUBIN (the ELF image NVRTC
    /// produces for the device's exact architecture) or NUL-terminated PTX; it is checked to lie
    /// within the slice first ([`Error::InvalidArgument`] otherwise), because the driver is given
    /// only its address. A CUBIN for another architecture is [`crate::BackendError::Cuda`]
    /// (`CUDA_ERROR_NO_BINARY_FOR_GPU`).
    pub(crate) fn load(
        ctx: &Arc<Context>,
        image: &[u8],
        what: impl FnOnce() -> String,
    ) -> Result<Arc<Module>> {
        validate_image(image).map_err(|reason| Error::InvalidArgument {
            operation: "Module::load",
            reason,
        })?;
        ctx.bind()?;
        let mut raw: sys::CUmodule = std::ptr::null_mut();
        // SAFETY: `ctx` is current on this thread; `image` is a complete ELF or NUL-terminated text
        // (validated above), so the driver reads only within it; `raw` is valid for a write.
        let code = unsafe { sys::cuModuleLoadData(&mut raw, image.as_ptr().cast::<c_void>()) };
        check(code, "cuModuleLoadData", what)?;
        super::live::created(&super::live::MODULES);
        Ok(Arc::new(Module {
            raw,
            ctx: Arc::clone(ctx),
        }))
    }

    /// The address and size of the `__device__` variable `name` (an `extern "C"` name as written),
    /// or `None` if the module has none (`CUDA_ERROR_NOT_FOUND`: never declared, or removed by the
    /// compiler because nothing uses it).
    pub(crate) fn global(
        &self,
        name: &CStr,
        what: impl FnOnce() -> String,
    ) -> Result<Option<(u64, usize)>> {
        self.ctx.bind()?;
        let (mut ptr, mut bytes) = (0 as sys::CUdeviceptr, 0usize);
        // SAFETY: the module is loaded in `ctx`, current on this thread; `name` is NUL-terminated;
        // both outputs are valid for a write.
        let code =
            unsafe { sys::cuModuleGetGlobal_v2(&mut ptr, &mut bytes, self.raw, name.as_ptr()) };
        if code == sys::CUresult::CUDA_ERROR_NOT_FOUND {
            return Ok(None);
        }
        check(code, "cuModuleGetGlobal", what)?;
        Ok(Some((ptr, bytes)))
    }

    /// The kernel `name` of this module (`cuModuleGetFunction`; an `extern "C"` kernel's name as
    /// written). A missing kernel is [`crate::BackendError::Cuda`] (`CUDA_ERROR_NOT_FOUND`), a name with a NUL
    /// byte [`Error::InvalidArgument`].
    pub(crate) fn function(
        self: &Arc<Self>,
        name: &str,
        what: impl FnOnce() -> String,
    ) -> Result<Function> {
        let c_name = CString::new(name).map_err(|_| Error::InvalidArgument {
            operation: "Module::function",
            reason: format!("the kernel name {name:?} contains a NUL byte"),
        })?;
        self.ctx.bind()?;
        let mut raw: sys::CUfunction = std::ptr::null_mut();
        // SAFETY: the module is loaded and its context current; `c_name` is NUL-terminated; `raw`
        // is valid for a write.
        let code = unsafe { sys::cuModuleGetFunction(&mut raw, self.raw, c_name.as_ptr()) };
        check(code, "cuModuleGetFunction", what)?;
        Ok(Function {
            module: Arc::clone(self),
            raw,
        })
    }

    /// The raw module handle (valid while `self` lives).
    #[cfg_attr(not(test), allow(dead_code))] // used by the tests
    pub(crate) fn raw(&self) -> sys::CUmodule {
        self.raw
    }

    /// The module's context.
    #[cfg_attr(not(test), allow(dead_code))] // used by the tests
    pub(crate) fn context(&self) -> &Arc<Context> {
        &self.ctx
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        let _ = self.ctx.bind();
        // SAFETY: the module was loaded by cuModuleLoadData and is unloaded only here, once; no
        // `Function` of it is left (each holds an `Arc<Module>`). Kernels still running keep their
        // code (the driver defers the unload). The result is ignored: nothing useful can be done.
        let _ = unsafe { sys::cuModuleUnload(self.raw) };
        super::live::destroyed(&super::live::MODULES);
    }
}

/// A kernel of a loaded [`Module`], which it keeps loaded. Cheap to clone.
///
/// `Function` is `Send + Sync`: the handle is immutable and valid while the module is loaded (the
/// `Arc` guarantees that), the driver API is thread-safe, and every method binds the context
/// first. [`Function::set_max_dynamic_shared`] changes a driver-side attribute, which the driver
/// synchronizes.
#[derive(Clone)]
pub(crate) struct Function {
    /// The module, kept loaded.
    module: Arc<Module>,
    /// The kernel handle.
    raw: sys::CUfunction,
}

// SAFETY: see the type's documentation.
unsafe impl Send for Function {}
// SAFETY: see the type's documentation.
unsafe impl Sync for Function {}

impl std::fmt::Debug for Function {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Function")
            .field("raw", &self.raw)
            .field("module", &self.module)
            .finish()
    }
}

impl Function {
    /// The raw kernel handle (valid while `self` lives).
    #[cfg_attr(not(test), allow(dead_code))] // used by the tests
    pub(crate) fn raw(&self) -> sys::CUfunction {
        self.raw
    }

    /// One integer attribute of the kernel (`cuFuncGetAttribute`).
    fn attribute(&self, attr: FuncAttr, call_what: impl FnOnce() -> String) -> Result<c_int> {
        self.module.ctx.bind()?;
        let mut value: c_int = 0;
        // SAFETY: the kernel's module is loaded and its context current; `value` is valid for a
        // write.
        let code = unsafe { sys::cuFuncGetAttribute(&mut value, attr, self.raw) };
        check(code, "cuFuncGetAttribute", call_what)?;
        Ok(value)
    }

    /// The most threads a block of this kernel may have, given its register and shared memory use
    /// (`CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK`).
    pub(crate) fn max_threads_per_block(&self, what: impl FnOnce() -> String) -> Result<u32> {
        let v = self.attribute(FuncAttr::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, what)?;
        Ok(u32::try_from(v).unwrap_or(0))
    }

    /// The bytes of statically allocated shared memory a block of this kernel uses
    /// (`CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES`): the device's shared memory per block includes them.
    pub(crate) fn static_shared_bytes(&self, what: impl FnOnce() -> String) -> Result<usize> {
        let v = self.attribute(FuncAttr::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, what)?;
        Ok(usize::try_from(v).unwrap_or(0))
    }

    /// Allows launches with up to `bytes` of dynamic shared memory per block
    /// (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`); needed above 48 KiB.
    pub(crate) fn set_max_dynamic_shared(
        &self,
        bytes: usize,
        what: impl FnOnce() -> String,
    ) -> Result<()> {
        let value = c_int::try_from(bytes).map_err(|_| Error::InvalidArgument {
            operation: "set_max_dynamic_shared",
            reason: format!("{bytes} bytes of shared memory is more than any device has"),
        })?;
        self.module.ctx.bind()?;
        let attr = FuncAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
        // SAFETY: the kernel's module is loaded and its context current.
        let code = unsafe { sys::cuFuncSetAttribute(self.raw, attr, value) };
        check(code, "cuFuncSetAttribute", what)
    }

    /// How many blocks of `block` threads, each with `dynamic_shared` bytes of dynamic shared
    /// memory, can be resident on one multiprocessor
    /// (`cuOccupancyMaxActiveBlocksPerMultiprocessor`); 0 if such a block does not fit.
    pub(crate) fn max_active_blocks_per_sm(
        &self,
        block: u32,
        dynamic_shared: usize,
        what: impl FnOnce() -> String,
    ) -> Result<u32> {
        let block = c_int::try_from(block).map_err(|_| Error::InvalidArgument {
            operation: "max_active_blocks_per_sm",
            reason: format!("a block of {block} threads is larger than any device allows"),
        })?;
        self.module.ctx.bind()?;
        let mut blocks: c_int = 0;
        // SAFETY: the kernel's module is loaded and its context current; `blocks` is valid for a
        // write.
        let code = unsafe {
            sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(
                &mut blocks,
                self.raw,
                block,
                dynamic_shared,
            )
        };
        check(code, "cuOccupancyMaxActiveBlocksPerMultiprocessor", what)?;
        Ok(u32::try_from(blocks).unwrap_or(0))
    }

    /// A block size that maximizes occupancy, and the smallest grid that fills the device with it:
    /// `(min_grid, block)`. `dynamic_shared_per_thread` bytes of dynamic shared memory are used per
    /// thread of a block.
    ///
    /// With 0 bytes per thread this is `cuOccupancyMaxPotentialBlockSize`. Otherwise (the driver's
    /// callback for a size per block cannot capture the per-thread amount) every multiple of 32 up
    /// to the kernel's and the hardware's limit of 1024 is tried with
    /// [`max_active_blocks_per_sm`](Self::max_active_blocks_per_sm): the block size with the most
    /// resident threads per multiprocessor wins, the larger on ties, and `min_grid` is its resident
    /// blocks per multiprocessor times `sm_count`. Block sizes whose shared memory exceeds the
    /// kernel's current dynamic shared memory limit (see
    /// [`set_max_dynamic_shared`](Self::set_max_dynamic_shared)) are skipped; if none fits,
    /// [`Error::Unsupported`].
    pub(crate) fn suggested_block_size(
        &self,
        dynamic_shared_per_thread: usize,
        sm_count: u32,
        what: impl FnOnce() -> String,
    ) -> Result<(u32, u32)> {
        if dynamic_shared_per_thread == 0 {
            self.module.ctx.bind()?;
            let (mut min_grid, mut block): (c_int, c_int) = (0, 0);
            // SAFETY: the kernel's module is loaded and its context current; both pointers are
            // valid for writes; no callback (None) with 0 bytes of dynamic shared memory and no
            // block size limit (0) are valid arguments.
            let code = unsafe {
                sys::cuOccupancyMaxPotentialBlockSize(
                    &mut min_grid,
                    &mut block,
                    self.raw,
                    None,
                    0,
                    0,
                )
            };
            check(code, "cuOccupancyMaxPotentialBlockSize", what)?;
            let to_u32 = |v: c_int| u32::try_from(v).unwrap_or(0);
            return Ok((to_u32(min_grid), to_u32(block)));
        }
        // `what` is needed at most once, by whichever call fails first.
        let mut what = Some(what);
        let mut describe = || what.take().map_or_else(String::new, |w| w());
        let limit = self.max_threads_per_block(&mut describe)?.min(1024);
        let max_dynamic = self.attribute(
            FuncAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            &mut describe,
        )?;
        let max_dynamic = usize::try_from(max_dynamic).unwrap_or(0);
        let mut best: Option<(u32, u32)> = None; // (blocks per SM, block size)
        for block in (32..=limit).step_by(32) {
            let Some(shared) = dynamic_shared_per_thread.checked_mul(block as usize) else {
                break;
            };
            if shared > max_dynamic {
                break;
            }
            let blocks = self.max_active_blocks_per_sm(block, shared, &mut describe)?;
            let threads = blocks * block;
            if blocks > 0 && best.is_none_or(|(b, s)| threads >= b * s) {
                best = Some((blocks, block));
            }
        }
        match best {
            Some((blocks, block)) => Ok((blocks.saturating_mul(sm_count), block)),
            None => Err(Error::Unsupported {
                what: describe(),
                reason: format!(
                    "no block of 32 or more threads fits with {dynamic_shared_per_thread} bytes \
                     of dynamic shared memory per thread (the kernel allows {max_dynamic} bytes \
                     per block)"
                ),
            }),
        }
    }
}

#[cfg(test)]
/// CUDA's `CU_LAUNCH_PARAM_BUFFER_POINTER`, `CU_LAUNCH_PARAM_BUFFER_SIZE` and
/// `CU_LAUNCH_PARAM_END` are `#define`d as the pointers `(void*)0x01`, `(void*)0x02` and
/// `(void*)0x00`; cudarc offers only their integer values (`*_AS_INT`), so the pointers are made
/// here.
fn launch_marker(value: u32) -> *mut c_void {
    std::ptr::without_provenance_mut(value as usize)
}

#[cfg(test)]
/// The `extra` array of `cuLaunchKernel` that passes `params` as one buffer of `*size` bytes.
fn extra_for(params: &mut [u8], size: &mut usize) -> [*mut c_void; 5] {
    [
        launch_marker(sys::CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT),
        params.as_mut_ptr().cast::<c_void>(),
        launch_marker(sys::CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT),
        (size as *mut usize).cast::<c_void>(),
        launch_marker(sys::CU_LAUNCH_PARAM_END_AS_INT),
    ]
}

/// The most parameters [`launch_with_pointers`] passes.
pub(crate) const MAX_PARAMS: usize = 64;

/// Launches `f` on `stream` with a one-dimensional grid of `grid` blocks of `block` threads and
/// `shared_bytes` of dynamic shared memory per block (`cuLaunchKernel`), handing the parameters to
/// the driver as `kernelParams`: one pointer per parameter, to its value (the driver knows each
/// parameter's size from the kernel's metadata and copies the values during the call). A captured
/// array thus needs no copy of ours. The launch is asynchronous: errors of the kernel itself
/// surface at a later synchronization.
///
/// # Safety
///
/// `pointers` has one pointer per kernel parameter, in declaration order, each to a value of the
/// parameter's type valid for the duration of the call; every device pointer among the values is
/// valid for all the kernel's accesses until the kernel completes, with no conflicting host or
/// device access meanwhile. `stream` and `f` belong to the same context.
pub(crate) unsafe fn launch_with_pointers(
    f: &Function,
    grid: u32,
    block: u32,
    shared_bytes: u32,
    stream: &Stream,
    pointers: &mut [*mut c_void],
    what: impl FnOnce() -> String,
) -> Result<()> {
    stream.context().bind()?;
    // SAFETY: the stream's context is current on this thread; `f` is a kernel of a loaded module of
    // it; `pointers` holds one valid pointer per kernel parameter (the caller's contract); `extra`
    // is null.
    let code = unsafe {
        sys::cuLaunchKernel(
            f.raw,
            grid,
            1,
            1,
            block,
            1,
            1,
            shared_bytes,
            stream.raw(),
            pointers.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    };
    check(code, "cuLaunchKernel", what)
}

/// (Used by the driver's tests, which pass hand-packed parameter lists; the runtime launches with
/// [`launch_with_pointers`].)
#[cfg(test)]
/// Launches `f` on `stream` with a one-dimensional grid of `grid` blocks of `block` threads and
/// `shared_bytes` of dynamic shared memory per block (`cuLaunchKernel`). `params` is the kernel's
/// whole parameter list as one buffer: each parameter at an offset (from the start of the buffer)
/// aligned to its alignment, in declaration order, as a C struct of the parameters would lay them
/// out. It is copied by the driver during the call. More than [`MAX_PARAM_BYTES`] is
/// [`Error::InvalidArgument`]; more than the device allows (4096 on older drivers or devices) is
/// the driver's `CUDA_ERROR_INVALID_VALUE`.
///
/// The launch is asynchronous: errors of the kernel itself surface at a later synchronization.
///
/// # Safety
///
/// `params` matches the kernel's signature (size, offsets and the meaning of every byte), and every
/// pointer in it is valid for all the kernel's accesses until the kernel completes, with no
/// conflicting host or device access meanwhile. `stream` and `f` belong to the same context.
pub(crate) unsafe fn launch(
    f: &Function,
    grid: u32,
    block: u32,
    shared_bytes: u32,
    stream: &Stream,
    params: &mut [u8],
    what: impl FnOnce() -> String,
) -> Result<()> {
    if params.len() > MAX_PARAM_BYTES {
        return Err(Error::InvalidArgument {
            operation: "launch",
            reason: format!(
                "the kernel parameters take {} bytes; CUDA allows at most {MAX_PARAM_BYTES}",
                params.len()
            ),
        });
    }
    debug_assert_eq!(
        stream.context().raw(),
        f.module.ctx.raw(),
        "the stream and the kernel belong to different contexts"
    );
    stream.context().bind()?;
    let mut size = params.len();
    let empty = params.is_empty();
    let mut extra = extra_for(params, &mut size);
    let extra_ptr = if empty {
        std::ptr::null_mut()
    } else {
        extra.as_mut_ptr()
    };
    // SAFETY: the stream's context is current on this thread; `f` is a kernel of a loaded module of
    // it; `extra` (when used) is a well-formed, END-terminated list whose buffer and size outlive
    // the call (the driver copies the parameters before returning); `kernelParams` is null, as
    // required when `extra` passes the parameters. The kernel's accesses are valid per the caller's
    // contract.
    let code = unsafe {
        sys::cuLaunchKernel(
            f.raw,
            grid,
            1,
            1,
            block,
            1,
            1,
            shared_bytes,
            stream.raw(),
            std::ptr::null_mut(),
            extra_ptr,
        )
    };
    check(code, "cuLaunchKernel", what)
}

#[cfg(test)]
mod tests;
