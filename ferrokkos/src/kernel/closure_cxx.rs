//! The device side of a [`DeviceClosure`](super::closure::DeviceClosure): its captures travel as
//! one kernel parameter, a C++ struct with a member `c<k>` per captured value (defined once per
//! translation unit and tuple of types, its layout checked by a `static_assert` against the bytes
//! [`ClosureCaptures::pack`] writes), and a kernel's `f.call(x)` reaches the closure's shadow through
//! [`MethodReceiver`] and [`DeviceMethod`], as every method call that is not a built-in does.

use std::any::TypeId;

use super::builder::{self, prec};
use super::closure::{ClosureKey, ClosureShadow};
use super::device_fn::{Ch, DeviceMethod, MethodReceiver};
use super::expr::Expr;
use super::params::ParamWriter;
use super::shadow::Takes;
use super::value::DeviceValue;

/// The C++ side of a captured closure (the struct of its captures).
#[derive(Clone, Copy, Debug)]
pub struct ClosureCxx;

mod private {
    /// The seal of [`super::ClosureCaptures`] and [`super::ClosureArgs`]: a launch trusts their
    /// C++ descriptions and byte layouts.
    pub trait Sealed {}
}

/// The captured values of a closure: a tuple of up to 12 [`DeviceValue`]s (sealed).
#[diagnostic::on_unimplemented(
    message = "a device closure captures only values: `{Self}` holds something else",
    note = "a closure given to an algorithm captures numbers, `bool`s, `DeviceValue` structs and \
            arrays of them (at most 12); read Views in a kernel instead"
)]
pub trait ClosureCaptures: private::Sealed + Copy + Send + Sync + 'static {
    /// The captures in the typed shadow: the struct's members.
    type Shadow: Copy;
    /// The members of the struct parameter `param`.
    #[doc(hidden)]
    fn fields(param: Expr<ClosureCxx>) -> Self::Shadow;
    /// The struct's C++ name, defining it in the current emission first.
    #[doc(hidden)]
    fn cxx_struct() -> String;
    /// Appends the struct as one parameter.
    #[doc(hidden)]
    fn pack(&self, w: &mut ParamWriter<'_>);
}

/// The size and alignment of a C++ struct of members of these sizes and alignments, in order
/// (each member at the next offset aligned for it; an empty struct has one byte).
fn struct_layout(members: &[(usize, usize)]) -> (usize, usize) {
    let align = members.iter().map(|m| m.1).max().unwrap_or(1);
    let mut size = 0usize;
    for &(s, a) in members {
        size = size.next_multiple_of(a) + s;
    }
    (size.max(1).next_multiple_of(align), align)
}

/// The definition of the captures struct `cxx` with members of C++ types `types` (`c0`, `c1`, ...),
/// checked against the layout the writer gives.
fn definition(cxx: &str, types: &[String], layout: (usize, usize)) -> String {
    let mut text = format!("struct {cxx} {{\n");
    for (k, ty) in types.iter().enumerate() {
        text.push_str(&format!("    {ty} c{k};\n"));
    }
    text.push_str("};\n");
    text.push_str(&format!(
        "static_assert(sizeof({cxx}) == {} && alignof({cxx}) == {}, \"ferrokkos: a closure's \
         captures have another layout in C++ than in Rust\");\n",
        layout.0, layout.1
    ));
    text
}

