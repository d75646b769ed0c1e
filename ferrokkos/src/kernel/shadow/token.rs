//! A UniqueToken in the typed shadow: `let id = token.acquire();` declares an `fk::TokenHold`
//! (which acquires an id and releases it when its scope ends, `device/token.cuh`), `token.release(id)`
//! releases it, and the id is a `usize` where the body uses it. `kernel!` writes every use of a
//! token and of its ids as one of these calls (`ferrokkos-macros/src/unique_token.rs`), so the
//! shadow's types match the host body's ([`crate::containers`]' `TokenAccess` and `TokenId`).

use super::super::builder::{self, prec};
use super::super::expr::Expr;

/// The shadow type of a captured UniqueToken (an `fk::UniqueToken` parameter).
#[derive(Clone, Copy, Debug)]
pub struct TokenShadow;

/// The shadow type of a held id (an `fk::TokenHold` local).
#[derive(Clone, Copy, Debug)]
pub struct TokenIdShadow;

/// `let name = token.acquire();`: an `fk::TokenHold` named after `name`.
pub fn token_acquire(token: Expr<TokenShadow>, name: &str) -> Expr<TokenIdShadow> {
    let cxx = builder::fresh_name(name);
    builder::line(format!("fk::TokenHold {cxx}({});", token.text()));
    Expr::name(&cxx)
}

/// `token.release(id)`.
pub fn token_release(_token: Expr<TokenShadow>, id: Expr<TokenIdShadow>) {
    builder::line(format!("{}.release();", id.operand(prec::PRIMARY)));
}

/// `token.size()`.
pub fn token_size(token: Expr<TokenShadow>) -> Expr<usize> {
    Expr::new(
        format!("{}.size", token.operand(prec::PRIMARY)),
        prec::PRIMARY,
    )
}

/// A View coordinate that the race rules take for an id held from `token`: checked on the device
/// to be one of `token`'s (`fk::token_held`).
pub fn token_held(token: Expr<TokenShadow>, id: Expr<TokenIdShadow>) -> Expr<usize> {
    Expr::new(
        format!("fk::token_held({}, {})", token.text(), id.text()),
        prec::PRIMARY,
    )
}

/// The id's value where the body uses it as a number.
pub fn token_value(id: Expr<TokenIdShadow>) -> Expr<usize> {
    Expr::new(
        format!("{}.index", id.operand(prec::PRIMARY)),
        prec::PRIMARY,
    )
}
