//! The expansion of a checked kernel, step by step: the captures, the host closure (with the
//! proven form of range and multidimensional kernels), the typed shadow, each pattern's pair of
//! closures, the witnesses of the identifiers the race rules relied on, and the launch's checks.

use std::collections::{HashMap, HashSet};

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::{Expr, ExprClosure, Pat, Stmt, Type};

use super::launch::{
    bounds_checks, capture_value, device_bounds_checks, field_local, overlap_checks, with_captures,
};
use super::params::{IndexParam, Kind, param_name};
use crate::race::Role;
use crate::{affine, analyze, fields, host, shadow};

/// An access of the proven form: its View, its index map and the identifiers standing for the
/// iteration index in it.
type ProvenAccess = (String, Vec<affine::Coord>, Vec<syn::Ident>);

/// The expansion's own bindings: mixed-site hygiene, so the body cannot name them.
struct Names {
    caps_var: syn::Ident,
    host_var: syn::Ident,
    shadow_var: syn::Ident,
    kernel_var: syn::Ident,
    captures: syn::Ident,
    accs: syn::Ident,
    /// The host closure's parameter saying whether the launch proved the proven form's accesses.
    flag: syn::Ident,
}

impl Names {
    fn new() -> Self {
        let private = |name: &str| syn::Ident::new(name, Span::mixed_site());
        Names {
            caps_var: private("__fk_caps"),
            host_var: private("__fk_host"),
            shadow_var: private("__fk_shadow"),
            kernel_var: private("__fk_kernel"),
            captures: private("__fk_captures"),
            accs: private("__fk_accs"),
            flag: private("__fk_proven"),
        }
    }
}

/// What every pattern's pair of closures is made of.
struct Parts<'a> {
    k: TokenStream,
    names: &'a Names,
    index: &'a IndexParam,
    /// The statements binding the captures in the host closure.
    unpack_host: TokenStream,
    /// The statement binding the captures in the shadow closure.
    unpack_shadow: TokenStream,
    /// The host body, and its proven form where there is one.
    host_form: TokenStream,
    /// The host body alone (scans and team kernels have no proven form).
    host_body: TokenStream,
    shadow_block: TokenStream,
}

/// One pattern's host closure, shadow closure, `Kernel` constructor and parameters' names.
struct Pattern {
    host: TokenStream,
    shadow: TokenStream,
    ctor: TokenStream,
    params: Vec<String>,
}

