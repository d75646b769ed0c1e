//! [`KernelBody`]: the backend-neutral form of a kernel's device code, the seam between the typed
//! shadow and a backend's code generator ("IR → backend emitter").
//!
//! Running a kernel's shadow once gives its body as typed statements in the portable C-family form
//! that every GPU backend compiles (explicit types, `fk::` primitives from the device header, `#line`
//! marks back to the Rust source), the `#[device]` functions it calls, its captures as typed
//! parameters and the names of its index and pattern parameters. A backend wraps this into its entry
//! points (CUDA: `backend/gpu/codegen/`); the body itself names no backend (no thread or block
//! indices, no launch API), so a second GPU backend reuses it as it is.
//!
//! Invariants: `captures`, `index` and `params` hold names unique in the body's function (made by
//! the emission state), `index.len() == rank`, and `params` has the pattern's parameters (none for
//! a `for`, the accumulator for a reduce, the partial value and the `is_final` flag for a scan).
//! A team body has no index (`index` is empty, `index_type` is `usize`); its first parameter is the
//! team member.

use super::builder::{self, Line};
use super::capture::Captures;
use super::expr::Expr;
use super::index::ShadowIndex;
use super::kernel::{
    ForKind, Kernel, KernelInfo, ReduceKind, ScanKind, TeamForKind, TeamReduceKind,
};
use super::shadow::Mut;
use super::shadow::TeamShadow;

/// The pattern a kernel body was written for (its extra parameters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyKind {
    /// `parallel_for`: the index only.
    For,
    /// `parallel_reduce`: the index and the accumulator (`&mut` the reducer's value).
    Reduce,
    /// `parallel_scan`: the index, the partial value and the `is_final` flag.
    Scan,
    /// `parallel_for` over a `TeamPolicy`: no index; the one parameter is the team member, a
    /// `const fk::Team&` in the generated code (see `backend/gpu/codegen/device/team.cuh`).
    TeamFor,
    /// `parallel_reduce` over a `TeamPolicy`: the team member and the accumulator.
    TeamReduce,
}

/// A kernel's device code in backend-neutral form (see the module documentation).
#[derive(Clone, Debug)]
pub struct KernelBody {
    /// Where the kernel was written and its identity.
    pub info: KernelInfo,
    /// Its pattern.
    pub kind: BodyKind,
    /// The body's lines (indented relative to the body).
    pub(crate) lines: Vec<Line>,
    /// Definitions of the user types it names (derived [`DeviceValue`](crate::DeviceValue) structs), field
    /// types before the structs that hold them.
    pub types: Vec<String>,
    /// Definitions of the `#[device]` functions it calls, callees before callers.
    pub functions: Vec<String>,
    /// The captures as `(type, name)` pairs, in capture order.
    pub captures: Vec<(String, String)>,
    /// The names of the index coordinates.
    pub index: Vec<String>,
    /// The C-family name of an index coordinate's type (`usize`, `i64`).
    pub index_type: &'static str,
    /// The pattern's parameters (see [`BodyKind`]).
    pub params: Vec<String>,
    /// Definitions a custom reducer made in the body's emission (after its device functions, which
    /// they call), each once.
    pub reducer_code: Vec<String>,
    /// A cycle of `#[device]` function calls in the body (`f -> g -> f`), which device code
    /// refuses: a GPU thread's stack is small and fixed, and a deep recursion would fault and end
    /// the context.
    pub recursion: Option<String>,
}

impl KernelBody {
    /// The index rank (1 for a range).
    pub fn rank(&self) -> usize {
        self.index.len()
    }

    /// The body's text, indented by `depth` levels, with `#line` marks to the Rust source.
    pub fn render(&self, depth: usize) -> String {
        builder::render(&self.lines, depth)
    }

    /// Runs the shadow once (`body` gets the captures' and the index's shadow values and the names
    /// of the pattern's parameters) and keeps what it wrote.
    fn trace<C: Captures>(
        info: &KernelInfo,
        captures: &C,
        kind: BodyKind,
        index_type: &'static str,
        emit: &[fn() -> String],
        body: impl FnOnce(C::Shadow, &[String], &[String]),
    ) -> KernelBody {
        let names = captures.names();
        let emitted = builder::emit(&[], || {
            let caps: Vec<String> = names.iter().map(|n| builder::fresh_name(n)).collect();
            let index: Vec<String> = info.index.iter().map(|n| builder::fresh_name(n)).collect();
            let params: Vec<String> = info.params.iter().map(|n| builder::fresh_name(n)).collect();
            // Every emission starts with no scratch View carved (team kernels carve in order).
            super::shadow::team::reset_scratch();
            body(captures.shadow(&caps), &index, &params);
            // Inside the emission, so that the user types of the parameters are defined.
            let types = C::cxx_types();
            let mut code: Vec<String> = Vec::new();
            for f in emit {
                let text = f();
                if !code.contains(&text) {
                    code.push(text);
                }
            }
            (caps, index, params, types, code)
        });
        let (caps, index, params, types, reducer_code) = emitted.value;
        KernelBody {
            recursion: emitted.recursion,
            info: *info,
            kind,
            lines: emitted.body,
            types: emitted.types,
            functions: emitted.functions,
            captures: types.into_iter().zip(caps).collect(),
            index,
            index_type,
            params,
            reducer_code,
        }
    }
}

