//! What every test crate shares, none of it needing a cluster: running a
//! program (above all this build's plugin binary) to its end within a
//! deadline ([`run`]), golden files ([`golden`]), and a fake API server on
//! 127.0.0.1 ([`fake_api`]). A test crate at the top of `tests/` includes it
//! with `mod common;`; one in a directory (`tests/hostile/main.rs`) with
//! `#[path = "../common/mod.rs"] mod common;`. The cluster's helpers are in
//! `tests/support`, which builds on this module.
#![allow(dead_code)]

pub mod fake_api;
pub mod run;

use std::path::Path;

/// The repository's root (the package's manifest directory).
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Compares `actual` with the golden file `tests/golden/NAME`. With
/// `UPDATE_GOLDEN=1` in the environment the file is rewritten first (then
/// review the diff).
pub fn golden(name: &str, actual: &str) {
    let path = root().join("tests/golden").join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("missing {}; run with UPDATE_GOLDEN=1", path.display()));
    pretty_assertions::assert_eq!(expected, actual, "{name}");
}
