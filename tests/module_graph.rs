//! The file-level import graph of src/ and the two rules of DESIGN.md ("Layout") it keeps.
//!
//! (a) No circle: no file imports, through any chain of files, a file that imports it.
//! (b) Floors: the shared modules (error, memory, progress, backend, math) import no family
//!     (rates, linestrength, sturmian, scf, tdse) and not ffi; no family imports another family
//!     (rates/cr is part of rates); ffi imports the families. That nothing imports ffi is checked
//!     by ffi_guard (`no_module_outside_src_ffi_imports_it`, with a test of every spelling), not
//!     again here.
//!
//! How the graph is made. The module tree is followed from src/lib.rs through its `mod`
//! declarations, so the graph has every file the compiler reads (a test checks that every .rs
//! file under src/ is one of them). Each file is read as tokens. An edge from file A to file B is
//! a path in A that names B or an item of B:
//! - each leaf of a `use` declaration, at module level or inside a function;
//! - each path in code, types, attributes and macro arguments (`#[error("..", crate::x::f(b))]`,
//!   `format!("{}", super::f())`) that starts with `crate::`, `super::`, `self::`, or the name of
//!   a child module or an import of the module it stands in (`cuda::run(..)`, `integrals::f(..)`).
//!
//! A path goes to the file of the deepest module it names. When its next segment is a name that
//! module imports rather than defines (a re-export, `pub use model::Cr` in rates/cr/mod.rs),
//! the import is followed: `super::Cr` in rates/cr/cuda.rs is an edge to rates/cr/model.rs.
//! Comments, doc comments and their links are not paths (rustdoc's links make no dependency).
//!
//! One kind of edge is ownership, not an import: a module's own file naming the files of its
//! submodules (`mod cpu;` and the calls and re-exports through it: `cpu::f(..)`,
//! `pub use model::Cr`). A family is its mod.rs, the public API, delegating to cpu.rs and
//! cuda.rs beside it, which use the API's types (`super::Settings`): ownership runs down, imports
//! run up or sideways. The circle rule is about imports: edges from a module's file into its own
//! subtree are listed apart and left out of it; every other edge counts.

#[path = "support/source_tree.rs"]
mod source_tree;

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use source_tree::{rust_files, source_root};
use std::collections::{BTreeMap, BTreeSet};

/// A module path from the crate root: `["crate", "rates", "cr"]`.
type ModPath = Vec<String>;

/// Where a room (a top-level module) stands: an edge may go to its own room or to a lower floor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Floor {
    /// error, memory, progress, backend, math: used by everyone, using no family.
    Shared,
    /// rates, linestrength, sturmian, scf, tdse: each uses the shared floor only.
    Family,
    /// The C ABI: uses the families and the shared floor.
    Ffi,
}

const SHARED: &[&str] = &["error", "memory", "progress", "backend", "math"];
const FAMILIES: &[&str] = &["rates", "linestrength", "sturmian", "scf", "tdse"];

/// The floor of a room; `None` for a room the rules do not know (a new top-level module must be
/// given its floor here).
fn floor(room: &str) -> Option<Floor> {
    if SHARED.contains(&room) {
        Some(Floor::Shared)
    } else if FAMILIES.contains(&room) {
        Some(Floor::Family)
    } else if room == "ffi" {
        Some(Floor::Ffi)
    } else {
        None
    }
}

/// One module: an inline module (`mod tests { .. }`) has the file of its parent.
#[derive(Default)]
struct Module {
    /// The file, relative to the crate root ("src/rates/cr/cuda.rs").
    file: String,
    /// Child modules by name.
    children: BTreeSet<String>,
    /// Names the module defines (functions, types, constants, traits, macros).
    items: BTreeSet<String>,
    /// Names the module imports, with the path each stands for, as written.
    imports: BTreeMap<String, Vec<String>>,
    /// The paths of its glob imports (`use x::*`), as written.
    globs: Vec<Vec<String>>,
}

/// A path as it stands in a file: the module it stands in and its segments.
struct Mention {
    module: ModPath,
    segments: Vec<String>,
}

/// The crate read as modules and the paths each file mentions.
#[derive(Default)]
struct Crate {
    modules: BTreeMap<ModPath, Module>,
    mentions: Vec<Mention>,
}

/// One edge of the graph: `from` names an item of `to`, first seen as `witness`.
#[derive(Clone, Debug)]
struct Edge {
    from: String,
    to: String,
    witness: String,
}

