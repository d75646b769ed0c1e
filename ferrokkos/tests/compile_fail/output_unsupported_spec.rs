// The format specs C's `printf` cannot give as Rust does are refused, naming the placeholder:
// binary, centred alignment, `#`, a width taken from an argument, and named arguments.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<u32, 1>::new("y", [10]).unwrap();
    let _a = kernel!(|i| {
        println!("{:b}", i);
        y[i] = 1;
    });
    let _b = kernel!(|i| {
        println!("{:^8}", i);
        y[i] = 1;
    });
    let _c = kernel!(|i| {
        println!("{:#x}", i);
        y[i] = 1;
    });
    let _d = kernel!(|i| {
        println!("{:1$}", i, 4usize);
        y[i] = 1;
    });
    let _e = kernel!(|i| {
        println!("{n}", n = i);
        y[i] = 1;
    });
    let _f = kernel!(|i| {
        println!("{:8?}", i);
        y[i] = 1;
    });
}
