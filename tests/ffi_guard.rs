//! Source scan of the C ABI (src/ffi): every exported function
//!
//! - carries `#[no_mangle]` (or `#[unsafe(no_mangle)]`) and a name that starts with `atomgpu_`;
//! - runs its whole body inside the panic guard: the body's first statement is a call of
//!   `guard(`, `guard_here(` or `guard_value(` (src/ffi/common.rs), so that no panic crosses the boundary;
//! - has only fixed-width types in its signature: no `c_int`, `c_long`, ... nor bare
//!   `isize`/`usize` (a `usize` buffer length is allowed in `atomgpu_last_error_message` alone,
//!   where it is C's `size_t`).
//!
//! It also checks that each guard's argument-name list (the first argument of `guard(` or
//! `guard_here(`: a literal `&["a", "b", ...]` or a `const` of the same file) is the function's
//! parameter names in order, so that `atomgpu_last_error_arg()` reports the position the C
//! signature has. The one exception is `guard_value(`, which takes no list: it serves the
//! infallible functions, which have no argument error to report.
//!
//! It also checks that nothing outside src/ffi is exported (`#[no_mangle]`), so that the C ABI
//! is all in one place, and that no module outside src/ffi imports src/ffi (the dependency runs
//! one way: ffi -> error, backend, families; never back). The failure message lists every
//! offender. The other floors of src/ (shared modules below the families, no family importing
//! another) and the absence of import circles are checked by tests/module_graph.rs.

#[path = "support/source_tree.rs"]
mod source_tree;

use source_tree::{rust_files, source_root};
use std::path::Path;
use syn::{Attribute, Expr, FnArg, Item, ReturnType, Stmt, Type};

/// C types whose width depends on the platform (DESIGN.md: fixed-width types only).
const FORBIDDEN_TYPES: &[&str] = &[
    "c_int",
    "c_uint",
    "c_long",
    "c_ulong",
    "c_longlong",
    "c_ulonglong",
    "c_short",
    "c_ushort",
    "isize",
    "usize",
    "c_size_t",
    "c_ssize_t",
    "size_t",
    "ssize_t",
    "ptrdiff_t",
    "intptr_t",
    "uintptr_t",
];

/// Spellings of C's `size_t` in Rust.
const SIZE_T: &[&str] = &["usize", "size_t", "c_size_t"];

/// Functions allowed a `usize` (C `size_t`) argument: a buffer capacity.
const SIZE_T_ALLOWED: &[&str] = &["atomgpu_last_error_message"];

const GUARDS: &[&str] = &["guard", "guard_here", "guard_value"];

fn has_no_mangle(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| {
        let path = a.path();
        if path.is_ident("no_mangle") {
            return true;
        }
        // #[unsafe(no_mangle)] (edition 2024 spelling)
        if path.is_ident("unsafe") {
            if let syn::Meta::List(list) = &a.meta {
                return list.tokens.to_string().trim() == "no_mangle";
            }
        }
        false
    })
}

fn has_export_name(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("export_name")
            || matches!(&a.meta, syn::Meta::List(l) if l.path.is_ident("unsafe")
                && l.tokens.to_string().contains("export_name"))
    })
}

fn is_extern_c(sig: &syn::Signature) -> bool {
    match &sig.abi {
        Some(abi) => abi.name.as_ref().map(|n| n.value() == "C" || n.value() == "C-unwind").unwrap_or(true),
        None => false,
    }
}

/// The name of the function called by `expr`, if it is a plain call (`guard(...)`,
/// `common::guard(...)`, `return guard(...)`).
fn called_function(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Call(call) => match &*call.func {
            Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        },
        Expr::Return(r) => r.expr.as_deref().and_then(called_function),
        Expr::Paren(p) => called_function(&p.expr),
        _ => None,
    }
}

fn first_statement_is_guard(block: &syn::Block) -> bool {
    match block.stmts.first() {
        Some(Stmt::Expr(expr, _)) => called_function(expr).is_some_and(|name| GUARDS.contains(&name.as_str())),
        _ => false,
    }
}

