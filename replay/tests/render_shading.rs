//! Per-fragment shading state on both renderers (CPU reference and GPU), on small builder
//! captures, each pixel checked against a value computed here from the documented hardware
//! rule (`rsxtrace_replay::raster::shading` names the sources):
//!
//! - flat shading: COL0 of the **last** vertex of each primitive fills it (RPCS3 PR #19251's
//!   hardware photographs: ABC, CAB, BCA give C, B, A), TEX0 stays interpolated; a quad's
//!   (and a quad strip quad's) provoking vertex fills both its triangles, though the
//!   hardware's split leaves it out of the first;
//! - two-sided colour: back faces (winding against `SET_FRONT_FACE`) read BFC0 (output 3);
//! - user clip planes: GE keeps `d ≥ 0`, LT keeps `d ≤ 0`, `d` from FOGC.y (plane 0) and
//!   PSZ.y (plane 3), only when the output mask exports the distance; lines (and polygon-mode
//!   LINE edges) are cut and points (and polygon-mode POINT vertices) dropped by the same
//!   rule;
//! - fog: FOGC = `(c, factor(c), 0, 0)` with RPCS3's equations per mode;
//! - 2D texture coordinates (`SET_TEX_COORD_CONTROL`): TEXn reads `(x, y, 0, clip w)`.
//!
//! Scene: a 16 × 16 A8R8G8B8 target, the viewport the identity on window pixels (clip x, y are
//! window pixels with w = 1), a vertex program of MOVs (HPOS ← v0, COL0 ← v3, BFC0 ← v4,
//! FOGC ← v5, PSZ ← v6, TEX0 ← v8) and a fragment program `MOV R0, f[input]`.
//! The GPU runs when a device exists (a loud skip otherwise; a failure under `CI=true`).

use crate::gpu_support;

use crate::render_support;
use render_support::*;
use rsxtrace_capture::builder::vertex_ucode::{
    source, VecInstruction, MASK_W, MASK_X, MASK_Y, MASK_Z, REG_INPUT, SWIZZLE_XYZW, VEC_MOV,
};
use rsxtrace_capture::builder::{CaptureBuilder, SurfaceDesc, SurfaceTarget};
use rsxtrace_capture::frame::{reg, Frame};
use rsxtrace_capture::rrc::{Capture, Location};
use rsxtrace_program::fragment::{decode, encode, InputAttribute};
use rsxtrace_replay::raster::{assemble, Assembled, Primitive};
use rsxtrace_replay::render::state::FrameEvents;
use rsxtrace_replay::render::{RenderOptions, RenderedFrame};

const W: u16 = 16;
const H: u16 = 16;
const COLOR: u32 = 0x0010_0000;
const ZETA: u32 = 0x0020_0000;
const TRIANGLES: u32 = 5;
const TRIANGLE_STRIP: u32 = 6;

/// Fragment input attributes (rsx-microcode.md B.3).
const IN_COL0: u8 = 1;
const IN_FOGC: u8 = 3;
const IN_TEX0: u8 = 4;

/// Registers, from the frame model's one table (`rsxtrace_frame::methods::reg`).
const SET_SHADE_MODE: u32 = reg::SET_SHADE_MODE as u32;
const SET_FOG_MODE: u32 = reg::SET_FOG_MODE as u32;
const SET_FOG_PARAMS: u32 = reg::SET_FOG_PARAMS as u32;
const SET_TWO_SIDE_LIGHT_EN: u32 = reg::SET_TWO_SIDE_LIGHT_EN as u32;
const SET_USER_CLIP_PLANE_CONTROL: u32 = reg::SET_USER_CLIP_PLANE_CONTROL as u32;
const SET_FRONT_FACE: u32 = reg::SET_FRONT_FACE as u32;
const SET_VERTEX_ATTRIB_OUTPUT_MASK: u32 = reg::SET_VERTEX_ATTRIB_OUTPUT_MASK as u32;
const SET_TEX_COORD_CONTROL: u32 = reg::SET_TEX_COORD_CONTROL as u32;

const FLAT: u32 = 0x1D00;
const SMOOTH: u32 = 0x1D01;
const CW: u32 = 0x0900;

/// `SET_VERTEX_ATTRIB_OUTPUT_MASK` bits (rrc-format.md 4.8): front diffuse, back diffuse,
/// fog, TEX0; user clip n is bit 6 + n.
const OUTPUTS: u32 = 1 | (1 << 2) | (1 << 4) | (1 << 14);

/// One vertex: position (window pixels), COL0, BFC0, FOGC (x fog, y z w = CLP0..2), PSZ
/// (y z w = CLP3..5), TEX0.
#[derive(Clone, Copy, Debug)]
struct V {
    pos: [f32; 2],
    /// Clip w (the position is sent as `(x·w, y·w, 0.5·w, w)`: the same window position).
    w: f32,
    col0: [f32; 4],
    bfc0: [f32; 4],
    fogc: [f32; 4],
    psz: [f32; 4],
    tex0: [f32; 4],
}

