//! Watching a frame render draw by draw: both renderers show a [`DrawObserver`] the guest
//! memory with the rendered surfaces on top right before each draw of the range (its clears
//! and transfers applied) and right after it, so that a front end can read any surface at
//! those moments (the draw's own targets, its textures) without rendering the frame again.
//! The GPU render writes its bound targets back to the surface memory before each call. An
//! observer that does not look ([`DrawObserver::active`]) still hears of each draw
//! ([`DrawObserver::drawn`]), e.g. for a progress bar.

use rsxtrace_capture::fetch::GuestMemory;

/// Sees the memory around each rendered draw (see the module documentation).
pub trait DrawObserver {
    /// Before draw `draw` is rendered, after the clears and transfers before it.
    fn before(&mut self, draw: usize, memory: &dyn GuestMemory);
    /// After draw `draw` was rendered (or skipped: then `memory` is as it was before).
    fn after(&mut self, draw: usize, memory: &dyn GuestMemory);
    /// Whether it looks at all. A renderer must bring its targets back to memory before it
    /// shows them (the GPU render reads them back from the device), so it asks first.
    fn active(&self) -> bool {
        true
    }
    /// After draw `draw` was rendered or skipped, whether or not the observer looks
    /// ([`active`](Self::active)): for progress, at no cost to the render.
    fn drawn(&mut self, _draw: usize) {}
    /// When the render ends, after its last draw and the clears and transfers after it (when
    /// the range reaches the end of the frame): the memory the output image is read from.
    /// Only an observer that [`looks_at_the_end`](Self::looks_at_the_end) is shown it.
    fn finished(&mut self, _memory: &dyn GuestMemory) {}
    /// Whether it looks at the memory when the render ends ([`finished`](Self::finished)):
    /// an observer can look there without looking around each draw (which makes the GPU
    /// render read its targets back twice a draw).
    fn looks_at_the_end(&self) -> bool {
        self.active()
    }
    /// Whether what it reads at the end stands in for the output image (a target grab,
    /// `replay --target`): a frame no draw writes colour in is then rendered without one.
    fn replaces_the_output(&self) -> bool {
        false
    }
}

/// Two observers as one: each is shown what it looks at, and hears of every draw.
pub struct Both<'a>(pub &'a mut dyn DrawObserver, pub &'a mut dyn DrawObserver);

impl DrawObserver for Both<'_> {
    fn before(&mut self, draw: usize, memory: &dyn GuestMemory) {
        for o in [&mut *self.0, &mut *self.1] {
            if o.active() {
                o.before(draw, memory);
            }
        }
    }
    fn after(&mut self, draw: usize, memory: &dyn GuestMemory) {
        for o in [&mut *self.0, &mut *self.1] {
            if o.active() {
                o.after(draw, memory);
            }
        }
    }
    fn active(&self) -> bool {
        self.0.active() || self.1.active()
    }
    fn drawn(&mut self, draw: usize) {
        self.0.drawn(draw);
        self.1.drawn(draw);
    }
    fn finished(&mut self, memory: &dyn GuestMemory) {
        for o in [&mut *self.0, &mut *self.1] {
            if o.looks_at_the_end() {
                o.finished(memory);
            }
        }
    }
    fn looks_at_the_end(&self) -> bool {
        self.0.looks_at_the_end() || self.1.looks_at_the_end()
    }
    fn replaces_the_output(&self) -> bool {
        self.0.replaces_the_output() || self.1.replaces_the_output()
    }
}

/// The observer that looks at nothing (what `render_frame` uses).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoObserver;

impl DrawObserver for NoObserver {
    fn before(&mut self, _draw: usize, _memory: &dyn GuestMemory) {}
    fn after(&mut self, _draw: usize, _memory: &dyn GuestMemory) {}
    fn active(&self) -> bool {
        false
    }
}
