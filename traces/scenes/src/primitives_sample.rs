//! The `primitives` sample (`traces/samples/primitives.rrc.gz`): a capture that reproduces the
//! public ps3autotests `primitives` test, built with the capture builder and rsxtrace's own
//! program encoders (no corpus bytes). `tests/samples_current.rs` keeps the checked-in file
//! equal to what this module builds.
//!
//! Where each part comes from:
//! - draws, state changes and vertex data: `shared/corpus/ps3autotests/primitives.README.md`
//!   (its `setVertex` and main loop), draw by draw, in its order;
//! - from the test's executable `elf/primitives.ppu.elf` (not stripped; read with
//!   `llvm-objdump -d` and the TOC words): the clear colour `0x40404040`
//!   (`setDrawEnv`: `lis 4,16448; ori 4,4,16448` before `cellGcmSetClearColor`), the depth
//!   test on with LESS (`li 4,1` / `li 4,513` before `cellGcmSetDepthTestEnable` /
//!   `cellGcmSetDepthFunc`), the projection (`setRenderObject` calls
//!   `initModelView(mvp, -1, 1, -1, 1, 1, 10000)`, TOC floats −1, 1, −1, 1, 1, 10000; its body
//!   computes a `glFrustum`: `2n/(r−l)`, `(r+l)/(r−l)`, `−(f+n)/(f−n)`, `−2fn/(f−n)`), the
//!   viewport (`scale = (w/2, −h/2)`, `offset = (w/2, h/2)`: TOC floats 0.5 and −0.5), the
//!   line stipple pattern `0x1234` with factor 3 (`li 0,4660; sth 0,256(31)`, `li 5,3`) and
//!   the polygon stipple pattern `polyPattern[i] = 1 << i` (the loop at `main+0x1f0`);
//! - the shader window: origin bottom, half-pixel centres (`cellGcmSetSurface` is a thunk
//!   calling `cellGcmSetSurfaceWindow` with origin 1, centre 0);
//! - the surface size is the display's (`display_width/height` are read at run time): 1280 ×
//!   720, an A8R8G8B8 colour buffer and a Z24S8 depth buffer (`setRenderTarget`'s formats).
//!
//! Programs: the test's Cg pair transforms the position by `model_view_projection` and passes
//! the colour through; here the builder's `mvp_vertex_program` (HPOS = c[32..36] · v0,
//! COL0 = v3) and `FRAGMENT_MOV_COL0` do the same.

use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
use rsxtrace_capture::builder::vertex_ucode::mvp_vertex_program;
use rsxtrace_capture::builder::{BuildError, CaptureBuilder, SurfaceDesc, SurfaceTarget};
use rsxtrace_capture::rrc::{Capture, Location};

/// File name, relative to `traces/samples/`.
pub const PRIMITIVES: &str = "primitives.rrc.gz";
/// Surface width.
pub const WIDTH: u16 = 1280;
/// Surface height.
pub const HEIGHT: u16 = 720;
/// `cellGcmSetClearColor` argument (ARGB).
pub const CLEAR_COLOR: u32 = 0x4040_4040;
/// `cellGcmSetLineStipplePattern(&0x1234, 3)`.
pub const LINE_STIPPLE: (u16, u8) = (0x1234, 3);
/// `cellGcmSetPointSize(5.0)`.
pub const POINT_SIZE: f32 = 5.0;
/// `cellGcmSetLineWidth(5*8)`.
pub const LINE_WIDTH_6_3: u32 = 5 * 8;
/// `initModelView(-1, 1, -1, 1, 1, 10000)`: left, right, bottom, top, near, far.
pub const FRUSTUM: [f32; 6] = [-1.0, 1.0, -1.0, 1.0, 1.0, 10000.0];

/// `polyPattern[i] = 1 << i`.
pub fn polygon_stipple_pattern() -> [u32; 32] {
    std::array::from_fn(|i| 1u32 << i)
}

/// One vertex of the test's buffer: position and `rgba` (R in the high byte).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vertex {
    /// x, y, z.
    pub position: [f32; 3],
    /// `0xRRGGBBAA`.
    pub rgba: u32,
}