fn v(x: f32, y: f32, col0: [f32; 4]) -> V {
    V {
        pos: [x, y],
        w: 1.0,
        col0,
        bfc0: [0.0; 4],
        fogc: [0.0; 4],
        psz: [0.0; 4],
        tex0: [0.0; 4],
    }
}

const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];
const GREEN: [f32; 4] = [0.0, 1.0, 0.0, 1.0];
const BLUE: [f32; 4] = [0.0, 0.0, 1.0, 1.0];

fn fragment_program(input: u8) -> Vec<u8> {
    let mut p = decode(&FP_MOV_COL0).unwrap();
    p.instructions[0].input = InputAttribute(input);
    encode(&p)
}

/// `MOV` of inputs 0, 3, 4, 5, 6, 8 to outputs 0 HPOS, 1 COL0, 3 BFC0, 5 FOGC, 6 PSZ, 7 TEX0.
fn vertex_program() -> Vec<u32> {
    let input = source(REG_INPUT, SWIZZLE_XYZW);
    let pairs = [(3, 1), (4, 3), (5, 5), (6, 6), (8, 7), (0, 0)];
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

fn target(offset: u32, pitch: u32) -> SurfaceTarget {
    SurfaceTarget {
        location: Location::Local,
        offset,
        pitch,
    }
}

/// The scene with fragment program `MOV R0, f[input]`, cleared to opaque black... or to
/// `clear` (ARGB).
fn scene(name: &str, input: u8, clear: u32) -> CaptureBuilder {
    let mut b = CaptureBuilder::new(name);
    b.set_surface(&SurfaceDesc {
        color_format: 8, // A8R8G8B8
        depth_format: 2,
        surface_type: 1,
        antialias: 0,
        log2_size: (4, 4),
        color_target: 1,
        colors: [
            target(COLOR, u32::from(W) * 4),
            target(0, 64),
            target(0, 64),
            target(0, 64),
        ],
        zeta: target(ZETA, u32::from(W) * 4),
        clip: (0, 0, W, H),
    });
    b.set_viewport(0, 0, W, H, (0.0, 1.0), [0.0; 4], [1.0, 1.0, 1.0, 0.0]);
    b.set_scissor(0, 0, W, H);
    b.set_color_mask(0x0101_0101);
    b.set_vertex_program(&vertex_program(), 0, 0, 0b1_0111_1001, OUTPUTS)
        .unwrap();
    b.set_fragment_program(Location::Local, 0x1000, &fragment_program(input), 0x40)
        .unwrap();
    b.clear_surface(0xF0, clear, 0);
    b
}

fn set(b: &mut CaptureBuilder, reg: u32, value: u32) {
    b.method(reg, value).unwrap();
}

/// Draw `vertices` as `primitive`, their data at `page` (main memory).
fn draw(b: &mut CaptureBuilder, page: u32, primitive: u32, vertices: &[V]) {
    let at = 0x1_0000 + page * 0x1000;
    let mut bytes = Vec::new();
    for v in vertices {
        let pos = [v.pos[0], v.pos[1], 0.5, 1.0].map(|c| c * v.w);
        for c in [pos, v.col0, v.bfc0, v.fogc, v.psz, v.tex0]
            .iter()
            .flatten()
        {
            bytes.extend(c.to_be_bytes());
        }
    }
    b.put_memory(Location::Main, at, &bytes).unwrap();
    for (k, attribute) in [0u32, 3, 4, 5, 6, 8].into_iter().enumerate() {
        b.set_vertex_array(attribute, 2, 4, 96, 0, Location::Main, at + 16 * k as u32)
            .unwrap();
    }
    b.set_vertex_attrib_input_mask(0b1_0111_1001);
    b.draw_arrays(primitive, &[(0, vertices.len() as u32)])
        .unwrap();
}

/// The frame on the CPU and, when a device exists, on the GPU, with a label and the channel
/// tolerance of each (GPU: 2/255 for its own exp and interpolation arithmetic).
fn render_both(capture: &Capture, test: &str) -> Vec<(&'static str, RenderedFrame, u8)> {
    let frame = Frame::from_capture(capture).expect("frame");
    let events = FrameEvents::from_capture(capture, &frame);
    let options = RenderOptions::default();
    let cpu = cpu_render_tiled(&frame, &events, &options).expect("CPU");
    assert!(cpu.skipped.is_empty(), "{test}: {:?}", cpu.skipped);
    let mut out = vec![("cpu", cpu, 1)];
    if let Some(gpu) = gpu_support::gpu(test) {
        let g = rsxtrace_replay::render::gpu::render_frame(&gpu, &frame, &events, &options)
            .expect("GPU");
        assert!(g.skipped.is_empty(), "{test}: {:?}", g.skipped);
        out.push(("gpu", g, 2));
    }
    out
}

fn to8(v: f64) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

fn assert_px(
    (label, frame, tolerance): &(&str, RenderedFrame, u8),
    x: u32,
    y: u32,
    want: [f64; 4],
    what: &str,
) {
    let got = frame.image.pixel(x, y).expect("pixel");
    let want = want.map(to8);
    let ok = got
        .iter()
        .zip(&want)
        .all(|(g, w)| g.abs_diff(*w) <= *tolerance);
    assert!(
        ok,
        "{label} {what}: pixel ({x}, {y}) = {got:?}, expected {want:?} (±{tolerance})"
    );
}

/// Barycentric weights of pixel (x, y)'s centre in triangle `t` (window positions), `None`
/// outside or within 0.01 of an edge.
fn inside(t: [[f32; 2]; 3], x: u32, y: u32) -> Option<[f64; 3]> {
    let (px, py) = (f64::from(x) + 0.5, f64::from(y) + 0.5);
    let p = t.map(|v| (f64::from(v[0]), f64::from(v[1])));
    let area = (p[1].0 - p[0].0) * (p[2].1 - p[0].1) - (p[2].0 - p[0].0) * (p[1].1 - p[0].1);
    let e =
        |a: (f64, f64), b: (f64, f64)| ((b.0 - a.0) * (py - a.1) - (px - a.0) * (b.1 - a.1)) / area;
    let w = [e(p[1], p[2]), e(p[2], p[0]), e(p[0], p[1])];
    w.iter().all(|&k| k > 0.01).then_some(w)
}

fn mix(w: [f64; 3], c: [[f32; 4]; 3]) -> [f64; 4] {
    std::array::from_fn(|k| (0..3).map(|j| w[j] * f64::from(c[j][k])).sum())
}

#[test]
fn flat_shading_takes_the_last_vertex_colour_for_colours_only() {
    let (a, b_, c) = (v(1.0, 1.0, RED), v(15.0, 1.0, GREEN), v(1.0, 15.0, BLUE));
    // Cyclic orders keep the winding; the hardware fills each with its last vertex's colour.
    for (order, last) in [([a, b_, c], BLUE), ([c, a, b_], GREEN), ([b_, c, a], RED)] {
        for mode in [FLAT, SMOOTH] {
            let mut b = scene("flat.rrc", IN_COL0, 0xFF00_0000);
            set(&mut b, SET_SHADE_MODE, mode);
            draw(&mut b, 0, TRIANGLES, &order);
            let capture = b.finish();
            let tri = order.map(|v| v.pos);
            for r in render_both(&capture, "flat shading") {
                for y in 0..16 {
                    for x in 0..16 {
                        let Some(w) = inside(tri, x, y) else { continue };
                        let want = if mode == FLAT {
                            last.map(f64::from)
                        } else {
                            mix(w, order.map(|v| v.col0))
                        };
                        assert_px(
                            &r,
                            x,
                            y,
                            want,
                            &format!("mode {mode:x} order last {last:?}"),
                        );
                    }
                }
            }
        }
    }
    // TEX0 stays interpolated under flat shading.
    let mut tex = [a, b_, c];
    for (t, col) in tex.iter_mut().zip([RED, GREEN, BLUE]) {
        t.tex0 = col;
    }
    let mut b = scene("flat_tex.rrc", IN_TEX0, 0xFF00_0000);
    set(&mut b, SET_SHADE_MODE, FLAT);
    draw(&mut b, 0, TRIANGLES, &tex);
    let capture = b.finish();
    for r in render_both(&capture, "flat shading TEX0") {
        for (x, y) in [(3, 3), (6, 2), (2, 9), (7, 6)] {
            let w = inside(tex.map(|v| v.pos), x, y).expect("inside");
            assert_px(
                &r,
                x,
                y,
                mix(w, tex.map(|v| v.tex0)),
                "TEX0 under flat shading",
            );
        }
    }
    // A strip: triangle 0 is (0, 1, 2), triangle 1 (2, 1, 3) (GL 2.1 §2.6.1): the provoking
    // vertices are 2 and 3.
    let strip = [
        v(1.0, 1.0, RED),
        v(1.0, 15.0, GREEN),
        v(15.0, 1.0, BLUE),
        v(15.0, 15.0, [1.0, 1.0, 0.0, 1.0]),
    ];
    let mut b = scene("flat_strip.rrc", IN_COL0, 0xFF00_0000);
    set(&mut b, SET_SHADE_MODE, FLAT);
    draw(&mut b, 0, TRIANGLE_STRIP, &strip);
    let capture = b.finish();
    for r in render_both(&capture, "flat strip") {
        assert_px(&r, 3, 3, [0.0, 0.0, 1.0, 1.0], "strip triangle 0");
        assert_px(&r, 12, 12, [1.0, 1.0, 0.0, 1.0], "strip triangle 1");
    }
}

#[test]
fn flat_quads_take_the_provoking_vertex_colour_on_both_triangles() {
    // GL 2.1 table 2.12: a quad's provoking vertex is its last (v3), a quad strip quad's k+3.
    // The hardware splits a quad (v0, v1, v2) + (v0, v2, v3) (raster::primitive), so the first
    // triangle does not contain v3 and must still show v3's colour.
    const QUADS: u32 = 8;
    const QUAD_STRIP: u32 = 9;
    let yellow = [1.0, 1.0, 0.0, 1.0];
    let white = [1.0, 1.0, 1.0, 1.0];
    let quad = vec![
        v(1.0, 1.0, RED),
        v(15.0, 1.0, GREEN),
        v(15.0, 15.0, BLUE),
        v(1.0, 15.0, yellow),
    ];
    let strip = vec![
        v(1.0, 1.0, RED),
        v(1.0, 15.0, GREEN),
        v(8.0, 1.0, BLUE),
        v(8.0, 15.0, yellow),
        v(15.0, 1.0, white),
        v(15.0, 15.0, [0.0, 1.0, 1.0, 1.0]),
    ];
    let cases = [
        (QUADS, Primitive::Quads, quad, &[3u32, 3][..]),
        (QUAD_STRIP, Primitive::QuadStrip, strip, &[3, 3, 5, 5][..]),
    ];
    for (raw, primitive, vertices, provoking) in cases {
        let Assembled::Triangles(tris) = assemble(primitive, vertices.len(), &[]) else {
            panic!("{primitive:?} assembles to triangles");
        };
        let got: Vec<u32> = tris.iter().map(|t| t.provoking).collect();
        assert_eq!(got, provoking, "{primitive:?} provoking vertices");
        // The rule only matters because some triangle lacks its provoking vertex.
        assert!(tris.iter().any(|t| !t.v.contains(&t.provoking)));
        for mode in [FLAT, SMOOTH] {
            let mut b = scene("flat_quad.rrc", IN_COL0, 0xFF00_0000);
            set(&mut b, SET_SHADE_MODE, mode);
            draw(&mut b, 0, raw, &vertices);
            let capture = b.finish();
            for r in render_both(&capture, "flat quads") {
                let mut checked = vec![0usize; tris.len()];
                for (n, t) in tris.iter().enumerate() {
                    let pos = t.v.map(|i| vertices[i as usize].pos);
                    for y in 0..16 {
                        for x in 0..16 {
                            let Some(w) = inside(pos, x, y) else { continue };
                            let want = if mode == FLAT {
                                vertices[t.provoking as usize].col0.map(f64::from)
                            } else {
                                mix(w, t.v.map(|i| vertices[i as usize].col0))
                            };
                            let what = format!("{primitive:?} mode {mode:x} triangle {n}");
                            assert_px(&r, x, y, want, &what);
                            checked[n] += 1;
                        }
                    }
                }
                assert!(checked.iter().all(|&c| c > 4), "{checked:?}");
            }
        }
    }
}

#[test]
fn user_clip_planes_cut_polygon_mode_edges_and_vertices() {
    // A quad drawn in polygon mode LINE (its outline: raster::primitive's boundary edges) or
    // POINT (its four vertices), plane 0 (FOGC.y) d = x − 8.25: GE keeps the right half of the
    // outline and the two right vertices, as the renderers' shared geometry clips lines and
    // points.
    const QUADS: u32 = 8;
    const SET_FRONT_POLYGON_MODE: u32 = 0x1828 / 4;
    const SET_BACK_POLYGON_MODE: u32 = 0x182C / 4;
    const POINT: u32 = 0x1B00;
    const LINE: u32 = 0x1B01;
    let at = |x: f32, y: f32| V {
        fogc: [0.0, x - 8.25, 0.0, 0.0],
        ..v(x, y, GREEN)
    };
    let quad = [at(2.5, 2.5), at(13.5, 2.5), at(13.5, 13.5), at(2.5, 13.5)];
    let lit = [0.0, 1.0, 0.0, 1.0];
    let dark = [0.0, 0.0, 0.0, 1.0];
    for (mode, control) in [(LINE, 0), (LINE, 2), (POINT, 0), (POINT, 2)] {
        let mut b = scene("clip_polygon_mode.rrc", IN_COL0, 0xFF00_0000);
        set(&mut b, SET_VERTEX_ATTRIB_OUTPUT_MASK, OUTPUTS | (1 << 6));
        set(&mut b, SET_USER_CLIP_PLANE_CONTROL, control);
        set(&mut b, SET_FRONT_POLYGON_MODE, mode);
        set(&mut b, SET_BACK_POLYGON_MODE, mode);
        draw(&mut b, 0, QUADS, &quad);
        let capture = b.finish();
        let clipped = control != 0;
        let what = format!("polygon mode {mode:x}, control {control}");
        for r in render_both(&capture, "user clip planes on polygon modes") {
            // The split diagonal is never drawn, and the inside stays dark.
            assert_px(&r, 8, 8, dark, &what);
            assert_px(&r, 10, 10, dark, &what);
            if mode == LINE {
                for k in 4..=11 {
                    // Right edge (column 13) kept; left edge (column 2) cut away.
                    assert_px(&r, 13, k, lit, &what);
                    assert_px(&r, 2, k, if clipped { dark } else { lit }, &what);
                }
                for x in 9..=12 {
                    assert_px(&r, x, 2, lit, &what);
                    assert_px(&r, x, 13, lit, &what);
                }
                for x in 3..=7 {
                    let want = if clipped { dark } else { lit };
                    assert_px(&r, x, 2, want, &what);
                    assert_px(&r, x, 13, want, &what);
                }
            } else {
                for (x, y) in [(13, 2), (13, 13)] {
                    assert_px(&r, x, y, lit, &what);
                }
                for (x, y) in [(2, 2), (2, 13)] {
                    assert_px(&r, x, y, if clipped { dark } else { lit }, &what);
                }
                assert_px(&r, 8, 2, dark, &what);
            }
        }
    }
}

/// Twice the signed area on the image (row 0 at the top): > 0 is clockwise as seen.
fn clockwise(t: [[f32; 2]; 3]) -> bool {
    let [a, b, c] = t;
    (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1]) > 0.0
}

