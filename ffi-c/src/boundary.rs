//! The panic boundary: every `extern "C"` function runs its body through [`guard`], so
//! no panic ever unwinds into C.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::status::{junqi_status, set_last_error, Error, Result};

/// Runs the body of an `extern "C"` function.
///
/// - `Ok(())` becomes `JUNQI_STATUS_OK`;
/// - an `Err` becomes its status, and its message becomes the thread's last error;
/// - a panic is caught and becomes `JUNQI_STATUS_PANIC` with the panic's message.
///
/// `AssertUnwindSafe` is justified because nothing the body touches is observed after a
/// panic without a check: game handles are marked poisoned while the panic unwinds (see
/// `game::GameGuard`) and refuse further use; rule-set handles are immutable; the
/// thread-local error slot is overwritten below.
pub(crate) fn guard(body: impl FnOnce() -> Result<()>) -> junqi_status {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => junqi_status::Ok,
        Ok(Err(e)) => fail(e),
        Err(payload) => {
            let status = fail(Error::new(
                junqi_status::Panic,
                format!(
                    "internal error: the library panicked: {}",
                    panic_message(&*payload)
                ),
            ));
            // Dropping the payload could itself panic (a payload with a panicking `Drop`):
            // keep that inside the boundary too.
            let _ = catch_unwind(AssertUnwindSafe(move || drop(payload)));
            status
        }
    }
}

/// Like [`guard`] for the few functions that return a value rather than a status
/// (`_free` functions, static-string getters): `fallback` is returned on failure.
pub(crate) fn guard_value<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    let mut value = None;
    guard(|| {
        value = Some(body());
        Ok(())
    });
    value.unwrap_or(fallback)
}

fn fail(e: Error) -> junqi_status {
    set_last_error(&e.message);
    e.status
}

fn panic_message(payload: &(dyn Any + Send)) -> &str {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s
    } else {
        "(no message)"
    }
}
