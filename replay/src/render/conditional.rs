//! Conditional rendering (`SET_RENDER_ENABLE` mode 2): the hardware renders such a draw only
//! when the report at the given offset holds a non-zero sample count, the result of an
//! occlusion query (`SET_ZPASS_PIXEL_COUNT_ENABLE`, `GET_REPORT` of `ZPASS_PIXEL_CNT`; RPCS3
//! `nv4097::set_render_mode`, `thread::enable_conditional_rendering`, which skips the draw
//! when the count is 0). Occlusion queries are not modelled here (the count of a query made
//! before the capture began is not in it either), so both renderers draw it as if the count
//! were non-zero, and say so.

use rsxtrace_capture::frame::Draw;

/// The warning of a draw rendered only when an occlusion query passed.
pub fn conditional_render_note(draw: &Draw) -> Option<String> {
    let enable = draw.raster.render_enable;
    enable.conditional().then(|| {
        format!(
            "SET_RENDER_ENABLE conditional rendering on the report at offset {:#x}: the \
             hardware draws it only when that occlusion query counted a sample; occlusion \
             queries are not modelled, so it is drawn",
            enable.report_offset
        )
    })
}