/// The leaves of a `use` tree: (path, the name it binds, or None for a glob).
fn use_leaves(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<(Vec<String>, Option<String>)>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_leaves(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            if name == "self" {
                out.push((prefix.clone(), prefix.last().cloned()));
            } else {
                let mut path = prefix.clone();
                path.push(name.clone());
                out.push((path, Some(name)));
            }
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix.clone();
            let name = r.ident.to_string();
            if name != "self" {
                path.push(name);
            }
            out.push((path, Some(r.rename.to_string())));
        }
        syn::UseTree::Glob(_) => out.push((prefix.clone(), None)),
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| use_leaves(t, prefix, out)),
    }
}

/// The file of module `path` declared in `parent_file` (`mod name;`): name.rs or name/mod.rs beside
/// a lib.rs or mod.rs, else in the folder named after the parent file.
fn child_file(parent_file: &str, name: &str) -> [String; 2] {
    let (dir, stem) = parent_file.rsplit_once('/').expect("a file under src/");
    let stem = stem.trim_end_matches(".rs");
    let base = if stem == "lib" || stem == "mod" { dir.to_string() } else { format!("{dir}/{stem}") };
    [format!("{base}/{name}.rs"), format!("{base}/{name}/mod.rs")]
}

impl Crate {
    /// Reads the crate from `read` (file text by relative path), starting at src/lib.rs.
    fn load(read: &dyn Fn(&str) -> Option<String>) -> Crate {
        let mut krate = Crate::default();
        krate.load_file(read, "src/lib.rs", vec!["crate".to_string()]);
        krate
    }

