//! Control flow in a body: `if`, blocks, `unsafe` blocks, loops, jumps, `return` and `match`; the
//! team rules follow which threads reach what (see `team/`).

use std::collections::HashSet;

use syn::spanned::Spanned;
use syn::{Expr, Pat};

use super::{Mode, Walker, unsupported};

impl Walker {
    /// `if` (not `if let`): the condition decides which threads run each branch.
    pub(super) fn if_expr(&mut self, i: &syn::ExprIf) {
        if let Expr::Let(l) = &*i.cond {
            self.errors.push(unsupported(l, "`if let`"));
        } else {
            self.expr(&i.cond);
        }
        let first = self.first_thread(&i.cond);
        self.team_control(Some(&i.cond), |w| {
            w.in_first_thread(first, |w| w.block(&i.then_branch));
            if let Some((_, e)) = &i.else_branch {
                w.expr(e);
            }
        });
    }

    /// `unsafe { }`: the kernel is an unsafe one.
    pub(super) fn unsafe_block(&mut self, u: &syn::ExprUnsafe) {
        self.is_unsafe = true;
        self.unsafe_depth += 1;
        self.block(&u.block);
        self.unsafe_depth -= 1;
    }

    /// `for k in a..b` (or a stepped range): the loop variable is bound in the body.
    pub(super) fn for_loop(&mut self, f: &syn::ExprForLoop) {
        match crate::shadow::range_parts(&f.expr) {
            Ok(parts) => {
                self.expr(parts.start);
                self.expr(parts.end);
                if let Some(s) = parts.step {
                    self.expr(s);
                }
            }
            Err(e) => self.errors.push(e),
        }
        self.scopes.push(HashSet::new());
        let mut var = None;
        match &*f.pat {
            Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() && i.mutability.is_none() => {
                var = Some(i.ident.to_string());
                self.bind(i.ident.to_string(), i.ident.span())
            }
            Pat::Wild(_) => {}
            other => self
                .errors
                .push(unsupported(other, "this loop pattern (only `k` or `_`)")),
        }
        // The loop's bounds decide whether every thread runs its iterations.
        let bounds: Expr = match crate::shadow::range_parts(&f.expr) {
            Ok(p) => {
                let (a, b) = (p.start, p.end);
                match p.step {
                    Some(st) => syn::parse_quote!((#a, #b, #st)),
                    None => syn::parse_quote!((#a, #b)),
                }
            }
            Err(_) => (*f.expr).clone(),
        };
        self.team_control(Some(&bounds), |w| {
            w.team_loop(var.as_deref(), f.span(), |w| w.block(&f.body))
        });
        self.scopes.pop();
        self.team_prune();
    }

    /// `while` (not `while let`).
    pub(super) fn while_loop(&mut self, w: &syn::ExprWhile) {
        if let Expr::Let(l) = &*w.cond {
            self.errors.push(unsupported(l, "`while let`"));
        } else {
            self.expr(&w.cond);
        }
        self.team_control(Some(&w.cond), |v| {
            v.team_loop(None, w.span(), |v| v.block(&w.body))
        });
    }

    /// `break` (without a value).
    pub(super) fn break_expr(&mut self, b: &syn::ExprBreak) {
        if b.expr.is_some() {
            self.errors.push(unsupported(b, "`break` with a value"));
        }
        self.team_jump();
    }

    /// `return`: a device function returns a value, a kernel only leaves the iteration.
    pub(super) fn return_expr(&mut self, r: &syn::ExprReturn) {
        if self.team_return(r.span()) {
            return;
        }
        if let Some(v) = &r.expr {
            if self.mode == Mode::Kernel {
                self.errors
                    .push(unsupported(r, "returning a value from a kernel"));
            }
            self.expr(v);
        }
    }

    /// `match`: each arm's pattern binds in the arm's own scope.
    pub(super) fn match_expr(&mut self, m: &syn::ExprMatch) {
        self.expr(&m.expr);
        // The arms' choice: the scrutinee and the guards.
        let guards = m
            .arms
            .iter()
            .filter_map(|a| a.guard.as_ref().map(|(_, g)| &**g));
        let scrutinee = &m.expr;
        let choice: Expr = syn::parse_quote!((#scrutinee, #(#guards,)*));
        self.team_control(Some(&choice), |w| {
            for arm in &m.arms {
                w.scopes.push(HashSet::new());
                w.arm_pattern(&arm.pat);
                if let Some((_, g)) = &arm.guard {
                    w.expr(g);
                }
                w.expr(&arm.body);
                w.scopes.pop();
                w.team_prune();
            }
        });
    }
}
