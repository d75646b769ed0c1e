//! User structs on the device: `#[derive(DeviceValue)]` on `#[repr(C)]` structs makes them View
//! elements, captures, locals, struct literals and fields (nested, read and written, also in a
//! View's element) on every space, with the values plain Rust gives; the translation unit defines
//! them (field types first) with their layout checked, and NVRTC compiles it.

use crate::common::{check_device_code, view_from};
use crate::spaces::{SView, download, upload};
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{DeviceValue, Result, kernel};

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
struct Vec2 {
    x: f64,
    y: f64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
struct Particle {
    pos: Vec2,
    vel: Vec2,
    charge: f32,
    species: i32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
struct Params {
    dt: f64,
    field: Vec2,
}

/// A tuple struct whose fields are reached as `.0`, `.1`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
struct Tag(u32, i32);

fn particles(n: usize) -> Vec<Particle> {
    (0..n)
        .map(|k| Particle {
            pos: Vec2 {
                x: k as f64,
                y: -(k as f64) * 0.5,
            },
            vel: Vec2 {
                x: 1.0,
                y: (k % 3) as f64,
            },
            charge: if k % 2 == 0 { 1.0 } else { -2.0 },
            species: (k % 4) as i32,
        })
        .collect()
}

/// The push the kernel does, in plain Rust.
fn push(p: Particle, params: Params) -> (Particle, f64) {
    let q = p.charge as f64;
    let acc = Vec2 {
        x: q * params.field.x,
        y: q * params.field.y,
    };
    let mut p = p;
    p.vel.x += acc.x * params.dt;
    p.vel.y += acc.y * params.dt;
    p.pos = Vec2 {
        x: p.pos.x + p.vel.x * params.dt,
        y: p.pos.y + p.vel.y * params.dt,
    };
    p.species += 10;
    (p, 0.5 * (p.vel.x * p.vel.x + p.vel.y * p.vel.y))
}

/// A View of structs is read and written whole and field by field; a captured struct (a field
/// path of another struct, as a Kokkos functor's member) and struct literals are values.
fn views_of_structs_push_particles<S: Launch>(exec: &S) -> Result<()> {
    let n = 37;
    let start = particles(n);
    let parts = upload::<S, Particle>("parts", &start)?;
    let energy = SView::<S, f64, 1>::new("energy", [n])?;
    let tags = SView::<S, Tag, 1>::new("tags", [n])?;
    let setup = (
        Params {
            dt: 0.25,
            field: Vec2 { x: 2.0, y: -1.0 },
        },
        7u32,
    );
    parallel_for(
        "push",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let params = setup.0;
            let mut p = parts[i];
            let q = p.charge as f64;
            let acc = Vec2 {
                x: q * params.field.x,
                y: q * params.field.y,
            };
            p.vel.x += acc.x * params.dt;
            p.vel.y += acc.y * params.dt;
            p.pos = Vec2 {
                x: p.pos.x + p.vel.x * params.dt,
                y: p.pos.y + p.vel.y * params.dt,
            };
            parts[i] = p;
            parts[i].species += 10;
            energy[i] = 0.5 * (p.vel.x * p.vel.x + p.vel.y * p.vel.y);
            tags[i] = Tag(0, 0);
            tags[i].0 = setup.1 + i as u32;
            tags[i].1 = -parts[i].species;
        }),
    )?;
    let (want, want_energy): (Vec<Particle>, Vec<f64>) =
        start.iter().map(|&p| push(p, setup.0)).unzip();
    assert_eq!(download(&parts)?, want);
    assert_eq!(download(&energy)?, want_energy);
    let want_tags: Vec<Tag> = (0..n)
        .map(|k| Tag(7 + k as u32, -want[k].species))
        .collect();
    assert_eq!(download(&tags)?, want_tags);
    Ok(())
}

per_space!(
    views_of_structs_push_particles,
    views_of_structs_push_particles
);

/// `v * k`, as a device function of a struct.
#[ferrokkos::device]
fn scale(v: Vec2, k: f64) -> Vec2 {
    Vec2 {
        x: v.x * k,
        y: v.y * k,
    }
}

/// The dot product, calling another device function.
#[ferrokkos::device]
fn dot(a: Vec2, b: Vec2) -> f64 {
    let b = scale(b, 1.0);
    a.x * b.x + a.y * b.y
}

/// `#[device]` functions take and return structs.
fn device_functions_take_and_return_structs<S: Launch>(exec: &S) -> Result<()> {
    let n = 20;
    let start = particles(n);
    let parts = upload::<S, Particle>("parts", &start)?;
    let out = SView::<S, f64, 1>::new("out", [n])?;
    let moved = SView::<S, Vec2, 1>::new("moved", [n])?;
    parallel_for(
        "device_structs",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let p = parts[i];
            let w = scale(p.pos, 2.0);
            out[i] = dot(w, p.vel);
            moved[i] = scale(p.vel, p.charge as f64);
        }),
    )?;
    let want: Vec<f64> = start
        .iter()
        .map(|p| 2.0 * (p.pos.x * p.vel.x + p.pos.y * p.vel.y))
        .collect();
    assert_eq!(download(&out)?, want);
    let want: Vec<Vec2> = start
        .iter()
        .map(|p| scale(p.vel, p.charge as f64))
        .collect();
    assert_eq!(download(&moved)?, want);
    Ok(())
}

per_space!(
    device_functions_take_and_return_structs,
    device_functions_take_and_return_structs
);

/// Methods and associated functions that kernels call (`#[device] impl`).
#[ferrokkos::device]
impl Vec2 {
    fn new(x: f64, y: f64) -> Vec2 {
        Vec2 { x, y }
    }

    fn dot(self, o: Vec2) -> f64 {
        self.x * o.x + self.y * o.y
    }

