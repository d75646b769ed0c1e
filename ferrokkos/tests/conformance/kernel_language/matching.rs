//! `match` on integers and bools (literals, `|`, ranges, constants by name and by path, bindings,
//! `n @ range`, guards, `_`), as a value and as a statement, and constants named by path
//! (`consts::CONDUCTIVITY`), on every space with plain Rust's results; the C++ compiles with NVRTC.

use crate::spaces::{SView, download, upload};
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{Result, kernel};

const LIMIT: i32 = 40;

mod consts {
    pub const CONDUCTIVITY: f64 = 0.25;
    pub const CUTOFF: i32 = 90;
}

/// The classification the kernel does, in plain Rust.
fn classify(v: i32) -> i32 {
    match v {
        0 => 100,
        1 | 3 | 5 => 200,
        -20..=-1 => 300,
        LIMIT => 400,
        consts::CUTOFF..=1000 => 500,
        n if n % 7 == 0 => 600 + n,
        n @ 4..=10 => 700 + n,
        _ => 800,
    }
}

fn match_on_integers_and_bools<S: Launch>(exec: &S) -> Result<()> {
    let values: Vec<i32> = (0..150).map(|k| (k * 37 % 131) - 20).collect();
    let n = values.len();
    let x = upload::<S, i32>("x", &values)?;
    let class = SView::<S, i32, 1>::new("class", [n])?;
    let parity = SView::<S, u8, 1>::new("parity", [n])?;
    let scaled = SView::<S, f64, 1>::new("scaled", [n])?;
    parallel_for(
        "match",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let v = x[i];
            class[i] = match v {
                0 => 100,
                1 | 3 | 5 => 200,
                -20..=-1 => 300,
                LIMIT => 400,
                consts::CUTOFF..=1000 => 500,
                n if n % 7 == 0 => 600 + n,
                n @ 4..=10 => 700 + n,
                _ => 800,
            };
            let even = v % 2 == 0;
            parity[i] = match even {
                true => 1,
                false => 0,
            };
            match v.rem_euclid(3) {
                0 => {
                    scaled[i] = v as f64 * consts::CONDUCTIVITY;
                }
                _ => scaled[i] = -1.0,
            }
        }),
    )?;
    assert_eq!(
        download(&class)?,
        values.iter().map(|&v| classify(v)).collect::<Vec<_>>()
    );
    assert_eq!(
        download(&parity)?,
        values
            .iter()
            .map(|&v| (v % 2 == 0) as u8)
            .collect::<Vec<_>>()
    );
    let want: Vec<f64> = values
        .iter()
        .map(|&v| match v.rem_euclid(3) {
            0 => v as f64 * consts::CONDUCTIVITY,
            _ => -1.0,
        })
        .collect();
    assert_eq!(download(&scaled)?, want);
    // Every arm was taken.
    let got = download(&class)?;
    for base in [100, 200, 300, 400, 500, 800] {
        assert!(got.contains(&base), "arm {base} not taken");
    }
    assert!(got.iter().any(|&c| (600..700).contains(&c)));
    assert!(got.iter().any(|&c| (704..=710).contains(&c)));
    Ok(())
}

per_space!(match_on_integers_and_bools, match_on_integers_and_bools);

#[test]
fn match_becomes_an_if_chain_that_compiles() -> Result<()> {
    crate::common::runtime();
    let x = crate::common::view_from("x", &[3i32, 9, 40])?;
    let y = View::<i32, 1>::new("y", [3])?;
    let k = kernel!(|i| {
        y[i] = match x[i] {
            1 | 2 | 3 => 1,
            LIMIT => 2,
            n if n > consts::CUTOFF => n,
            _ => 0,
        }
    });
    parallel_for(
        "m",
        RangePolicy::new(&Serial::default_instance()?, 0, 3)?,
        &k,
    )?;
    assert_eq!(y.to_vec()?, vec![1, 0, 2]);
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    assert!(
        text.contains("const i32 scrutinee = x(fk_proven, i);"),
        "{text}"
    );
    assert!(text.contains("scrutinee == 40"), "{text}");
    crate::common::check_device_code(&tu);
    Ok(())
}

/// A fieldless enum held as its discriminant (`u8` here).
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, ferrokkos::DeviceValue)]
enum Phase {
    Solid = 0,
    Liquid = 1,
    Gas = 2,
}

/// A struct with an enum field (no padding: 8 + 1 + 1 + 2 + 4 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, ferrokkos::DeviceValue)]
struct Cell {
    t: f64,
    phase: Phase,
    flag: u8,
    count: u16,
    id: u32,
}

fn phase_of(t: f64) -> Phase {
    if t < 0.0 {
        Phase::Solid
    } else if t < 100.0 {
        Phase::Liquid
    } else {
        Phase::Gas
    }
}

