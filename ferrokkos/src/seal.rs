//! The seal of the traits that unsafe code or the generated device code trusts.
//!
//! `Sealed` is public (so that public traits may require it) in a private module (so that no other
//! crate can name it, hence implement it). A trait with `Sealed` as a supertrait can therefore be
//! implemented only here, for the types this crate chooses: the launch may rely on what those
//! implementations report (the captured Views, the C++ text, the sizes of device values).
//!
//! Each seal carries the message a user gets on implementing the sealed trait: which trait is
//! sealed, that only ferrokkos implements it, and what to use instead. Public traits that share the
//! crate-wide `Sealed` (their implementors implement it, also in the backends) require a seal of
//! their own instead, implemented for every `Sealed` type, so that the message names the trait.

/// Implemented only inside ferrokkos; see the module documentation. (Traits implemented for tuples
/// have seals of their own below, so that the tuple implementations of different families do not
/// overlap.)
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot implement this trait: it is sealed, implemented only by ferrokkos for \
               its own types",
    label = "not a ferrokkos type",
    note = "launches and Views trust what the implementations of a sealed trait report, so no other \
            crate can add one; use one of the types that implement it"
)]
pub trait Sealed {}

/// Declares per-trait seals implemented by every [`Sealed`] type: the seal of a public trait whose
/// implementors implement the crate-wide `Sealed`, so that implementing the public trait elsewhere
/// is refused with a message that names it. A named seal does not require `Sealed` (rustc would then
/// report the crate-wide seal's generic message instead of the named one); where a bound on one
/// sealed trait must imply another's seal (`HostExecutionSpace` the launch seams', for the host
/// launch seams implemented for every host space), the seal requires the other named seals.
macro_rules! named_seals {
    ($($(#[$attr:meta])* $seal:ident $(: $($sup:ident),+)?;)*) => {$(
        $(#[$attr])*
        pub trait $seal $(: $($sup +)+)? {}

        #[diagnostic::do_not_recommend]
        impl<T: Sealed + ?Sized> $seal for T {}
    )*};
}

named_seals! {
    /// The seal of [`crate::MemorySpace`].
    #[diagnostic::on_unimplemented(
        message = "`MemorySpace` is sealed: only ferrokkos implements it, for its own memory spaces",
        label = "`{Self}` cannot be a memory space",
        note = "Views trust a memory space's allocation and its claims about who can reach its \
                memory, so no other crate can add one",
        note = "use HostSpace, CudaSpace, CudaHostPinnedSpace (SharedHostPinnedSpace) or \
                CudaUVMSpace (SharedSpace); memory of your own goes in an unmanaged View \
                (`View::with_slice`, `View::from_raw_parts`)"
    )]
    SealedMemorySpace;

    /// The seal of [`crate::traits::HostExecutionSpace`].
    #[diagnostic::on_unimplemented(
        message = "`HostExecutionSpace` is sealed: only ferrokkos implements it, for Serial and \
                   Threads",
        label = "`{Self}` cannot run kernels on host threads",
        note = "the host drivers run kernel bodies on the threads a host space hands out, and a \
                kernel's accessors are sound only if each index runs once; run on Serial or Threads \
                (`Threads::new_instance`, `partition_space` for several instances)"
    )]
    SealedHostExecutionSpace: SealedLaunchRange, SealedLaunchMDRange, SealedLaunchTeam;

    /// The seal of [`crate::traits::LaunchRange`].
    #[diagnostic::on_unimplemented(
        message = "`LaunchRange` is sealed: only ferrokkos's backends launch kernels",
        label = "`{Self}` cannot launch kernels",
        note = "a launch seam runs kernel bodies whose accessors are sound only if each index runs \
                once; an execution space of your own may implement `ExecutionSpace`, but kernels \
                run on ferrokkos's spaces (Serial, Threads, Cuda)"
    )]
    SealedLaunchRange;

    /// The seal of [`crate::traits::LaunchMDRange`].
    #[diagnostic::on_unimplemented(
        message = "`LaunchMDRange` is sealed: only ferrokkos's backends launch kernels",
        label = "`{Self}` cannot launch kernels",
        note = "a launch seam runs kernel bodies whose accessors are sound only if each index runs \
                once; an execution space of your own may implement `ExecutionSpace`, but kernels \
                run on ferrokkos's spaces (Serial, Threads, Cuda)"
    )]
    SealedLaunchMDRange;

    /// The seal of [`crate::traits::LaunchTeam`].
    #[diagnostic::on_unimplemented(
        message = "`LaunchTeam` is sealed: only ferrokkos's backends launch kernels",
        label = "`{Self}` cannot launch kernels",
        note = "a launch seam runs kernel bodies whose accessors are sound only if each index runs \
                once; an execution space of your own may implement `ExecutionSpace`, but kernels \
                run on ferrokkos's spaces (Serial, Threads, Cuda)"
    )]
    SealedLaunchTeam;

    /// The seal of [`crate::traits::GraphSpace`].
    #[diagnostic::on_unimplemented(
        message = "`GraphSpace` is sealed: only ferrokkos implements it, for its own execution \
                   spaces",
        label = "`{Self}` cannot run graphs",
        note = "a graph's race and lifetime guarantees rest on how a space records and replays its \
                launches; graphs run on Serial, Threads and Cuda (`create_graph(&exec, ..)`)"
    )]
    SealedGraphSpace;

    /// The seal of [`crate::traits::GraphPolicy`].
    #[diagnostic::on_unimplemented(
        message = "`GraphPolicy` is sealed: only ferrokkos implements it, for its own policies",
        label = "`{Self}` cannot be a graph node's policy",
        note = "a graph node re-aims its policy at the instance the graph runs on; a node runs a \
                RangePolicy, an MDRangePolicy or a TeamPolicy"
    )]
    SealedGraphPolicy;

    /// The seal of `Capture` (what `kernel!` captures).
    #[diagnostic::on_unimplemented(
        message = "`Capture` is sealed: only ferrokkos implements it, for what `kernel!` captures",
        label = "`{Self}` cannot be a kernel capture",
        note = "a launch trusts a capture to report the Views it borrows and to build its accessors; \
                a kernel captures Views, arrays and device values (numbers, `bool`, \
                `#[derive(DeviceValue)]` structs) by naming them in its body"
    )]
    SealedCapture;

    /// The seal of `KernelWritable` and `KernelAtomic` (what a kernel writes, and updates
    /// atomically).
    #[diagnostic::on_unimplemented(
        message = "`KernelWritable` and `KernelAtomic` are sealed: only ferrokkos implements them, \
                   for Views",
        label = "`{Self}` cannot be written by a kernel",
        note = "a kernel writes and updates atomically only the Views it captures, under the race \
                rules"
    )]
    SealedKernelWrite;

    /// The seal of [`crate::kernel::DeviceScalar`].
    #[diagnostic::on_unimplemented(
        message = "`DeviceScalar` is sealed: only ferrokkos implements it, for numbers, `bool` and \
                   complex numbers",
        label = "`{Self}` cannot name a C++ type in device code",
        note = "its C++ name is written into the generated code; a type of your own becomes a \
                device value with `#[derive(DeviceValue)]` on a `#[repr(C)]` struct"
    )]
    SealedDeviceScalar;

    /// The seal of [`crate::traits::SingleScope`].
    #[diagnostic::on_unimplemented(
        message = "`SingleScope` is sealed: `single` runs for `PerTeam(team)` or `PerThread(team)` \
                   only",
        label = "`{Self}` cannot choose which threads run `single`",
        note = "the backends decide which threads run a `single` closure and receive its value; \
                pass `PerTeam(team)` (one thread of the team) or `PerThread(team)` (each thread \
                once)"
    )]
    SealedSingleScope;

    /// The seal of [`crate::traits::ViewRead`].
    #[diagnostic::on_unimplemented(
        message = "`ViewRead` is sealed: only a kernel's captured Views and host guards implement \
                   it",
        label = "`{Self}` cannot stand for a View",
        note = "kernels trust a `#[device]` function's View parameter to only read; pass a captured \
                View in a kernel (`f(&u, i)`) or a guard on the host (`f(&u.host()?, i)`)"
    )]
    SealedViewRead;
}

