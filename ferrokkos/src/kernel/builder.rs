//! The emission state: while a kernel's typed shadow runs, every builder call appends C++ text here.
//!
//! The state is thread-local and exists only inside [`emit`]; the shadow code that the `kernel!` macro
//! generates calls the free functions of [`super::shadow`], which reach it through [`with`]. An
//! expression is a [`super::Expr`] (a copyable handle to a node here), a statement a line of the
//! current function.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

/// C++ operator precedence levels (smaller binds tighter), used to print the fewest parentheses.
pub(crate) mod prec {
    /// Names, literals, calls, subscripts.
    pub const PRIMARY: u8 = 2;
    /// `-x`, `!x`, `~x`.
    pub const UNARY: u8 = 3;
    /// `*`, `/`, `%`.
    pub const MUL: u8 = 5;
    /// `+`, `-`.
    pub const ADD: u8 = 6;
    /// `<`, `<=`, `>`, `>=`.
    pub const REL: u8 = 9;
    /// `==`, `!=`.
    pub const EQ: u8 = 10;
    /// `&`.
    pub const BITAND: u8 = 11;
    /// `^`.
    pub const XOR: u8 = 12;
    /// `|`.
    pub const BITOR: u8 = 13;
    /// `&&`.
    pub const AND: u8 = 14;
    /// `||`.
    pub const OR: u8 = 15;
    /// `c ? a : b`.
    pub const TERNARY: u8 = 16;
}

/// One line of a function body.
#[derive(Clone, Debug)]
pub(crate) enum Line {
    /// A statement or brace at an indentation depth (relative to the enclosing capture).
    Code(usize, String),
    /// `#line N "file"`: the next line came from Rust line N.
    Source(u32, &'static str),
}

/// A C++ expression: its text and the precedence of its outermost operator.
struct Node {
    text: String,
    prec: u8,
}

/// The function being emitted (the kernel body, or a `#[device]` function).
#[derive(Default)]
struct Function {
    lines: Vec<Line>,
    depth: usize,
    names: HashSet<String>,
    /// The enclosing labelled loops, innermost last: (Rust label, C++ break target, C++ continue
    /// target).
    labels: Vec<(String, String, String)>,
    /// The label of the loop about to be emitted (`'outer: for ...`).
    pending_label: Option<String>,
}

#[derive(Default)]
struct State {
    nodes: Vec<Node>,
    stack: Vec<Function>,
    /// Definitions of the `#[device]` functions called so far, callees before callers.
    functions: Vec<String>,
    /// Device function key (its marker type) to its C++ name.
    device_names: HashMap<(std::any::TypeId, std::any::TypeId), String>,
    used_function_names: HashSet<String>,
    /// Definitions of the user types (derived `DeviceValue` structs) named so far, field types
    /// before the structs that hold them.
    types: Vec<String>,
    /// User type (its `TypeId`) to its C++ name.
    type_names: HashMap<std::any::TypeId, String>,
    /// The receivers of `#[device]` method calls being evaluated (node ids), innermost last.
    receivers: Vec<u32>,
    /// The device functions being defined (key, Rust name), outermost first: a call of one of
    /// them is recursion.
    defining: Vec<((std::any::TypeId, std::any::TypeId), String)>,
    /// The first recursion found: the cycle of Rust names (`f -> g -> f`).
    recursion: Option<String>,
}

thread_local! {
    static STATE: RefCell<Option<State>> = const { RefCell::new(None) };
}

/// What one run of a shadow produced.
pub(crate) struct Emitted<R> {
    /// The body's lines.
    pub body: Vec<Line>,
    /// Definitions of the device functions it calls.
    pub functions: Vec<String>,
    /// Definitions of the user types it names.
    pub types: Vec<String>,
    /// What the shadow returned.
    pub value: R,
    /// A cycle of device function calls (`f -> g -> f`), if the body has one: GPUs run such code
    /// on a small fixed stack, where a deep recursion faults and ends the context, so device code
    /// refuses it.
    pub recursion: Option<String>,
}

/// Runs `f` (a shadow) with a fresh emission state whose function parameters are `reserved` names, and
/// returns what it emitted. Panics if called while another emission runs on this thread.
pub(crate) fn emit<R>(reserved: &[&str], f: impl FnOnce() -> R) -> Emitted<R> {
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        assert!(
            s.is_none(),
            "ferrokkos: a kernel emission is already running on this thread"
        );
        let mut state = State::default();
        state.stack.push(Function {
            names: reserved.iter().map(|n| n.to_string()).collect(),
            ..Function::default()
        });
        *s = Some(state);
    });
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            STATE.with(|s| s.borrow_mut().take());
        }
    }
    let reset = Reset;
    let value = f();
    let state = STATE
        .with(|s| s.borrow_mut().take())
        .expect("emission state present");
    drop(reset);
    let mut stack = state.stack;
    Emitted {
        body: stack.pop().map(|f| f.lines).unwrap_or_default(),
        functions: state.functions,
        types: state.types,
        value,
        recursion: state.recursion,
    }
}

