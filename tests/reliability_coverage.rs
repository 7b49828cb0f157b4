//! Source scan of the reliability suite (tests/c/test_reliability.c and the family files under
//! tests/c/reliability/): every function the header exports is exercised there.
//!
//! A function counts as covered when the suite has a valid-call row for it (`{call_..., "name"}`:
//! status 0 and finite outputs on valid arguments; the broken-argument rows come with it). The
//! few functions that no valid-call row can serve are listed below with the hand-written cases
//! that cover them instead, and must still be called somewhere in the suite. A function added to
//! the C ABI without a row fails this test, naming it.
//!
//! The dimension arguments of matrices and of one-dimensional outputs follow one naming rule
//! (README, "What the library promises a host program"): a matrix `x` has its leading dimension
//! `ld_x` and, where no count argument gives its columns, its column count `cols_x` right after
//! it; a one-dimensional output whose length the handle knows has `len_x`; every one of them comes
//! after its array, and has a row in the suite that refuses too small a value (0 or -1) naming it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Functions covered by hand-written cases instead of a valid-call row, and why.
const COVERED_OTHERWISE: &[(&str, &str)] = &[
    ("atomgpu_status_string", "case_infallible: every status and absurd codes"),
    ("atomgpu_last_error_message", "case_infallible and every refused-argument case"),
    ("atomgpu_last_error_arg", "every refused-argument case"),
    ("atomgpu_version_string", "case_infallible"),
    ("atomgpu_abi_version", "case_infallible"),
    ("atomgpu_cr_destroy", "the double-destroy, other-family and made-up handle cases"),
    ("atomgpu_linestrength_destroy", "the double-destroy, other-family and made-up handle cases"),
    ("atomgpu_sturmian_destroy", "the Sturmian destroy cases"),
    ("atomgpu_scf_integrals_destroy", "the handle cases (use after destroy)"),
    ("atomgpu_tdse_destroy", "the handle cases (use after destroy)"),
    ("atomgpu_host_free", "case_host_buffers: double free, foreign and interior pointers"),
    ("atomgpu_sturmian_repulsion_dev", "needs device memory: case_st_repulsion_dev_cpu and its argument rows"),
];

fn root() -> PathBuf {
    let candidates = [PathBuf::from(env!("CARGO_MANIFEST_DIR")), std::env::current_dir().unwrap()];
    candidates.into_iter().find(|p| p.join("include").join("atomgpu.h").is_file()).expect("the source tree")
}

/// The names of the functions declared in the header (`... atomgpu_name(`).
fn exported(header: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for line in header.lines() {
        let line = line.trim_start();
        if line.starts_with("//") || line.starts_with('*') || line.starts_with("/*") || line.starts_with("typedef") {
            continue;
        }
        if let Some(open) = line.find('(') {
            if let Some(start) = line[..open].rfind("atomgpu_") {
                let name = &line[start..open];
                if name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !line[..start].trim().is_empty() {
                    names.insert(name.to_string());
                }
            }
        }
    }
    names
}

fn suite_sources(root: &Path) -> String {
    let mut text = std::fs::read_to_string(root.join("tests/c/test_reliability.c")).expect("the reliability suite");
    let mut family_files: Vec<PathBuf> = std::fs::read_dir(root.join("tests/c/reliability"))
        .expect("tests/c/reliability")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    family_files.sort();
    for f in family_files {
        text.push_str(&std::fs::read_to_string(f).expect("a family file"));
    }
    text
}

/// The function names of the valid-call rows: `{call_xxx, "name"}` (no position after the name).
fn valid_rows(suite: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for piece in suite.split("{call_").skip(1) {
        let Some(open) = piece.find('"') else { continue };
        let rest = &piece[open + 1..];
        let Some(close) = rest.find('"') else { continue };
        if rest[close + 1..].trim_start().starts_with('}') {
            names.insert(format!("atomgpu_{}", &rest[..close]));
        }
    }
    names
}

#[test]
fn every_exported_function_is_in_the_reliability_suite() {
    let root = root();
    let functions = exported(&std::fs::read_to_string(root.join("include/atomgpu.h")).unwrap());
    assert!(functions.len() > 80, "found only {} exported functions: the header scan is broken", functions.len());
    let suite = suite_sources(&root);
    let valid = valid_rows(&suite);
    let mut problems = Vec::new();
    for f in &functions {
        let otherwise = COVERED_OTHERWISE.iter().find(|(name, _)| name == f);
        match (valid.contains(f), otherwise) {
            (true, None) => {}
            (true, Some(_)) => problems.push(format!("{f} has a valid-call row now: take it off COVERED_OTHERWISE")),
            (false, Some(_)) if suite.contains(&format!("{f}(")) => {}
            (false, Some((_, how))) => {
                problems.push(format!("{f} is said to be covered by {how}, but the suite never calls it"))
            }
            (false, None) => problems.push(format!("{f} has no valid-call row in the reliability suite")),
        }
    }
    for (name, _) in COVERED_OTHERWISE {
        if !functions.contains(*name) {
            problems.push(format!("{name} is listed in COVERED_OTHERWISE but the header no longer exports it"));
        }
    }
    for f in &valid {
        if !functions.contains(f) {
            problems.push(format!("the suite has a valid-call row for {f}, which the header does not export"));
        }
    }
    assert!(problems.is_empty(), "reliability suite coverage:\n  {}", problems.join("\n  "));
}