/// Enum values are made from variants, stored in Views and struct fields, compared and matched on
/// every space.
fn enums_are_values_and_match<S: Launch>(exec: &S) -> Result<()> {
    let temps: Vec<f64> = (0..60).map(|k| k as f64 * 5.0 - 40.0).collect();
    let n = temps.len();
    let start: Vec<Cell> = (0..n)
        .map(|k| Cell {
            t: temps[k],
            phase: Phase::Solid,
            flag: 0,
            count: k as u16,
            id: 1000 + k as u32,
        })
        .collect();
    let cells = upload::<S, Cell>("cells", &start)?;
    let phases = SView::<S, Phase, 1>::new("phases", [n])?;
    let code = SView::<S, i32, 1>::new("code", [n])?;
    parallel_for(
        "phases",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let c = cells[i];
            let phase = if c.t < 0.0 {
                Phase::Solid
            } else if c.t < 100.0 {
                Phase::Liquid
            } else {
                Phase::Gas
            };
            phases[i] = phase;
            cells[i] = Cell {
                t: c.t + 1.0,
                phase,
                flag: (phase == Phase::Gas) as u8,
                count: c.count + 1,
                id: c.id,
            };
            code[i] = match phase {
                Phase::Solid => 10,
                Phase::Liquid => 20,
                Phase::Gas => 30,
            };
        }),
    )?;
    let want_phases: Vec<Phase> = temps.iter().map(|&t| phase_of(t)).collect();
    assert_eq!(download(&phases)?, want_phases);
    let want_cells: Vec<Cell> = start
        .iter()
        .map(|c| Cell {
            t: c.t + 1.0,
            phase: phase_of(c.t),
            flag: (phase_of(c.t) == Phase::Gas) as u8,
            count: c.count + 1,
            id: c.id,
        })
        .collect();
    assert_eq!(download(&cells)?, want_cells);
    let want_code: Vec<i32> = want_phases
        .iter()
        .map(|p| match p {
            Phase::Solid => 10,
            Phase::Liquid => 20,
            Phase::Gas => 30,
        })
        .collect();
    assert_eq!(download(&code)?, want_code);
    Ok(())
}

per_space!(enums_are_values_and_match, enums_are_values_and_match);

#[test]
fn enums_compile_as_their_discriminants() -> Result<()> {
    crate::common::runtime();
    let phases = View::<Phase, 1>::new("phases", [3])?;
    let out = View::<u32, 1>::new("out", [3])?;
    let k = kernel!(|i| {
        out[i] = match phases[i] {
            Phase::Gas => 2,
            _ => 0,
        };
        phases[i] = Phase::Liquid;
    });
    parallel_for(
        "e",
        RangePolicy::new(&Serial::default_instance()?, 0, 3)?,
        &k,
    )?;
    assert_eq!(phases.to_vec()?, vec![Phase::Liquid; 3]);
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    assert!(
        text.contains("fk::View<u8, 1, fk::LayoutRight> phases"),
        "{text}"
    );
    assert!(text.contains("phases(fk_proven, i) = u8(1);"), "{text}");
    crate::common::check_device_code(&tu);
    Ok(())
}

/// `enum as integer` gives the discriminant, converted as the `#[repr]` integer converts, on every
/// space (a variant by path and a value read from a View).
fn enums_cast_to_their_discriminants<S: Launch>(exec: &S) -> Result<()> {
    let phases = upload::<S, Phase>(
        "phases",
        &[Phase::Solid, Phase::Gas, Phase::Liquid, Phase::Gas],
    )?;
    let out = SView::<S, i64, 1>::new("out", [4])?;
    let wide = SView::<S, f64, 1>::new("wide", [4])?;
    parallel_for(
        "casts",
        RangePolicy::new(exec, 0, 4)?,
        kernel!(|i| {
            let p = phases[i];
            out[i] = p as i64 * 10 + Phase::Gas as i64 - (p as u8) as i64;
            wide[i] = (p as u32) as f64 + 0.5;
        }),
    )?;
    let want: Vec<i64> = [0i64, 2, 1, 2].iter().map(|d| d * 10 + 2 - d).collect();
    assert_eq!(download(&out)?, want);
    assert_eq!(download(&wide)?, vec![0.5, 2.5, 1.5, 2.5]);
    Ok(())
}
per_space!(
    enums_cast_to_their_discriminants,
    enums_cast_to_their_discriminants
);

#[test]
fn enum_casts_compile() -> Result<()> {
    crate::common::runtime();
    let phases = View::<Phase, 1>::new("phases", [3])?;
    let out = View::<i32, 1>::new("out", [3])?;
    let k = kernel!(|i| out[i] = phases[i] as i32 + Phase::Liquid as i32);
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    assert!(
        tu.generated().contains("i32(phases(fk_proven, i))"),
        "{}",
        tu.generated()
    );
    crate::common::check_device_code(&tu);
    Ok(())
}