/// The expansion of the kernel `closure`, whose `body` the analysis checked; `checks` are the
/// statements requiring the atomic Views' types.
pub(super) fn generate(
    closure: &ExprClosure,
    index: &IndexParam,
    kind: &Kind,
    analysis: &analyze::Analysis,
    fields: &[fields::FieldCapture],
    body: &Expr,
    checks: TokenStream,
) -> TokenStream {
    let k = quote!(::ferrokkos::__private);
    let names = Names::new();
    let caps = capture_values(analysis, fields);
    // The rebinding of each capture inside the closures takes the span (and so the hygiene) of the
    // capture's own token, so that it binds the body's uses also when the kernel is written inside
    // a `macro_rules!` macro whose caller supplied the name.
    let cap_idents: Vec<syn::Ident> = analysis
        .captures
        .iter()
        .map(|(n, _, span)| syn::Ident::new(n, *span))
        .collect();
    let roles = roles(analysis);
    let host_body = host::body(body, &roles, None);
    let (host_form, proven, calls) =
        proven_form(index, kind, analysis, body, &roles, &host_body, &names);
    let (shadow_block, device_proven, device_calls) = device_shadow(index, kind, analysis, body);
    let parts = Parts {
        unpack_host: unpack_host(&cap_idents, analysis, &names.captures),
        unpack_shadow: unpack_shadow(&cap_idents, &names.captures),
        k: k.clone(),
        names: &names,
        index,
        host_form,
        host_body,
        shadow_block,
    };
    let Pattern {
        host,
        shadow,
        ctor,
        params,
    } = parts.pattern(kind);
    let witnessed: Vec<ProvenAccess> = proven.iter().chain(&device_proven).cloned().collect();
    let witnessed_calls: Vec<&host::ProvenCall> = calls.iter().chain(&device_calls).collect();
    let witness = witness(index, kind, analysis, &witnessed, &witnessed_calls);
    let caps_value = nest(
        caps.chunks(CHUNK).map(|c| quote!((#(#c,)*))).collect(),
        |first, rest| quote!(#k::capture::More(#first, #rest)),
    );
    let is_unsafe = analysis.is_unsafe;
    let h = hash(&closure.to_token_stream().to_string());
    let overlaps = overlap_checks(analysis, fields);
    let bounds = bounds_checks(&proven, &calls, analysis, fields);
    let device_bounds = device_bounds_checks(&device_proven, &device_calls, analysis, fields);
    let scratch = scratch_sizes(analysis, fields);
    let blocks = league_blocks(analysis, fields);
    let lane = one_lane(analysis);
    // Each field path is evaluated once, here: the captures, the launch's overlap and bounds checks,
    // the scratch sizes and the league blocks all read the place it gave (a `Deref` on the way
    // could give another place each time; the checks must be about the captured value).
    let field_locals = fields.iter().map(|f| {
        let (local, path) = (field_local(&f.name), &f.path);
        quote!(let #local = &#path;)
    });
    let Names {
        caps_var,
        host_var,
        shadow_var,
        kernel_var,
        ..
    } = &names;
    let index_names = &index.names;
    quote!({
        #(#field_locals)*
        #checks
        let #caps_var = #caps_value;
        #witness
        #[allow(unused, clippy::all)]
        let #host_var = #host;
        #[allow(unused, clippy::all)]
        let #shadow_var = #shadow;
        #[allow(unused_unsafe)]
        // SAFETY: `kernel!` checked the race rules on the body: a written View is touched only at the
        // iteration index (checked above to be the index parameter), an atomic View only atomically,
        // except inside `unsafe { }`, which `is_unsafe` reports; the host closure captures nothing
        // but the checked captures (checked above).
        let #kernel_var = unsafe {
            ::ferrokkos::kernel::Kernel::#ctor(#caps_var, #host_var, #shadow_var, ::ferrokkos::kernel::KernelInfo {
                file: file!(),
                line: line!(),
                column: column!(),
                hash: #h,
                is_unsafe: #is_unsafe,
                index: &[#(#index_names),*],
                params: &[#(#params),*],
            })
        };
        #kernel_var #overlaps #bounds #device_bounds #blocks #lane #scratch
    })
}

/// Each capture's constructor: Views and arrays are indexed; anything else is used as a value, so
/// it must be a number (a View handed around as a value could reach code the rules do not see).
fn capture_values(
    analysis: &analyze::Analysis,
    fields: &[fields::FieldCapture],
) -> Vec<TokenStream> {
    let k = quote!(::ferrokkos::__private);
    analysis
        .captures
        .iter()
        .map(|(name, role, span)| {
            let ident = syn::Ident::new(name, *span);
            let ctor = match role {
                // Passed to a `#[device]` function: captured as its type says (a View read, an
                // atomic View atomic), which the function's parameter must then take.
                Role::Read if analysis.passed.contains(name) => quote!(passed),
                Role::Read if analysis.unique_tokens.contains(name) => quote!(token),
                Role::Read if analysis.random_pools.contains(name) => quote!(random_pool),
                Role::Read if analysis.views.contains(name) => quote!(read),
                Role::Read => quote!(value),
                Role::Write => quote!(write),
                Role::Atomic => quote!(atomic),
            };
            match fields.iter().find(|f| f.name == *name) {
                Some(f) => {
                    let local = field_local(&f.name);
                    quote_spanned!(*span=> #k::capture::#ctor(#local, #name))
                }
                None => quote_spanned!(*span=> #k::capture::#ctor(&#ident, #name)),
            }
        })
        .collect()
}

/// The captures' roles for the host body; scratch Views are read and written through their safe
/// `at` / `put`, as read-only Views are.
fn roles(analysis: &analyze::Analysis) -> HashMap<String, Role> {
    analysis
        .captures
        .iter()
        .map(|(n, r, _)| (n.clone(), *r))
        .chain(
            analysis
                .scratch
                .iter()
                .map(|d| (d.name.clone(), Role::Read)),
        )
        .collect()
}

/// The host body with its proven form (range and multidimensional patterns): accesses of captured
/// Views at affine index maps skip their checks when the launch proves the maps in bounds
/// (kernel/bounds.rs). Returns the body choosing between the forms, and the accesses to prove.
fn proven_form(
    index: &IndexParam,
    kind: &Kind,
    analysis: &analyze::Analysis,
    body: &Expr,
    roles: &HashMap<String, Role>,
    host_body: &TokenStream,
    names: &Names,
) -> (TokenStream, Vec<ProvenAccess>, Vec<host::ProvenCall>) {
    let proven_views = proven_views(analysis);
    let mut proven = host::Proven {
        params: &index.names,
        constants: &analysis.launch_constants,
        views: &proven_views,
        found: Vec::new(),
        calls: Vec::new(),
    };
    let proven_body = match kind {
        Kind::For | Kind::Reduce { .. } => host::body(body, roles, Some(&mut proven)),
        _ => quote!(),
    };
    let flag = &names.flag;
    let host_form = if proven.found.is_empty() && proven.calls.is_empty() {
        quote!(let _ = #flag; #host_body)
    } else {
        quote!(if #flag { #proven_body } else { #host_body })
    };
    (host_form, proven.found, proven.calls)
}

/// The typed shadow of the body and, for range and multidimensional kernels, the accesses it
/// writes `at_proven` (see `shadow::DeviceProven`).
fn device_shadow(
    index: &IndexParam,
    kind: &Kind,
    analysis: &analyze::Analysis,
    body: &Expr,
) -> (TokenStream, Vec<ProvenAccess>, Vec<host::ProvenCall>) {
    match kind {
        Kind::For | Kind::Reduce { .. } => {
            let views = proven_views(analysis);
            let read_views = analysis
                .captures
                .iter()
                .filter(|(n, r, _)| views.contains(n) && *r == Role::Read)
                .map(|(n, _, _)| n.clone())
                .collect();
            let wanted = shadow::DeviceProven {
                params: index.names.clone(),
                constants: analysis.launch_constants.clone(),
                views,
                read_views,
                found: Vec::new(),
                calls: Vec::new(),
            };
            let (block, found) =
                shadow::with_device_proven(wanted, || shadow_block(kind, analysis, body));
            (block, found.found, found.calls)
        }
        _ => (shadow_block(kind, analysis, body), Vec::new(), Vec::new()),
    }
}

/// The captured Views whose accesses a proven form may take (read or written, not atomic).
fn proven_views(analysis: &analyze::Analysis) -> HashSet<String> {
    analysis
        .captures
        .iter()
        .filter(|(n, r, _)| analysis.views.contains(n) && matches!(r, Role::Read | Role::Write))
        .map(|(n, _, _)| n.clone())
        .collect()
}

/// The typed shadow of the body. Unannotated accumulators (and a scan's partial value) take their
/// type from the body.
fn shadow_block(kind: &Kind, analysis: &analyze::Analysis, body: &Expr) -> TokenStream {
    let open_params: Vec<String> = match &kind {
        Kind::For => vec![],
        Kind::Reduce { accs } => accs.iter().collect(),
        Kind::Scan { partial, .. } => vec![&**partial],
        Kind::Team { acc, .. } => acc.iter().map(|a| &**a).collect(),
    }
    .into_iter()
    .filter(|p| !matches!(p, Pat::Type(_)))
    .filter_map(|p| param_name(p).ok().map(|n| n.to_string()))
    .collect();
    let team_name = match kind {
        Kind::Team { name, .. } => Some(name.to_string()),
        _ => None,
    };
    // A `panic!` ends the iteration, except in a team kernel (whose threads meet at collectives).
    let ends_iteration = team_name.is_none();
    shadow::with_team(team_name, &analysis.constants, || {
        shadow::with_iteration_end(ends_iteration, || match body {
            Expr::Block(b) if b.label.is_none() => shadow::body(&b.block, &open_params),
            other => shadow::body(
                &syn::Block {
                    brace_token: Default::default(),
                    stmts: vec![Stmt::Expr(other.clone(), None)],
                },
                &open_params,
            ),
        })
    })
}

/// The captures' bindings in the host closure: Views by reference (their accessors stay in the
/// launch's body, where the compiler keeps them in registers); numbers by value, as the body
/// expects. The host closure is not `move` and must be `'static`: a name in the body that resolves
/// to a variable around the kernel (not one of the captures the macro found and rebinds here, as a
/// `macro_rules!` macro's hygiene can make it) is then a borrow that rustc rejects at that name.
fn unpack_host(
    cap_idents: &[syn::Ident],
    analysis: &analyze::Analysis,
    captures: &syn::Ident,
) -> TokenStream {
    let unpack: Vec<TokenStream> = cap_idents
        .iter()
        .enumerate()
        .map(|(k, ident)| {
            let path = capture_path(k, cap_idents.len());
            if analysis.views.contains(&ident.to_string()) {
                quote!(let #ident = &#captures #path;)
            } else {
                quote!(let #ident = #captures #path;)
            }
        })
        .collect();
    // A captured array's `w[k]` is `w.at(k)` in the host body, as a View's (the macro cannot tell
    // them apart by syntax), and a View passed to a `#[device]` function in the proven form is
    // `(&u).proven()`: the traits that give those methods, in scope without a name.
    quote!(
        use ::ferrokkos::__private::CapturedArray as _;
        use ::ferrokkos::__private::ProvenArg as _;
        #(#unpack)*
    )
}

/// The captures' binding in the shadow closure: one pattern of nested tuples.
fn unpack_shadow(cap_idents: &[syn::Ident], captures: &syn::Ident) -> TokenStream {
    let shadow_pattern = nest(
        cap_idents
            .chunks(CHUNK)
            .map(|c| quote!((#(#c,)*)))
            .collect(),
        |first, rest| quote!((#first, #rest)),
    );
    quote!(let #shadow_pattern = #captures;)
}

impl Parts<'_> {
    /// The closures of `kind`'s pattern.
    fn pattern(&self, kind: &Kind) -> Pattern {
        match kind {
            Kind::For => self.for_pattern(),
            Kind::Reduce { accs } if accs.len() == 1 => self.reduce_pattern(&accs[0]),
            Kind::Reduce { accs } => self.reduce_many_pattern(accs),
            Kind::Team { member, name, acc } => self.team_pattern(member, name, acc.as_deref()),
            Kind::Scan { partial, flag } => self.scan_pattern(partial, flag),
        }
    }

    /// A range or multidimensional `parallel_for`.
    fn for_pattern(&self) -> Pattern {
        let Parts {
            k,
            names,
            index,
            unpack_host,
            unpack_shadow,
            host_form,
            shadow_block,
            ..
        } = self;
        let Names {
            caps_var,
            captures,
            flag,
            ..
        } = names;
        let (idx_pat, idx_ty) = (&index.pat, &index.ty);
        Pattern {
            host: quote!(#k::host_for::<#idx_ty, _, _>(&#caps_var, #[inline(always)] |#captures, #idx_pat: #idx_ty, #flag: bool| {
                #unpack_host
                #host_form
            })),
            shadow: quote!(#k::shadow_for::<#idx_ty, _, _>(&#caps_var, move |#captures, #idx_pat| {
                #unpack_shadow
                #shadow_block
            })),
            ctor: quote!(new_for),
            params: vec![],
        }
    }

    /// A reduction into one accumulator.
    fn reduce_pattern(&self, acc: &Pat) -> Pattern {
        let Parts {
            k,
            names,
            index,
            unpack_host,
            unpack_shadow,
            host_form,
            shadow_block,
            ..
        } = self;
        let Names {
            caps_var,
            captures,
            flag,
            ..
        } = names;
        let (idx_pat, idx_ty) = (&index.pat, &index.ty);
        let acc_name = param_name(acc).expect("checked");
        let acc_shadow = shadow_param(acc);
        Pattern {
            host: quote!(#k::host_reduce::<#idx_ty, _, _, _>(&#caps_var, #[inline(always)] |#captures, #idx_pat: #idx_ty, #acc, #flag: bool| {
                #unpack_host
                #host_form
            })),
            shadow: quote!(#k::shadow_reduce::<#idx_ty, _, _, _>(&#caps_var, move |#captures, #idx_pat, #acc_shadow| {
                #unpack_shadow
                #shadow_block
            })),
            ctor: quote!(new_reduce),
            params: vec![acc_name.to_string()],
        }
    }

    /// A reduction into several accumulators (a tuple of reducers), split from one parameter.
    fn reduce_many_pattern(&self, list: &[Pat]) -> Pattern {
        let Parts {
            k,
            names,
            index,
            unpack_host,
            unpack_shadow,
            host_form,
            shadow_block,
            ..
        } = self;
        let Names {
            caps_var,
            captures,
            flag,
            accs,
            ..
        } = names;
        let (idx_pat, idx_ty) = (&index.pat, &index.ty);
        let names: Vec<syn::Ident> = list
            .iter()
            .map(|a| param_name(a).expect("checked"))
            .collect();
        let strs: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        let split = format_ident!("split{}", list.len());
        let host_types: Vec<TokenStream> = list
            .iter()
            .map(|a| match a {
                Pat::Type(t) => t.ty.to_token_stream(),
                _ => quote!(_),
            })
            .collect();
        let types: Vec<TokenStream> = list
            .iter()
            .map(|a| shadow_param_type(a).unwrap_or_else(|| quote!(_)))
            .collect();
        Pattern {
            host: quote!(#k::host_reduce::<#idx_ty, _, _, _>(&#caps_var, #[inline(always)] |#captures, #idx_pat: #idx_ty, #accs, #flag: bool| {
                #unpack_host
                let (#(#names,)*): (#(#host_types,)*) = #k::#split(#accs);
                #host_form
            })),
            shadow: quote!(#k::shadow_reduce::<#idx_ty, _, _, _>(&#caps_var, move |#captures, #idx_pat, #accs| {
                #unpack_shadow
                let (#(#names,)*): (#(#types,)*) = #k::shadow::#split(#accs, [#(#strs),*]);
                #shadow_block
            })),
            ctor: quote!(new_reduce),
            params: vec!["accs".to_string()],
        }
    }

    /// A team kernel, a `parallel_for` (no accumulator) or a reduction.
    fn team_pattern(&self, member: &Pat, name: &syn::Ident, acc: Option<&Pat>) -> Pattern {
        let Parts {
            k,
            names,
            unpack_host,
            unpack_shadow,
            host_body,
            shadow_block,
            ..
        } = self;
        let Names {
            caps_var, captures, ..
        } = names;
        let Some(acc) = acc else {
            return Pattern {
                host: quote!(#k::host_team_for(&#caps_var, |#captures, #member| {
                    #unpack_host
                    #host_body
                })),
                shadow: quote!(#k::shadow_team_for(&#caps_var, move |#captures, #name| {
                    #unpack_shadow
                    #shadow_block
                })),
                ctor: quote!(new_team_for),
                params: vec![name.to_string()],
            };
        };
        let acc_name = param_name(acc).expect("checked");
        let acc_shadow = shadow_param(acc);
        Pattern {
            host: quote!(#k::host_team_reduce(&#caps_var, |#captures, #member, #acc| {
                #unpack_host
                #host_body
            })),
            shadow: quote!(#k::shadow_team_reduce(&#caps_var, move |#captures, #name, #acc_shadow| {
                #unpack_shadow
                #shadow_block
            })),
            ctor: quote!(new_team_reduce),
            params: vec![name.to_string(), acc_name.to_string()],
        }
    }

    /// A scan: its partial value and its final-pass flag.
    fn scan_pattern(&self, partial: &Pat, flag: &Pat) -> Pattern {
        let Parts {
            k,
            names,
            index,
            unpack_host,
            unpack_shadow,
            host_body,
            shadow_block,
            ..
        } = self;
        let Names {
            caps_var, captures, ..
        } = names;
        let (idx_pat, idx_ty) = (&index.pat, &index.ty);
        let p = param_name(partial).expect("checked");
        let p_shadow = shadow_param(partial);
        let f = param_name(flag).expect("checked");
        Pattern {
            host: quote!(#k::host_scan::<#idx_ty, _, _, _>(&#caps_var, |#captures, #idx_pat: #idx_ty, #partial, #f: bool| {
                #unpack_host
                #host_body
            })),
            shadow: quote!(#k::shadow_scan::<#idx_ty, _, _, _>(&#caps_var, move |#captures, #idx_pat, #p_shadow, #f| {
                #unpack_shadow
                #shadow_block
            })),
            ctor: quote!(new_scan),
            params: vec![p.to_string(), f.to_string()],
        }
    }
}

