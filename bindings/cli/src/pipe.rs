//! `grail check F | head` closes stdout early: Rust ignores SIGPIPE, so `print!` would panic
//! ("failed printing to stdout: Broken pipe"). Restoring the default action ends the process
//! quietly, as `cat` does.

pub fn quiet_on_closed_stdout() {
    #[cfg(unix)]
    // SAFETY: called first thing in main, before any thread starts; SIG_DFL is a valid action.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
