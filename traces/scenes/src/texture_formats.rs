//! The texture-format sample `traces/samples/texture_formats.rrc.gz`: one textured quad per RSX
//! texture format, in the manner of the public ps3autotests `texture_formats` test (a grid of
//! quads, each sampling one format through `TEX R0, f[TEX0], TEX0`), plus quads that exercise
//! the per-unit rules: swizzled layout, unnormalised coordinates, the CONTROL1 remap with ZERO
//! and ONE, gamma, signed and biased channels, and the 16-bit remap rewrites.
//!
//! Every texture is 4x4 texels whose stored channel values ([`fields`]) differ per texel and
//! per channel, so a test can check each texel's colour at the centre of its 10x10-pixel square
//! against the format's documented rule. The surface is 256x256 A8R8G8B8; the quads are 40x40
//! pixels on a 42-pixel grid of [`COLUMNS`] columns ([`quad_origin`]); texture coordinates
//! run 0..1 (0..4 with the UN flag) from the quad's top-left corner, nearest filtering, clamp
//! to edge. `harness/tests/samples_current.rs` keeps the checked-in file equal to [`build`].
//!
//! Field meanings ([`fields`] returns them per texel, unused entries 0), as stored in memory:
//!
//! | formats | fields |
//! |---|---|
//! | B8 | b |
//! | A1R5G5B5, A4R4G4B4, A8R8G8B8, R5G5B5A1 | a, r, g, b |
//! | R5G6B5, R6G5B5, D1R5G5B5, D8R8G8B8 | d (ignored bits), r, g, b |
//! | G8B8, HILO8, HILO_S8, Y16_X16 | first, second byte / word |
//! | COMPRESSED_B8R8_G8R8, COMPRESSED_R8B8_R8G8 | r (this texel), g, b (shared by the pair) |
//! | DEPTH24_D8 | depth (24 bits), stencil (8 bits) |
//! | DEPTH24_D8_FLOAT | depth (24-bit float bits), stencil |
//! | DEPTH16, X16 | value (16 bits) |
//! | DEPTH16_FLOAT, Y16_X16_FLOAT, W16_Z16_Y16_X16_FLOAT | IEEE half bits, in memory order |
//! | X32_FLOAT, W32_Z32_Y32_X32_FLOAT | IEEE single bits, in memory order |
//! | DXT1 | index (2 bits) into [`DXT_COLOURS`] |
//! | DXT23 | index, alpha (4 bits) |
//! | DXT45 | index, alpha code (3 bits) into [`DXT5_ALPHA`] |

use rsxtrace_capture::builder::{
    BuildError, CaptureBuilder, SurfaceDesc, SurfaceTarget, TextureDesc,
};
use rsxtrace_capture::rrc::{Capture, Location};

use crate::samples::{be_floats, textured_fragment_program, textured_vertex_program};

/// File name of the sample, relative to `traces/samples/`.
pub const FILE: &str = "texture_formats.rrc.gz";
/// Surface edge in pixels.
pub const SURFACE: u32 = 256;
/// Grid pitch and quad edge in pixels.
pub const CELL: u32 = 42;
/// Quad edge in pixels.
pub const QUAD: u32 = 40;
/// Quads per grid row.
pub const COLUMNS: u32 = 6;
/// Texture edge in texels.
pub const TEXELS: u32 = 4;
/// The DXT colour endpoints (R5G6B5, little-endian in the block): c0 > c1, so DXT1 uses its
/// four-colour mode.
pub const DXT_COLOURS: (u16, u16) = (0xFD14, 0x215C);
/// The DXT5 alpha endpoints: a0 > a1, the eight-value mode.
pub const DXT5_ALPHA: (u8, u8) = (230, 20);

/// The clear colour (ARGB8) under the quads.
pub const CLEAR: u32 = 0xFF20_2020;

const QUADS: u32 = 8;
const TYPE_F: u32 = 2;
const TEXTURE_BASE: u32 = 0x0040_0000;
const VERTEX_BASE: u32 = 0x0001_0000;

