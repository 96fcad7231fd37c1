//! The CPU reference render: the interpreter and a simple rasterizer following the RSX rules.

use super::{RenderError, RenderOptions, RenderedFrame};
use rsxtrace_capture::frame::Frame;

/// Render `frame` on the CPU.
pub fn render_frame(frame: &Frame, options: &RenderOptions) -> Result<RenderedFrame, RenderError> {
    let _ = (frame, options);
    Err(RenderError::Unsupported("the CPU render is being written".into()))
}
