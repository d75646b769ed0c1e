//! Whether a symbol a tool library exports is a function: a `kokkosp_*` name that is a data object
//! (e.g. `int kokkosp_begin_parallel_for = 5;`) would otherwise be called as code and crash the
//! process.
//!
//! The address the loader gives for the name is looked up in the dynamic symbol tables of the loaded
//! objects (glibc's `dladdr1` with `RTLD_DL_SYMENT`, which returns the ELF symbol at that address);
//! the symbol must start there and have type `STT_FUNC` or `STT_GNU_IFUNC` (the loader resolves an
//! indirect function to its implementation, which must then be an exported function itself).

use std::ffi::c_void;

/// The ELF type of a symbol (`ELF64_ST_TYPE(st_info)`), by its number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct SymbolType(pub(super) u8);

impl SymbolType {
    /// `STT_FUNC`: code.
    pub(super) const FUNC: SymbolType = SymbolType(2);
    /// `STT_GNU_IFUNC`: code chosen by a resolver at load.
    pub(super) const GNU_IFUNC: SymbolType = SymbolType(10);

    /// Whether the symbol is code that may be called.
    pub(super) fn is_function(self) -> bool {
        self == Self::FUNC || self == Self::GNU_IFUNC
    }

    /// The type's name in words, with its ELF constant.
    pub(super) fn describe(self) -> String {
        let name = match self.0 {
            0 => "a symbol without a type (STT_NOTYPE)",
            1 => "a data object (STT_OBJECT)",
            2 => "a function (STT_FUNC)",
            3 => "a section (STT_SECTION)",
            4 => "a file name (STT_FILE)",
            5 => "a common data object (STT_COMMON)",
            6 => "thread-local data (STT_TLS)",
            10 => "an indirect function (STT_GNU_IFUNC)",
            other => return format!("a symbol of ELF type {other}"),
        };
        name.to_string()
    }
}

/// What the loader knows about the address a symbol name resolved to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AtAddress {
    /// An exported symbol of this type starts at the address.
    Symbol(SymbolType),
    /// No exported symbol starts at the address (thread-local data resolves to the calling
    /// thread's copy, outside every loaded object).
    Unknown,
}

impl AtAddress {
    /// `Ok` when a callback may be called at the address; otherwise why not, naming `symbol`.
    pub(super) fn check_callable(self, symbol: &str) -> Result<(), String> {
        match self {
            AtAddress::Symbol(t) if t.is_function() => Ok(()),
            AtAddress::Symbol(t) => Err(format!(
                "the symbol {symbol} is {}, not a function; a Kokkos Tools callback must be a \
                 function",
                t.describe()
            )),
            AtAddress::Unknown => Err(format!(
                "the symbol {symbol} does not resolve to the start of an exported function (no \
                 exported symbol starts at its address; thread-local data, for instance); a Kokkos \
                 Tools callback must be a function"
            )),
        }
    }
}

/// What is at `addr`, the address the dynamic loader gave for a symbol name.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(super) fn at_address(addr: *const c_void) -> AtAddress {
    /// glibc's `RTLD_DL_SYMENT` (`<dlfcn.h>`): `dladdr1` returns the symbol's `ElfW(Sym)`.
    const RTLD_DL_SYMENT: libc::c_int = 1;
    // SAFETY: `Dl_info` is a plain C struct of pointers, for which all zeros is a valid value.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    let mut sym: *mut c_void = std::ptr::null_mut();
    // SAFETY: `info` and `sym` are live and writable for the call; `dladdr1` only reads the loader's
    // tables and writes them. With RTLD_DL_SYMENT it stores a pointer to an `Elf64_Sym` inside a
    // loaded object's dynamic symbol table, or null.
    let found = unsafe { libc::dladdr1(addr, &mut info, &mut sym, RTLD_DL_SYMENT) };
    if found == 0 || sym.is_null() || info.dli_saddr.cast_const() != addr {
        return AtAddress::Unknown;
    }
    // SAFETY: `sym` points to the symbol table entry of a loaded object, which stays mapped while
    // that object is loaded (the caller holds the tool library open).
    let st_info = unsafe { (*sym.cast::<libc::Elf64_Sym>()).st_info };
    AtAddress::Symbol(SymbolType(st_info & 0xf))
}

/// What is at `addr`: without glibc's `dladdr1`, every symbol is taken for a function (the
/// loader's own lookup is all that is checked).
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(super) fn at_address(_addr: *const c_void) -> AtAddress {
    AtAddress::Symbol(SymbolType::FUNC)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_function_of_libc_is_a_function() {
        let getpid = at_address(libc::getpid as *const c_void);
        assert_eq!(getpid, AtAddress::Symbol(SymbolType::FUNC));
        assert!(getpid.check_callable("getpid").is_ok());
    }

    #[test]
    fn data_objects_and_unknown_addresses_are_refused_with_their_type() {
        let data = AtAddress::Symbol(SymbolType(1)).check_callable("kokkosp_x");
        assert_eq!(
            data.unwrap_err(),
            "the symbol kokkosp_x is a data object (STT_OBJECT), not a function; a Kokkos Tools \
             callback must be a function"
        );
        let tls = AtAddress::Symbol(SymbolType(6)).check_callable("kokkosp_y");
        assert!(tls.unwrap_err().contains("thread-local data (STT_TLS)"));
        let unknown = AtAddress::Unknown.check_callable("kokkosp_z").unwrap_err();
        assert!(
            unknown.contains("kokkosp_z does not resolve to the start of an exported function")
        );
        assert!(
            AtAddress::Symbol(SymbolType::GNU_IFUNC)
                .check_callable("kokkosp_w")
                .is_ok()
        );
    }

    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn a_data_object_of_libc_is_a_data_object() {
        let addr = (&raw const libc_environ::environ).cast::<c_void>();
        assert_eq!(at_address(addr), AtAddress::Symbol(SymbolType(1)));
    }

    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    mod libc_environ {
        unsafe extern "C" {
            /// glibc's `environ`, an exported data object.
            pub static environ: *const *const std::ffi::c_char;
        }
    }
}
