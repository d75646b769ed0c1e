//! Methods of `#[device] impl` blocks named like built-in methods (`v.norm()`, `a.min(b)`,
//! `v.scale(k)`, `v.abs()`, `v.clamp(lo, hi)`, `v.len()`): a kernel calls the user's method on the
//! user's type and the built-in on numbers, in the same body, on every space; the C++ compiles.

use crate::common::check_device_code;
use crate::spaces::{SView, download, upload};
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{DeviceValue, Result, kernel};

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
struct V3 {
    x: f64,
    y: f64,
    z: f64,
}

#[ferrokkos::device]
impl V3 {
    fn norm(self) -> f64 {
        (self.x * self.x + self.y * self.y + self.z * self.z).sqrt()
    }
    fn min(self, o: Self) -> V3 {
        V3 {
            x: self.x.min(o.x),
            y: self.y.min(o.y),
            z: self.z.min(o.z),
        }
    }
    fn scale(&self, k: f64) -> V3 {
        V3 {
            x: k * self.x,
            y: k * self.y,
            z: k * self.z,
        }
    }
    fn abs(self) -> V3 {
        V3 {
            x: self.x.abs(),
            y: self.y.abs(),
            z: self.z.abs(),
        }
    }
    fn clamp(self, lo: f64, hi: f64) -> V3 {
        V3 {
            x: self.x.clamp(lo, hi),
            y: self.y.clamp(lo, hi),
            z: self.z.clamp(lo, hi),
        }
    }
    fn len(self) -> usize {
        3
    }
}

fn v3(k: usize) -> V3 {
    let t = k as f64;
    V3 {
        x: t - 5.0,
        y: 0.5 * t,
        z: -(t % 3.0),
    }
}

/// What the kernel computes, in plain Rust (the same methods on the host).
fn expected(a: V3, b: V3) -> (V3, f64) {
    let m = a.min(b).abs().scale(0.5).clamp(0.0, 2.0);
    (m, m.norm() + a.x.abs().min(b.y.abs()) + m.len() as f64)
}

fn builtin_named_methods_match_rust<S: Launch>(exec: &S) -> Result<()> {
    let n = 23;
    let a: Vec<V3> = (0..n).map(v3).collect();
    let b: Vec<V3> = (0..n).map(|k| v3(n - k)).collect();
    let (av, bv) = (upload::<S, V3>("a", &a)?, upload::<S, V3>("b", &b)?);
    let m = SView::<S, V3, 1>::new("m", [n])?;
    let s = SView::<S, f64, 1>::new("s", [n])?;
    parallel_for(
        "named",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let (p, q) = (av[i], bv[i]);
            let r = p.min(q).abs().scale(0.5).clamp(0.0, 2.0);
            m[i] = r;
            s[i] = r.norm() + p.x.abs().min(q.y.abs()) + r.len() as f64;
        }),
    )?;
    let (want_m, want_s): (Vec<V3>, Vec<f64>) =
        a.iter().zip(&b).map(|(p, q)| expected(*p, *q)).unzip();
    assert_eq!(download(&m)?, want_m);
    assert_eq!(download(&s)?, want_s);
    Ok(())
}

per_space!(
    builtin_named_methods_match_rust,
    builtin_named_methods_match_rust
);

#[test]
fn builtin_named_methods_are_the_types_own_functions() -> Result<()> {
    crate::common::runtime();
    let a = View::<V3, 1>::new("a", [2])?;
    let s = View::<f64, 1>::new("s", [2])?;
    let k = kernel!(|i| {
        s[i] = a[i].scale(2.0).norm() + a[i].x.abs();
    });
    parallel_for(
        "named",
        RangePolicy::new(&Serial::default_instance()?, 0, 2)?,
        &k,
    )?;
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    assert!(
        text.contains("V3_norm_fn(V3_scale_fn(a(fk_proven, i), 2.0)) + fk::abs(a(fk_proven, i).x)"),
        "{text}"
    );
    check_device_code(&tu);
    Ok(())
}