/// The identifiers the race rules took for the iteration index must be it: in a closure over the
/// same parameter pattern, bound to a witness type, each must have that type. (A `macro_rules!`
/// macro can make a body's `i` resolve to the caller's `i` while the parameter `i` is the
/// macro's: the text matches, the binding does not.)
fn witness(
    index: &IndexParam,
    kind: &Kind,
    analysis: &analyze::Analysis,
    proven: &[ProvenAccess],
    calls: &[&host::ProvenCall],
) -> TokenStream {
    let k = quote!(::ferrokkos::__private);
    if matches!(kind, Kind::Team { .. }) {
        // Each local the team rules resolved must be the binding they took it for.
        let pairs = analysis.team_witness.iter().map(|(use_, binding)| {
            quote!(
                #[allow(unused, clippy::all)]
                let _ = |#binding: #k::IterationIndex| #k::iteration_index(#use_);
            )
        });
        return quote!(#(#pairs)*);
    }
    let witness_ty = if index.names.len() == 1 {
        quote!(#k::IterationIndex)
    } else {
        let each = index.names.iter().map(|_| quote!(#k::IterationIndex));
        quote!((#(#each,)*))
    };
    let owners: Vec<&syn::Ident> = analysis
        .owner_idents
        .iter()
        .chain(proven.iter().flat_map(|(_, _, idents)| idents))
        .chain(calls.iter().flat_map(|c| &c.idents))
        .collect();
    let idx_pat = &index.pat;
    quote!(
        #[allow(unused, clippy::all)]
        let _ = |#idx_pat: #witness_ty| {
            #(#k::iteration_index(#owners);)*
        };
    )
}

/// The team kernel's scratch Views, as `.with_scratch(level, per_thread, bytes)` calls.
fn scratch_sizes(analysis: &analyze::Analysis, fields: &[fields::FieldCapture]) -> TokenStream {
    let k = quote!(::ferrokkos::__private);
    let scratch = analysis.scratch.iter().map(|d| {
        let (level, per_thread, ty) = (d.level, d.per_thread, &d.ty);
        let extents = d.extents.iter().map(|e| {
            let e = with_captures(e, analysis, fields);
            quote!((#e) as usize)
        });
        quote!(.with_scratch(#level, #per_thread, #k::scratch_bytes::<#ty>(&[#(#extents),*])))
    });
    quote!(#(#scratch)*)
}

/// The team kernel's league blocks (see `team_race.rs`), as `.with_league_blocks(vec![...])`
/// (nothing when there are none), and `.with_one_team()` when a rank-0 write needs a league of
/// one team.
fn league_blocks(analysis: &analyze::Analysis, fields: &[fields::FieldCapture]) -> TokenStream {
    let k = quote!(::ferrokkos::__private);
    let one_team = crate::team_race::ONE_TEAM;
    let one = analysis.league_blocks.iter().any(|c| c == one_team);
    let one = if one {
        quote!(.with_one_team())
    } else {
        quote!()
    };
    let blocks: Vec<&String> = analysis
        .league_blocks
        .iter()
        .filter(|c| *c != one_team)
        .collect();
    if blocks.is_empty() {
        return one;
    }
    let values = blocks.iter().map(|c| {
        let v = capture_value(c, analysis, fields);
        quote!(#k::league_block(&(#v)))
    });
    quote!(.with_league_blocks(::std::vec![#(#values),*]) #one)
}

/// `.with_one_lane()` when the team kernel relies on one vector lane per thread.
fn one_lane(analysis: &analyze::Analysis) -> TokenStream {
    if analysis.one_lane {
        quote!(.with_one_lane())
    } else {
        quote!()
    }
}

/// FNV-1a over the kernel's tokens: with the call site, the kernel's identity.
fn hash(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Captures travel in tuples of at most `CHUNK` (the library's tuple impls); more are nested as
/// `More(first 16, rest)`.
const CHUNK: usize = 16;

/// `chunks` nested from the right: one chunk as it is, more as `join(first, nest(rest))`.
fn nest(
    mut chunks: Vec<TokenStream>,
    join: impl Fn(TokenStream, TokenStream) -> TokenStream + Copy,
) -> TokenStream {
    if chunks.len() <= 1 {
        return chunks.pop().unwrap_or_else(|| quote!(()));
    }
    let first = chunks.remove(0);
    join(first, nest(chunks, join))
}

/// The field path of capture `k` of `n` in the nested tuples (`.5`; `.1.0.3` for the second chunk
/// of three).
fn capture_path(k: usize, n: usize) -> TokenStream {
    let chunks = n.div_ceil(CHUNK).max(1);
    let (chunk, at) = (k / CHUNK, syn::Index::from(k % CHUNK));
    let ones = (0..chunk).map(|_| syn::Index::from(1));
    if chunks == 1 {
        quote!(.#at)
    } else if chunk + 1 == chunks {
        quote!(#(.#ones)* .#at)
    } else {
        let zero = syn::Index::from(0);
        quote!(#(.#ones)* .#zero .#at)
    }
}

/// A reference parameter as the shadow sees it, keeping the user's type: `acc: &mut f64` becomes
/// `acc: Expr<Mut<f64>>` (so that the shadow knows the type as early as the host closure does),
/// `flag: bool` becomes `flag: Expr<bool>`, an unannotated `acc` stays as it is.
fn shadow_param(p: &Pat) -> TokenStream {
    let name = param_name(p).expect("checked");
    match shadow_param_type(p) {
        Some(ty) => quote!(#name: #ty),
        None => quote!(#name),
    }
}

/// The shadow type of an annotated parameter (`&mut T` gives `Expr<Mut<T>>`, `T` gives `Expr<T>`).
fn shadow_param_type(p: &Pat) -> Option<TokenStream> {
    let k = quote!(::ferrokkos::__private);
    let Pat::Type(t) = p else { return None };
    Some(match &*t.ty {
        Type::Reference(r) if r.mutability.is_some() => {
            let inner = &r.elem;
            quote!(#k::Expr<#k::shadow::Mut<#inner>>)
        }
        other => quote!(#k::Expr<#other>),
    })
}