/// One quad: the texture format and the unit state it is sampled with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    /// A name for messages.
    pub name: &'static str,
    /// Base `CELL_GCM_TEXTURE_*` code (without LN / UN).
    pub format: u8,
    /// LN flag: linear (pitch) layout; otherwise swizzled.
    pub linear: bool,
    /// UN flag: texture coordinates in texels.
    pub unnormalized: bool,
    /// CONTROL1 (remap low 16 bits, override high 16).
    pub remap: u32,
    /// FILTER bits 28..31 (A, R, G, B signed).
    pub argb_signed: u8,
    /// ADDRESS bits 12..15 (1 = biased).
    pub unsigned_remap: u8,
    /// ADDRESS bits 20..23 (R, G, B, A gamma).
    pub gamma: u8,
}

const fn plain(name: &'static str, format: u8) -> Cell {
    Cell {
        name,
        format,
        linear: true,
        unnormalized: false,
        remap: 0xAAE4,
        argb_signed: 0,
        unsigned_remap: 0,
        gamma: 0,
    }
}

/// Every quad, in grid order (row-major): the 27 formats in code order, then the rule quads.
pub fn cells() -> Vec<Cell> {
    let mut cells = vec![
        plain("B8", 0x81),
        plain("A1R5G5B5", 0x82),
        plain("A4R4G4B4", 0x83),
        plain("R5G6B5", 0x84),
        plain("A8R8G8B8", 0x85),
        plain("COMPRESSED_DXT1", 0x86),
        plain("COMPRESSED_DXT23", 0x87),
        plain("COMPRESSED_DXT45", 0x88),
        plain("G8B8", 0x8B),
        plain("COMPRESSED_B8R8_G8R8", 0x8D),
        plain("COMPRESSED_R8B8_R8G8", 0x8E),
        plain("R6G5B5", 0x8F),
        plain("DEPTH24_D8", 0x90),
        plain("DEPTH24_D8_FLOAT", 0x91),
        plain("DEPTH16", 0x92),
        plain("DEPTH16_FLOAT", 0x93),
        plain("X16", 0x94),
        plain("Y16_X16", 0x95),
        plain("R5G5B5A1", 0x97),
        plain("COMPRESSED_HILO8", 0x98),
        plain("COMPRESSED_HILO_S8", 0x99),
        plain("W16_Z16_Y16_X16_FLOAT", 0x9A),
        plain("W32_Z32_Y32_X32_FLOAT", 0x9B),
        plain("X32_FLOAT", 0x9C),
        plain("D1R5G5B5", 0x9D),
        plain("D8R8G8B8", 0x9E),
        plain("Y16_X16_FLOAT", 0x9F),
    ];
    let argb = plain("A8R8G8B8", 0x85);
    cells.extend([
        Cell {
            name: "A8R8G8B8 swizzled",
            linear: false,
            ..argb
        },
        Cell {
            name: "Y16_X16 swizzled",
            linear: false,
            ..plain("Y16_X16", 0x95)
        },
        Cell {
            name: "A8R8G8B8 unnormalised",
            unnormalized: true,
            ..argb
        },
        Cell {
            // Selectors A<-A, R<-B, G<-G, B<-R (0x6C); modes A ONE, R REMAP, G ZERO, B REMAP.
            name: "A8R8G8B8 remap B0R1",
            remap: 0x896C,
            ..argb
        },
        Cell {
            name: "A8R8G8B8 gamma RGB",
            gamma: 0b0111,
            ..argb
        },
        Cell {
            name: "A8R8G8B8 signed RG",
            argb_signed: 0b0110,
            ..argb
        },
        Cell {
            name: "A8R8G8B8 biased",
            unsigned_remap: 1,
            ..argb
        },
        Cell {
            name: "X16 remap 0x4E",
            remap: 0xAA4E,
            ..plain("X16", 0x94)
        },
        Cell {
            name: "HILO8 override",
            remap: 0x0001_AAE4,
            ..plain("COMPRESSED_HILO8", 0x98)
        },
    ]);
    cells
}

