//! Frame replay to images: every draw of a captured frame rendered with its state into its
//! surfaces, on the CPU with the reference interpreter ([`cpu`]) or on a GPU device with the
//! recompiled programs ([`gpu`]). Both return a [`RenderedFrame`].
//!
//! - [`state`]: the draw's raster state decoded into the enums both renderers use.
//! - [`surface`]: surface formats, their bytes in guest memory, and the frame's surface memory
//!   (what the draws rendered, readable by later draws as textures).
//! - [`msaa`]: multisampled surfaces: the sample grid in memory, drawing into it, the resolve.
//! - [`conditional`]: occlusion counting and conditional rendering, decided alike by both
//!   renderers.
//! - [`transfer`]: image transfers between draws (`NV0039`, `NV3089` through `NV3062`/`NV309E`)
//!   applied to the surface memory by both renderers.
//! - [`scene`]: a capture opened and decoded into the frame and its events, ready to render.
//! - [`draw_range`]: ranges of draws (`A..B`) as front ends take them.
//! - [`observe`]: a [`DrawObserver`] sees the surface memory before and after each draw.
//! - [`target`]: any colour or depth target as an image (`replay --target`, the report).
//! - [`overdraw`]: the fragments the draws rasterize per pixel of a target (`overdraw`), and
//!   those that pass (counted by the CPU render).
//! - [`tile_regions`]: captured bytes a render reads inside a bound tile region (stored
//!   tiled by RPCS3, read linearly here), warned about by both renderers.
//! - [`band`]: one band of rows of the output image ([`RenderOptions::band`]), for a frame
//!   split across machines, and the merge of the bands.

pub mod band;
pub mod color8;
pub mod conditional;
pub mod cpu;
pub mod draw_range;
pub(crate) mod extent;
pub mod gpu;
pub mod history;
pub mod msaa;
pub mod observe;
mod output;
pub mod overdraw;
pub mod scene;
pub mod state;
pub mod statistics;
pub mod surface;
pub mod target;
pub mod tile_regions;
pub mod transfer;

pub use observe::{Both, DrawObserver, NoObserver};
pub use output::{
    DrawShading, DrawSnapshot, OutputSource, RenderError, RenderOptions, RenderTimings,
    RenderWarning, RenderedFrame, Rgba8Image, ShadingStats, SurfaceTraffic, Tiling,
};
pub use scene::{Scene, SceneError};
