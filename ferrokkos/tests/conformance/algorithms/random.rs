//! Random pools and `fill_random`: states seeded as Kokkos seeds them, streams that follow Kokkos'
//! formulas (computed here from the published recurrences, independently of the library), states
//! held by one iteration at a time, and the draws' ranges, on every space; the C++ compiles with
//! NVRTC and hiprtc.

use crate::common::check_device_code;
use crate::spaces::{SView, download};
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{
    Error, RandomXorShift64Pool, RandomXorShift1024Pool, Result, XorShift64, XorShift1024,
    fill_random, functor, kernel,
};

/// Kokkos' `Random_XorShift64` as its header writes it: the state step and `urand64`.
struct Ref64(u64);

impl Ref64 {
    fn step(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0
    }
    fn urand(&mut self) -> u32 {
        (self.step().wrapping_mul(2685821657736338717) >> 16) as u32
    }
    fn urand64(&mut self) -> u64 {
        self.step()
            .wrapping_mul(2685821657736338717)
            .wrapping_sub(1)
    }
}

/// Kokkos' `Random_XorShift1024` as its header writes it.
#[derive(Clone)]
struct Ref1024([u64; 16], usize);

impl Ref1024 {
    fn urand64(&mut self) -> u64 {
        let s0 = self.0[self.1];
        self.1 = (self.1 + 1) & 15;
        let mut s1 = self.0[self.1];
        s1 ^= s1 << 31;
        s1 ^= s1 >> 11;
        let s0 = s0 ^ (s0 >> 30);
        self.0[self.1] = s0 ^ s1;
        self.0[self.1]
            .wrapping_mul(1181783497276652981)
            .wrapping_sub(1)
    }
}

/// The seed words of Kokkos' pools (`init(seed, num_states)`): a `Random_XorShift64(seed)` (0 taken
/// as 1318319), 17 `rand()`s skipped, then each word from four `rand()`s' low 16 bits.
fn kokkos_seed_words(seed: u64, words: usize) -> Vec<u64> {
    let mut g = Ref64(if seed == 0 { 1318319 } else { seed });
    let mut rand = move || (g.urand() / 2) as u64;
    for _ in 0..17 {
        rand();
    }
    (0..words)
        .map(|_| (0..4).fold(0u64, |w, k| w | ((rand() & 0xffff) << (16 * k))))
        .collect()
}

/// A pool's states are Kokkos' seed words, for both generators and a zero seed.
#[test]
fn pool_states_are_seeded_as_kokkos_seeds_them() -> Result<()> {
    crate::common::runtime();
    let exec = Serial::default_instance()?;
    for seed in [0u64, 1, 12345, u64::MAX] {
        let pool = RandomXorShift64Pool::with_states(&exec, seed, 5)?;
        let words = kokkos_seed_words(seed, 5);
        for (k, w) in words.iter().enumerate() {
            assert_eq!(pool.state(k)?.state(), *w, "seed {seed}, state {k}");
        }
        let pool = RandomXorShift1024Pool::with_states(&exec, seed, 3)?;
        let words = kokkos_seed_words(seed, 3 * 16);
        for k in 0..3 {
            let (w, p) = pool.state(k)?.state();
            assert_eq!(
                &w[..],
                &words[16 * k..16 * k + 16],
                "seed {seed}, state {k}"
            );
            assert_eq!(p, 0);
        }
        assert_eq!(XorShift1024::new(seed).state().0[..], words[..16]);
    }
    Ok(())
}

