// A View written at an id held from a UniqueToken is owned by the iteration only at that id: every
// access of it must be at an id held from the same token, in the same coordinate. A read at the
// iteration index, ids of two tokens, an id in another coordinate and an id shifted by one are
// all refused.
use ferrokkos::prelude::*;
use ferrokkos::{UniqueToken, kernel};

fn main() {
    let exec = Threads::default_instance().unwrap();
    let token = UniqueToken::new(&exec).unwrap();
    let other = UniqueToken::new(&exec).unwrap();
    let work = View::<f64, 2>::new("work", [64, 64]).unwrap();
    let out = View::<f64, 1>::new("out", [64]).unwrap();
    let _read_elsewhere = kernel!(|i| {
        let id = token.acquire();
        work[(id, 0)] = 1.0;
        out[i] = work[(i, 0)];
        token.release(id);
    });
    let _two_tokens = kernel!(|i| {
        let a = token.acquire();
        let b = other.acquire();
        work[(a, 0)] = 1.0;
        work[(b, 1)] = i as f64;
    });
    let _other_coordinate = kernel!(|i| {
        let id = token.acquire();
        work[(id, 0)] = 1.0;
        work[(0, id)] = i as f64;
    });
    let _shifted = kernel!(|_i| {
        let id = token.acquire();
        work[(id + 1, 0)] = 1.0;
    });
}
