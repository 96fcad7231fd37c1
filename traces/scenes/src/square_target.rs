//! The small scenes' render target: a square A8R8G8B8 colour surface with a Z24S8 depth
//! surface, both linear in local memory, and a viewport that maps clip-space x, y in -1..1
//! onto the whole surface (y down) and z onto 0..1.

use rsxtrace_capture::builder::{CaptureBuilder, SurfaceDesc, SurfaceTarget};
use rsxtrace_capture::rrc::Location;

/// Set the surface (`side` pixels a side, a power of two; colour targets A..D at `colors`,
/// the depth surface at `zeta`, target A selected) and the clip-space viewport.
pub fn square_target(b: &mut CaptureBuilder, side: u16, colors: [u32; 4], zeta: u32) {
    let target = |offset| SurfaceTarget {
        location: Location::Local,
        offset,
        pitch: u32::from(side) * 4,
    };
    let log2 = u32::from(side).trailing_zeros();
    b.set_surface(&SurfaceDesc {
        color_format: 8, // A8R8G8B8
        depth_format: 2, // Z24S8
        surface_type: 1,
        antialias: 0,
        log2_size: (log2, log2),
        color_target: 1,
        colors: colors.map(target),
        zeta: target(zeta),
        clip: (0, 0, side, side),
    });
    let half = f32::from(side) / 2.0;
    b.set_viewport(
        0,
        0,
        side,
        side,
        (0.0, 1.0),
        [half, half, 0.0, 0.0],
        [half, -half, 1.0, 0.0],
    );
}
