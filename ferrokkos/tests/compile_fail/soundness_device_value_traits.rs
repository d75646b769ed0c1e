// Soundness of device values: `DeviceValue` is an `unsafe trait` (the derive writes it after its
// checks; a hand-written impl without `unsafe` is rejected), the host atomics are sealed (no
// other type gets `HostAtomic` / `HostAtomicBits`), and a View of structs cannot be updated
// atomically.
use ferrokkos::__private::{HostAtomic, HostAtomicBits};
use ferrokkos::prelude::*;
use ferrokkos::{DeviceValue, kernel};

#[repr(C)]
#[derive(Clone, Copy, DeviceValue)]
struct Vec2 {
    x: f64,
    y: f64,
}

#[derive(Clone, Copy)]
struct Mine(u64);

impl DeviceValue for Mine {
    fn cxx_name() -> String {
        "u64".to_string()
    }
}

impl HostAtomicBits for Vec2 {
    unsafe fn fetch_and(_: *mut Self, v: Self) -> Self {
        v
    }
    unsafe fn fetch_or(_: *mut Self, v: Self) -> Self {
        v
    }
    unsafe fn fetch_xor(_: *mut Self, v: Self) -> Self {
        v
    }
}

fn needs_host_atomic<T: HostAtomic>() {}

fn main() {
    needs_host_atomic::<Vec2>();
    let h = View::<Vec2, 1>::new("h", [4]).unwrap();
    let one = Vec2 { x: 1.0, y: 0.0 };
    let _kernel = kernel!(|i| h.atomic_add(i % 4, one));
}
