//! Trilinear filtering verifies clean, and a wrong level of detail is still caught (issue 12
//! item 7).
//!
//! The capture is made here by the builder, game-like: mip-mapped swizzled (A8R8G8B8,
//! R5G6B5) and DXT (DXT1, DXT45) textures with full mip chains, min filters that blend two
//! levels (LINEAR_MIPMAP_LINEAR, NEAREST_MIPMAP_LINEAR, the convolution filter) and some
//! that pick one (LINEAR_MIPMAP_NEAREST), LOD biases and min/max LOD clamps, drawn on
//! perspective quads whose level of detail sweeps across several levels, some of them with
//! anisotropic filtering (x4, x16: several samples along the longer derivative) and some
//! reading sRGB texels (converted after filtering on both sides), some reading a border
//! colour none of the device's (the shader adds it, `rsxtrace_semantics::border`). Both sides
//! must choose levels and place samples with the one LOD rule (`rsxtrace_semantics::lod`).

use crate::divergence_support;

use divergence_support::gpu;
use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
use rsxtrace_capture::builder::vertex_ucode::mvp_vertex_program;
use rsxtrace_capture::builder::{BuildError, CaptureBuilder, SurfaceDesc, TextureDesc};
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::Location;
use rsxtrace_program::fragment::{
    self, FpOpcode, InputAttribute as FpInput, Operands, Source, Swizzle,
};
use rsxtrace_program::vertex::{self, InputAttribute as VpInput, OutputRegister};
use rsxtrace_replay::texture::format::TexelFormat;
use rsxtrace_replay::texture::layout::{subresources, Geometry};
use rsxtrace_replay::wgsl::fragment::FragmentTranslateOptions;
use rsxtrace_verify::divergence::{verify_frame, Outcome, Stage, VerifyOptions};

const QUADS: u32 = 8;
const TYPE_F: u32 = 2;
/// 2D draws in the frame, then [`VOLUME_DRAWS`] cube-map and 3D draws.
const FLAT_DRAWS: usize = 24;
/// Cube-map draws (two) and 3D draws (two) after the 2D ones.
const VOLUME_DRAWS: usize = 4;
/// Then one draw each of TXL, TXB and TXD (the LOD operand, bias and gradients from TEX0.z).
const LOD_OPS: [FpOpcode; 3] = [FpOpcode::Txl, FpOpcode::Txb, FpOpcode::Txd];
/// Draws in the frame.
const DRAWS: usize = FLAT_DRAWS + VOLUME_DRAWS + LOD_OPS.len();
/// The draw the wrong-LOD hook edits.
const WRONG_DRAW: usize = 5;
/// 2D draws whose s and t read a border colour none of wgpu's three (the recompiled shader
/// adds it, `TextureLod::border`): nearest and linear mag filters, trilinear, anisotropic
/// (x16, x4), DXT and sRGB among them; their texture coordinates reach past 1.
const BORDER_DRAWS: [usize; 5] = [3, 9, 11, 14, 20];
/// Their colours (ARGB8), in turn.
const BORDER_COLOURS: [u32; 2] = [0xFF80_40C0, 0x8033_66CC];

/// (format byte, level-0 side). No LN flag: A8R8G8B8 and B8 are swizzled (rrc-format.md
/// 4.7); DXT is block-linear whatever the flag.
const TEXTURES: [(u8, u16); 4] = [
    (0x85, 64),  // A8R8G8B8, swizzled
    (0x86, 64),  // DXT1
    (0x88, 128), // DXT45
    (0x81, 32),  // B8, swizzled
];

/// Full mip levels of a square side (the decoder stops DXT chains at 4x4, `layout.rs`).
fn levels(side: u16) -> u16 {
    16 - side.leading_zeros() as u16
}

/// A byte of cell `cell`'s colour, channel `j`: 40..190.
fn shade(cell: usize, j: usize) -> u8 {
    (40 + (cell * 37 + j * 53) % 150) as u8
}

