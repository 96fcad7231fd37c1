//! The pass class of a draw, from its surface, its colour and depth writes and, for a draw of
//! a few vertices, where its vertex program puts them:
//!
//! - `depth_only`: it writes no colour: the colour target is `none`, or all four colour-mask
//!   bits are off (depth pre-passes, occlusion queries, stencil volumes);
//! - `shadow`: a depth-only draw into a square surface (clip width = height), the shape of a
//!   shadow map;
//! - `full_screen`: it writes colour and its triangles cover the whole viewport: each corner
//!   of clip space (±0.99, ±0.99) and its centre lies inside a triangle whose vertices are all
//!   in front of the eye (w > 0). Decided by running the vertex program (the reference
//!   interpreter, unknown constants read as 0) on draws of at most [`FULL_SCREEN_MAX_VERTICES`]
//!   vertices and assembling their primitives as the rasterizer does;
//! - `colour`: every other draw.

use rsxtrace_capture::frame::{Draw, MemoryView};
use rsxtrace_replay::raster::primitive::{assemble, Assembled};
use rsxtrace_replay::render::cpu::vertex::shade_vertices;

/// Draws with more vertices are never `full_screen` (a full-screen pass is a quad or one or two
/// triangles; bounding the count keeps the check cheap).
pub const FULL_SCREEN_MAX_VERTICES: u64 = 16;

/// A draw's pass class (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pass {
    /// Writes colour, not full-screen.
    Colour,
    /// Writes no colour.
    DepthOnly,
    /// Writes no colour, into a square surface.
    Shadow,
    /// Writes colour over the whole viewport.
    FullScreen,
}

impl Pass {
    /// The name stored in `draws.pass`.
    pub fn name(self) -> &'static str {
        match self {
            Pass::Colour => "colour",
            Pass::DepthOnly => "depth_only",
            Pass::Shadow => "shadow",
            Pass::FullScreen => "full_screen",
        }
    }
}

/// Whether the draw writes colour (module docs).
pub fn writes_colour(draw: &Draw) -> bool {
    let m = &draw.raster.color_mask;
    draw.surface.color_target.raw != 0 && (m.r || m.g || m.b || m.a)
}

/// The pass class of `draw`, which sees `memory`.
pub fn classify(draw: &Draw, memory: &MemoryView<'_>) -> Pass {
    if !writes_colour(draw) {
        let clip = draw.surface.clip;
        return if clip.width == clip.height && clip.width > 0 {
            Pass::Shadow
        } else {
            Pass::DepthOnly
        };
    }
    if draw.vertex_count <= FULL_SCREEN_MAX_VERTICES && covers_clip_space(draw, memory) {
        Pass::FullScreen
    } else {
        Pass::Colour
    }
}

/// Points of clip space a full-screen draw covers (x, y after the divide by w).
const PROBES: [[f32; 2]; 5] = [
    [-0.99, -0.99],
    [0.99, -0.99],
    [-0.99, 0.99],
    [0.99, 0.99],
    [0.0, 0.0],
];

fn covers_clip_space(draw: &Draw, memory: &MemoryView<'_>) -> bool {
    let Ok(shaded) = shade_vertices(draw, memory) else {
        return false;
    };
    let Assembled::Triangles(triangles) =
        assemble(draw.primitive, shaded.outputs.len(), &shaded.starts)
    else {
        return false;
    };
    let ndc: Vec<Option<[f32; 2]>> = shaded
        .outputs
        .iter()
        .map(|o| {
            let [x, y, _, w] = o[0]; // HPOS
            (w > 0.0).then(|| [x / w, y / w])
        })
        .collect();
    PROBES.iter().all(|p| {
        triangles.iter().any(|t| {
            let corner = |i: usize| ndc.get(t.v[i] as usize).copied().flatten();
            match (corner(0), corner(1), corner(2)) {
                (Some(a), Some(b), Some(c)) => inside(*p, a, b, c),
                _ => false,
            }
        })
    })
}

/// Whether `p` lies inside the triangle `a b c` (either winding; edges included).
fn inside(p: [f32; 2], a: [f32; 2], b: [f32; 2], c: [f32; 2]) -> bool {
    let edge =
        |u: [f32; 2], v: [f32; 2]| (v[0] - u[0]) * (p[1] - u[1]) - (v[1] - u[1]) * (p[0] - u[0]);
    let (d0, d1, d2) = (edge(a, b), edge(b, c), edge(c, a));
    (d0 >= 0.0 && d1 >= 0.0 && d2 >= 0.0) || (d0 <= 0.0 && d1 <= 0.0 && d2 <= 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_either_winding_and_outside() {
        let (a, b, c) = ([-1.0, -1.0], [3.0, -1.0], [-1.0, 3.0]);
        for p in PROBES {
            assert!(inside(p, a, b, c));
            assert!(inside(p, a, c, b));
        }
        assert!(!inside([0.9, 0.9], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]));
    }
}
