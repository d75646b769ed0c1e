//! Kokkos' generators, `Random_XorShift64` and `Random_XorShift1024`, on the host: their state
//! steps, their outputs and the draws over them, bit for bit the formulas of Kokkos'
//! `Kokkos_Random.hpp`, which the device header's `random.cuh` repeats in C++ (the generated code
//! is compiled with `--fmad=false`, so the two agree to the bit except for `normal`, whose `ln` and
//! `cos` are each side's own).

use crate::seal::Sealed;

/// What a state becomes when it would be zero (Kokkos' constructor of `Random_XorShift64`), and
/// the seed that a zero seed becomes.
pub(crate) const ZERO_SEED: u64 = 1_318_319;

/// A generator of Kokkos' random pools: [`XorShift64`] or [`XorShift1024`] (sealed). Its state lives
/// in a [`RandomPool`](crate::RandomPool) as `WORDS` 64-bit words; the draws
/// (`urand`, `drand`, `normal`, ...) are the generator's own methods.
pub trait Generator: Sealed + Copy + Send + Sync + std::fmt::Debug + 'static {
    /// Kokkos' name of the generator (`Random_XorShift64`).
    const KOKKOS_NAME: &'static str;
    /// The words of one state in a pool.
    #[doc(hidden)]
    const WORDS: usize;
    /// The device header's type of the generator (`fk::XorShift64`).
    #[doc(hidden)]
    const CXX: &'static str;
    /// Advances the state and gives the output before its multiplier.
    #[doc(hidden)]
    fn step(&mut self) -> u64;
    /// The output multiplier (Kokkos': 2685821657736338717 and 1181783497276652981).
    #[doc(hidden)]
    const MULTIPLIER: u64;
    /// The generator of the state in `words` (`WORDS` of them).
    #[doc(hidden)]
    fn load(words: &[u64]) -> Self;
    /// Writes the state to `words` (`WORDS` of them).
    #[doc(hidden)]
    fn store(&self, words: &mut [u64]);
    /// A state seeded as Kokkos' pools seed theirs, from the host generator `seeder`.
    #[doc(hidden)]
    fn seeded(seeder: &mut XorShift64) -> Self;
}

/// One seed word of a pool's state, as Kokkos makes it: the low 16 bits of four `rand()`s of the
/// seeding generator, at bits 0, 16, 32 and 48.
fn seed_word(seeder: &mut XorShift64) -> u64 {
    (0..4).fold(0u64, |w, k| {
        w | ((seeder.rand() as u64 & 0xffff) << (16 * k))
    })
}

/// Kokkos' `Random_XorShift64`: a 64-bit xorshift state (shifts 12, 25, 27), its outputs scaled by
/// 2685821657736338717. A pool's state in kernels (`let mut rng = pool.get_state();`); on the host
/// a generator of its own.
///
/// ```
/// use ferrokkos::XorShift64;
///
/// let mut g = XorShift64::new(12345);
/// let x = g.drand();
/// assert!((0.0..=1.0).contains(&x));
/// let d = g.urand_between(10, 20);
/// assert!((10..20).contains(&d));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XorShift64 {
    state: u64,
}

impl XorShift64 {
    /// The generator whose state is `seed` (zero becomes 1318319, as in Kokkos).
    pub fn new(seed: u64) -> Self {
        XorShift64 {
            state: if seed == 0 { ZERO_SEED } else { seed },
        }
    }

    /// The state word.
    pub fn state(&self) -> u64 {
        self.state
    }
}

impl Sealed for XorShift64 {}

impl Generator for XorShift64 {
    const KOKKOS_NAME: &'static str = "Random_XorShift64";
    const WORDS: usize = 1;
    const CXX: &'static str = "fk::XorShift64";
    const MULTIPLIER: u64 = 2_685_821_657_736_338_717;

    #[inline(always)]
    fn step(&mut self) -> u64 {
        let mut s = self.state;
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        self.state = s;
        s
    }

    fn load(words: &[u64]) -> Self {
        XorShift64::new(words[0])
    }

    fn store(&self, words: &mut [u64]) {
        words[0] = self.state;
    }

    fn seeded(seeder: &mut XorShift64) -> Self {
        // Kept as the word (a zero word becomes 1318319 when loaded, as Kokkos' `get_state` does).
        XorShift64 {
            state: seed_word(seeder),
        }
    }
}