/// The texels of every level, laid out as the decoder reads them (levels back to back,
/// `replay/src/texture/layout.rs`). Each level is made of flat cells (8x8 texels in Z-order
/// for the swizzled formats, one 4x4 block for DXT) whose colours differ a lot between
/// cells, and level `k` adds `k` small steps (3/255, or one 565 green step) to every cell:
/// filtering inside a cell is exact and insensitive to coordinate nudges, while the blend
/// between two levels depends on the LOD (a wrong weight or level changes the result well
/// past the tolerance) only mildly, so that verify's nudged-coordinate conditioning run
/// (LOD moves by about 2e-5) stays within tolerance where no cell edge is near.
fn texels(format: u8, side: u16) -> Vec<u8> {
    let mut out = Vec::new();
    let mut s = usize::from(side);
    let mut k = 0usize;
    loop {
        match format {
            0x86 | 0x88 => {
                if s < 4 {
                    break;
                }
                let blocks = (s / 4) * (s / 4);
                for b in 0..blocks {
                    if format == 0x88 {
                        let a = shade(b, 3) + 3 * k as u8;
                        out.extend_from_slice(&[a, a, 0, 0, 0, 0, 0, 0]);
                    }
                    // RGB565 with green <= 40 of 63, one green step per level; c0 = c1 and
                    // every index 0: a flat block.
                    let c = (u16::from(shade(b, 0) >> 3) << 11)
                        | (((u16::from(shade(b, 1)) >> 3) + k as u16) << 5)
                        | u16::from(shade(b, 2) >> 3);
                    let [lo, hi] = c.to_le_bytes();
                    out.extend_from_slice(&[lo, hi, lo, hi, 0, 0, 0, 0]);
                }
            }
            _ => {
                let bytes = if format == 0x85 { 4 } else { 1 };
                for i in 0..s * s {
                    for j in 0..bytes {
                        out.push(shade(i >> 6, j) + 3 * k as u8);
                    }
                }
            }
        }
        if s == 1 {
            break;
        }
        s /= 2;
        k += 1;
    }
    out
}

/// A swizzled A8R8G8B8 cube map (`side`, 6 faces) or 3D texture (`side`^3) with a full mip
/// chain: every face and level flat, faces far apart in colour, levels `k` small steps apart
/// (as [`texels`]). Sub-resources are placed where the decoder reads them
/// (`layout::subresources`, RPCS3's layout restated: faces 128-byte aligned).
fn volume_texels(cube: bool, side: u16) -> Vec<u8> {
    let g = Geometry {
        format: TexelFormat::A8R8G8B8,
        width: u32::from(side),
        height: u32::from(side),
        depth: if cube { 1 } else { u32::from(side) },
        layers: if cube { 6 } else { 1 },
        mip_field: u32::from(levels(side)),
        linear: false,
        border_texels: false,
        pitch: u32::from(side) * 4,
    };
    let subs = subresources(&g);
    let end = subs.iter().map(|s| s.offset + s.size).max().unwrap_or(0);
    let mut out = vec![0u8; end as usize];
    for s in &subs {
        let colour: Vec<u8> = (0..4)
            .map(|j| shade(s.layer as usize * 3 + 1, j) + 3 * s.level as u8)
            .collect();
        let texels = s.size as usize / 4;
        for t in 0..texels {
            let at = s.offset as usize + t * 4;
            out[at..at + 4].copy_from_slice(&colour);
        }
    }
    out
}

fn be_floats(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_be_bytes()).collect()
}

fn build_error(what: &'static str, e: impl ToString) -> BuildError {
    BuildError::InvalidArgument {
        what,
        detail: e.to_string(),
    }
}

/// `o[TEX0] = v[8]` and HPOS = c[32..35] · v[0] (the builder's MVP program with its colour
/// move redirected, as the basic sample does).
fn vertex_program() -> Result<Vec<u32>, BuildError> {
    let mut p = vertex::decode_words(&mvp_vertex_program(32))
        .map_err(|e| build_error("vertex program", e))?;
    let first = &mut p.instructions[0];
    first.input = VpInput(8);
    first.output = Some(OutputRegister(7));
    Ok(vertex::encode(&p))
}

