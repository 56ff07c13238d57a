//! The "turnstile" SQLite VFS: "unix-excl" with a lock-free shared-memory barrier.
//!
//! Why: every read transaction in WAL mode reads the WAL-index header twice
//! with a memory barrier between (walIndexTryHdr), and the unix VFS's barrier
//! also locks and unlocks a process-wide mutex "for redundancy". Under a
//! point-select load that was ~2% of the server's CPU and the one lock every
//! session of every database takes (perf: pthread_mutex_lock under
//! walIndexTryHdr). A full fence is what the barrier has to provide. This VFS
//! is "unix-excl" with `xOpen` wrapped: files it opens get a copy of the unix
//! I/O methods whose `xShmBarrier` is a sequentially consistent fence.
//! Everything else (locking, the WAL, fsync) is the unix VFS's own code.
//!
//! The copy's `xShmLock` also counts every release of a WAL's write lock or
//! checkpoint lock (`log_generation`): whatever committed, rolled back or
//! checkpointed, in any database, has finished by then. A read snapshot taken
//! when the count was N has seen every commit if the count is still N (see
//! `Conn::held_read`).

use rusqlite::ffi;
use std::os::raw::{c_char, c_int};
use std::sync::atomic::{fence, AtomicPtr, AtomicU64, Ordering};
use std::sync::{Once, OnceLock};
use turnstile_engine::clock::coarse_ms;

/// The VFS name connections are opened with.
pub const NAME: &str = "turnstile";
const NAME_C: &[u8] = b"turnstile\0";

static REGISTER: Once = Once::new();
static BASE_VFS: AtomicPtr<ffi::sqlite3_vfs> = AtomicPtr::new(std::ptr::null_mut());
/// (the unix methods the copy was made from, the copy).
static METHODS: OnceLock<(usize, usize)> = OnceLock::new();

unsafe extern "C" fn shm_barrier(_file: *mut ffi::sqlite3_file) {
    fence(Ordering::SeqCst);
}

/// Releases of a WAL write or checkpoint lock since the server started.
static LOG_GENERATION: AtomicU64 = AtomicU64::new(0);
/// When the last one happened (coarse monotonic clock, milliseconds).
static LOG_CHANGED_MS: AtomicU64 = AtomicU64::new(0);

/// Milliseconds since the log generation last changed.
pub fn log_quiet_ms() -> u64 {
    coarse_ms().saturating_sub(LOG_CHANGED_MS.load(Ordering::Relaxed))
}
/// The unix VFS's xShmLock, which `shm_lock` calls.
static BASE_SHM_LOCK: AtomicPtr<()> = AtomicPtr::new(std::ptr::null_mut());

/// WAL-index lock slots (SQLite's WAL_WRITE_LOCK and WAL_CKPT_LOCK).
const WAL_WRITE_LOCK: c_int = 0;
const WAL_CKPT_LOCK: c_int = 1;

/// Set when a file was opened without the counting methods (another locking
/// style): then the count misses its commits and is not to be relied on.
static UNTRACKED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// True while every file opened so far counts its lock releases.
pub fn log_generation_tracked() -> bool {
    !BASE_SHM_LOCK.load(Ordering::Acquire).is_null() && !UNTRACKED.load(Ordering::Acquire)
}

/// Changes whenever a write transaction or checkpoint on any database has
/// ended (after its WAL-index header is published, before its caller returns).
pub fn log_generation() -> u64 {
    LOG_GENERATION.load(Ordering::Acquire)
}

unsafe extern "C" fn shm_lock(file: *mut ffi::sqlite3_file, ofst: c_int, n: c_int, flags: c_int) -> c_int {
    type ShmLock = unsafe extern "C" fn(*mut ffi::sqlite3_file, c_int, c_int, c_int) -> c_int;
    // SAFETY: set to the unix method (a valid ShmLock) before any file gets this table.
    let base: ShmLock = std::mem::transmute::<*mut (), ShmLock>(BASE_SHM_LOCK.load(Ordering::Acquire));
    let rc = base(file, ofst, n, flags);
    if flags == ffi::SQLITE_SHM_UNLOCK | ffi::SQLITE_SHM_EXCLUSIVE && ofst <= WAL_CKPT_LOCK && ofst + n > WAL_WRITE_LOCK {
        LOG_GENERATION.fetch_add(1, Ordering::AcqRel);
        LOG_CHANGED_MS.store(coarse_ms(), Ordering::Relaxed);
    }
    rc
}

unsafe extern "C" fn open(_vfs: *mut ffi::sqlite3_vfs, name: *const c_char, file: *mut ffi::sqlite3_file, flags: c_int, out_flags: *mut c_int) -> c_int {
    let base = BASE_VFS.load(Ordering::Acquire);
    // SAFETY: base is the registered unix-excl VFS (set before this VFS was
    // registered); `file` has room for its szOsFile, which this VFS copies.
    let rc = match (*base).xOpen {
        Some(f) => f(base, name, file, flags, out_flags),
        None => return ffi::SQLITE_CANTOPEN,
    };
    let orig = (*file).pMethods;
    if rc == ffi::SQLITE_OK && !orig.is_null() && (*orig).iVersion >= 2 {
        let (from, copy) = *METHODS.get_or_init(|| {
            let mut m: ffi::sqlite3_io_methods = std::ptr::read(orig);
            m.xShmBarrier = Some(shm_barrier);
            if let Some(lock) = m.xShmLock {
                BASE_SHM_LOCK.store(lock as *mut (), Ordering::Release);
                m.xShmLock = Some(shm_lock);
            }
            (orig as usize, Box::into_raw(Box::new(m)) as usize)
        });
        // Only files with the very methods the copy was made from (the unix
        // VFS uses one table per locking style; a different one is left as is).
        if from == orig as usize {
            (*file).pMethods = copy as *const ffi::sqlite3_io_methods;
        } else if (*orig).xShmMap.is_some() {
            // A file with shared memory (a database) the copy does not cover.
            // (Logs and journals use lock-free methods without it.)
            UNTRACKED.store(true, Ordering::Release);
        }
    }
    rc
}

/// Register the VFS (once, before the first connection opens). Returns the
/// name to open connections with: "turnstile", or `super::VFS` if SQLite does
/// not have that VFS (then nothing is registered).
pub fn name() -> &'static str {
    REGISTER.call_once(|| {
        // SAFETY: sqlite3_vfs_find and sqlite3_vfs_register are thread-safe
        // (SQLITE_THREADSAFE=1); the copied struct is leaked, so it lives as
        // long as SQLite may use it.
        unsafe {
            if ffi::sqlite3_initialize() != ffi::SQLITE_OK {
                return;
            }
            let Ok(base_name) = std::ffi::CString::new(super::VFS) else { return };
            let base = ffi::sqlite3_vfs_find(base_name.as_ptr());
            if base.is_null() {
                return;
            }
            BASE_VFS.store(base, Ordering::Release);
            let mut v: ffi::sqlite3_vfs = std::ptr::read(base);
            v.pNext = std::ptr::null_mut();
            v.zName = NAME_C.as_ptr() as *const c_char;
            v.xOpen = Some(open);
            let v = Box::into_raw(Box::new(v));
            if ffi::sqlite3_vfs_register(v, 0) != ffi::SQLITE_OK {
                BASE_VFS.store(std::ptr::null_mut(), Ordering::Release);
            }
        }
    });
    if BASE_VFS.load(Ordering::Acquire).is_null() {
        super::VFS
    } else {
        NAME
    }
}