/// Names of forbidden types anywhere inside `ty` (through pointers, references, arrays,
/// generic arguments and function-pointer types).
fn forbidden_in(ty: &Type, found: &mut Vec<String>) {
    match ty {
        Type::Ptr(p) => forbidden_in(&p.elem, found),
        Type::Reference(r) => forbidden_in(&r.elem, found),
        Type::Array(a) => forbidden_in(&a.elem, found),
        Type::Slice(s) => forbidden_in(&s.elem, found),
        Type::Paren(p) => forbidden_in(&p.elem, found),
        Type::Group(g) => forbidden_in(&g.elem, found),
        Type::Tuple(t) => t.elems.iter().for_each(|e| forbidden_in(e, found)),
        Type::BareFn(f) => {
            f.inputs.iter().for_each(|a| forbidden_in(&a.ty, found));
            if let ReturnType::Type(_, t) = &f.output {
                forbidden_in(t, found);
            }
        }
        Type::Path(p) => {
            for seg in &p.path.segments {
                let name = seg.ident.to_string();
                if FORBIDDEN_TYPES.contains(&name.as_str()) {
                    found.push(name);
                }
                if let syn::PathArguments::AngleBracketed(args) = &seg.arguments {
                    for arg in &args.args {
                        if let syn::GenericArgument::Type(t) = arg {
                            forbidden_in(t, found);
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

/// Problems of one exported (or meant-to-be-exported) function.
fn check_function(item: &syn::ItemFn) -> Vec<String> {
    let name = item.sig.ident.to_string();
    let mut problems = Vec::new();
    if !has_no_mangle(&item.attrs) {
        problems.push("lacks #[no_mangle]".to_string());
    }
    if has_export_name(&item.attrs) {
        problems.push("uses #[export_name] (use #[no_mangle] and the real name)".to_string());
    }
    if !name.starts_with("atomgpu_") {
        problems.push("name does not start with atomgpu_".to_string());
    }
    if !is_extern_c(&item.sig) {
        problems.push("is not extern \"C\"".to_string());
    }
    if !matches!(item.vis, syn::Visibility::Public(_)) {
        problems.push("is not pub".to_string());
    }
    if !first_statement_is_guard(&item.block) {
        problems.push("body does not start with a call of guard(, guard_here( or guard_value(".to_string());
    }
    let mut bad_types = Vec::new();
    for input in &item.sig.inputs {
        if let FnArg::Typed(arg) = input {
            let mut found = Vec::new();
            forbidden_in(&arg.ty, &mut found);
            // `capacity: usize` (by value, not behind a pointer) is C's size_t.
            let plain_size_t = matches!(&*arg.ty, Type::Path(p)
                if p.path.segments.last().is_some_and(|s| SIZE_T.contains(&s.ident.to_string().as_str())));
            if SIZE_T_ALLOWED.contains(&name.as_str()) && plain_size_t {
                found.clear();
            }
            let pat = match &*arg.pat {
                syn::Pat::Ident(i) => i.ident.to_string(),
                _ => "_".to_string(),
            };
            bad_types.extend(found.into_iter().map(|t| format!("`{t}` in argument `{pat}`")));
        }
    }
    if let ReturnType::Type(_, t) = &item.sig.output {
        let mut found = Vec::new();
        forbidden_in(t, &mut found);
        bad_types.extend(found.into_iter().map(|t| format!("`{t}` in the return type")));
    }
    if !bad_types.is_empty() {
        problems.push(format!(
            "uses platform-dependent types ({}): use i32/i64/f64 and pointers to them",
            bad_types.join(", ")
        ));
    }
    problems
}

/// Every function item of a file, with nested inline modules.
fn functions<'a>(items: &'a [Item], out: &mut Vec<&'a syn::ItemFn>) {
    for item in items {
        match item {
            Item::Fn(f) => out.push(f),
            Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    functions(inner, out);
                }
            }
            _ => {}
        }
    }
}

fn parse(path: &Path) -> syn::File {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    syn::parse_file(&text).unwrap_or_else(|e| panic!("cannot parse {}: {e}", path.display()))
}

/// The Rust files of src/ffi, sorted, each with its path relative to `root`, parsed.
fn ffi_files(root: &Path) -> Vec<(String, syn::File)> {
    let mut files = Vec::new();
    rust_files(&root.join("src").join("ffi"), &mut files);
    files.sort();
    assert!(!files.is_empty(), "no Rust files under src/ffi");
    files.iter().map(|path| (path.strip_prefix(root).unwrap_or(path).display().to_string(), parse(path))).collect()
}

#[test]
fn every_entry_point_is_exported_prefixed_guarded_and_fixed_width() {
    let Some(root) = source_root() else {
        println!("skipped: source tree (src/ffi) not found");
        return;
    };
    let files = ffi_files(&root);
    let mut offenders = Vec::new();
    let mut checked = 0;
    for (rel, file) in &files {
        let mut fns = Vec::new();
        functions(&file.items, &mut fns);
        for f in fns {
            let exported = is_extern_c(&f.sig) && matches!(f.vis, syn::Visibility::Public(_));
            if !(exported || has_no_mangle(&f.attrs) || has_export_name(&f.attrs)) {
                continue;
            }
            checked += 1;
            for problem in check_function(f) {
                offenders.push(format!("{rel}: {}: {problem}", f.sig.ident));
            }
        }
    }
    assert!(checked > 0, "no exported functions found under src/ffi");
    assert!(
        offenders.is_empty(),
        "{} problem(s) in the C entry points of src/ffi:\n  {}",
        offenders.len(),
        offenders.join("\n  ")
    );
    println!("checked {checked} entry points in {} files", files.len());
}

/// The string literals of `&["a", "b"]` (or `["a", "b"]`); `None` when the expression is not
/// such a list.
fn string_list(expr: &Expr) -> Option<Vec<String>> {
    match expr {
        Expr::Reference(r) => string_list(&r.expr),
        Expr::Paren(p) => string_list(&p.expr),
        Expr::Array(a) => a
            .elems
            .iter()
            .map(|e| match e {
                Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// The `const NAME: &[&str] = &[...]` lists of a file (and its inline modules), by name.
fn const_lists(items: &[Item], out: &mut std::collections::HashMap<String, Vec<String>>) {
    for item in items {
        match item {
            Item::Const(c) => {
                if let Some(list) = string_list(&c.expr) {
                    out.insert(c.ident.to_string(), list);
                }
            }
            Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    const_lists(inner, out);
                }
            }
            _ => {}
        }
    }
}

/// What a function's guard says its arguments are: `Ok(Some(names))` for `guard(` or
/// `guard_here(` with a list (literal or a const of the file), `Ok(None)` for `guard_value(`
/// (no list), `Err(why)` when the list cannot be read.
fn guard_names(
    block: &syn::Block,
    consts: &std::collections::HashMap<String, Vec<String>>,
) -> Result<Option<Vec<String>>, String> {
    let Some(Stmt::Expr(mut expr, _)) = block.stmts.first().cloned() else {
        return Err("the body does not start with a guard call".into());
    };
    while let Expr::Return(syn::ExprReturn { expr: Some(inner), .. })
    | Expr::Paren(syn::ExprParen { expr: inner, .. }) = expr
    {
        expr = *inner;
    }
    let Expr::Call(call) = expr else { return Err("the body does not start with a guard call".into()) };
    let Expr::Path(f) = &*call.func else { return Err("the guard is not called by name".into()) };
    let name = f.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
    if name == "guard_value" {
        return Ok(None);
    }
    let first = call.args.first().ok_or("the guard has no argument list")?;
    if let Some(list) = string_list(first) {
        return Ok(Some(list));
    }
    let mut target = first;
    if let Expr::Reference(r) = target {
        target = &r.expr;
    }
    match target {
        Expr::Path(p) => {
            let ident = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
            consts
                .get(&ident)
                .cloned()
                .map(Some)
                .ok_or_else(|| format!("the argument list `{ident}` is not a `const` string list of this file"))
        }
        _ => Err("the argument list is neither `&[\"...\"]` nor a `const` of this file".into()),
    }
}

/// The parameter names of a signature, in order (`_` for a pattern that is not a plain name).
fn parameter_names(sig: &syn::Signature) -> Vec<String> {
    sig.inputs
        .iter()
        .map(|input| match input {
            FnArg::Typed(arg) => match &*arg.pat {
                syn::Pat::Ident(i) => i.ident.to_string(),
                _ => "_".to_string(),
            },
            FnArg::Receiver(_) => "self".to_string(),
        })
        .collect()
}

#[test]
fn every_guard_names_the_arguments_of_its_signature_in_order() {
    let Some(root) = source_root() else {
        println!("skipped: source tree (src/ffi) not found");
        return;
    };
    let mut offenders = Vec::new();
    let mut checked = 0;
    for (rel, file) in &ffi_files(&root) {
        let mut consts = std::collections::HashMap::new();
        const_lists(&file.items, &mut consts);
        let mut fns = Vec::new();
        functions(&file.items, &mut fns);
        for f in fns {
            if !(is_extern_c(&f.sig) && has_no_mangle(&f.attrs)) {
                continue;
            }
            checked += 1;
            let params = parameter_names(&f.sig);
            match guard_names(&f.block, &consts) {
                Err(why) => offenders.push(format!("{rel}: {}: {why}", f.sig.ident)),
                Ok(None) => {}
                Ok(Some(names)) if names == params => {}
                Ok(Some(names)) => {
                    let first =
                        names.iter().zip(&params).position(|(a, b)| a != b).unwrap_or(names.len().min(params.len()));
                    offenders.push(format!(
                        "{rel}: {}: the guard lists [{}], the signature has ({}): first difference at position {}",
                        f.sig.ident,
                        names.join(", "),
                        params.join(", "),
                        first + 1
                    ));
                }
            }
        }
    }
    assert!(checked > 80, "only {checked} exported functions found under src/ffi: the scan is broken");
    assert!(
        offenders.is_empty(),
        "{} guard argument list(s) differ from their signatures (atomgpu_last_error_arg() would report \
         wrong positions):\n  {}",
        offenders.len(),
        offenders.join("\n  ")
    );
    println!("checked the guard lists of {checked} entry points");
}

/// The comparison itself, on a guard that lists its arguments right, one that swaps two, a const
/// list, and `guard_value`.
#[test]
fn the_guard_list_reader_reads_literals_consts_and_guard_value() {
    let file: syn::File = syn::parse_str(
        r#"
        const ARGS: &[&str] = &["n", "out"];
        fn a(n: i64, out: *mut f64) -> i32 { guard(&["n", "out"], || Ok(())) }
        fn b(n: i64, out: *mut f64) -> i32 { guard(&["out", "n"], || Ok(())) }
        fn c(n: i64, out: *mut f64) -> i32 { guard(ARGS, || Ok(())) }
        fn d() -> i32 { guard_value(0, || 1) }
        fn e(x: i32) -> i32 { guard(UNKNOWN, || Ok(())) }
        "#,
    )
    .unwrap();
    let mut consts = std::collections::HashMap::new();
    const_lists(&file.items, &mut consts);
    let mut fns = Vec::new();
    functions(&file.items, &mut fns);
    let read: Vec<_> = fns.iter().map(|f| (parameter_names(&f.sig), guard_names(&f.block, &consts))).collect();
    let names = |v: &[&str]| Some(v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    assert_eq!(read[0].1, Ok(names(&["n", "out"])));
    assert_eq!(read[0].0, vec!["n", "out"]);
    assert_eq!(read[1].1, Ok(names(&["out", "n"])));
    assert_ne!(read[1].1, Ok(Some(read[1].0.clone())));
    assert_eq!(read[2].1, Ok(names(&["n", "out"])));
    assert_eq!(read[3].1, Ok(None));
    assert!(read[4].1.is_err());
}

#[test]
fn nothing_is_exported_outside_src_ffi() {
    let Some(root) = source_root() else {
        println!("skipped: source tree (src/ffi) not found");
        return;
    };
    let ffi = root.join("src").join("ffi");
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files.retain(|p| !p.starts_with(&ffi));
    files.sort();
    let mut offenders = Vec::new();
    for path in &files {
        let file = parse(path);
        let mut fns = Vec::new();
        functions(&file.items, &mut fns);
        for f in fns {
            if has_no_mangle(&f.attrs) || has_export_name(&f.attrs) {
                let rel = path.strip_prefix(&root).unwrap_or(path);
                offenders.push(format!("{}: {}", rel.display(), f.sig.ident));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "exported (#[no_mangle]) functions outside src/ffi; the C ABI lives in src/ffi:\n  {}",
        offenders.join("\n  ")
    );
}

/// The tokens of a stream, flattened, with `{`, `}` (and the other delimiters) as tokens of their own.
fn flat_tokens(tokens: proc_macro2::TokenStream, out: &mut Vec<String>) {
    for tree in tokens {
        match tree {
            proc_macro2::TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    proc_macro2::Delimiter::Brace => ("{", "}"),
                    proc_macro2::Delimiter::Parenthesis => ("(", ")"),
                    proc_macro2::Delimiter::Bracket => ("[", "]"),
                    proc_macro2::Delimiter::None => ("", ""),
                };
                out.push(open.into());
                flat_tokens(g.stream(), out);
                out.push(close.into());
            }
            other => out.push(other.to_string()),
        }
    }
}

/// Whether the tokens name the crate's `ffi` module: a path `crate::ffi` or `super::ffi` (any
/// depth of `super`), or `ffi` directly inside a `use crate::{...}` / `use super::{...}` group.
/// `std::ffi` does not count; comments are not tokens, and doc comments become string literals.
fn names_crate_ffi(tokens: proc_macro2::TokenStream) -> bool {
    let mut t = Vec::new();
    flat_tokens(tokens, &mut t);
    let is_root = |s: &str| s == "crate" || s == "super";
    // Depths of the brace groups opened right after `crate::` or `super::`.
    let mut groups: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    for i in 0..t.len() {
        match t[i].as_str() {
            "{" => {
                depth += 1;
                if i >= 2 && t[i - 1] == ":" && i >= 3 && t[i - 2] == ":" && is_root(&t[i - 3]) {
                    groups.push(depth);
                }
            }
            "}" => {
                if groups.last() == Some(&depth) {
                    groups.pop();
                }
                depth = depth.saturating_sub(1);
            }
            "ffi" => {
                let after_root = i >= 3 && t[i - 1] == ":" && t[i - 2] == ":" && is_root(&t[i - 3]);
                let in_group = groups.last() == Some(&depth) && (t[i - 1] == "{" || t[i - 1] == ",");
                if after_root || in_group {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

#[test]
fn no_module_outside_src_ffi_imports_it() {
    let Some(root) = source_root() else {
        println!("skipped: source tree (src/ffi) not found");
        return;
    };
    let ffi = root.join("src").join("ffi");
    let lib = root.join("src").join("lib.rs");
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    // lib.rs declares the module tree (`pub mod ffi;`), which is not an import.
    files.retain(|p| !p.starts_with(&ffi) && *p != lib);
    files.sort();
    assert!(files.len() > 10, "too few source files found under src/: {files:?}");
    let offenders: Vec<String> = files
        .iter()
        .filter(|path| {
            let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            let tokens: proc_macro2::TokenStream =
                text.parse().unwrap_or_else(|e| panic!("cannot tokenize {}: {e:?}", path.display()));
            names_crate_ffi(tokens)
        })
        .map(|path| path.strip_prefix(&root).unwrap_or(path).display().to_string())
        .collect();
    assert!(
        offenders.is_empty(),
        "modules outside src/ffi that name `ffi` (src/ffi depends on them, never the reverse):\n  {}",
        offenders.join("\n  ")
    );
}

/// The detector itself, on imports that must and must not count.
#[test]
fn the_import_detector_sees_every_spelling() {
    let found = |code: &str| names_crate_ffi(code.parse().unwrap());
    assert!(found("use crate::ffi::common::guard;"));
    assert!(found("use super::super::ffi;"));
    assert!(found("use crate::{error::Error, ffi};"));
    assert!(found("fn f() { crate::ffi::common::guard(&[], || Ok(())); }"));
    assert!(!found("use std::ffi::{c_char, CStr};"));
    assert!(!found("/// crate::ffi is mentioned here\nfn f() {}"));
    assert!(!found("use crate::{memory, progress};"));
}