/// The host generators' outputs follow Kokkos' formulas: `urand`, `urand64`, `rand`, `rand64`,
/// `drand`, `frand` and the ranges' rejection.
#[test]
fn host_generators_follow_kokkos_formulas() {
    let mut g = XorShift64::new(42);
    let mut r = Ref64(42);
    for _ in 0..1000 {
        assert_eq!(g.urand64(), r.urand64());
        assert_eq!(g.urand(), r.urand());
        assert_eq!(g.rand(), (r.urand() / 2) as i32);
        assert_eq!(g.rand64(), (r.urand64() / 2) as i64);
        assert_eq!(g.drand(), r.urand64() as f64 / u64::MAX as f64);
        assert_eq!(g.frand(), r.urand64() as f32 / u64::MAX as f32);
        assert_eq!(
            g.drand_between(-2.0, 3.0),
            5.0 * r.urand64() as f64 / u64::MAX as f64 - 2.0
        );
        // `urand(10)`: draws at or above 4294967290 are drawn again.
        let v = loop {
            let v = r.urand();
            if v < (u32::MAX / 10) * 10 {
                break v % 10;
            }
        };
        assert_eq!(g.urand_below(10), v);
        assert_eq!(
            g.urand_between(7, 17),
            7 + {
                loop {
                    let v = r.urand();
                    if v < (u32::MAX / 10) * 10 {
                        break v % 10;
                    }
                }
            }
        );
    }
    assert_eq!(XorShift64::new(0), XorShift64::new(1318319));
    let words = kokkos_seed_words(9, 16);
    let mut g = XorShift1024::new(9);
    let mut r = Ref1024(words.try_into().unwrap(), 0);
    for _ in 0..1000 {
        assert_eq!(g.urand64(), r.urand64());
    }
    // Empty ranges draw nothing and give 0 (Kokkos divides by zero there).
    let before = g;
    assert_eq!(
        (g.urand_below(0), g.rand_below(-3), g.rand64_below(0)),
        (0, 0, 0)
    );
    assert_eq!(g, before);
}

/// On Serial (one state) a kernel's draws are the stream of the pool's state 0, in iteration
/// order, as Kokkos' Serial draws them; the state is written back, so a second launch goes on.
fn serial_stream<S: Launch>(exec: &S) -> Result<()> {
    if exec.concurrency() != 1 {
        return Ok(());
    }
    let pool = RandomXorShift64Pool::new(exec, 777)?;
    assert_eq!(pool.num_states(), 1);
    let n = 100;
    let out = SView::<S, u64, 1>::new("out", [2 * n])?;
    for half in 0..2usize {
        parallel_for(
            "draw",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i| {
                let mut rng = pool.get_state();
                out[half * 100 + i] = rng.urand64();
                pool.free_state(rng);
            }),
        )?;
    }
    let mut r = Ref64(kokkos_seed_words(777, 1)[0]);
    let want: Vec<u64> = (0..2 * n).map(|_| r.urand64()).collect();
    assert_eq!(download(&out)?, want);
    Ok(())
}

per_space!(serial_draws_are_kokkos_serial_stream, serial_stream);

/// Every iteration draws 8 numbers from the state it holds: a state shared by two threads at once
/// would repeat numbers. The draws of all iterations are the pool's streams: each state's
/// stream, cut where its holders changed, with no number twice, and each state ends where its
/// stream is after the draws it gave out.
fn states_are_held_by_one_iteration_at_a_time<S: Launch>(exec: &S) -> Result<()> {
    for states in [exec.concurrency(), 3] {
        let pool = RandomXorShift64Pool::with_states(exec, 31, states)?;
        let n = 20_000usize;
        let out = SView::<S, u64, 2>::new("out", [n, 8])?;
        parallel_for(
            "draw",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i| {
                let mut rng = pool.get_state();
                for k in 0..8 {
                    out[(i, k)] = rng.urand64();
                }
                pool.free_state(rng);
            }),
        )?;
        let got = download(&out)?;
        let mut sorted = got.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(
            sorted.len(),
            got.len(),
            "a number drawn twice: a state was shared"
        );
        // Each state gave out a prefix of its stream: replay each and count what it gave.
        let mut remaining: std::collections::HashSet<u64> = got.iter().copied().collect();
        let seeds = kokkos_seed_words(31, states);
        for (k, seed) in seeds.iter().enumerate() {
            let mut r = Ref64(*seed);
            let mut given = 0;
            loop {
                let mut probe = Ref64(r.0);
                if !remaining.remove(&probe.urand64()) {
                    break;
                }
                r = probe;
                given += 1;
            }
            // A state that gave draws ends after its last one (the rest, on a GPU's many
            // states, are checked by a sample).
            if given > 0 || k < 64 {
                assert_eq!(pool.state(k)?.state(), r.0, "state {k} after {given} draws");
            }
        }
        assert!(
            remaining.is_empty(),
            "{} draws of no state's stream",
            remaining.len()
        );
    }
    Ok(())
}

