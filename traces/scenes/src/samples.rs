//! The sample captures in `traces/samples/`, built with the capture builder and rsxtrace's own
//! program encoders (never from corpus files). `tests/samples_current.rs` checks that the
//! checked-in files equal what this module builds; regenerate them with
//! `RSXTRACE_UPDATE_SAMPLES=1 cargo test -p rsxtrace --test integration samples_current::`.

use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
use rsxtrace_capture::builder::vertex_ucode::mvp_vertex_program;
use rsxtrace_capture::builder::{
    BuildError, CaptureBuilder, IndexType, SurfaceDesc, SurfaceTarget, TextureDesc,
};
use rsxtrace_capture::rrc::{BufferState, Capture, DisplayBuffersState, Location};
use rsxtrace_program::fragment::{self, FpOpcode, InputAttribute as FpInput};
use rsxtrace_program::vertex::{self, InputAttribute as VpInput, OutputRegister};

/// File name of the basic sample, relative to `traces/samples/`.
pub const BASIC: &str = "basic.rrc.gz";

/// Primitive codes of `SET_BEGIN_END` (rrc-format.md 4.2).
const TRIANGLES: u32 = 5;
const TRIANGLE_STRIP: u32 = 6;
const QUADS: u32 = 8;

/// Vertex array type codes (rrc-format.md 4.3).
const TYPE_F: u32 = 2;
const TYPE_UB: u32 = 4;

/// A row-major 4x4 matrix as the four constant rows c[32+k] (clip.k = dot(c[32+k], v)).
type Matrix = [[f32; 4]; 4];

