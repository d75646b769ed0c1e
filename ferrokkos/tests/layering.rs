//! The crate's layering, checked: every `use crate::...` (and every other `crate::` path) in
//! `src/` names a module of a lower layer than the file's own, as the layer table in
//! `docs/architecture.md` lists them. Test code (`#[cfg(test)]` and `#[cfg(all(test, ...))]`
//! items) may use anything; paths inside macro bodies are not seen.
//!
//! And inside each backend folder, the files' imports form no circle: a file may use its
//! descendants (a folder's `mod.rs` declares and re-exports them) and files it does not reach back
//! from, so each folder reads bottom-up.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// The layer table: module -> layer number, read from docs/architecture.md (the rows after the
/// `| layer | modules |` header, each module in backticks).
fn layers() -> BTreeMap<String, usize> {
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/architecture.md");
    let text = std::fs::read_to_string(&doc).expect("docs/architecture.md is readable");
    let mut rows = text
        .lines()
        .skip_while(|l| !l.starts_with("| layer | modules |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'));
    let mut map = BTreeMap::new();
    for row in rows.by_ref() {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let layer: usize = cells[1].parse().expect("a layer number");
        for module in cells[2].split('`').skip(1).step_by(2) {
            assert!(
                map.insert(module.to_string(), layer).is_none(),
                "{module} is listed twice in the layer table"
            );
        }
    }
    assert!(
        map.len() > 5,
        "the layer table in {} was not found",
        doc.display()
    );
    map
}

/// The module a file belongs to, as the table names modules: `backend::host`, `backend::cuda`,
/// `backend::hip` and `backend::gpu` for the backends' folders, else the first path component
/// (`lib` for the crate root).
fn module_of(file: &Path, src: &Path) -> (String, Vec<String>) {
    let rel = file.strip_prefix(src).expect("under src");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs").to_string();
    if stem != "mod" && stem != "lib" {
        parts.push(stem);
    }
    (table_key(&parts), parts)
}

/// The table's name for the module at `path` (from the crate root).
fn table_key(path: &[String]) -> String {
    match path {
        [] => "lib".into(),
        [b, k, ..] if b == "backend" && matches!(k.as_str(), "host" | "cuda" | "hip" | "gpu") => {
            format!("backend::{k}")
        }
        [first, ..] => first.clone(),
    }
}

/// Collects the modules that `crate::` (and escaping `super::`) paths in one file name.
struct Imports<'a> {
    /// The module path of the code being visited (the file's, plus inline modules).
    here: Vec<String>,
    /// The crate's top-level modules (a `crate::Name` that is none of them names a root item).
    modules: &'a [String],
    found: Vec<(String, String)>,
    /// The same paths, absolute (from the crate root).
    absolute: Vec<Vec<String>>,
}

impl Imports<'_> {
    /// Records the path `segments` (already split) used in this file.
    fn record(&mut self, segments: &[String]) {
        let Some(first) = segments.first() else {
            return;
        };
        let absolute: Vec<String> = match first.as_str() {
            "crate" => segments[1..].to_vec(),
            "super" | "self" => {
                let mut base = self.here.clone();
                let mut rest = segments;
                while let Some(s) = rest.first() {
                    match s.as_str() {
                        "super" => {
                            base.pop();
                        }
                        "self" => {}
                        _ => break,
                    }
                    rest = &rest[1..];
                }
                base.extend(rest.iter().cloned());
                base
            }
            _ => return,
        };
        if segments.len() == 1 {
            // `pub(crate)`, `pub(super)`, a bare `self`: no item.
            return;
        }
        let key = match absolute.first() {
            Some(m) if self.modules.contains(m) => table_key(&absolute),
            _ => "lib".into(),
        };
        self.found.push((key, segments.join("::")));
        self.absolute.push(absolute);
    }
}

fn flatten(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            flatten(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let mut v = prefix.clone();
            if n.ident != "self" {
                v.push(n.ident.to_string());
            }
            out.push(v);
        }
        syn::UseTree::Rename(r) => {
            let mut v = prefix.clone();
            v.push(r.ident.to_string());
            out.push(v);
        }
        syn::UseTree::Glob(_) => out.push(prefix.clone()),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                flatten(t, prefix, out);
            }
        }
    }
}

