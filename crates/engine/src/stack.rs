//! The stack limit of every recursive routine a client's text drives.
//!
//! Why a stack check and not only a nesting count: connection threads and
//! pool workers run with small stacks (`thread_stack`, 256 KiB by default),
//! and how deep a parser, an evaluator or a rewriter can go before it runs
//! out depends on that size and on each routine's frames. So each recursive
//! routine calls `check()` on entry; when less than `RESERVE_BYTES` of the
//! thread's stack is left, the statement ends with MySQL's ERR 1436 ("Thread
//! stack overrun", as MySQL and MariaDB report it) instead of the process
//! dying. The reserve also leaves room for what runs after the routine
//! returns (SQLite compiling the statement, result conversion).
//!
//! The thread's stack bounds are read once per thread (pthread_getattr_np)
//! and kept in a thread-local; a check is then one comparison.

use crate::SqlError;
use std::cell::Cell;

/// Stack kept free below any recursive routine's frame.
pub const RESERVE_BYTES: usize = 48 * 1024;

thread_local! {
    /// (lowest usable address, stack size) of this thread's stack; (0, 0)
    /// until first asked, (1, 0) when the bounds are unknown.
    static BOUNDS: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

/// This thread's stack bounds from the C library.
fn query_bounds() -> (usize, usize) {
    // SAFETY: pthread_getattr_np fills an attr for the calling thread, which
    // is destroyed after reading; the out-pointers are valid locals.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return (1, 0);
        }
        let mut addr: *mut libc::c_void = std::ptr::null_mut();
        let mut size: libc::size_t = 0;
        let rc = libc::pthread_attr_getstack(&attr, &mut addr, &mut size);
        libc::pthread_attr_destroy(&mut attr);
        if rc != 0 || addr.is_null() {
            return (1, 0);
        }
        (addr as usize, size)
    }
}

fn bounds() -> (usize, usize) {
    BOUNDS.with(|b| {
        if b.get().0 == 0 {
            b.set(query_bounds());
        }
        b.get()
    })
}

/// Bytes of stack left below the caller's frame (usize::MAX when unknown).
#[inline(never)]
pub fn remaining_bytes() -> usize {
    let marker = 0u8;
    let here = std::hint::black_box(&marker) as *const u8 as usize;
    match bounds() {
        (low, size) if size > 0 => here.saturating_sub(low),
        _ => usize::MAX,
    }
}

/// Ok while at least `RESERVE_BYTES` of stack are left; ERR 1436 otherwise.
pub fn check() -> Result<(), SqlError> {
    let left = remaining_bytes();
    if left >= RESERVE_BYTES {
        return Ok(());
    }
    let size = bounds().1;
    Err(SqlError::new(
        1436,
        "HY000",
        format!("Thread stack overrun:  {} bytes used of a {} byte stack, and {} bytes needed. Consider increasing the thread_stack system variable.", size.saturating_sub(left), size, RESERVE_BYTES),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recurse(n: usize) -> Result<usize, SqlError> {
        check()?;
        let pad = std::hint::black_box([0u8; 512]);
        if n == 0 {
            return Ok(pad[0] as usize);
        }
        Ok(recurse(n - 1)? + pad[1] as usize)
    }

    #[test]
    fn deep_recursion_ends_with_1436_on_a_small_stack() {
        let r = std::thread::Builder::new().stack_size(256 * 1024).spawn(|| (recurse(100_000), remaining_bytes())).unwrap().join().unwrap();
        let e = r.0.unwrap_err();
        assert_eq!((e.code, e.state), (1436, "HY000"));
        assert!(e.message.starts_with("Thread stack overrun:"), "{}", e.message);
        assert!(r.1 > 128 * 1024 && r.1 <= 256 * 1024, "{}", r.1);
        // Shallow recursion is fine.
        let ok = std::thread::Builder::new().stack_size(256 * 1024).spawn(|| recurse(50)).unwrap().join().unwrap();
        assert!(ok.is_ok());
    }
}