/// The seal of `HostAtomic`, implemented beside it for the atomic types (a seal of its own,
/// not a named seal over `Sealed`, so that implementing `HostAtomicBits` for another type reports
/// one error, not one for `HostAtomic` and one for its seal).
#[diagnostic::on_unimplemented(
    message = "`HostAtomic` is sealed: host atomics exist for the integers, f32, f64 and \
               Complex<f32>, Complex<f64> only",
    label = "`{Self}` has no atomic operations here",
    note = "kernels rely on these operations being atomic; make the View's element one of these \
            types"
)]
pub trait SealedHostAtomic {}

/// The seal of `KernelValue` (what a kernel captures and reads: device values, Views of them,
/// arrays of them; a blanket implementation over `DeviceValue`, whose own contract is `unsafe`).
#[diagnostic::on_unimplemented(
    message = "`KernelValue` is sealed: only ferrokkos implements it, for device values, Views and \
               arrays of them",
    label = "`{Self}` cannot be captured by a kernel",
    note = "a type of your own becomes a device value with `#[derive(DeviceValue)]` on a \
            `#[repr(C)]` struct of device values; it is then a `KernelValue`"
)]
pub trait SealedKernelValue {}

/// The seal of [`crate::kernel::Captures`] (tuples of captures).
#[diagnostic::on_unimplemented(
    message = "`Captures` is sealed: only the tuples of captures that `kernel!` builds implement it",
    label = "`{Self}` cannot be a kernel's captures",
    note = "a launch trusts the captures to report the Views it borrows; a kernel captures what its \
            body names"
)]
pub trait SealedCaptures {}