per_space!(
    states_are_held_by_one_iteration_at_a_time,
    states_are_held_by_one_iteration_at_a_time
);

/// The XorShift1024 pool: every draw is one of its states' streams (replayed here), none twice.
fn xorshift1024_draws_follow_the_streams<S: Launch>(exec: &S) -> Result<()> {
    let states = 4;
    let pool = RandomXorShift1024Pool::with_states(exec, 5, states)?;
    let n = 2_000usize;
    let out = SView::<S, u64, 2>::new("out", [n, 4])?;
    parallel_for(
        "draw",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let mut rng = pool.get_state();
            for k in 0..4 {
                out[(i, k)] = rng.urand64();
            }
        }),
    )?;
    let got: std::collections::HashSet<u64> = download(&out)?.into_iter().collect();
    assert_eq!(got.len(), n * 4);
    let words = kokkos_seed_words(5, 16 * states);
    let mut found = 0;
    for k in 0..states {
        let mut r = Ref1024(words[16 * k..16 * k + 16].try_into().unwrap(), 0);
        loop {
            let mut probe = r.clone();
            if !got.contains(&probe.urand64()) {
                break;
            }
            r = probe;
            found += 1;
        }
        assert_eq!(pool.state(k)?.state(), (r.0, r.1 as u32), "state {k}");
    }
    assert_eq!(found, n * 4, "draws outside the states' streams");
    Ok(())
}

per_space!(
    xorshift1024_draws_follow_the_streams,
    xorshift1024_draws_follow_the_streams
);

/// The draws of every kind land in their ranges, on every space, and agree with the host
/// generator's methods of the same state (one state: the same stream).
fn draws_match_the_host_generator<S: Launch>(exec: &S) -> Result<()> {
    let pool = RandomXorShift64Pool::with_states(exec, 99, 1)?;
    let n = 64usize;
    let ints = SView::<S, i64, 3>::new("ints", [1, n, 9])?;
    let floats = SView::<S, f64, 3>::new("floats", [1, n, 7])?;
    parallel_for(
        "draw",
        RangePolicy::new(exec, 0, 1)?,
        kernel!(|i| {
            let mut rng = pool.get_state();
            for j in 0..64usize {
                ints[(i, j, 0)] = rng.urand() as i64;
                ints[(i, j, 1)] = rng.urand_below(10) as i64;
                ints[(i, j, 2)] = rng.urand_between(5, 9) as i64;
                ints[(i, j, 3)] = rng.rand() as i64;
                ints[(i, j, 4)] = rng.rand_between(-5, 5) as i64;
                ints[(i, j, 5)] = rng.rand64_below(1000);
                ints[(i, j, 6)] = rng.rand64_between(-7, 3);
                ints[(i, j, 7)] = (rng.urand64() >> 1) as i64;
                ints[(i, j, 8)] = rng.urand64_between(100, 200) as i64;
                floats[(i, j, 0)] = rng.drand();
                floats[(i, j, 1)] = rng.drand_below(4.0);
                floats[(i, j, 2)] = rng.drand_between(-1.0, 1.0);
                floats[(i, j, 3)] = rng.frand() as f64;
                floats[(i, j, 4)] = rng.frand_between(2.0, 3.0) as f64;
                floats[(i, j, 5)] = rng.normal();
                floats[(i, j, 6)] = rng.normal_with(10.0, 0.5);
            }
            pool.free_state(rng);
        }),
    )?;
    let mut g = XorShift64::new(kokkos_seed_words(99, 1)[0]);
    let (mut wi, mut wf) = (vec![], vec![]);
    for _ in 0..n {
        wi.extend([
            g.urand() as i64,
            g.urand_below(10) as i64,
            g.urand_between(5, 9) as i64,
            g.rand() as i64,
            g.rand_between(-5, 5) as i64,
            g.rand64_below(1000),
            g.rand64_between(-7, 3),
            (g.urand64() >> 1) as i64,
            g.urand64_between(100, 200) as i64,
        ]);
        wf.extend([
            g.drand(),
            g.drand_below(4.0),
            g.drand_between(-1.0, 1.0),
            g.frand() as f64,
            g.frand_between(2.0, 3.0) as f64,
            g.normal(),
            g.normal_with(10.0, 0.5),
        ]);
    }
    assert_eq!(download(&ints)?, wi);
    let got = download(&floats)?;
    for (k, (a, b)) in got.iter().zip(&wf).enumerate() {
        // `normal` takes `ln` and `cos` from each side's math library: within a few ulps.
        let tol = if k % 7 >= 5 {
            1e-13 * b.abs().max(1.0)
        } else {
            0.0
        };
        assert!((a - b).abs() <= tol, "draw {k}: {a} against {b}");
    }
    for r in wi.chunks(9) {
        assert!(r[1] < 10 && (5..9).contains(&r[2]) && (-5..5).contains(&r[4]));
        assert!((0..1000).contains(&r[5]) && (-7..3).contains(&r[6]));
        assert!((100..200).contains(&r[8]));
    }
    Ok(())
}