/// Top-left pixel of quad `index`.
pub fn quad_origin(index: u32) -> (u32, u32) {
    (1 + (index % COLUMNS) * CELL, 1 + (index / COLUMNS) * CELL)
}

/// The pixel at the centre of texel `(x, y)` of quad `index`.
pub fn texel_pixel(index: u32, x: u32, y: u32) -> (u32, u32) {
    let (ox, oy) = quad_origin(index);
    let step = QUAD / TEXELS;
    (ox + x * step + step / 2, oy + y * step + step / 2)
}

/// A spread-out value of `bits` bits for texel `i`, channel `c` of quad `salt`.
fn spread(salt: u32, i: u32, c: u32, bits: u32) -> u32 {
    let h = (salt.wrapping_mul(0x9E37_79B9) ^ (i * 73 + c * 151 + 29).wrapping_mul(0x85EB_CA6B))
        .rotate_left(13)
        .wrapping_mul(0xC2B2_AE35);
    let h = h ^ (h >> 16);
    if bits >= 32 {
        h
    } else {
        h & ((1 << bits) - 1)
    }
}

/// The IEEE half bits of `k / 32` (`k` in 0..=32, exact in half precision).
fn half_of_32nds(k: u32) -> u32 {
    if k == 0 {
        return 0;
    }
    // k / 32 = (k << s) / 2^(10 + e) with 1024 <= (k << s) < 2048: exponent e - 15 + ...
    let top = 31 - k.leading_zeros(); // 2^top <= k < 2^(top+1)
    let exponent = top + 15 - 5; // value exponent = top - 5
    let mantissa = ((k << 10) >> top) & 0x3FF;
    (exponent << 10) | mantissa
}

/// A value `k / 32` (0..=32) for texel `i`, channel `c`.
fn k32(salt: u32, i: u32, c: u32) -> u32 {
    spread(salt, i, c, 16) % 33
}

/// The stored fields of texel `(x, y)` of `cell` (module table).
pub fn fields(cell: &Cell, x: u32, y: u32) -> [u32; 4] {
    let i = y * TEXELS + x;
    let salt = u32::from(cell.format);
    let s = |c, bits| spread(salt, i, c, bits);
    match cell.format {
        0x81 => [s(0, 8), 0, 0, 0],
        0x82 => [s(0, 1), s(1, 5), s(2, 5), s(3, 5)],
        0x83 => [s(0, 4), s(1, 4), s(2, 4), s(3, 4)],
        0x84 => [0, s(1, 5), s(2, 6), s(3, 5)],
        0x85 | 0x9E => [s(0, 8), s(1, 8), s(2, 8), s(3, 8)],
        0x86 => [s(0, 2), 0, 0, 0],
        0x87 => [s(0, 2), s(1, 4), 0, 0],
        0x88 => [s(0, 2), s(1, 3), 0, 0],
        0x8B | 0x98 | 0x99 => [s(0, 8), s(1, 8), 0, 0],
        0x8D | 0x8E => {
            // Green and blue belong to the pair (the left texel's values).
            let left = i & !1;
            [
                s(0, 8),
                spread(salt, left, 1, 8),
                spread(salt, left, 2, 8),
                0,
            ]
        }
        0x8F => [0, s(1, 6), s(2, 5), s(3, 5)],
        0x90 => [s(0, 24), s(1, 8), 0, 0],
        // k/32 as f32 has at most 6 significant bits: its bits >> 7 lose nothing.
        0x91 => [
            (k32(salt, i, 0) as f32 / 32.0).to_bits() >> 7,
            s(1, 8),
            0,
            0,
        ],
        0x92 | 0x94 => [s(0, 16), 0, 0, 0],
        0x93 => [half_of_32nds(k32(salt, i, 0)), 0, 0, 0],
        0x95 => [s(0, 16), s(1, 16), 0, 0],
        0x97 => [s(0, 1), s(1, 5), s(2, 5), s(3, 5)],
        0x9A => std::array::from_fn(|c| half_of_32nds(k32(salt, i, c as u32))),
        0x9B => std::array::from_fn(|c| (k32(salt, i, c as u32) as f32 / 32.0).to_bits()),
        0x9C => [(k32(salt, i, 0) as f32 / 32.0).to_bits(), 0, 0, 0],
        0x9D => [s(0, 1), s(1, 5), s(2, 5), s(3, 5)],
        0x9F => [
            half_of_32nds(k32(salt, i, 0)),
            half_of_32nds(k32(salt, i, 1)),
            0,
            0,
        ],
        _ => [0; 4],
    }
}

