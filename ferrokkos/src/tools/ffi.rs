//! The C types and function-pointer types of Kokkos' profiling interface
//! (`Kokkos_Profiling_C_Interface.h`, interface version 20240906), written out so that an unmodified
//! Kokkos Tools library can be called.

use std::ffi::c_char;

/// The interface version passed to `kokkosp_init_library` (`KOKKOSP_INTERFACE_VERSION`).
pub(crate) const INTERFACE_VERSION: u64 = 20240906;

/// `struct Kokkos_Profiling_KokkosPDeviceInfo`.
#[repr(C)]
pub(crate) struct DeviceInfo {
    /// The device's ID (unused: ferrokkos passes no device information, as Kokkos does).
    pub(crate) device_id: usize,
}

/// `struct Kokkos_Profiling_SpaceHandle`: a memory space's name, passed by value.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct SpaceHandle {
    /// The name, NUL-terminated when shorter than 64 bytes.
    pub(crate) name: [c_char; 64],
}

impl SpaceHandle {
    /// The handle of the memory space named `name` (`"Host"`, `"Cuda"`, ...), cut at 63 bytes as
    /// Kokkos' `strncpy(handle.name, name, 63)` does.
    pub(crate) fn new(name: &str) -> SpaceHandle {
        let mut handle = SpaceHandle { name: [0; 64] };
        for (slot, byte) in handle.name.iter_mut().zip(name.bytes().take(63)) {
            *slot = byte as c_char;
        }
        handle
    }
}

/// `Kokkos_Tools_toolInvokedFenceFunction`: the fence a tool may call (with a device ID).
pub(crate) type ToolFenceFn = extern "C" fn(u32);

/// `Kokkos_Tools_functionPointer`: an unused slot of the programming interface.
pub(crate) type AnyFn = extern "C" fn();

/// `struct Kokkos_Tools_ToolProgrammingInterface`: the functions ferrokkos offers to a tool, passed
/// by value.
#[repr(C)]
pub(crate) struct ToolProgrammingInterface {
    /// Fences the instance with that device ID (all instances for a global one).
    pub(crate) fence: ToolFenceFn,
    /// Room for more actions; all null.
    pub(crate) padding: [Option<AnyFn>; 31],
}

/// `struct Kokkos_Tools_ToolSettings`: what a tool asks of the runtime.
#[repr(C)]
pub(crate) struct ToolSettings {
    /// Whether kernels, regions and their ends are surrounded by a global fence (on unless the tool
    /// clears it).
    pub(crate) requires_global_fencing: bool,
    /// Room for more settings.
    pub(crate) padding: [bool; 255],
}

/// `kokkosp_init_library(loadSeq, interfaceVersion, devInfoCount, deviceInfo)`.
pub(crate) type InitFn = unsafe extern "C" fn(i32, u64, u32, *mut DeviceInfo);
/// `kokkosp_finalize_library()`, `kokkosp_pop_profile_region()`, `kokkosp_end_deep_copy()`.
pub(crate) type VoidFn = unsafe extern "C" fn();
/// `kokkosp_parse_args(argc, argv)`.
pub(crate) type ParseArgsFn = unsafe extern "C" fn(i32, *mut *mut c_char);
/// `kokkosp_begin_parallel_*(name, deviceId, &kernelId)` and `kokkosp_begin_fence`.
pub(crate) type BeginFn = unsafe extern "C" fn(*const c_char, u32, *mut u64);
/// `kokkosp_end_parallel_*(kernelId)` and `kokkosp_end_fence`.
pub(crate) type EndFn = unsafe extern "C" fn(u64);
/// `kokkosp_push_profile_region(name)` and `kokkosp_profile_event(name)`.
pub(crate) type NameFn = unsafe extern "C" fn(*const c_char);
/// `kokkosp_allocate_data` and `kokkosp_deallocate_data`: `(space, label, ptr, bytes)`.
pub(crate) type DataFn = unsafe extern "C" fn(SpaceHandle, *const c_char, *const u8, u64);
/// `kokkosp_begin_deep_copy(dst space, dst label, dst ptr, src space, src label, src ptr, bytes)`.
pub(crate) type BeginDeepCopyFn = unsafe extern "C" fn(
    SpaceHandle,
    *const c_char,
    *const u8,
    SpaceHandle,
    *const c_char,
    *const u8,
    u64,
);
/// `kokkosp_dual_view_sync(label, ptr, is_device)` and `kokkosp_dual_view_modify(label, ptr,
/// is_device)`.
pub(crate) type DualViewFn = unsafe extern "C" fn(*const c_char, *const u8, bool);
/// `kokkosp_create_profile_section(name, &sectionId)`.
pub(crate) type CreateSectionFn = unsafe extern "C" fn(*const c_char, *mut u32);
/// `kokkosp_start/stop/destroy_profile_section(sectionId)`.
pub(crate) type SectionFn = unsafe extern "C" fn(u32);
/// `kokkosp_declare_metadata(key, value)`.
pub(crate) type MetadataFn = unsafe extern "C" fn(*const c_char, *const c_char);
/// `kokkosp_request_tool_settings(count, &settings)`.
pub(crate) type RequestSettingsFn = unsafe extern "C" fn(u32, *mut ToolSettings);
/// `kokkosp_provide_tool_programming_interface(count, interface)` (the struct by value).
pub(crate) type ProvideInterfaceFn = unsafe extern "C" fn(u32, ToolProgrammingInterface);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structs_have_the_c_layout() {
        assert_eq!(std::mem::size_of::<SpaceHandle>(), 64);
        assert_eq!(std::mem::size_of::<ToolSettings>(), 256);
        assert_eq!(
            std::mem::size_of::<ToolProgrammingInterface>(),
            32 * std::mem::size_of::<usize>()
        );
        assert_eq!(std::mem::size_of::<DeviceInfo>(), 8);
    }

    #[test]
    fn space_handles_are_cut_at_63_bytes_and_terminated() {
        let h = SpaceHandle::new("CudaHostPinned");
        let name: Vec<u8> = h.name.iter().take(14).map(|&c| c as u8).collect();
        assert_eq!(name, b"CudaHostPinned");
        assert_eq!(h.name[14], 0);
        let long = "x".repeat(100);
        let h = SpaceHandle::new(&long);
        assert!(h.name[..63].iter().all(|&c| c as u8 == b'x'));
        assert_eq!(h.name[63], 0);
    }
}
