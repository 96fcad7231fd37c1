//! The wgpu executor: a headless device, a pipeline cache keyed by program hash and state, and
//! runs of recompiled RSX programs (vertex programs through a compute pass, fragment programs
//! through a render pass into float targets), with readback. Bindings follow
//! `replay/wgsl/ABI.md`.
//!
//! Brief overview:
//! - [`Gpu::new`] opens a device on Vulkan (lavapipe without a GPU) or GL, enabling
//!   `SHADER_F16` and `FLOAT32_FILTERABLE` where present; [`Gpu::info`] reports what it got.
//! - [`Gpu::run_vertex_compute`] runs a module's `vp_compute` over any number of vertices
//!   (batched by the device limits) and returns each vertex's 16 output registers and
//!   `written` mask; [`Gpu::run_vertex_compute_textured`] binds [`UploadedTexture`]s on the
//!   vertex texture units its TXL instructions sample.
//! - [`Gpu::run_fragment_eval`] runs a module's `fp_eval` over an image of per-pixel inputs,
//!   with [`TextureBinding`]s on its texture units, and returns each pixel's four colours,
//!   depth and kill flag; derivatives are the hardware's, across 2×2 quads. A binding bound
//!   again takes the texture uploaded the first time (`upload_cache`, by content).
//! - [`shade_gpu`] is `shade` (fixed full-screen inputs) through `fp_eval`.
//! - [`Gpu::raster_draw`] draws with a state-driven pipeline ([`RasterPipelineDesc`]: topology,
//!   culling, depth/stencil, blending and write masks per target, real target formats) into
//!   [`ColorTarget`]s and a [`DepthTarget`] that persist across draws, with upload and readback
//!   (`raster_pipeline.rs`, `raster_target.rs`).
//!
//! Every wgpu call runs inside error scopes: a module wgpu rejects is a [`GpuError`], never a
//! panic.

mod abi;
mod cache;
mod device;
mod error;
mod fragment;
mod pipeline_parts;
pub mod raster_draw;
pub mod raster_pipeline;
pub mod raster_target;
pub mod render;
mod shade;
mod texture;
mod upload_cache;
mod vertex;

pub use abi::{TEXTURE_UNITS, VERTEX_TEXTURE_UNITS};
pub use device::{Backend, Gpu, GpuInfo, GpuOptions};
pub use error::GpuError;
pub use fragment::{FragmentResult, FP_INPUTS};
pub use raster_draw::{FaceRuns, RasterDraw, RasterTargets, RasterViewport, SampleCounts};
pub use raster_pipeline::{
    BlendComponentDesc, BlendDesc, BlendFactor, BlendOperation, ColorTargetDesc, Compare, Cull,
    DepthBias, DepthFormat, DepthStencilDesc, RasterPipelineDesc, StencilDesc, StencilFaceDesc,
    StencilOperation, TargetFormat, Topology, Winding, COLOR_BEFORE_BINDING, DEPTH_BEFORE_BINDING,
    DEPTH_BOUNDS_BINDING, MAX_RASTER_TARGETS, MAX_VERTEX_ATTRIBUTES,
};
pub use raster_target::{ColorTarget, DepthContents, DepthTarget, UploadedTexture};
pub use shade::{shade_gpu, shade_inputs, GpuImage};
pub use texture::{BorderColor, Filter, SamplerDesc, TextureBinding, TextureDimension, WrapMode};
pub use vertex::{
    SubmittedVertexBatch, VertexJob, VertexResult, VertexTextures, VP_CONSTANTS, VP_INPUTS,
    VP_OUTPUTS,
};
