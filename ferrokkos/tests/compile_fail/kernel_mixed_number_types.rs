// Rust does not mix number types in one operation: an MDRange index (`i64`) meets a `usize` only
// through `as`. Every error is at the user's operand, in the user's terms: rustc's own, and the
// kernel's "mismatched types in a kernel" (never `Expr<..>`, never a note into ferrokkos).
use ferrokkos::DeviceValue;
use ferrokkos::prelude::*;

#[derive(Clone, Copy, DeviceValue)]
#[repr(C)]
struct Cell {
    heat: f64,
}

#[ferrokkos::device]
impl Cell {
    fn warmed(self, by: f64) -> f64 {
        self.heat + by
    }
}

#[ferrokkos::device]
fn twice(x: i64) -> i64 {
    2 * x
}

fn main() -> ferrokkos::Result<()> {
    let exec = Serial::default_instance()?;
    let m = View::<f64, 2>::new("m", [2, 3])?;
    let n: usize = 3;
    let policy = MDRangePolicy::<Serial, 2>::new(&exec, [0, 0], [2, 3])?;
    // An operator.
    parallel_for("add", policy.clone(), kernel!(|(i, j)| m[(i, j)] = (i + n) as f64))?;
    // A comparison.
    parallel_for("less", policy.clone(), kernel!(|(i, j)| if i < n { m[(i, j)] = 1.0 }))?;
    // A built-in method's argument.
    parallel_for("min", policy.clone(), kernel!(|(i, j)| m[(i, j)] = i.min(n) as f64))?;
    // A `#[device]` function's argument.
    parallel_for("call", policy.clone(), kernel!(|(i, j)| m[(i, j)] = twice(n) as f64))?;
    // A `#[device]` method's argument.
    let cell = Cell { heat: 1.0 };
    parallel_for("method", policy.clone(), kernel!(|(i, j)| m[(i, j)] = cell.warmed(i)))?;
    // A `let` with a type.
    parallel_for("let", policy, kernel!(|(i, j)| {
        let k: i64 = n;
        m[(i, j)] = (k + i) as f64;
    }))?;
    Ok(())
}
