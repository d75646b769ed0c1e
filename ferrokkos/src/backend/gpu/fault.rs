//! Out-of-bounds View and array accesses in device code (the device side is in
//! `backend/gpu/codegen/device/types.cuh`, "Out-of-bounds accesses").
//!
//! A kernel on the GPU cannot panic as the host body does. Instead, an access outside a View's
//! extents (or an array's length) touches no memory (a write is dropped, a read gives zero)
//! and is recorded in the context's fault record: pinned host memory that every module loaded here
//! points at (its `fk_fault_record` global) together with the module's unit number
//! (`fk_fault_unit`). When the host next waits for the device (an instance's fence, a reduction's
//! result, the global fence, a host guard waiting for device work), the record is read and a fault
//! becomes [`Error::DeviceOutOfBounds`], naming the kernel, the index and the extents. The context
//! stays usable. The same record carries a kernel's `panic!` (its message in the record's buffer),
//! reported as [`Error::KernelAbort`] (with arguments, its template and their bits, which
//! `panic_message.rs` writes out), and arithmetic faults ([`Error::DeviceArithmetic`]).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::driver::{Driver, Module as _, PinnedBuffer as _};
use crate::error::{DeviceTarget, Error, Result};

/// The record, as `FkFault` in the device header lays it out.
#[repr(C)]
struct Record {
    state: u32,
    rank: u32,
    kind: u32,
    reserved: u32,
    count: u64,
    unit: u64,
    index: [u64; 8],
    extent: [u64; 8],
    /// A panic's message, NUL-terminated.
    message: [u8; 128],
}

/// `kind` of an integer division by zero (or MIN by -1) or a failed `try_into().unwrap()`.
const ARITHMETIC: u32 = 2;
/// `kind` of a `panic!`.
const PANIC: u32 = 5;
/// `kind` of a `panic!` with arguments (its template in the message, their bits in `index`).
const PANIC_ARGS: u32 = 7;

/// What the record's details say about the first fault since the last check.
struct Details {
    kind: u32,
    index: Box<[u64]>,
    extents: Box<[u64]>,
    unit: u64,
    message: String,
}

/// `state` when a fault's details are complete.
const WRITTEN: u32 = 2;

/// The fault record of one context and the kernels whose modules point at it.
pub(crate) struct Faults<D: Driver> {
    ctx: Arc<D::Context>,
    /// The record's pinned memory (non-null, page-aligned, `size_of::<Record>()` bytes), freed
    /// when this is dropped: the backend drops this after its shutdown fence, so no device work
    /// uses the record any more (the buffer's invariant). The host accesses the record only
    /// with atomic and volatile accesses (the details under `seen`'s lock); the device writes it
    /// with atomics.
    memory: D::PinnedBuffer,
    /// The faults already reported (the record's count only grows), and the kernels by unit
    /// number (1-based).
    seen: Mutex<Seen>,
}

struct Seen {
    reported: u64,
    units: Vec<String>,
}

impl<D: Driver> Faults<D> {
    /// A zeroed record in pinned memory of `ctx`.
    pub(crate) fn new(ctx: &Arc<D::Context>) -> Result<Faults<D>> {
        let size = std::mem::size_of::<Record>();
        let what = || format!("allocating the fault record of the {} device", D::SPACE);
        let memory = D::PinnedBuffer::new(ctx, size, what)?;
        let ptr = memory.ptr();
        if ptr.is_null() {
            return Err(Error::Unsupported {
                what: what(),
                reason: "the driver returned a null pointer".into(),
            });
        }
        // SAFETY: `ptr` has `size` bytes of fresh pinned memory, suitably aligned (page-aligned),
        // which no device work uses yet.
        unsafe { std::ptr::write_bytes(ptr, 0, size) };
        Ok(Faults {
            ctx: Arc::clone(ctx),
            memory,
            seen: Mutex::new(Seen {
                reported: 0,
                units: Vec::new(),
            }),
        })
    }

    /// The record (valid and aligned for as long as `self`; see `memory`).
    fn record(&self) -> *mut Record {
        self.memory.ptr().cast::<Record>()
    }

    /// Points a freshly loaded module (before any launch of it) at the record, with the kernel's
    /// description for errors. A module without the globals (no bounds-checked access) is left
    /// as it is.
    pub(crate) fn attach(&self, module: &D::Module, kernel: impl FnOnce() -> String) -> Result<()> {
        self.attach_all(module, || vec![kernel()])
    }

