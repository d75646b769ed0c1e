// A token's ids are acquired as `let id = token.acquire();`, one at a time per token, released as
// a statement with an id of that token, and not in team kernels; a token is not a value.
use ferrokkos::prelude::*;
use ferrokkos::{UniqueToken, kernel};

fn main() {
    let exec = Threads::default_instance().unwrap();
    let token = UniqueToken::new(&exec).unwrap();
    let other = UniqueToken::new(&exec).unwrap();
    let work = View::<f64, 2>::new("work", [64, 64]).unwrap();
    let _twice = kernel!(|_i| {
        let a = token.acquire();
        let b = token.acquire();
        work[(a, 0)] = 1.0;
        work[(b, 0)] = 2.0;
    });
    let _mutable = kernel!(|_i| {
        let mut id = token.acquire();
        work[(id, 0)] = 1.0;
    });
    let _in_an_expression = kernel!(|i| {
        work[(token.acquire(), 0)] = i as f64;
    });
    let _release_another_tokens = kernel!(|_i| {
        let a = token.acquire();
        other.release(a);
    });
    let _as_a_value = kernel!(|_i| {
        let t = token;
        let id = t.acquire();
        work[(id, 0)] = 1.0;
    });
    let league = TeamPolicy::new(&exec, 4, 1).unwrap();
    let _ = league;
    let _team = kernel!(|team: &TeamMember| {
        let id = token.acquire();
        work[(id, team.league_rank())] = 1.0;
    });
}
