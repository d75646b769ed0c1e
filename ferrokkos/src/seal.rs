//! The seal of the traits that unsafe code or the generated device code trusts.
//!
//! `Sealed` is public (so that public traits may require it) in a private module (so that no other
//! crate can name it, hence implement it). A trait with `Sealed` as a supertrait can therefore be
//! implemented only here, for the types this crate chooses: the launch may rely on what those
//! implementations report (the captured Views, the C++ text, the sizes of device values).

/// Implemented only inside ferrokkos; see the module documentation. (Traits implemented for tuples
/// have seals of their own below, so that the tuple implementations of different families do not
/// overlap.)
pub trait Sealed {}

/// The seal of `KernelValue` (what a kernel captures and reads: device values, Views of them,
/// arrays of them; a blanket implementation over `DeviceValue`, whose own contract is `unsafe`).
pub trait SealedKernelValue {}

/// The seal of [`crate::kernel::Captures`] (tuples of captures).
pub trait SealedCaptures {}

/// The seal of [`crate::kernel::ShadowIndex`] (iteration index types: integers and tuples of them).
pub trait SealedIndex {}

/// The seal of [`crate::kernel::DeviceIndex`] (View indices in the typed shadow).
pub trait SealedDeviceIndex {}

/// The seal of [`crate::kernel::KernelIndex`] and [`crate::kernel::IndexInt`] (View indices on the
/// host).
pub trait SealedKernelIndex {}

/// The seal of [`crate::kernel::DeviceReducer`] (reducers and tuples of them).
pub trait SealedReducer {}

/// The seal of the typed shadow's helper traits (`Branch`, `FnReturn`, `Place`, `Statement`,
/// `AsCast`, the field traits).
pub trait SealedShadow {}

/// The seal of the typed shadow's `SameType` (the right operand of an operator has the left's
/// type): implemented for the pairs `SameType` is (each type with itself), so that no other crate
/// can add pairs.
pub trait SealedSameType<T> {}

impl<T> SealedSameType<T> for T {}

/// The seal of the typed shadow's `Operand` (the right operand of an arithmetic operator pairs
/// with the left one): each type with itself, and a complex number with its part type in either
/// order (num-complex's mixed arithmetic), so that no other crate can add pairs.
pub trait SealedOperand<L> {}

impl<T> SealedOperand<T> for T {}
impl SealedOperand<num_complex::Complex<f32>> for f32 {}
impl SealedOperand<num_complex::Complex<f64>> for f64 {}
impl SealedOperand<f32> for num_complex::Complex<f32> {}
impl SealedOperand<f64> for num_complex::Complex<f64> {}

/// The seal of the typed shadow's `Takes` (a `#[device]` function's parameter takes an argument of
/// its own type): implemented (beside `Takes`, in the typed shadow) for the pairs `Takes` is, so
/// that no other crate can add pairs.
pub trait SealedTakes<A> {}

/// A token that only this crate can create: a trait method taking it can be called, and overridden,
/// only here (a default method of a public trait that takes a `Token` is therefore sealed while the
/// trait itself stays implementable).
#[derive(Debug, Clone, Copy)]
pub struct Token(());

impl Token {
    /// The token.
    pub(crate) const fn new() -> Token {
        Token(())
    }
}
