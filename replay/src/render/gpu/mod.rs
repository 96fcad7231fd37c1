//! The GPU render: the recompiled programs on a wgpu device with the draw's state.

use super::{RenderError, RenderOptions, RenderedFrame};
use rsxtrace_capture::frame::Frame;
use rsxtrace_gpu::Gpu;

/// Render `frame` on `gpu`.
pub fn render_frame(
    gpu: &Gpu,
    frame: &Frame,
    options: &RenderOptions,
) -> Result<RenderedFrame, RenderError> {
    let _ = (gpu, frame, options);
    Err(RenderError::Unsupported("the GPU render is being written".into()))
}
