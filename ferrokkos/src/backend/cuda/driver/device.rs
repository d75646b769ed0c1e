//! Device discovery: the handle of a device ordinal and its properties.

use std::ffi::{c_char, c_int};

use cudarc::driver::sys;
use cudarc::driver::sys::CUdevice_attribute as Attr;

use super::{check, device_count, driver_version_raw, init};
use crate::error::{Error, Result};

/// The properties of one CUDA device that ferrokkos uses to size launches and pick code paths.
#[derive(Debug, Clone)]
pub(crate) struct DeviceInfo {
    /// The device's ordinal (0-based, after `CUDA_VISIBLE_DEVICES`).
    pub ordinal: usize,
    /// The device's name, e.g. `NVIDIA H100 80GB HBM3`.
    pub name: String,
    /// The compute capability `(major, minor)`: `(9, 0)` for sm_90.
    pub compute_capability: (u32, u32),
    /// The number of streaming multiprocessors.
    pub sm_count: u32,
    /// The device memory in bytes.
    pub total_memory: usize,
    /// The most threads a block may have.
    pub max_threads_per_block: u32,
    /// The most threads resident on one multiprocessor.
    pub max_threads_per_sm: u32,
    /// The most blocks resident on one multiprocessor.
    pub max_blocks_per_sm: u32,
    /// The warp size in threads (32 on every NVIDIA GPU so far).
    pub warp_size: u32,
    /// Shared memory a block may use without opting in to more, in bytes (48 KiB).
    pub shared_memory_per_block: usize,
    /// Shared memory a block may use once its kernel opts in, in bytes (227 KiB on an H100).
    pub shared_memory_per_block_optin: usize,
    /// The L2 cache size in bytes.
    pub l2_cache_bytes: usize,
    /// Whether the device supports the stream-ordered allocator (`cuMemAllocAsync`;
    /// `CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED`).
    pub memory_pools: bool,
    /// Whether the host may access managed memory while the device runs
    /// (`CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS`).
    pub concurrent_managed_access: bool,
    /// The most bytes all parameters of one kernel may take together: 32764 with a CUDA 12.1+
    /// driver on compute capability 7.0+, otherwise 4096.
    pub max_param_bytes: usize,
}

impl DeviceInfo {
    /// The architecture number, `major * 10 + minor`: 90 for sm_90.
    pub fn arch(&self) -> u32 {
        self.compute_capability.0 * 10 + self.compute_capability.1
    }
}

/// The driver's handle of device `ordinal`, after [`init`]; [`Error::Unavailable`] naming the
/// ordinal and the device count when there is no such device.
pub(super) fn device_handle(ordinal: usize) -> Result<sys::CUdevice> {
    init()?;
    let count = device_count()?;
    if ordinal >= count {
        return Err(Error::Unavailable {
            space: "Cuda",
            reason: format!(
                "there is no CUDA device {ordinal}: the driver sees {count} device(s) \
                 (valid ordinals 0..{count})"
            ),
        });
    }
    let mut device: sys::CUdevice = 0;
    let index = c_int::try_from(ordinal).expect("ordinal < device count fits in c_int");
    // SAFETY: the driver is initialized and `index` is a valid ordinal; `device` is valid for a
    // write.
    let code = unsafe { sys::cuDeviceGet(&mut device, index) };
    check(code, "cuDeviceGet", || {
        format!("getting the handle of CUDA device {ordinal}")
    })?;
    Ok(device)
}

/// One integer attribute of `device`.
pub(super) fn attribute(device: sys::CUdevice, attr: Attr, ordinal: usize) -> Result<i32> {
    let mut value: c_int = 0;
    // SAFETY: the driver is initialized (callers obtained `device` from `device_handle`); `value`
    // is valid for a write.
    let code = unsafe { sys::cuDeviceGetAttribute(&mut value, attr, device) };
    check(code, "cuDeviceGetAttribute", || {
        format!("querying {attr:?} of CUDA device {ordinal}")
    })?;
    Ok(value)
}

/// The kernel parameter limit for a driver version (`cuDriverGetVersion`'s number) and a
/// compute capability: 32764 bytes from CUDA 12.1 on Volta and newer, 4096 bytes otherwise.
fn max_param_bytes(driver_version: i32, compute_capability: (u32, u32)) -> usize {
    if driver_version >= 12010 && compute_capability.0 >= 7 {
        32764
    } else {
        4096
    }
}

