//! Every conversion of a raw pointer received from C lives here, each in a small
//! `unsafe` block that says why it is sound. The rest of the crate works with
//! references, `&str` and `Result`s.
//!
//! The safety contract the C caller accepts (stated in the header) is:
//! - a non-NULL handle pointer was returned by this library and not freed yet, and no
//!   other thread uses the same handle during the call;
//! - a non-NULL string pointer points to a NUL-terminated string that stays valid and
//!   unchanged during the call;
//! - a non-NULL out-pointer points to writable memory of the pointee type;
//! - a non-NULL buffer pointer points to at least `cap` writable elements.
//!
//! NULL is always detected and reported; the rest cannot be checked from Rust.

use std::ffi::{c_char, CStr, CString};

use crate::status::{junqi_status, Error, Result};

/// Reads a NUL-terminated UTF-8 string argument.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string valid for the lifetime `'a`.
pub(crate) unsafe fn str_arg<'a>(p: *const c_char, what: &str) -> Result<&'a str> {
    if p.is_null() {
        return Err(Error::null(what));
    }
    // SAFETY: `p` is non-NULL and, by the caller's contract, points to a NUL-terminated
    // string that lives and stays unchanged for `'a`.
    let bytes = unsafe { CStr::from_ptr(p) };
    bytes.to_str().map_err(|e| {
        Error::new(
            junqi_status::InvalidUtf8,
            format!(
                "{what} is not valid UTF-8 (invalid byte at offset {})",
                e.valid_up_to()
            ),
        )
    })
}

/// Borrows the object behind a handle pointer.
///
/// # Safety
/// `p` is NULL or a live pointer obtained from [`into_handle`] that nobody mutates
/// during `'a`.
pub(crate) unsafe fn handle_ref<'a, T>(p: *const T, what: &str) -> Result<&'a T> {
    // SAFETY: by the caller's contract a non-NULL `p` came from `Box::into_raw` (so it
    // is aligned and initialised) and is not freed or mutated during `'a`.
    unsafe { p.as_ref() }.ok_or_else(|| Error::null(what))
}

/// Mutably borrows the object behind a handle pointer.
///
/// # Safety
/// `p` is NULL or a live pointer obtained from [`into_handle`] that nobody else uses
/// during `'a`.
pub(crate) unsafe fn handle_mut<'a, T>(p: *mut T, what: &str) -> Result<&'a mut T> {
    // SAFETY: by the caller's contract a non-NULL `p` came from `Box::into_raw` and is
    // used by this call alone (one thread per handle), so the borrow is unique.
    unsafe { p.as_mut() }.ok_or_else(|| Error::null(what))
}

/// Moves a value to the heap and hands its ownership to C.
pub(crate) fn into_handle<T>(value: T) -> *mut T {
    Box::into_raw(Box::new(value))
}

/// Takes back and drops a handle; NULL is ignored.
///
/// # Safety
/// `p` is NULL or a pointer obtained from [`into_handle`] (for the same `T`) that has
/// not been freed yet and that nobody uses any more.
pub(crate) unsafe fn free_handle<T>(p: *mut T) {
    if !p.is_null() {
        // SAFETY: `p` came from `Box::into_raw(Box<T>)` and ownership returns to us
        // exactly once (a double free is documented as undefined behaviour).
        drop(unsafe { Box::from_raw(p) });
    }
}

/// An out-parameter, checked for NULL before any work is done and written at the end.
///
/// Invariant: the pointer is non-NULL and valid for a write of a `T` (established by
/// the `unsafe` constructors).
pub(crate) struct Out<T>(*mut T);

impl<T> Out<T> {
    /// Checks a required out-parameter.
    ///
    /// # Safety
    /// `p` is NULL or valid for a write of a `T` until the [`Out`] is used.
    pub(crate) unsafe fn new(p: *mut T, what: &str) -> Result<Out<T>> {
        if p.is_null() {
            Err(Error::null(what))
        } else {
            Ok(Out(p))
        }
    }

    /// An optional out-parameter: `None` when NULL.
    ///
    /// # Safety
    /// As for [`Out::new`].
    pub(crate) unsafe fn optional(p: *mut T) -> Option<Out<T>> {
        (!p.is_null()).then_some(Out(p))
    }

    /// Writes the value.
    pub(crate) fn write(self, value: T) {
        // SAFETY: non-NULL and valid for a write of a `T` (the type's invariant);
        // `write` neither reads nor drops the old, possibly uninitialised, contents.
        unsafe { self.0.write(value) }
    }
}

/// A caller-supplied array `buf[0..cap]`, checked before any work is done.
///
/// Invariant: `ptr` is valid for writes of `cap` elements (NULL only when `cap == 0`).
pub(crate) struct OutSlice<T> {
    ptr: *mut T,
    cap: usize,
}