/// Whether `attrs` hold `#[cfg(test)]`, or `#[cfg(all(test, ...))]` (test code of one feature).
fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>().is_ok_and(|m| match &m {
                syn::Meta::Path(p) => p.is_ident("test"),
                syn::Meta::List(list) if list.path.is_ident("all") => list
                    .parse_args_with(
                        syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
                    )
                    .is_ok_and(|all| all.iter().any(|c| c.path().is_ident("test"))),
                _ => false,
            })
    })
}

impl<'ast> Visit<'ast> for Imports<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs = match item {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Use(u) => &u.attrs,
            _ => return syn::visit::visit_item(self, item),
        };
        if is_test_only(attrs) {
            return;
        }
        syn::visit::visit_item(self, item);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if m.content.is_some() {
            self.here.push(m.ident.to_string());
            syn::visit::visit_item_mod(self, m);
            self.here.pop();
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let mut out = Vec::new();
        flatten(&u.tree, &mut Vec::new(), &mut out);
        for path in out {
            self.record(&path);
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.leading_colon.is_none() {
            let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
            self.record(&segments);
        }
        syn::visit::visit_path(self, p);
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_module_imports_from_a_layer_above_its_own() {
    let layers = layers();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: Vec<String> = files
        .iter()
        .filter_map(|f| module_of(f, &src).1.first().cloned())
        .collect();
    let parsed: Vec<(PathBuf, syn::File)> = files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).expect("a source file");
            let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            (f.clone(), ast)
        })
        .collect();
    // Files of modules declared `#[cfg(test)] mod x;` are test code.
    let mut test_only: Vec<Vec<String>> = Vec::new();
    for (file, ast) in &parsed {
        let (_, path) = module_of(file, &src);
        for item in &ast.items {
            if let syn::Item::Mod(m) = item
                && m.content.is_none()
                && is_test_only(&m.attrs)
            {
                let mut p = path.clone();
                p.push(m.ident.to_string());
                test_only.push(p);
            }
        }
    }
    let mut violations = Vec::new();
    for (file, ast) in &parsed {
        let (key, path) = module_of(file, &src);
        if test_only.iter().any(|t| path.starts_with(t)) {
            continue;
        }
        let Some(&own) = layers.get(&key) else {
            violations.push(format!(
                "{}: module `{key}` is not in the layer table",
                file.display()
            ));
            continue;
        };
        let mut imports = Imports {
            here: path,
            modules: &modules,
            found: Vec::new(),
            absolute: Vec::new(),
        };
        imports.visit_file(ast);
        for (target, written) in imports.found {
            if target == key {
                continue;
            }
            match layers.get(&target) {
                Some(&layer) if layer < own => {}
                Some(&layer) => violations.push(format!(
                    "{}: `{written}` ({target}, layer {layer}) from {key} (layer {own})",
                    file.strip_prefix(&src).unwrap_or(file).display()
                )),
                None => violations.push(format!(
                    "{}: `{written}` names `{target}`, which is not in the layer table",
                    file.strip_prefix(&src).unwrap_or(file).display()
                )),
            }
        }
    }
    assert!(
        violations.is_empty(),
        "imports against the layer table of docs/architecture.md:\n{}",
        violations.join("\n")
    );
}

/// The module paths (from the crate root) of `src`'s files, with their parsed text; files of
/// modules declared `#[cfg(test)] mod x;` (and below them) are left out.
fn parsed_files(src: &Path) -> Vec<(Vec<String>, PathBuf, syn::File)> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let parsed: Vec<(Vec<String>, PathBuf, syn::File)> = files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).expect("a source file");
            let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            (module_of(f, src).1, f.clone(), ast)
        })
        .collect();
    let mut test_only: Vec<Vec<String>> = Vec::new();
    for (path, _, ast) in &parsed {
        for item in &ast.items {
            if let syn::Item::Mod(m) = item
                && m.content.is_none()
                && is_test_only(&m.attrs)
            {
                let mut p = path.clone();
                p.push(m.ident.to_string());
                test_only.push(p);
            }
        }
    }
    parsed
        .into_iter()
        .filter(|(path, _, _)| !test_only.iter().any(|t| path.starts_with(t)))
        .collect()
}

