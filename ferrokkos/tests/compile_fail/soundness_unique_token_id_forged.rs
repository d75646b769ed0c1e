// Soundness: a `TokenId` (an id its thread holds, which the race rules trust) and a token capture
// are made only by ferrokkos: their fields are private.
#![forbid(unsafe_code)]
use ferrokkos::__private::TokenId;
use ferrokkos::__private::capture::TokenUse;

fn main() {
    let _id = TokenId {
        index: 0,
        slot: None,
        owner: std::ptr::null(),
    };
    let _use = TokenUse {
        value: 0u32,
        name: "t",
    };
}