/// Bytes per block and block edge (width, height) in texels of a base format.
fn block(format: u8) -> (u32, u32, u32) {
    match format {
        0x81 => (1, 1, 1),
        0x86 => (8, 4, 4),
        0x87 | 0x88 => (16, 4, 4),
        0x8D | 0x8E => (4, 2, 1),
        0x85 | 0x90 | 0x91 | 0x95 | 0x9C | 0x9E | 0x9F => (4, 1, 1),
        0x9A => (8, 1, 1),
        0x9B => (16, 1, 1),
        _ => (2, 1, 1),
    }
}

/// The big-endian bytes of one single-texel block.
fn texel_bytes(format: u8, f: [u32; 4]) -> Vec<u8> {
    let be16 = |v: u32| (v as u16).to_be_bytes().to_vec();
    let be32 = |v: u32| v.to_be_bytes().to_vec();
    match format {
        0x81 => vec![f[0] as u8],
        0x82 | 0x9D => be16((f[0] << 15) | (f[1] << 10) | (f[2] << 5) | f[3]),
        0x83 => be16((f[0] << 12) | (f[1] << 8) | (f[2] << 4) | f[3]),
        0x84 => be16((f[1] << 11) | (f[2] << 5) | f[3]),
        0x8F => be16((f[1] << 10) | (f[2] << 5) | f[3]),
        0x97 => be16((f[1] << 11) | (f[2] << 6) | (f[3] << 1) | f[0]),
        0x85 | 0x9E => vec![f[0] as u8, f[1] as u8, f[2] as u8, f[3] as u8],
        0x8B | 0x98 | 0x99 => vec![f[0] as u8, f[1] as u8],
        0x90 | 0x91 => be32((f[0] << 8) | f[1]),
        0x92..=0x94 => be16(f[0]),
        0x95 | 0x9F => [be16(f[0]), be16(f[1])].concat(),
        0x9A => f.iter().flat_map(|v| be16(*v)).collect(),
        0x9B => f.iter().flat_map(|v| be32(*v)).collect(),
        0x9C => be32(f[0]),
        _ => Vec::new(),
    }
}

/// The bytes of a two-texel block (left and right texel fields).
fn pair_bytes(format: u8, left: [u32; 4], right: [u32; 4]) -> Vec<u8> {
    let (r0, r1, g, b) = (left[0] as u8, right[0] as u8, left[1] as u8, left[2] as u8);
    if format == 0x8D {
        vec![b, r1, g, r0] // B8R8_G8R8
    } else {
        vec![r1, b, r0, g] // R8B8_R8G8
    }
}

/// The 4x4 DXT block of `cell`: S3TC layout, little-endian words, texel `i` = row `i / 4`,
/// column `i % 4`.
fn dxt_block(cell: &Cell) -> Vec<u8> {
    let f = |i: u32| fields(cell, i % TEXELS, i / TEXELS);
    let mut colour = Vec::new();
    colour.extend_from_slice(&DXT_COLOURS.0.to_le_bytes());
    colour.extend_from_slice(&DXT_COLOURS.1.to_le_bytes());
    let indices = (0..16).fold(0u32, |acc, i| acc | (f(i)[0] << (2 * i)));
    colour.extend_from_slice(&indices.to_le_bytes());
    match cell.format {
        0x87 => {
            let alpha = (0..16).fold(0u64, |acc, i| acc | (u64::from(f(i)[1]) << (4 * i)));
            [alpha.to_le_bytes().to_vec(), colour].concat()
        }
        0x88 => {
            let codes = (0..16).fold(0u64, |acc, i| acc | (u64::from(f(i)[1]) << (3 * i)));
            let mut out = vec![DXT5_ALPHA.0, DXT5_ALPHA.1];
            out.extend_from_slice(&codes.to_le_bytes()[..6]);
            [out, colour].concat()
        }
        _ => colour,
    }
}

