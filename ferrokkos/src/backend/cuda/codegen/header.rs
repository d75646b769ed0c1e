//! The ferrokkos device header: what every generated translation unit starts with.

/// The device header (`device/*.cuh`, joined in this order): Rust-named typedefs, the fault record
/// and type traits (`types.cuh`); the `fk::View` descriptor per layout, Rust semantics for casts and
/// shifts (`views.cuh`); the float and integer methods (`math.cuh`); complex numbers
/// (`complex.cuh`); atomics (`atomics.cuh`);
/// reducers (`reducers.cuh`); block-level reduction and scan (`block.cuh`).
pub const DEVICE_HEADER: &str = concat!(
    include_str!("device/types.cuh"),
    "\n",
    include_str!("device/views.cuh"),
    "\n",
    include_str!("device/math.cuh"),
    "\n",
    include_str!("device/complex.cuh"),
    "\n",
    include_str!("device/atomics.cuh"),
    "\n",
    include_str!("device/reducers.cuh"),
    "\n",
    include_str!("device/block.cuh"),
);
