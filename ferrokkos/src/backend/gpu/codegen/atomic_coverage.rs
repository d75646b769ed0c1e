//! Test support: device code that calls every atomic of the device header (`device/atomics.cuh`)
//! on every type it supports, for the NVRTC and hiprtc compile checks.

/// The integer types, by their device names.
const INTS: [&str; 10] = [
    "i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize",
];

/// One `extern "C"` kernel per type that applies each of its atomics to a View's elements.
pub(crate) fn every_atomic() -> String {
    let mut s = String::from("\n// Coverage of the atomics.\n");
    for t in INTS.iter().chain(&["f32", "f64"]) {
        let int = INTS.contains(t);
        let mut ops = vec!["add", "sub", "mul", "div", "min", "max"];
        if int {
            ops.extend(["mod", "and", "or", "xor", "nand"]);
        }
        let mut body = String::new();
        for (k, op) in ops.iter().enumerate() {
            body.push_str(&format!(
                "  r += fk::atomic_{op}(&x({k}), v);\n  r += fk::atomic_{op}_fetch(&x({k}), v);\n"
            ));
        }
        if int {
            for op in ["lshift", "rshift"] {
                body.push_str(&format!(
                    "  r += fk::atomic_{op}(&x(1), 3u);\n  r += fk::atomic_{op}_fetch(&x(2), 3u);\n"
                ));
            }
            body.push_str(
                "  r += fk::atomic_inc(&x(3)) + fk::atomic_dec(&x(4));\n  \
                 r += fk::atomic_inc_fetch(&x(3)) + fk::atomic_dec_fetch(&x(4));\n",
            );
        }
        s.push_str(&format!(
            "extern \"C\" __global__ void atomics_{t}(fk::View<{t}, 1, fk::LayoutRight> x, {t} v) {{\n\
             \x20 {t} r = fk::atomic_load(&x(5));\n{body}\
             \x20 fk::atomic_fence_device();\n\
             \x20 r += fk::atomic_exchange(&x(6), v);\n\
             \x20 r += fk::atomic_compare_exchange(&x(7), v, r);\n\
             \x20 fk::atomic_fence_system();\n\
             \x20 fk::atomic_store(&x(8), r);\n}}\n"
        ));
    }
    for c in ["c32", "c64"] {
        s.push_str(&format!(
            "extern \"C\" __global__ void atomics_{c}(fk::View<{c}, 1, fk::LayoutRight> x, {c} v) {{\n\
             \x20 {c} r = fk::atomic_load(&x(0));\n\
             \x20 r = r + fk::atomic_add(&x(1), v) + fk::atomic_sub(&x(2), v);\n\
             \x20 r = r + fk::atomic_add_fetch(&x(1), v) + fk::atomic_sub_fetch(&x(2), v);\n\
             \x20 fk::atomic_store(&x(3), r);\n}}\n"
        ));
    }
    s
}
