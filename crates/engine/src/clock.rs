//! The coarse monotonic clock, shared by the engine and the server.
//!
//! Why: a vDSO read with no system call and a resolution of a few
//! milliseconds, plenty for timeouts counted in seconds, the pool's kick-up
//! timer and the engine's "log quiet for 20 ms". It is read on every queued
//! pool item, parked connection and commit, where `Instant::now` was a
//! measurable share of the cost.

/// Milliseconds on CLOCK_MONOTONIC_COARSE. Inlined: a call costs as much
/// as the arithmetic around the vDSO read (fat LTO stopped inlining it into
/// the pool's loop on its own).
#[inline]
pub fn coarse_ms() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: valid out-pointer; CLOCK_MONOTONIC_COARSE cannot fail on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_COARSE, &mut ts) };
    ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000
}