/// The parameter names of every function the header declares: (name, parameters in order).
fn prototypes(header: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in header.lines() {
        let trimmed = line.trim_start();
        if current.is_none() {
            let names = exported(line);
            let Some(name) = names.into_iter().next() else { continue };
            if trimmed.starts_with("typedef") {
                continue;
            }
            let open = line.find(&format!("{name}(")).unwrap() + name.len() + 1;
            current = Some((name, String::new()));
            let (_, text) = current.as_mut().unwrap();
            text.push_str(&line[open..]);
        } else if let Some((_, text)) = current.as_mut() {
            text.push(' ');
            text.push_str(trimmed);
        }
        if let Some((name, text)) = current.take_if(|(_, t)| t.contains(");")) {
            let list = &text[..text.find(");").unwrap()];
            let parameters = list
                .split(',')
                .filter_map(|p| {
                    let p = p.split('[').next().unwrap_or(p);
                    p.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).rfind(|w| !w.is_empty())
                })
                .filter(|p| *p != "void")
                .map(str::to_string)
                .collect();
            out.push((name, parameters));
        }
    }
    out
}

/// The argument rows of the suite: (function without `atomgpu_`, 1-based position, argument,
/// kinds of breakage).
fn argument_rows(suite: &str) -> Vec<(String, usize, String, String)> {
    let mut rows = Vec::new();
    for piece in suite.split("{call_").skip(1) {
        let Some(end) = piece.find('}') else { continue };
        let fields: Vec<&str> = piece[..end].split(',').map(str::trim).collect();
        if let [_, function, position, argument, kinds] = fields[..] {
            let unquote = |s: &str| s.trim_matches('"').to_string();
            if let Ok(position) = position.parse() {
                rows.push((unquote(function), position, unquote(argument), unquote(kinds)));
            }
        }
    }
    rows
}

#[test]
fn every_dimension_argument_follows_the_naming_rule_and_has_a_row() {
    let root = root();
    let header = std::fs::read_to_string(root.join("include/atomgpu.h")).unwrap();
    let functions = prototypes(&header);
    assert!(functions.len() > 80, "parsed only {} prototypes: the header scan is broken", functions.len());
    let half = functions.iter().find(|(f, _)| f == "atomgpu_linestrength_half").expect("atomgpu_linestrength_half");
    assert_eq!(half.1[3..6], ["half", "ld_half", "cols_half"], "the parameter scan is broken: {:?}", half.1);
    let rows = argument_rows(&suite_sources(&root));
    let mut problems = Vec::new();
    let mut dimensions = 0;
    for (function, parameters) in &functions {
        for (i, p) in parameters.iter().enumerate() {
            if p == "ld" || (p.starts_with("ld") && !p.starts_with("ld_")) || p == "len" || p == "cols" {
                problems.push(format!("{function}: `{p}` breaks the rule ld_<matrix>, cols_<matrix>, len_<array>"));
            }
            let Some(array) = ["ld_", "cols_", "len_"].iter().find_map(|prefix| p.strip_prefix(prefix)) else {
                continue;
            };
            dimensions += 1;
            if !parameters[..i].iter().any(|q| q == array) {
                problems.push(format!("{function}: `{p}` comes after no argument `{array}`"));
            }
            if p.starts_with("cols_") && (i == 0 || parameters[i - 1] != format!("ld_{array}")) {
                problems.push(format!("{function}: `{p}` does not follow `ld_{array}`"));
            }
            let short = function.strip_prefix("atomgpu_").unwrap();
            let refused_small = rows.iter().any(|(f, position, argument, kinds)| {
                f == short && *position == i + 1 && argument == p && (kinds.contains('z') || kinds.contains('m'))
            });
            if !refused_small {
                problems.push(format!(
                    "{function}: no argument row refuses too small a `{p}` (position {}) in the reliability suite",
                    i + 1
                ));
            }
        }
    }
    assert!(dimensions >= 30, "found only {dimensions} dimension arguments: the scan is broken");
    assert!(problems.is_empty(), "dimension arguments:\n  {}", problems.join("\n  "));
}