macro_rules! closure_captures {
    ($($c:ident $k:tt),*) => {
        impl<$($c: DeviceValue),*> private::Sealed for ($($c,)*) {}

        impl<$($c: DeviceValue),*> ClosureCaptures for ($($c,)*) {
            type Shadow = ($(Expr<$c>,)*);
            #[allow(clippy::unused_unit)]
            fn fields(_param: Expr<ClosureCxx>) -> Self::Shadow {
                ($(Expr::<$c>::new(
                    format!("{}.c{}", _param.operand(prec::PRIMARY), $k),
                    prec::PRIMARY,
                ),)*)
            }
            fn cxx_struct() -> String {
                builder::device_type(TypeId::of::<Self>(), "Captures", |cxx| {
                    let types: Vec<String> = vec![$($c::cxx_name()),*];
                    let layout = struct_layout(&[
                        $((std::mem::size_of::<$c>(), std::mem::align_of::<$c>())),*
                    ]);
                    definition(cxx, &types, layout)
                })
            }
            fn pack(&self, w: &mut ParamWriter<'_>) {
                let (_, align) = struct_layout(&[
                    $((std::mem::size_of::<$c>(), std::mem::align_of::<$c>())),*
                ]);
                w.begin_struct(align);
                let members = 0usize $(+ { w.member(&self.$k); 1 })*;
                if members == 0 {
                    w.member(&0u8);
                }
                w.end_struct(align);
            }
        }
    };
}

closure_captures!();
closure_captures!(C0 0);
closure_captures!(C0 0, C1 1);
closure_captures!(C0 0, C1 1, C2 2);
closure_captures!(C0 0, C1 1, C2 2, C3 3);
closure_captures!(C0 0, C1 1, C2 2, C3 3, C4 4);
closure_captures!(C0 0, C1 1, C2 2, C3 3, C4 4, C5 5);
closure_captures!(C0 0, C1 1, C2 2, C3 3, C4 4, C5 5, C6 6);
closure_captures!(C0 0, C1 1, C2 2, C3 3, C4 4, C5 5, C6 6, C7 7);
closure_captures!(C0 0, C1 1, C2 2, C3 3, C4 4, C5 5, C6 6, C7 7, C8 8);
closure_captures!(C0 0, C1 1, C2 2, C3 3, C4 4, C5 5, C6 6, C7 7, C8 8, C9 9);
closure_captures!(C0 0, C1 1, C2 2, C3 3, C4 4, C5 5, C6 6, C7 7, C8 8, C9 9, C10 10);
closure_captures!(C0 0, C1 1, C2 2, C3 3, C4 4, C5 5, C6 6, C7 7, C8 8, C9 9, C10 10, C11 11);

/// A closure's parameter types: a tuple of up to three [`DeviceValue`]s (sealed; the tuples of
/// one to three are also captures tuples, and so already sealed).
#[diagnostic::on_unimplemented(
    message = "a device closure takes up to three values: `{Self}` is not such a tuple",
    note = "write each parameter with its type: `kernel!(|a: f64, b: f64| -> f64 {{ a + b }})`"
)]
pub trait ClosureArgs: private::Sealed + 'static {
    /// The arguments in the typed shadow.
    type Shadow: Copy;
}

impl ClosureArgs for () {
    type Shadow = ();
}

impl<A0: DeviceValue> ClosureArgs for (A0,) {
    type Shadow = (Expr<A0>,);
}

impl<A0: DeviceValue, A1: DeviceValue> ClosureArgs for (A0, A1) {
    type Shadow = (Expr<A0>, Expr<A1>);
}

impl<A0: DeviceValue, A1: DeviceValue, A2: DeviceValue> ClosureArgs for (A0, A1, A2) {
    type Shadow = (Expr<A0>, Expr<A1>, Expr<A2>);
}

// SAFETY: a closure's shadow is called as itself.
#[diagnostic::do_not_recommend]
unsafe impl<C, A, R, S: Copy> MethodReceiver for ClosureShadow<C, A, R, S> {
    type Target = Self;
    fn receive(self) -> Self {
        self
    }
}

// SAFETY: `ClosureShadow::__fk_call` / `__fkt_call` run the closure's own shadow, which `kernel!`
// generated from the body whose host form `DeviceClosure::call` runs.
#[diagnostic::do_not_recommend]
unsafe impl<C, A, R, S> DeviceMethod<Ch<'c', Ch<'a', Ch<'l', Ch<'l', ()>>>>>
    for ClosureShadow<C, A, R, S>
{
}

