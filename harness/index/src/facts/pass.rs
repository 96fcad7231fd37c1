//! The pass class of a draw, from its surface, its colour and depth writes and where its
//! vertex program puts its vertices:
//!
//! - `depth_only`: it writes no colour: the colour target is `none`, or all four colour-mask
//!   bits are off (depth pre-passes, occlusion queries, stencil volumes);
//! - `shadow`: a depth-only draw into a square surface (clip width = height), the shape of a
//!   shadow map;
//! - `full_screen`: it writes colour and its triangles cover the whole viewport: each corner
//!   of clip space (±0.99, ±0.99) and its centre lies inside a triangle whose vertices are all
//!   in front of the eye (w > 0). Decided exactly by running the vertex program (the reference
//!   interpreter, unknown constants read as 0) on every vertex and assembling the primitives
//!   as the rasterizer does, for draws of triangles whose work (vertices × the program's
//!   instructions) is at most [`FULL_SCREEN_MAX_WORK`]: a quad, a fan, or a grid with a short
//!   program. The box around the vertices in front of the eye is tested first: a draw
//!   whose box leaves out a probe cannot cover it, and needs no triangle test;
//! - `colour`: every other draw.

use rsxtrace_capture::frame::{Draw, MemoryView, Primitive};
use rsxtrace_replay::raster::primitive::{assemble, Assembled};
use rsxtrace_replay::render::cpu::vertex::{shade_vertices, OutputsByPosition};
use rsxtrace_replay::render::target::shadow_shaped;

/// Most work (submitted vertices × vertex program instructions, entry through END) a draw's
/// full-screen check may take: draws with more are not run and are never `full_screen`. A
/// full-screen pass is a quad, a fan or a grid run through a short program (a 9 × 9 grid drawn
/// as 8 strips of 18 vertices with a 3-instruction program is 432). The bound keeps the check
/// cheap: on the game sample it runs 307 of the 2,400 draws (12.6 ms on 2 cores, against
/// 500 ms for every draw).
pub const FULL_SCREEN_MAX_WORK: u64 = 512;

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

/// Whether the draw writes colour (module docs; `rsxtrace_replay::render::target`'s rule,
/// which the frame statistics' passes share).
pub use rsxtrace_replay::render::target::writes_colour;

/// The pass class of `draw`, which sees `memory`; `instructions` is the length of its vertex
/// program from the entry through END (the fingerprint's), `None` when it does not decode.
pub fn classify(draw: &Draw, memory: &MemoryView<'_>, instructions: Option<u32>) -> Pass {
    if !writes_colour(draw) {
        return if shadow_shaped(&draw.surface) {
            Pass::Shadow
        } else {
            Pass::DepthOnly
        };
    }
    let work = instructions.map(|n| draw.vertex_count.saturating_mul(u64::from(n.max(1))));
    if triangles(draw.primitive)
        && work.is_some_and(|w| w <= FULL_SCREEN_MAX_WORK)
        && covers_clip_space(draw, memory)
    {
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

/// Whether `primitive` assembles to triangles (points and lines never cover anything).
fn triangles(primitive: Primitive) -> bool {
    !matches!(
        primitive,
        Primitive::Points | Primitive::Lines | Primitive::LineLoop | Primitive::LineStrip
    )
}

/// Whether every probe lies in the box around the points `ndc` that are in front of the eye.
fn box_holds_probes(ndc: &[Option<[f32; 2]>]) -> bool {
    let mut lo = [f32::INFINITY; 2];
    let mut hi = [f32::NEG_INFINITY; 2];
    for p in ndc.iter().flatten() {
        for k in 0..2 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    PROBES
        .iter()
        .all(|p| (0..2).all(|k| lo[k] <= p[k] && p[k] <= hi[k]))
}

fn covers_clip_space(draw: &Draw, memory: &MemoryView<'_>) -> bool {
    let Ok(shaded) = shade_vertices(draw, memory) else {
        return false;
    };
    let Assembled::Triangles(triangles) = assemble(
        draw.primitive,
        OutputsByPosition::len(&shaded.outputs),
        &shaded.starts,
    ) else {
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
    if !box_holds_probes(&ndc) {
        return false;
    }
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

    #[test]
    fn the_box_test_needs_every_probe_and_ignores_points_behind_the_eye() {
        let quad = [
            Some([-1.0, -1.0]),
            Some([1.0, -1.0]),
            Some([-1.0, 1.0]),
            Some([1.0, 1.0]),
        ];
        assert!(box_holds_probes(&quad));
        let mut short = quad;
        short[3] = Some([1.0, 0.98]);
        short[2] = Some([-1.0, 0.98]);
        assert!(!box_holds_probes(&short));
        // A point behind the eye (None) does not stretch the box.
        assert!(!box_holds_probes(&[
            Some([-1.0, -1.0]),
            None,
            Some([0.0, 0.0])
        ]));
        assert!(!box_holds_probes(&[]));
    }
}
