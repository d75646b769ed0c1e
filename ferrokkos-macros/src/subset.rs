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
    // `x.try_into().unwrap()` between integer types
    "try_into",
    "unwrap",
    // num-complex's `Complex` (also `exp`, `ln` above)
    "conj",
    "norm_sqr",
    "norm",
    "arg",
    "scale",
    "unscale",
    "inv",
    // Views
    "extent",
    // local arrays
    "len",
];

/// The atomic View methods and their numbers of arguments (the index first): Kokkos' `atomic_*`
/// and `atomic_fetch_*` as methods of the View.
pub const ATOMICS: &[(&str, usize)] = &[
    ("atomic_add", 2),
    ("atomic_sub", 2),
    ("atomic_min", 2),
    ("atomic_max", 2),
    ("atomic_and", 2),
    ("atomic_or", 2),
    ("atomic_xor", 2),
    ("atomic_fetch_add", 2),
    ("atomic_fetch_sub", 2),
    ("atomic_fetch_min", 2),
    ("atomic_fetch_max", 2),
    ("atomic_fetch_and", 2),
    ("atomic_fetch_or", 2),
    ("atomic_fetch_xor", 2),
    ("atomic_exchange", 2),
    ("atomic_compare_exchange", 3),
    ("atomic_load", 1),
    ("atomic_store", 2),
];

/// The number of arguments of the atomic View method `name`, if it is one.
pub fn atomic_arity(name: &str) -> Option<usize> {
    ATOMICS.iter().find(|(n, _)| *n == name).map(|&(_, k)| k)
}

/// The primitive types a kernel computes with.
pub const PRIMITIVES: &[&str] = &[
    "i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize", "f32", "f64", "bool",
];

/// A one-line summary of the kernel language for error messages.
pub const SUMMARY: &str = "kernels support `let` (of names, of a tuple of names to a tuple of values, or of a local array `[a, b]` / `[v; N]`), assignment and compound assignment, arithmetic, \
    comparison, logical, bitwise and shift operators, `as` casts between primitive types, `if` / \
    `else`, `match` (literals, ranges, `|`, `_`, names, constants, guards), `for` over ranges (with \
    `.rev()` and `.step_by(k)`), `while`, `loop`, `break`, `continue` (also to a labelled loop), \
    float and integer methods, \
    View indexing, `extent`, atomics (`h.atomic_add(k, v)`, `h.atomic_fetch_max(k, v)`, \
    `h.atomic_compare_exchange(k, old, new)`, ...), `#[derive(DeviceValue)]` structs (fields, \
    literals) and `Complex` numbers, calls of `#[ferrokkos::device]` functions, constants (`N`, \
    `consts::LIMIT`, `std::f64::consts::PI`, `i32::MAX`) and `unsafe { }` blocks";

/// Whether a multi-segment path names a constant by Rust's naming convention: its last segment is
/// UPPER_CASE (`consts::CONDUCTIVITY`, `crate::params::DT`, `Grid::N`). The device gets its value
/// as a literal, as for a bare `N`.
pub fn is_constant_path(segments: &[String]) -> bool {
    segments.last().is_some_and(|last| {
        last.starts_with(|c: char| c.is_ascii_uppercase())
            && last
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    })
}

/// Whether a path names a variant of an enum (`Species::Ion`, `model::Phase::Solid`): its last two
/// segments are CamelCase type and variant names.
pub fn is_variant_path(segments: &[String]) -> bool {
    let camel = |s: &str| {
        s.starts_with(|c: char| c.is_ascii_uppercase()) && s.chars().any(|c| c.is_ascii_lowercase())
    };
    match segments {
        [.., ty, variant] => camel(variant) && ty.starts_with(|c: char| c.is_ascii_uppercase()),
        _ => false,
    }
}

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
