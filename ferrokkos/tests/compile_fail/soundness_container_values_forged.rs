// A Bitset's host accessor (a raw pointer and a size a launch vouches for) and an InsertResult
// (a slot index) are made only by the crate: their fields are private.
use ferrokkos::__private::BitsetAccess;
use ferrokkos::InsertResult;

fn main() {
    let _bits = BitsetAccess {
        words: std::ptr::null(),
        size: 1 << 40,
        _launch: std::marker::PhantomData,
    };
    let _forged = InsertResult { index: 0, status: 1 };
}