#[test]
fn two_sided_colour_reads_bfc0_on_back_faces() {
    let with_back = |x: f32, y: f32, bfc0: [f32; 4]| V {
        bfc0,
        ..v(x, y, RED)
    };
    // Left: counter-clockwise as seen; right: clockwise. BFC0 differs per vertex, last green.
    let left = [
        with_back(1.0, 1.0, BLUE),
        with_back(1.0, 15.0, BLUE),
        with_back(7.0, 8.0, GREEN),
    ];
    let right = [
        with_back(9.0, 1.0, BLUE),
        with_back(15.0, 8.0, BLUE),
        with_back(9.0, 15.0, GREEN),
    ];
    assert!(!clockwise(left.map(|v| v.pos)) && clockwise(right.map(|v| v.pos)));
    for (two_sided, front_cw) in [(false, false), (true, false), (true, true)] {
        let mut b = scene("two_sided.rrc", IN_COL0, 0xFF00_0000);
        set(&mut b, SET_TWO_SIDE_LIGHT_EN, u32::from(two_sided));
        set(&mut b, SET_SHADE_MODE, FLAT);
        if front_cw {
            set(&mut b, SET_FRONT_FACE, CW);
        }
        draw(&mut b, 0, TRIANGLES, &left);
        draw(&mut b, 1, TRIANGLES, &right);
        let capture = b.finish();
        for r in render_both(&capture, "two-sided colour") {
            for (tri, x, y) in [(left, 3, 8), (right, 12, 8)] {
                let back = clockwise(tri.map(|v| v.pos)) != front_cw;
                // Flat: the last vertex's COL0, or its BFC0 on a back face.
                let want = if two_sided && back {
                    tri[2].bfc0
                } else {
                    tri[2].col0
                };
                assert_px(
                    &r,
                    x,
                    y,
                    want.map(f64::from),
                    &format!("two-sided {two_sided}, front CW {front_cw}"),
                );
            }
        }
    }
}

