//! Programs the render tests share: the ps3autotests `MOV R0, f[COL0]` fragment program (the
//! builder's `FRAGMENT_MOV_COL0`, rsx-microcode.md B.1), its `TEX R0, f[TEX0], TEX0`
//! variant, and a pass-through vertex program.
#![allow(dead_code)]

use rsxtrace_capture::builder::vertex_ucode::{
    source, VecInstruction, MASK_W, MASK_X, MASK_Y, MASK_Z, REG_INPUT, SWIZZLE_XYZW, VEC_MOV,
};
use rsxtrace_program::fragment::{decode, encode, FpOpcode, InputAttribute};

/// `MOV o[COL0], v[3]; MOV o[TEX0], v[8]; MOV o[HPOS], v[0]` (END).
pub fn vertex_program() -> Vec<u32> {
    vertex_program_colour_from(3)
}

/// [`vertex_program`] with the colour read from input attribute `attribute`.
pub fn vertex_program_colour_from(attribute: u32) -> Vec<u32> {
    let input = source(REG_INPUT, SWIZZLE_XYZW);
    let mov = |attribute: u32, output: u32, end: bool| VecInstruction {
        opcode: VEC_MOV,
        input: attribute,
        constant: 0,
        sources: [input, input, input],
        output,
        mask: MASK_X | MASK_Y | MASK_Z | MASK_W,
        end,
    };
    [mov(attribute, 1, false), mov(8, 7, false), mov(0, 0, true)]
        .iter()
        .flat_map(VecInstruction::encode)
        .collect()
}

pub use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0 as FP_MOV_COL0;

/// `TEX R0, f[TEX0], TEX0; END`: `MOV R0, f[COL0]` with the opcode and input changed.
pub fn tex_program() -> Vec<u8> {
    let mut p = decode(&FP_MOV_COL0).unwrap();
    let insn = &mut p.instructions[0];
    insn.opcode = FpOpcode::Tex;
    insn.input = InputAttribute(4);
    insn.texture_unit = 0;
    encode(&p)
}

/// The CPU render of `frame` with `options`, once on one tile per draw with every covered
/// quad shaded (no early depth rejection) and once with every draw that spans more than two
/// rows split into bands of two (`Tiling::Rows(2)`, the smallest tiles) and quads sure to
/// fail the depth test left unshaded: both must agree bit for bit (image, per-draw
/// snapshots, warnings, skipped draws); returns the tiled render.
pub fn cpu_render_tiled(
    frame: &rsxtrace_capture::frame::Frame,
    events: &rsxtrace_replay::render::state::FrameEvents,
    options: &rsxtrace_replay::render::RenderOptions,
) -> Result<rsxtrace_replay::render::RenderedFrame, rsxtrace_replay::render::RenderError> {
    use rsxtrace_replay::render::cpu::render_frame;
    use rsxtrace_replay::render::{RenderOptions, Tiling};
    let with = |tiling, no_early_depth| RenderOptions {
        tiling,
        no_early_depth,
        ..options.clone()
    };
    let serial = render_frame(frame, events, &with(Tiling::Off, true));
    let tiled = render_frame(
        frame,
        events,
        &with(Tiling::Rows(2), options.no_early_depth),
    );
    match (&serial, &tiled) {
        (Ok(s), Ok(t)) => {
            assert_eq!(s.tiled_draws, 0, "Tiling::Off split a draw");
            assert_eq!(s.shading.quads_rejected_early, 0, "no_early_depth rejected");
            assert!(
                s.image == t.image,
                "tiles or early depth rejection changed the image"
            );
            assert_eq!(s.per_draw.len(), t.per_draw.len());
            for (a, b) in s.per_draw.iter().zip(&t.per_draw) {
                assert!(
                    a.draw == b.draw && a.image == b.image,
                    "tiles or early depth rejection changed the snapshot after draw {}",
                    a.draw
                );
            }
            assert_eq!(s.warnings, t.warnings);
            assert_eq!(s.skipped, t.skipped);
            assert_eq!(s.draws_rendered, t.draws_rendered);
        }
        (Err(s), Err(t)) => assert_eq!(s.to_string(), t.to_string()),
        _ => panic!(
            "one tile and tiles disagree: {:?} vs {:?}",
            serial.is_ok(),
            tiled.is_ok()
        ),
    }
    tiled
}

/// Where [`pixel_scene`] puts its colour target.
pub const SCENE_COLOR: u32 = 0x0010_0000;
/// Where [`pixel_scene`] puts its depth target.
pub const SCENE_ZETA: u32 = 0x0020_0000;

