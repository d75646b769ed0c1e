//! `kernel!`: parses the closure, checks it, and expands it to a `ferrokkos::kernel::Kernel` with a
//! host body and a typed shadow.

use std::collections::{HashMap, HashSet};

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, ExprClosure, Pat, Stmt, Type};

use crate::analyze::{self, Mode};
use crate::race::Role;
use crate::{affine, atomic_view, fields, host, shadow};

/// What the kernel's parameters say it is.
enum Kind {
    For,
    /// One accumulator, or several (a tuple of reducers).
    Reduce {
        accs: Vec<Pat>,
    },
    Scan {
        partial: Box<Pat>,
        flag: Box<Pat>,
    },
    /// A team kernel: its member parameter (`team: &TeamMember`, as written) and a reduction's
    /// accumulator.
    Team {
        member: Box<Pat>,
        name: syn::Ident,
        acc: Option<Box<Pat>>,
    },
}

/// Whether `p` is a team kernel's member parameter: `team: &TeamMember` (the type must be written:
/// it is what makes the kernel a team kernel).
fn team_param(p: &Pat) -> Option<syn::Ident> {
    let Pat::Type(t) = p else { return None };
    let Type::Reference(r) = &*t.ty else {
        return None;
    };
    if r.mutability.is_some()
        || !matches!(&*r.elem, Type::Path(tp) if tp.path.segments.last().is_some_and(|s| s.ident == "TeamMember"))
    {
        return None;
    }
    match &*t.pat {
        Pat::Ident(i) if i.by_ref.is_none() && i.mutability.is_none() && i.subpat.is_none() => {
            Some(i.ident.clone())
        }
        _ => None,
    }
}

/// The iteration index parameter: its names, its pattern and its type.
struct IndexParam {
    names: Vec<String>,
    pat: TokenStream,
    ty: TokenStream,
}