/// The properties of device `ordinal` ([`Error::Unavailable`] if there is no such device).
pub(crate) fn device_info(ordinal: usize) -> Result<DeviceInfo> {
    let device = device_handle(ordinal)?;
    let get = |attr: Attr| attribute(device, attr, ordinal);
    let unsigned = |attr: Attr| get(attr).map(|v| u32::try_from(v).unwrap_or(0));
    let bytes = |attr: Attr| get(attr).map(|v| usize::try_from(v).unwrap_or(0));

    let mut buf: [c_char; 256] = [0; 256];
    let len = c_int::try_from(buf.len()).expect("256 fits in c_int");
    // SAFETY: the driver is initialized; `buf` is valid for `len` bytes, which the driver fills
    // with a NUL-terminated name (truncated if needed).
    let code = unsafe { sys::cuDeviceGetName(buf.as_mut_ptr(), len, device) };
    check(code, "cuDeviceGetName", || {
        format!("querying the name of CUDA device {ordinal}")
    })?;
    let name_bytes: Vec<u8> = buf
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c.to_ne_bytes()[0])
        .collect();
    let name = String::from_utf8_lossy(&name_bytes).into_owned();

    let mut total_memory = 0usize;
    // SAFETY: the driver is initialized; `total_memory` is valid for a write.
    let code = unsafe { sys::cuDeviceTotalMem_v2(&mut total_memory, device) };
    check(code, "cuDeviceTotalMem", || {
        format!("querying the memory size of CUDA device {ordinal}")
    })?;

    let compute_capability = (
        unsigned(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
        unsigned(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
    );
    Ok(DeviceInfo {
        ordinal,
        name,
        compute_capability,
        sm_count: unsigned(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
        total_memory,
        max_threads_per_block: unsigned(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
        max_threads_per_sm: unsigned(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)?,
        max_blocks_per_sm: unsigned(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR)?,
        warp_size: unsigned(Attr::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
        shared_memory_per_block: bytes(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
        shared_memory_per_block_optin: bytes(
            Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
        )?,
        l2_cache_bytes: bytes(Attr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?,
        memory_pools: get(Attr::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED)? != 0,
        concurrent_managed_access: get(Attr::CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS)? != 0,
        max_param_bytes: max_param_bytes(driver_version_raw()?, compute_capability),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parameter_limit_needs_cuda_12_1_and_volta() {
        assert_eq!(max_param_bytes(13000, (9, 0)), 32764);
        assert_eq!(max_param_bytes(12010, (7, 0)), 32764);
        assert_eq!(max_param_bytes(12000, (9, 0)), 4096);
        assert_eq!(max_param_bytes(13000, (6, 1)), 4096);
    }

    #[test]
    fn arch_is_major_times_ten_plus_minor() {
        let info = DeviceInfo {
            ordinal: 0,
            name: "test".into(),
            compute_capability: (8, 6),
            sm_count: 1,
            total_memory: 0,
            max_threads_per_block: 1024,
            max_threads_per_sm: 1536,
            max_blocks_per_sm: 16,
            warp_size: 32,
            shared_memory_per_block: 48 << 10,
            shared_memory_per_block_optin: 99 << 10,
            l2_cache_bytes: 0,
            memory_pools: true,
            concurrent_managed_access: true,
            max_param_bytes: 32764,
        };
        assert_eq!(info.arch(), 86);
    }

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn device_0_has_sane_properties() {
        let info = device_info(0).expect("device 0");
        eprintln!("{info:#?}");
        assert_eq!(info.ordinal, 0);
        assert!(!info.name.is_empty());
        assert!(info.arch() >= 70, "arch {}", info.arch());
        assert!(info.sm_count > 0);
        assert!(info.total_memory > 1 << 30);
        assert_eq!(info.warp_size, 32);
        assert!(info.max_threads_per_block >= 1024);
        assert!(info.max_threads_per_sm >= info.max_threads_per_block);
        assert!(info.max_blocks_per_sm >= 16);
        assert!(info.shared_memory_per_block >= 48 << 10);
        assert!(info.shared_memory_per_block_optin >= info.shared_memory_per_block);
        assert!(info.l2_cache_bytes > 0);
        assert!(
            info.memory_pools,
            "Linux drivers support memory pools on sm_70+"
        );
        assert_eq!(info.max_param_bytes, 32764);
    }

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn an_ordinal_past_the_count_is_unavailable() {
        let count = device_count().expect("count");
        let err = device_info(count).expect_err("no such device");
        match &err {
            Error::Unavailable { space, reason } => {
                assert_eq!(*space, "Cuda");
                assert!(reason.contains(&format!("device {count}")), "{reason}");
                assert!(reason.contains(&format!("sees {count} device")), "{reason}");
            }
            other => panic!("expected Error::Unavailable, got {other:?}"),
        }
    }
}
