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

/// The read-modify-writes with an operand, each as `atomic_<op>`, `atomic_fetch_<op>` and
/// `atomic_<op>_fetch` (Kokkos' and desul's names).
const ATOMIC_OPS: &[&str] = &[
    "add", "sub", "mul", "div", "mod", "min", "max", "and", "or", "xor", "nand", "lshift", "rshift",
];

/// The other atomic View methods and their numbers of arguments (the index first).
const ATOMIC_OTHERS: &[(&str, usize)] = &[
    ("atomic_inc", 1),
    ("atomic_dec", 1),
    ("atomic_increment", 1),
    ("atomic_decrement", 1),
    ("atomic_fetch_inc", 1),
    ("atomic_fetch_dec", 1),
    ("atomic_inc_fetch", 1),
    ("atomic_dec_fetch", 1),
    ("atomic_exchange", 2),
    ("atomic_compare_exchange", 3),
    ("atomic_load", 1),
    ("atomic_store", 2),
];

/// The number of arguments of the atomic View method `name`, if it is one: Kokkos' atomics as
/// methods of the View (`h.atomic_fetch_add(k, v)`), and each with `_ord` and two more arguments,
/// the memory order and scope (`h.atomic_fetch_add_ord(k, v, MemoryOrder::AcqRel,
/// MemoryScope::Device)`).
pub fn atomic_arity(name: &str) -> Option<usize> {
    if let Some(base) = name.strip_suffix("_ord") {
        return atomic_base_arity(base).map(|k| k + 2);
    }
    atomic_base_arity(name)
}

fn atomic_base_arity(name: &str) -> Option<usize> {
    if let Some(&(_, k)) = ATOMIC_OTHERS.iter().find(|(n, _)| *n == name) {
        return Some(k);
    }
    let rest = name.strip_prefix("atomic_")?;
    let op = rest
        .strip_prefix("fetch_")
        .or_else(|| rest.strip_suffix("_fetch"))
        .unwrap_or(rest);
    ATOMIC_OPS.contains(&op).then_some(2)
}

/// The memory orders and scopes an `_ord` atomic takes (Kokkos' `MemoryOrderRelaxed`, ...).
pub const MEMORY_ORDERS: &[&str] = &["Relaxed", "Acquire", "Release", "AcqRel", "SeqCst"];
/// See [`MEMORY_ORDERS`].
pub const MEMORY_SCOPES: &[&str] = &["Device", "System"];

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

/// The built-in methods a `#[device] impl` method may share a name with, and their numbers of
/// arguments: kernels reach such a method through the trait of that name in
/// `ferrokkos::__private::shadow::builtin_named` (`__FkNorm` for `norm`).
const BUILTIN_NAMED: &[(&str, usize)] = &[
    ("abs", 0),
    ("sqrt", 0),
    ("cbrt", 0),
    ("exp", 0),
    ("exp2", 0),
    ("ln", 0),
    ("log2", 0),
    ("log10", 0),
    ("sin", 0),
    ("cos", 0),
    ("tan", 0),
    ("asin", 0),
    ("acos", 0),
    ("atan", 0),
    ("sinh", 0),
    ("cosh", 0),
    ("tanh", 0),
    ("floor", 0),
    ("ceil", 0),
    ("round", 0),
    ("trunc", 0),
    ("signum", 0),
    ("is_nan", 0),
    ("is_finite", 0),
    ("count_ones", 0),
    ("leading_zeros", 0),
    ("conj", 0),
    ("norm_sqr", 0),
    ("norm", 0),
    ("arg", 0),
    ("inv", 0),
    ("len", 0),
    ("powi", 1),
    ("powf", 1),
    ("atan2", 1),
    ("min", 1),
    ("max", 1),
    ("hypot", 1),
    ("pow", 1),
    ("wrapping_add", 1),
    ("wrapping_sub", 1),
    ("wrapping_mul", 1),
    ("rem_euclid", 1),
    ("scale", 1),
    ("unscale", 1),
    ("mul_add", 2),
    ("clamp", 2),
];

/// For a built-in method name a `#[device] impl` method may also have: its trait's name
/// (`__FkNormSqr` for `norm_sqr`) and the built-in's number of arguments.
pub fn builtin_named(name: &str) -> Option<(proc_macro2::Ident, usize)> {
    let (_, arity) = BUILTIN_NAMED.iter().find(|(n, _)| *n == name)?;
    let camel: String = name
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect();
    Some((
        proc_macro2::Ident::new(&format!("__Fk{camel}"), proc_macro2::Span::call_site()),
        *arity,
    ))
}
