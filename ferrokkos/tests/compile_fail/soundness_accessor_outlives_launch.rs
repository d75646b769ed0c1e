// Soundness (accessors escape): an accessor borrows the launch's kernel, so it cannot be kept
// after the launch (here in a thread-local, to be read after the View is freed).
use std::cell::Cell;

use ferrokkos::__private::ReadAccess;
use ferrokkos::LayoutRight;

thread_local! {
    static KEPT: Cell<Option<ReadAccess<'static, f64, 1, LayoutRight>>> = const { Cell::new(None) };
}

pub fn keep(x: ReadAccess<'_, f64, 1, LayoutRight>) {
    KEPT.with(|k| k.set(Some(x)));
}

fn main() {}
