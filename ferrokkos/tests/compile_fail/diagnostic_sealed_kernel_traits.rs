// The traits a kernel's captures, indices and typed shadow go through are sealed (launches borrow
// what they report; their C++ text goes into device code). A type of the user's that implements one
// is refused with a message that names the trait and what a kernel accepts instead.
use ferrokkos::__private::capture::{Captures, KernelAtomic, KernelValue, KernelWritable};
use ferrokkos::__private::shadow::{Branch, DeviceParams, FnParam, FnReturn, Place, Statement};
use ferrokkos::__private::{IndexInt, KernelIndex, ShadowIndex};
use ferrokkos::kernel::DeviceReducer;
use ferrokkos::Reducer;

#[derive(Clone, Copy)]
struct Mine;

impl KernelValue for Mine {}
impl Captures for Mine {}
impl KernelWritable for Mine {}
impl KernelAtomic for Mine {}
impl ShadowIndex for Mine {}
impl KernelIndex<1> for Mine {}
impl IndexInt for Mine {}
impl Branch for Mine {}
impl FnReturn for Mine {}
impl Place for Mine {}
impl Statement for Mine {}
impl FnParam for Mine {}
impl DeviceParams for Mine {}

impl Reducer for Mine {
    type Value = f64;
    fn init(&self) -> f64 {
        0.0
    }
    fn join(&self, dst: &mut f64, src: &f64) {
        *dst += *src;
    }
}

impl DeviceReducer for Mine {}

fn main() {}
