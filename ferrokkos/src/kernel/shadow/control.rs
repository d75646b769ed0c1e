//! Control flow in the typed shadow: `if` / `else`, loops, `break`, `continue`, `return`.

use super::super::builder::{self, Line, prec};
use super::super::expr::Expr;
use super::super::ty::DeviceScalar;
use super::super::value::DeviceValue;

/// What an `if` / `else` produces: `()` for statements, an `Expr` for a value (sealed).
pub trait Branch: crate::seal::SealedShadow + Sized {
    /// Emits `if (cond) { then } else { otherwise }` and gives its value.
    fn branch(
        cond: Expr<bool>,
        then: impl FnOnce() -> Self,
        otherwise: impl FnOnce() -> Self,
    ) -> Self;
}

impl Branch for () {
    fn branch(cond: Expr<bool>, then: impl FnOnce(), otherwise: impl FnOnce()) {
        builder::line(format!("if ({}) {{", cond.text()));
        block(then);
        let (lines, ()) = builder::capture(otherwise);
        if !builder::has_code(&lines) {
            builder::line("}");
            return;
        }
        // `else if`: an else branch that is exactly one `if` statement continues the chain.
        if let Some(Line::Code(0, first)) = lines.iter().find(|l| matches!(l, Line::Code(..)))
            && first.starts_with("if (")
            && is_single_if(&lines)
        {
            let mut lines = lines;
            for l in &mut lines {
                if let Line::Code(0, t) = l
                    && t.starts_with("if (")
                {
                    *t = format!("}} else {t}");
                    break;
                }
            }
            // Drop the chain's own closing brace: ours closes it.
            if let Some(pos) = lines
                .iter()
                .rposition(|l| matches!(l, Line::Code(0, t) if t == "}"))
            {
                lines.remove(pos);
            }
            builder::splice(lines);
            builder::line("}");
            return;
        }
        builder::line("} else {");
        builder::indent(1);
        builder::splice(lines);
        builder::indent(-1);
        builder::line("}");
    }
}

/// Whether captured lines are one `if` statement (its chain included) and nothing else.
fn is_single_if(lines: &[Line]) -> bool {
    let top: Vec<&String> = lines
        .iter()
        .filter_map(|l| match l {
            Line::Code(0, t) => Some(t),
            _ => None,
        })
        .collect();
    top.first().is_some_and(|t| t.starts_with("if ("))
        && top.last().is_some_and(|t| *t == "}")
        && top[1..top.len() - 1]
            .iter()
            .all(|t| t.starts_with("} else"))
}

impl<T: DeviceValue> Branch for Expr<T> {
    fn branch(
        cond: Expr<bool>,
        then: impl FnOnce() -> Self,
        otherwise: impl FnOnce() -> Self,
    ) -> Self {
        let (then_lines, a) = builder::capture(then);
        let (else_lines, b) = builder::capture(otherwise);
        if !builder::has_code(&then_lines) && !builder::has_code(&else_lines) {
            builder::splice(then_lines);
            builder::splice(else_lines);
            return Expr::new(
                format!(
                    "{} ? {} : {}",
                    cond.operand(prec::TERNARY - 1),
                    a.operand(prec::TERNARY),
                    b.operand(prec::TERNARY)
                ),
                prec::TERNARY,
            );
        }
        let ty = T::cxx_name();
        let t = builder::fresh_temp("fk_if");
        builder::line(format!("{ty} {t};"));
        builder::line(format!("if ({}) {{", cond.text()));
        builder::indent(1);
        builder::splice(then_lines);
        builder::line(format!("{t} = {};", a.text()));
        builder::indent(-1);
        builder::line("} else {");
        builder::indent(1);
        builder::splice(else_lines);
        builder::line(format!("{t} = {};", b.text()));
        builder::indent(-1);
        builder::line("}");
        Expr::name(&t)
    }
}

/// `if c { ... } else { ... }` (statement or value).
pub fn if_else<R: Branch>(
    cond: Expr<bool>,
    then: impl FnOnce() -> R,
    otherwise: impl FnOnce() -> R,
) -> R {
    R::branch(cond, then, otherwise)
}

/// `if c { ... }` without `else`.
pub fn if_(cond: Expr<bool>, then: impl FnOnce()) {
    builder::line(format!("if ({}) {{", cond.text()));
    block(then);
    builder::line("}");
}

/// Emits `body` one level deeper.
fn block<R>(body: impl FnOnce() -> R) -> R {
    builder::indent(1);
    let r = body();
    builder::indent(-1);
    r
}

/// Integer types (loop counters, indices).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an integer: a kernel indexes and counts with integers",
    label = "expected an integer",
    note = "View indices, loop counters and their ranges in a kernel are `i8` to `i64`, `isize`, \
            `u8` to `u64` or `usize`; convert with `as`"
)]
pub trait DeviceInt: DeviceScalar {}

macro_rules! device_int {
    ($($t:ident)*) => {$( impl DeviceInt for $t {} )*};
}

device_int!(i8 i16 i32 i64 isize u8 u16 u32 u64 usize);

/// How a `for` loop walks its range: `a..b`, `a..=b`, optionally `.rev()`, optionally `.step_by(s)`.
#[derive(Clone, Copy, Debug, Default)]
pub struct RangeShape {
    /// `a..=b`.
    pub inclusive: bool,
    /// `.rev()`.
    pub rev: bool,
}

