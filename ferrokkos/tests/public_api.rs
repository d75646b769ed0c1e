//! The curated public surface, pinned: the crate root holds the Kokkos concepts (the names below,
//! exactly), the seams' traits live in `ferrokkos::traits` and nowhere else, and no two public
//! types or traits of the root and its public modules share a name. Read from `src/lib.rs` and the modules
//! it re-exports, so a name added at the root, or a seam trait that creeps back to it, fails here
//! until this list is changed on purpose.

use std::collections::BTreeMap;
use std::path::Path;

/// The names at the crate root (items, re-exports, macros and public modules), sorted.
const ROOT: &[&str] = &[
    "ALL",
    "AUTO",
    "AtomicView",
    "Auto",
    "BAnd",
    "BOr",
    "BackendError",
    "BorrowKind",
    "BinOp1D",
    "BinOp3D",
    "BinSort",
    "Bitset",
    "ByValue",
    "Complex",
    "Cuda",
    "CudaDevice",
    "CudaHandles",
    "CudaHostPinnedSpace",
    "CudaSpace",
    "CudaUVMSpace",
    "Custom",
    "DefaultHostExecutionSpace",
    "DeviceJoin",
    "DeviceTarget",
    "DeviceType",
    "DeviceValue",
    "DualView",
    "DynRankView",
    "DynamicView",
    "Error",
    "ExecutionSpace",
    "Functor",
    "Graph",
    "GraphNode",
    "HOST_ALIGNMENT",
    "HostMut",
    "HostRef",
    "HostSpace",
    "InitSettings",
    "InsertResult",
    "Iterate",
    "JitStats",
    "Join",
    "LAnd",
    "LOr",
    "LayoutLeft",
    "LayoutRight",
    "LayoutStride",
    "MAX_RANK",
    "MAX_VECTOR_LENGTH",
    "MDRangePolicy",
    "Max",
    "MaxLoc",
    "MemoryOrder",
    "MemoryScope",
    "MemorySpace",
    "MemoryStats",
    "Min",
    "MinLoc",
    "MinMax",
    "MinMaxLoc",
    "MinMaxLocScalar",
    "MinMaxScalar",
    "OffsetView",
    "ParallelMut",
    "PerTeam",
    "PerThread",
    "Prepare",
    "PrepareReport",
    "Prod",
    "RandomPool",
    "RandomXorShift1024Pool",
    "RandomXorShift64Pool",
    "RangePolicy",
    "ReduceInto",
    "Reducer",
    "Result",
    "Runtime",
    "ScatterMax",
    "ScatterMin",
    "ScatterMode",
    "ScatterProd",
    "ScatterSum",
    "ScatterView",
    "Schedule",
    "ScratchRequest",
    "ScratchView",
    "Serial",
    "SharedHostPinnedSpace",
    "SharedSpace",
    "SpaceChoice",
    "SpaceTask",
    "Subview",
    "Sum",
    "TeamMember",
    "TeamPolicy",
    "TeamSize",
    "TeamThreadMDRange",
    "TeamThreadRange",
    "TeamVectorRange",
    "ThreadVectorRange",
    "Threads",
    "Timer",
    "UniqueToken",
    "UniqueTokenScope",
    "UnorderedMap",
    "ValLocScalar",
    "View",
    "ViewAlloc",
    "XorShift1024",
    "XorShift64",
    "abort",
    "codegen",
    "create_graph",
    "create_mirror",
    "create_mirror_in",
    "create_mirror_view",
    "create_mirror_view_and_copy",
    "create_mirror_view_in",
    "deep_copy",
    "deep_copy_async",
    "device",
    "device_id",
    "fence",
    "fill_random",
    "functor",
    "hiprtc",
    "host_vector_instructions",
    "initialize",
    "is_finalized",
    "is_initialized",
    "kernel",
    "nccl",
    "nvrtc",
    "parallel_for",
    "parallel_reduce",
    "parallel_scan",
    "parallel_scan_with",
    "partition_space",
    "partition_space_with_weights",
    "prelude",
    "profiling",
    "push_finalize_hook",
    "realloc",
    "realloc_without_initializing",
    "resize",
    "run_on",
    "settings",
    "single",
    "sort",
    "sort_by",
    "sort_by_key",
    "sort_by_key_with",
    "sort_with",
    "std_algorithms",
    "subview",
    "traits",
    "view_alloc",
    "when_all",
];

fn src() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn parse(rel: &str) -> syn::File {
    let path = src().join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{rel}: {e}"));
    syn::parse_file(&text).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Whether `item` is no part of the documented surface: `#[doc(hidden)]` (macro support) or
/// `#[cfg(doctest)]`.
fn hidden(item: &syn::Item) -> bool {
    let attrs = match item {
        syn::Item::Mod(m) => &m.attrs,
        syn::Item::Struct(s) => &s.attrs,
        syn::Item::Use(u) => &u.attrs,
        _ => return false,
    };
    attrs.iter().any(|a| {
        (a.path().is_ident("doc") || a.path().is_ident("cfg"))
            && a.meta.require_list().is_ok_and(|l| {
                let t = l.tokens.to_string();
                t == "hidden" || t == "doctest"
            })
    })
}

fn is_pub(vis: &syn::Visibility) -> bool {
    matches!(vis, syn::Visibility::Public(_))
}

/// The names a `use` tree brings in (the last segment, or the rename).
fn use_names(tree: &syn::UseTree, out: &mut Vec<String>) {
    match tree {
        syn::UseTree::Path(p) => use_names(&p.tree, out),
        syn::UseTree::Name(n) => out.push(n.ident.to_string()),
        syn::UseTree::Rename(r) => out.push(r.rename.to_string()),
        syn::UseTree::Glob(_) => out.push("*".into()),
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| use_names(t, out)),
    }
}