    fn scaled(&self, k: f64) -> Vec2 {
        Self::new(self.x * k, self.y * k)
    }

    fn len2(self) -> f64 {
        self.dot(self)
    }
}

/// `x` (generic: its type comes from where its result goes).
#[ferrokkos::device]
fn unchanged<T>(x: T) -> T {
    x
}

/// Methods of a `#[device] impl` block, called on fields, locals and results of other calls
/// (nested), and associated functions by type path and `Self::`; an argument whose type comes
/// from the parameter (a generic function's result).
fn device_methods_are_called_on_values<S: Launch>(exec: &S) -> Result<()> {
    let n = 25;
    let start = particles(n);
    let parts = upload::<S, Particle>("parts", &start)?;
    let out = SView::<S, f64, 1>::new("out", [n])?;
    let moved = SView::<S, Vec2, 1>::new("moved", [n])?;
    parallel_for(
        "methods",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let p = parts[i];
            let w = p.vel.scaled(unchanged(2.0));
            out[i] = p.pos.dot(w.scaled(p.pos.dot(p.vel))) + Vec2::new(unchanged(1.0), 2.0).len2();
            moved[i] = p.pos.scaled(0.5).scaled(p.vel.len2());
        }),
    )?;
    let want: Vec<f64> = start
        .iter()
        .map(|p| {
            let w = p.vel.scaled(2.0);
            p.pos.dot(w.scaled(p.pos.dot(p.vel))) + Vec2::new(1.0, 2.0).len2()
        })
        .collect();
    assert_eq!(download(&out)?, want);
    let want: Vec<Vec2> = start
        .iter()
        .map(|p| p.pos.scaled(0.5).scaled(p.vel.len2()))
        .collect();
    assert_eq!(download(&moved)?, want);
    Ok(())
}

per_space!(
    device_methods_are_called_on_values,
    device_methods_are_called_on_values
);

/// A reduction over fields of a View of structs, and a struct value chosen by `if`.
fn reductions_read_struct_fields<S: Launch>(exec: &S) -> Result<()> {
    let n = 50;
    let start = particles(n);
    let parts = upload::<S, Particle>("parts", &start)?;
    let total = parallel_reduce(
        "charge",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i, acc: &mut f64| {
            let p = parts[i];
            let v = if p.species == 2 { p.vel } else { p.pos };
            *acc += p.charge as f64 * (v.x + v.y);
        }),
        Sum::<f64>::new(),
    )?;
    let want: f64 = start
        .iter()
        .map(|p| {
            let v = if p.species == 2 { p.vel } else { p.pos };
            p.charge as f64 * (v.x + v.y)
        })
        .sum();
    assert!(
        (total - want).abs() <= 1e-12 * want.abs().max(1.0),
        "{total} {want}"
    );
    Ok(())
}

per_space!(reductions_read_struct_fields, reductions_read_struct_fields);

/// The translation unit defines each struct once, field types first, with static_asserts of the
/// layout, and NVRTC compiles it (the layout checks included).
#[test]
fn structs_are_defined_once_before_use_and_compile() -> Result<()> {
    crate::common::runtime();
    let parts = view_from("parts", &particles(4))?;
    let out = View::<Vec2, 1>::new("out", [4])?;
    let params = Params {
        dt: 0.5,
        field: Vec2 { x: 1.0, y: 1.0 },
    };
    let k = kernel!(|i| {
        let p = parts[i];
        out[i] = Vec2 {
            x: p.pos.x * params.dt,
            y: p.vel.y + params.field.y,
        };
        out[i].y -= 1.0;
    });
    parallel_for(
        "defs",
        RangePolicy::new(&Serial::default_instance()?, 0, 4)?,
        &k,
    )?;
    let got = out.to_vec()?;
    assert_eq!(got[3], Vec2 { x: 1.5, y: 0.0 });
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    let vec2 = text.find("struct Vec2 {").expect("Vec2 defined");
    let particle = text.find("struct Particle {").expect("Particle defined");
    assert!(vec2 < particle, "{text}");
    assert_eq!(text.matches("struct Vec2 {").count(), 1, "{text}");
    assert!(
        text.contains("    Vec2 pos;\n    Vec2 vel;\n    f32 charge;\n    i32 species;\n"),
        "{text}"
    );
    assert!(
        text.contains("static_assert(sizeof(Particle) == 40 && alignof(Particle) == 8"),
        "{text}"
    );
    assert!(
        text.contains("fk::View<const Particle, 1, fk::LayoutRight>"),
        "{text}"
    );
    check_device_code(&tu);

    // Device functions of structs: the struct is defined before the functions that name it.
    let dots = View::<f64, 1>::new("dots", [4])?;
    let k = kernel!(|i| dots[i] = dot(scale(parts[i].vel, 2.0), parts[i].pos));
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    let def = text.find("struct Vec2 {").expect("Vec2 defined");
    let f = text.find("static __device__ Vec2 scale_fn(const Vec2 v, const f64 k)");
    assert!(f.is_some_and(|f| def < f), "{text}");
    check_device_code(&tu);

    // Methods: C++ functions named after the type, the receiver first.
    let k = kernel!(|i| dots[i] = parts[i].vel.scaled(2.0).dot(Vec2::new(1.0, 0.5)));
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    assert!(
        text.contains("static __device__ f64 Vec2_dot_fn(const Vec2 self, const Vec2 o)"),
        "{text}"
    );
    assert!(
        text.contains(
            "Vec2_dot_fn(Vec2_scaled_fn(parts(fk_proven, i).vel, 2.0), Vec2_new_fn(1.0, 0.5))"
        ),
        "{text}"
    );
    check_device_code(&tu);
    Ok(())
}