impl<A: ShadowIndex, C: Captures, H, S: Fn(C::Shadow, A::Exprs)> Kernel<ForKind<A>, C, H, S> {
    /// The body in backend-neutral form (see [`KernelBody`]).
    pub fn body(&self) -> KernelBody {
        self.body_with(&[])
    }

    /// The body, with a reducer's definitions `emit` made in its emission.
    pub fn body_with(&self, emit: &[fn() -> String]) -> KernelBody {
        KernelBody::trace::<C>(
            self.info(),
            &self.captures,
            BodyKind::For,
            A::CXX,
            emit,
            |caps, index, _| (self.shadow)(caps, A::exprs(index)),
        )
    }
}

impl<A: ShadowIndex, V, C: Captures, H, S> Kernel<ReduceKind<A, V>, C, H, S>
where
    S: Fn(C::Shadow, A::Exprs, Expr<Mut<V>>),
{
    /// The body in backend-neutral form (see [`KernelBody`]).
    pub fn body(&self) -> KernelBody {
        self.body_with(&[])
    }

    /// The body, with a reducer's definitions `emit` made in its emission.
    pub fn body_with(&self, emit: &[fn() -> String]) -> KernelBody {
        KernelBody::trace::<C>(
            self.info(),
            &self.captures,
            BodyKind::Reduce,
            A::CXX,
            emit,
            |caps, index, params| (self.shadow)(caps, A::exprs(index), Expr::name(&params[0])),
        )
    }
}

impl<A: ShadowIndex, V, C: Captures, H, S> Kernel<ScanKind<A, V>, C, H, S>
where
    S: Fn(C::Shadow, A::Exprs, Expr<Mut<V>>, Expr<bool>),
{
    /// The body in backend-neutral form (see [`KernelBody`]).
    pub fn body(&self) -> KernelBody {
        self.body_with(&[])
    }

    /// The body, with a reducer's definitions `emit` made in its emission.
    pub fn body_with(&self, emit: &[fn() -> String]) -> KernelBody {
        KernelBody::trace::<C>(
            self.info(),
            &self.captures,
            BodyKind::Scan,
            A::CXX,
            emit,
            |caps, index, params| {
                (self.shadow)(
                    caps,
                    A::exprs(index),
                    Expr::name(&params[0]),
                    Expr::name(&params[1]),
                )
            },
        )
    }
}

impl<C: Captures, H, S: Fn(C::Shadow, TeamShadow)> Kernel<TeamForKind, C, H, S> {
    /// The body in backend-neutral form (see [`KernelBody`]).
    pub fn body(&self) -> KernelBody {
        self.body_with(&[])
    }

    /// The body, with a reducer's definitions `emit` made in its emission.
    pub fn body_with(&self, emit: &[fn() -> String]) -> KernelBody {
        KernelBody::trace::<C>(
            self.info(),
            &self.captures,
            BodyKind::TeamFor,
            "usize",
            emit,
            |caps, _, params| (self.shadow)(caps, TeamShadow::named(&params[0])),
        )
    }
}

impl<V, C: Captures, H, S> Kernel<TeamReduceKind<V>, C, H, S>
where
    S: Fn(C::Shadow, TeamShadow, Expr<Mut<V>>),
{
    /// The body in backend-neutral form (see [`KernelBody`]).
    pub fn body(&self) -> KernelBody {
        self.body_with(&[])
    }

    /// The body, with a reducer's definitions `emit` made in its emission.
    pub fn body_with(&self, emit: &[fn() -> String]) -> KernelBody {
        KernelBody::trace::<C>(
            self.info(),
            &self.captures,
            BodyKind::TeamReduce,
            "usize",
            emit,
            |caps, _, params| {
                (self.shadow)(caps, TeamShadow::named(&params[0]), Expr::name(&params[1]))
            },
        )
    }
}