    fn load_file(&mut self, read: &dyn Fn(&str) -> Option<String>, file: &str, path: ModPath) {
        let text = read(file).unwrap_or_else(|| panic!("cannot read {file}"));
        let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("cannot parse {file}: {e}"));
        self.load_items(read, file, path.clone(), &parsed.items);
        let tokens: TokenStream = text.parse().unwrap_or_else(|e| panic!("cannot tokenize {file}: {e:?}"));
        self.scan(&path, tokens);
    }

    fn load_items(&mut self, read: &dyn Fn(&str) -> Option<String>, file: &str, path: ModPath, items: &[syn::Item]) {
        self.modules.entry(path.clone()).or_default().file = file.to_string();
        for item in items {
            let name = match item {
                syn::Item::Mod(m) => {
                    let name = m.ident.to_string();
                    let mut child = path.clone();
                    child.push(name.clone());
                    self.modules.get_mut(&path).expect("loaded").children.insert(name);
                    match &m.content {
                        Some((_, inner)) => self.load_items(read, file, child, inner),
                        None => {
                            let candidates = child_file(file, &m.ident.to_string());
                            let found = candidates.iter().find(|f| read(f).is_some());
                            let found = found.unwrap_or_else(|| panic!("{file}: no file for `mod {}`", m.ident));
                            self.load_file(read, &found.clone(), child);
                        }
                    }
                    continue;
                }
                syn::Item::Use(u) => {
                    let mut leaves = Vec::new();
                    use_leaves(&u.tree, &mut Vec::new(), &mut leaves);
                    let module = self.modules.get_mut(&path).expect("loaded");
                    for (target, name) in leaves {
                        match name {
                            Some(name) => _ = module.imports.insert(name, target),
                            None => module.globs.push(target),
                        }
                    }
                    continue;
                }
                syn::Item::Fn(f) => &f.sig.ident,
                syn::Item::Struct(s) => &s.ident,
                syn::Item::Enum(e) => &e.ident,
                syn::Item::Union(u) => &u.ident,
                syn::Item::Const(c) => &c.ident,
                syn::Item::Static(s) => &s.ident,
                syn::Item::Type(t) => &t.ident,
                syn::Item::Trait(t) => &t.ident,
                syn::Item::TraitAlias(t) => &t.ident,
                syn::Item::Macro(m) => match &m.ident {
                    Some(ident) => ident,
                    None => continue,
                },
                _ => continue,
            };
            self.modules.get_mut(&path).expect("loaded").items.insert(name.to_string());
        }
    }

    /// Records every path of `tokens`, which stand in module `module` (inline modules change it).
    fn scan(&mut self, module: &ModPath, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let is_punct = |i: usize, c: char| matches!(trees.get(i), Some(TokenTree::Punct(p)) if p.as_char() == c);
        let is_path_sep = |i: usize| is_punct(i, ':') && is_punct(i + 1, ':');
        let mut i = 0;
        while i < trees.len() {
            match &trees[i] {
                TokenTree::Ident(id) if id == "use" => {
                    // `use ... ;` at any depth: its leaves, parsed as a use tree.
                    let end = (i..trees.len()).find(|&j| is_punct(j, ';')).unwrap_or(trees.len());
                    let tree: TokenStream = trees[i + 1..end].iter().cloned().collect();
                    if let Ok(tree) = syn::parse2::<syn::UseTree>(tree) {
                        let mut leaves = Vec::new();
                        use_leaves(&tree, &mut Vec::new(), &mut leaves);
                        for (segments, _) in leaves {
                            self.mentions.push(Mention { module: module.clone(), segments });
                        }
                    }
                    i = end + 1;
                }
                TokenTree::Ident(id) if id == "mod" => {
                    // `mod name { .. }`: its tokens stand in the inline module.
                    if let (Some(TokenTree::Ident(name)), Some(TokenTree::Group(g))) =
                        (trees.get(i + 1), trees.get(i + 2))
                    {
                        if g.delimiter() == Delimiter::Brace {
                            let mut inner = module.clone();
                            inner.push(name.to_string());
                            self.scan(&inner, g.stream());
                            i += 3;
                            continue;
                        }
                    }
                    i += 1;
                }
                TokenTree::Ident(id) if is_path_sep(i + 1) && !(i >= 2 && is_path_sep(i - 2)) => {
                    let mut segments = vec![id.to_string()];
                    let mut j = i + 1;
                    while is_path_sep(j) {
                        match trees.get(j + 2) {
                            Some(TokenTree::Ident(next)) => segments.push(next.to_string()),
                            _ => break,
                        }
                        j += 3;
                    }
                    self.mentions.push(Mention { module: module.clone(), segments });
                    i = j;
                }
                TokenTree::Group(g) => {
                    self.scan(module, g.stream());
                    i += 1;
                }
                _ => i += 1,
            }
        }
    }

    /// The absolute module path of `segments` written in module `module`, when it names something
    /// of this crate (not std or another crate); imports are followed up to a depth of 16.
    fn absolute(&self, module: &ModPath, segments: &[String], depth: usize) -> Option<Vec<String>> {
        let first = segments.first()?;
        if first == "crate" {
            return Some(segments.to_vec());
        }
        if first == "self" || first == "super" {
            let mut abs = module.clone();
            let supers = segments.iter().take_while(|s| *s == "super").count();
            for _ in 0..supers {
                abs.pop()?;
            }
            abs.extend_from_slice(&segments[supers.max(usize::from(first == "self"))..]);
            return Some(abs);
        }
        let m = self.modules.get(module)?;
        if m.children.contains(first) || m.items.contains(first) {
            return Some(module.iter().chain(segments).cloned().collect());
        }
        if depth >= 16 {
            return None;
        }
        if let Some(target) = m.imports.get(first) {
            let path: Vec<String> = target.iter().chain(&segments[1..]).cloned().collect();
            return self.absolute(module, &path, depth + 1);
        }
        // A name brought by a glob import (`use super::*` of a test module).
        m.globs.iter().find_map(|glob| {
            let at = self.absolute(module, glob, depth + 1)?;
            let from = self.modules.get(&at)?;
            let known = from.children.contains(first) || from.items.contains(first) || from.imports.contains_key(first);
            known.then(|| at.iter().chain(segments).cloned().collect())
        })
    }

    /// The module that defines what the absolute path `abs` names (following imports up to a
    /// depth of 16): the deepest module on the path, or the module a name of it was imported from.
    fn resolve(&self, abs: &[String], depth: usize) -> Option<ModPath> {
        let mut at: ModPath = vec![abs.first()?.clone()];
        for (k, seg) in abs.iter().enumerate().skip(1) {
            let m = self.modules.get(&at)?;
            if m.children.contains(seg) {
                at.push(seg.clone());
                continue;
            }
            if depth < 16 && !m.items.contains(seg) {
                // Imported here (a re-export), by name or by a glob: where it comes from.
                let rest = &abs[k..];
                let through = match m.imports.get(seg) {
                    Some(target) => self
                        .absolute(&at, target, depth + 1)
                        .map(|p| p.into_iter().chain(rest[1..].iter().cloned()).collect()),
                    None => self.absolute(&at, rest, depth + 1),
                };
                if let Some(found) = through.and_then(|p: Vec<String>| self.resolve(&p, depth + 1)) {
                    return Some(found);
                }
            }
            return Some(at);
        }
        Some(at)
    }

    /// Every edge between two files, once (the first path that made it is its witness).
    fn edges(&self) -> Vec<Edge> {
        let mut seen = BTreeMap::new();
        for mention in &self.mentions {
            let Some(abs) = self.absolute(&mention.module, &mention.segments, 0) else { continue };
            let Some(target) = self.resolve(&abs, 0) else { continue };
            let from = &self.modules[&mention.module].file;
            let to = &self.modules[&target].file;
            if from != to {
                seen.entry((from.clone(), to.clone())).or_insert_with(|| mention.segments.join("::"));
            }
        }
        seen.into_iter().map(|((from, to), witness)| Edge { from, to, witness }).collect()
    }

    /// Whether `to` is a file of the subtree of the module whose own file is `from`.
    fn owns(&self, from: &str, to: &str) -> bool {
        let paths = |file: &str| -> Vec<&ModPath> {
            self.modules.iter().filter(|(_, m)| m.file == file).map(|(p, _)| p).collect()
        };
        let owned = paths(to);
        paths(from).iter().any(|owner| owned.iter().any(|p| p.len() > owner.len() && p.starts_with(owner)))
    }
}