per_space!(
    draws_match_the_host_generator,
    draws_match_the_host_generator
);

/// `fill_random` on Serial gives Kokkos' Serial values: rows in order, 128 per held state, the
/// elements of a row in index order; ranks 1 to 3, both layouts, integers and floats.
fn fill_random_follows_kokkos_order<S: Launch>(exec: &S) -> Result<()> {
    let pool = RandomXorShift64Pool::with_states(exec, 4, 1)?;
    let a = SView::<S, f64, 1>::new("a", [300])?;
    fill_random(exec, &a, &pool, 0.0..1.0)?;
    let b = SView::<S, u32, 3, LayoutLeft>::new("b", [130, 2, 3])?;
    fill_random(exec, &b, &pool, 10..20)?;
    let mut g = XorShift64::new(kokkos_seed_words(4, 1)[0]);
    let want_a: Vec<f64> = (0..300).map(|_| g.drand_between(0.0, 1.0)).collect();
    assert_eq!(download(&a)?, want_a);
    let got_b = download(&b)?;
    // Drawn in the order i, j, k whatever the layout (`download` gives that order too).
    for i in 0..130 {
        for j in 0..2 {
            for k in 0..3 {
                assert_eq!(got_b[6 * i + 3 * j + k], g.urand_between(10, 20));
            }
        }
    }
    Ok(())
}

/// `fill_random` on every space: every value in its range, the mean near the middle, no two
/// 64-bit draws alike; empty ranges are `Err`.
fn fill_random_fills_every_element_in_range<S: Launch>(exec: &S) -> Result<()> {
    if exec.concurrency() == 1 {
        fill_random_follows_kokkos_order(exec)?;
    }
    let pool = RandomXorShift1024Pool::new(exec, 8)?;
    let n = 100_003;
    let x = SView::<S, f64, 1>::new("x", [n])?;
    fill_random(exec, &x, &pool, -2.0..6.0)?;
    let v = download(&x)?;
    assert!(v.iter().all(|e| (-2.0..=6.0).contains(e)));
    let mean = v.iter().sum::<f64>() / n as f64;
    assert!((mean - 2.0).abs() < 0.05, "mean {mean}");
    let k = SView::<S, u64, 2>::new("k", [1000, 7])?;
    fill_random(exec, &k, &pool, 0..u64::MAX)?;
    let mut w = download(&k)?;
    w.sort_unstable();
    w.dedup();
    assert_eq!(w.len(), 7000);
    let i = SView::<S, i32, 4>::new("i", [3, 2, 5, 4])?;
    fill_random(exec, &i, &pool, -3..4)?;
    let w = download(&i)?;
    assert!(w.iter().all(|e| (-3..4).contains(e)));
    for v in -3..4 {
        assert!(w.contains(&v), "{v} never drawn");
    }
    let e = fill_random(exec, &i, &pool, 4..4).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }));
    assert!(
        e.to_string()
            .contains("View \"i\": the range 4..4 is empty"),
        "{e}"
    );
    let e = fill_random(exec, &x, &pool, 1.0..f64::NAN).unwrap_err();
    assert!(e.to_string().contains("the range 1.0..NaN is empty"), "{e}");
    Ok(())
}

per_space!(
    fill_random_fills_every_element_in_range,
    fill_random_fills_every_element_in_range
);

