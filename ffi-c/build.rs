//! Gives the shared library a soname, `libjunqi.so.0`, so that programs linked against
//! `libjunqi.so` record the ABI version they need and an install can keep versions
//! side by side (`scripts/install-c` makes the `libjunqi.so.0` and `libjunqi.so` links).
//! The number is the ABI major version: raise it when the C API breaks compatibility.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    // ELF platforms whose linkers take `-soname` (Linux with glibc or musl, the BSDs).
    if matches!(
        os.as_str(),
        "linux" | "android" | "freebsd" | "netbsd" | "openbsd" | "dragonfly"
    ) {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libjunqi.so.0");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
