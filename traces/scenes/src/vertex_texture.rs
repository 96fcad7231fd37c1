//! A capture whose vertex program samples a vertex texture (TXL): a grid displaced and
//! coloured by a mip-mapped float texture, the way games displace water and terrain on the
//! RSX. It exercises vertex texture fetch on every path that runs
//! vertex programs: the interpreter, the recompiled `vp_compute` (verify, the GPU render) and
//! the CPU render.
//!
//! - Vertex program ([`program`]): `TXL R0, v[0], c[0].x` on unit [`UNIT`] (coordinate `v[0]`,
//!   explicit level of detail `c[0].x` = [`LOD`]); `ADD o[HPOS], v[0], R0`;
//!   `MAD o[COL0], R0, c[1], c[2]`.
//! - Unit [`UNIT`]: a W32_Z32_Y32_X32_FLOAT linear texture, 4 × 4 with its 2 × 2 and 1 × 1
//!   levels, min filter LINEAR_MIPMAP_LINEAR (trilinear), mag LINEAR, wrap repeat, which a
//!   vertex unit ignores: it point-samples the nearest level (RPCS3 `vertex_texture`; the
//!   NV4x vertex fetch has no filtering), so at LOD 0.6 every vertex reads one texel of
//!   level 1. Texel (x, y) of level l holds
//!   (0.02 (x − y + l), 0.015 (x + y − l), 0, 0); its displacement stays small.
//! - Geometry: a 6 × 6 grid of cells over [−0.75, 0.75]², two triangles per cell (216
//!   vertices, a triangle list), position z 0.5, w 1 (`v[0]` of size 3).
//! - Fragment program `FRAGMENT_MOV_COL0` into a 64 × 64 A8R8G8B8 surface.

use crate::square_target::square_target;
use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
use rsxtrace_capture::builder::{BuildError, CaptureBuilder, TextureDesc};
use rsxtrace_capture::rrc::{Capture, Location};
use rsxtrace_program::vertex::{
    self, InputAttribute, OutputRegister, RegisterType, VectorOpcode, VertexInstruction,
    VertexProgram, WriteMask,
};

/// The vertex texture unit the program samples.
pub const UNIT: u8 = 1;
/// The explicit level of detail (`c[0].x`).
pub const LOD: f32 = 0.6;
/// Grid cells per side.
pub const CELLS: usize = 6;
/// Surface side in pixels.
pub const SIDE: u16 = 64;
/// Where the texture's levels lie in local memory.
const TEXTURE_OFFSET: u32 = 0x3E_0000;
/// Where the grid's vertices lie in main memory.
const VERTEX_OFFSET: u32 = 0x1_0000;

/// The vertex program (see the module documentation).
pub fn program() -> VertexProgram {
    // TXL R0 <- unit UNIT at v[0], LOD c[0].x (TEX_NUM, D2 bits 8–9, aliases src1's temp
    // index bits 0–1; src1 reads the constant).
    let mut txl = VertexInstruction::idle(0);
    txl.vector = VectorOpcode::Txl;
    txl.vec_dst_temp = Some(0);
    txl.vec_mask = WriteMask(0xF);
    txl.input = InputAttribute(0);
    txl.sources[0].reg_type = RegisterType::Input;
    txl.sources[1].reg_type = RegisterType::Constant;
    txl.sources[1].temp_index = UNIT;
    txl.const_index = 0;
    // ADD o[HPOS], v[0], R0 (ADD reads src0 + src2).
    let mut add = VertexInstruction::idle(1);
    add.vector = VectorOpcode::Add;
    add.output = Some(OutputRegister(0));
    add.vec_result = true;
    add.vec_mask = WriteMask(0xF);
    add.input = InputAttribute(0);
    add.sources[0].reg_type = RegisterType::Input;
    add.sources[2].reg_type = RegisterType::Temp;
    // MAD o[COL0], R0, c[1], c[2] (src0 R0, src1 c[1], src2 c[2]): the constant of an
    // instruction is one register, so c[2] comes through R1 set by a MOV first.
    let mut mov = VertexInstruction::idle(2);
    mov.vector = VectorOpcode::Mov;
    mov.vec_dst_temp = Some(1);
    mov.vec_mask = WriteMask(0xF);
    mov.sources[0].reg_type = RegisterType::Constant;
    mov.const_index = 2;
    let mut mad = VertexInstruction::idle(3);
    mad.vector = VectorOpcode::Mad;
    mad.output = Some(OutputRegister(1));
    mad.vec_result = true;
    mad.vec_mask = WriteMask(0xF);
    mad.sources[0].reg_type = RegisterType::Temp;
    mad.sources[1].reg_type = RegisterType::Constant;
    mad.const_index = 1;
    mad.sources[2].reg_type = RegisterType::Temp;
    mad.sources[2].temp_index = 1;
    mad.end = true;
    assert_eq!(txl.texture_unit(), Some(UNIT));
    VertexProgram {
        start_slot: 0,
        instructions: vec![txl, add, mov, mad],
    }
}

