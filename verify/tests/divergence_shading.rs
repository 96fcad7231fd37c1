//! Verify's fragment stage feeds the program the inputs the renderers do: with flat shading and
//! two-sided colour, every covered lane of a front-facing triangle reads its **last** vertex's
//! COL0 and every lane of a back-facing one its last vertex's BFC0 (facing from the winding
//! against `SET_FRONT_FACE`; rules and sources in `rsxtrace_replay::raster::shading`), FOGC.y
//! holds the fog factor; a flat quad's lanes all read its provoking vertex v3's COL0 (the
//! renderers' geometry, shared with verify, carries it); and the draw is compared (clean), not
//! skipped.
//!
//! Scene: a 16 × 16 A8R8G8B8 target, the viewport the identity on window pixels, a vertex
//! program of MOVs (HPOS ← v0, COL0 ← v3, BFC0 ← v4, FOGC ← v5) and `MOV R0, f[COL0]`.

use crate::divergence_support;

use divergence_support::gpu;
use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
use rsxtrace_capture::builder::vertex_ucode::{
    source, VecInstruction, MASK_W, MASK_X, MASK_Y, MASK_Z, REG_INPUT, SWIZZLE_XYZW, VEC_MOV,
};
use rsxtrace_capture::builder::{CaptureBuilder, SurfaceDesc, SurfaceTarget};
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::Location;
use rsxtrace_replay::interp::fragment::io::attr;
use rsxtrace_verify::divergence::context::Context;
use rsxtrace_verify::divergence::fragment_stage::rasterize;
use rsxtrace_verify::divergence::vertex_stage::{prepare, Prepared};
use rsxtrace_verify::divergence::{verify_frame, Outcome, Stage, Tolerances, VerifyOptions};

/// Registers (byte offset / 4; rrc-format.md 4.8, RPCS3 `gcm_enums.h`).
const SET_SHADE_MODE: u32 = 0x0368 / 4;
const SET_FOG_MODE: u32 = 0x08CC / 4;
const SET_FOG_PARAMS: u32 = 0x08D0 / 4;
const SET_TWO_SIDE_LIGHT_EN: u32 = 0x142C / 4;
const SET_FRONT_FACE: u32 = 0x1834 / 4;
const SET_USER_CLIP_PLANE_CONTROL: u32 = 0x1478 / 4;
const LINES: u32 = 2;
const TRIANGLES: u32 = 5;

fn target(offset: u32) -> SurfaceTarget {
    SurfaceTarget {
        location: Location::Local,
        offset,
        pitch: 64,
    }
}

fn vertex_program() -> Vec<u32> {
    let input = source(REG_INPUT, SWIZZLE_XYZW);
    let pairs = [(3, 1), (4, 3), (5, 5), (0, 0)];
    pairs
        .iter()
        .enumerate()
        .map(|(i, &(a, o))| VecInstruction {
            opcode: VEC_MOV,
            input: a,
            constant: 0,
            sources: [input, input, input],
            output: o,
            mask: MASK_X | MASK_Y | MASK_Z | MASK_W,
            end: i == pairs.len() - 1,
        })
        .flat_map(|i| i.encode())
        .collect()
}

/// (window x, y, COL0, BFC0); FOGC = (0.25, x − 8.25, 0, 0): fog 0.25 everywhere, user clip
/// distance 0 = window x − 8.25.
type V = ([f32; 2], [f32; 4], [f32; 4]);

