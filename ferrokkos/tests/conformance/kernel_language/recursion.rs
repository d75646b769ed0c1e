//! `#[device]` functions that call themselves, directly or through others: the host runs them as
//! the Rust they are, and device code refuses them (a GPU thread's stack is small and fixed, and a
//! deep recursion faults and ends the context): the generated unit does not compile, and a launch
//! on the GPU is an `Err` naming the cycle before anything runs (`tests/cuda/`).

use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{Result, device, kernel};

use crate::common::{runtime, threads as exec};

/// `n!` by recursion.
#[device]
fn factorial(n: u64) -> u64 {
    if n <= 1 { 1 } else { n * factorial(n - 1) }
}

/// Whether `n` is even, by mutual recursion with [`odd`].
#[device]
fn even(n: u32) -> bool {
    if n == 0 { true } else { odd(n - 1) }
}

/// Whether `n` is odd, by mutual recursion with [`even`].
#[device]
fn odd(n: u32) -> bool {
    if n == 0 { false } else { even(n - 1) }
}

/// Calls [`factorial`] (not recursive itself).
#[device]
fn twice_factorial(n: u64) -> u64 {
    2 * factorial(n)
}

#[test]
fn recursive_device_functions_run_on_the_host() -> Result<()> {
    runtime();
    let out = View::<u64, 1>::new("out", [6])?;
    let parity = View::<bool, 1>::new("parity", [6])?;
    parallel_for(
        "recursion on the host",
        RangePolicy::new(&exec(), 0, 6)?,
        kernel!(|i| {
            out[i] = twice_factorial(i as u64);
            parity[i] = even(i as u32);
        }),
    )?;
    assert_eq!(out.to_vec()?, vec![2, 2, 4, 12, 48, 240]);
    assert_eq!(
        parity.to_vec()?,
        vec![true, false, true, false, true, false]
    );
    Ok(())
}

#[test]
fn device_code_refuses_a_cycle_of_device_function_calls() -> Result<()> {
    runtime();
    let out = View::<u64, 1>::new("out", [1])?;
    let direct = kernel!(|i| out[i] = twice_factorial(i as u64));
    let tu = TranslationUnit::for_kernel(&direct, Iterate::Right);
    assert!(
        tu.generated().contains(
            "#error \"its #[device] functions call each other in a cycle (factorial -> factorial)"
        ),
        "{}",
        tu.generated()
    );
    let parity = View::<bool, 1>::new("parity", [1])?;
    let mutual = kernel!(|i| parity[i] = even(i as u32));
    let tu = TranslationUnit::for_kernel(&mutual, Iterate::Right);
    assert!(
        tu.generated().contains("(even -> odd -> even)"),
        "{}",
        tu.generated()
    );
    if ferrokkos::nvrtc::require_or_skip() {
        let e = tu.compile_cubin(90).unwrap_err().to_string();
        assert!(e.contains("call each other in a cycle"), "{e}");
    }
    Ok(())
}
