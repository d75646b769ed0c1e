//! The messages of a kernel's errors name the paths the user wrote (`p.dt`), not the identifiers
//! the field-capture pre-pass made of them (`p_dt`).

use crate::{analyze, fields};

/// `text` with the pre-pass's identifiers replaced by the paths the user wrote.
pub(super) fn with_paths_text(text: &str, fields: &[fields::FieldCapture]) -> String {
    fields.iter().fold(text.to_string(), |t, f| {
        replace_word(&t, &f.name, &analyze::pretty(&f.path))
    })
}

/// `e` with each field capture's identifier in its messages replaced by the path it stands for.
pub(super) fn with_paths(e: &syn::Error, fields: &[fields::FieldCapture]) -> syn::Error {
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