/// The README's `setVertex`, vertex by vertex (108 vertices).
pub fn vertices() -> Vec<Vertex> {
    let mut v = Vec::with_capacity(108);
    let mut push = |x: f32, y: f32, rgba: u32| {
        v.push(Vertex {
            position: [x, y, -1.0],
            rgba,
        })
    };
    // The README computes in double (0.1 * ...) and stores floats.
    let f = |a: f64| a as f32;
    for y in 0..3 {
        for x in 0..6 {
            let (x, y) = (f64::from(x), f64::from(y));
            let px = |o: f64| f(-1.0 + 0.1 * (x + 1.0) + 0.2 * (x + o));
            let py = |o: f64| f(-1.0 + 0.15 * (y + 1.0) + 0.3 * (y + o));
            push(px(0.0), py(0.0), 0x00ff_0000);
            push(px(1.0), py(0.0), 0x0000_ff00);
            push(px(0.0), py(1.0), 0xff00_0000);
            push(px(1.0), py(1.0), 0x0000_0000);
        }
    }
    for y in 2..4 {
        for x in 0..3 {
            let (x, y) = (f64::from(x), f64::from(y));
            let px = |o: f64| f(-1.0 + 0.3 * (x + 1.0) + 0.3 * (x + o));
            let py = |o: f64| f(-1.0 + 0.15 * (y + 1.0) + 0.3 * (y + o));
            push(px(0.0), py(1.0), 0xff00_0000);
            push(px(1.0), py(1.0), 0x00ff_0000);
            push(px(1.2), py(0.5), 0x0000_ff00);
            push(px(1.0), py(0.0), 0xffff_0000);
            push(px(0.0), py(0.0), 0x00ff_ff00);
            push(px(-0.2), py(0.5), 0xff00_ff00);
        }
    }
    v
}

/// The `glFrustum` matrix of [`FRUSTUM`] as the rows c[32..36] (clip.k = dot(c[32+k], v)).
pub fn projection() -> [[f32; 4]; 4] {
    let [l, r, b, t, n, f] = FRUSTUM;
    [
        [2.0 * n / (r - l), 0.0, (r + l) / (r - l), 0.0],
        [0.0, 2.0 * n / (t - b), (t + b) / (t - b), 0.0],
        [0.0, 0.0, -(f + n) / (f - n), -2.0 * f * n / (f - n)],
        [0.0, 0.0, -1.0, 0.0],
    ]
}

/// The draws of the README's main loop: (name, `SET_BEGIN_END` primitive, first, count).
pub const DRAWS: [(&str, u32, u32, u32); 14] = [
    ("points (thick)", 1, 0, 4),
    ("lines (stippled)", 2, 4, 4),
    ("line strip (thick)", 4, 8, 4),
    ("line loop (smooth)", 3, 12, 4),
    ("triangles", 5, 16, 8),
    ("triangle strip", 6, 24, 8),
    ("triangle fan", 7, 32, 8),
    ("quad strip", 9, 40, 8),
    ("quads", 8, 48, 8),
    ("polygon (fill)", 10, 78, 6),
    ("polygon (fill + smooth)", 10, 84, 6),
    ("polygon (points)", 10, 90, 6),
    ("polygon (line)", 10, 96, 6),
    ("polygon (fill + stipple)", 10, 102, 6),
];

/// NV4097 register indices (byte address / 4) this sample sets besides the builder's.
mod regs {
    pub const SET_LINE_WIDTH: u32 = 0x03B8 >> 2;
    pub const SET_LINE_SMOOTH_ENABLE: u32 = 0x03BC >> 2;
    pub const SET_POLYGON_STIPPLE: u32 = 0x147C >> 2;
    pub const SET_POLYGON_STIPPLE_PATTERN: u32 = 0x1480 >> 2;
    pub const SET_POLY_SMOOTH_ENABLE: u32 = 0x1838 >> 2;
    pub const SET_BACK_POLYGON_MODE: u32 = 0x182C >> 2;
    pub const SET_FRONT_POLYGON_MODE: u32 = 0x1828 >> 2;
    pub const SET_LINE_STIPPLE: u32 = 0x1DB4 >> 2;
    pub const SET_LINE_STIPPLE_PATTERN: u32 = 0x1DB8 >> 2;
    pub const SET_POINT_SIZE: u32 = 0x1EE0 >> 2;
    pub const SET_SHADER_WINDOW: u32 = 0x1D88 >> 2;
}

/// GL polygon modes.
const POLYGON_MODE_POINT: u32 = 0x1B00;
const POLYGON_MODE_LINE: u32 = 0x1B01;
const POLYGON_MODE_FILL: u32 = 0x1B02;

