// What the random pools' unsafe code trusts cannot be supplied by safe code: the generator, the
// drawable types and the pool capture are sealed, a kernel's pool accessor and held state cannot be
// built by hand, and a held state cannot leave its launch.
use ferrokkos::__private::{PoolAccess, RandState};
use ferrokkos::traits::{Generator, RandomValue};
use ferrokkos::XorShift64;

#[derive(Clone, Copy, Debug)]
struct MyGen(u64);
impl Generator for MyGen {
    const KOKKOS_NAME: &'static str = "mine";
    const WORDS: usize = 1000;
    const CXX: &'static str = "fk::XorShift64";
    const MULTIPLIER: u64 = 1;
    fn step(&mut self) -> u64 {
        self.0
    }
    fn load(_: &[u64]) -> Self {
        MyGen(0)
    }
    fn store(&self, _: &mut [u64]) {}
    fn seeded(_: &mut XorShift64) -> Self {
        MyGen(0)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
struct MyNum(u8);
impl RandomValue for MyNum {}

fn forged(p: *mut u64) {
    let _access = PoolAccess::<XorShift64> { words: p };
}

fn escaped(access: &PoolAccess<'_, XorShift64>) -> RandState<'static, XorShift64> {
    access.get_state()
}

fn main() {}
