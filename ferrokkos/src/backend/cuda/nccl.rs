//! The NCCL layer: a checked, owning wrapper over cudarc's raw `nccl::sys` bindings, as
//! `driver/` is over libcuda's.
//!
//! libnccl is loaded at run time (cudarc's `dynamic-loading`), and cudarc panics when a function
//! of an absent library or an absent symbol is called; so every entry point first goes through
//! [`check_library`], which returns [`BackendError::LibraryMissing`] unless the library loads and
//! exports every function this layer calls.
//!
//! Invariants: a [`RawComm`] is a communicator that `ncclCommInitRank` created and nothing else
//! destroys; its operations are enqueued on a stream of the context it was created on (the
//! callers bind that context first and order the operation after the work using its buffers).

use std::ffi::{CStr, c_int};
use std::sync::OnceLock;

use cudarc::nccl::sys;

use super::driver::Stream;
use crate::error::{BackendError, Error, Result};

/// The library's name in errors.
const LIBRARY: &str = "libnccl";

/// The functions this layer calls; the library must export all of them.
const SYMBOLS: [&str; 9] = [
    "ncclGetUniqueId",
    "ncclCommInitRank",
    "ncclCommDestroy",
    "ncclAllReduce",
    "ncclSend",
    "ncclRecv",
    "ncclGroupStart",
    "ncclGroupEnd",
    "ncclGetErrorString",
];

/// The bytes of an `ncclUniqueId`.
pub(crate) const ID_BYTES: usize = 128;

/// `Ok` when libnccl loads and exports every function in [`SYMBOLS`], otherwise the missing
/// symbol (`None`: no library). Computed once per process.
fn library() -> std::result::Result<(), Option<&'static str>> {
    static STATE: OnceLock<std::result::Result<(), Option<&'static str>>> = OnceLock::new();
    *STATE.get_or_init(|| {
        // SAFETY: this only tries to dlopen each candidate name (running the library's
        // initializers, which have no preconditions) and closes it again.
        if !unsafe { sys::is_culib_present() } {
            return Err(None);
        }
        // SAFETY: the library is present, so `culib` loads it by the same names without
        // panicking; each symbol is only looked up here, never called through this type.
        let has = |name: &str| unsafe {
            sys::culib()
                .get::<*const std::ffi::c_void>(name.as_bytes())
                .is_ok()
        };
        match SYMBOLS.iter().find(|name| !has(name)) {
            Some(name) => Err(Some(name)),
            None => Ok(()),
        }
    })
}

/// [`BackendError::LibraryMissing`] unless libnccl is usable.
pub(crate) fn check_library() -> Result<()> {
    library().map_err(|missing| {
        let hint = match missing {
            None => {
                let names = cudarc::get_lib_name_candidates("nccl");
                format!(
                    "none of {names:?} was found by the dynamic loader; install NCCL (the \
                     libnccl2 package, or the nvidia-nccl wheel) or put its directory on \
                     LD_LIBRARY_PATH"
                )
            }
            Some(symbol) => format!(
                "the library was found but does not export {symbol}; NCCL 2.18 or newer is \
                 needed"
            ),
        };
        Error::Backend(BackendError::LibraryMissing {
            library: LIBRARY,
            hint,
        })
    })
}

/// Whether libnccl is usable.
pub(crate) fn is_available() -> bool {
    library().is_ok()
}

/// `Ok` on `ncclSuccess`, otherwise [`BackendError::Nccl`] naming `call`, NCCL's message and
/// `what` (evaluated only on error). Only call once the library is checked.
fn check(code: sys::ncclResult_t, call: &'static str, what: impl FnOnce() -> String) -> Result<()> {
    if code == sys::ncclResult_t::ncclSuccess {
        return Ok(());
    }
    // SAFETY: the library is loaded (every caller passed `check_library`); ncclGetErrorString
    // returns a static NUL-terminated string for any code.
    let text = unsafe {
        let s = sys::ncclGetErrorString(code);
        if s.is_null() {
            String::new()
        } else {
            CStr::from_ptr(s).to_string_lossy().into_owned()
        }
    };
    Err(Error::Backend(BackendError::Nccl {
        call,
        name: format!("{code:?}"),
        message: text,
        what: what(),
    }))
}

/// A new unique id for a communicator (`ncclGetUniqueId`): one rank makes it and every rank
/// passes it to [`RawComm::init`].
pub(crate) fn unique_id() -> Result<[u8; ID_BYTES]> {
    check_library()?;
    let mut id = sys::ncclUniqueId {
        internal: [0; ID_BYTES],
    };
    // SAFETY: the library is usable (checked above) and `id` is valid for a write.
    let code = unsafe { sys::ncclGetUniqueId(&mut id) };
    check(code, "ncclGetUniqueId", || {
        "making the unique id of an NCCL communicator".into()
    })?;
    Ok(id.internal.map(|c| c as u8))
}

/// The NCCL data types this layer moves (`pub` in this private module: unnameable outside the
/// crate, it can appear in the sealed `NcclType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataType {
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
}

impl DataType {
    fn raw(self) -> sys::ncclDataType_t {
        use sys::ncclDataType_t as T;
        match self {
            DataType::I32 => T::ncclInt32,
            DataType::U32 => T::ncclUint32,
            DataType::I64 => T::ncclInt64,
            DataType::U64 => T::ncclUint64,
            DataType::F32 => T::ncclFloat32,
            DataType::F64 => T::ncclFloat64,
        }
    }
}

