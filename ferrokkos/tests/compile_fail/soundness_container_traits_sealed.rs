// What the containers' unsafe code trusts cannot come from outside: map keys and values are
// sealed (a key must hash alike on the host and the device), and a map's host accessor cannot be
// built (it holds raw pointers a launch vouches for).
use ferrokkos::traits::{MapKey, MapValue};
use ferrokkos::__private::MapAccess;
use ferrokkos::UnorderedMap;

#[derive(Clone, Copy, PartialEq, Eq)]
struct MyKey(u64);

impl MapKey for MyKey {
    fn bits(self) -> u64 {
        self.0
    }
}

struct Nothing;

impl MapValue for Nothing {}

fn main() {
    let _float_keys = UnorderedMap::<f64, f64>::new("m", 8);
    let _map: MapAccess<'static, u64, ()> = unsafe { MapAccess::new(todo!()) };
}
