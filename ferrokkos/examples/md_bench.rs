//! A micro-benchmark of rank-2 `MDRangePolicy` kernels on the host spaces against hand-written
//! loops: TeaLeaf's CG kernels on an `n x n` field with a halo of 2 (the interior is
//! `(n - 4) x (n - 4)`), as the app writes them (`apps/tealeaf/src/solvers/cg.rs`):
//!
//! - `cg_calc_w`: `w = A p` (5-point operator with face coefficients `kx`, `ky`), sum of `p w`
//!   (`parallel_reduce`, `Sum<f64>`);
//! - `cg_calc_ur`: `u += alpha p`, `r -= alpha w`, sum of `r r` (`parallel_reduce`);
//! - `cg_calc_p`: `p = beta p + r` (`parallel_for`).
//!
//! Each kernel is a `kernel!` over the interior, timed on Serial and on Threads, against a peer:
//! plain nested loops over slices for Serial, and for Threads the same loops over a static block of
//! rows per thread on a small pool of persistent threads of the same size (spinning a while after
//! each job, then sleeping, like OpenMP's threads and the Threads pool; a thread spawned per call
//! would cost more than a 512 x 512 kernel takes). The peer joins per-thread partial sums in
//! thread order. Results are checked against the peer's before timing. Implementations take turns,
//! in batches of calls lasting `--ms` milliseconds, and the table shows each one's median batch.
//!
//! ```text
//! cargo run --release -p ferrokkos --example md_bench -- --threads 16
//! ```
//! `FERROKKOS_PIN_THREADS=1` pins the pool's threads (the peer's are not pinned). Options:
//! `--threads N` (Threads' size; default: every core the process may use),
//! `--sizes 516,4004` (field widths, halo included), `--ms 20`, `--rounds 15`, and `--tiny F`: the
//! last fraction `F` of the rows start 1e-160 times smaller, so that their products are
//! subnormal numbers, which cost many processors tens to hundreds of cycles an operation. Late in
//! each of TeaLeaf's CG solves on `tea.in`, 10% to 57% of the cells of each 32-row block (one
//! thread's rows out of 16) are like that, so a static split of the rows is out of balance.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use ferrokkos::Result;
use ferrokkos::prelude::*;
use ferrokkos::traits::{ParallelReduce, ReduceFunctor};

/// A field with its halo.
type Field<S> = View<f64, 2, LayoutRight, <S as ExecutionSpace>::MemorySpace>;

/// TeaLeaf's halo depth.
const HALO: usize = 2;
/// The CG step's scalars (small, so that repeated calls keep the fields finite).
const ALPHA: f64 = 1e-3;
const BETA: f64 = 0.5;

/// TeaLeaf's operator at a cell (`SMVP`, in its order of operations).
#[device]
#[allow(clippy::too_many_arguments)]
fn smvp(
    a: f64,
    left: f64,
    right: f64,
    down: f64,
    up: f64,
    kx: f64,
    kx_next: f64,
    ky: f64,
    ky_next: f64,
) -> f64 {
    (1.0 + (kx_next + kx) + (ky_next + ky)) * a
        - (kx_next * right + kx * left)
        - (ky_next * up + ky * down)
}

/// The scale of the rows that start small (`--tiny`): their products are subnormal.
const TINY: f64 = 1e-160;

/// The start values of `p` and of the face coefficients.
#[device]
fn start_p(j: i64, k: i64) -> f64 {
    1.0 + ((j * 7 + k * 13) % 17) as f64 / 17.0
}

#[device]
fn start_k(j: i64, k: i64) -> f64 {
    0.1 + ((j * 3 + k * 5) % 11) as f64 * 0.01
}

/// The fields of one CG solve.
struct Fields<F> {
    p: F,
    w: F,
    u: F,
    r: F,
    kx: F,
    ky: F,
}

/// The kernels written with ferrokkos on space `S`.
struct Ferrokkos<S: Launch> {
    space: S,
    n: usize,
    f: Fields<Field<S>>,
}