/// Kokkos' `Random_XorShift1024`: sixteen 64-bit words and a position (xorshift1024*, shifts 31,
/// 11, 30), its outputs scaled by 1181783497276652981. A longer period than [`XorShift64`]
/// (2^1024 - 1) for a state eight times the size.
///
/// ```
/// use ferrokkos::XorShift1024;
///
/// let mut g = XorShift1024::new(7);
/// let n = g.normal();
/// assert!(n.is_finite());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XorShift1024 {
    words: [u64; 16],
    p: u32,
}

impl XorShift1024 {
    /// The generator that a pool seeded with `seed` gives its first state (Kokkos makes these only
    /// in pools: 17 draws of a `XorShift64` of the seed are skipped, then each word is made of four
    /// draws).
    pub fn new(seed: u64) -> Self {
        let mut seeder = XorShift64::new(seed);
        for _ in 0..17 {
            seeder.rand();
        }
        XorShift1024::seeded(&mut seeder)
    }

    /// The sixteen state words and the position of the next step.
    pub fn state(&self) -> ([u64; 16], u32) {
        (self.words, self.p)
    }
}

impl Sealed for XorShift1024 {}

impl Generator for XorShift1024 {
    const KOKKOS_NAME: &'static str = "Random_XorShift1024";
    const WORDS: usize = 17;
    const CXX: &'static str = "fk::XorShift1024";
    const MULTIPLIER: u64 = 1_181_783_497_276_652_981;

    #[inline(always)]
    fn step(&mut self) -> u64 {
        let s0 = self.words[self.p as usize];
        self.p = (self.p + 1) & 15;
        let mut s1 = self.words[self.p as usize];
        s1 ^= s1 << 31;
        s1 ^= s1 >> 11;
        let s = s0 ^ (s0 >> 30) ^ s1;
        self.words[self.p as usize] = s;
        s
    }

    fn load(words: &[u64]) -> Self {
        let mut w = [0u64; 16];
        w.copy_from_slice(&words[..16]);
        XorShift1024 {
            words: w,
            p: (words[16] & 15) as u32,
        }
    }

    fn store(&self, words: &mut [u64]) {
        words[..16].copy_from_slice(&self.words);
        words[16] = u64::from(self.p);
    }

    fn seeded(seeder: &mut XorShift64) -> Self {
        let mut words = [0u64; 16];
        for w in &mut words {
            *w = seed_word(seeder);
        }
        XorShift1024 { words, p: 0 }
    }
}

