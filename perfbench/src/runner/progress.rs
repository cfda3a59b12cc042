//! The suite's progress line on standard error: `⠋ [3/12] group/name: sample 40/100 2.4s`.
//!
//! Drawn only when standard error is a terminal, and only once the run has lasted a second (a
//! quick suite prints nothing extra); redrawn five times a second by a helper thread, cut to the
//! terminal's width so `\r` can erase it. Anything else the runner prints goes through
//! [`Progress::suspend`], which erases the line first. A handful of lines instead of the
//! indicatif crate, which with its dependencies cost about 5 s of CPU in every clean downstream
//! build (a quarter of the build budget; see docs/validation.md, "Against criterion").

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

const SPINNER: [char; 8] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧'];

#[derive(Debug)]
struct State {
    len: u64,
    pos: u64,
    message: String,
    start: Instant,
    /// The line is on the screen now (and must be erased before other output).
    drawn: bool,
    finished: bool,
    ticks: usize,
}

impl State {
    /// The line, at most `width` characters.
    fn line(&self, width: usize) -> String {
        let line = format!(
            "{} [{}/{}] {} {:.1}s",
            SPINNER[self.ticks % SPINNER.len()],
            self.pos,
            self.len,
            self.message,
            self.start.elapsed().as_secs_f64()
        );
        line.chars().take(width.saturating_sub(1)).collect()
    }
}

/// A progress line shared by the runner and the sampler's callbacks (clones share it).
#[derive(Clone, Debug)]
pub struct Progress {
    state: Arc<Mutex<State>>,
}

fn erase(out: &mut impl Write) {
    let _ = out.write_all(b"\r\x1b[2K");
    let _ = out.flush();
}

impl Progress {
    /// A line for `len` steps (a round of one benchmark each): drawn after a second when standard error is a terminal,
    /// never otherwise.
    pub fn new(len: u64) -> Self {
        let p = Progress {
            state: Arc::new(Mutex::new(State {
                len,
                pos: 0,
                message: String::new(),
                start: Instant::now(),
                drawn: false,
                finished: false,
                ticks: 0,
            })),
        };
        if std::io::stderr().is_terminal() {
            let drawer = p.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_secs(1));
                while drawer.tick() {
                    std::thread::sleep(Duration::from_millis(200));
                }
            });
        }
        p
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while the lock was held (in a benchmark's note, say) leaves a usable state.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Draws the line once; false when finished.
    fn tick(&self) -> bool {
        let mut s = self.lock();
        if s.finished {
            return false;
        }
        s.ticks += 1;
        let width = crate::sys::stderr_columns().map_or(80, usize::from);
        let line = s.line(width);
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{line}");
        let _ = err.flush();
        s.drawn = true;
        true
    }

    /// Adds `n` steps to the line's length (rounds the run did not plan).
    pub fn grow(&self, n: u64) {
        self.lock().len += n;
    }

    /// What the line says after the counter.
    pub fn set_message(&self, message: String) {
        self.lock().message = message;
    }

    /// `n` more steps (rounds of benchmarks) done.
    pub fn advance(&self, n: u64) {
        self.lock().pos += n;
    }

    /// Runs `f` (which prints) with the line erased; it comes back at the next redraw.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        let mut s = self.lock();
        if s.drawn {
            erase(&mut std::io::stderr().lock());
            s.drawn = false;
        }
        f()
    }

    /// Erases the line for good.
    pub fn finish_and_clear(&self) {
        let mut s = self.lock();
        s.finished = true;
        if s.drawn {
            erase(&mut std::io::stderr().lock());
            s.drawn = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_counts_and_fits_the_width() {
        let p = Progress::new(12);
        p.advance(1);
        p.advance(1);
        p.set_message("group/name: sample 40/100".into());
        let line = p.lock().line(80);
        assert!(
            line.contains(" [2/12] group/name: sample 40/100 0."),
            "{line}"
        );
        assert_eq!(p.lock().line(10).chars().count(), 9);
        assert_eq!(p.lock().line(0), "");
        // Not a terminal here: nothing was drawn, and suspend just runs its closure.
        assert_eq!(p.suspend(|| 7), 7);
        p.finish_and_clear();
        assert!(!p.tick(), "a finished line is never drawn again");
    }
}