/// The room of a file: its top-level module ("src/rates/cr/cuda.rs" -> "rates").
fn room(file: &str) -> &str {
    let rest = file.strip_prefix("src/").unwrap_or(file);
    let first = rest.split('/').next().unwrap_or(rest);
    first.strip_suffix(".rs").unwrap_or(first)
}

/// Every elementary circle of the graph, each once, starting at its least file; at most `cap`.
fn circles(edges: &[Edge], cap: usize) -> Vec<Vec<String>> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for e in edges {
        next.entry(&e.from).or_default().push(&e.to);
    }
    let mut found = Vec::new();
    let starts: Vec<&str> = next.keys().copied().collect();
    for &start in &starts {
        // Depth-first over files greater than `start`, back to `start`.
        let mut path = vec![start];
        let mut stack = vec![next.get(start).map(|v| v.iter()).into_iter().flatten()];
        while let Some(top) = stack.last_mut() {
            match top.next() {
                Some(&to) if to == start => {
                    found.push(path.iter().map(|s| s.to_string()).collect());
                    if found.len() >= cap {
                        return found;
                    }
                }
                Some(&to) if to > start && !path.contains(&to) => {
                    path.push(to);
                    stack.push(next.get(to).map(|v| v.iter()).into_iter().flatten());
                }
                Some(_) => {}
                None => {
                    stack.pop();
                    path.pop();
                }
            }
        }
    }
    found
}

fn witness_of<'a>(edges: &'a [Edge], from: &str, to: &str) -> &'a str {
    edges.iter().find(|e| e.from == from && e.to == to).map(|e| e.witness.as_str()).unwrap_or("?")
}

/// A circle as text: `a.rs -(path)-> b.rs -(path)-> a.rs`.
fn describe(circle: &[String], edges: &[Edge]) -> String {
    let mut text = circle[0].clone();
    for (k, from) in circle.iter().enumerate() {
        let to = &circle[(k + 1) % circle.len()];
        text.push_str(&format!(" -({})-> {to}", witness_of(edges, from, to)));
    }
    text
}

/// The crate of the working tree, or None (the test then says it skipped) away from the sources.
fn this_crate() -> Option<(std::path::PathBuf, Crate)> {
    let root = source_root()?;
    let read = |rel: &str| std::fs::read_to_string(root.join(rel)).ok();
    let krate = Crate::load(&read);
    Some((root, krate))
}

/// The import edges (ownership left out) and the ownership edges of a crate.
fn imports_and_ownership(krate: &Crate) -> (Vec<Edge>, Vec<Edge>) {
    krate.edges().into_iter().partition(|e| !krate.owns(&e.from, &e.to))
}

#[test]
fn the_graph_has_every_file_of_src() {
    let Some((root, krate)) = this_crate() else {
        println!("skipped: source tree not found");
        return;
    };
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let on_disk: BTreeSet<String> = files
        .iter()
        .map(|p| p.strip_prefix(&root).expect("under the root").to_string_lossy().replace('\\', "/"))
        .collect();
    let in_tree: BTreeSet<String> = krate.modules.values().map(|m| m.file.clone()).collect();
    let missing: Vec<&String> = on_disk.difference(&in_tree).collect();
    assert!(missing.is_empty(), "files under src/ that no `mod` declares (dead, or declared by #[path]): {missing:?}");
    assert!(in_tree.len() > 50, "too few files in the module tree: {in_tree:?}");
}

#[test]
fn no_file_imports_itself_through_others() {
    let Some((_, krate)) = this_crate() else {
        println!("skipped: source tree not found");
        return;
    };
    let (imports, owned) = imports_and_ownership(&krate);
    println!(
        "{} import edges between files; {} ownership edges (a module's file into its subtree) left out",
        imports.len(),
        owned.len()
    );
    let found = circles(&imports, 500);
    let circles: Vec<String> = found.iter().map(|c| describe(c, &imports)).collect();
    assert!(circles.is_empty(), "{} circle(s) among the files of src/:\n  {}", circles.len(), circles.join("\n  "));
}

