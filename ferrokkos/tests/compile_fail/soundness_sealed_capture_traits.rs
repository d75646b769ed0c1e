// Soundness (traits unsafe code trusts): the capture and device-type traits are sealed. A `Capture`
// receives the launch's borrow proof and says which Views a launch borrows; a `DeviceScalar` names
// the C++ type written into device code; a `DeviceIndex` writes an index's C++ text.
use ferrokkos::__private::capture::{Capture, IntoCapture};
use ferrokkos::__private::DeviceIndex;
use ferrokkos::kernel::{DeviceScalar, Kind};

#[derive(Clone, Copy)]
struct Mine;

impl IntoCapture for Mine {
    type Value = Mine;
    fn capture_value(&self) -> Mine {
        *self
    }
}

impl DeviceScalar for Mine {
    const CXX: &'static str = "int; /* anything */ int";
    const KIND: Kind = Kind::Signed;
    fn literal(self) -> String {
        String::new()
    }
}

impl DeviceIndex<1> for Mine {
    fn coordinates(self) -> Vec<String> {
        vec!["0] = 1; (0".into()]
    }
}

struct MyCapture;

impl Capture for MyCapture {
    type Host<'a> = ();
    type Shadow = ();
}

fn main() {}
