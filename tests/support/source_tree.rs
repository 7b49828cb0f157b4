//! The crate's source tree, for the tests that read src/ (ffi_guard, module_graph).

use std::path::{Path, PathBuf};

/// The crate's source tree: at build time, or the current directory (where cargo runs tests,
/// and where device-pack runs them on the device machine).
pub fn source_root() -> Option<PathBuf> {
    let candidates = [PathBuf::from(env!("CARGO_MANIFEST_DIR")), std::env::current_dir().ok()?];
    candidates.into_iter().find(|p| p.join("src").join("ffi").is_dir())
}

/// Every `.rs` file below `dir`, appended to `out`.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