/// One draw of `primitive` per entry of `prims`; `clip` is `SET_USER_CLIP_PLANE_CONTROL`
/// (plane 0's distance exported when non-zero).
fn capture(
    front_cw: bool,
    primitive: u32,
    prims: &[&[V]],
    clip: u32,
) -> rsxtrace_capture::rrc::Capture {
    let mut b = CaptureBuilder::new("shading.rrc");
    b.set_surface(&SurfaceDesc {
        color_format: 8,
        depth_format: 2,
        surface_type: 1,
        antialias: 0,
        log2_size: (4, 4),
        color_target: 1,
        colors: [target(0x10_0000), target(0), target(0), target(0)],
        zeta: target(0x20_0000),
        clip: (0, 0, 16, 16),
    });
    b.set_viewport(0, 0, 16, 16, (0.0, 1.0), [0.0; 4], [1.0, 1.0, 1.0, 0.0]);
    b.set_scissor(0, 0, 16, 16);
    b.set_color_mask(0x0101_0101);
    // Outputs: front and back diffuse, fog, and user clip 0 when a plane is enabled.
    let outputs = 0b1_0101 | if clip != 0 { 1 << 6 } else { 0 };
    b.set_vertex_program(&vertex_program(), 0, 0, 0b11_1001, outputs)
        .unwrap();
    b.method(SET_USER_CLIP_PLANE_CONTROL, clip).unwrap();
    b.set_fragment_program(Location::Local, 0x1000, &FRAGMENT_MOV_COL0, 0x40)
        .unwrap();
    b.method(SET_SHADE_MODE, 0x1D00).unwrap(); // FLAT
    b.method(SET_TWO_SIDE_LIGHT_EN, 1).unwrap();
    b.method(SET_FOG_MODE, 0x2601).unwrap(); // LINEAR: factor = −c + 0.5
    b.method(SET_FOG_PARAMS, 1.5f32.to_bits()).unwrap();
    b.method(SET_FOG_PARAMS + 1, (-1.0f32).to_bits()).unwrap();
    if front_cw {
        b.method(SET_FRONT_FACE, 0x0900).unwrap();
    }
    for (page, tri) in prims.iter().enumerate() {
        let at = 0x1_0000 + page as u32 * 0x1000;
        let mut bytes = Vec::new();
        for (p, col0, bfc0) in tri.iter() {
            let fogc = [0.25, p[0] - 8.25, 0.0, 0.0];
            let attrs = [[p[0], p[1], 0.5, 1.0], *col0, *bfc0, fogc];
            for c in attrs.iter().flatten() {
                bytes.extend(c.to_be_bytes());
            }
        }
        b.put_memory(Location::Main, at, &bytes).unwrap();
        for (k, attribute) in [0u32, 3, 4, 5].into_iter().enumerate() {
            b.set_vertex_array(attribute, 2, 4, 64, 0, Location::Main, at + 16 * k as u32)
                .unwrap();
        }
        b.set_vertex_attrib_input_mask(0b11_1001);
        b.draw_arrays(primitive, &[(0, tri.len() as u32)]).unwrap();
    }
    b.finish()
}

/// Clockwise as seen on the image (row 0 at the top).
fn clockwise(t: &[V; 3]) -> bool {
    let [a, b, c] = t.map(|v| v.0);
    (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1]) > 0.0
}

#[test]
fn flat_two_sided_and_fog_inputs_reach_the_fragment_stage() {
    let Some(gpu) = gpu("flat_two_sided_and_fog_inputs_reach_the_fragment_stage") else {
        return;
    };
    let (r, g, bl) = (
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
    );
    let grey = [0.5, 0.5, 0.5, 1.0];
    // Draw 0 counter-clockwise as seen, draw 1 clockwise; per-vertex colours differ, the
    // last vertex's are distinct from the others'.
    let left: [V; 3] = [
        ([1.0, 1.0], r, bl),
        ([1.0, 15.0], r, bl),
        ([7.0, 8.0], g, grey),
    ];
    let right: [V; 3] = [
        ([9.0, 1.0], r, bl),
        ([15.0, 8.0], r, bl),
        ([9.0, 15.0], g, grey),
    ];
    assert!(!clockwise(&left) && clockwise(&right));
    for front_cw in [false, true] {
        let cap = capture(front_cw, TRIANGLES, &[&left, &right], 0);
        let frame = Frame::from_capture(&cap).unwrap();
        let cx = Context::new(&gpu, Tolerances::default(), 100_000);
        for (index, tri) in [left, right].iter().enumerate() {
            let Prepared::Ready(vi) = prepare(&frame, index, &cx) else {
                panic!("draw {index} not prepared");
            };
            let quads = rasterize(&frame.draws[index], &vi, 100_000).quads;
            assert!(!quads.is_empty(), "draw {index} covers pixels");
            let back = clockwise(tri) != front_cw;
            let want = if back { tri[2].2 } else { tri[2].1 };
            let mut lanes = 0;
            for q in &quads {
                for (l, lane) in q.inputs.lanes.iter().enumerate() {
                    if q.inputs.coverage & (1 << l) == 0 {
                        continue;
                    }
                    lanes += 1;
                    assert_eq!(
                        lane.attributes[attr::COL0],
                        want,
                        "draw {index}, front CW {front_cw}"
                    );
                    assert_eq!(
                        lane.attributes[attr::FACING][0],
                        if back { -1.0 } else { 1.0 }
                    );
                    // FOGC = (c, −c + 0.5, 0, 0) with c = 0.25 interpolated (to rounding).
                    let fogc = lane.attributes[attr::FOGC];
                    let want_fogc = [0.25, 0.25, 0.0, 0.0];
                    assert!(
                        fogc.iter()
                            .zip(want_fogc)
                            .all(|(a, b)| (a - b).abs() < 1e-6),
                        "{fogc:?}"
                    );
                }
            }
            assert!(lanes > 10, "draw {index}: {lanes} lanes");
        }
        // And the whole frame is compared, clean.
        let report = verify_frame(&frame, &VerifyOptions::default(), &gpu, None).unwrap();
        for d in &report.draws {
            let s = d
                .stages
                .iter()
                .find(|s| s.stage == Stage::Fragment)
                .expect("fragment stage");
            assert_eq!(s.outcome, Outcome::Clean, "draw {}", d.draw);
        }
    }
}

