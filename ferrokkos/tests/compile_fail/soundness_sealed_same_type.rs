// Soundness: the typed shadow retypes an operand's or an argument's C++ expression through
// `SameType`, `Operand` and `Takes`, trusting the pairs they allow. All are sealed: a user's impl
// pairing other types (here `usize` operands for `i64` ones) is a compile error.
use ferrokkos::__private::Expr;
use ferrokkos::__private::shadow::{Operand, SameType, Takes};

struct Forged;

impl SameType<i64> for Forged {
    fn same(_left: &Expr<i64>, _e: Expr<Self>) -> Expr<i64> {
        unimplemented!()
    }
    fn same_as(_e: Expr<Self>) -> Expr<i64> {
        unimplemented!()
    }
}

impl Takes<Forged> for i64 {
    fn take(_a: Expr<Forged>) -> Expr<i64> {
        unimplemented!()
    }
}

impl Operand<i64> for Forged {
    type Output = i64;
}

fn main() {}
