//! Image transfers between draws: `NV0039` memory-to-memory copies, `NV3089` scaled images
//! written through an `NV3062` 2D surface or an `NV309E` swizzled surface, and `NV308A`
//! images sent inline in the command stream (one pixel per `COLOR` word), decoded from the
//! register file at the command that starts them ([`decode`]) and applied to the frame's
//! surface memory ([`apply`]) by both renderers at their place between draws, so that a later
//! draw sampling the destination reads the copy.
//!
//! - [`decode`]: the registers of each class and their fields (RPCS3 `rsx_decode.h`,
//!   `gcm_enums.h`, `NV47/HW/nv0039.cpp`, `NV47/HW/nv3089.cpp`, `NV47/HW/nv308a.cpp`), into
//!   [`Transfer`].
//! - [`apply`]: the copy and the scaling rule on [`SurfaceMemory`].
//!
//! A transfer variant the replay does not model (another operation than SRCCOPY, a YUV or
//! BGR source, a zero scale) is kept as an [`Unsupported`] event with a message naming
//! the command; the renderers warn and go on ([`apply_event`]). [`FrameEvents::between_draws`]
//! orders transfers and clears as the stream does.

pub mod apply;
pub mod decode;

use super::state::{ClearEvent, FrameEvents};
use super::surface::SurfaceMemory;
use rsxtrace_capture::fetch::GuestMemory;

pub use apply::{apply_transfer, destination_extent, source_extent};
pub use decode::{
    ContextSurface, DestinationFormat, InlinePixel, Interpolator, MemoryCopy, Origin, ScaledImage,
    SourceFormat, Transfer, Unsupported,
};

/// One transfer with its place in the frame.
#[derive(Clone, Debug, PartialEq)]
pub struct TransferEvent {
    /// Command index of the method that starts it (`NV0039_BUFFER_NOTIFY`, `NV3089_IMAGE_IN`).
    pub command: usize,
    /// It happens before draw `before_draw` (= the number of draws ended before it).
    pub before_draw: usize,
    /// What it does, or why it cannot be replayed.
    pub transfer: Result<Transfer, Unsupported>,
}

/// An event between draws: a clear or a transfer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BetweenDraws<'a> {
    /// `CLEAR_SURFACE`.
    Clear(&'a ClearEvent),
    /// `NV0039_BUFFER_NOTIFY` or `NV3089_IMAGE_IN`.
    Transfer(&'a TransferEvent),
}

impl BetweenDraws<'_> {
    /// The draw it happens before.
    pub fn before_draw(&self) -> usize {
        match self {
            BetweenDraws::Clear(c) => c.before_draw,
            BetweenDraws::Transfer(t) => t.before_draw,
        }
    }

    /// Its command index.
    pub fn command(&self) -> usize {
        match self {
            BetweenDraws::Clear(c) => c.command,
            BetweenDraws::Transfer(t) => t.command,
        }
    }
}

impl FrameEvents {
    /// Clears and transfers merged in stream order (the order both renderers apply them in).
    pub fn between_draws(&self) -> Vec<BetweenDraws<'_>> {
        let mut all: Vec<BetweenDraws<'_>> = self
            .clears
            .iter()
            .map(BetweenDraws::Clear)
            .chain(self.transfers.iter().map(BetweenDraws::Transfer))
            .collect();
        all.sort_by_key(|e| e.command());
        all
    }
}

/// The warning for a transfer that is not replayed, or the notes of one that is.
pub fn apply_event(
    event: &TransferEvent,
    surfaces: &mut SurfaceMemory,
    base: &dyn GuestMemory,
) -> Vec<String> {
    match &event.transfer {
        Ok(t) => apply_transfer(t, surfaces, base)
            .into_iter()
            .map(|m| format!("transfer at command {}: {m}", event.command))
            .collect(),
        Err(e) => vec![format!("{e}; not replayed")],
    }
}
