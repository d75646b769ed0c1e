// A released id is gone: using it after `token.release(id)` does not compile (the id is moved).
use ferrokkos::prelude::*;
use ferrokkos::{UniqueToken, kernel};

fn main() {
    let exec = Threads::default_instance().unwrap();
    let token = UniqueToken::new(&exec).unwrap();
    let work = View::<f64, 2>::new("work", [64, 64]).unwrap();
    let _after_release = kernel!(|_i| {
        let id = token.acquire();
        token.release(id);
        work[(id, 0)] = 1.0;
    });
}
