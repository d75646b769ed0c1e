//! Single-source kernels: [`crate::kernel!`], its typed shadow and the backend-neutral form of its
//! device code, [`KernelBody`] (DESIGN.md decisions 3 and 4). The device backends turn bodies into
//! their own code (the CUDA one into CUDA C++ in `backend/gpu/codegen/`).
//!
//! `kernel!(|i| y[i] = a * x[i] + y[i])` is one kernel body for every execution space. It expands to a
//! [`Kernel`] holding
//! - the captures: the body's free identifiers and field paths rooted at them (`c.u[(i, j)]`,
//!   `self.grid.k`, `p.0`: each path is one capture, as a Kokkos functor names its members),
//!   copied (numbers, `bool`s, [`DeviceValue`](crate::DeviceValue) structs, arrays of them such as `[f64; 8]`, read by
//!   index) or cloned (Views,
//!   sharing their allocation), so a kernel owns what it uses and may be launched many times (any
//!   number of captures; on the GPU those beyond the kernel parameter limit travel through device
//!   memory). Names in UPPER_CASE (`const` items, const generics, statics) are
//!   constants: the host uses them as they are and the device code gets their value as a literal;
//! - the body as a Rust closure for the host spaces (Serial, Threads), compiled by rustc: View
//!   accesses become bounds-checked accessor calls, and the loop vectorizes like a plain loop;
//! - the *typed shadow*: the same body rewritten so that each operation is a call of the shadow builders on
//!   [`Expr`] values. rustc type-checks it like the host closure, so every literal and local gets the
//!   same type (an unsuffixed `2.0` next to an `f32` is `float`, alone it is `double`). Running it once
//!   writes the body as typed statements ([`KernelBody`]); with the CUDA backend,
//!   `codegen::TranslationUnit::for_kernel` (and its siblings) wrap that into a translation
//!   unit (the device header, the `#[device]` functions called, the entry points) that NVRTC compiles.
//!
//! ```
//! use ferrokkos::prelude::*;
//! use ferrokkos::kernel;
//!
//! let _rt = ferrokkos::initialize(InitSettings::new())?;
//! let exec = Threads::default_instance()?;
//! let (x, y) = (View::<f32, 1>::new("x", [1000])?, View::<f32, 1>::new("y", [1000])?);
//! deep_copy(&x, 1.5f32)?;
//! let a = 2.0f32;
//! parallel_for("axpy", RangePolicy::new(&exec, 0, 1000)?, kernel!(|i| y[i] = a * x[i] + y[i]))?;
//! assert_eq!(y.get(7)?, 3.0);
//!
//! // A reduction: the accumulator is `&mut` the reducer's value.
//! let dot = parallel_reduce("dot", RangePolicy::new(&exec, 0, 1000)?,
//!     kernel!(|i, acc| *acc += x[i] * y[i]), Sum::<f32>::new())?;
//! assert_eq!(dot, 4500.0);
//!
//! // The same kernel in CUDA C++ (compiled by NVRTC when the CUDA backend launches it).
//! let k = kernel!(|i| y[i] = a * x[i] + 1.0);
//! let unit = ferrokkos::codegen::TranslationUnit::for_kernel(&k, Iterate::Right);
//! assert!(unit.generated().contains("y(fk_proven, i) = a * x(fk_proven, i) + 1.0f;"));
//! # Ok::<(), ferrokkos::Error>(())
//! ```
//!
//! # Parameters
//!
//! | kernel | pattern | parameters |
//! |---|---|---|
//! | `kernel!(\|i\| ...)` | `parallel_for` over a `RangePolicy` | `i: usize` unless annotated (`\|i: i32\|`) |
//! | `kernel!(\|(i, j)\| ...)` | `parallel_for` over an `MDRangePolicy` (rank 2 to 6) | `i64` coordinates unless annotated (`\|(i, j): (usize, usize)\|`) |
//! | `kernel!(\|i, acc\| ...)` | `parallel_reduce` | `acc: &mut V`, `V` the reducer's value type |
//! | `kernel!(\|i, a, b, ...\| ...)` | `parallel_reduce` with a tuple of reducers | one `&mut` accumulator per reducer |
//! | `kernel!(\|i, partial, is_final\| ...)` | `parallel_scan` | `partial: &mut V`, `is_final: bool` |
//! | `kernel!(\|team: &TeamMember\| ...)` | `parallel_for` over a `TeamPolicy` | the team member (its type written) |
//! | `kernel!(\|team: &TeamMember, acc\| ...)` | `parallel_reduce` over a `TeamPolicy` | the member and `acc: &mut V` |
//! | `kernel!(\|x: f64, y: f64\| -> f64 { ... })` | none: a [`DeviceClosure`] that kernels and the std algorithms call, `f.call(x, y)` | up to three, each with its type, and the result type |
//!
//! Three parameters mean a scan when the last one is annotated `bool` or is never dereferenced, and
//! a reduction into two accumulators otherwise. Accumulator types are inferred from the reducer; a
//! kernel that calls methods on an accumulator or reads its fields (`best.val` of a `MinLoc`) writes
//! its type (`best: &mut ValLocScalar<f64, usize>`), as a Rust closure would need to.
//!
//! # The kernel language
//!
//! Kernels use a subset of Rust that has a meaning on every device: `let` / `let mut` (also
//! `let (a, b) = (x, y);`), assignment and
//! compound assignment; values of [`DeviceValue`](crate::DeviceValue) structs (`#[repr(C)]` structs that derive it):
//! as View elements, captures and locals, their fields read and written (`p[i].vel.x += a`,
//! `q.x`, `t.0`), struct literals (`Vec2 { x: 1.0, y }`, `Tag(a, b)`), whole-value assignment;
//! arrays `[T; N]` of device values as locals (`let w = [a, b, c];`, `let mut acc = [0.0; N];`),
//! struct fields, captures, `#[device]` parameters and results and View elements
//! (`View<[f64; 3], 1>`, Kokkos' `View<double*[3]>`), indexed with a bounds check (`w[k]`,
//! `p[i].pos[k]`, `x[i][k]`), written where the array is, and `len()`;
//! methods and associated functions of `#[device] impl` blocks (`v.dot(w)`, `Vec2::new(x, y)`,
//! `Self::new` inside them; receivers `self` or `&self`); fieldless enums that derive [`DeviceValue`](crate::DeviceValue) (`#[repr(u8)]` ...): variants (`Phase::Gas`), `==`,
//! `!=`, `match` on them, as View elements, fields and captures;
//! complex numbers ([`crate::Complex`]`<f32>` / `<f64>`, num-complex's): `Complex::new(re, im)`,
//! `Complex::from_polar(r, theta)`, `z.re` / `z.im`, `+ - * / %`, negation, `==`, compound
//! assignment, `conj norm_sqr norm arg scale unscale inv exp ln`, with num-complex's formulas (the
//! exact operations give its bits on the GPU too; a complex times a real is `z.scale(t)`); arithmetic, comparison, logical, bitwise and shift operators on the primitive
//! numbers and `bool`; `as` casts; `if` / `else` (statements and values); `for` over ranges
//! (`a..b`, `a..=b`, then optionally `.rev()`, then optionally `.step_by(k)`), `match` on
//! integers and `bool`s (statements and values; patterns: literals, ranges, `|`, `_`, a name,
//! `n @ pattern`, constants, and guards `if c`; it becomes an `if` chain), `while`, `loop`,
//! `break`, `continue` (also `break 'outer` / `continue 'outer` to a labelled loop), `return`; the `f32` / `f64` methods `abs sqrt cbrt exp exp2 ln log2 log10
//! powi powf sin cos tan asin acos atan atan2 sinh cosh tanh floor ceil round trunc min max mul_add
//! hypot signum clamp is_nan is_finite` and the integer methods `min max abs pow wrapping_add
//! wrapping_sub wrapping_mul rem_euclid count_ones leading_zeros`; View indexing at ranks 1 to 8
//! (`x[i]`, `a[(i, j)]`, any integer types), `x.extent(r)`; atomics on Views of every integer type,
//! `f32`, `f64` (Kokkos' atomics as methods: `h.atomic_add(k, v)`, `atomic_sub`, `atomic_mul`,
//! `atomic_div`, `atomic_min`, `atomic_max`, and for integers `atomic_mod`, `atomic_and`,
//! `atomic_or`, `atomic_xor`, `atomic_nand`, `atomic_lshift`, `atomic_rshift` (a `u32` amount);
//! each also as `atomic_fetch_*` (the previous value) and `atomic_*_fetch` (the new value);
//! `atomic_inc`, `atomic_dec`, `atomic_increment`, `atomic_decrement`, `atomic_fetch_inc`,
//! `atomic_inc_fetch`, ...; `h.atomic_exchange(k, v)`, `h.atomic_compare_exchange(k, expected,
//! desired)` (returns the previous value; floats compare bit patterns), `h.atomic_load(k)`,
//! `h.atomic_store(k, v)`; on `Complex<f32>`, `Complex<f64>` `add`, `sub` (each component atomic,
//! not the number as a whole), `load`, `store`; relaxed with device scope, or with a
//! [`crate::MemoryOrder`] and [`crate::MemoryScope`] in the `_ord` forms
//! (`h.atomic_fetch_add_ord(k, v, MemoryOrder::AcqRel, MemoryScope::Device)`, constants the kernel
//! names); integers wrap, shifts mask their amount, integer `div` / `mod` by zero fault as `/`,
//! float `min`/`max` ignore a NaN operand); constants: numeric ones (`std::f64::consts::PI`,
//! `std::f32::consts::E`, `i32::MAX`, `f64::INFINITY`) and `const` items by name or path (`N`,
//! `consts::CONDUCTIVITY`, `Grid::SIZE`: an UPPER_CASE last segment), written into device code as
//! literals; typed locals (`let v: Vec2 = ...`); calls of [`crate::device`] functions (which take
//! values, Views they read, atomic Views they update and `&mut` elements); `unsafe { }` blocks. Anything else is a
//! compile error at the offending syntax that says what is supported.
//!
//! On the device the semantics are Rust's (release build): shifts mask their amount, `%` truncates,
//! float-to-integer `as` saturates (NaN gives 0), integer narrowing wraps, the methods behave as
//! Rust's. Integer `+ - *` and negation wrap on the device, as in a Rust release build (a debug
//! build panics on overflow; use the `wrapping_*` methods where wrapping is intended). An integer
//! division or remainder by zero, or of the smallest signed value by -1, where Rust panics, gives 0
//! on the device and the next wait for it returns [`crate::Error::DeviceArithmetic`].
//!
//! Indexing is bounds-checked everywhere. On the host an index outside a View's extents (or a
//! captured array's length) panics, naming the View. On the GPU the access reaches no memory (a
//! write is dropped, a read gives zero) and the next wait for the device (a fence, a reduction's
//! result) returns [`crate::Error::DeviceOutOfBounds`] naming the kernel, the index and the extents;
//! the device stays usable.
//!
//! # Team kernels
//!
//! A team kernel runs on every thread of every team of a [`crate::TeamPolicy`] and splits its work
//! with nested ranges (`TeamThreadRange::new(team, b, e).parallel_for(|i| ..)`, `.parallel_reduce(
//! |i, s| .., Sum::new())`, `.parallel_scan(..)`, and `ThreadVectorRange`, `TeamVectorRange`),
//! `single(PerTeam(team), || ..)` / `single(PerThread(team), || ..)` (which give their value to
//! the scope), `team.team_barrier()` and `team.team_broadcast(v, rank)`:
//!
//! ```
//! use ferrokkos::prelude::*;
//! let _rt = ferrokkos::initialize(InitSettings::new())?;
//! let exec = Threads::default_instance()?;
//! let (rows, cols) = (6usize, 100usize);
//! let a = View::<f64, 2>::new("a", [rows, cols])?;
//! a.host_mut()?.fill(0.5);
//! let row_sums = View::<f64, 1>::new("row sums", [rows])?;
//! // One team per row; its threads and lanes share the row's columns.
//! parallel_for("row sums", TeamPolicy::new(&exec, rows, AUTO)?, kernel!(|team: &TeamMember| {
//!     let r = team.league_rank();
//!     let s = TeamVectorRange::new(team, 0, cols).parallel_reduce(|j, s: &mut f64| *s += a[(r, j)], Sum::new());
//!     single(PerTeam(team), || row_sums[r] = s);
//! }))?;
//! assert_eq!(row_sums.to_vec()?, vec![50.0; rows]);
//! # Ok::<(), ferrokkos::Error>(())
//! ```
//!
//! Their race rules follow Kokkos' ownership: a View is written only where one thread and lane
//! runs the code (inside `single`, a `TeamVectorRange`, or a `ThreadVectorRange` in a
//! `TeamThreadRange`) at an index one to one in the league rank and the enclosing range indices
//! (`y[(team.league_rank(), i)]`, or `y[per * team.league_rank() + r]` for a range `0..per`);
//! collectives that synchronise the team stand where every thread of the team reaches them.
//! Scratch Views are declared at the team body's top level (`let tile =
//! team.team_scratch(0).view::<f64, 2>([n, n]);`, extents launch constants; the policy asks for
//! the bytes with `set_scratch_size`, which each launch checks), and a phase that writes one (the
//! code between two `team.team_barrier()`s) follows the same ownership rules within the team. The
//! architecture document's "Hierarchical parallelism" section gives the rules in full.
//!
//! # Race freedom
//!
//! The macro checks that a View the kernel writes is written only at an index that follows the
//! iteration index one to one: `y[i]`, shifted or reversed by launch constants (`y[i + n]`,
//! `y[m - 1 - i]`), strided (`y[2 * k + c]`), for an MDRange `a[(i, j)]` or `a[(j, n - 1 - i)]`; a
//! tuple holding each index coordinate at one position, such as `m[(i, k)]`, also qualifies
//! (iteration `i` owns row `i`). Reads at the written map are the iteration's own. Reads of a
//! written View at another map (`f[(i, 0)] = f[(i, last)]`, `y[i + n] = y[i]`) and writes at two
//! different maps are proved apart by each launch from its policy's bounds: an index map whose
//! image could meet the other's over the launch's iterations is [`crate::Error::KernelOverlap`],
//! naming both, and nothing runs. A View updated with atomics is touched only atomically. The check is on bindings, not text: the names it takes for
//! the iteration index must resolve to the index parameter (a `macro_rules!` macro could otherwise
//! hand the body another `i`), the body may not rebind the index, and the host body reaches nothing
//! around the kernel but the captures the macro found. A captured View (or array) is reached only by
//! indexing, `extent` and atomics: it cannot be passed to a function or be the receiver of another
//! method, and the accessors the host body uses live only for the launch (their element methods for
//! written Views are `unsafe`, called by the macro where it proved the rules). Functions called from
//! a kernel must be [`crate::device`] functions.
//!
//! Accesses inside `unsafe { }` are exempt: the author then promises Kokkos' contract (no element
//! written by one iteration and touched by another, also through Views that share an allocation).
//! The block keeps the author's own tokens, so `#![forbid(unsafe_code)]` rejects it. At launch, a
//! written View that shares its allocation with another captured View is an
//! [`crate::Error::KernelAlias`] unless the kernel contains `unsafe`; every captured allocation is
//! borrowed for the launch (exclusively if written), so a host guard held on it is an
//! [`crate::Error::Borrow`] rather than a race. Hence safe code cannot race through a kernel.
//!
//! # Generated code
//!
//! With the CUDA backend, `TranslationUnit::generated` ([`crate::nvrtc`]) is readable C++ with the Rust names of the types (`const f32 t = a *
//! x(i) + 1.0f;`) and `#line` directives to the kernel's Rust source, so that an NVRTC error points at
//! the user's line. The entry points and their parameters are described on `TranslationUnit`.