/// The draws of a generator as its inherent methods, written once for [`XorShift64`],
/// [`XorShift1024`] and a kernel's held state ([`RandState`](super::RandState)): `$g` is the
/// expression giving `&mut` the generator, and `draw.rs` has the formulas.
macro_rules! draw_methods {
    ($self:ident => $g:expr) => {
        /// A uniform `u32` (Kokkos' `urand()`).
        #[inline]
        pub fn urand(&mut $self) -> u32 {
            super::draw::urand($g)
        }

        /// A uniform `u64` (Kokkos' `urand64()`).
        #[inline]
        pub fn urand64(&mut $self) -> u64 {
            super::draw::urand64($g)
        }

        /// A uniform `u32` in `0..range` (Kokkos' `urand(range)`: draws at or above the largest
        /// multiple of `range` are drawn again, so every value is equally likely); 0, drawing
        /// nothing, for a range of 0.
        #[inline]
        pub fn urand_below(&mut $self, range: u32) -> u32 {
            super::draw::urand_below($g, range)
        }

        /// A uniform `u32` in `start..end` (Kokkos' `urand(start, end)`: `start` plus a draw
        /// below `end - start`, both wrapping).
        #[inline]
        pub fn urand_between(&mut $self, start: u32, end: u32) -> u32 {
            super::draw::urand_below($g, end.wrapping_sub(start)).wrapping_add(start)
        }

        /// A uniform `u64` in `0..range` (Kokkos' `urand64(range)`); 0 for a range of 0.
        #[inline]
        pub fn urand64_below(&mut $self, range: u64) -> u64 {
            super::draw::urand64_below($g, range)
        }

        /// A uniform `u64` in `start..end` (Kokkos' `urand64(start, end)`).
        #[inline]
        pub fn urand64_between(&mut $self, start: u64, end: u64) -> u64 {
            super::draw::urand64_below($g, end.wrapping_sub(start)).wrapping_add(start)
        }

        /// A uniform non-negative `i32` (Kokkos' `rand()`: half of `urand()`).
        #[inline]
        pub fn rand(&mut $self) -> i32 {
            super::draw::rand($g)
        }

        /// A uniform `i32` in `0..range` (Kokkos' `rand(range)`); 0, drawing nothing, for a range
        /// of 0 or less.
        #[inline]
        pub fn rand_below(&mut $self, range: i32) -> i32 {
            super::draw::rand_below($g, range)
        }

        /// A uniform `i32` in `start..end` (Kokkos' `rand(start, end)`).
        #[inline]
        pub fn rand_between(&mut $self, start: i32, end: i32) -> i32 {
            super::draw::rand_below($g, end.wrapping_sub(start)).wrapping_add(start)
        }

        /// A uniform non-negative `i64` (Kokkos' `rand64()`: half of `urand64()`).
        #[inline]
        pub fn rand64(&mut $self) -> i64 {
            super::draw::rand64($g)
        }

        /// A uniform `i64` in `0..range` (Kokkos' `rand64(range)`); 0 for a range of 0 or less.
        #[inline]
        pub fn rand64_below(&mut $self, range: i64) -> i64 {
            super::draw::rand64_below($g, range)
        }

        /// A uniform `i64` in `start..end` (Kokkos' `rand64(start, end)`).
        #[inline]
        pub fn rand64_between(&mut $self, start: i64, end: i64) -> i64 {
            super::draw::rand64_below($g, end.wrapping_sub(start)).wrapping_add(start)
        }

        /// A uniform `f32` in `[0, 1]` (Kokkos' `frand()`: `urand64()` over `u64::MAX`, in `f32`).
        #[inline]
        pub fn frand(&mut $self) -> f32 {
            super::draw::frand_below($g, 1.0)
        }

        /// A uniform `f32` in `[0, range]` (Kokkos' `frand(range)`).
        #[inline]
        pub fn frand_below(&mut $self, range: f32) -> f32 {
            super::draw::frand_below($g, range)
        }

        /// A uniform `f32` in `[start, end]` (Kokkos' `frand(start, end)`).
        #[inline]
        pub fn frand_between(&mut $self, start: f32, end: f32) -> f32 {
            super::draw::frand_below($g, end - start) + start
        }

        /// A uniform `f64` in `[0, 1]` (Kokkos' `drand()`: `urand64()` over `u64::MAX`).
        #[inline]
        pub fn drand(&mut $self) -> f64 {
            super::draw::drand_below($g, 1.0)
        }

        /// A uniform `f64` in `[0, range]` (Kokkos' `drand(range)`).
        #[inline]
        pub fn drand_below(&mut $self, range: f64) -> f64 {
            super::draw::drand_below($g, range)
        }

        /// A uniform `f64` in `[start, end]` (Kokkos' `drand(start, end)`).
        #[inline]
        pub fn drand_between(&mut $self, start: f64, end: f64) -> f64 {
            super::draw::drand_below($g, end - start) + start
        }

        /// A standard normal `f64` (Kokkos' `normal()`: Box-Muller over two `drand()`s,
        /// `sqrt(-2 ln u) cos(2 pi v)`).
        #[inline]
        pub fn normal(&mut $self) -> f64 {
            super::draw::normal($g)
        }

        /// A normal `f64` of mean `mean` and standard deviation `std_dev` (Kokkos'
        /// `normal(mean, std_dev)`).
        #[inline]
        pub fn normal_with(&mut $self, mean: f64, std_dev: f64) -> f64 {
            mean + super::draw::normal($g) * std_dev
        }

        /// A uniform value of `T` in `begin..end` (Kokkos' `rand<Generator, T>::draw(rng, begin,
        /// end)`, which `fill_random` uses): `urand_between` for `u32`, `rand64_between` for
        /// `i64`, `drand_between` for `f64`, ... (see [`RandomValue`](crate::traits::RandomValue)).
        #[inline]
        pub fn draw<T: super::RandomValue>(&mut $self, begin: T, end: T) -> T {
            T::draw_between($g, begin, end)
        }
    };
}

pub(crate) use draw_methods;

impl XorShift64 {
    draw_methods!(self => self);
}

impl XorShift1024 {
    draw_methods!(self => self);
}
