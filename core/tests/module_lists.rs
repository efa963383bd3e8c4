//! The module lists in the crates' docs name every module there is: core/src/lib.rs,
//! position/mod.rs and referee/mod.rs here, and the Python and web crates' lib.rs
//! (read from the repository; skipped where the file is absent, as in a packaged crate).

use std::path::Path;

/// The modules a Rust file declares (`mod x;`, `pub mod x;`, `pub(crate) mod x;`).
fn declared(source: &str) -> Vec<String> {
    source
        .lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let rest = l.strip_prefix("pub mod ").or_else(|| l.strip_prefix("pub(crate) mod ")).or_else(|| l.strip_prefix("mod "))?;
            let name = rest.strip_suffix(';')?;
            (name != "tests").then(|| name.to_owned())
        })
        .collect()
}

/// The file's inner doc comment (`//!` lines).
fn docs(source: &str) -> String {
    source.lines().filter_map(|l| l.strip_prefix("//!")).collect::<Vec<_>>().join("\n")
}

#[test]
fn every_module_is_in_its_crates_module_list() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for file in ["src/lib.rs", "src/position/mod.rs", "src/referee/mod.rs", "../py/src/lib.rs", "../web/src/lib.rs"] {
        let Ok(source) = std::fs::read_to_string(root.join(file)) else { continue };
        let text = docs(&source);
        for module in declared(&source) {
            assert!(
                text.contains(&format!("[`{module}`]")) || text.contains(&format!("`{module}`")),
                "{file} declares module {module}, which its docs' module list does not name"
            );
        }
    }
}
