//! Complex numbers in kernels: num-complex's `Complex<f32>` and `Complex<f64>` are device types
//! (`c32`, `c64` in C++, the header's `fk::complex<T>`), with `+ - * / %`, negation, `==`, compound
//! assignment, `Complex::new(re, im)`, `Complex::from_polar(r, theta)`, the fields `re` / `im` and
//! the methods below, with num-complex's formulas (see `codegen/device/complex.cuh`).

use num_complex::Complex;

use super::builder::prec;
use super::capture::IntoCapture;
use super::expr::{Expr, call};
use super::ty::{DeviceScalar, Kind};

macro_rules! complex_types {
    ($($t:ident => $cxx:literal),*) => {$(
        impl crate::seal::Sealed for Complex<$t> {}

        impl DeviceScalar for Complex<$t> {
            const CXX: &'static str = $cxx;
            const KIND: Kind = Kind::Complex;
            fn literal(self) -> String {
                format!("{}({}, {})", $cxx, self.re.literal(), self.im.literal())
            }
        }

        // SAFETY: num-complex's `Complex<T>` is `#[repr(C)]` with the fields `re` and `im` of one
        // float type: no padding, all-zero is 0 + 0i, every bit pattern is a value.
        unsafe impl crate::view::Element for Complex<$t> {
            const ANY_BIT_PATTERN: bool = true;
        }

        // SAFETY: two floats, no padding (above).
        unsafe impl crate::plain::PlainBytes for Complex<$t> {}

        // SAFETY: the header's `fk::complex<T>` (`c32`, `c64`) is `{ T re; T im; }`, the same
        // layout (its size and alignment are asserted there).
        unsafe impl super::value::DeviceValue for Complex<$t> {
            fn cxx_name() -> String {
                $cxx.to_string()
            }
        }

        impl IntoCapture for Complex<$t> {
            type Value = Complex<$t>;
            fn capture_value(&self) -> Complex<$t> {
                *self
            }
        }
    )*};
}

complex_types!(f32 => "c32", f64 => "c64");

/// The float types of complex numbers (sealed).
pub trait ComplexPart: DeviceScalar {}

impl ComplexPart for f32 {}
impl ComplexPart for f64 {}

/// The methods of num-complex's `Complex` that kernels may call.
impl<T: ComplexPart> Expr<Complex<T>>
where
    Complex<T>: DeviceScalar,
{
    /// `z.conj()`.
    pub fn conj(self) -> Self {
        call("fk::conj", &[self.text()])
    }
    /// `z.norm_sqr()`.
    pub fn norm_sqr(self) -> Expr<T> {
        call("fk::norm_sqr", &[self.text()])
    }
    /// `z.norm()`.
    pub fn norm(self) -> Expr<T> {
        call("fk::norm", &[self.text()])
    }
    /// `z.arg()`.
    pub fn arg(self) -> Expr<T> {
        call("fk::arg", &[self.text()])
    }
    /// `z.scale(t)`.
    pub fn scale(self, t: Expr<T>) -> Self {
        call("fk::scale", &[self.text(), t.text()])
    }
    /// `z.unscale(t)`.
    pub fn unscale(self, t: Expr<T>) -> Self {
        call("fk::unscale", &[self.text(), t.text()])
    }
    /// `z.inv()`.
    pub fn inv(self) -> Self {
        call("fk::inv", &[self.text()])
    }
    /// `z.exp()`.
    pub fn exp(self) -> Self {
        call("fk::exp", &[self.text()])
    }
    /// `z.ln()`.
    pub fn ln(self) -> Self {
        call("fk::ln", &[self.text()])
    }
}

/// `Complex::new(re, im)`.
pub fn complex_new<T: ComplexPart>(re: Expr<T>, im: Expr<T>) -> Expr<Complex<T>>
where
    Complex<T>: DeviceScalar,
{
    let ty = <Complex<T> as DeviceScalar>::CXX;
    Expr::new(format!("{ty}({}, {})", re.text(), im.text()), prec::PRIMARY)
}

/// `Complex::from_polar(r, theta)`.
pub fn complex_from_polar<T: ComplexPart>(r: Expr<T>, theta: Expr<T>) -> Expr<Complex<T>>
where
    Complex<T>: DeviceScalar,
{
    call("fk::from_polar", &[r.text(), theta.text()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complex_literals_are_constructor_calls() {
        assert_eq!(Complex::new(1.5f64, -2.0).literal(), "c64(1.5, -2.0)");
        assert_eq!(Complex::new(0.0f32, 1.0).literal(), "c32(0.0f, 1.0f)");
    }
}
