//! `include/junqi.h` is what cbindgen (the library, pinned in `ffi-c/Cargo.toml`)
//! generates from `ffi-c/src` with `ffi-c/cbindgen.toml`: a stale header fails here.
//!
//! Regenerate the header after changing the C API with
//!
//! ```sh
//! JUNQI_WRITE_HEADER=1 cargo test -p junqi-ffi --test header
//! ```
//!
//! (or, with the cbindgen 0.29.4 binary installed, `cd ffi-c && cbindgen --config
//! cbindgen.toml -o ../include/junqi.h`: the same output).

use std::path::Path;

#[test]
fn the_checked_in_header_is_what_cbindgen_generates() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let header = crate_dir.join("../include/junqi.h");
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .expect("ffi-c/cbindgen.toml is readable");
    let bindings = cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let generated = String::from_utf8(generated).expect("the header is UTF-8");

    if std::env::var_os("JUNQI_WRITE_HEADER").is_some() {
        std::fs::write(&header, &generated).expect("include/junqi.h is writable");
        return;
    }
    let checked_in = std::fs::read_to_string(&header).expect("include/junqi.h is readable");
    if checked_in != generated {
        let first = checked_in
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| checked_in.lines().count().min(generated.lines().count()));
        let show = |text: &str| {
            text.lines()
                .skip(first)
                .take(5)
                .collect::<Vec<_>>()
                .join("\n")
        };
        panic!(
            "include/junqi.h is stale (first difference at line {}):\n--- checked in\n{}\n--- generated\n{}\n\
             Regenerate it with: JUNQI_WRITE_HEADER=1 cargo test -p junqi-ffi --test header",
            first + 1,
            show(&checked_in),
            show(&generated)
        );
    }
}
