//! [`Scratch`]: the device and pinned host memory one instance reuses from launch to launch
//! (reduction partials, the pinned slot a result comes back through, teams' level-1 scratch, a
//! sort's temporaries).

use std::sync::Arc;

use super::driver::{DeviceBuffer as _, Driver, PinnedBuffer as _, Stream as _};
use crate::error::Result;

/// Device and pinned host memory an instance reuses from launch to launch; only work on the
/// instance's own stream uses it, so stream order makes reuse safe. The buffers free themselves
/// (the driver's buffers): the device buffers in the stream's order on
/// the instance's stream, which they hold, so the stream outlives them.
pub(crate) struct Scratch<D: Driver> {
    /// Growable device scratch (reduction partials and result, scan totals and total).
    device: Option<D::DeviceBuffer>,
    /// Growable device memory for the level-1 scratch of team launches (a slice per block).
    team: Option<D::DeviceBuffer>,
    /// Growable device memory for a sort's temporaries (kept: allocating hundreds of megabytes
    /// again for every sort would cost more than the sort).
    sort: Option<D::DeviceBuffer>,
    /// The zeroed `u32` counter of fused reductions (256 bytes).
    counter: Option<D::DeviceBuffer>,
    /// Growable pinned memory a result comes back through.
    pinned: Option<D::PinnedBuffer>,
    /// The instance's stream: the only stream whose work uses the device buffers.
    stream: Arc<D::Stream>,
    /// A recording queue's scratch: every request gets memory of its own, kept as long as the
    /// queue (a graph's nodes may run at once, and each replay uses the addresses recorded).
    recording: bool,
    /// The memory handed out while recording.
    kept: Vec<D::DeviceBuffer>,
}

impl<D: Driver> Scratch<D> {
    /// Scratch memory for the work of `stream` (allocated on first use).
    pub(crate) fn new(stream: &Arc<D::Stream>, recording: bool) -> Scratch<D> {
        Scratch {
            stream: Arc::clone(stream),
            device: None,
            team: None,
            sort: None,
            counter: None,
            pinned: None,
            recording,
            kept: Vec::new(),
        }
    }

    /// `bytes` of device memory of its own for a recording queue (not stream-ordered: the
    /// recording stream is capturing), zeroed when `zeroed`; kept with the scratch.
    fn kept(&mut self, bytes: usize, zeroed: bool) -> Result<u64> {
        let what = || {
            format!(
                "allocating {bytes} bytes of scratch memory for a {} graph",
                D::SPACE
            )
        };
        let buffer = D::DeviceBuffer::new(self.stream.context(), bytes, what)?;
        if zeroed {
            // SAFETY: `buffer` is new, `bytes` long, and used by nothing else yet.
            unsafe { D::fill_sync(self.stream.context(), buffer.ptr(), 0, bytes, what)? };
        }
        let ptr = buffer.ptr();
        self.kept.push(buffer);
        Ok(ptr)
    }

    /// At least `bytes` of device scratch memory (grown stream-ordered on the instance's stream:
    /// the old buffer is freed after the work enqueued so far, which may still use it).
    pub(crate) fn device(&mut self, bytes: usize) -> Result<u64> {
        if self.recording {
            return self.kept(bytes.max(1), false);
        }
        let len = self.device.as_ref().map_or(0, |b| b.len());
        if bytes > len {
            let grown = bytes.next_power_of_two().max(4096);
            if let Some(old) = self.device.take() {
                // Only work on this stream uses it (the buffer's invariant): freed after that work.
                old.free()?;
            }
            self.device = Some(D::DeviceBuffer::on_stream(&self.stream, grown, || {
                format!("allocating the scratch memory of a {} instance", D::SPACE)
            })?);
        }
        Ok(self.device.as_ref().map_or(0, |b| b.ptr()))
    }