/// `op R0, f[TEX0], ...` on unit 0: TEX (implicit LOD from the quad's derivatives); TXL and
/// TXB with `f[TEX0].z` as the LOD or bias (RPCS3's operand, src1.x; rsx-microcode.md B.4);
/// TXD with `f[TEX0].zzzz` as both gradients.
fn fragment_program(op: FpOpcode) -> Result<Vec<u8>, BuildError> {
    let mut p = fragment::decode(&FRAGMENT_MOV_COL0).map_err(|e| build_error("fragment", e))?;
    let insn = &mut p.instructions[0];
    insn.opcode = op;
    insn.input = FpInput(4);
    insn.texture_unit = 0;
    if let Operands::Alu(a) = &mut insn.operands {
        let z = Source {
            swizzle: Swizzle([2; 4]),
            ..a.sources[0]
        };
        a.sources[1] = z;
        a.sources[2] = z;
    }
    Ok(fragment::encode(&p))
}

/// The frame: [`DRAWS`] perspective quads, each sampling one mip-mapped texture with its own
/// filter, bias and clamp.
fn trilinear_frame() -> Frame {
    let capture = build().expect("the builder accepts the frame");
    Frame::from_capture(&capture).expect("the frame decodes")
}

fn build() -> Result<rsxtrace_capture::rrc::Capture, BuildError> {
    let mut b = CaptureBuilder::new("trilinear.rrc");
    b.set_surface(&SurfaceDesc::argb8_square(8, 0, 0x20_0000));
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
    b.set_depth(false, 0x0201, false);
    b.clear_surface(0xF0, 0xFF20_2020, 0);
    b.set_vertex_program(&vertex_program()?, 16, 16, 0b1_0000_0001, 0x4001)?;
    // Identity transform: the positions are clip coordinates with their own w.
    let identity = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    b.set_transform_constants(32, &identity)?;
    b.set_fragment_program(
        Location::Local,
        0x30_0000,
        &fragment_program(FpOpcode::Tex)?,
        0x40,
    )?;

    // Texel data of the four textures.
    let mut offset = 0x40_0000u32;
    let mut placed = Vec::new();
    for (format, side) in TEXTURES {
        let bytes = texels(format, side);
        b.put_memory(Location::Local, offset, &bytes)?;
        let size = bytes.len() as u32;
        placed.push((offset, format, side, size));
        offset += size.next_multiple_of(0x1000);
    }
    let mut volumes = Vec::new();
    for (cube, side) in [(true, 128u16), (false, 32)] {
        let bytes = volume_texels(cube, side);
        b.put_memory(Location::Local, offset, &bytes)?;
        volumes.push((offset, cube, side, bytes.len() as u32));
        offset += (bytes.len() as u32).next_multiple_of(0x1000);
    }

    // min filter codes (filter.rs): 6 LINEAR_MIPMAP_LINEAR, 5 NEAREST_MIPMAP_LINEAR,
    // 7 convolution (= LINEAR_MIPMAP_LINEAR), 4 LINEAR_MIPMAP_NEAREST.
    let mins = [6u32, 5, 7, 6, 4, 6];
    // (bias in 1/256, min LOD, max LOD in 1/256).
    let lods: [(i32, u32, u32); 4] = [
        (0, 0, 12 << 8),
        (128, 0, 12 << 8),
        (-192, 0, 12 << 8),
        (0, 256, 896),
    ];
    // Texture-coordinate scales: the near edge's LOD is about log2(scale * side / 256 px).
    let scales = [1.0f32, 2.0, 4.0, 8.0, 16.0, 3.0];
    for d in 0..FLAT_DRAWS {
        let (off, format, side, size) = placed[d % placed.len()];
        let (bias, min_lod, max_lod) = if d == WRONG_DRAW {
            // The draw the wrong-LOD test edits: no clamp in the way of its bias.
            (0, 0, 12 << 8)
        } else {
            lods[(d / 4) % lods.len()]
        };
        let mag = if d % 5 == 3 { 1 } else { 2 };
        // CONTROL0 max anisotropy (bits 4..6): x1, x4, x1, x16 in turn.
        let aniso = if d == WRONG_DRAW {
            0
        } else {
            [0u32, 2, 0, 7][d % 4]
        };
        let min = if d == WRONG_DRAW {
            6
        } else {
            mins[d % mins.len()]
        };
        let filter = ((bias as u32) & 0x1FFF) | (min << 16) | (mag << 24);
        // Packed rows (swizzled textures ignore the pitch; DXT rows of 4x4 blocks).
        let pitch = match format {
            0x86 => u32::from(side) / 4 * 8,
            0x88 => u32::from(side) / 4 * 16,
            0x85 => u32::from(side) * 4,
            _ => u32::from(side),
        };
        b.set_texture(
            0,
            &TextureDesc {
                offset: off,
                location: Location::Local,
                format,
                dimension: 2,
                cubemap: false,
                mipmaps: levels(side),
                width: side,
                height: side,
                depth: 1,
                pitch,
                // Every fifth draw (bar the edited ones) reads its texels as sRGB (ADDRESS
                // gamma bits 20..22): the conversion follows the filter on both sides.
                address: (if BORDER_DRAWS.contains(&d) {
                    0x0004_0404
                } else if d % 3 == 2 {
                    0x0003_0303
                } else {
                    0x0001_0101
                }) | if d % 5 == 1 && d != WRONG_DRAW && d != ANISO_DRAW {
                    0b0111 << 20
                } else {
                    0
                },
                control0: (min_lod << 19) | (max_lod << 7) | (aniso << 4),
                remap: 0x0000_AAE4,
                filter,
                border_color: BORDER_COLOURS[d % 2],
                byte_size: size,
                border_texels: false,
            },
        )?;
        let far = 2.0 + (d % 3) as f32;
        let s = scales[d % scales.len()];
        quad(
            &mut b,
            d,
            far,
            [[0.0, 0.0, 0.0], [s, 0.0, 0.0], [s, s, 0.0], [0.0, s, 0.0]],
        )?;
    }
    for k in 0..VOLUME_DRAWS {
        let d = FLAT_DRAWS + k;
        let (off, cube, side, size) = volumes[k / 2];
        // LINEAR_MIPMAP_LINEAR, then NEAREST_MIPMAP_LINEAR; mag LINEAR.
        let min = [6u32, 5][k % 2];
        b.set_texture(
            0,
            &TextureDesc {
                offset: off,
                location: Location::Local,
                format: 0x85,
                dimension: if cube { 2 } else { 3 },
                cubemap: cube,
                mipmaps: levels(side),
                width: side,
                height: side,
                depth: if cube { 1 } else { side },
                pitch: u32::from(side) * 4,
                address: 0x0001_0101,
                control0: (12 << 8) << 7,
                remap: 0x0000_AAE4,
                filter: (min << 16) | (2 << 24),
                border_color: 0,
                byte_size: size,
                border_texels: false,
            },
        )?;
        let far = 2.0 + k as f32;
        let coords = if cube {
            // Directions around +Z (face 4): face coordinates 0.5 (x / z + 1) sweep the face.
            let z = 1.0 + k as f32 * 0.25;
            [
                [-0.9, -0.9, z],
                [0.9, -0.9, z],
                [0.9, 0.9, z],
                [-0.9, 0.9, z],
            ]
        } else {
            // Through the volume, r rising with u and v.
            let s = 2.0 + k as f32;
            [
                [0.0, 0.0, 0.0],
                [s, 0.0, 0.5 * s],
                [s, s, s],
                [0.0, s, 0.5 * s],
            ]
        };
        quad(&mut b, d, far, coords)?;
    }
    let (off, format, side, size) = placed[0];
    for (k, op) in LOD_OPS.into_iter().enumerate() {
        let d = FLAT_DRAWS + VOLUME_DRAWS + k;
        b.set_fragment_program(
            Location::Local,
            0x30_0100 + 0x100 * k as u32,
            &fragment_program(op)?,
            0x40,
        )?;
        b.set_texture(
            0,
            &TextureDesc {
                offset: off,
                location: Location::Local,
                format,
                dimension: 2,
                cubemap: false,
                mipmaps: levels(side),
                width: side,
                height: side,
                depth: 1,
                pitch: u32::from(side) * 4,
                address: 0x0001_0101,
                control0: (12 << 8) << 7,
                remap: 0x0000_AAE4,
                // LINEAR_MIPMAP_LINEAR, mag LINEAR, unit bias +0.5 (added to TXL's LOD too).
                filter: 128 | (6 << 16) | (2 << 24),
                border_color: 0,
                byte_size: size,
                border_texels: false,
            },
        )?;
        // TEX0.z: TXL's LOD -1..6, TXB's bias -2..2, TXD's gradients 1/256..1/8.
        let (z0, z1) = match op {
            FpOpcode::Txl => (-1.0, 6.0),
            FpOpcode::Txb => (-2.0, 2.0),
            _ => (1.0 / 256.0, 1.0 / 8.0),
        };
        let coords = [
            [0.0, 0.0, z0],
            [3.0, 0.0, z0],
            [3.0, 3.0, z1],
            [0.0, 3.0, z1],
        ];
        quad(&mut b, d, 2.5, coords)?;
    }
    Ok(b.finish())
}

