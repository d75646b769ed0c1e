// Soundness of device values: `DeviceValue` is an `unsafe trait` (the derive writes it after its
// checks; a hand-written impl without `unsafe` is rejected), the host atomics are sealed (no
// other type gets `HostAtomic`, whose seal the other atomic traits inherit), and a View of structs
// cannot be updated atomically.
use ferrokkos::__private::HostAtomic;
use std::sync::atomic::Ordering;
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

impl HostAtomic for Vec2 {
    unsafe fn fetch_add(_: *mut Self, v: Self, _: Ordering) -> Self {
        v
    }
    unsafe fn fetch_sub(_: *mut Self, v: Self, _: Ordering) -> Self {
        v
    }
    unsafe fn load(_: *const Self, _: Ordering) -> Self {
        Vec2 { x: 0.0, y: 0.0 }
    }
    unsafe fn store(_: *mut Self, _: Self, _: Ordering) {}
    fn add(a: Self, _: Self) -> Self {
        a
    }
    fn sub(a: Self, _: Self) -> Self {
        a
    }
}

fn needs_host_atomic<T: HostAtomic>() {}

fn main() {
    needs_host_atomic::<Vec2>();
    let h = View::<Vec2, 1>::new("h", [4]).unwrap();
    let one = Vec2 { x: 1.0, y: 0.0 };
    let _kernel = kernel!(|i| h.atomic_add(i % 4, one));
}