mod abort;
pub(crate) mod array;
mod body;
pub(crate) mod bounds;
pub(crate) mod builder;
pub(crate) mod capture;
pub(crate) mod closure;
pub(crate) mod closure_cxx;
mod complex;
pub(crate) mod device_bounds;
pub(crate) mod device_fn;
mod device_kernel;
mod device_reducer;
pub(crate) mod expr;
pub(crate) mod index;
pub(crate) mod join;
#[allow(clippy::module_inception)]
pub(crate) mod kernel;
pub(crate) mod overlap;
pub(crate) mod params;
pub(crate) mod shadow;
pub(crate) mod subview_range;
mod ty;
pub(crate) mod value;
mod view_atomic;
pub(crate) mod view_expr;

// What users name: the kernel value and its pattern markers, its backend-neutral body, the bounds
// of kernels and reducers that run on a device, and the device value types.
pub use abort::abort;
pub use body::{BodyKind, KernelBody};
pub use closure::{ClosureKey, ClosureShadow, DeviceClosure, DeviceFn};
pub use closure_cxx::{ClosureArgs, ClosureCaptures, ClosureCxx};
pub use device_kernel::{DeviceFor, DeviceReduce, DeviceScan};
pub use device_reducer::{DeviceReducer, NestedReducer};
pub use kernel::{ForKind, Kernel, KernelInfo, ReduceKind, ScanKind, TeamForKind, TeamReduceKind};
pub use shadow::team::ScratchValue;
pub use ty::{DeviceScalar, Kind};

// For the rest of the crate. The macro support (`crate::__private`: what `kernel!` and `#[device]`
// expand to) re-exports from the defining modules.
#[cfg_attr(not(feature = "cuda"), allow(unused_imports))] // used by the CUDA code generator
pub(crate) use builder::escape_text;
#[cfg_attr(not(feature = "cuda"), allow(unused_imports))] // used by the CUDA backend
pub(crate) use device_kernel::{DeviceKernel, DeviceKey};
pub(crate) use expr::Expr;
pub(crate) use index::ShadowIndex;
pub(crate) use kernel::HostBody;
#[cfg_attr(not(feature = "cuda"), allow(unused_imports))] // used by the CUDA backend
pub(crate) use params::{ParamWriter, Slot};