fn with<R>(f: impl FnOnce(&mut State) -> R) -> R {
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        let state = s
            .as_mut()
            .expect("ferrokkos: kernel shadow code ran outside an emission (it is generated code)");
        f(state)
    })
}

fn current(state: &mut State) -> &mut Function {
    state.stack.last_mut().expect("a function is being emitted")
}

/// Stores an expression node; returns its id.
pub(crate) fn node(text: String, prec: u8) -> u32 {
    with(|s| {
        s.nodes.push(Node { text, prec });
        (s.nodes.len() - 1) as u32
    })
}

/// The text of node `id`, parenthesized if its operator binds looser than `max_prec` allows.
pub(crate) fn operand(id: u32, max_prec: u8) -> String {
    with(|s| {
        let n = &s.nodes[id as usize];
        if n.prec > max_prec {
            format!("({})", n.text)
        } else {
            n.text.clone()
        }
    })
}

/// The full text of node `id` (for a statement or an initializer).
pub(crate) fn text(id: u32) -> String {
    operand(id, u8::MAX)
}

/// Appends a statement line at the current depth.
pub(crate) fn line(text: impl Into<String>) {
    with(|s| {
        let f = current(s);
        f.lines.push(Line::Code(f.depth, text.into()));
    })
}

/// Records that the following statements come from Rust line `line` of `file`.
pub(crate) fn source(line: u32, file: &'static str) {
    with(|s| current(s).lines.push(Line::Source(line, file)))
}

/// Changes the indentation depth by `delta` (after `{`, before `}`).
pub(crate) fn indent(delta: isize) {
    with(|s| {
        let f = current(s);
        f.depth = f.depth.saturating_add_signed(delta);
    })
}

/// Runs `f`, collecting the lines it emits (depths relative to now) instead of appending them.
pub(crate) fn capture<R>(f: impl FnOnce() -> R) -> (Vec<Line>, R) {
    let (saved, depth) = with(|s| {
        let cur = current(s);
        (
            std::mem::take(&mut cur.lines),
            std::mem::replace(&mut cur.depth, 0),
        )
    });
    let value = f();
    let lines = with(|s| {
        let cur = current(s);
        cur.depth = depth;
        std::mem::replace(&mut cur.lines, saved)
    });
    (lines, value)
}

/// Notes `id` as the receiver of the `#[device]` method call being evaluated.
pub(crate) fn push_receiver(id: u32) {
    with(|s| s.receivers.push(id));
}

/// The receiver of the `#[device]` method being called (the innermost one noted).
pub(crate) fn pop_receiver() -> Option<u32> {
    with(|s| s.receivers.pop())
}

/// Marks the next loop of the current function as labelled `label` (a Rust label without `'`).
pub(crate) fn set_pending_label(label: &str) {
    with(|s| current(s).pending_label = Some(label.to_string()));
}

/// The label set for the loop being emitted, if any (taken: the loop's body does not see it).
pub(crate) fn take_pending_label() -> Option<String> {
    with(|s| current(s).pending_label.take())
}

/// Enters the body of the loop labelled `label`, whose C++ targets are `brk` and `cont`.
pub(crate) fn push_label(label: String, brk: String, cont: String) {
    with(|s| current(s).labels.push((label, brk, cont)));
}

/// Leaves the innermost labelled loop's body.
pub(crate) fn pop_label() {
    with(|s| current(s).labels.pop());
}

/// The C++ break and continue targets of the innermost enclosing loop labelled `label`.
pub(crate) fn label_targets(label: &str) -> Option<(String, String)> {
    with(|s| {
        current(s)
            .labels
            .iter()
            .rev()
            .find(|(l, _, _)| l == label)
            .map(|(_, b, c)| (b.clone(), c.clone()))
    })
}

/// Whether any of `lines` is exactly `text`.
pub(crate) fn mentions(lines: &[Line], text: &str) -> bool {
    lines
        .iter()
        .any(|l| matches!(l, Line::Code(_, t) if t == text))
}

/// Appends captured lines at the current depth.
pub(crate) fn splice(lines: Vec<Line>) {
    with(|s| {
        let f = current(s);
        let base = f.depth;
        f.lines.extend(lines.into_iter().map(|l| match l {
            Line::Code(d, t) => Line::Code(base + d, t),
            src => src,
        }));
    })
}

