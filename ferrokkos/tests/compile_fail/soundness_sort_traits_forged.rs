// The sorts trust their sealed traits: a key's order-preserving bits (which the GPU's radix sort
// takes digits of), a bin operation's kernels, the Views BinSort reorders. None can be implemented
// outside ferrokkos, and a sort of keys that are not SortKeys is refused with a message.
use ferrokkos::prelude::*;
use ferrokkos::traits::{BinOp, Permute, RadixBits, SortKey};

#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd)]
struct MyKey(u32);

impl SortKey for MyKey {
    type Bits = u32;
    const KIND: u8 = 0;
    fn ordered(self) -> u32 {
        self.0
    }
}

#[derive(Clone, Copy, Debug)]
struct MyOp;

impl BinOp<u32, 1> for MyOp {
    fn bin_count(&self) -> usize {
        1
    }
}

struct MyBits;
impl RadixBits for MyBits {}

struct MyRows;
impl Permute<HostSpace> for MyRows {}

fn main() -> ferrokkos::Result<()> {
    let exec = Serial::default_instance()?;
    let flags = View::<bool, 1>::new("flags", [4])?;
    ferrokkos::sort(&exec, &flags)?;
    Ok(())
}