/// The Z-order index of `(x, y)` in a 4x4 swizzled level (bits x0 y0 x1 y1).
fn morton4(x: u32, y: u32) -> u32 {
    (x & 1) | ((y & 1) << 1) | ((x & 2) << 1) | ((y & 2) << 2)
}

/// The texel bytes of `cell`'s texture and its pitch (linear layouts).
pub fn texture_bytes(cell: &Cell) -> (Vec<u8>, u32) {
    let (bytes, bw, bh) = block(cell.format);
    let row_blocks = TEXELS / bw;
    let pitch = row_blocks * bytes;
    if bh == 4 {
        return (dxt_block(cell), pitch);
    }
    let mut out = vec![0u8; (TEXELS * TEXELS / bw * bytes) as usize];
    for y in 0..TEXELS {
        for bx in 0..row_blocks {
            let data = if bw == 2 {
                pair_bytes(
                    cell.format,
                    fields(cell, 2 * bx, y),
                    fields(cell, 2 * bx + 1, y),
                )
            } else {
                texel_bytes(cell.format, fields(cell, bx, y))
            };
            let index = if cell.linear || bw != 1 {
                y * row_blocks + bx
            } else {
                morton4(bx, y)
            };
            let at = (index * bytes) as usize;
            out[at..at + data.len()].copy_from_slice(&data);
        }
    }
    (out, pitch)
}

fn target(offset: u32) -> SurfaceTarget {
    SurfaceTarget {
        location: Location::Local,
        offset,
        pitch: SURFACE * 4,
    }
}