/// The public names of `items` (public `use`s, items and modules), with each inline public
/// module's own names under its name.
fn public_names(items: &[syn::Item], out: &mut BTreeMap<String, Vec<String>>, module: &str) {
    for item in items {
        if hidden(item) {
            continue;
        }
        let mut names = Vec::new();
        match item {
            syn::Item::Use(u) if is_pub(&u.vis) => use_names(&u.tree, &mut names),
            syn::Item::Mod(m) if is_pub(&m.vis) => {
                names.push(m.ident.to_string());
                if let Some((_, inner)) = &m.content {
                    public_names(inner, out, &m.ident.to_string());
                }
            }
            syn::Item::Struct(s) if is_pub(&s.vis) => names.push(s.ident.to_string()),
            syn::Item::Enum(e) if is_pub(&e.vis) => names.push(e.ident.to_string()),
            syn::Item::Trait(t) if is_pub(&t.vis) => names.push(t.ident.to_string()),
            syn::Item::Fn(f) if is_pub(&f.vis) => names.push(f.sig.ident.to_string()),
            syn::Item::Const(c) if is_pub(&c.vis) => names.push(c.ident.to_string()),
            syn::Item::Type(t) if is_pub(&t.vis) => names.push(t.ident.to_string()),
            _ => {}
        }
        out.entry(module.to_string()).or_default().extend(names);
    }
}

/// The public names of the root and of every public module it defines inline.
fn lib_names() -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    public_names(&parse("lib.rs").items, &mut out, "");
    for names in out.values_mut() {
        names.sort();
    }
    out
}

#[test]
fn the_crate_root_holds_exactly_the_curated_names() {
    let names = lib_names();
    let mut root = names[""].clone();
    root.dedup();
    let expected: Vec<String> = ROOT.iter().map(|s| s.to_string()).collect();
    let added: Vec<&String> = root.iter().filter(|n| !expected.contains(n)).collect();
    let removed: Vec<&String> = expected.iter().filter(|n| !root.contains(n)).collect();
    assert!(
        added.is_empty() && removed.is_empty(),
        "the crate root changed: added {added:?}, removed {removed:?} (a seam trait belongs in \
         `traits`; a new concept belongs in this test's list)"
    );
    assert_eq!(root.len(), 159);
}

#[test]
fn the_seam_traits_are_in_traits_and_not_at_the_root() {
    let names = lib_names();
    let traits = &names["traits"];
    for seam in [
        "Launch",
        "LaunchRange",
        "LaunchMDRange",
        "LaunchTeam",
        "ParallelFor",
        "ParallelReduce",
        "ParallelScan",
        "Reach",
        "ReachesSpace",
        "SpaceKind",
        "ForKernel",
        "ForFunctor",
        "Element",
        "Layout",
        "GraphSpace",
        "ReduceTarget",
    ] {
        assert!(traits.iter().any(|n| n == seam), "{seam} is not in traits");
        assert!(
            !names[""].iter().any(|n| n == seam),
            "{seam} is at the root"
        );
    }
    assert_eq!(traits.len(), 61);
}

#[test]
fn no_two_public_types_or_traits_share_a_name() {
    let mut modules = lib_names();
    modules.remove("prelude"); // re-exports of root and `traits` names, for `use prelude::*`
    let mut kernel = BTreeMap::new();
    public_names(&parse("kernel/mod.rs").items, &mut kernel, "kernel");
    modules.extend(kernel);
    for (module, file) in [
        ("nvrtc", "backend/cuda/nvrtc.rs"),
        ("hiprtc", "backend/hip/hiprtc.rs"),
    ] {
        let mut m = BTreeMap::new();
        public_names(&parse(file).items, &mut m, module);
        modules.extend(m);
    }
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    let mut shared = Vec::new();
    for (module, names) in &modules {
        for name in names {
            // Types, traits and constants only: the compilers' modules have functions of one name
            // (`nvrtc::version`, `hiprtc::version`), which are always written with their module.
            // A derive macro beside its trait of one name counts once.
            if !name.starts_with(|c: char| c.is_ascii_uppercase()) {
                continue;
            }
            if name == "*"
                || modules.contains_key(name)
                || name == "DeviceValue" && module.is_empty()
            {
                continue;
            }
            if let Some(first) = seen.insert(name.clone(), module.clone()) {
                shared.push(format!("{name}: `{first}` and `{module}`"));
            }
        }
    }
    assert!(
        shared.is_empty(),
        "names shared by two public paths: {shared:?}"
    );
    assert!(seen.contains_key("DeviceScalar") && seen.contains_key("TranslationUnit"));
    assert_eq!(seen["TranslationUnit"], "codegen");
}