/// The seal of [`crate::kernel::ShadowIndex`] (iteration index types: integers and tuples of them).
#[diagnostic::on_unimplemented(
    message = "`ShadowIndex` is sealed: a kernel's index is an integer or a tuple of one integer \
               type",
    label = "`{Self}` cannot be a kernel's index",
    note = "a kernel's index is `usize`, `u64`, `u32`, `isize`, `i64` or `i32` over a RangePolicy, \
            and a tuple of 2 to 6 of one of these over an MDRangePolicy"
)]
pub trait SealedIndex {}

/// The seal of [`crate::kernel::DeviceIndex`] (View indices in the typed shadow).
#[diagnostic::on_unimplemented(
    message = "`DeviceIndex` is sealed: only ferrokkos implements it, for the indices a kernel \
               writes",
    label = "`{Self}` cannot index a View in device code",
    note = "its C++ text is written into the generated code; a kernel indexes a rank-1 View with \
            one integer (`x[i]`) and a View of rank 2 to 8 with a tuple of as many integers \
            (`a[(i, j)]`)"
)]
pub trait SealedDeviceIndex {}

/// The seal of [`crate::kernel::KernelIndex`] and [`crate::kernel::IndexInt`] (View indices on the
/// host).
#[diagnostic::on_unimplemented(
    message = "`KernelIndex` and `IndexInt` are sealed: only ferrokkos implements them, for \
               integers and tuples of integers",
    label = "`{Self}` cannot index a View in a kernel",
    note = "a kernel indexes a rank-1 View with one integer of any integer type (`x[i]`) and a View \
            of rank 2 to 8 with a tuple of as many integers (`a[(i, j)]`)"
)]
pub trait SealedKernelIndex {}