/// A reduction of [`RawComm::all_reduce`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RedOp {
    Sum,
    Prod,
    Max,
    Min,
}

impl RedOp {
    fn raw(self) -> sys::ncclRedOp_t {
        use sys::ncclRedOp_t as O;
        match self {
            RedOp::Sum => O::ncclSum,
            RedOp::Prod => O::ncclProd,
            RedOp::Max => O::ncclMax,
            RedOp::Min => O::ncclMin,
        }
    }
}

/// One rank's communicator, destroyed on drop.
pub(crate) struct RawComm {
    raw: sys::ncclComm_t,
}

impl RawComm {
    /// Joins communicator `id` as `rank` of `ranks` (`ncclCommInitRank`; returns once every
    /// rank has joined). The caller has made the context of the rank's device current.
    pub(crate) fn init(
        id: &[u8; ID_BYTES],
        rank: usize,
        ranks: usize,
        what: &dyn Fn() -> String,
    ) -> Result<RawComm> {
        check_library()?;
        let (Ok(rank_c), Ok(ranks_c)) = (c_int::try_from(rank), c_int::try_from(ranks)) else {
            return Err(Error::InvalidArgument {
                operation: "NcclComm::new",
                reason: format!("{}: rank {rank} of {ranks} does not fit NCCL's int", what()),
            });
        };
        let unique = sys::ncclUniqueId {
            internal: id.map(|b| b as std::ffi::c_char),
        };
        let mut raw: sys::ncclComm_t = std::ptr::null_mut();
        // SAFETY: the library is usable; `raw` is valid for a write; `rank < ranks` is checked
        // by the caller (NCCL refuses anything else with an error, not undefined behaviour).
        let code = unsafe { sys::ncclCommInitRank(&mut raw, ranks_c, unique, rank_c) };
        check(code, "ncclCommInitRank", what)?;
        Ok(RawComm { raw })
    }

    /// Enqueues an all-reduce of `count` elements in place at `ptr` on `stream`.
    ///
    /// # Safety
    /// `ptr` is device memory of this communicator's device holding `count` elements of `dtype`,
    /// alive and used by nothing else until the operation completes on `stream`, which belongs
    /// to the communicator's context (made current by the caller).
    pub(crate) unsafe fn all_reduce(
        &self,
        ptr: u64,
        count: usize,
        dtype: DataType,
        op: RedOp,
        stream: &Stream,
        what: &dyn Fn() -> String,
    ) -> Result<()> {
        // SAFETY: the caller's contract; in place (send and receive buffers equal) is allowed.
        let code = unsafe {
            sys::ncclAllReduce(
                ptr as *const std::ffi::c_void,
                ptr as *mut std::ffi::c_void,
                count,
                dtype.raw(),
                op.raw(),
                self.raw,
                stream.raw() as sys::cudaStream_t,
            )
        };
        check(code, "ncclAllReduce", what)
    }

    /// Enqueues a send of `count` elements at `ptr` to `peer` on `stream`, or a receive into
    /// them from `peer` when `receive`.
    ///
    /// # Safety
    /// As [`RawComm::all_reduce`] (reading only, for a send).
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn send_or_recv(
        &self,
        receive: bool,
        ptr: u64,
        count: usize,
        dtype: DataType,
        peer: c_int,
        stream: &Stream,
        what: &dyn Fn() -> String,
    ) -> Result<()> {
        let s = stream.raw() as sys::cudaStream_t;
        let buf = ptr as *mut std::ffi::c_void;
        // SAFETY: the caller's contract.
        let (code, call) = unsafe {
            if receive {
                (
                    sys::ncclRecv(buf, count, dtype.raw(), peer, self.raw, s),
                    "ncclRecv",
                )
            } else {
                (
                    sys::ncclSend(buf, count, dtype.raw(), peer, self.raw, s),
                    "ncclSend",
                )
            }
        };
        check(code, call, what)
    }
}

/// Runs `ops` between `ncclGroupStart` and `ncclGroupEnd` (so that the sends and receives of
/// one exchange are matched together and none waits for another); the group is ended also
/// when an operation fails. The library must be checked.
pub(crate) fn group(what: &dyn Fn() -> String, ops: impl FnOnce() -> Result<()>) -> Result<()> {
    // SAFETY: the library is usable (the caller holds a communicator); group calls have no
    // other precondition.
    check(unsafe { sys::ncclGroupStart() }, "ncclGroupStart", what)?;
    let done = ops();
    // SAFETY: as above; ends the group started here.
    let ended = check(unsafe { sys::ncclGroupEnd() }, "ncclGroupEnd", what);
    done.and(ended)
}

impl Drop for RawComm {
    fn drop(&mut self) {
        // SAFETY: `raw` came from ncclCommInitRank and is destroyed only here; the owner has
        // waited for the operations enqueued with it.
        let code = unsafe { sys::ncclCommDestroy(self.raw) };
        if let Err(e) = check(code, "ncclCommDestroy", || {
            "destroying an NCCL communicator".into()
        }) {
            eprintln!("ferrokkos: {e}");
        }
    }
}
