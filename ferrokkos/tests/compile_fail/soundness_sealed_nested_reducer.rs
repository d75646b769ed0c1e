// Soundness: a nested reduction's reducer names C++ types in the generated code, so only the
// built-in reducers of one number are `NestedReducer`s; another crate cannot make its own type
// one (it is neither a sealed `DeviceReducer` nor in the private seal).
use ferrokkos::kernel::NestedReducer;

struct Mine;

impl NestedReducer for Mine {
    fn names() -> (String, String) {
        ("fk::Sum<f64>; } evil(); {".into(), "f64".into())
    }
}

fn main() {
    let _ = Mine;
}