    /// [`Faults::attach`] for a module of several units (a batch): `kernels` names them in slot
    /// order, and they get consecutive numbers, the first one the module's (a batched entry adds
    /// its slot).
    pub(crate) fn attach_all(
        &self,
        module: &D::Module,
        kernels: impl FnOnce() -> Vec<String>,
    ) -> Result<()> {
        let what = || "attaching a kernel to the fault record".to_string();
        let record = module.global(c"fk_fault_record", what)?;
        let unit = module.global(c"fk_fault_unit", what)?;
        let (Some((record_at, 8)), Some((unit_at, 8))) = (record, unit) else {
            return Ok(());
        };
        let number = {
            let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
            let first = seen.units.len() as u64 + 1;
            seen.units.extend(kernels());
            first
        };
        let pointer = self.record() as u64;
        for (at, value) in [(record_at, pointer), (unit_at, number)] {
            // SAFETY: `at` is an 8-byte `__device__` variable of the module, which no launch uses
            // yet (the module was just loaded); the source is a local `u64`, read during the call.
            unsafe {
                D::copy_sync(&self.ctx, at, (&raw const value) as u64, 8, what)?;
            }
        }
        Ok(())
    }

    /// After a synchronization with the device: the faults recorded since the last check, as an
    /// error (`what` names the wait). The record is then ready for the next fault.
    pub(crate) fn check(&self, what: &dyn Fn() -> String) -> Result<()> {
        let record = self.record();
        // SAFETY: the record is valid, aligned pinned memory for as long as `self`; the device
        // updates `count` and `state` only with atomics, so the host uses atomics for them too.
        let (count, state) = unsafe {
            (
                AtomicU64::from_ptr(&raw mut (*record).count),
                AtomicU32::from_ptr(&raw mut (*record).state),
            )
        };
        let count = count.load(Ordering::Acquire);
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if count <= seen.reported {
            return Ok(());
        }
        let new = count - seen.reported;
        seen.reported = count;
        let d = Self::details(record, state);
        let kernel = usize::try_from(d.unit)
            .ok()
            .and_then(|u| u.checked_sub(1))
            .and_then(|u| seen.units.get(u).cloned())
            .unwrap_or_else(|| "a kernel".to_string());
        let (kind, index, extents) = (d.kind, d.index, d.extents);
        if kind == ARITHMETIC {
            return Err(Error::DeviceArithmetic {
                what: what(),
                kernel,
                count: new,
            });
        }
        if kind == PANIC || kind == PANIC_ARGS {
            let message = match kind {
                PANIC_ARGS => super::panic_message::render(&d.message, &index),
                _ => d.message,
            };
            return Err(Error::KernelAbort {
                what: what(),
                kernel,
                message,
                count: new,
            });
        }
        let target = match kind {
            1 => DeviceTarget::Array,
            3 => DeviceTarget::Dimension,
            4 => DeviceTarget::TeamRank,
            6 => DeviceTarget::SubviewRange,
            _ => DeviceTarget::View,
        };
        Err(Error::DeviceOutOfBounds {
            what: what(),
            kernel,
            target,
            index,
            extents,
            count: new,
        })
    }

    /// The details of the first fault since the last check, read once `state` says they are
    /// complete (then `state` is reset for the next fault); empty ones otherwise.
    fn details(record: *mut Record, state: &AtomicU32) -> Details {
        if state.load(Ordering::Acquire) != WRITTEN {
            return Details {
                kind: 0,
                index: Box::default(),
                extents: Box::default(),
                unit: 0,
                message: String::new(),
            };
        }
        // SAFETY: `record` is valid, aligned pinned memory (see `record`); the details are
        // complete and no longer written once `state` reads WRITTEN (the device fenced them before
        // its release of the state), and the caller holds `seen`'s lock.
        let (rank, index, extent, kind, unit, message) = unsafe {
            (
                ((&raw const (*record).rank).read_volatile() as usize).min(8),
                (&raw const (*record).index).read_volatile(),
                (&raw const (*record).extent).read_volatile(),
                (&raw const (*record).kind).read_volatile(),
                (&raw const (*record).unit).read_volatile(),
                (&raw const (*record).message).read_volatile(),
            )
        };
        // Ready for the next fault's details.
        state.store(0, Ordering::Release);
        let len = message
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(message.len());
        Details {
            kind,
            index: index[..rank].into(),
            extents: extent[..rank].into(),
            unit,
            message: String::from_utf8_lossy(&message[..len]).into_owned(),
        }
    }
}