/// Whether captured lines hold any statement (source markers alone do not count).
pub(crate) fn has_code(lines: &[Line]) -> bool {
    lines.iter().any(|l| matches!(l, Line::Code(..)))
}

/// C++ keywords and names of the generated code that a Rust identifier could collide with.
const RESERVED: &[&str] = &[
    "alignas",
    "alignof",
    "and",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "bool",
    "case",
    "catch",
    "char",
    "class",
    "compl",
    "concept",
    "const",
    "constexpr",
    "const_cast",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "explicit",
    "export",
    "extern",
    "float",
    "friend",
    "goto",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "nullptr",
    "operator",
    "or",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "xor",
    "i8",
    "i16",
    "i32",
    "i64",
    "isize",
    "u8",
    "u16",
    "u32",
    "u64",
    "usize",
    "f32",
    "f64",
    "c32",
    "c64",
    "fk",
    "main",
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
    "warpSize",
];

/// A C++ name for the Rust binding `base`, unique in the current function (Rust may shadow a name;
/// C++ may not redeclare it), never a C++ keyword.
pub(crate) fn fresh_name(base: &str) -> String {
    fresh(base, true)
}

/// A C++ name for a temporary of the generated code (`fk_cond`), unique in the current function.
pub(crate) fn fresh_temp(base: &str) -> String {
    fresh(base, false)
}

/// `name` as a C++ identifier: letters, digits and `_` kept, anything else (which a Rust identifier
/// does not have, except non-ASCII letters) replaced by `_`, never starting with a digit, never
/// empty. Every name from outside the emitter goes through this, so no text reaches the generated
/// code except as an identifier.
pub(crate) fn identifier(name: &str) -> String {
    let name = name.trim_start_matches("r#");
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out == "_" {
        out = "tmp".to_string();
    } else if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert_str(0, "v_");
    }
    out
}

/// `text` made safe inside a C++ string literal or a line comment (for file names).
pub(crate) fn escape_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if c.is_control() => out.push('?'),
            c => out.push(c),
        }
    }
    out
}

fn fresh(base: &str, user: bool) -> String {
    with(|s| {
        let base = identifier(base);
        let base = base.as_str();
        // `fk_` names belong to the generated code: a user's `fk_x` becomes `fk_x_`.
        let mut candidate = if RESERVED.contains(&base) || (user && base.starts_with("fk_")) {
            format!("{base}_")
        } else {
            base.to_string()
        };
        let mut k = 1;
        let types = &s.type_names;
        let f = s.stack.last_mut().expect("a function is being emitted");
        while f.names.contains(&candidate) || types.values().any(|t| *t == candidate) {
            candidate = format!("{base}_{k}");
            k += 1;
        }
        f.names.insert(candidate.clone());
        candidate
    })
}

/// Whether `name` is a C++ keyword or a name of the device header or of CUDA.
pub(crate) fn is_reserved(name: &str) -> bool {
    RESERVED.contains(&name)
}

/// Defines a user type once per emission: `key` identifies it, `name` is its Rust name; `define`
/// gets the C++ name and returns the definition (naming its field types first, which defines them
/// before it). Returns the C++ name, which no keyword, header name, device function or other type
/// of the emission has. Outside an emission, returns the name without defining anything.
pub(crate) fn device_type(
    key: std::any::TypeId,
    name: &str,
    define: impl FnOnce(&str) -> String,
) -> String {
    let active = STATE.with(|s| s.borrow().is_some());
    let base = identifier(name);
    if !active {
        return base;
    }
    if let Some(cxx) = with(|s| s.type_names.get(&key).cloned()) {
        return cxx;
    }
    let cxx = with(|s| {
        let taken = |c: &str| {
            RESERVED.contains(&c)
                || c.starts_with("fk_")
                || s.used_function_names.contains(c)
                || s.type_names.values().any(|t| t == c)
        };
        let mut candidate = base.clone();
        let mut k = 1;
        while taken(&candidate) {
            candidate = format!("{base}_{k}");
            k += 1;
        }
        s.type_names.insert(key, candidate.clone());
        candidate
    });
    let text = define(&cxx);
    with(|s| s.types.push(text));
    cxx
}