/// Build the capture.
pub fn primitives() -> Result<Capture, BuildError> {
    let (w, h) = (WIDTH, HEIGHT);
    let pitch = u32::from(w) * 4;
    let mut b = CaptureBuilder::new(PRIMITIVES);
    crate::samples::show_target(&mut b, w.into(), h.into(), pitch, 0);
    let target = |offset| SurfaceTarget {
        location: Location::Local,
        offset,
        pitch,
    };
    b.set_surface(&SurfaceDesc {
        color_format: 8, // A8R8G8B8
        depth_format: 2, // Z24S8
        surface_type: 1, // pitch
        antialias: 0,
        log2_size: (11, 10),
        color_target: 1,
        colors: [
            target(0),
            target(0x0040_0000),
            target(0x0080_0000),
            target(0x00C0_0000),
        ],
        zeta: target(0x0100_0000),
        clip: (0, 0, w, h),
    });
    let (fw, fh) = (f32::from(w), f32::from(h));
    b.set_viewport(
        0,
        0,
        w,
        h,
        (0.0, 1.0),
        [fw * 0.5, fh * 0.5, 0.5, 0.0],
        [fw * 0.5, fh * -0.5, 0.5, 0.0],
    );
    b.set_scissor(0, 0, w, h);
    // cellGcmSetSurface calls cellGcmSetSurfaceWindow(surface, 1, 0) (the ELF's
    // `.cellGcmSetSurface`: `li 5,1; li 6,0`): origin bottom, half-pixel centres, height h
    // (rrc-format.md 4.6: height bits 0..11, origin bits 12..15).
    b.method(regs::SET_SHADER_WINDOW, u32::from(h) | (1 << 12))?;
    b.set_depth(true, 0x0201, true); // LESS
    b.method(regs::SET_FRONT_POLYGON_MODE, POLYGON_MODE_FILL)?;
    b.method(regs::SET_BACK_POLYGON_MODE, POLYGON_MODE_FILL)?;
    b.method(regs::SET_POINT_SIZE, 1f32.to_bits())?;
    b.method(regs::SET_LINE_WIDTH, 8)?;
    b.clear_surface(0xF3, CLEAR_COLOR, 0xFFFF_FF00);

    b.set_vertex_program(&mvp_vertex_program(32), 0, 0, 0b1001, 0b1)?;
    b.set_transform_constants(32, &projection())?;
    b.set_fragment_program(Location::Local, 0x0180_0000, &FRAGMENT_MOV_COL0, 0x40)?;
    let mut buffer = Vec::with_capacity(108 * 16);
    for v in vertices() {
        for c in v.position {
            buffer.extend_from_slice(&c.to_be_bytes());
        }
        buffer.extend_from_slice(&v.rgba.to_be_bytes());
    }
    b.put_memory(Location::Local, 0x0190_0000, &buffer)?;
    // Float3 positions and unsigned-byte RGBA colours, stride 16 (rrc-format.md 4.3 types 2, 4).
    b.set_vertex_array(0, 2, 3, 16, 0, Location::Local, 0x0190_0000)?;
    b.set_vertex_array(3, 4, 4, 16, 0, Location::Local, 0x0190_000C)?;

    let draw = |b: &mut CaptureBuilder, k: usize| -> Result<(), BuildError> {
        let (_, primitive, first, count) = DRAWS[k];
        b.draw_arrays(primitive, &[(first, count)])
    };
    b.method(regs::SET_POINT_SIZE, POINT_SIZE.to_bits())?;
    draw(&mut b, 0)?;
    b.method(regs::SET_POINT_SIZE, 1f32.to_bits())?;
    b.method(regs::SET_LINE_STIPPLE, 1)?;
    let (pattern, factor) = LINE_STIPPLE;
    b.method(
        regs::SET_LINE_STIPPLE_PATTERN,
        u32::from(pattern) << 16 | u32::from(factor),
    )?;
    draw(&mut b, 1)?;
    b.method(regs::SET_LINE_STIPPLE, 0)?;
    b.method(regs::SET_LINE_WIDTH, LINE_WIDTH_6_3)?;
    draw(&mut b, 2)?;
    b.method(regs::SET_LINE_WIDTH, 8)?;
    b.method(regs::SET_LINE_SMOOTH_ENABLE, 1)?;
    draw(&mut b, 3)?;
    b.method(regs::SET_LINE_SMOOTH_ENABLE, 0)?;
    for k in 4..9 {
        draw(&mut b, k)?;
    }
    b.method(regs::SET_BACK_POLYGON_MODE, POLYGON_MODE_FILL)?;
    draw(&mut b, 9)?;
    b.method(regs::SET_BACK_POLYGON_MODE, POLYGON_MODE_FILL)?;
    b.method(regs::SET_POLY_SMOOTH_ENABLE, 1)?;
    draw(&mut b, 10)?;
    b.method(regs::SET_POLY_SMOOTH_ENABLE, 0)?;
    b.method(regs::SET_BACK_POLYGON_MODE, POLYGON_MODE_POINT)?;
    draw(&mut b, 11)?;
    b.method(regs::SET_BACK_POLYGON_MODE, POLYGON_MODE_LINE)?;
    draw(&mut b, 12)?;
    b.method(regs::SET_BACK_POLYGON_MODE, POLYGON_MODE_FILL)?;
    b.method(regs::SET_POLYGON_STIPPLE, 1)?;
    for (i, word) in polygon_stipple_pattern().into_iter().enumerate() {
        b.method(regs::SET_POLYGON_STIPPLE_PATTERN + i as u32, word)?;
    }
    draw(&mut b, 13)?;
    b.method(regs::SET_POLYGON_STIPPLE, 0)?;
    b.flip(0);
    Ok(b.finish())
}