impl<C, R, S> ClosureShadow<C, (), R, S>
where
    C: ClosureCaptures,
    S: 'static + Fn(ClosureKey, C::Shadow, ()) -> Expr<R>,
{
    /// `f.call()`.
    pub fn __fk_call(self) -> Expr<R> {
        self.apply(())
    }

    /// `f.call()`.
    pub fn __fkt_call(self) -> Expr<R> {
        self.apply(())
    }
}

impl<C, A0, R, S> ClosureShadow<C, (A0,), R, S>
where
    C: super::closure_cxx::ClosureCaptures,
    A0: DeviceValue,
    S: 'static + Fn(ClosureKey, C::Shadow, (Expr<A0>,)) -> Expr<R>,
{
    /// `f.call(x)` for an argument of a known type.
    pub fn __fk_call<X0>(self, x: Expr<X0>) -> Expr<R>
    where
        A0: Takes<X0>,
    {
        self.apply((A0::take(x),))
    }

    /// `f.call(x)`.
    pub fn __fkt_call(self, x: Expr<A0>) -> Expr<R> {
        self.apply((x,))
    }
}

impl<C, A0, A1, R, S> ClosureShadow<C, (A0, A1), R, S>
where
    C: ClosureCaptures,
    A0: DeviceValue,
    A1: DeviceValue,
    S: 'static + Fn(ClosureKey, C::Shadow, (Expr<A0>, Expr<A1>)) -> Expr<R>,
{
    /// `f.call(a, b)` for arguments of known types.
    pub fn __fk_call<X0, X1>(self, a: Expr<X0>, b: Expr<X1>) -> Expr<R>
    where
        A0: Takes<X0>,
        A1: Takes<X1>,
    {
        self.apply((A0::take(a), A1::take(b)))
    }

    /// `f.call(a, b)`.
    pub fn __fkt_call(self, a: Expr<A0>, b: Expr<A1>) -> Expr<R> {
        self.apply((a, b))
    }
}

impl<C, A0, A1, A2, R, S> ClosureShadow<C, (A0, A1, A2), R, S>
where
    C: ClosureCaptures,
    A0: DeviceValue,
    A1: DeviceValue,
    A2: DeviceValue,
    S: 'static + Fn(ClosureKey, C::Shadow, (Expr<A0>, Expr<A1>, Expr<A2>)) -> Expr<R>,
{
    /// `f.call(a, b, c)` for arguments of known types.
    pub fn __fk_call<X0, X1, X2>(self, a: Expr<X0>, b: Expr<X1>, c: Expr<X2>) -> Expr<R>
    where
        A0: Takes<X0>,
        A1: Takes<X1>,
        A2: Takes<X2>,
    {
        self.apply((A0::take(a), A1::take(b), A2::take(c)))
    }

    /// `f.call(a, b, c)`.
    pub fn __fkt_call(self, a: Expr<A0>, b: Expr<A1>, c: Expr<A2>) -> Expr<R> {
        self.apply((a, b, c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_captures_struct_is_laid_out_as_cxx_lays_it_out() {
        assert_eq!(struct_layout(&[]), (1, 1));
        assert_eq!(struct_layout(&[(1, 1), (8, 8), (4, 4)]), (24, 8));
        assert_eq!(struct_layout(&[(4, 4), (2, 2)]), (8, 4));
    }

    #[test]
    fn the_writer_packs_captures_at_the_struct_offsets() {
        let mut bytes = vec![0u8; 1];
        let mut w = ParamWriter::new(&mut bytes);
        w.push(1u8);
        (3u8, 2.5f64, 7i32).pack(&mut w);
        // The struct starts at 8 (aligned for its f64): the u8, then the f64 at +8, the i32 at +16,
        // padded to 24.
        assert_eq!(w.len(), 8 + 24);
        assert_eq!(bytes[1 + 8], 3);
        assert_eq!(bytes[1 + 16..1 + 24], 2.5f64.to_ne_bytes());
        assert_eq!(bytes[1 + 24..1 + 28], 7i32.to_ne_bytes());
    }
}