/// Draw `d`'s quad in its cell of a 4x8 grid: w = 1 along the bottom edge, `far` along the
/// top (clip x, y scaled by w), texture coordinates `st` at the four corners.
fn quad(b: &mut CaptureBuilder, d: usize, far: f32, st: [[f32; 3]; 4]) -> Result<(), BuildError> {
    let (cx, cy) = ((d % 4) as f32, (d / 4) as f32);
    let (x0, x1) = (-1.0 + cx * 0.5, -1.0 + cx * 0.5 + 0.5);
    let (y0, y1) = (-1.0 + cy / 4.0, -1.0 + (cy + 1.0) / 4.0);
    let corners = [(x0, y0, 1.0), (x1, y0, 1.0), (x1, y1, far), (x0, y1, far)];
    let verts: Vec<f32> = corners
        .iter()
        .zip(st)
        .flat_map(|(&(x, y, w), t)| [x * w, y * w, 0.5 * w, w, t[0], t[1], t[2]])
        .collect();
    let at = 0x1_0000 + (d as u32) * 0x100;
    b.put_memory(Location::Main, at, &be_floats(&verts))?;
    b.set_vertex_array(0, TYPE_F, 4, 28, 0, Location::Main, at)?;
    b.set_vertex_array(8, TYPE_F, 3, 28, 0, Location::Main, at + 16)?;
    b.draw_arrays(QUADS, &[(0, 4)])
}

