//! UniqueToken: the iterations running at one time hold different ids, so per-id scratch written
//! at a held id loses no update; ids are below `size()` and are released at the end of their
//! block. On every space, against plain Rust; the C++ compiles with NVRTC and hiprtc.

use crate::common::check_device_code;
use crate::spaces::{SView, download};
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{Error, Result, UniqueToken, UniqueTokenScope, functor, kernel};

/// Each iteration reads its id's counter, works, and writes the counter back plus one: a second
/// thread holding the same id at the same time would lose increments, so the counters' sum is
/// the number of iterations only if ids are held by one iteration at a time.
fn held_ids_lose_no_update<S: Launch>(exec: &S, token: &UniqueToken<S>) -> Result<()> {
    let n = 200_000usize;
    let size = token.size();
    let counts = SView::<S, u64, 2>::new("counts", [size, 2])?;
    let seen = SView::<S, u64, 1>::new("seen", [n])?;
    parallel_for(
        "count per id",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let id = token.acquire();
            let c = counts[(id, 0)];
            let mut spin = 0u64;
            for k in 0..(i % 7) as u64 {
                spin += k * c;
            }
            counts[(id, 1)] = spin % 3;
            counts[(id, 0)] = c + 1;
            seen[i] = id as u64;
            token.release(id);
        }),
    )?;
    let counts = download(&counts)?;
    let total: u64 = counts.chunks(2).map(|r| r[0]).sum();
    assert_eq!(total, n as u64, "lost updates: ids were shared");
    let seen = download(&seen)?;
    assert!(
        seen.iter().all(|&id| (id as usize) < size),
        "an id at or above size() = {size}"
    );
    Ok(())
}

fn ids_are_held_by_one_iteration_at_a_time<S: Launch>(exec: &S) -> Result<()> {
    let token = UniqueToken::new(exec)?;
    assert_eq!(token.size(), exec.concurrency());
    assert_eq!(token.scope(), UniqueTokenScope::Instance);
    held_ids_lose_no_update(exec, &token)
}

per_space!(
    ids_are_held_by_one_iteration_at_a_time,
    ids_are_held_by_one_iteration_at_a_time
);

/// Fewer ids than threads: threads wait for one another, and still never share an id.
fn fewer_ids_than_threads_are_waited_for<S: Launch>(exec: &S) -> Result<()> {
    for size in [1, 3] {
        let token = UniqueToken::with_size(exec, size)?;
        assert_eq!(token.size(), size);
        held_ids_lose_no_update(exec, &token)?;
    }
    Ok(())
}

per_space!(
    fewer_ids_than_threads_are_waited_for,
    fewer_ids_than_threads_are_waited_for
);

/// A global token (every thread of the space) works the same way.
fn a_global_token_gives_unique_ids<S: Launch>(exec: &S) -> Result<()> {
    let token = UniqueToken::<S>::global()?;
    assert_eq!(token.scope(), UniqueTokenScope::Global);
    assert_eq!(token.size(), S::default_instance()?.concurrency());
    held_ids_lose_no_update(exec, &token)
}

per_space!(
    a_global_token_gives_unique_ids,
    a_global_token_gives_unique_ids
);

/// Per-id partial sums of a 2-D launch (the id scratch of an MDRange), then a reduction that
/// acquires an id per iteration: both add up to plain Rust's totals.
fn partial_sums_per_id_add_up<S: Launch>(exec: &S) -> Result<()> {
    let token = UniqueToken::new(exec)?;
    let (n, m) = (300usize, 70usize);
    let partial = SView::<S, f64, 2>::new("partial", [token.size(), 4])?;
    parallel_for(
        "partial",
        MDRangePolicy::new(exec, [0, 0], [n as i64, m as i64])?,
        kernel!(|(i, j)| {
            let id = token.acquire();
            let slot = ((i + j) % 4) as usize;
            partial[(id, slot)] += (i * j) as f64;
            token.release(id);
        }),
    )?;
    let got = download(&partial)?;
    let mut want = [0.0f64; 4];
    for i in 0..n {
        for j in 0..m {
            want[(i + j) % 4] += (i * j) as f64;
        }
    }
    for (s, w) in want.iter().enumerate() {
        let sum: f64 = got.chunks(4).map(|r| r[s]).sum();
        assert_eq!(sum, *w, "slot {s}");
    }
    let scratch = SView::<S, f64, 2>::new("scratch", [token.size(), 3])?;
    let mut total = 0.0f64;
    parallel_reduce(
        "reduce with ids",
        RangePolicy::new(exec, 0, 1000)?,
        kernel!(|i, acc: &mut f64| {
            let id = token.acquire();
            scratch[(id, 0)] = i as f64;
            scratch[(id, 1)] = 2.0 * scratch[(id, 0)];
            *acc += scratch[(id, 1)];
        }),
        &mut total,
    )?;
    assert_eq!(total, 999_000.0);
    Ok(())
}

per_space!(partial_sums_per_id_add_up, partial_sums_per_id_add_up);