impl<S: Launch> Ferrokkos<S> {
    /// Fields of `n x n` cells, first touched by a kernel on `space`; the rows from `tiny` on
    /// start 1e-160 times smaller.
    fn new(space: S, n: usize, tiny: usize) -> Result<Self> {
        let alloc = |label: &str| Field::<S>::new(view_alloc(label).without_initializing(), [n, n]);
        let f = Fields {
            p: alloc("p")?,
            w: alloc("w")?,
            u: alloc("u")?,
            r: alloc("r")?,
            kx: alloc("kx")?,
            ky: alloc("ky")?,
        };
        let this = Ferrokkos { space, n, f };
        let Fields { p, w, u, r, kx, ky } = &this.f;
        let all = MDRangePolicy::new(&this.space, [0, 0], [n as i64, n as i64])?;
        let tiny = tiny as i64;
        parallel_for(
            "md_bench::init",
            all,
            kernel!(|(j, k)| {
                let pjk = start_p(j, k) * if j >= tiny { TINY } else { 1.0 };
                p[(j, k)] = pjk;
                r[(j, k)] = pjk;
                u[(j, k)] = 1.0;
                w[(j, k)] = 0.0;
                kx[(j, k)] = start_k(j, k);
                ky[(j, k)] = start_k(k, j);
            }),
        )?;
        this.space.fence("md_bench::init")?;
        Ok(this)
    }

    fn interior(&self) -> Result<MDRangePolicy<S, 2>> {
        let (lo, hi) = (HALO as i64, (self.n - HALO) as i64);
        MDRangePolicy::new(&self.space, [lo, lo], [hi, hi])
    }

    fn sum<K: ReduceFunctor<(i64, i64), f64>>(&self, label: &str, kernel: K) -> Result<f64>
    where
        MDRangePolicy<S, 2>: ParallelReduce<K, Sum<f64>>,
    {
        parallel_reduce(label, self.interior()?, kernel, Sum::new())
    }

    fn calc_w(&self) -> Result<f64> {
        let Fields { p, w, kx, ky, .. } = &self.f;
        self.sum(
            "cg_calc_w",
            kernel!(|(j, k), pw: &mut f64| {
                let wjk = smvp(
                    p[(j, k)],
                    p[(j, k - 1)],
                    p[(j, k + 1)],
                    p[(j - 1, k)],
                    p[(j + 1, k)],
                    kx[(j, k)],
                    kx[(j, k + 1)],
                    ky[(j, k)],
                    ky[(j + 1, k)],
                );
                w[(j, k)] = wjk;
                *pw += wjk * p[(j, k)];
            }),
        )
    }

    fn calc_ur(&self) -> Result<f64> {
        let Fields { u, r, p, w, .. } = &self.f;
        let alpha = ALPHA;
        self.sum(
            "cg_calc_ur",
            kernel!(|(j, k), rrn: &mut f64| {
                u[(j, k)] += alpha * p[(j, k)];
                r[(j, k)] -= alpha * w[(j, k)];
                *rrn += r[(j, k)] * r[(j, k)];
            }),
        )
    }

    fn calc_p(&self) -> Result<()> {
        let Fields { p, r, .. } = &self.f;
        let beta = BETA;
        parallel_for(
            "cg_calc_p",
            self.interior()?,
            kernel!(|(j, k)| p[(j, k)] = beta * p[(j, k)] + r[(j, k)]),
        )
    }

    fn read(&self, v: &Field<S>) -> Result<Vec<f64>> {
        let mirror = create_mirror_view(v)?;
        deep_copy(&mirror, v)?;
        mirror.to_vec()
    }
}

/// A small pool of persistent threads for the hand-written peer: `run(f)` calls `f(k)` for
/// `k` in `0..size`, `f(0)` on the caller, and returns when all calls have. Idle threads spin for
/// 50 µs, yield for 150 µs, then sleep until the next job (the Threads pool's policy).
struct Crew {
    size: usize,
    shared: Arc<CrewShared>,
    threads: Vec<JoinHandle<()>>,
}

/// A job of the crew, its lifetime erased (see `Crew::run`).
type Job = &'static (dyn Fn(usize) + Sync);

struct CrewShared {
    /// Incremented once the next job is posted (under `sleep`, so sleepers miss no bump).
    epoch: AtomicU64,
    /// The workers that have finished the current job.
    done: AtomicUsize,
    job: Mutex<Option<Job>>,
    /// The number of sleeping workers.
    sleep: Mutex<usize>,
    wake: Condvar,
    stop: AtomicBool,
}