/// Two triangles covering the whole target; `f` gives each corner's vertex.
fn full_target(f: impl Fn(f32, f32) -> V) -> [V; 6] {
    let (w, h) = (f32::from(W), f32::from(H));
    [
        f(0.0, 0.0),
        f(0.0, h),
        f(w, 0.0),
        f(w, 0.0),
        f(0.0, h),
        f(w, h),
    ]
}

#[test]
fn user_clip_planes_keep_their_side_of_the_interpolated_distance() {
    // Plane 0 (FOGC.y) d0 = x − y − 0.5; plane 3 (PSZ.y) d3 = x − 8.25 (window pixels); at
    // pixel centres d0 = px − py − 0.5 and d3 = px + 0.5 − 8.25: never 0.
    let vertices = full_target(|x, y| V {
        fogc: [0.0, x - y - 0.5, 0.0, 0.0],
        psz: [0.0, x - 8.25, 0.0, 0.0],
        ..v(x, y, GREEN)
    });
    let d0 = |x: u32, y: u32| f64::from(x) - f64::from(y) - 0.5;
    let d3 = |x: u32| f64::from(x) + 0.5 - 8.25;
    // (control, exported planes in the output mask, kept(x, y))
    type Kept = fn(f64, f64) -> bool;
    let cases: [(u32, u32, Kept, &str); 5] = [
        (2, 1 << 6, |a, _| a >= 0.0, "plane 0 GE"),
        (1, 1 << 6, |a, _| a <= 0.0, "plane 0 LT"),
        (1 << 12, 1 << 9, |_, b| b <= 0.0, "plane 3 LT"),
        (
            2 | (2 << 12),
            (1 << 6) | (1 << 9),
            |a, b| a >= 0.0 && b >= 0.0,
            "planes 0 and 3 GE",
        ),
        (
            2,
            0,
            |_, _| true,
            "plane 0 GE without its output bit: not clipped",
        ),
    ];
    for (control, exported, kept, what) in cases {
        let mut b = scene("clip.rrc", IN_COL0, 0xFF00_0000);
        set(&mut b, SET_VERTEX_ATTRIB_OUTPUT_MASK, OUTPUTS | exported);
        set(&mut b, SET_USER_CLIP_PLANE_CONTROL, control);
        draw(&mut b, 0, TRIANGLES, &vertices);
        let capture = b.finish();
        for r in render_both(&capture, "user clip planes") {
            for y in 0..16 {
                for x in 0..16 {
                    let want = if kept(d0(x, y), d3(x)) {
                        [0.0, 1.0, 0.0, 1.0]
                    } else {
                        [0.0, 0.0, 0.0, 1.0]
                    };
                    assert_px(&r, x, y, want, what);
                }
            }
            if exported == 0 {
                assert!(
                    r.1.warnings
                        .iter()
                        .any(|w| w.message.contains("user clip plane 0")),
                    "{what}: {:?}",
                    r.1.warnings
                );
            }
        }
    }
}