#[test]
fn the_builder_frame_uses_mipmapped_trilinear_textures() {
    let f = trilinear_frame();
    assert_eq!(f.draws.len(), DRAWS);
    let blends = f
        .draws
        .iter()
        .filter(|d| {
            matches!(d.textures[0].filter.min.raw, 5..=7) && d.textures[0].format.mip_count > 1
        })
        .count();
    assert!(blends >= DRAWS / 2, "{blends} draws blend two levels");
    let anisotropic = f
        .draws
        .iter()
        .filter(|d| d.textures[0].control0.max_aniso.raw > 0)
        .count();
    assert!(
        anisotropic >= FLAT_DRAWS / 3,
        "{anisotropic} anisotropic draws"
    );
    let srgb = f
        .draws
        .iter()
        .filter(|d| d.textures[0].address.gamma != 0)
        .count();
    assert!(srgb >= 4, "{srgb} draws read sRGB texels");
    for d in BORDER_DRAWS {
        let lod = rsxtrace_replay::texture::lod::unit_lod(&f.draws[d].textures[0]);
        assert_eq!(
            lod.border.map(|b| b.axes),
            Some(0b11),
            "draw {d} reads a border"
        );
    }
    let volume = |d: &rsxtrace_capture::frame::Draw| {
        (d.textures[0].format.cubemap, d.textures[0].format.dimension)
    };
    assert_eq!(volume(&f.draws[FLAT_DRAWS]), (true, 2), "a cube map");
    assert_eq!(
        volume(&f.draws[FLAT_DRAWS + VOLUME_DRAWS - 1]),
        (false, 3),
        "a 3D texture"
    );
}

#[test]
fn trilinear_filtering_verifies_clean() {
    let Some(gpu) = gpu("trilinear_filtering_verifies_clean") else {
        return;
    };
    let f = trilinear_frame();
    let report = verify_frame(&f, &VerifyOptions::default(), &gpu, None).unwrap();
    for d in &report.draws {
        let s = &d.stages[1];
        assert_eq!(s.stage, Stage::Fragment);
        assert_eq!(
            s.outcome,
            Outcome::Clean,
            "draw {}: {:?}",
            d.draw,
            s.registers
                .iter()
                .map(|r| (&r.register, r.diverged, r.ill_conditioned))
                .collect::<Vec<_>>()
        );
        // Every draw covers pixels and compares them.
        assert!(
            s.elements > 100,
            "draw {} compared {} pixels",
            d.draw,
            s.elements
        );
        // Clean by agreement, not by counting mismatches as ill-conditioned.
        assert_eq!(s.ill_conditioned(), 0, "draw {}", d.draw);
    }
    assert!(!report.diverged());
}