/// Bind a `size`×`size` (a power of two) A8R8G8B8 surface with a Z24S8 depth surface, both
/// linear in local memory with rows of `pitch` bytes: colour target A at `colour`, the depth
/// surface at `zeta`, anti-aliasing mode `antialias` (0 none; the surface then holds its
/// sample grid).
pub fn set_a8r8g8b8_surface(
    b: &mut rsxtrace_capture::builder::CaptureBuilder,
    size: u16,
    antialias: u32,
    (colour, zeta): (u32, u32),
    pitch: u32,
) {
    use rsxtrace_capture::builder::{SurfaceDesc, SurfaceTarget};
    use rsxtrace_capture::rrc::Location;
    let target = |offset| SurfaceTarget {
        location: Location::Local,
        offset,
        pitch,
    };
    let log2 = u32::from(size).trailing_zeros();
    b.set_surface(&SurfaceDesc {
        color_format: 8,
        depth_format: 2,
        surface_type: 1,
        antialias,
        log2_size: (log2, log2),
        color_target: 1,
        colors: [target(colour), target(0), target(0), target(0)],
        zeta: target(zeta),
        clip: (0, 0, size, size),
    });
}

/// A `size`×`size` (a power of two) A8R8G8B8 surface at [`SCENE_COLOR`] with a
/// `depth_format` (1 Z16, 2 Z24S8) zeta surface at [`SCENE_ZETA`], both linear and in local
/// memory; the viewport the identity on window pixels (clip x, y are pixels with w = 1, z as
/// given), the scissor the whole surface, every colour channel written, and
/// [`vertex_program`]. The render tests' common scene; each adds its state and draws.
pub fn pixel_scene(
    name: &str,
    size: u16,
    depth_format: u32,
) -> rsxtrace_capture::builder::CaptureBuilder {
    use rsxtrace_capture::builder::{CaptureBuilder, SurfaceDesc, SurfaceTarget};
    use rsxtrace_capture::rrc::Location;
    let target = |offset, bytes: u32| SurfaceTarget {
        location: Location::Local,
        offset,
        pitch: u32::from(size) * bytes,
    };
    let log2 = size.trailing_zeros();
    let mut b = CaptureBuilder::new(name);
    b.set_surface(&SurfaceDesc {
        color_format: 8,
        depth_format,
        surface_type: 1,
        antialias: 0,
        log2_size: (log2, log2),
        color_target: 1,
        colors: [
            target(SCENE_COLOR, 4),
            target(0, 4),
            target(0, 4),
            target(0, 4),
        ],
        zeta: target(SCENE_ZETA, if depth_format == 1 { 2 } else { 4 }),
        clip: (0, 0, size, size),
    });
    b.set_viewport(0, 0, size, size, (0.0, 1.0), [0.0; 4], [1.0, 1.0, 1.0, 0.0]);
    b.set_scissor(0, 0, size, size);
    b.set_color_mask(0x0101_0101);
    b.set_vertex_program(&vertex_program(), 0, 0, 0b1_0000_1001, 0x4003)
        .unwrap();
    b
}

/// One vertex as the render tests lay them out: position (x, y, z, w), colour, texture
/// coordinate.
pub type TestVertex = [[f32; 4]; 3];

/// Put `vertices` at `at` in main memory, 48 bytes each as big-endian f32 (position in
/// attribute 0, colour in 3, texture coordinate in 8, the inputs of [`vertex_program`]), bind
/// the three arrays and draw them as `primitive` (8 = QUADS).
pub fn draw_vertices(
    b: &mut rsxtrace_capture::builder::CaptureBuilder,
    at: u32,
    primitive: u32,
    vertices: &[TestVertex],
) {
    use rsxtrace_capture::rrc::Location;
    let bytes: Vec<u8> = vertices
        .iter()
        .flatten()
        .flatten()
        .flat_map(|v| v.to_be_bytes())
        .collect();
    b.put_memory(Location::Main, at, &bytes).unwrap();
    for (attribute, offset) in [(0, 0), (3, 16), (8, 32)] {
        b.set_vertex_array(attribute, 2, 4, 48, 0, Location::Main, at + offset)
            .unwrap();
    }
    b.set_vertex_attrib_input_mask(0b1_0000_1001);
    b.draw_arrays(primitive, &[(0, vertices.len() as u32)])
        .unwrap();
}

/// The corners of the rectangle x0..x1 × y0..y1 in QUADS order.
pub fn corners([x0, y0, x1, y1]: [f32; 4]) -> [(f32, f32); 4] {
    [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
}