#[test]
fn every_room_imports_only_its_own_floor_and_below() {
    let Some((_, krate)) = this_crate() else {
        println!("skipped: source tree not found");
        return;
    };
    let mut offenders = Vec::new();
    let mut unknown = BTreeSet::new();
    let mut uses: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let edges = krate.edges();
    for e in &edges {
        let (from, to) = (room(&e.from), room(&e.to));
        if from == to || from == "lib" || to == "ffi" {
            // Inside one room; lib.rs declares the tree; into ffi: ffi_guard's rule.
            continue;
        }
        uses.entry(from).or_default().insert(to);
        match (floor(from), floor(to)) {
            (Some(a), Some(b)) => {
                let allowed = b < a || (a == Floor::Shared && b == Floor::Shared);
                if !allowed {
                    offenders.push(format!("{} ({a:?}) -> {} ({b:?}) through `{}`", e.from, e.to, e.witness));
                }
            }
            _ => {
                unknown.insert(if floor(from).is_none() { from } else { to });
            }
        }
    }
    for (room, used) in &uses {
        println!("{room:>12} uses {}", used.iter().copied().collect::<Vec<_>>().join(", "));
    }
    assert!(unknown.is_empty(), "rooms without a floor (give them one in tests/module_graph.rs): {unknown:?}");
    assert!(
        offenders.is_empty(),
        "{} import(s) against the floors (shared < family < ffi; no family imports another):\n  {}",
        offenders.len(),
        offenders.join("\n  ")
    );
}

/// The reader itself, on a small crate with every spelling of a path.
#[test]
fn the_reader_sees_every_spelling() {
    let files: BTreeMap<&str, &str> = BTreeMap::from([
        ("src/lib.rs", "pub mod a; pub mod b; mod shared;"),
        (
            "src/a/mod.rs",
            "mod cpu; pub mod types; pub use types::Thing; \
             pub fn run() { cpu::go(); } \
             #[cfg(test)] mod tests { use super::*; use crate::b::helper; }",
        ),
        ("src/a/cpu.rs", "use super::Thing; pub fn go() { let _ = super::run; }"),
        ("src/a/types.rs", "pub struct Thing; fn f() { use crate::shared::deep::X; }"),
        (
            "src/b.rs",
            "#[derive(Debug, thiserror::Error)] #[error(\"{}\", crate::shared::describe(1))] pub struct E; \
             pub fn helper() { let _ = format!(\"{}\", self::inner::y()); } mod inner { pub fn y() {} } \
             /// crate::a::cpu is only mentioned\nfn g() { std::mem::drop(1); }",
        ),
        ("src/shared/mod.rs", "pub mod deep; pub fn describe(_: u8) -> String { String::new() }"),
        ("src/shared/deep.rs", "pub struct X;"),
    ]);
    let read = |f: &str| files.get(f).map(|t| t.to_string());
    let krate = Crate::load(&read);
    let edges: BTreeSet<(String, String)> = krate.edges().into_iter().map(|e| (e.from, e.to)).collect();
    let want = [
        ("src/a/mod.rs", "src/a/types.rs"),       // pub use (ownership)
        ("src/a/mod.rs", "src/a/cpu.rs"),         // a call through a child module (ownership)
        ("src/a/mod.rs", "src/b.rs"),             // `use crate::` in an inline test module
        ("src/a/cpu.rs", "src/a/types.rs"),       // `super::Thing`, a re-export followed
        ("src/a/cpu.rs", "src/a/mod.rs"),         // `super::run` in code
        ("src/a/types.rs", "src/shared/deep.rs"), // a `use` inside a function
        ("src/b.rs", "src/shared/mod.rs"),        // a path inside an attribute
    ];
    let want: BTreeSet<(String, String)> = want.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    assert_eq!(edges, want);
    assert!(krate.owns("src/a/mod.rs", "src/a/cpu.rs"));
    assert!(!krate.owns("src/a/cpu.rs", "src/a/mod.rs"));
    let circle = vec![
        Edge { from: "x".into(), to: "y".into(), witness: String::new() },
        Edge { from: "y".into(), to: "z".into(), witness: String::new() },
        Edge { from: "z".into(), to: "x".into(), witness: String::new() },
        Edge { from: "z".into(), to: "y".into(), witness: String::new() },
    ];
    assert_eq!(circles(&circle, 10), vec![vec!["x", "y", "z"], vec!["y", "z"]]);
}