/// The GPU side's unit 0 gets an LOD bias one level higher than the capture's at
/// [`WRONG_DRAW`]: the shader now samples one level coarser than the interpreter.
fn lod_bias_plus_one(draw: usize, options: &mut FragmentTranslateOptions) {
    if draw == WRONG_DRAW {
        options.texture_lod[0].bias += 256;
    }
}

#[test]
fn a_wrong_lod_in_the_translation_is_caught_at_its_draw() {
    let Some(gpu) = gpu("a_wrong_lod_in_the_translation_is_caught") else {
        return;
    };
    let f = trilinear_frame();
    let options = VerifyOptions {
        fragment_options_hook: Some(lod_bias_plus_one),
        ..VerifyOptions::default()
    };
    let report = verify_frame(&f, &options, &gpu, None).unwrap();
    assert!(report.diverged());
    let worst = report.worst_first();
    assert_eq!(worst.len(), 1, "only the edited draw diverges");
    let (d, s) = worst[0];
    assert_eq!((d.draw, s.stage), (WRONG_DRAW, Stage::Fragment));
    let reg = s.worst_register().unwrap();
    assert_eq!(reg.register, "COL0 (R0)");
    // Pixels in the bilinear transition between two cells move with the nudged coordinates
    // and count as ill-conditioned; the flat parts of the cells diverge.
    // A level coarser changes most pixels (other cells, other steps), not a few boundary ones.
    assert!(
        reg.diverged as usize * 2 > s.elements,
        "{} component divergences over {} pixels",
        reg.diverged,
        s.elements
    );
}

/// A draw whose unit takes up to 16 samples (x16).
const ANISO_DRAW: usize = 7;

/// The GPU side's unit 0 samples isotropically at [`ANISO_DRAW`].
fn isotropic_translation(draw: usize, options: &mut FragmentTranslateOptions) {
    if draw == ANISO_DRAW {
        options.texture_lod[0].aniso = 1;
    }
}

#[test]
fn a_translation_that_ignores_anisotropy_is_caught_at_its_draw() {
    let Some(gpu) = gpu("a_translation_that_ignores_anisotropy_is_caught") else {
        return;
    };
    let f = trilinear_frame();
    assert_eq!(f.draws[ANISO_DRAW].textures[0].control0.max_aniso.raw, 7);
    let options = VerifyOptions {
        fragment_options_hook: Some(isotropic_translation),
        ..VerifyOptions::default()
    };
    let report = verify_frame(&f, &options, &gpu, None).unwrap();
    let worst = report.worst_first();
    assert_eq!(worst.len(), 1, "only the edited draw diverges");
    let (d, s) = worst[0];
    assert_eq!((d.draw, s.stage), (ANISO_DRAW, Stage::Fragment));
    assert_eq!(s.worst_register().unwrap().register, "COL0 (R0)");
}

/// The GPU side's unit 0 leaves the border colour to the device at `BORDER_DRAWS[1]`
/// (which then reads transparent black outside the image).
fn device_border_only(draw: usize, options: &mut FragmentTranslateOptions) {
    if draw == BORDER_DRAWS[1] {
        options.texture_lod[0].border = None;
    }
}

#[test]
fn a_translation_that_leaves_out_the_border_colour_is_caught_at_its_draw() {
    let Some(gpu) = gpu("a_translation_that_leaves_out_the_border_colour_is_caught") else {
        return;
    };
    let f = trilinear_frame();
    let options = VerifyOptions {
        fragment_options_hook: Some(device_border_only),
        ..VerifyOptions::default()
    };
    let report = verify_frame(&f, &options, &gpu, None).unwrap();
    let worst = report.worst_first();
    assert_eq!(worst.len(), 1, "only the edited draw diverges");
    let (d, s) = worst[0];
    assert_eq!((d.draw, s.stage), (BORDER_DRAWS[1], Stage::Fragment));
    assert_eq!(s.worst_register().unwrap().register, "COL0 (R0)");
}
