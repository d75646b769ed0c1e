//! `kernel!`: parses the closure, checks it, and expands it to a `ferrokkos::kernel::Kernel` with a
//! host body and a typed shadow.
//!
//! The steps are in this module's files: the parameters (`params.rs`), the expansion
//! (`generate.rs`), the launch's checks (`launch.rs`), and the messages naming the paths the user
//! wrote (`messages.rs`).

mod closure;
mod generate;
mod launch;
mod messages;
mod params;

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, ExprClosure, Pat};

use crate::analyze::{self, Mode};
use crate::{alias, atomic_view, fields};
use launch::field_local;
use messages::with_paths;
use params::{
    IndexParam, Kind, deref_nested_receivers, deref_receivers, index_param, is_bool, param_name,
    team_param,
};

/// The kernel's parameters as written: its first (the index, or the team member) and the rest.
struct Params {
    first: Pat,
    /// The team member's name, for a team kernel.
    team: Option<syn::Ident>,
    index: IndexParam,
    rest: Vec<Pat>,
    rest_names: Vec<String>,
}

pub fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let closure = parse(input)?;
    if closure::is_device_closure(&closure) {
        return closure::expand(&closure);
    }
    let params = parameters(&closure)?;
    let Params {
        team,
        index,
        rest_names,
        ..
    } = &params;
    // `acc.max(v)` means `(*acc).max(v)`: a method of the accumulator's value, not of the reference
    // (also for the accumulators of a team kernel's nested reductions).
    // `println!(..)`, `panic!(..)`: calls whose arguments the rewritings below reach.
    let mut body = (*closure.body).clone();
    crate::format::normalize(&mut body);
    let mut body = deref_receivers(&body, rest_names);
    if team.is_some() {
        body = deref_nested_receivers(&body);
    }
    // `c.u[i]`: a field path rooted at a variable around the kernel is one capture.
    let bound: Vec<String> = index
        .names
        .iter()
        .chain(rest_names)
        .cloned()
        .chain(team.iter().map(|t| t.to_string()))
        .collect();
    // `let w = &c.w;`: `w` is `c.w` (before the paths become captures).
    let mut errors = alias::resolve(&mut body, &bound);
    // `let id = token.acquire();`: the uses of tokens and their ids become markers.
    errors.extend(crate::unique_token::rewrite(&mut body, team.is_some()));
    if let Some(mut first) = errors.first().cloned() {
        for e in &errors[1..] {
            first.combine(e.clone());
        }
        return Err(first);
    }
    let fields = fields::flatten(&mut body, &bound);
    let (analysis, atomic_only) = checked_analysis(&params, &mut body, &fields)?;
    let body = &body;
    let kind = kind_of(&params, &analysis)?;
    let checks = atomic_checks(&atomic_only, &analysis, &fields);
    Ok(generate::generate(
        &closure, index, &kind, &analysis, &fields, body, checks,
    ))
}

/// The macro's input: a plain closure.
fn parse(input: TokenStream) -> syn::Result<ExprClosure> {
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
    Ok(closure)
}

/// The closure's parameters: the index (or the team member) and the accumulators, partial value
/// and flag.
fn parameters(closure: &ExprClosure) -> syn::Result<Params> {
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
    Ok(Params {
        first: (*first).clone(),
        team,
        index,
        rest,
        rest_names,
    })
}

/// The analysis of `body`, without errors. Views written other than one to one must be atomic
/// Views: their accesses become atomic (`body` is rewritten and analysed again), and the expansion
/// requires the type (see `atomic_view.rs`); they are returned with the error each is for a plain
/// View.
fn checked_analysis(
    params: &Params,
    body: &mut Expr,
    fields: &[fields::FieldCapture],
) -> syn::Result<(analyze::Analysis, Vec<(String, syn::Error)>)> {
    let Params {
        team,
        index,
        rest_names,
        ..
    } = params;
    let run_analysis = |body: &Expr| match &team {
        Some(t) => {
            analyze::analyze_team(body, &t.to_string(), rest_names.first().map(String::as_str))
        }
        None => analyze::analyze(Mode::Kernel, body, &index.names, rest_names, &[]),
    };
    // The analysis saw the pre-pass's identifiers (`p_dt`); the messages name the paths the user
    // wrote (`p.dt`).
    let fail = |errors: &[syn::Error]| {
        let mut errors = errors.iter().map(|e| with_paths(e, fields));
        let mut first = errors.next().expect("not empty");
        for e in errors {
            first.combine(e);
        }
        first
    };
    let mut analysis = run_analysis(body);
    if !analysis.errors.is_empty() {
        return Err(fail(&analysis.errors));
    }
    let mut atomic_only: Vec<(String, syn::Error)> = Vec::new();
    for (name, e) in std::mem::take(&mut analysis.atomic_only) {
        if !atomic_only.iter().any(|(n, _)| *n == name) {
            atomic_only.push((name, with_paths(&e, fields)));
        }
    }
    if !atomic_only.is_empty() {
        let names = atomic_only.iter().map(|(n, _)| n.clone()).collect();
        atomic_view::rewrite(body, &names);
        analysis = run_analysis(body);
        if !analysis.errors.is_empty() {
            return Err(fail(&analysis.errors));
        }
    }
    Ok((analysis, atomic_only))
}

/// What the parameters (and the body's use of them) make the kernel.
fn kind_of(params: &Params, analysis: &analyze::Analysis) -> syn::Result<Kind> {
    let Params {
        first,
        team,
        rest,
        rest_names,
        ..
    } = params;
    let kind = match (team, rest.len()) {
        (Some(t), _) => Kind::Team {
            member: Box::new(first.clone()),
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
    Ok(kind)
}

/// The statements requiring each View the kernel treats as atomic to be an atomic View.
fn atomic_checks(
    atomic_only: &[(String, syn::Error)],
    analysis: &analyze::Analysis,
    fields: &[fields::FieldCapture],
) -> TokenStream {
    let capture = |name: &str| {
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
        (value, span)
    };
    let atomic_checks = atomic_only.iter().map(|(name, e)| {
        let (value, span) = capture(name);
        atomic_view::require(&value, span, e)
    });
    let plain_checks = analysis.plain_only.iter().map(|(name, e)| {
        let (value, span) = capture(name);
        atomic_view::require_plain(&value, span, &with_paths(e, fields))
    });
    quote!(#(#atomic_checks)* #(#plain_checks)*)
}