impl Crew {
    fn new(size: usize) -> Crew {
        let shared = Arc::new(CrewShared {
            epoch: AtomicU64::new(0),
            done: AtomicUsize::new(0),
            job: Mutex::new(None),
            sleep: Mutex::new(0),
            wake: Condvar::new(),
            stop: AtomicBool::new(false),
        });
        let threads = (1..size)
            .map(|index| {
                let shared = Arc::clone(&shared);
                std::thread::spawn(move || shared.work(index))
            })
            .collect();
        Crew {
            size,
            shared,
            threads,
        }
    }

    fn run(&self, f: &(dyn Fn(usize) + Sync)) {
        if self.size == 1 {
            return f(0);
        }
        // SAFETY: the reference is used only by workers running this job, each of which counts
        // itself in `done` after its last use of it; this function waits for all of them before
        // it returns (and clears the job), so `f` outlives every use.
        let job: Job = unsafe { std::mem::transmute::<&(dyn Fn(usize) + Sync), Job>(f) };
        let s = &*self.shared;
        *s.job.lock().unwrap() = Some(job);
        s.done.store(0, Ordering::Relaxed);
        let sleepers = {
            let sleepers = s.sleep.lock().unwrap();
            s.epoch.fetch_add(1, Ordering::Release);
            *sleepers
        };
        if sleepers > 0 {
            s.wake.notify_all();
        }
        f(0);
        let mut spins = 0u32;
        while s.done.load(Ordering::Acquire) < self.size - 1 {
            // Spin, then yield (a busy machine may have descheduled a worker).
            if spins < 1 << 12 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
        *s.job.lock().unwrap() = None;
    }
}

impl CrewShared {
    fn work(&self, index: usize) {
        let mut seen = 0;
        loop {
            let idle = Instant::now();
            loop {
                let e = self.epoch.load(Ordering::Acquire);
                if e != seen {
                    seen = e;
                    break;
                }
                let t = idle.elapsed();
                if t < Duration::from_micros(50) {
                    std::hint::spin_loop();
                } else if t < Duration::from_micros(200) {
                    std::thread::yield_now();
                } else {
                    let mut sleepers = self.sleep.lock().unwrap();
                    *sleepers += 1;
                    while self.epoch.load(Ordering::Acquire) == seen {
                        sleepers = self.wake.wait(sleepers).unwrap();
                    }
                    *sleepers -= 1;
                }
            }
            if self.stop.load(Ordering::Acquire) {
                return;
            }
            let job = *self.job.lock().unwrap();
            if let Some(f) = job {
                f(index);
            }
            self.done.fetch_add(1, Ordering::Release);
        }
    }
}

impl Drop for Crew {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        {
            let _sleepers = self.shared.sleep.lock().unwrap();
            self.shared.epoch.fetch_add(1, Ordering::Release);
        }
        self.shared.wake.notify_all();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// The hand-written peer: row-major `Vec`s, one static block of interior rows per crew thread.
struct Peer {
    n: usize,
    crew: Crew,
    f: Fields<Vec<f64>>,
}

/// The interior columns of a row.
fn cols(n: usize) -> Range<usize> {
    HALO..n - HALO
}

/// `w = A p` on `rows` (`w` holds those rows, from the first), and the sum of `p w`.
fn peer_w(n: usize, rows: Range<usize>, p: &[f64], kx: &[f64], ky: &[f64], w: &mut [f64]) -> f64 {
    let Range { start: lo, end: hi } = cols(n);
    let m = hi - lo;
    let mut pw = 0.0;
    for (row, j) in w.chunks_exact_mut(n).zip(rows) {
        let c = j * n;
        let w = &mut row[lo..hi];
        let pc = &p[c + lo - 1..c + hi + 1];
        let (pd, pu) = (&p[c - n + lo..c - n + hi], &p[c + n + lo..c + n + hi]);
        let (kxc, kyc, kyu) = (
            &kx[c + lo..c + hi + 1],
            &ky[c + lo..c + hi],
            &ky[c + n + lo..],
        );
        assert!(w.len() == m && pc.len() == m + 2 && pd.len() == m && pu.len() == m);
        assert!(kxc.len() == m + 1 && kyc.len() == m && kyu.len() >= m);
        for i in 0..m {
            let wjk = smvp(
                pc[i + 1],
                pc[i],
                pc[i + 2],
                pd[i],
                pu[i],
                kxc[i],
                kxc[i + 1],
                kyc[i],
                kyu[i],
            );
            w[i] = wjk;
            pw += wjk * pc[i + 1];
        }
    }
    pw
}

/// `u += alpha p`, `r -= alpha w` on `rows` (`u` and `r` hold those rows), and the sum of `r r`.
fn peer_ur(
    n: usize,
    rows: Range<usize>,
    p: &[f64],
    w: &[f64],
    u: &mut [f64],
    r: &mut [f64],
) -> f64 {
    let cols = cols(n);
    let mut rrn = 0.0;
    for ((u, r), j) in u.chunks_exact_mut(n).zip(r.chunks_exact_mut(n)).zip(rows) {
        let (p, w) = (&p[j * n..][cols.clone()], &w[j * n..][cols.clone()]);
        let (u, r) = (&mut u[cols.clone()], &mut r[cols.clone()]);
        for (((u, r), p), w) in u.iter_mut().zip(r.iter_mut()).zip(p).zip(w) {
            *u += ALPHA * p;
            *r -= ALPHA * w;
            rrn += *r * *r;
        }
    }
    rrn
}

/// `p = beta p + r` on `rows` (`p` holds those rows).
fn peer_p(n: usize, rows: Range<usize>, r: &[f64], p: &mut [f64]) {
    let cols = cols(n);
    for (p, j) in p.chunks_exact_mut(n).zip(rows) {
        let r = &r[j * n..][cols.clone()];
        for (p, r) in p[cols.clone()].iter_mut().zip(r) {
            *p = BETA * *p + r;
        }
    }
}

/// Splits the interior rows of `v` (`n` wide) into `parts` static blocks: each block's rows and
/// its cells, ready to be taken by the thread that runs it.
#[allow(clippy::type_complexity)]
fn blocks(v: &mut [f64], n: usize, parts: usize) -> Vec<Mutex<Option<(Range<usize>, &mut [f64])>>> {
    let rows = n - 2 * HALO;
    let mut rest = &mut v[HALO * n..(n - HALO) * n];
    (0..parts)
        .map(|k| {
            let (a, b) = (HALO + k * rows / parts, HALO + (k + 1) * rows / parts);
            let (mine, tail) = std::mem::take(&mut rest).split_at_mut((b - a) * n);
            rest = tail;
            Mutex::new(Some((a..b, mine)))
        })
        .collect()
}

impl Peer {
    fn new(n: usize, threads: usize, tiny: usize) -> Peer {
        let crew = Crew::new(threads);
        let field = |f: &(dyn Fn(i64, i64) -> f64 + Sync)| {
            let mut v = vec![0.0; n * n];
            let rows = Mutex::new(v.chunks_mut(n).enumerate().collect::<Vec<_>>());
            // First touch by the crew: each thread fills rows as it takes them.
            crew.run(&|_| {
                while let Some((j, row)) = rows.lock().unwrap().pop() {
                    for (k, x) in row.iter_mut().enumerate() {
                        *x = f(j as i64, k as i64);
                    }
                }
            });
            drop(rows);
            v
        };
        let scale = |j: i64| if j >= tiny as i64 { TINY } else { 1.0 };
        let f = Fields {
            p: field(&|j, k| start_p(j, k) * scale(j)),
            r: field(&|j, k| start_p(j, k) * scale(j)),
            u: field(&|_, _| 1.0),
            w: field(&|_, _| 0.0),
            kx: field(&|j, k| start_k(j, k)),
            ky: field(&|j, k| start_k(k, j)),
        };
        Peer { n, crew, f }
    }