/// `for name in start..end { body }` with the given shape and optional `.step_by(step)`.
pub fn for_range<T: DeviceInt>(
    name: &str,
    start: Expr<T>,
    end: Expr<T>,
    shape: RangeShape,
    step: Option<Expr<usize>>,
    body: impl FnOnce(Expr<T>),
) {
    let ty = T::CXX;
    // An inclusive range ends one later (a range up to the type's maximum would wrap: not supported).
    let end = if shape.inclusive {
        format!("{} + 1", end.operand(prec::ADD))
    } else {
        end.text()
    };
    let var = builder::fresh_name(name);
    if !shape.rev {
        let stop = builder::fresh_name(&format!("{name}_end"));
        let open = match step {
            None => format!(
                "for ({ty} {var} = {}, {stop} = {end}; {var} < {stop}; ++{var}) {{",
                start.text()
            ),
            Some(step) => {
                let by = builder::fresh_name(&format!("{name}_step"));
                format!(
                    "for ({ty} {var} = {}, {stop} = {end}, {by} = {ty}({}); {var} < {stop}; \
                     {var} = {stop} - {var} > {by} ? {var} + {by} : {stop}) {{",
                    start.text(),
                    step.text()
                )
            }
        };
        emit_loop(open, || {}, || body(Expr::name(&var)));
    } else {
        let hi = builder::fresh_name(&format!("{name}_hi"));
        let lo = builder::fresh_name(&format!("{name}_lo"));
        let open = match step {
            None => format!(
                "for ({ty} {hi} = {end}, {lo} = {}; {hi} > {lo}; --{hi}) {{",
                start.text()
            ),
            Some(step) => {
                let by = builder::fresh_name(&format!("{name}_step"));
                format!(
                    "for ({ty} {hi} = {end}, {lo} = {}, {by} = {ty}({}); {hi} > {lo}; \
                     {hi} = {hi} - {lo} > {by} ? {hi} - {by} : {lo}) {{",
                    start.text(),
                    step.text()
                )
            }
        };
        emit_loop(
            open,
            || builder::line(format!("const {ty} {var} = {hi} - 1;")),
            || body(Expr::name(&var)),
        );
    }
}

/// Emits a loop: its opening line `open`, then inside it `prologue` and the body, then its closing
/// brace. A labelled loop (`'outer: for ...`) puts the body in a block of its own followed by its
/// continue target, and its break target after the loop (each only where a `goto` names it; the
/// inner block keeps the body's declarations out of scope at the target, as C++ requires).
fn emit_loop(open: String, prologue: impl FnOnce(), body: impl FnOnce()) {
    let label = builder::take_pending_label();
    builder::line(open);
    let Some(label) = label else {
        block(|| {
            prologue();
            body()
        });
        builder::line("}");
        return;
    };
    let brk = builder::fresh_temp(&format!("fk_break_{label}"));
    let cont = builder::fresh_temp(&format!("fk_continue_{label}"));
    builder::push_label(label, brk.clone(), cont.clone());
    let (lines, ()) = builder::capture(|| {
        block(|| {
            prologue();
            builder::line("{");
            block(body);
            builder::line("}");
        })
    });
    builder::pop_label();
    let (to_brk, to_cont) = (format!("goto {brk};"), format!("goto {cont};"));
    let (uses_brk, uses_cont) = (
        builder::mentions(&lines, &to_brk),
        builder::mentions(&lines, &to_cont),
    );
    builder::splice(lines);
    if uses_cont {
        block(|| builder::line(format!("{cont}: ;")));
    }
    builder::line("}");
    if uses_brk {
        builder::line(format!("{brk}: ;"));
    }
}

/// `'label: loop` (and `for`, `while`): the next loop is labelled `label`.
pub fn labeled(label: &str, the_loop: impl FnOnce()) {
    builder::set_pending_label(label);
    the_loop();
}

/// `break 'label;`.
pub fn break_to(label: &str) {
    match builder::label_targets(label) {
        Some((brk, _)) => builder::line(format!("goto {brk};")),
        // rustc rejects a label that no enclosing loop has; nothing to emit.
        None => builder::line("break;"),
    }
}

/// `continue 'label;`.
pub fn continue_to(label: &str) {
    match builder::label_targets(label) {
        Some((_, cont)) => builder::line(format!("goto {cont};")),
        None => builder::line("continue;"),
    }
}

/// `while cond { body }`.
pub fn while_(cond: impl FnOnce() -> Expr<bool>, body: impl FnOnce()) {
    let (lines, c) = builder::capture(cond);
    if !builder::has_code(&lines) {
        builder::splice(lines);
        emit_loop(format!("while ({}) {{", c.text()), || {}, body);
    } else {
        emit_loop(
            "while (true) {".to_string(),
            || {
                builder::splice(lines);
                builder::line(format!("if (!{}) break;", c.operand(prec::UNARY)));
            },
            body,
        );
    }
}

/// `loop { body }`.
pub fn loop_(body: impl FnOnce()) {
    emit_loop("while (true) {".to_string(), || {}, body);
}

/// `break;`.
pub fn break_() {
    builder::line("break;");
}

/// `continue;`.
pub fn continue_() {
    builder::line("continue;");
}

/// `return;` (ends the iteration, or a `()` device function).
pub fn return_unit() {
    builder::line("return;");
}

/// `return e;` (from a device function).
pub fn return_value<T>(e: Expr<T>) {
    builder::line(format!("return {};", e.text()));
}
