//! Methods of `#[device] impl` blocks named like a built-in method (`v.norm()`, `a.min(b)`,
//! `p.scale(2.0)` on a user's type): a kernel's shadow calls a built-in name as a method of the
//! receiver's shadow, which for the numbers is the built-in itself (an inherent method of
//! `Expr<f64>`, ...). For a user's type there is none, and rustc takes the method of the one trait
//! below of that name, which the call brings into scope: `#[device]` implements it (an `unsafe`
//! trait: the shadow decides the device code, so no hand-written impl) for
//! `Expr<UserType>` (the type parameter `L` names the user's type, so the impl is the user's own),
//! calling the method's shadow. The trait's parameters after `L` are the argument types; a method
//! so named takes as many arguments as the built-in.

macro_rules! builtin_named {
    ($($tr:ident $m:ident($($a:ident: $A:ident),*);)*) => {$(
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        /// # Safety
        ///
        /// Implemented only by `#[device]` for a method of an `impl` block: the method's result
        /// must be the shadow of that method (through `device_method`, which `DeviceMethod`
        /// proves), since the kernel's device code is what this shadow emits.
        pub unsafe trait $tr<L, $($A),*> {
            /// The result's shadow.
            type Output;
            /// The method's shadow.
            #[allow(clippy::wrong_self_convention)] // the built-ins' own receivers
            fn $m(self, $($a: $A),*) -> Self::Output;
        }
    )*};
}

builtin_named! {
    __FkAbs abs(); __FkSqrt sqrt(); __FkCbrt cbrt(); __FkExp exp(); __FkExp2 exp2(); __FkLn ln();
    __FkLog2 log2(); __FkLog10 log10(); __FkSin sin(); __FkCos cos(); __FkTan tan();
    __FkAsin asin(); __FkAcos acos(); __FkAtan atan(); __FkSinh sinh(); __FkCosh cosh();
    __FkTanh tanh(); __FkFloor floor(); __FkCeil ceil(); __FkRound round(); __FkTrunc trunc();
    __FkSignum signum(); __FkIsNan is_nan(); __FkIsFinite is_finite(); __FkCountOnes count_ones();
    __FkLeadingZeros leading_zeros(); __FkConj conj(); __FkNormSqr norm_sqr(); __FkNorm norm();
    __FkArg arg(); __FkInv inv(); __FkLen len();
    __FkPowi powi(a: A); __FkPowf powf(a: A); __FkAtan2 atan2(a: A); __FkMin min(a: A);
    __FkMax max(a: A); __FkHypot hypot(a: A); __FkPow pow(a: A); __FkWrappingAdd wrapping_add(a: A);
    __FkWrappingSub wrapping_sub(a: A); __FkWrappingMul wrapping_mul(a: A);
    __FkRemEuclid rem_euclid(a: A); __FkScale scale(a: A); __FkUnscale unscale(a: A);
    __FkMulAdd mul_add(a: A, b: B); __FkClamp clamp(a: A, b: B);
}

/// The check of a built-in method's argument against the receiver's type (`x.min(y)`: `y` of
/// `x`'s type), where the receiver has no built-in of that name: a `#[device]` method's arguments
/// have the types of its parameters, which its own shadow checks. (The numbers' check is the
/// inherent `Expr::__fk_same`, which rustc takes first.)
#[doc(hidden)]
#[allow(non_camel_case_types)]
pub trait __FkAnyArg {
    /// `e` itself.
    fn __fk_same<A>(&self, e: crate::kernel::expr::Expr<A>) -> crate::kernel::expr::Expr<A> {
        e
    }
}

impl<T> __FkAnyArg for crate::kernel::expr::Expr<T> {}