/// The seal of [`crate::kernel::DeviceReducer`] (reducers and tuples of them).
#[diagnostic::on_unimplemented(
    message = "`DeviceReducer` is sealed: only ferrokkos's built-in reducers run in device code",
    label = "`{Self}` cannot reduce in device code",
    note = "a reducer's C++ text and value size go into device launches; use the built-in \
            reducers (Sum, Prod, Min, Max, LAnd, LOr, BAnd, BOr, MinLoc, MaxLoc, MinMax, \
            MinMaxLoc, tuples of them) or `Join` over a type that implements `DeviceJoin`; a \
            reducer of your own runs on host spaces (`ByValue(my_reducer)`)"
)]
pub trait SealedReducer {}

/// The seal of the typed shadow's helper traits (`Branch`, `FnReturn`, `Place`, `Statement`,
/// `SingleValue`).
#[diagnostic::on_unimplemented(
    message = "the typed shadow's traits (`Branch`, `FnReturn`, `Place`, `Statement`, \
               `SingleValue`) are sealed: only ferrokkos implements them",
    label = "`{Self}` cannot take part in a kernel's typed shadow",
    note = "their C++ text is written into the generated code; they serve the code that `kernel!` \
            and `#[device]` generate, for the types those macros produce"
)]
pub trait SealedShadow {}

/// The seal of the typed shadow's `SameType` (the right operand of an operator has the left's
/// type): implemented for the pairs `SameType` is (each type with itself), so that no other crate
/// can add pairs.
#[diagnostic::on_unimplemented(
    message = "`SameType` is sealed: in a kernel, each type is the same type as itself only",
    label = "`{Self}` cannot pass for `{T}`",
    note = "the typed shadow retypes an operand's C++ text through it; convert with `as` in the \
            kernel instead"
)]
pub trait SealedSameType<T> {}

impl<T> SealedSameType<T> for T {}

/// The seal of the typed shadow's `Operand` (the right operand of an arithmetic operator pairs
/// with the left one): each type with itself, and a complex number with its part type in either
/// order (num-complex's mixed arithmetic), so that no other crate can add pairs.
#[diagnostic::on_unimplemented(
    message = "`Operand` is sealed: in a kernel, an operator pairs a type with itself, or a complex \
               number with its part type",
    label = "`{Self}` cannot be an operand of `{L}`",
    note = "the typed shadow retypes an operand's C++ text through it; convert with `as` in the \
            kernel instead"
)]
pub trait SealedOperand<L> {}

impl<T> SealedOperand<T> for T {}
impl SealedOperand<num_complex::Complex<f32>> for f32 {}
impl SealedOperand<num_complex::Complex<f64>> for f64 {}
impl SealedOperand<f32> for num_complex::Complex<f32> {}
impl SealedOperand<f64> for num_complex::Complex<f64> {}

/// The seal of the typed shadow's `Takes` (a `#[device]` function's parameter takes an argument of
/// its own type): implemented (beside `Takes`, in the typed shadow) for the pairs `Takes` is, so
/// that no other crate can add pairs.
#[diagnostic::on_unimplemented(
    message = "`Takes` is sealed: a `#[device]` function's parameter takes an argument of its own \
               type only",
    label = "`{Self}` cannot take `{A}`",
    note = "the typed shadow retypes an argument's C++ text through it; convert the argument with \
            `as` in the kernel instead"
)]
pub trait SealedTakes<A> {}

/// A token that only this crate can create: a trait method taking it can be called, and overridden,
/// only here (a default method of a public trait that takes a `Token` is therefore sealed while the
/// trait itself stays implementable).
///
/// Its name is what rustc shows another crate that calls or overrides such a method ("argument of
/// type `ferrokkos::seal::SealedMethod` is missing", "`device_cxx` from trait:
/// `fn(ferrokkos::seal::SealedMethod) -> ..`"), so that the message says that the method is
/// sealed; the crate's own code spells it [`Token`].
#[derive(Debug, Clone, Copy)]
pub struct SealedMethod(());

/// The crate's name of [`SealedMethod`].
pub type Token = SealedMethod;

impl SealedMethod {
    /// The token.
    pub(crate) const fn new() -> Token {
        SealedMethod(())
    }
}
