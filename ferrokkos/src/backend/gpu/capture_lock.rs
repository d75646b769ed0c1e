//! Graph captures and waits for the whole device exclude each other. A wait for every stream of
//! the context (`cuCtxSynchronize`: a fence of all instances, dropping a graph) takes in a stream
//! that another thread is capturing, which invalidates that capture
//! (`CUDA_ERROR_STREAM_CAPTURE_INVALIDATED` at its next launch). So each node's capture holds
//! [`CAPTURES`] shared while its stream captures, and such a wait holds it exclusively.
//!
//! A thread that is itself capturing does not wait for the lock (it holds it shared): a fence of
//! the whole device there is an error, as a graph cannot hold one.

use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::error::{Error, Result};

/// Held shared by captures in progress, exclusively by waits for the whole device.
static CAPTURES: RwLock<()> = RwLock::new(());

/// The shared hold of one node's capture, for as long as its stream captures.
pub(crate) fn capturing() -> RwLockReadGuard<'static, ()> {
    CAPTURES.read().unwrap_or_else(|e| e.into_inner())
}

/// The exclusive hold of a wait for the whole device (no capture runs meanwhile); `None` on a
/// thread that is recording a graph, which holds the lock itself.
pub(crate) fn whole_device() -> Option<RwLockWriteGuard<'static, ()>> {
    if super::queue::recording_here() {
        return None;
    }
    Some(CAPTURES.write().unwrap_or_else(|e| e.into_inner()))
}

/// [`whole_device`] for a fence of every instance: an error on a thread recording a graph.
pub(crate) fn fence_whole_device(
    what: &dyn Fn() -> String,
) -> Result<RwLockWriteGuard<'static, ()>> {
    whole_device().ok_or_else(|| Error::Unsupported {
        what: what(),
        reason: "a graph's node cannot wait for the whole device; fence the instance it was \
                 given, or fence after the graph's submit"
            .into(),
    })
}