/// RPCS3's fog factor (`fetch_fog_value`), written out here from its documented formulas.
fn fog_factor(mode: u32, p0: f64, p1: f64, c: f64) -> f64 {
    let f = match mode {
        0x2601 => p1 * c + (p0 - 1.0),
        0x0804 => p1 * c.abs() + (p0 - 1.0),
        0x0800 => (11.084 * (p1 * c + p0 - 1.5)).exp(),
        0x0802 => (11.084 * (p1 * c.abs() + p0 - 1.5)).exp(),
        0x0801 => (-(4.709 * (p1 * c + p0 - 1.5)).powi(2)).exp(),
        0x0803 => (-(4.709 * (p1 * c.abs() + p0 - 1.5)).powi(2)).exp(),
        _ => 0.0,
    };
    f.clamp(0.0, 1.0)
}

#[test]
fn fog_factor_reaches_the_program_in_fogc_y() {
    // c = sign · x / 16 along the target; FOGC.y/.z/.w of the vertices hold 0.7 (clip
    // distances with no plane enabled), which must not reach FOGC.z/.w.
    // (mode, p0, p1, sign); `None` = never written: the reset state, EXP with params 0
    // (RPCS3 `rsx_state::init`, which the builder's register file starts from); a written 0
    // reads as LINEAR (1, 1).
    let cases: [(Option<u32>, f32, f32, f32); 9] = [
        (None, 0.0, 0.0, 1.0),
        (Some(0), 0.0, 0.0, 1.0),
        (Some(0x2601), 1.5, -1.0, 1.0),
        (Some(0x0804), 1.25, 0.5, -1.0),
        (Some(0x0800), 1.0, 0.5, 1.0),
        (Some(0x0802), 1.0, 0.5, -1.0),
        (Some(0x0801), 1.25, 0.5, 1.0),
        (Some(0x0803), 1.25, 0.5, -1.0),
        (Some(0x1234), 1.0, 1.0, 1.0),
    ];
    for (written, p0, p1, sign) in cases {
        let vertices = full_target(|x, y| V {
            fogc: [sign * x / 16.0, 0.7, 0.7, 0.7],
            ..v(x, y, RED)
        });
        let mut b = scene("fog.rrc", IN_FOGC, 0x8040_4040);
        if let Some(mode) = written {
            set(&mut b, SET_FOG_MODE, mode);
            set(&mut b, SET_FOG_PARAMS, p0.to_bits());
            set(&mut b, SET_FOG_PARAMS + 1, p1.to_bits());
        }
        draw(&mut b, 0, TRIANGLES, &vertices);
        let capture = b.finish();
        let (mode, p0, p1) = match written {
            None => (0x0800, 0.0, 0.0),
            Some(0) => (0x2601, 1.0, 1.0),
            Some(mode) => (mode, f64::from(p0), f64::from(p1)),
        };
        for r in render_both(&capture, "fog") {
            for (x, y) in [(0, 0), (3, 5), (7, 7), (8, 2), (12, 9), (15, 15)] {
                let c = f64::from(sign) * (f64::from(x) + 0.5) / 16.0;
                let want = [c, fog_factor(mode, p0, p1, c), 0.0, 0.0];
                assert_px(&r, x, y, want, &format!("fog mode {written:x?}"));
            }
            if mode == 0x1234 {
                assert!(
                    r.1.warnings
                        .iter()
                        .any(|w| w.message.contains("SET_FOG_MODE")),
                    "{:?}",
                    r.1.warnings
                );
            }
        }
    }
}

