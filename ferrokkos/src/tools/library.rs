//! A loaded Kokkos Tools library: the shared object and the `kokkosp_*` callbacks it exports.
//!
//! Each callback is looked up once, at load. A symbol the library does not export disables that
//! callback only (old tools lack e.g. `kokkosp_end_parallel_scan` or the fence callbacks), as in
//! Kokkos; a symbol that is not a function (a data object of that name) fails the load
//! (`symbol_kind.rs`), since calling it would crash the process. The callers in this file are the
//! only places that call into the tool.

use std::ffi::{CString, c_char};

use super::ffi::{self, SpaceHandle, ToolProgrammingInterface, ToolSettings};
use crate::error::{Error, Result};

/// The callbacks a tool exports; `None` where it lacks the symbol.
#[derive(Default)]
struct Callbacks {
    init: Option<ffi::InitFn>,
    finalize: Option<ffi::VoidFn>,
    parse_args: Option<ffi::ParseArgsFn>,
    begin_for: Option<ffi::BeginFn>,
    end_for: Option<ffi::EndFn>,
    begin_reduce: Option<ffi::BeginFn>,
    end_reduce: Option<ffi::EndFn>,
    begin_scan: Option<ffi::BeginFn>,
    end_scan: Option<ffi::EndFn>,
    begin_fence: Option<ffi::BeginFn>,
    end_fence: Option<ffi::EndFn>,
    push_region: Option<ffi::NameFn>,
    pop_region: Option<ffi::VoidFn>,
    allocate: Option<ffi::DataFn>,
    deallocate: Option<ffi::DataFn>,
    begin_deep_copy: Option<ffi::BeginDeepCopyFn>,
    end_deep_copy: Option<ffi::VoidFn>,
    dual_view_sync: Option<ffi::DualViewFn>,
    dual_view_modify: Option<ffi::DualViewFn>,
    create_section: Option<ffi::CreateSectionFn>,
    start_section: Option<ffi::SectionFn>,
    stop_section: Option<ffi::SectionFn>,
    destroy_section: Option<ffi::SectionFn>,
    profile_event: Option<ffi::NameFn>,
    declare_metadata: Option<ffi::MetadataFn>,
    request_settings: Option<ffi::RequestSettingsFn>,
    provide_interface: Option<ffi::ProvideInterfaceFn>,
}

/// Which parallel pattern a kernel callback is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pattern {
    /// `parallel_for`.
    For,
    /// `parallel_reduce`.
    Reduce,
    /// `parallel_scan`.
    Scan,
}

impl Pattern {
    /// The pattern's name, as in `parallel_for`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Pattern::For => "parallel_for",
            Pattern::Reduce => "parallel_reduce",
            Pattern::Scan => "parallel_scan",
        }
    }
}

/// A Kokkos Tools library, kept loaded while its callbacks may be called.
pub(crate) struct ToolLibrary {
    callbacks: Callbacks,
    // Declared last: the library is unloaded after the callbacks are gone.
    _library: libloading::Library,
}

/// `text` as a C string, cut at an interior NUL.
pub(crate) fn c_string(text: &str) -> CString {
    let end = text.find('\0').unwrap_or(text.len());
    CString::new(&text[..end]).unwrap_or_default()
}

impl ToolLibrary {
    /// Loads the library at `path` (with `RTLD_NOW | RTLD_GLOBAL`, as Kokkos does) and looks up its
    /// callbacks. A file that cannot be loaded, a `kokkosp_*` symbol that is not a function (naming
    /// the symbol and its type), or a library that exports no `kokkosp_` function, is an
    /// [`Error::ToolLibrary`].
    pub(crate) fn load(path: &str) -> Result<ToolLibrary> {
        let fail = |reason: String| Error::ToolLibrary {
            path: path.to_string(),
            reason,
        };
        if path.is_empty() {
            return Err(fail("the path is empty".into()));
        }
        let flags = libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_GLOBAL;
        // SAFETY: loading a library runs its initializers; a Kokkos Tools library is code the user
        // asked to run in this process (the same trust Kokkos gives it).
        let library = unsafe { libloading::os::unix::Library::open(Some(path), flags) }
            .map_err(|e| fail(with_sources(&e)))?;
        let library = libloading::Library::from(library);
        let callbacks = lookup(&library).map_err(fail)?;
        if !callbacks.any() {
            return Err(fail(
                "the library exports no kokkosp_* function: it is not a Kokkos Tools library"
                    .into(),
            ));
        }
        Ok(ToolLibrary {
            callbacks,
            _library: library,
        })
    }

