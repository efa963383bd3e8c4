//! C API (work in progress).