impl<T: Copy> OutSlice<T> {
    /// Checks a buffer argument: NULL is allowed only with `cap == 0` (a size query).
    ///
    /// # Safety
    /// `ptr` is NULL or valid for writes of `cap` elements of `T` until the
    /// [`OutSlice`] is used.
    pub(crate) unsafe fn new(ptr: *mut T, cap: usize, what: &str) -> Result<OutSlice<T>> {
        if ptr.is_null() && cap != 0 {
            return Err(Error::null(what));
        }
        Ok(OutSlice { ptr, cap })
    }

    /// Copies `items` into the buffer, or fails with `BufferTooSmall` (writing nothing).
    pub(crate) fn fill(self, items: &[T]) -> Result<()> {
        if items.len() > self.cap {
            return Err(Error::new(
                junqi_status::BufferTooSmall,
                format!(
                    "the buffer holds {} elements, {} are needed",
                    self.cap,
                    items.len()
                ),
            ));
        }
        if !items.is_empty() {
            // SAFETY: `ptr` is non-NULL here (cap >= len > 0) and valid for `cap >= len`
            // element writes (the type's invariant); it cannot overlap `items`, which
            // Rust allocated.
            unsafe { std::ptr::copy_nonoverlapping(items.as_ptr(), self.ptr, items.len()) }
        }
        Ok(())
    }
}

/// Hands a Rust string to C as a NUL-terminated `char *` (freed by `junqi_string_free`).
pub(crate) fn into_c_string(s: String) -> *mut c_char {
    // The library's strings (JSON, notation, names) never contain NUL; replace any that
    // would, rather than fail.
    let c = CString::new(s).unwrap_or_else(|e| {
        let cleaned: Vec<u8> = e.into_vec().into_iter().filter(|&b| b != 0).collect();
        CString::new(cleaned).unwrap_or_default()
    });
    c.into_raw()
}

/// Takes back and drops a string made by [`into_c_string`]; NULL is ignored.
///
/// # Safety
/// `p` is NULL or was returned by [`into_c_string`] and not freed yet.
pub(crate) unsafe fn free_c_string(p: *mut c_char) {
    if !p.is_null() {
        // SAFETY: `p` came from `CString::into_raw` and comes back exactly once.
        drop(unsafe { CString::from_raw(p) });
    }
}

/// A `'static` NUL-terminated string as a C pointer.
pub(crate) fn static_c_str(s: &'static str) -> *const c_char {
    debug_assert!(s.ends_with('\0'));
    s.as_ptr().cast()
}

/// Element types whose all-zero bytes are a valid value (so a caller's buffer can be
/// zero-filled through its raw pointer and then borrowed as a Rust slice).
///
/// # Safety
/// Implement only for types for which the all-zero bit pattern is a valid value.
pub(crate) unsafe trait Zeroable: Copy {}
// SAFETY: 0.0, 0, 0 and false are the all-zero bit patterns of these types.
unsafe impl Zeroable for f32 {}
// SAFETY: as above.
unsafe impl Zeroable for i8 {}
// SAFETY: as above.
unsafe impl Zeroable for i64 {}
// SAFETY: as above (`bool` is one byte; 0 is `false`).
unsafe impl Zeroable for bool {}

/// Checks a caller's output array `ptr[0..cap]` that must hold `needed` elements,
/// zero-fills its first `needed` elements and borrows them. Fails with `NullPointer`
/// (NULL with `needed > 0`) or `BufferTooSmall` (`cap < needed`) before anything is
/// written.
///
/// Zero-filling through the raw pointer first means the slice never covers
/// uninitialised memory or invalid values (e.g. a byte 2 in a `bool` buffer).
///
/// # Safety
/// `ptr` is NULL or valid for writes of `cap` elements of `T`, not aliased by anything
/// else during `'a`.
pub(crate) unsafe fn zeroed_slice_mut<'a, T: Zeroable>(
    ptr: *mut T,
    cap: usize,
    needed: usize,
    what: &str,
) -> Result<&'a mut [T]> {
    if needed == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return Err(Error::null(what));
    }
    if cap < needed {
        return Err(Error::new(
            junqi_status::BufferTooSmall,
            format!("{what} holds {cap} elements, {needed} are needed"),
        ));
    }
    // SAFETY: `ptr` is non-NULL and valid for `cap >= needed` element writes (caller's
    // contract); all-zero bytes are a valid `T` (`Zeroable`).
    unsafe { std::ptr::write_bytes(ptr, 0, needed) };
    // SAFETY: the first `needed` elements are now initialised valid values, the memory
    // is valid and unaliased for `'a` (caller's contract), and `ptr` is aligned (it is
    // a `T*` from C).
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, needed) })
}

/// Borrows a caller's input array of integers `ptr[0..len]` (NULL allowed only when
/// `len == 0`).
///
/// # Safety
/// `ptr` is NULL or valid for reads of `len` initialised `int64_t`s that do not
/// change during `'a`.
pub(crate) unsafe fn i64_slice_arg<'a>(ptr: *const i64, len: usize, what: &str) -> Result<&'a [i64]> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(Error::null(what));
    }
    // SAFETY: non-NULL, aligned, valid for `len` initialised reads and unchanged during
    // `'a` (caller's contract); every bit pattern is a valid `i64`.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}