    /// `kokkosp_init_library(0, 20240906, 0, NULL)`.
    pub(crate) fn init(&self) {
        if let Some(f) = self.callbacks.init {
            // SAFETY: `f` is the library's `kokkosp_init_library` with Kokkos' signature; the
            // library stays loaded while `self` lives. No device info is passed (count 0, NULL).
            unsafe { f(0, ffi::INTERFACE_VERSION, 0, std::ptr::null_mut()) }
        }
    }

    /// `kokkosp_request_tool_settings(1, &settings)`: whether the tool wants global fencing (on
    /// unless it clears the flag).
    pub(crate) fn request_global_fencing(&self) -> bool {
        let mut settings = ToolSettings {
            requires_global_fencing: true,
            padding: [false; 255],
        };
        if let Some(f) = self.callbacks.request_settings {
            // SAFETY: `settings` is a live, writable `Kokkos_Tools_ToolSettings` for the call.
            unsafe { f(1, &mut settings) }
        }
        settings.requires_global_fencing
    }

    /// `kokkosp_provide_tool_programming_interface(1, {fence})`.
    pub(crate) fn provide_interface(&self, fence: ffi::ToolFenceFn) {
        if let Some(f) = self.callbacks.provide_interface {
            let interface = ToolProgrammingInterface {
                fence,
                padding: [None; 31],
            };
            // SAFETY: the struct is passed by value with its C layout; `fence` is an `extern "C"`
            // function that lives as long as the program.
            unsafe { f(1, interface) }
        }
    }

    /// `kokkosp_parse_args(argc, argv)` with `argv[0]` = the program, then `args`; not called when
    /// there are no arguments (as in Kokkos).
    pub(crate) fn parse_args(&self, program: &str, args: &[String]) {
        let Some(f) = self.callbacks.parse_args else {
            return;
        };
        if args.is_empty() {
            return;
        }
        let strings: Vec<CString> = std::iter::once(program)
            .chain(args.iter().map(String::as_str))
            .map(c_string)
            .collect();
        let mut argv: Vec<*mut c_char> = strings.iter().map(|s| s.as_ptr().cast_mut()).collect();
        argv.push(std::ptr::null_mut());
        // SAFETY: `argv` holds `argc` pointers to NUL-terminated strings that outlive the call, then
        // NULL, as C's `main` receives them.
        unsafe { f(strings.len() as i32, argv.as_mut_ptr()) }
    }

    /// `kokkosp_finalize_library()`.
    pub(crate) fn finalize(&self) {
        if let Some(f) = self.callbacks.finalize {
            // SAFETY: the library's `kokkosp_finalize_library`, taking no arguments.
            unsafe { f() }
        }
    }

    /// `kokkosp_begin_parallel_<pattern>(name, device_id, &kernel_id)`: the kernel ID the tool chose
    /// (0 when it lacks the callback).
    pub(crate) fn begin_kernel(&self, pattern: Pattern, name: &str, device_id: u32) -> u64 {
        let f = match pattern {
            Pattern::For => self.callbacks.begin_for,
            Pattern::Reduce => self.callbacks.begin_reduce,
            Pattern::Scan => self.callbacks.begin_scan,
        };
        begin(f, name, device_id)
    }