/// Build the sample: a clear, then one draw per [`cells`] entry.
pub fn build() -> Result<Capture, BuildError> {
    let mut b = CaptureBuilder::new(FILE);
    crate::samples::show_target(&mut b, SURFACE, SURFACE, SURFACE * 4, 0);
    b.set_surface(&SurfaceDesc {
        color_format: 8, // A8R8G8B8
        depth_format: 2, // Z24S8
        surface_type: 1, // pitch
        antialias: 0,
        log2_size: (8, 8),
        color_target: 1,
        colors: [
            target(0),
            target(0x0004_0000),
            target(0x0008_0000),
            target(0x000C_0000),
        ],
        zeta: target(0x0020_0000),
        clip: (0, 0, SURFACE as u16, SURFACE as u16),
    });
    let half = SURFACE as f32 / 2.0;
    // NDC (x, y) lands at pixel (128x + 128, 128 - 128y).
    b.set_viewport(
        0,
        0,
        SURFACE as u16,
        SURFACE as u16,
        (0.0, 1.0),
        [half, half, 0.5, 0.0],
        [half, -half, 0.5, 0.0],
    );
    b.set_scissor(0, 0, SURFACE as u16, SURFACE as u16);
    b.set_depth(false, 0x0207, false); // ALWAYS, no writes
    b.clear_surface(0xF3, CLEAR, 0xFFFF_FF00);
    b.set_vertex_program(&textured_vertex_program()?, 16, 16, 0b1_0000_0001, 0x4001)?;
    let identity = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    b.set_transform_constants(32, &identity)?;
    b.set_fragment_program(
        Location::Local,
        0x0030_0000,
        &textured_fragment_program()?,
        0x40,
    )?;
    let cells = cells();
    // Four vertices (x, y, z, s, t) per quad, clockwise from the top-left on screen.
    let mut vertices = Vec::new();
    for (index, cell) in cells.iter().enumerate() {
        let (ox, oy) = quad_origin(index as u32);
        let ndc_x = |px: u32| px as f32 / half - 1.0;
        let ndc_y = |py: u32| 1.0 - py as f32 / half;
        let (x0, x1) = (ndc_x(ox), ndc_x(ox + QUAD));
        let (y0, y1) = (ndc_y(oy), ndc_y(oy + QUAD));
        let st = if cell.unnormalized {
            TEXELS as f32
        } else {
            1.0
        };
        vertices.extend_from_slice(&[
            x0, y0, 0.5, 0.0, 0.0, //
            x1, y0, 0.5, st, 0.0, //
            x1, y1, 0.5, st, st, //
            x0, y1, 0.5, 0.0, st,
        ]);
    }
    b.put_memory(Location::Main, VERTEX_BASE, &be_floats(&vertices))?;
    b.set_vertex_array(0, TYPE_F, 3, 20, 0, Location::Main, VERTEX_BASE)?;
    b.set_vertex_array(8, TYPE_F, 2, 20, 0, Location::Main, VERTEX_BASE + 12)?;
    for (index, cell) in cells.iter().enumerate() {
        let (texels, pitch) = texture_bytes(cell);
        let offset = TEXTURE_BASE + 0x1000 * index as u32;
        b.put_memory(Location::Local, offset, &texels)?;
        let flags = if cell.linear { 0x20 } else { 0 } | if cell.unnormalized { 0x40 } else { 0 };
        b.set_texture(
            0,
            &TextureDesc {
                offset,
                location: Location::Local,
                format: cell.format | flags,
                dimension: 2,
                cubemap: false,
                mipmaps: 1,
                width: TEXELS as u16,
                height: TEXELS as u16,
                depth: 1,
                pitch: if cell.linear { pitch } else { 0 },
                // Clamp to edge on s, t, r; unsigned remap bits 12..15; gamma bits 20..23.
                address: 0x0003_0303
                    | (u32::from(cell.unsigned_remap) << 12)
                    | (u32::from(cell.gamma) << 20),
                // Enabled; max LOD 12.0 (4.8 fixed point in bits 7..18).
                control0: (12 << 8) << 7,
                remap: cell.remap,
                // Nearest min and mag; signed channels in bits 28..31.
                filter: (1 << 16) | (1 << 24) | (u32::from(cell.argb_signed) << 28),
                border_color: 0,
                byte_size: texels.len() as u32,
                border_texels: false,
            },
        )?;
        b.draw_arrays(QUADS, &[(index as u32 * 4, 4)])?;
    }
    b.flip(0);
    Ok(b.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_of_32nds_are_exact() {
        assert_eq!(half_of_32nds(32), 0x3C00); // 1.0
        assert_eq!(half_of_32nds(16), 0x3800); // 0.5
        assert_eq!(half_of_32nds(24), 0x3A00); // 0.75
        assert_eq!(half_of_32nds(1), 0x2800); // 2^-5
        assert_eq!(half_of_32nds(3), 0x2E00); // 3/32 = 1.5 * 2^-4
    }

    #[test]
    fn the_grid_fits_the_surface_and_texels_have_distinct_values() {
        let cells = cells();
        assert_eq!(cells.len() as u32, COLUMNS * COLUMNS);
        let (x, y) = quad_origin(cells.len() as u32 - 1);
        assert!(x + QUAD <= SURFACE && y + QUAD <= SURFACE);
        for cell in &cells {
            let distinct: std::collections::BTreeSet<_> = (0..16)
                .map(|i| fields(cell, i % TEXELS, i / TEXELS))
                .collect();
            assert!(
                distinct.len() >= 4,
                "{}: too few distinct texels",
                cell.name
            );
        }
    }

    #[test]
    fn swizzled_4x4_puts_texel_1_0_second_and_0_1_third() {
        assert_eq!(
            (morton4(0, 0), morton4(1, 0), morton4(0, 1), morton4(3, 3)),
            (0, 1, 2, 15)
        );
    }
}
