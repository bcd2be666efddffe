//! Ctrl-C (SIGINT), SIGTERM and SIGHUP: a stopped command leaves no temporary file behind, and a
//! run that checkpoints saves one more checkpoint before it exits, so it resumes where it stopped.
//!
//! The first signal sets a flag. A command that stops cooperatively ([`cooperate`]: the runs with
//! `--checkpoint`) sees it between steps ([`requested`]), saves, and exits with status 130; every
//! other command, and a second signal, removes the temporary files in flight
//! ([`gradfree_core::files::remove_pending_temps`]) and exits with status 130 at once.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

static COOPERATIVE: AtomicBool = AtomicBool::new(false);
static SIGNALS: AtomicUsize = AtomicUsize::new(0);

/// Exit status of a command stopped by a signal (128 + SIGINT, as shells report Ctrl-C).
pub const STATUS: u8 = 130;

/// Installs the handler (once, at the start of `main`).
pub fn install() {
    let _ = ctrlc::set_handler(|| {
        let n = SIGNALS.fetch_add(1, Ordering::SeqCst);
        if n == 0 && COOPERATIVE.load(Ordering::SeqCst) {
            return;
        }
        gradfree_core::files::remove_pending_temps();
        eprintln!("\nerror: stopped by a signal; no file was left half-written");
        std::process::exit(i32::from(STATUS));
    });
}

/// From now on the command stops itself at the first signal (it checks [`requested`] between
/// steps and saves a checkpoint first).
pub fn cooperate() {
    COOPERATIVE.store(true, Ordering::SeqCst);
}

/// Whether a signal asked the command to stop.
pub fn requested() -> bool {
    SIGNALS.load(Ordering::SeqCst) > 0
}

/// The error a cooperative command returns once it has saved: the binary exits with [`STATUS`].
#[derive(Debug, thiserror::Error)]
#[error("stopped by a signal; the checkpoint {0} holds the run: continue it with --resume {0}")]
pub struct Stopped(pub String);