    /// Whether the tool has the begin (`end == false`) or end callback of `pattern`: Kokkos adds the
    /// tool's global fence only before a callback the tool has.
    pub(crate) fn has_kernel_callback(&self, pattern: Pattern, end: bool) -> bool {
        let c = &self.callbacks;
        match (pattern, end) {
            (Pattern::For, false) => c.begin_for.is_some(),
            (Pattern::For, true) => c.end_for.is_some(),
            (Pattern::Reduce, false) => c.begin_reduce.is_some(),
            (Pattern::Reduce, true) => c.end_reduce.is_some(),
            (Pattern::Scan, false) => c.begin_scan.is_some(),
            (Pattern::Scan, true) => c.end_scan.is_some(),
        }
    }

    /// Whether the tool has `kokkosp_push_profile_region` (`pop == false`) or
    /// `kokkosp_pop_profile_region`.
    pub(crate) fn has_region_callback(&self, pop: bool) -> bool {
        if pop {
            self.callbacks.pop_region.is_some()
        } else {
            self.callbacks.push_region.is_some()
        }
    }

    /// `kokkosp_end_parallel_<pattern>(kernel_id)`.
    pub(crate) fn end_kernel(&self, pattern: Pattern, kernel_id: u64) {
        let f = match pattern {
            Pattern::For => self.callbacks.end_for,
            Pattern::Reduce => self.callbacks.end_reduce,
            Pattern::Scan => self.callbacks.end_scan,
        };
        end(f, kernel_id)
    }

    /// `kokkosp_begin_fence(name, device_id, &fence_id)`.
    pub(crate) fn begin_fence(&self, name: &str, device_id: u32) -> u64 {
        begin(self.callbacks.begin_fence, name, device_id)
    }

    /// `kokkosp_end_fence(fence_id)`.
    pub(crate) fn end_fence(&self, fence_id: u64) {
        end(self.callbacks.end_fence, fence_id)
    }

    /// `kokkosp_push_profile_region(name)`.
    pub(crate) fn push_region(&self, name: &str) {
        named(self.callbacks.push_region, name)
    }

    /// `kokkosp_pop_profile_region()`.
    pub(crate) fn pop_region(&self) {
        if let Some(f) = self.callbacks.pop_region {
            // SAFETY: the library's `kokkosp_pop_profile_region`, taking no arguments.
            unsafe { f() }
        }
    }

    /// `kokkosp_profile_event(name)`.
    pub(crate) fn profile_event(&self, name: &str) {
        named(self.callbacks.profile_event, name)
    }

    /// `kokkosp_allocate_data` (or `kokkosp_deallocate_data` when `!allocated`).
    pub(crate) fn data(
        &self,
        allocated: bool,
        space: &str,
        label: &str,
        ptr: *const u8,
        size: u64,
    ) {
        let f = if allocated {
            self.callbacks.allocate
        } else {
            self.callbacks.deallocate
        };
        if let Some(f) = f {
            let label = c_string(label);
            // SAFETY: the handle is passed by value; `label` outlives the call; the tool only
            // records `ptr`, it does not dereference it.
            unsafe { f(SpaceHandle::new(space), label.as_ptr(), ptr, size) }
        }
    }

    /// `kokkosp_dual_view_sync(label, ptr, is_device)` (`sync`: the side copied to) or
    /// `kokkosp_dual_view_modify(label, ptr, is_device)` (the side marked modified).
    pub(crate) fn dual_view(&self, sync: bool, label: &str, ptr: *const u8, device: bool) {
        let f = if sync {
            self.callbacks.dual_view_sync
        } else {
            self.callbacks.dual_view_modify
        };
        if let Some(f) = f {
            let label = c_string(label);
            // SAFETY: `label` outlives the call; the tool only records `ptr`.
            unsafe { f(label.as_ptr(), ptr, device) }
        }
    }

    /// `kokkosp_begin_deep_copy(dst..., src..., size)`.
    pub(crate) fn begin_deep_copy(&self, dst: &CopySide<'_>, src: &CopySide<'_>, size: u64) {
        if let Some(f) = self.callbacks.begin_deep_copy {
            let (dst_label, src_label) = (c_string(dst.label), c_string(src.label));
            // SAFETY: handles by value, labels outlive the call, pointers are only recorded.
            unsafe {
                f(
                    SpaceHandle::new(dst.space),
                    dst_label.as_ptr(),
                    dst.ptr,
                    SpaceHandle::new(src.space),
                    src_label.as_ptr(),
                    src.ptr,
                    size,
                )
            }
        }
    }

