//! Frame replay to images: every draw of a captured frame rendered with its state into its
//! surfaces, on the CPU with the reference interpreter ([`cpu`]) or on a GPU device with the
//! recompiled programs ([`gpu`]). Both return a [`RenderedFrame`].
//!
//! - [`state`]: the draw's raster state decoded into the enums both renderers use.
//! - [`surface`]: surface formats, their bytes in guest memory, and the frame's surface memory
//!   (what the draws rendered, readable by later draws as textures).

pub mod color8;
pub mod cpu;
pub mod gpu;
mod output;
pub mod state;
pub mod surface;

pub use output::{
    DrawSnapshot, OutputSource, RenderError, RenderOptions, RenderTimings, RenderWarning,
    RenderedFrame, Rgba8Image,
};
