//! The viewport transform: clip space to window coordinates.
//!
//! `window = clip.xyz / clip.w * scale.xyz + offset.xyz` with `SET_VIEWPORT_SCALE` and
//! `SET_VIEWPORT_OFFSET` (rrc-format.md 4.8). The RSX applies these registers as they are:
//! RPCS3 (`RSXThread.cpp` `fill_scale_offset_data`) builds the same transform from them and
//! only then maps the result onto the host framebuffer. Window x grows to the right and
//! window y grows **down the surface rows** (row 0 is the surface's first line in memory): a
//! game that wants NDC +y at the top sets a negative `scale.y`, as the usual
//! `scale.y = -height / 2, offset.y = height / 2` does. Window z is the depth value before the
//! depth-range (`SET_CLIP_MIN/MAX`) test or clamp. The window offset (`SET_WINDOW_OFFSET`)
//! is applied by the renderer when it maps window pixels to surface pixels.

use rsxtrace_capture::frame::state::RasterState;

/// `SET_VIEWPORT_SCALE` / `SET_VIEWPORT_OFFSET` (x, y, z, w; w is unused).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewportTransform {
    /// Scale.
    pub scale: [f32; 4],
    /// Offset.
    pub offset: [f32; 4],
}

impl ViewportTransform {
    /// The transform of a draw's raster state.
    pub fn from_raster(raster: &RasterState) -> ViewportTransform {
        ViewportTransform {
            scale: raster.viewport.scale,
            offset: raster.viewport.offset,
        }
    }
}

/// A vertex in window coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WindowVertex {
    /// Window x (pixels, pixel centres at +0.5).
    pub x: f32,
    /// Window y (surface rows, down).
    pub y: f32,
    /// Window z.
    pub z: f32,
    /// 1 / clip w.
    pub inv_w: f32,
}

/// Transform a clip-space position; `None` when `w` is not a positive finite number or a
/// result is not finite (clip first: [`super::clip_triangle`] keeps `w > W_EPSILON`).
pub fn to_window(clip: [f32; 4], vp: &ViewportTransform) -> Option<WindowVertex> {
    let w = clip[3];
    if !(w.is_finite() && w > 0.0) {
        return None;
    }
    let inv_w = 1.0 / w;
    let v = WindowVertex {
        x: clip[0] * inv_w * vp.scale[0] + vp.offset[0],
        y: clip[1] * inv_w * vp.scale[1] + vp.offset[1],
        z: clip[2] * inv_w * vp.scale[2] + vp.offset[2],
        inv_w,
    };
    (v.x.is_finite() && v.y.is_finite() && v.z.is_finite() && v.inv_w.is_finite()).then_some(v)
}