    /// `kokkosp_end_deep_copy()`.
    pub(crate) fn end_deep_copy(&self) {
        if let Some(f) = self.callbacks.end_deep_copy {
            // SAFETY: the library's `kokkosp_end_deep_copy`, taking no arguments.
            unsafe { f() }
        }
    }

    /// `kokkosp_create_profile_section(name, &id)`: the tool's section ID (0 without the callback).
    pub(crate) fn create_section(&self, name: &str) -> u32 {
        let mut id = 0u32;
        if let Some(f) = self.callbacks.create_section {
            let name = c_string(name);
            // SAFETY: `name` outlives the call; `id` is a live, writable u32.
            unsafe { f(name.as_ptr(), &mut id) }
        }
        id
    }

    /// `kokkosp_start_profile_section`, `..._stop_...` or `..._destroy_...` of section `id`.
    pub(crate) fn section(&self, action: SectionAction, id: u32) {
        let f = match action {
            SectionAction::Start => self.callbacks.start_section,
            SectionAction::Stop => self.callbacks.stop_section,
            SectionAction::Destroy => self.callbacks.destroy_section,
        };
        if let Some(f) = f {
            // SAFETY: the library's section callback, taking the section ID by value.
            unsafe { f(id) }
        }
    }

    /// `kokkosp_declare_metadata(key, value)`.
    pub(crate) fn declare_metadata(&self, key: &str, value: &str) {
        if let Some(f) = self.callbacks.declare_metadata {
            let (key, value) = (c_string(key), c_string(value));
            // SAFETY: both strings outlive the call.
            unsafe { f(key.as_ptr(), value.as_ptr()) }
        }
    }
}

/// What happens to a profile section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SectionAction {
    /// `kokkosp_start_profile_section`.
    Start,
    /// `kokkosp_stop_profile_section`.
    Stop,
    /// `kokkosp_destroy_profile_section`.
    Destroy,
}

/// One side of a deep copy, as tools see it: the memory space's tool name, the View's label and
/// its data pointer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CopySide<'a> {
    /// `"Host"`, `"Cuda"`, `"CudaUVM"` or `"CudaHostPinned"` (`"Scalar"` sides use the other
    /// side's space, as in Kokkos).
    pub(crate) space: &'static str,
    /// The View's label, or `"Scalar"` for a value.
    pub(crate) label: &'a str,
    /// The first element.
    pub(crate) ptr: *const u8,
}