/// A state given back early, a second state after it, and states held in a loop's body; a panic
/// in the body gives the state back too (the next launch with one state does not wait forever).
fn states_are_given_back_on_every_path<S: Launch>(exec: &S) -> Result<()> {
    let pool = RandomXorShift64Pool::with_states(exec, 3, 1)?;
    let out = SView::<S, f64, 1>::new("out", [1000])?;
    parallel_for(
        "twice",
        RangePolicy::new(exec, 0, 1000)?,
        kernel!(|i| {
            let mut rng = pool.get_state();
            let a = rng.drand();
            pool.free_state(rng);
            let mut t = a;
            for _k in 0..2 {
                let mut again = pool.get_state();
                t += again.drand();
            }
            {
                let mut rng = pool.get_state();
                if i % 2 == 0 {
                    t += rng.drand_below(0.5);
                }
            }
            out[i] = t;
        }),
    )?;
    let v = download(&out)?;
    assert!(v.iter().all(|e| (0.0..=3.5).contains(e)));
    Ok(())
}

per_space!(
    states_are_given_back_on_every_path,
    states_are_given_back_on_every_path
);

#[test]
fn a_panicking_iteration_gives_its_state_back() -> Result<()> {
    crate::common::runtime();
    let exec = Threads::default_instance()?;
    let pool = RandomXorShift64Pool::with_states(&exec, 3, 1)?;
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        parallel_for(
            "panics",
            RangePolicy::new(&exec, 0, 100).unwrap(),
            kernel!(|i| {
                let mut rng = pool.get_state();
                if i == 57 {
                    panic!("iteration {} stops", i);
                }
                let _ = rng.urand();
            }),
        )
    }));
    assert!(r.is_err());
    let out = View::<u32, 1>::new("out", [64])?;
    parallel_for(
        "after",
        RangePolicy::new(&exec, 0, 64)?,
        kernel!(|i| {
            let mut rng = pool.get_state();
            out[i] = rng.urand_below(3);
        }),
    )?;
    assert!(out.to_vec()?.iter().all(|&e| e < 3));
    Ok(())
}

/// A functor struct with a pool member draws like a kernel.
struct Walk<S: Launch> {
    pool: RandomXorShift64Pool<S>,
    pos: SView<S, i64, 1>,
}

impl<S: Launch> Walk<S> {
    #[functor]
    fn step(&self, i: usize) {
        let mut rng = self.pool.get_state();
        let mut p = 0i64;
        for _k in 0..100 {
            p += if rng.urand_below(2) == 0 { -1 } else { 1 };
        }
        self.pos[i] = p;
        self.pool.free_state(rng);
    }
}

fn a_functor_member_pool_draws<S: Launch>(exec: &S) -> Result<()> {
    let w = Walk {
        pool: RandomXorShift64Pool::new(exec, 1)?,
        pos: SView::<S, i64, 1>::new("pos", [5000])?,
    };
    parallel_for("walk", RangePolicy::new(exec, 0, 5000)?, w.step())?;
    let v = download(&w.pos)?;
    assert!(v.iter().all(|p| p.abs() <= 100 && p % 2 == 0));
    let mean = v.iter().sum::<i64>() as f64 / 5000.0;
    assert!(mean.abs() < 1.0, "mean {mean}");
    Ok(())
}

per_space!(a_functor_member_pool_draws, a_functor_member_pool_draws);

#[test]
fn pool_errors_name_the_problem() -> Result<()> {
    crate::common::runtime();
    let exec = Serial::default_instance()?;
    let e = RandomXorShift64Pool::with_states(&exec, 1, 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Random_XorShift64: a pool for Serial has 0 states; it needs 1 to 2^31 - 1"
    );
    let pool = RandomXorShift1024Pool::with_states(&exec, 1, 2)?;
    let e = pool.state(2).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Random_XorShift1024: state 2 of a pool of 2 states"
    );
    // A pool captured by two launches at once is one launch's at a time.
    let x = View::<u32, 1>::new("x", [4])?;
    let twice = pool.clone();
    let e = parallel_for(
        "twice",
        RangePolicy::new(&exec, 0, 4)?,
        kernel!(|i| {
            let mut a = pool.get_state();
            x[i] = a.urand();
            let mut b = twice.get_state();
            x[i] += b.urand();
        }),
    )
    .unwrap_err();
    assert!(matches!(e, Error::KernelAlias { .. }), "{e}");
    Ok(())
}