#[test]
fn user_clip_planes_cut_the_compared_lines_and_triangles() {
    let Some(gpu) = gpu("user_clip_planes_cut_the_compared_lines_and_triangles") else {
        return;
    };
    let c = [0.0, 1.0, 0.0, 1.0];
    // A horizontal line along row 4 and a triangle over every column of the target; plane 0
    // GE keeps window x ≥ 8.25, so only pixel columns 8.. are compared.
    let line: [V; 2] = [([0.0, 4.5], c, c), ([16.0, 4.5], c, c)];
    let tri: [V; 3] = [
        ([0.0, 6.0], c, c),
        ([0.0, 16.0], c, c),
        ([32.0, 16.0], c, c),
    ];
    for (primitive, prim) in [(LINES, &line[..]), (TRIANGLES, &tri[..])] {
        let cap = capture(false, primitive, &[prim], 2);
        let frame = Frame::from_capture(&cap).unwrap();
        let cx = Context::new(&gpu, Tolerances::default(), 100_000);
        let Prepared::Ready(vi) = prepare(&frame, 0, &cx) else {
            panic!("draw not prepared");
        };
        let quads = rasterize(&frame.draws[0], &vi, 100_000).quads;
        let mut columns = std::collections::BTreeSet::new();
        for q in &quads {
            for l in 0..4u32 {
                if q.inputs.coverage & (1 << l) != 0 {
                    columns.insert(q.origin[0] + (l & 1));
                }
            }
        }
        let want: std::collections::BTreeSet<u32> = (8..16).collect();
        assert_eq!(columns, want, "primitive {primitive}");
        let report = verify_frame(&frame, &VerifyOptions::default(), &gpu, None).unwrap();
        let s = &report.draws[0].stages[1];
        assert_eq!((s.stage, &s.outcome), (Stage::Fragment, &Outcome::Clean));
    }
}

#[test]
fn a_flat_quad_feeds_its_provoking_vertex_colour_to_both_triangles() {
    let Some(gpu) = gpu("a_flat_quad_feeds_its_provoking_vertex_colour_to_both_triangles") else {
        return;
    };
    const QUADS: u32 = 8;
    let (r, g, bl) = (
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
    );
    let grey = [0.5, 0.5, 0.5, 1.0];
    // Counter-clockwise as seen (front facing). The hardware splits it (v0, v1, v2) +
    // (v0, v2, v3) on the v0–v2 diagonal (x = y); its provoking vertex is v3 (GL 2.1 table
    // 2.12), which the first triangle does not contain: every lane reads v3's COL0.
    let quad: [V; 4] = [
        ([1.0, 1.0], r, grey),
        ([1.0, 15.0], r, grey),
        ([15.0, 15.0], g, grey),
        ([15.0, 1.0], bl, grey),
    ];
    let cap = capture(false, QUADS, &[&quad], 0);
    let frame = Frame::from_capture(&cap).unwrap();
    let cx = Context::new(&gpu, Tolerances::default(), 100_000);
    let Prepared::Ready(vi) = prepare(&frame, 0, &cx) else {
        panic!("draw not prepared");
    };
    let quads = rasterize(&frame.draws[0], &vi, 100_000).quads;
    // Lanes below (x < y) and above (x > y) the split diagonal.
    let (mut below, mut above) = (0, 0);
    for q in &quads {
        for (l, lane) in q.inputs.lanes.iter().enumerate() {
            if q.inputs.coverage & (1 << l) == 0 {
                continue;
            }
            let (x, y) = (q.origin[0] + (l as u32 & 1), q.origin[1] + (l as u32 >> 1));
            match x.cmp(&y) {
                std::cmp::Ordering::Less => below += 1,
                std::cmp::Ordering::Greater => above += 1,
                std::cmp::Ordering::Equal => {}
            }
            assert_eq!(lane.attributes[attr::COL0], bl, "pixel ({x}, {y})");
        }
    }
    assert!(below > 10 && above > 10, "{below} / {above} lanes");
    let report = verify_frame(&frame, &VerifyOptions::default(), &gpu, None).unwrap();
    let s = &report.draws[0].stages[1];
    assert_eq!((s.stage, &s.outcome), (Stage::Fragment, &Outcome::Clean));
}