fn index_param(p: &Pat) -> syn::Result<IndexParam> {
    let (pat, ty) = match p {
        Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
        p => (p, None),
    };
    match pat {
        Pat::Ident(i) if i.by_ref.is_none() && i.mutability.is_none() && i.subpat.is_none() => {
            let ty = ty.map_or_else(|| quote!(usize), |t| t.to_token_stream());
            Ok(IndexParam {
                names: vec![i.ident.to_string()],
                pat: quote!(#i),
                ty,
            })
        }
        Pat::Tuple(t) if (2..=6).contains(&t.elems.len()) => {
            let mut names = Vec::new();
            for e in &t.elems {
                match e {
                    Pat::Ident(i) if i.by_ref.is_none() && i.mutability.is_none() => {
                        names.push(i.ident.to_string())
                    }
                    other => {
                        return Err(syn::Error::new(
                            other.span(),
                            "an MDRange kernel's index is a tuple of names: `|(i, j)|`",
                        ));
                    }
                }
            }
            let ty = match ty {
                Some(t) => t.to_token_stream(),
                None => {
                    let each = names.iter().map(|_| quote!(i64));
                    quote!((#(#each,)*))
                }
            };
            Ok(IndexParam {
                names,
                pat: quote!(#t),
                ty,
            })
        }
        other => Err(syn::Error::new(
            other.span(),
            "a kernel's first parameter is its index: `i` (a range) or `(i, j, ...)` (an MDRange \
             of rank 2 to 6), optionally with a type (`i: i32`, `(i, j): (usize, usize)`)",
        )),
    }
}

/// The name of a simple parameter `p` or `p: T`.
fn param_name(p: &Pat) -> syn::Result<syn::Ident> {
    match p {
        Pat::Type(t) => param_name(&t.pat),
        Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => Ok(i.ident.clone()),
        other => Err(syn::Error::new(
            other.span(),
            "a kernel parameter is a name: `acc`",
        )),
    }
}

fn is_bool(p: &Pat) -> bool {
    matches!(p, Pat::Type(t) if matches!(&*t.ty, Type::Path(tp) if tp.path.is_ident("bool")))
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

pub fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let closure: ExprClosure = syn::parse2(input).map_err(|e| {
        syn::Error::new(
            e.span(),
            format!("kernel! takes a closure: `kernel!(|i| y[i] = a * x[i] + y[i])` ({e})"),
        )
    })?;
    if closure.asyncness.is_some() || closure.constness.is_some() || closure.lifetimes.is_some() {
        return Err(syn::Error::new(
            closure.span(),
            "kernel! takes a plain closure",
        ));
    }
    let params: Vec<&Pat> = closure.inputs.iter().collect();
    let Some(first) = params.first() else {
        return Err(syn::Error::new(
            closure.span(),
            "a kernel takes at least its index: `kernel!(|i| ...)`",
        ));
    };
    let team = team_param(first);
    let index = match &team {
        Some(t) => IndexParam {
            names: vec![],
            pat: quote!(#t),
            ty: quote!(),
        },
        None => index_param(first)?,
    };
    let rest: Vec<Pat> = params[1..].iter().map(|p| (*p).clone()).collect();
    let rest_names: Vec<String> = rest
        .iter()
        .map(|p| param_name(p).map(|i| i.to_string()))
        .collect::<syn::Result<_>>()?;
    if team.is_some() && rest.len() > 1 {
        return Err(syn::Error::new(
            rest[1].span(),
            "a team kernel takes the team member and, for a reduction, one accumulator",
        ));
    }
    // `acc.max(v)` means `(*acc).max(v)`: a method of the accumulator's value, not of the reference
    // (also for the accumulators of a team kernel's nested reductions).
    let mut body = deref_receivers(&closure.body, &rest_names);
    if team.is_some() {
        body = deref_nested_receivers(&body);
    }
    // `c.u[i]`: a field path rooted at a variable around the kernel is one capture.
    let bound: Vec<String> = index
        .names
        .iter()
        .chain(&rest_names)
        .cloned()
        .chain(team.iter().map(|t| t.to_string()))
        .collect();
    let fields = fields::flatten(&mut body, &bound);
    let run_analysis = |body: &Expr| match &team {
        Some(t) => {
            analyze::analyze_team(body, &t.to_string(), rest_names.first().map(String::as_str))
        }
        None => analyze::analyze(Mode::Kernel, body, &index.names, &rest_names, &[]),
    };
    // The analysis saw the pre-pass's identifiers (`p_dt`); the messages name the paths the user
    // wrote (`p.dt`).
    let fail = |errors: &[syn::Error]| {
        let mut errors = errors.iter().map(|e| with_paths(e, &fields));
        let mut first = errors.next().expect("not empty");
        for e in errors {
            first.combine(e);
        }
        first
    };
    let mut analysis = run_analysis(&body);
    if !analysis.errors.is_empty() {
        return Err(fail(&analysis.errors));
    }
    // Views written other than one to one must be atomic Views: their accesses become atomic, and
    // the expansion requires the type (see `atomic_view.rs`).
    let mut atomic_only: Vec<(String, syn::Error)> = Vec::new();
    for (name, e) in std::mem::take(&mut analysis.atomic_only) {
        if !atomic_only.iter().any(|(n, _)| *n == name) {
            atomic_only.push((name, with_paths(&e, &fields)));
        }
    }
    if !atomic_only.is_empty() {
        let names = atomic_only.iter().map(|(n, _)| n.clone()).collect();
        let errors = atomic_view::rewrite(&mut body, &names);
        if !errors.is_empty() {
            return Err(fail(&errors));
        }
        analysis = run_analysis(&body);
        if !analysis.errors.is_empty() {
            return Err(fail(&analysis.errors));
        }
    }
    let body = &body;
    let kind = match (&team, rest.len()) {
        (Some(t), _) => Kind::Team {
            member: Box::new((*first).clone()),
            name: t.clone(),
            acc: rest.first().cloned().map(Box::new),
        },
        (None, 0) => Kind::For,
        (None, 1) => Kind::Reduce { accs: rest.clone() },
        (None, 2) if is_bool(&rest[1]) || !analysis.dereferenced.contains(&rest_names[1]) => {
            Kind::Scan {
                partial: Box::new(rest[0].clone()),
                flag: Box::new(rest[1].clone()),
            }
        }
        (None, _) => Kind::Reduce { accs: rest.clone() },
    };
    if let Kind::Reduce { accs } = &kind
        && accs.len() > 6
    {
        return Err(syn::Error::new(
            accs[6].span(),
            "a kernel reduces into at most 6 accumulators (a tuple of up to 6 reducers)",
        ));
    }
    let atomic_checks = atomic_only.iter().map(|(name, e)| {
        let span = analysis
            .captures
            .iter()
            .find(|(n, _, _)| n == name)
            .map_or_else(Span::call_site, |(_, _, s)| *s);
        let value = match fields.iter().find(|f| f.name == *name) {
            Some(f) => {
                let local = field_local(&f.name);
                quote_spanned!(span=> #local)
            }
            None => {
                let ident = syn::Ident::new(name, span);
                quote_spanned!(span=> &#ident)
            }
        };
        atomic_view::require(&value, span, e)
    });
    let checks = quote!(#(#atomic_checks)*);
    Ok(generate(
        &closure, &index, &kind, &analysis, &fields, body, checks,
    ))
}

fn generate(
    closure: &ExprClosure,
    index: &IndexParam,
    kind: &Kind,
    analysis: &analyze::Analysis,
    fields: &[fields::FieldCapture],
    body: &Expr,
    checks: TokenStream,
) -> TokenStream {
    let k = quote!(::ferrokkos::__private);
    // The expansion's own bindings: mixed-site hygiene, so the body cannot name them.
    let private = |name: &str| syn::Ident::new(name, Span::mixed_site());
    let (caps_var, host_var, shadow_var, kernel_var) = (
        private("__fk_caps"),
        private("__fk_host"),
        private("__fk_shadow"),
        private("__fk_kernel"),
    );
    let (captures, accs) = (private("__fk_captures"), private("__fk_accs"));
    let caps: Vec<TokenStream> = analysis
        .captures
        .iter()
        .map(|(name, role, span)| {
            let ident = syn::Ident::new(name, *span);
            let ctor = match role {
                // Views and arrays are indexed; anything else is used as a value, so it must be a
                // number (a View handed around as a value could reach code the rules do not see).
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
        .collect();
    // The rebinding of each capture inside the closures takes the span (and so the hygiene) of the
    // capture's own token, so that it binds the body's uses also when the kernel is written inside
    // a `macro_rules!` macro whose caller supplied the name.
    let cap_idents: Vec<syn::Ident> = analysis
        .captures
        .iter()
        .map(|(n, _, span)| syn::Ident::new(n, *span))
        .collect();
    // Scratch Views are read and written through their safe `at` / `put`, as read-only Views are.
    let roles: HashMap<String, Role> = analysis
        .captures
        .iter()
        .map(|(n, r, _)| (n.clone(), *r))
        .chain(
            analysis
                .scratch
                .iter()
                .map(|d| (d.name.clone(), Role::Read)),
        )
        .collect();
    let host_body = host::body(body, &roles, None);
    // The proven form (range and multidimensional patterns): accesses of captured Views at affine
    // index maps skip their checks when the launch proves the maps in bounds (kernel/bounds.rs).
    let proven_views: HashSet<String> = analysis
        .captures
        .iter()
        .filter(|(n, r, _)| analysis.views.contains(n) && matches!(r, Role::Read | Role::Write))
        .map(|(n, _, _)| n.clone())
        .collect();
    let mut proven = host::Proven {
        params: &index.names,
        constants: &analysis.launch_constants,
        views: &proven_views,
        found: Vec::new(),
    };
    let proven_body = match kind {
        Kind::For | Kind::Reduce { .. } => host::body(body, &roles, Some(&mut proven)),
        _ => quote!(),
    };
    let flag = syn::Ident::new("__fk_proven", Span::mixed_site());
    let host_form = if proven.found.is_empty() {
        quote!(let _ = #flag; #host_body)
    } else {
        quote!(if #flag { #proven_body } else { #host_body })
    };
    // Unannotated accumulators (and a scan's partial value) take their type from the body.
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
    let shadow_block = shadow::with_team(team_name, &analysis.constants, || match body {
        Expr::Block(b) if b.label.is_none() => shadow::body(&b.block, &open_params),
        other => shadow::body(
            &syn::Block {
                brace_token: Default::default(),
                stmts: vec![Stmt::Expr(other.clone(), None)],
            },
            &open_params,
        ),
    });
    let (idx_pat, idx_ty) = (&index.pat, &index.ty);
    let index_names = &index.names;
    // Views by reference (their accessors stay in the launch's body, where the compiler keeps them in
    // registers); numbers by value, as the body expects. The host closure is not `move` and must be
    // `'static`: a name in the body that resolves to a variable around the kernel (not one of the
    // captures the macro found and rebinds here, as a `macro_rules!` macro's hygiene can make it) is
    // then a borrow that rustc rejects at that name.
    let unpack_host: Vec<TokenStream> = cap_idents
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
    let unpack_host = quote!(#(#unpack_host)*);
    let shadow_pattern = nest(
        cap_idents
            .chunks(CHUNK)
            .map(|c| quote!((#(#c,)*)))
            .collect(),
        |first, rest| quote!((#first, #rest)),
    );
    let unpack_shadow = quote!(let #shadow_pattern = #captures;);
    let (host, shadow, ctor, params): (TokenStream, TokenStream, TokenStream, Vec<String>) =
        match kind {
            Kind::For => (
                quote!(#k::host_for::<#idx_ty, _, _>(&#caps_var, #[inline(always)] |#captures, #idx_pat: #idx_ty, #flag: bool| {
                    #unpack_host
                    #host_form
                })),
                quote!(#k::shadow_for::<#idx_ty, _, _>(&#caps_var, move |#captures, #idx_pat| {
                    #unpack_shadow
                    #shadow_block
                })),
                quote!(new_for),
                vec![],
            ),
            Kind::Reduce { accs: list } if list.len() == 1 => {
                let acc = &list[0];
                let acc_name = param_name(acc).expect("checked");
                let acc_shadow = shadow_param(acc);
                (
                    quote!(#k::host_reduce::<#idx_ty, _, _, _>(&#caps_var, #[inline(always)] |#captures, #idx_pat: #idx_ty, #acc, #flag: bool| {
                        #unpack_host
                        #host_form
                    })),
                    quote!(#k::shadow_reduce::<#idx_ty, _, _, _>(&#caps_var, move |#captures, #idx_pat, #acc_shadow| {
                        #unpack_shadow
                        #shadow_block
                    })),
                    quote!(new_reduce),
                    vec![acc_name.to_string()],
                )
            }
            Kind::Reduce { accs: list } => {
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
                (
                    quote!(#k::host_reduce::<#idx_ty, _, _, _>(&#caps_var, #[inline(always)] |#captures, #idx_pat: #idx_ty, #accs, #flag: bool| {
                        #unpack_host
                        let (#(#names,)*): (#(#host_types,)*) = #k::#split(#accs);
                        #host_form
                    })),
                    quote!(#k::shadow_reduce::<#idx_ty, _, _, _>(&#caps_var, move |#captures, #idx_pat, #accs| {
                        #unpack_shadow
                        let (#(#names,)*): (#(#types,)*) = #k::shadow::#split(#accs, [#(#strs),*]);
                        #shadow_block
                    })),
                    quote!(new_reduce),
                    vec!["accs".to_string()],
                )
            }
            Kind::Team {
                member,
                name,
                acc: None,
            } => (
                quote!(#k::host_team_for(&#caps_var, |#captures, #member| {
                    #unpack_host
                    #host_body
                })),
                quote!(#k::shadow_team_for(&#caps_var, move |#captures, #name| {
                    #unpack_shadow
                    #shadow_block
                })),
                quote!(new_team_for),
                vec![name.to_string()],
            ),
            Kind::Team {
                member,
                name,
                acc: Some(acc),
            } => {
                let acc_name = param_name(acc).expect("checked");
                let acc_shadow = shadow_param(acc);
                (
                    quote!(#k::host_team_reduce(&#caps_var, |#captures, #member, #acc| {
                        #unpack_host
                        #host_body
                    })),
                    quote!(#k::shadow_team_reduce(&#caps_var, move |#captures, #name, #acc_shadow| {
                        #unpack_shadow
                        #shadow_block
                    })),
                    quote!(new_team_reduce),
                    vec![name.to_string(), acc_name.to_string()],
                )
            }
            Kind::Scan { partial, flag } => {
                let p = param_name(partial).expect("checked");
                let p_shadow = shadow_param(partial);
                let f = param_name(flag).expect("checked");
                (
                    quote!(#k::host_scan::<#idx_ty, _, _, _>(&#caps_var, |#captures, #idx_pat: #idx_ty, #partial, #f: bool| {
                        #unpack_host
                        #host_body
                    })),
                    quote!(#k::shadow_scan::<#idx_ty, _, _, _>(&#caps_var, move |#captures, #idx_pat, #p_shadow, #f| {
                        #unpack_shadow
                        #shadow_block
                    })),
                    quote!(new_scan),
                    vec![p.to_string(), f.to_string()],
                )
            }
        };
    // The identifiers the race rules took for the iteration index must be it: in a closure over the
    // same parameter pattern, bound to a witness type, each must have that type. (A `macro_rules!`
    // macro can make a body's `i` resolve to the caller's `i` while the parameter `i` is the
    // macro's: the text matches, the binding does not.)
    let witness_ty = if index.names.len() == 1 {
        quote!(#k::IterationIndex)
    } else {
        let each = index.names.iter().map(|_| quote!(#k::IterationIndex));
        quote!((#(#each,)*))
    };
    let owners: Vec<&syn::Ident> = analysis
        .owner_idents
        .iter()
        .chain(proven.found.iter().flat_map(|(_, _, idents)| idents))
        .collect();
    let witness = if matches!(kind, Kind::Team { .. }) {
        // Each local the team rules resolved must be the binding they took it for.
        let pairs = analysis.team_witness.iter().map(|(use_, binding)| {
            quote!(
                #[allow(unused, clippy::all)]
                let _ = |#binding: #k::IterationIndex| #k::iteration_index(#use_);
            )
        });
        quote!(#(#pairs)*)
    } else {
        quote!(
            #[allow(unused, clippy::all)]
            let _ = |#idx_pat: #witness_ty| {
                #(#k::iteration_index(#owners);)*
            };
        )
    };
    let caps_value = nest(
        caps.chunks(CHUNK).map(|c| quote!((#(#c,)*))).collect(),
        |first, rest| quote!(#k::capture::More(#first, #rest)),
    );
    let is_unsafe = analysis.is_unsafe;
    let h = hash(&closure.to_token_stream().to_string());
    let overlaps = overlap_checks(analysis, fields);
    let bounds = bounds_checks(&proven.found, analysis, fields);
    let scratch = analysis.scratch.iter().map(|d| {
        let (level, per_thread, ty) = (d.level, d.per_thread, &d.ty);
        let extents = d.extents.iter().map(|e| {
            let e = with_captures(e, analysis, fields);
            quote!((#e) as usize)
        });
        quote!(.with_scratch(#level, #per_thread, #k::scratch_bytes::<#ty>(&[#(#extents),*])))
    });
    let scratch = quote!(#(#scratch)*);
    let blocks = if analysis.league_blocks.is_empty() {
        quote!()
    } else {
        let values = analysis.league_blocks.iter().map(|c| {
            let v = capture_value(c, analysis, fields);
            quote!(#k::league_block(&(#v)))
        });
        quote!(.with_league_blocks(::std::vec![#(#values),*]))
    };
    // Each field path is evaluated once, here: the captures, the launch's overlap and bounds checks,
    // the scratch sizes and the league blocks all read the place it gave (a `Deref` on the way
    // could give another place each time; the checks must be about the captured value).
    let field_locals = fields.iter().map(|f| {
        let (local, path) = (field_local(&f.name), &f.path);
        quote!(let #local = &#path;)
    });
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
        #kernel_var #overlaps #bounds #blocks #scratch
    })
}

/// The expansion's local holding a reference to field capture `name`'s place (its path evaluated
/// once).
fn field_local(name: &str) -> syn::Ident {
    syn::Ident::new(&format!("__fk_field_{name}"), Span::mixed_site())
}

/// The expression of the capture or constant `name` as the kernel's surroundings see it (a field
/// capture's path, else the name with the span of its use).
fn capture_value(
    name: &str,
    analysis: &analyze::Analysis,
    fields: &[fields::FieldCapture],
) -> TokenStream {
    if let Some(f) = fields.iter().find(|f| f.name == name) {
        let local = field_local(&f.name);
        return quote!((*#local));
    }
    let span = analysis
        .captures
        .iter()
        .find(|(n, _, _)| n == name)
        .map_or_else(Span::call_site, |(_, _, s)| *s);
    let ident = syn::Ident::new(name, span);
    quote!(#ident)
}

/// `e` (launch constants) as the kernel's surroundings see it: each capture by
/// [`capture_value`] (a field capture's place, its path evaluated once), constants as written.
fn with_captures(
    e: &Expr,
    analysis: &analyze::Analysis,
    fields: &[fields::FieldCapture],
) -> TokenStream {
    use syn::visit_mut::VisitMut;
    struct Swap<'a>(&'a analyze::Analysis, &'a [fields::FieldCapture]);
    impl VisitMut for Swap<'_> {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            if let Some(name) = analyze::ident_of(e)
                && (self.0.captures.iter().any(|(n, _, _)| *n == name)
                    || self.1.iter().any(|f| f.name == name))
            {
                let v = capture_value(&name, self.0, self.1);
                *e = syn::parse_quote!(#v);
                return;
            }
            syn::visit_mut::visit_expr_mut(self, e);
        }
    }
    let mut e = e.clone();
    Swap(analysis, fields).visit_expr_mut(&mut e);
    quote!(#e)
}

/// The overlaps the race rules left to the launch, as `.with_overlaps(vec![...])` (nothing when
/// there are none): each map's offsets are evaluated now, from the same values the kernel captures.
fn overlap_checks(analysis: &analyze::Analysis, fields: &[fields::FieldCapture]) -> TokenStream {
    if analysis.overlaps.is_empty() {
        return quote!();
    }
    let k = quote!(::ferrokkos::__private);
    let coord = |c: &affine::Coord| coord_tokens(c, analysis, fields);
    let map = |(text, coords): &(String, Vec<affine::Coord>)| {
        let text = with_paths_text(text, fields);
        let cs = coords.iter().map(coord);
        quote!((#text, ::std::vec![#(#cs),*]))
    };
    let each = analysis.overlaps.iter().map(|o| {
        let view = with_paths_text(&o.view, fields);
        let first = map(&o.first);
        let second = match &o.second {
            Some(m) => {
                let m = map(m);
                quote!(::core::option::Option::Some(#m))
            }
            None => quote!(::core::option::Option::None),
        };
        quote!(#k::Overlap { view: #view, first: #first, second: #second })
    });
    // The offsets are the author's index arithmetic rearranged (`x - 1 - m` gives `-1 * m`):
    // clippy's style lints must not fire at the author's span for the expansion's form.
    let o = syn::Ident::new("__fk_overlaps", Span::mixed_site());
    quote!(.with_overlaps({
        #[allow(clippy::all)]
        let #o = ::std::vec![#(#each),*];
        #o
    }))
}

/// One coordinate of an index map, with its offsets evaluated now from the values the kernel
/// captures.
fn coord_tokens(
    c: &affine::Coord,
    analysis: &analyze::Analysis,
    fields: &[fields::FieldCapture],
) -> TokenStream {
    let k = quote!(::ferrokkos::__private);
    let leaf = |name: &str| capture_value(name, analysis, fields);
    match c {
        affine::Coord::Param {
            param,
            coef,
            offset,
        } => {
            let (param, coef) = (*param as u8, *coef as i64);
            let offset = offset.tokens(&leaf);
            quote!(#k::OverlapCoord::param(#param, #coef, #offset))
        }
        affine::Coord::Fixed(offset) => {
            // A coordinate of literals only has the type its use gives it, which may be as narrow
            // as 8 bits (`100 + 100` wraps in a `u8`, and to a negative `i8`): its value is known
            // exactly only below 2^7.
            let bits = match offset.terms.keys().next() {
                Some(name) => {
                    let v = affine::term(name, &leaf);
                    quote!(#k::int_bits(&(#v)))
                }
                None => quote!(8u32),
            };
            let value = offset.tokens(&leaf);
            quote!(#k::OverlapCoord::fixed(#value, #bits))
        }
        affine::Coord::Any => quote!(#k::OverlapCoord::Any),
    }
}

/// The accesses of the body's proven form, as `.with_bounds(vec![...])` (nothing when there are
/// none): each launch proves their maps within their Views before it runs that form.
fn bounds_checks(
    found: &[(String, Vec<affine::Coord>, Vec<syn::Ident>)],
    analysis: &analyze::Analysis,
    fields: &[fields::FieldCapture],
) -> TokenStream {
    if found.is_empty() {
        return quote!();
    }
    let k = quote!(::ferrokkos::__private);
    let each = found.iter().map(|(view, map, _)| {
        let cs = map.iter().map(|c| coord_tokens(c, analysis, fields));
        quote!(#k::InBounds { view: #view, map: ::std::vec![#(#cs),*] })
    });
    let b = syn::Ident::new("__fk_bounds", Span::mixed_site());
    quote!(.with_bounds({
        #[allow(clippy::all)]
        let #b = ::std::vec![#(#each),*];
        #b
    }))
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

/// Rewrites `p.method(..)` to `(*p).method(..)` for the reference parameters `params` (accumulators,
/// partial values): kernels call methods of their values (which Rust does not auto-dereference for
/// `&mut u32` receivers of `Ord::max`, and the shadow needs to see the dereference).
fn deref_receivers(body: &Expr, params: &[String]) -> Expr {
    use syn::visit_mut::VisitMut;
    struct Deref<'a>(&'a [String]);
    impl VisitMut for Deref<'_> {
        fn visit_expr_method_call_mut(&mut self, m: &mut syn::ExprMethodCall) {
            syn::visit_mut::visit_expr_method_call_mut(self, m);
            if let Some(name) = crate::analyze::ident_of(&m.receiver)
                && self.0.contains(&name)
            {
                let recv = &m.receiver;
                *m.receiver = syn::parse_quote!((*#recv));
            }
        }
    }
    let mut body = body.clone();
    Deref(params).visit_expr_mut(&mut body);
    body
}

/// [`deref_receivers`] inside every closure of two or more parameters (a team kernel's nested
/// reductions and scans: their second parameter is the accumulator or partial value).
fn deref_nested_receivers(body: &Expr) -> Expr {
    use syn::visit_mut::VisitMut;
    struct Nested;
    impl VisitMut for Nested {
        fn visit_expr_closure_mut(&mut self, c: &mut ExprClosure) {
            syn::visit_mut::visit_expr_closure_mut(self, c);
            if let Some(acc) = c.inputs.iter().nth(1).and_then(|p| param_name(p).ok()) {
                *c.body = deref_receivers(&c.body, &[acc.to_string()]);
            }
        }
    }
    let mut body = body.clone();
    Nested.visit_expr_mut(&mut body);
    body
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

/// `e` with each field capture's identifier in its messages replaced by the path it stands for.
/// `text` with the pre-pass's identifiers replaced by the paths the user wrote.
fn with_paths_text(text: &str, fields: &[fields::FieldCapture]) -> String {
    fields.iter().fold(text.to_string(), |t, f| {
        replace_word(&t, &f.name, &analyze::pretty(&f.path))
    })
}

fn with_paths(e: &syn::Error, fields: &[fields::FieldCapture]) -> syn::Error {
    let mut out: Option<syn::Error> = None;
    for one in e.clone() {
        let before = one.to_string();
        let mut msg = before.clone();
        for f in fields {
            msg = replace_word(&msg, &f.name, &analyze::pretty(&f.path));
        }
        // Unchanged errors keep their whole span; a renamed one points at its start.
        let one = if msg == before {
            one
        } else {
            syn::Error::new(one.span(), msg)
        };
        match &mut out {
            Some(o) => o.combine(one),
            None => out = Some(one),
        }
    }
    out.unwrap_or_else(|| e.clone())
}

/// `text` with every occurrence of the identifier `word` (not part of a longer identifier)
/// replaced by `by`.
fn replace_word(text: &str, word: &str, by: &str) -> String {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(word) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + word.len()..].chars().next();
        out.push_str(&rest[..at]);
        if before.is_some_and(is_ident) || after.is_some_and(is_ident) {
            out.push_str(word);
        } else {
            out.push_str(by);
        }
        rest = &rest[at + word.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod with_paths_tests {
    use super::replace_word;

    #[test]
    fn only_whole_identifiers_are_replaced() {
        assert_eq!(
            replace_word("`p_dt` and p_dt_x, (p_dt)", "p_dt", "p.dt"),
            "`p.dt` and p_dt_x, (p.dt)"
        );
    }
}
