// A `DeviceJoin` implementation needs `#[device]`, which adds the forms that kernels on the GPU run.
use ferrokkos::{DeviceJoin, DeviceValue};

#[repr(C)]
#[derive(Clone, Copy, DeviceValue)]
struct Total {
    sum: f64,
}

impl DeviceJoin for Total {
    fn identity() -> Total {
        Total { sum: 0.0 }
    }
    fn join(self, other: Total) -> Total {
        Total { sum: self.sum + other.sum }
    }
}

fn main() {}
