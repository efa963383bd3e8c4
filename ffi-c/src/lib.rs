//! # libjunqi — the C API of the junqi engine
//!
//! A C program embeds the rules and the referee through opaque handles
//! (`junqi_rules`, `junqi_game`, `junqi_agent`), functions that return a `junqi_status` and give their
//! results through out-parameters, and JSON for structured data (reports, views,
//! records). The header `include/junqi.h` is generated from this crate by cbindgen;
//! the doc comments here are the header's documentation.
//!
//! Conventions (the same for every function):
//! - Every function returns a `junqi_status`, except the `_free` functions (void),
//!   `junqi_version`, `junqi_last_error_message` and `junqi_status_name` (static
//!   strings).
//! - On failure the text of the failure is available from `junqi_last_error_message()`
//!   on the same thread; no out-parameter is written and the game is unchanged.
//! - `char *` results are owned by the caller and freed with `junqi_string_free`;
//!   `const char *` results are static and never freed.
//! - Every `_free` accepts NULL; freeing anything twice is undefined behaviour.
//! - No panic unwinds into C: every function body runs behind one panic boundary
//!   (`boundary::guard`), which turns a panic into `JUNQI_STATUS_PANIC` and poisons
//!   the game handle involved.
//!
//! All of the project's `unsafe` code is in this crate, most of it in [`ptr`].
#![allow(non_camel_case_types)]
#![warn(clippy::undocumented_unsafe_blocks)]

// Declaration order is the header's order (separate groups keep rustfmt from sorting).
// Statuses, then enums and names:
mod status;
mod types;
// Rule sets, combat and notation:
mod rules;
// Games:
mod game;
mod position_string;
// Pictures:
mod render;
// The platform around games (scoring, levels):
mod platform;
// What a player deduces, samples and observations:
mod inference;
// Many games stepped together (reinforcement learning):
mod vector;
// Players run by the library:
mod agent;
// Internals:
mod boundary;
mod ptr;

#[cfg(test)]
mod tests;

use std::ffi::{c_char, c_int};

pub use agent::*;
pub use game::*;
pub use render::*;
pub use platform::*;
pub use rules::*;
pub use status::junqi_status;
pub use types::*;
pub use vector::*;

use boundary::guard_value;

/// The library's version, e.g. `"0.1.0"` (a static string; do not free it).
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn junqi_version() -> *const c_char {
    guard_value(std::ptr::null(), || {
        ptr::static_c_str(concat!(env!("CARGO_PKG_VERSION"), "\0"))
    })
}

/// The message of the last failure on the calling thread, as static-like text owned by
/// the library: do not free it. It stays valid until the next failing call on the same
/// thread; copy it if you need it longer. Before any failure it is `""`. Never NULL.
///
/// Messages never reveal hidden information (they depend only on what the caller
/// passed and what the acting player knows).
///
/// Thread safety: each thread has its own last error.
#[no_mangle]
pub extern "C" fn junqi_last_error_message() -> *const c_char {
    guard_value(ptr::static_c_str("\0"), status::last_error_ptr)
}

/// The name of a status constant, e.g. `"JUNQI_STATUS_ILLEGAL_ACTION"` (a static string;
/// do not free it). A value that is not a status gives `"JUNQI_STATUS_UNKNOWN"`.
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn junqi_status_name(status: c_int) -> *const c_char {
    guard_value(ptr::static_c_str("JUNQI_STATUS_UNKNOWN\0"), || {
        let name = usize::try_from(status)
            .ok()
            .and_then(|i| junqi_status::ALL.get(i))
            .map_or("JUNQI_STATUS_UNKNOWN\0", |s| s.c_name());
        ptr::static_c_str(name)
    })
}

/// Frees a string returned by the library through a `char **` out-parameter. NULL is
/// accepted and ignored; freeing the same string twice, or a string the library did not
/// return, is undefined behaviour.
///
/// Thread safety: any thread (a string is not tied to the thread that made it).
///
/// # Safety
/// `s` is NULL or a string returned by this library and not freed yet.
#[no_mangle]
pub unsafe extern "C" fn junqi_string_free(s: *mut c_char) {
    guard_value((), || {
        // SAFETY: forwarded caller contract: a string from `into_c_string`, freed once.
        unsafe { ptr::free_c_string(s) }
    })
}