fn perspective_times_view(eye_z: f32, tilt: f32) -> Matrix {
    // A camera at (0, 0, eye_z) looking down -z, rotated about y by `tilt`, with a 60-degree
    // vertical field of view, aspect 1, near 0.1, far 100 (OpenGL-style clip space).
    let f = 1.0 / (30f32.to_radians()).tan();
    let (near, far) = (0.1f32, 100.0f32);
    let (s, c) = tilt.sin_cos();
    let a = (far + near) / (near - far);
    let b = 2.0 * far * near / (near - far);
    let view: Matrix = [
        [c, 0.0, -s, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [s, 0.0, c, -eye_z],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let proj: Matrix = [
        [f, 0.0, 0.0, 0.0],
        [0.0, f, 0.0, 0.0],
        [0.0, 0.0, a, b],
        [0.0, 0.0, -1.0, 0.0],
    ];
    let mut out = [[0.0; 4]; 4];
    for (i, row) in out.iter_mut().enumerate() {
        for (j, cell) in row.iter_mut().enumerate() {
            *cell = (0..4).map(|k| proj[i][k] * view[k][j]).sum();
        }
    }
    out
}

pub(crate) fn be_floats(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_be_bytes()).collect()
}

/// The MVP vertex program writing TEX0 from v[8] instead of COL0 from v[3].
pub(crate) fn textured_vertex_program() -> Result<Vec<u32>, BuildError> {
    let mut program =
        vertex::decode_words(&mvp_vertex_program(32)).map_err(|e| BuildError::InvalidArgument {
            what: "vertex program",
            detail: e.to_string(),
        })?;
    let first = &mut program.instructions[0];
    first.input = VpInput(8);
    first.output = Some(OutputRegister(7)); // TEX0 (rsx-microcode.md B.8 outputs)
    Ok(vertex::encode(&program))
}

/// `TEX R0, f[TEX0], TEX0` with END: FRAGMENT_MOV_COL0 turned into a texture fetch.
pub(crate) fn textured_fragment_program() -> Result<Vec<u8>, BuildError> {
    let mut program =
        fragment::decode(&FRAGMENT_MOV_COL0).map_err(|e| BuildError::InvalidArgument {
            what: "fragment program",
            detail: e.to_string(),
        })?;
    let insn = &mut program.instructions[0];
    insn.opcode = FpOpcode::Tex;
    insn.input = FpInput(4); // TEX0 (rsx-microcode.md B.3 inputs)
    insn.texture_unit = 0;
    Ok(fragment::encode(&program))
}

/// A 4x4 A8R8G8B8 checkerboard, linear layout (pitch 16), big-endian ARGB texels.
fn checkerboard() -> Vec<u8> {
    let mut texels = Vec::with_capacity(64);
    for y in 0..4 {
        for x in 0..4 {
            let argb: u32 = if (x + y) % 2 == 0 {
                0xFFFF_8000
            } else {
                0xFF00_40C0
            };
            texels.extend_from_slice(&argb.to_be_bytes());
        }
    }
    texels
}

/// The basic sample: a 256x256 A8R8G8B8 + Z24S8 surface, a clear, and three draws: a
/// coloured triangle (arrays: float3 positions and UB colours), an indexed u16 triangle
/// strip coloured by an immediate attribute, and a textured quad (a linear 4x4 checkerboard).
/// Every draw has its model-view-projection in c32..c35, uploaded in the frame.
pub fn basic() -> Result<Capture, BuildError> {
    let mut b = CaptureBuilder::new(BASIC);
    show_target(&mut b, 256, 256, 1024, 0);
    b.set_surface(&SurfaceDesc {
        color_format: 8, // A8R8G8B8
        depth_format: 2, // Z24S8
        surface_type: 1, // pitch
        antialias: 0,
        log2_size: (8, 8),
        color_target: 1,
        colors: [
            SurfaceTarget {
                location: Location::Local,
                offset: 0,
                pitch: 1024,
            },
            SurfaceTarget {
                location: Location::Local,
                offset: 0x0004_0000,
                pitch: 1024,
            },
            SurfaceTarget {
                location: Location::Local,
                offset: 0x0008_0000,
                pitch: 1024,
            },
            SurfaceTarget {
                location: Location::Local,
                offset: 0x000C_0000,
                pitch: 1024,
            },
        ],
        zeta: SurfaceTarget {
            location: Location::Local,
            offset: 0x0020_0000,
            pitch: 1024,
        },
        clip: (0, 0, 256, 256),
    });
    b.set_viewport(
        0,
        0,
        256,
        256,
        (0.0, 1.0),
        [128.0, 128.0, 0.5, 0.0],
        [128.0, -128.0, 0.5, 0.0],
    );
    b.set_scissor(0, 0, 256, 256);
    b.set_depth(true, 0x0201, true); // LESS
    b.clear_surface(0xF3, 0xFF20_2020, 0xFFFF_FF00);

    // Draw 0: a coloured triangle.
    b.set_vertex_program(&mvp_vertex_program(32), 0, 0, 0b1001, 0b1)?;
    b.set_transform_constants(32, &perspective_times_view(3.0, 0.0))?;
    b.set_fragment_program(Location::Local, 0x0030_0000, &FRAGMENT_MOV_COL0, 0x40)?;
    let positions = be_floats(&[-1.0, -1.0, 0.0, 1.0, -1.0, 0.0, 0.0, 1.0, 0.0]);
    b.put_memory(Location::Main, 0x0001_0000, &positions)?;
    b.put_memory(
        Location::Main,
        0x0001_1000,
        &[
            0xFF, 0x00, 0x00, 0xFF, 0x00, 0xFF, 0x00, 0xFF, 0x00, 0x00, 0xFF, 0xFF,
        ],
    )?;
    b.set_vertex_array(0, TYPE_F, 3, 12, 0, Location::Main, 0x0001_0000)?;
    b.set_vertex_array(3, TYPE_UB, 4, 4, 0, Location::Main, 0x0001_1000)?;
    b.draw_arrays(TRIANGLES, &[(0, 3)])?;

    // Draw 1: an indexed u16 strip, colour from an immediate attribute, another camera.
    b.disable_vertex_array(3)?;
    b.set_vertex_data_4f(3, [0.25, 0.5, 1.0, 1.0])?;
    b.set_transform_constants(32, &perspective_times_view(4.0, 0.3))?;
    let strip = be_floats(&[
        -1.0, -1.0, -1.0, 1.0, -1.0, -1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0,
        // RPCS3 captures one element past the highest index (rrc-format.md 3.3: size
        // `stride*(max-min+1) + element`), so the guest memory has a fifth element there.
        0.0, 0.0, 0.0,
    ]);
    b.put_memory(Location::Local, 0x0010_0000, &strip)?;
    let indices: Vec<u8> = [0u16, 1, 2, 3]
        .iter()
        .flat_map(|i| i.to_be_bytes())
        .collect();
    b.put_memory(Location::Local, 0x0010_1000, &indices)?;
    b.set_vertex_array(0, TYPE_F, 3, 12, 0, Location::Local, 0x0010_0000)?;
    b.set_index_array(Location::Local, 0x0010_1000, IndexType::U16)?;
    b.draw_indexed(TRIANGLE_STRIP, &[(0, 4)])?;

    // Draw 2: a textured quad.
    b.set_vertex_program(&textured_vertex_program()?, 16, 16, 0b1_0000_0001, 0x4001)?;
    b.set_transform_constants(32, &perspective_times_view(2.5, -0.2))?;
    b.set_fragment_program(
        Location::Local,
        0x0030_0100,
        &textured_fragment_program()?,
        0x40,
    )?;
    let quad = be_floats(&[
        -0.5, -0.5, 0.5, 0.0, 1.0, 0.5, -0.5, 0.5, 1.0, 1.0, 0.5, 0.5, 0.5, 1.0, 0.0, -0.5, 0.5,
        0.5, 0.0, 0.0,
    ]);
    b.put_memory(Location::Main, 0x0002_0000, &quad)?;
    b.set_vertex_array(0, TYPE_F, 3, 20, 0, Location::Main, 0x0002_0000)?;
    b.set_vertex_array(8, TYPE_F, 2, 20, 0, Location::Main, 0x0002_000C)?;
    let texels = checkerboard();
    b.put_memory(Location::Local, 0x0040_0000, &texels)?;
    b.set_texture(
        0,
        &TextureDesc {
            offset: 0x0040_0000,
            location: Location::Local,
            format: 0x85 | 0x20, // A8R8G8B8, linear
            dimension: 2,
            cubemap: false,
            mipmaps: 1,
            width: 4,
            height: 4,
            depth: 1,
            pitch: 16,
            address: 0x0003_0303, // clamp to edge on s, t, r
            // Enabled; min LOD 0 (bits 19..30), max LOD 12.0 in 4.8 fixed point (bits 7..18).
            control0: 0x8000_0000 | ((12 << 8) << 7),
            remap: 0x0000_AAE4,            // identity remap (A R G B)
            filter: (1 << 16) | (1 << 24), // nearest min and mag
            border_color: 0,
            byte_size: texels.len() as u32,
            border_texels: false,
        },
    )?;
    b.draw_arrays(QUADS, &[(0, 4)])?;
    b.flip(0);
    Ok(b.finish())
}

/// Describe the colour target at local `offset` as display buffer 0, the one the frame's flip
/// shows: RPCS3's replay presents a flipped buffer, and shows nothing for a capture without
/// display buffers (`VKPresent.cpp`, `GLPresent.cpp` need a sized buffer). Set before the
/// first command, which carries the initial display state.
pub fn show_target(b: &mut CaptureBuilder, width: u32, height: u32, pitch: u32, offset: u32) {
    b.set_display_buffers(DisplayBuffersState::of(&[BufferState {
        width,
        height,
        pitch,
        offset,
    }]));
}