/// The files (module paths) that take part in an import circle among `modules`, given each
/// module's imports as absolute paths: a path names the longest module that prefixes it; a
/// module's use of its own descendants is not an edge.
fn circles(edges: &BTreeMap<Vec<String>, Vec<Vec<String>>>) -> Vec<Vec<String>> {
    let modules: BTreeSet<&Vec<String>> = edges.keys().collect();
    let target = |path: &Vec<String>| -> Option<Vec<String>> {
        (1..=path.len())
            .rev()
            .map(|n| path[..n].to_vec())
            .find(|p| modules.contains(p))
    };
    let mut graph: BTreeMap<&Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (from, paths) in edges {
        let out = graph.entry(from).or_default();
        for p in paths {
            if let Some(to) = target(p)
                && to != *from
                && !to.starts_with(from)
            {
                out.insert(to);
            }
        }
    }
    // A module is in a circle when it reaches itself.
    let reaches = |start: &Vec<String>| -> bool {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<Vec<String>> = graph[start].iter().cloned().collect();
        while let Some(m) = stack.pop() {
            if m == *start {
                return true;
            }
            if seen.insert(m.clone())
                && let Some(next) = graph.get(&m)
            {
                stack.extend(next.iter().cloned());
            }
        }
        false
    };
    modules
        .iter()
        .filter(|m| reaches(m))
        .map(|m| (*m).clone())
        .collect()
}

/// `circles` with, for each module in one, the modules of the circles it imports.
fn circles_described(edges: &BTreeMap<Vec<String>, Vec<Vec<String>>>) -> Vec<String> {
    let found = circles(edges);
    found
        .iter()
        .map(|m| {
            let uses: BTreeSet<String> = edges[m]
                .iter()
                .filter_map(|p| {
                    found
                        .iter()
                        .filter(|c| *c != m && p.starts_with(c) && !c.starts_with(m))
                        .max_by_key(|c| c.len())
                        .map(|c| c.join("::"))
                })
                .collect();
            let uses: Vec<String> = uses.into_iter().collect();
            format!("{} -> {}", m.join("::"), uses.join(", "))
        })
        .collect()
}

#[test]
fn no_import_circle_inside_a_backend_folder() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let parsed = parsed_files(&src);
    let modules: Vec<String> = parsed
        .iter()
        .filter_map(|(p, _, _)| p.first().cloned())
        .collect();
    let mut found = Vec::new();
    for backend in ["host", "cuda", "hip", "gpu"] {
        let folder = vec!["backend".to_string(), backend.to_string()];
        let mut edges: BTreeMap<Vec<String>, Vec<Vec<String>>> = BTreeMap::new();
        for (path, _, ast) in &parsed {
            if !path.starts_with(&folder) {
                continue;
            }
            let mut imports = Imports {
                here: path.clone(),
                modules: &modules,
                found: Vec::new(),
                absolute: Vec::new(),
            };
            imports.visit_file(ast);
            let absolute = imports
                .absolute
                .into_iter()
                .filter(|p| p.starts_with(&folder))
                .collect();
            edges.insert(path.clone(), absolute);
        }
        found.extend(circles_described(&edges));
    }
    assert!(
        found.is_empty(),
        "these backend files import each other in a circle:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_circle_finder_sees_circles_and_allows_descendants() {
    let m = |s: &str| s.split("::").map(String::from).collect::<Vec<String>>();
    let mut edges = BTreeMap::new();
    edges.insert(m("b::a"), vec![m("b::a::x::Item"), m("b::c::Thing")]);
    edges.insert(m("b::a::x"), vec![m("b::c::Other")]);
    edges.insert(m("b::c"), vec![m("b::d::f")]);
    edges.insert(m("b::d"), vec![m("b::a::x::Item")]);
    assert_eq!(circles(&edges), vec![m("b::a::x"), m("b::c"), m("b::d")]);
    edges.insert(m("b::d"), vec![m("b::a::Item")]);
    assert_eq!(circles(&edges), vec![m("b::a"), m("b::c"), m("b::d")]);
}

#[test]
fn the_checker_sees_use_trees_and_paths_and_resolves_super() {
    let modules = vec![
        "view".to_string(),
        "space".to_string(),
        "backend".to_string(),
    ];
    let mut imports = Imports {
        here: vec!["space".into(), "memory".into()],
        modules: &modules,
        found: Vec::new(),
        absolute: Vec::new(),
    };
    let file: syn::File = syn::parse_quote! {
        use crate::{view::{View, Layout as L}, backend::cuda::Cuda};
        use super::super::view::Guard;
        fn f() -> crate::Result<()> { let _ = crate::backend::host::Serial::default_instance(); Ok(()) }
        #[cfg(test)]
        mod tests { use crate::backend::cuda::Cuda; }
    };
    imports.visit_file(&file);
    let targets: Vec<&str> = imports.found.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(
        targets,
        [
            "view",
            "view",
            "backend::cuda",
            "view",
            "lib",
            "backend::host"
        ]
    );
}