#[test]
fn user_clip_planes_cut_lines_and_drop_points() {
    const POINTS: u32 = 1;
    const LINES: u32 = 2;
    // Plane 0 (FOGC.y) d = x − 8.25 in window pixels.
    let at = |x: f32, y: f32| V {
        fogc: [0.0, x - 8.25, 0.0, 0.0],
        ..v(x, y, GREEN)
    };
    // (control, primitive, vertices, row, kept(column))
    type Kept = fn(u32) -> bool;
    let line = [at(0.0, 4.5), at(16.0, 4.5)];
    let points: Vec<V> = (0..16).map(|k| at(k as f32 + 0.5, 10.5)).collect();
    let cases: [(u32, u32, &[V], u32, Kept); 3] = [
        // GE: the line keeps x ≥ 8.25, so columns 8.. (centres from 8.5).
        (2, LINES, &line, 4, |x| x >= 8),
        // LT: the line keeps x ≤ 8.25.
        (1, LINES, &line, 4, |x| x <= 7),
        // LT: points at centres x + 0.5 survive where x + 0.5 − 8.25 ≤ 0.
        (1, POINTS, &points, 10, |x| x <= 7),
    ];
    for (control, primitive, vertices, row, kept) in cases {
        let mut b = scene("clip_lines.rrc", IN_COL0, 0xFF00_0000);
        set(&mut b, SET_VERTEX_ATTRIB_OUTPUT_MASK, OUTPUTS | (1 << 6));
        set(&mut b, SET_USER_CLIP_PLANE_CONTROL, control);
        draw(&mut b, 0, primitive, vertices);
        let capture = b.finish();
        for r in render_both(&capture, "user clip planes on lines and points") {
            for y in 0..16 {
                for x in 0..16 {
                    let lit = y == row && kept(x);
                    let want = if lit {
                        [0.0, 1.0, 0.0, 1.0]
                    } else {
                        [0.0, 0.0, 0.0, 1.0]
                    };
                    assert_px(
                        &r,
                        x,
                        y,
                        want,
                        &format!("primitive {primitive}, control {control}"),
                    );
                }
            }
        }
    }
}

