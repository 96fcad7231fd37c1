//! A progress bar of a frame's draws on standard error (hidden when it is not a terminal), as
//! a render's draw observer: it does not look at memory, so the render pays nothing for it.

use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_replay::render::DrawObserver;

/// Counts the draws a render has done.
pub struct DrawProgress {
    bar: indicatif::ProgressBar,
}

impl DrawProgress {
    /// A bar of `draws` draws, named `what` (`replay`, `history`).
    pub fn new(what: &str, draws: usize) -> DrawProgress {
        let bar = indicatif::ProgressBar::new(draws as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(&format!(
                "{what} {{bar:30}} {{pos}}/{{len}} draws {{elapsed}}"
            ))
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        DrawProgress { bar }
    }

    /// Clears the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Drop for DrawProgress {
    /// A render that fails leaves no bar behind.
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

impl DrawObserver for DrawProgress {
    fn before(&mut self, _draw: usize, _memory: &dyn GuestMemory) {}
    fn after(&mut self, _draw: usize, _memory: &dyn GuestMemory) {}
    fn active(&self) -> bool {
        false
    }
    fn drawn(&mut self, _draw: usize) {
        self.bar.inc(1);
    }
}
