// Soundness (accessors escape): the accessor of a written View writes and reads only through
// `unsafe` methods (their contract is the race rules, which `kernel!` proves where it calls them),
// so code outside the macro's proof cannot write an element through one.
use ferrokkos::__private::WriteAccess;
use ferrokkos::LayoutRight;

pub fn write_elsewhere(y: &WriteAccess<'_, f64, 1, LayoutRight>) {
    y.put(5, 1.0);
    let _ = y.at(3);
}

fn main() {}