    fn calc_w(&mut self) -> f64 {
        let n = self.n;
        let Fields { p, w, kx, ky, .. } = &mut self.f;
        let (p, kx, ky) = (&*p, &*kx, &*ky);
        by_rows(&self.crew, n, w, &|rows, w| peer_w(n, rows, p, kx, ky, w))
    }

    fn calc_ur(&mut self) -> f64 {
        let n = self.n;
        let parts = self.crew.size;
        let Fields { u, r, p, w, .. } = &mut self.f;
        let (ub, rb) = (blocks(u, n, parts), blocks(r, n, parts));
        let (p, w) = (&*p, &*w);
        let sums: Vec<Mutex<f64>> = (0..parts).map(|_| Mutex::new(0.0)).collect();
        self.crew.run(&|k| {
            let (rows, u) = ub[k].lock().unwrap().take().expect("one taker");
            let (_, r) = rb[k].lock().unwrap().take().expect("one taker");
            *sums[k].lock().unwrap() = peer_ur(n, rows, p, w, u, r);
        });
        sums.into_iter().map(|s| s.into_inner().unwrap()).sum()
    }

    fn calc_p(&mut self) {
        let n = self.n;
        let Fields { p, r, .. } = &mut self.f;
        let r = &*r;
        by_rows(&self.crew, n, p, &|rows, p| {
            peer_p(n, rows, r, p);
            0.0
        });
    }
}

/// Runs `f(rows, block)` for each static block of `out`'s interior rows (`n` wide) on `crew`,
/// and returns the sum of the results in block order.
fn by_rows(
    crew: &Crew,
    n: usize,
    out: &mut [f64],
    f: &(dyn Fn(Range<usize>, &mut [f64]) -> f64 + Sync),
) -> f64 {
    let parts = crew.size;
    let blocks = blocks(out, n, parts);
    let sums: Vec<Mutex<f64>> = (0..parts).map(|_| Mutex::new(0.0)).collect();
    crew.run(&|k| {
        let (rows, block) = blocks[k].lock().unwrap().take().expect("one taker");
        *sums[k].lock().unwrap() = f(rows, block);
    });
    sums.into_iter().map(|s| s.into_inner().unwrap()).sum()
}

/// The median of `xs`.
fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// The median time per call of `a` and of `b` (µs), over `rounds` turns each of batches of about
/// `batch`, alternating which goes first.
fn time_pair(
    a: &mut dyn FnMut() -> Result<()>,
    b: &mut dyn FnMut() -> Result<()>,
    batch: Duration,
    rounds: usize,
) -> Result<(f64, f64)> {
    let calls = |f: &mut dyn FnMut() -> Result<()>| -> Result<u32> {
        // Warm up, then as many calls as fill a batch.
        f()?;
        let t = Instant::now();
        for _ in 0..3 {
            f()?;
        }
        let per = t.elapsed().as_secs_f64() / 3.0;
        Ok(((batch.as_secs_f64() / per) as u32).max(1))
    };
    let (na, nb) = (calls(a)?, calls(b)?);
    let run = |f: &mut dyn FnMut() -> Result<()>, n: u32| -> Result<f64> {
        let t = Instant::now();
        for _ in 0..n {
            f()?;
        }
        Ok(t.elapsed().as_secs_f64() * 1e6 / n as f64)
    };
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        if round % 2 == 0 {
            ta.push(run(a, na)?);
            tb.push(run(b, nb)?);
        } else {
            tb.push(run(b, nb)?);
            ta.push(run(a, na)?);
        }
    }
    Ok((median(ta), median(tb)))
}

/// Checks that `a` and `b` agree within `tol` (relative to the largest magnitude).
fn agree(what: &str, a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    let scale = b.iter().fold(1e-300f64, |m, x| m.max(x.abs()));
    let worst = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0f64, f64::max);
    assert!(
        worst <= tol * scale,
        "{what}: differs by {worst:e} (scale {scale:e})"
    );
}

