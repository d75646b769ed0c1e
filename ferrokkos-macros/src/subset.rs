//! The kernel language: which methods, paths and types a kernel body may use.

/// Methods a kernel may call on numbers and Views (the typed shadow has a translation for each).
pub const METHODS: &[&str] = &[
    // f32 / f64
    "abs",
    "sqrt",
    "cbrt",
    "exp",
    "exp2",
    "ln",
    "log2",
    "log10",
    "powi",
    "powf",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "floor",
    "ceil",
    "round",
    "trunc",
    "min",
    "max",
    "mul_add",
    "hypot",
    "signum",
    "clamp",
    "is_nan",
    "is_finite",
    // integers
    "pow",
    "wrapping_add",
    "wrapping_sub",
    "wrapping_mul",
    "rem_euclid",
    "count_ones",
    "leading_zeros",
    // Views
    "extent",
    "atomic_add",
    "atomic_min",
    "atomic_max",
];

/// The atomic View methods.
pub const ATOMICS: &[&str] = &["atomic_add", "atomic_min", "atomic_max"];

/// Accumulator fields (of `MinLoc`, `MaxLoc`, `MinMax` and `MinMaxLoc` values).
pub const FIELDS: &[&str] = &["val", "loc", "min_val", "max_val", "min_loc", "max_loc"];

/// The primitive types a kernel computes with.
pub const PRIMITIVES: &[&str] = &[
    "i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize", "f32", "f64", "bool",
];

/// A one-line summary of the kernel language for error messages.
pub const SUMMARY: &str = "kernels support `let` (of names, or of a tuple of names to a tuple of values), assignment and compound assignment, arithmetic, \
    comparison, logical, bitwise and shift operators, `as` casts between primitive types, `if` / \
    `else`, `for` over ranges (with `.rev()` and `.step_by(k)`), `while`, `loop`, `break`, \
    `continue`, float and integer methods, View indexing, `extent`, `atomic_add` / `atomic_min` / \
    `atomic_max`, calls of `#[ferrokkos::device]` functions, numeric constants (`std::f64::consts::PI`, \
    `i32::MAX`) and `unsafe { }` blocks";

/// Whether a multi-segment path is a numeric constant: `f64::MAX`, `std::f32::consts::PI`,
/// `std::f64::consts::E`, `core::i32::MIN`.
pub fn is_numeric_constant(segments: &[String]) -> bool {
    let rest = match segments.first().map(String::as_str) {
        Some("std") | Some("core") => &segments[1..],
        _ => segments,
    };
    match rest {
        [ty, _name] => PRIMITIVES.contains(&ty.as_str()) && ty != "bool",
        [ty, consts, _name] => (ty == "f32" || ty == "f64") && consts == "consts",
        _ => false,
    }
}