#[test]
fn random_kernels_compile_for_the_gpu() -> Result<()> {
    crate::common::runtime();
    let exec = Serial::default_instance()?;
    let p64 = RandomXorShift64Pool::new(&exec, 1)?;
    let p1024 = RandomXorShift1024Pool::new(&exec, 1)?;
    let y = View::<f64, 1>::new("y", [64])?;
    let k = kernel!(|i| {
        let mut a = p64.get_state();
        let mut b = p1024.get_state();
        let n = a.urand_below(10) + b.urand_between(1, 3);
        let mut t = 0.0;
        while a.drand() < 0.9 {
            t += b.normal_with(1.0, 2.0) + a.frand_below(2.0) as f64;
        }
        y[i] = t + n as f64 + a.draw(0.0, 1.0) + b.rand64_between(-3, 3) as f64;
        p64.free_state(a);
    });
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    assert!(
        text.contains("const fk::RandomPool<fk::XorShift64> p64"),
        "{text}"
    );
    assert!(
        text.contains("fk::RandHold<fk::XorShift1024> b(p1024);"),
        "{text}"
    );
    assert!(text.contains("a.release();"), "{text}");
    check_device_code(&tu);
    Ok(())
}

/// The numbers Kokkos itself gives (Kokkos 3.4's `Random_XorShift64_Pool<Serial>(seed)` and
/// `Random_XorShift1024_Pool<Serial>(seed)`, one state each, and `fill_random(a, pool, -1.0, 1.0)`
/// of a 130 x 2 View, printed by a C++ program against Debian's Trilinos 13.2 Kokkos): the same
/// seeds give the same numbers here. (The literals are as Kokkos printed them, `%.17g` and `%.9g`.)
#[test]
#[allow(clippy::excessive_precision)]
fn seeds_give_the_numbers_kokkos_gives() -> Result<()> {
    crate::common::runtime();
    let exec = Serial::default_instance()?;
    let cases: [(u64, [u64; 3], u32, f64, f32, i32); 2] = [
        (
            0,
            [
                6727787113599424570,
                9149168868200328435,
                11242822011026406021,
            ],
            10,
            0.65414067376690133,
            0.454432458,
            311,
        ),
        (
            12345,
            [
                13560069293903648721,
                1503290412936721775,
                13280106426889089020,
            ],
            14,
            0.31191095728729001,
            0.199149728,
            315,
        ),
    ];
    for (seed, u64s, u, d, f, r) in cases {
        let mut g = RandomXorShift64Pool::new(&exec, seed)?.state(0)?;
        assert_eq!([g.urand64(), g.urand64(), g.urand64()], u64s, "seed {seed}");
        assert_eq!(g.urand_between(10, 20), u);
        assert_eq!(g.drand_between(-1.0, 1.0), d);
        assert_eq!(g.frand(), f);
        assert_eq!(g.rand_below(1000), r);
    }
    let cases: [(u64, [u64; 3], u32, f64); 2] = [
        (
            0,
            [
                4321707613525514059,
                3837409992859919612,
                16719450502560912221,
            ],
            16,
            0.75447161433660281,
        ),
        (
            12345,
            [
                7653950897185246563,
                15615541196074927405,
                2489548469643262458,
            ],
            12,
            0.18903205501404505,
        ),
    ];
    for (seed, u64s, u, d) in cases {
        let mut g = RandomXorShift1024Pool::new(&exec, seed)?.state(0)?;
        assert_eq!([g.urand64(), g.urand64(), g.urand64()], u64s, "seed {seed}");
        assert_eq!(g.urand_between(10, 20), u);
        assert_eq!(g.drand(), d);
    }
    let pool = RandomXorShift64Pool::new(&exec, 2024)?;
    let a = View::<f64, 2>::new("a", [130, 2])?;
    fill_random(&exec, &a, &pool, -1.0..1.0)?;
    assert_eq!(a.get((0, 0))?, -0.43220155684202766);
    assert_eq!(a.get((0, 1))?, -0.51275428228354825);
    assert_eq!(a.get((1, 0))?, 0.62970327219101807);
    assert_eq!(a.get((129, 1))?, 0.57423682566919654);
    Ok(())
}