struct Options {
    threads: usize,
    tiny: f64,
    sizes: Vec<usize>,
    batch: Duration,
    rounds: usize,
}

fn options() -> Options {
    let mut o = Options {
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        tiny: 0.0,
        sizes: vec![516, 4004],
        batch: Duration::from_millis(20),
        rounds: 15,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{a} needs a value"));
        match a.as_str() {
            "--threads" => o.threads = value().parse().expect("--threads N"),
            "--sizes" => {
                o.sizes = value()
                    .split(',')
                    .map(|s| s.parse().expect("--sizes N,M"))
                    .collect()
            }
            "--ms" => o.batch = Duration::from_millis(value().parse().expect("--ms T")),
            "--rounds" => o.rounds = value().parse().expect("--rounds K"),
            "--tiny" => o.tiny = value().parse().expect("--tiny F"),
            // `cargo bench` passes this to every bench binary.
            "--bench" => {}
            other => panic!("unknown option {other}; see the file's documentation"),
        }
    }
    assert!(o.threads >= 1 && o.rounds >= 1 && (0.0..=1.0).contains(&o.tiny));
    assert!(o.sizes.iter().all(|&n| n > 2 * HALO), "sizes must exceed 4");
    o
}

/// Checks `space`'s kernels against the peer's, then times them.
fn bench<S: Launch>(space: S, threads: usize, n: usize, o: &Options) -> Result<()> {
    let rows = n - 2 * HALO;
    let tiny = n - HALO - (o.tiny * rows as f64).round() as usize;
    let fk = Ferrokkos::new(space.clone(), n, tiny)?;
    let mut peer = Peer::new(n, threads, tiny);
    // The same fields after the same calls, bit for bit; the sums within rounding (the partial
    // sums are grouped differently: about n² roundings of relative size 1e-16 each at worst).
    let tol = 1e-16 * (n * n) as f64;
    let (a, b) = (fk.calc_w()?, peer.calc_w());
    agree("cg_calc_w sum", &[a], &[b], tol);
    let (a, b) = (fk.calc_ur()?, peer.calc_ur());
    agree("cg_calc_ur sum", &[a], &[b], tol);
    fk.calc_p()?;
    peer.calc_p();
    for (name, v, p) in [
        ("w", &fk.f.w, &peer.f.w),
        ("u", &fk.f.u, &peer.f.u),
        ("r", &fk.f.r, &peer.f.r),
        ("p", &fk.f.p, &peer.f.p),
    ] {
        agree(name, &fk.read(v)?, p, 0.0);
    }
    let name = format!("{}({})", S::NAME, space.concurrency());
    let row = |kernel: &str, t: (f64, f64)| {
        println!(
            "{:>5}  {kernel:<11} {name:<12} {:>12.1} {:>12.1} {:>8.2}",
            n,
            t.0,
            t.1,
            t.1 / t.0
        );
    };
    let peer = std::cell::RefCell::new(peer);
    let t = time_pair(
        &mut || fk.calc_w().map(drop),
        &mut || {
            peer.borrow_mut().calc_w();
            Ok(())
        },
        o.batch,
        o.rounds,
    )?;
    row("cg_calc_w", t);
    let t = time_pair(
        &mut || fk.calc_ur().map(drop),
        &mut || {
            peer.borrow_mut().calc_ur();
            Ok(())
        },
        o.batch,
        o.rounds,
    )?;
    row("cg_calc_ur", t);
    let t = time_pair(
        &mut || fk.calc_p(),
        &mut || {
            peer.borrow_mut().calc_p();
            Ok(())
        },
        o.batch,
        o.rounds,
    )?;
    row("cg_calc_p", t);
    Ok(())
}

fn main() -> Result<()> {
    let o = options();
    // The environment's settings (FERROKKOS_PIN_THREADS=1 pins the pool), with `--threads`.
    let _rt = ferrokkos::initialize(InitSettings::from_env()?.num_threads(o.threads))?;
    println!(
        "rank-2 MDRange kernels (TeaLeaf CG), median µs per call; peer: nested loops \
         (Serial), a static block of rows per thread on persistent threads (Threads){}",
        if o.tiny > 0.0 {
            format!("; the last {}% of the rows subnormal", o.tiny * 100.0)
        } else {
            String::new()
        }
    );
    println!(
        "{:>5}  {:<11} {:<12} {:>12} {:>12} {:>8}",
        "n", "kernel", "space", "ferrokkos", "peer", "peer/fk"
    );
    for &n in &o.sizes {
        bench(Serial::default_instance()?, 1, n, &o)?;
        let threads = Threads::default_instance()?;
        let count = threads.concurrency();
        bench(threads, count, n, &o)?;
    }
    Ok(())
}