/// An error's message followed by those of its sources (libloading puts the loader's own message,
/// e.g. "cannot open shared object file: No such file or directory", in the source).
fn with_sources(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

fn begin(f: Option<ffi::BeginFn>, name: &str, device_id: u32) -> u64 {
    let mut id = 0u64;
    if let Some(f) = f {
        let name = c_string(name);
        // SAFETY: a begin callback with Kokkos' signature; `name` outlives the call and `id` is a
        // live, writable u64 for the tool's ID.
        unsafe { f(name.as_ptr(), device_id, &mut id) }
    }
    id
}

fn end(f: Option<ffi::EndFn>, id: u64) {
    if let Some(f) = f {
        // SAFETY: an end callback with Kokkos' signature, taking the ID by value.
        unsafe { f(id) }
    }
}

fn named(f: Option<ffi::NameFn>, name: &str) {
    if let Some(f) = f {
        let name = c_string(name);
        // SAFETY: a callback taking one C string, which outlives the call.
        unsafe { f(name.as_ptr()) }
    }
}

impl Callbacks {
    fn any(&self) -> bool {
        let present = [
            self.init.is_some(),
            self.finalize.is_some(),
            self.parse_args.is_some(),
            self.begin_for.is_some(),
            self.end_for.is_some(),
            self.begin_reduce.is_some(),
            self.end_reduce.is_some(),
            self.begin_scan.is_some(),
            self.end_scan.is_some(),
            self.begin_fence.is_some(),
            self.end_fence.is_some(),
            self.push_region.is_some(),
            self.pop_region.is_some(),
            self.allocate.is_some(),
            self.deallocate.is_some(),
            self.begin_deep_copy.is_some(),
            self.end_deep_copy.is_some(),
            self.dual_view_sync.is_some(),
            self.dual_view_modify.is_some(),
            self.create_section.is_some(),
            self.start_section.is_some(),
            self.stop_section.is_some(),
            self.destroy_section.is_some(),
            self.profile_event.is_some(),
            self.declare_metadata.is_some(),
            self.request_settings.is_some(),
            self.provide_interface.is_some(),
        ];
        present.into_iter().any(|p| p)
    }
}

/// Looks up every callback `library` exports; a symbol of a callback's name that is not a function
/// is an error saying which symbol and what it is.
fn lookup(library: &libloading::Library) -> std::result::Result<Callbacks, String> {
    /// The symbol `name`, as a function pointer of type `T`, once the loader's tables say it is a
    /// function.
    fn get<T: Copy>(
        library: &libloading::Library,
        name: &str,
    ) -> std::result::Result<Option<T>, String> {
        let symbol = format!("{name}\0");
        // SAFETY: the symbol's address is read as a plain pointer, never dereferenced or called.
        let Ok(addr) = (unsafe { library.get::<*const std::ffi::c_void>(symbol.as_bytes()) })
        else {
            return Ok(None);
        };
        super::symbol_kind::at_address(*addr).check_callable(name)?;
        // SAFETY: each call below names a `kokkosp_*` symbol with the function type Kokkos'
        // C interface gives it, and the symbol was just checked to be a function; the pointer is
        // copied out and used only while the library stays loaded (the `ToolLibrary` owns it).
        Ok(unsafe { library.get::<T>(symbol.as_bytes()).ok().map(|s| *s) })
    }
    let l = library;
    Ok(Callbacks {
        init: get(l, "kokkosp_init_library")?,
        finalize: get(l, "kokkosp_finalize_library")?,
        parse_args: get(l, "kokkosp_parse_args")?,
        begin_for: get(l, "kokkosp_begin_parallel_for")?,
        end_for: get(l, "kokkosp_end_parallel_for")?,
        begin_reduce: get(l, "kokkosp_begin_parallel_reduce")?,
        end_reduce: get(l, "kokkosp_end_parallel_reduce")?,
        begin_scan: get(l, "kokkosp_begin_parallel_scan")?,
        end_scan: get(l, "kokkosp_end_parallel_scan")?,
        begin_fence: get(l, "kokkosp_begin_fence")?,
        end_fence: get(l, "kokkosp_end_fence")?,
        push_region: get(l, "kokkosp_push_profile_region")?,
        pop_region: get(l, "kokkosp_pop_profile_region")?,
        allocate: get(l, "kokkosp_allocate_data")?,
        deallocate: get(l, "kokkosp_deallocate_data")?,
        begin_deep_copy: get(l, "kokkosp_begin_deep_copy")?,
        end_deep_copy: get(l, "kokkosp_end_deep_copy")?,
        dual_view_sync: get(l, "kokkosp_dual_view_sync")?,
        dual_view_modify: get(l, "kokkosp_dual_view_modify")?,
        create_section: get(l, "kokkosp_create_profile_section")?,
        start_section: get(l, "kokkosp_start_profile_section")?,
        stop_section: get(l, "kokkosp_stop_profile_section")?,
        destroy_section: get(l, "kokkosp_destroy_profile_section")?,
        profile_event: get(l, "kokkosp_profile_event")?,
        declare_metadata: get(l, "kokkosp_declare_metadata")?,
        request_settings: get(l, "kokkosp_request_tool_settings")?,
        provide_interface: get(l, "kokkosp_provide_tool_programming_interface")?,
    })
}
