//! What the process must set up before (and as) it starts, so that the operating system's limits
//! reach the command as errors it can report instead of signals that kill it. The one module of
//! the workspace that needs `unsafe` (calls into the C library, a constructor and an allocator);
//! each unsafe block states why it is sound.
//!
//! - **A closed standard output stays closed.** Rust's runtime replaces a closed descriptor 0, 1
//!   or 2 with `/dev/null` opened for reading and writing, which looks exactly like a caller's
//!   `subprocess.DEVNULL` or `1<>/dev/null`: a command could not tell "the caller discards the
//!   output" (normal) from "there is no output" (`gradfree ... >&-`). A constructor that runs
//!   before the runtime ([`probe_stdout`]) puts `/dev/null` opened *read-only* on a closed
//!   descriptor 1, so every write to it fails with `EBADF`, as it would have in a C program, and
//!   [`stdout_writable`] tells the command before it starts.
//! - **A file-size limit is an error, not a signal.** Under `ulimit -f` the kernel kills a process
//!   that writes past the limit with `SIGXFSZ`; with the signal ignored ([`ignore_file_size_signal`])
//!   the write fails with `EFBIG`, which every writer reports naming its file and the limit
//!   (`gradfree_core::files::describe_io`), after removing its temporary file.
//! - **An allocation that fails ends the command with a message** ([`Guarded`]): every size that
//!   grows with an argument is checked against the memory available before it is allocated
//!   (`gradfree_core::memory`), and this is the net under those checks. The default would abort
//!   (`memory allocation of N bytes failed`, SIGABRT) and leave temporary files behind; instead the
//!   command frees a reserve, removes its temporary files, prints one `error:` line with the size
//!   and the memory limits it read, and exits with status 2.

#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

/// Runs [`probe_stdout`] before `main` and before Rust's runtime sanitizes the standard
/// descriptors (the ELF `.init_array` section is run by the C library's start-up code, before
/// `main`, with the arguments `argc, argv, envp`, which a function of no arguments may ignore in
/// the C calling convention).
#[used]
#[unsafe(link_section = ".init_array")]
static PROBE_STDOUT: extern "C" fn() = probe_stdout;

/// If descriptor 1 is closed, opens `/dev/null` read-only on it (see the module documentation).
extern "C" fn probe_stdout() {
    // SAFETY: fcntl, open, dup2 and close take plain integers and a NUL-terminated path; they
    // touch no Rust-owned memory, and no Rust object owns descriptor 1 yet (the runtime has not
    // started).
    unsafe {
        if libc::fcntl(1, libc::F_GETFD) != -1 {
            return;
        }
        let fd = libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY);
        if fd >= 0 && fd != 1 {
            // Descriptor 0 was closed too and took the lowest number: move it to 1 (the runtime
            // then gives 0 its own `/dev/null`).
            libc::dup2(fd, 1);
            libc::close(fd);
        }
    }
}

/// Whether standard output is open for writing: a closed one ([`probe_stdout`]) or one opened
/// read-only fails every write with `EBADF`. Anything else, `/dev/null` included however it was
/// opened, is a standard output to write to.
pub fn stdout_writable() -> bool {
    use std::os::fd::AsFd;
    static WRITABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *WRITABLE.get_or_init(|| {
        let out = std::io::stdout();
        rustix::fs::fcntl_getfl(out.as_fd()).is_ok_and(|f| f & rustix::fs::OFlags::RWMODE != rustix::fs::OFlags::RDONLY)
    })
}

/// Ignores `SIGXFSZ`, so a write past the file-size limit (`ulimit -f`) fails with `EFBIG`
/// instead of killing the process (as Python does at start-up).
pub fn ignore_file_size_signal() {
    // SAFETY: setting a signal's disposition to SIG_IGN installs no handler and shares no memory.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// Bytes set aside at start-up and freed when an allocation fails, so that the error message
/// and the removal of temporary files can allocate.
const RESERVE_BYTES: usize = 1 << 20;

static RESERVE: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static FAILED: AtomicBool = AtomicBool::new(false);

fn reserve_layout() -> Layout {
    Layout::from_size_align(RESERVE_BYTES, 64).expect("a valid layout")
}

/// The command's allocator: mimalloc (see the workspace manifest for why), with the net of the
/// module documentation for an allocation that fails.
pub struct Guarded;

impl Guarded {
    /// Sets the reserve aside (once, at the start of `main`).
    pub fn reserve() {
        // SAFETY: a non-zero-sized layout; the pointer is kept until `out_of_memory` frees it.
        let p = unsafe { mimalloc::MiMalloc.alloc(reserve_layout()) };
        RESERVE.store(p, Ordering::SeqCst);
    }
}

/// Ends the process after an allocation of `bytes` failed (see the module documentation).
#[cold]
fn out_of_memory(bytes: usize) -> ! {
    if FAILED.swap(true, Ordering::SeqCst) {
        // Failing again while reporting: say the least, without allocating, and stop.
        let message = b"error: out of memory\n";
        // SAFETY: writes a static buffer to descriptor 2 and ends the process at once.
        unsafe {
            libc::write(2, message.as_ptr().cast(), message.len());
            libc::_exit(2);
        }
    }
    let reserve = RESERVE.swap(std::ptr::null_mut(), Ordering::SeqCst);
    if !reserve.is_null() {
        // SAFETY: allocated in `Guarded::reserve` with this layout, and freed once (swapped out).
        unsafe { mimalloc::MiMalloc.dealloc(reserve, reserve_layout()) };
    }
    gradfree_core::files::remove_pending_temps();
    eprintln!("error: {}", gradfree_core::memory::allocation_failed(bytes as u128));
    std::process::exit(2);
}

// SAFETY: every method forwards to mimalloc's, which implements the `GlobalAlloc` contract; the
// only addition is what happens when mimalloc returns null, which does not return.
unsafe impl GlobalAlloc for Guarded {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout, as the contract requires.
        let p = unsafe { mimalloc::MiMalloc.alloc(layout) };
        if p.is_null() {
            out_of_memory(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) };
        if p.is_null() {
            out_of_memory(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator (mimalloc) with `layout`.
        unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as `dealloc`, with the caller's new size.
        let p = unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) };
        if p.is_null() {
            out_of_memory(new_size);
        }
        p
    }
}

/// Starts rayon's global pool before any work. Rayon panics when its first parallel call cannot
/// spawn the pool's threads (an address-space limit: each thread reserves its stack), and a failed
/// start cannot be retried, so a pool of the usual size is first built as a probe and dropped;
/// where it cannot start, the global pool is the main thread alone (`use_current_thread`: no thread
/// to spawn), which gives the same results (they do not depend on the thread count). An error is
/// the message for the user.
pub fn start_threads() -> Result<(), String> {
    let fits = rayon::ThreadPoolBuilder::new().build().is_ok();
    let builder = if fits { rayon::ThreadPoolBuilder::new() } else { rayon::ThreadPoolBuilder::new().num_threads(1).use_current_thread() };
    builder
        .build_global()
        .map_err(|e| format!("cannot start the worker threads: {e} (under an address-space limit such as `ulimit -v`, allow more memory)"))
}
