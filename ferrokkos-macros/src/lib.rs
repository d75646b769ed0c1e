//! Procedural macros of [ferrokkos](https://example.invalid/ferrokkos): `kernel!` (single-source
//! kernels for the host and CUDA spaces), `#[device]` (functions kernels may call) and
//! `#[derive(DeviceValue)]` (structs kernels may hold).
//!
//! Use them through the `ferrokkos` crate (`ferrokkos::kernel!`, `#[ferrokkos::device]`), which
//! documents them with examples.

#![warn(clippy::too_many_lines)]

mod affine;
mod alias;
mod analyze;
mod atomic_view;
mod device;
mod device_impl;
mod device_reads;
mod fields;
mod format;
mod functor;
mod host;
mod kernel;
mod race;
mod shadow;
mod subset;
mod subview;
mod subview_range;
mod team_race;
mod unique_token;
mod value;

use proc_macro::TokenStream;

/// A single-source kernel; see `ferrokkos::kernel!`.
#[proc_macro]
pub fn kernel(input: TokenStream) -> TokenStream {
    kernel::expand(input.into())
        .unwrap_or_else(|e| {
            // In a block, several errors are several statements (in expression position, tokens after
            // the first `compile_error!` would be ignored with a confusing message).
            let errors = e.to_compile_error();
            quote::quote!({ #errors })
        })
        .into()
}

/// Makes a function callable from kernels; see `ferrokkos::device`.
#[proc_macro_attribute]
pub fn device(attr: TokenStream, item: TokenStream) -> TokenStream {
    device::expand(attr.into(), item.into())
        .unwrap_or_else(|e| e.to_compile_error())
        .into()
}

/// A method whose body is a kernel; see `ferrokkos::functor`.
#[proc_macro_attribute]
pub fn functor(attr: TokenStream, item: TokenStream) -> TokenStream {
    functor::expand(attr.into(), item.into())
        .unwrap_or_else(|e| e.to_compile_error())
        .into()
}

/// Makes a `#[repr(C)]` struct of device values one itself; see `ferrokkos::DeviceValue`.
#[proc_macro_derive(DeviceValue)]
pub fn derive_device_value(input: TokenStream) -> TokenStream {
    value::expand(input.into())
        .unwrap_or_else(|e| e.to_compile_error())
        .into()
}