    /// At least `bytes` of device memory for a team launch's level-1 scratch (0 bytes: the null
    /// address), grown like [`Scratch::device`] to a multiple of 1 MiB. A failed allocation is an
    /// error naming level 1 and the bytes.
    pub(crate) fn team(&mut self, bytes: usize) -> Result<u64> {
        if bytes == 0 {
            return Ok(0);
        }
        if self.recording {
            return self.kept(bytes, false);
        }
        let len = self.team.as_ref().map_or(0, |b| b.len());
        if bytes > len {
            let grown = bytes.checked_next_multiple_of(1 << 20).unwrap_or(bytes);
            if let Some(old) = self.team.take() {
                // Only work on this stream uses it (the buffer's invariant): freed after that work.
                old.free()?;
            }
            self.team = Some(D::DeviceBuffer::on_stream(&self.stream, grown, || {
                format!(
                    "allocating {grown} bytes for {bytes} bytes of level-1 team scratch on a {} \
                     instance",
                    D::SPACE
                )
            })?);
        }
        Ok(self.team.as_ref().map_or(0, |b| b.ptr()))
    }

    /// At least `bytes` of device memory for a sort's temporaries, grown like [`Scratch::device`]
    /// to a multiple of 1 MiB. Not while recording (a graph holds no sort).
    pub(crate) fn sort(&mut self, bytes: usize) -> Result<u64> {
        if self.recording {
            return Err(crate::error::Error::Internal {
                what: format!("recording a {} graph", D::SPACE),
                reason: "sort temporaries were asked for while recording".into(),
            });
        }
        let len = self.sort.as_ref().map_or(0, |b| b.len());
        if bytes > len {
            let grown = bytes.checked_next_multiple_of(1 << 20).unwrap_or(bytes);
            if let Some(old) = self.sort.take() {
                // Only work on this stream uses it (the buffer's invariant): freed after that work.
                old.free()?;
            }
            self.sort = Some(D::DeviceBuffer::on_stream(&self.stream, grown, || {
                format!(
                    "allocating {grown} bytes for the temporaries of a sort on a {} instance",
                    D::SPACE
                )
            })?);
        }
        Ok(self.sort.as_ref().map_or(0, |b| b.ptr()))
    }

    /// The zeroed `u32` counter of fused reductions (each reduction leaves it at zero again).
    pub(crate) fn counter(&mut self) -> Result<u64> {
        if self.recording {
            return self.kept(256, true);
        }
        if let Some(c) = &self.counter {
            return Ok(c.ptr());
        }
        let c = D::DeviceBuffer::on_stream(&self.stream, 256, || {
            format!(
                "allocating the reduction counter of a {} instance",
                D::SPACE
            )
        })?;
        // SAFETY: `c` has 256 bytes, stream-ordered before every use on this stream.
        if let Err(e) = unsafe { self.stream.fill_async(c.ptr(), &[0], 256, String::new) } {
            // Freed in stream order; the fill's error is the one to report.
            let _ = c.free();
            return Err(e);
        }
        let ptr = c.ptr();
        self.counter = Some(c);
        Ok(ptr)
    }

    /// At least `bytes` of pinned host memory. Call only when no work on the stream uses the old
    /// buffer any more (after a synchronization), since growing frees it at once.
    pub(crate) fn pinned(&mut self, bytes: usize) -> Result<*mut u8> {
        if self.recording {
            return Err(crate::error::Error::Internal {
                what: format!("recording a {} graph", D::SPACE),
                reason: "pinned scratch was asked for while recording".into(),
            });
        }
        let len = self.pinned.as_ref().map_or(0, |b| b.len());
        if bytes > len {
            let grown = bytes.next_power_of_two().max(256);
            if let Some(old) = self.pinned.take() {
                // The caller guarantees that no device work still uses the old buffer.
                old.free()?;
            }
            self.pinned = Some(D::PinnedBuffer::new(self.stream.context(), grown, || {
                format!(
                    "allocating the pinned result buffer of a {} instance",
                    D::SPACE
                )
            })?);
        }
        Ok(self
            .pinned
            .as_ref()
            .map_or(std::ptr::null_mut(), |b| b.ptr()))
    }
}
