//! A UniqueToken in the typed shadow: `let id = token.acquire();` declares an `fk::TokenHold`
//! (which acquires an id and releases it when its scope ends, `device/token.cuh`), `token.release(id)`
//! releases it, and the id is a `usize` where the body uses it. `kernel!` writes every use of a
//! token and of its ids as one of these calls (`ferrokkos-macros/src/unique_token.rs`), so the
//! shadow's types match the host body's ([`crate::containers`]' `TokenAccess` and `TokenId`).

use super::super::builder::{self, prec};
use super::super::expr::Expr;
use super::super::value::DeviceValue;
use crate::seal::SealedShadow;

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

/// A block that acquires ids, as a C++ scope of its own: the holds it declares end with it (the
/// shadow writes other blocks' statements into the enclosing scope). A block with a value writes
/// it to a temporary declared before the scope.
pub fn token_scope<R: TokenScope>(body: impl FnOnce() -> R) -> R {
    R::scoped(body)
}

/// What a block that acquires ids gives: nothing, or a device value (sealed).
pub trait TokenScope: SealedShadow + Sized {
    /// Emits `body` in a scope of its own.
    fn scoped(body: impl FnOnce() -> Self) -> Self;
}

impl TokenScope for () {
    fn scoped(body: impl FnOnce()) {
        builder::line("{");
        builder::indent(1);
        body();
        builder::indent(-1);
        builder::line("}");
    }
}

impl<T: DeviceValue> TokenScope for Expr<T> {
    fn scoped(body: impl FnOnce() -> Self) -> Self {
        let tmp = builder::fresh_temp("fk_block");
        let (lines, value) = builder::capture(body);
        builder::line(format!("{} {tmp};", T::cxx_name()));
        builder::line("{");
        builder::indent(1);
        builder::splice(lines);
        builder::line(format!("{tmp} = {};", value.text()));
        builder::indent(-1);
        builder::line("}");
        Expr::name(&tmp)
    }
}