/// An iteration may release its id and acquire another; an id not released is released at the end
/// of its block (a token of one id is then free for the next launch, and for the next block).
fn ids_are_released_by_release_or_at_the_end_of_their_block<S: Launch>(exec: &S) -> Result<()> {
    let token = UniqueToken::with_size(exec, 1)?;
    let hits = SView::<S, u32, 2>::new("hits", [1, 2])?;
    let k = kernel!(|i| {
        {
            let first = token.acquire();
            hits[(first, 0)] += 1;
            if i % 2 == 0 {
                return;
            }
        }
        let second = token.acquire();
        hits[(second, 1)] += (second + token.size()) as u32;
        token.release(second);
        let third = token.acquire();
        hits[(third, 1)] += 1;
    });
    let n = 1001usize;
    parallel_for("ids", RangePolicy::new(exec, 0, n)?, &k)?;
    parallel_for("ids again", RangePolicy::new(exec, 0, n)?, &k)?;
    assert_eq!(download(&hits)?, vec![2 * n as u32, 2 * 2 * 500]);
    Ok(())
}

per_space!(
    ids_are_released_by_release_or_at_the_end_of_their_block,
    ids_are_released_by_release_or_at_the_end_of_their_block
);

#[test]
fn a_token_needs_at_least_one_id() -> Result<()> {
    crate::common::runtime();
    let exec = Serial::default_instance()?;
    let e = UniqueToken::with_size(&exec, 0).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "UniqueToken: a token of Serial has 0 ids; it needs 1 to 2^36"
    );
    assert_eq!(UniqueToken::new(&exec)?.size(), 1);
    Ok(())
}

#[test]
fn a_held_id_is_an_fk_token_hold_in_cxx() -> Result<()> {
    crate::common::runtime();
    let exec = Threads::default_instance()?;
    let token = UniqueToken::new(&exec)?;
    let work = View::<f64, 2>::new("work", [token.size(), 8])?;
    let y = View::<f64, 1>::new("y", [64])?;
    let k = kernel!(|i| {
        let id = token.acquire();
        work[(id, i % 8)] += 1.0;
        y[i] = work[(id, i % 8)] + (id % token.size()) as f64;
        token.release(id);
    });
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    assert!(text.contains("fk::TokenHold id("), "{text}");
    assert!(text.contains("fk::token_held(token, id)"), "{text}");
    assert!(text.contains("id.release();"), "{text}");
    assert!(text.contains("token.size"), "{text}");
    check_device_code(&tu);
    Ok(())
}

/// A block that acquires an id is a C++ scope of its own: the hold ends with the block (the
/// shadow writes other blocks into the enclosing scope), also for a block with a value.
#[test]
fn a_block_that_acquires_is_its_own_cxx_scope() -> Result<()> {
    crate::common::runtime();
    let exec = Threads::default_instance()?;
    let token = UniqueToken::with_size(&exec, 1)?;
    let work = View::<f64, 2>::new("work", [1, 2])?;
    let y = View::<f64, 1>::new("y", [64])?;
    let k = kernel!(|i| {
        {
            let first = token.acquire();
            work[(first, 0)] += 1.0;
        }
        y[i] = {
            let second = token.acquire();
            work[(second, 1)] = i as f64;
            work[(second, 1)] * 2.0
        };
    });
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with("#line"))
        .collect();
    for hold in [
        "fk::TokenHold first(token);",
        "fk::TokenHold second(token);",
    ] {
        let at = lines.iter().position(|l| *l == hold).expect(text);
        assert_eq!(lines[at - 1], "{", "{hold} opens a scope:\n{text}");
    }
    assert!(text.contains("f64 fk_block"), "{text}");
    check_device_code(&tu);
    let y2 = View::<f64, 1>::new("y", [64])?;
    parallel_for(
        "blocks",
        RangePolicy::new(&exec, 0, 64)?,
        kernel!(|i| {
            y2[i] = {
                let id = token.acquire();
                work[(id, 1)] = i as f64;
                work[(id, 1)] * 2.0
            };
        }),
    )?;
    assert_eq!(y2.get(63)?, 126.0);
    Ok(())
}

/// A functor struct holding a token (Kokkos' functor with a `UniqueToken` member): its method
/// acquires ids like a kernel.
struct PerIdSums<S: Launch> {
    token: UniqueToken<S>,
    sums: SView<S, u64, 2>,
}

impl<S: Launch> PerIdSums<S> {
    #[functor]
    fn add(&self, i: usize) {
        let id = self.token.acquire();
        self.sums[(id, 0)] += i as u64;
        self.token.release(id);
    }
}

fn a_functor_member_token_gives_ids<S: Launch>(exec: &S) -> Result<()> {
    let token = UniqueToken::new(exec)?;
    let sums = SView::<S, u64, 2>::new("sums", [token.size(), 1])?;
    let f = PerIdSums { token, sums };
    parallel_for("per id", RangePolicy::new(exec, 0, 10_000)?, f.add())?;
    let total: u64 = download(&f.sums)?.iter().sum();
    assert_eq!(total, 49_995_000);
    Ok(())
}

per_space!(
    a_functor_member_token_gives_ids,
    a_functor_member_token_gives_ids
);
