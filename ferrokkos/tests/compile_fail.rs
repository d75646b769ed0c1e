//! Compile-fail tests of `kernel!` and `#[ferrokkos::device]`: each program under
//! `tests/compile_fail/` uses syntax the kernel language does not support or breaks a race rule, and
//! must fail to compile with an error that names what is wrong and points at the offending syntax.
//! The expected compiler output is in the `.stderr` file next to each program; after a deliberate
//! change to the messages, regenerate it with `TRYBUILD=overwrite cargo test --test compile_fail`
//! (from the `ferrokkos` directory) and review the diff.

#[test]
fn kernel_compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/compile_fail/*.rs");
}