#[test]
fn first_vertex_flat_shading_takes_each_primitives_first_vertex() {
    // SET_FLAT_SHADE_OP (0x1454) non-zero: the first-vertex convention (GL 3.2 table 2.12,
    // first-vertex column). Independent triangles provoke at vertex 3i, strips at i, fans at
    // i + 1 (not the hub), quads at 4i, quad strips at 2i; computed here from the table, not
    // from `first_vertex_provoking`.
    const QUADS: u32 = 8;
    const TRIANGLE_STRIP: u32 = 6;
    const TRIANGLE_FAN: u32 = 7;
    let yellow = [1.0, 1.0, 0.0, 1.0];
    let tri = vec![v(1.0, 1.0, RED), v(15.0, 1.0, GREEN), v(1.0, 15.0, BLUE)];
    let quad = vec![
        v(1.0, 1.0, RED),
        v(15.0, 1.0, GREEN),
        v(15.0, 15.0, BLUE),
        v(1.0, 15.0, yellow),
    ];
    let strip = vec![
        v(1.0, 1.0, RED),
        v(1.0, 15.0, GREEN),
        v(15.0, 1.0, BLUE),
        v(15.0, 15.0, yellow),
    ];
    let fan = vec![
        v(1.0, 1.0, RED),
        v(15.0, 1.0, GREEN),
        v(15.0, 15.0, BLUE),
        v(1.0, 15.0, yellow),
    ];
    // (raw primitive, primitive, vertices, first vertex of each assembled triangle)
    let cases = [
        (TRIANGLES, Primitive::Triangles, tri, &[0u32][..]),
        (QUADS, Primitive::Quads, quad, &[0, 0][..]),
        (TRIANGLE_STRIP, Primitive::TriangleStrip, strip, &[0, 1][..]),
        (TRIANGLE_FAN, Primitive::TriangleFan, fan, &[1, 2][..]),
    ];
    for (raw, primitive, vertices, first) in cases {
        let Assembled::Triangles(tris) = assemble(primitive, vertices.len(), &[]) else {
            panic!("{primitive:?} assembles to triangles");
        };
        assert_eq!(tris.len(), first.len(), "{primitive:?}");
        let mut b = scene("flat_first.rrc", IN_COL0, 0xFF00_0000);
        set(&mut b, SET_SHADE_MODE, FLAT);
        set(&mut b, 0x1454 / 4, 1);
        draw(&mut b, 0, raw, &vertices);
        let capture = b.finish();
        for r in render_both(&capture, "flat shade op") {
            assert!(
                r.1.warnings
                    .iter()
                    .all(|w| !w.message.contains("SET_FLAT_SHADE_OP")),
                "{:?}",
                r.1.warnings
            );
            let mut checked = vec![0usize; tris.len()];
            for (n, t) in tris.iter().enumerate() {
                let pos = t.v.map(|i| vertices[i as usize].pos);
                let want = vertices[first[n] as usize].col0.map(f64::from);
                for y in 0..16 {
                    for x in 0..16 {
                        if inside(pos, x, y).is_none() {
                            continue;
                        }
                        assert_px(&r, x, y, want, &format!("{primitive:?} triangle {n}"));
                        checked[n] += 1;
                    }
                }
            }
            assert!(checked.iter().all(|&c| c > 4), "{primitive:?} {checked:?}");
        }
    }
}