/// Defines a device function once per emission: `key` identifies it (its marker type and parameter
/// types), `name` is its
/// Rust name. If it is not yet defined, `define` runs in a new function context and returns the
/// definition's signature line (given the C++ name); its body lines follow it. Returns the C++ name.
pub(crate) fn device_function(
    key: (std::any::TypeId, std::any::TypeId),
    name: &str,
    reserved: &[&str],
    define: impl FnOnce(&str) -> String,
) -> String {
    if let Some(cxx) = with(|s| {
        let cxx = s.device_names.get(&key).cloned()?;
        // Called while its own definition is being emitted: a cycle in the call graph.
        if let Some(at) = s.defining.iter().position(|(k, _)| *k == key)
            && s.recursion.is_none()
        {
            let mut cycle: Vec<&str> = s.defining[at..].iter().map(|(_, n)| n.as_str()).collect();
            cycle.push(name);
            s.recursion = Some(cycle.join(" -> "));
        }
        Some(cxx)
    }) {
        return cxx;
    }
    let rust_name = name.to_string();
    let name = identifier(name);
    let cxx = with(|s| {
        let mut candidate = format!("{name}_fn");
        let mut k = 1;
        while s.used_function_names.contains(&candidate)
            || s.type_names.values().any(|t| *t == candidate)
        {
            candidate = format!("{name}_fn{k}");
            k += 1;
        }
        s.used_function_names.insert(candidate.clone());
        s.device_names.insert(key, candidate.clone());
        s.stack.push(Function {
            names: reserved.iter().map(|n| n.to_string()).collect(),
            depth: 1,
            ..Function::default()
        });
        s.defining.push((key, rust_name));
        candidate
    });
    let signature = define(&cxx);
    with(|s| {
        s.defining.pop();
        let f = s.stack.pop().expect("device function context");
        let mut text = format!("{signature} {{\n");
        text.push_str(&render(&f.lines, 0));
        text.push_str("}\n");
        s.functions.push(text);
    });
    cxx
}

/// Renders lines as C++ text, four spaces per depth plus `base`, keeping only the `#line` directives
/// that change the mapping (after `#line N`, the next line is N, the one after N + 1, ...).
pub(crate) fn render(lines: &[Line], base: usize) -> String {
    let mut out = String::new();
    let mut expected: Option<(u32, &str)> = None;
    let mut pending: Option<(u32, &str)> = None;
    for l in lines {
        match l {
            Line::Source(n, file) => pending = Some((*n, file)),
            Line::Code(depth, text) => {
                if let Some((n, file)) = pending.take()
                    && expected != Some((n, file))
                {
                    out.push_str(&format!("#line {n} \"{}\"\n", escape_text(file)));
                    expected = Some((n, file));
                }
                for _ in 0..base + depth {
                    out.push_str("    ");
                }
                out.push_str(text);
                out.push('\n');
                if let Some((n, _)) = &mut expected {
                    *n += 1;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::Expr;
    use crate::kernel::shadow::{self, lit};

    #[test]
    fn outside_names_become_identifiers() {
        assert_eq!(identifier("x"), "x");
        assert_eq!(identifier("r#match"), "match");
        assert_eq!(identifier("a = 1; int b"), "a___1__int_b");
        assert_eq!(
            identifier("0) { *(int*)0 = 1; } (0"),
            "v_0______int__0___1_____0"
        );
        assert_eq!(identifier(""), "tmp");
        assert_eq!(identifier("_"), "tmp");
        assert_eq!(identifier("é"), "tmp");
    }

    #[test]
    fn file_names_cannot_end_a_string_or_a_line() {
        assert_eq!(escape_text(r#"src/a"b\c.rs"#), r#"src/a\"b\\c.rs"#);
        assert_eq!(escape_text("x\n#define y"), "x?#define y");
    }

    #[test]
    fn the_typed_vocabulary_writes_no_outside_text() {
        let out = emit(&[], || {
            // A name that tries to be code, a keyword, an internal name, a file name that tries to
            // end its directive.
            let a = shadow::let_("x = 1; *(int*)0 = 2; int y", false, lit(1.0f64));
            let b = shadow::let_("fk_count", true, lit(2i32));
            shadow::source(7, "evil.rs\"\n__global__ void k() {}\n//");
            shadow::stmt(shadow::add(a, shadow::like(&a, lit(0.5))));
            shadow::assign::<i32>(b, lit(3));
            let c: Expr<u64> = shadow::let_uninit("int");
            shadow::assign(c, lit(4u64));
        });
        let text = render(&out.body, 0);
        assert!(
            text.contains("const f64 x___1____int__0___2__int_y = 1.0;"),
            "{text}"
        );
        assert!(text.contains("i32 fk_count_ = 2;"), "{text}");
        assert!(text.contains("u64 int_;"), "{text}");
        assert!(
            text.contains(r#"#line 7 "evil.rs\"?__global__ void k() {}?//""#),
            "{text}"
        );
        assert!(!text.contains("*(int*)"), "{text}");
    }
}