/// Texel (x, y) of level `level`: (R, G, B, A) = (X, Y, Z, W) of the float format.
pub fn texel(level: u32, x: u32, y: u32) -> [f32; 4] {
    let (x, y, l) = (x as f32, y as f32, level as f32);
    [0.02 * (x - y + l), 0.015 * (x + y - l), 0.0, 0.0]
}

/// The grid's vertices (x, y, z), two triangles per cell.
pub fn vertices() -> Vec<[f32; 3]> {
    let at = |i: usize| -0.75 + 1.5 * i as f32 / CELLS as f32;
    let mut out = Vec::with_capacity(CELLS * CELLS * 6);
    for j in 0..CELLS {
        for i in 0..CELLS {
            let corner = |di: usize, dj: usize| [at(i + di), at(j + dj), 0.5];
            for (di, dj) in [(0, 0), (1, 0), (1, 1), (0, 0), (1, 1), (0, 1)] {
                out.push(corner(di, dj));
            }
        }
    }
    out
}

/// The capture.
pub fn capture() -> Result<Capture, BuildError> {
    let mut b = CaptureBuilder::new("vertex_texture.rrc");
    square_target(&mut b, SIDE, [0, 0x4000, 0x8000, 0xC000], 0x1_0000);
    b.set_vertex_program(&vertex::encode(&program()), 0, 0, 0b1, 0b1)?;
    b.set_transform_constants(
        0,
        &[
            [LOD, 0.0, 0.0, 0.0],
            [8.0, 8.0, 0.0, 0.0],
            [0.5, 0.5, 0.25, 1.0],
        ],
    )?;
    b.set_fragment_program(Location::Local, 0x3_0000, &FRAGMENT_MOV_COL0, 0x40)?;
    let be = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|f| f.to_be_bytes()).collect() };
    let positions: Vec<f32> = vertices().into_iter().flatten().collect();
    b.put_memory(Location::Main, VERTEX_OFFSET, &be(&positions))?;
    b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, VERTEX_OFFSET)?;
    // Levels 4x4, 2x2, 1x1, one after the other (linear layout, pitch of level 0).
    let mut texels = Vec::new();
    for (level, side) in [(0u32, 4u32), (1, 2), (2, 1)] {
        for y in 0..side {
            for x in 0..4 {
                // Rows keep level 0's pitch (4 texels); texels past the level's width pad.
                let t = if x < side {
                    texel(level, x, y)
                } else {
                    [0.0; 4]
                };
                texels.extend(t);
            }
        }
    }
    let bytes = be(&texels);
    b.put_memory(Location::Local, TEXTURE_OFFSET, &bytes)?;
    b.set_vertex_texture(
        u32::from(UNIT),
        &TextureDesc {
            offset: TEXTURE_OFFSET,
            format: 0x9B | 0x20,
            mipmaps: 3,
            width: 4,
            height: 4,
            pitch: 64,
            // Max LOD 12 (CONTROL0 bits 7..18, 4.8).
            control0: (12 << 8) << 7,
            // Min LINEAR_MIPMAP_LINEAR (6), mag LINEAR (2).
            filter: (6 << 16) | (2 << 24),
            byte_size: bytes.len() as u32,
            ..TextureDesc::default()
        },
    )?;
    b.draw_arrays(5, &[(0, vertices().len() as u32)])?;
    Ok(b.finish())
}