#[test]
fn a_2d_texture_coordinate_reads_zero_and_the_clip_w() {
    // TEX0 = (0.2, 0.3, 0.7, 0.9) at clip w 0.5. With `SET_TEX_COORD_CONTROL[0]` bit 0 the
    // program reads (0.2, 0.3, 0, 0.5) (RPCS3 `FragmentProgramDecompiler.cpp`: `(xy, 0,
    // in_w)`, in_w = 1 / gl_FragCoord.w); TEX1's control (bit 0 of register 1) leaves TEX0
    // alone; without it TEX0 is as written.
    for (control, want) in [
        (None, [0.2, 0.3, 0.7, 0.9]),
        (Some((0, 1)), [0.2, 0.3, 0.0, 0.5]),
        (Some((0, 0x11)), [0.2, 0.3, 0.0, 0.5]),
        (Some((0, 0x10)), [0.2, 0.3, 0.7, 0.9]),
        (Some((1, 1)), [0.2, 0.3, 0.7, 0.9]),
    ] {
        let vertices = full_target(|x, y| V {
            w: 0.5,
            tex0: [0.2, 0.3, 0.7, 0.9],
            ..v(x, y, RED)
        });
        let mut b = scene("texcoord_2d.rrc", IN_TEX0, 0xFF00_0000);
        if let Some((n, value)) = control {
            set(&mut b, SET_TEX_COORD_CONTROL + n, value);
        }
        draw(&mut b, 0, TRIANGLES, &vertices);
        let capture = b.finish();
        for r in render_both(&capture, "texcoord_2d") {
            for (x, y) in [(0, 0), (7, 9), (15, 15)] {
                assert_px(&r, x, y, want, &format!("control {control:?}"));
            }
        }
    }
}

#[test]
fn points_take_psz_only_from_a_program_that_writes_it() {
    use rsxtrace_replay::render::cpu::vertex::point_size_from_vertex;
    // The output mask sends PSZ (bit 5) in both frames. This file's vertex program writes
    // o[6] (PSZ): its points take their size from it. A program that writes only HPOS, COL0
    // and TEX0 leaves SET_POINT_SIZE in charge (RPCS3: `gl_PointSize = point_size` "if none
    // was generated by the program").
    let with_psz = |program: &[u32]| {
        let mut b = scene("psz.rrc", 1, 0);
        b.set_vertex_program(program, 0, 0, 0b1_0111_1001, OUTPUTS | 1 << 5)
            .unwrap();
        draw(&mut b, 0, 1, &[v(4.0, 4.0, RED)]);
        let frame = Frame::from_capture(&b.finish()).unwrap();
        point_size_from_vertex(&frame.draws[0])
    };
    assert!(with_psz(&vertex_program()));
    assert!(!with_psz(&render_support::vertex_program()));
    // The same program with its o[6] write under the condition FL (D0 bits 10..12 = 0), which
    // writes nothing: RPCS3's decompiler never declares o[6], so SET_POINT_SIZE applies.
    let mut never = vertex_program();
    never[3 * 4] &= !(7 << 10);
    assert!(!with_psz(&never));
}

#[test]
fn a_clip_plane_whose_distance_register_is_never_written_does_not_clip() {
    // Plane 2 LT with its output bit set, but a program that writes only HPOS, COL0 and TEX0:
    // o[5] holds (0, 0, 0, 1), so LT (−d ≥ 0 with d = 1) would drop every vertex. RPCS3 assigns
    // gl_ClipDistance only from a register the program writes: nothing is clipped, and a
    // warning says why.
    let mut b = scene("clip_unwritten.rrc", IN_COL0, 0xFF00_0000);
    b.set_vertex_program(
        &render_support::vertex_program(),
        0,
        0,
        0b1_0111_1001,
        OUTPUTS | 1 << 8,
    )
    .unwrap();
    set(&mut b, SET_USER_CLIP_PLANE_CONTROL, 1 << 8); // plane 2 LT
    draw(&mut b, 0, TRIANGLES, &full_target(|x, y| v(x, y, GREEN)));
    let capture = b.finish();
    for r in render_both(&capture, "clip plane without its register") {
        assert_px(&r, 5, 9, [0.0, 1.0, 0.0, 1.0], "not clipped");
        assert!(
            r.1.warnings
                .iter()
                .any(|w| w.message.contains("never writes o[5]")),
            "{:?}",
            r.1.warnings
        );
    }
}

#[test]
fn a_write_to_an_output_past_o15_is_dropped_and_named() {
    // The scene's program with its BFC0 move retargeted to o[16]: RPCS3 declares the register,
    // nothing reads it, and the draw renders (the COL0 it shows is unchanged).
    let mut program = vertex_program();
    let d3 = &mut program[4 + 3];
    *d3 = (*d3 & !(0x1F << 2)) | (16 << 2);
    let mut b = scene("o16.rrc", IN_COL0, 0xFF00_0000);
    b.set_vertex_program(&program, 0, 0, 0b1_0111_1001, OUTPUTS)
        .unwrap();
    draw(&mut b, 0, TRIANGLES, &full_target(|x, y| v(x, y, GREEN)));
    let capture = b.finish();
    for r in render_both(&capture, "a write to o[16]") {
        assert_px(&r, 5, 9, [0.0, 1.0, 0.0, 1.0], "drawn");
        assert!(
            r.1.warnings.iter().any(|w| w
                .message
                .contains("slot 1 writes o[16], which does not exist")),
            "{:?}",
            r.1.warnings
        );
    }
}
