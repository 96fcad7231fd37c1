//! S3TC / DXT block decoding (BC1, BC2, BC3) into A, R, G, B slots.
//!
//! RSX DXT blocks use the standard S3TC byte layout (little-endian 16-bit colours and index
//! words); RPCS3 uploads them unchanged (`TextureUtils.cpp`, compressed formats are copied
//! without byte swapping). Decoding follows the `EXT_texture_compression_s3tc` specification:
//! DXT1 has a 3-colour + transparent-black mode when `c0 <= c1`; DXT3/DXT5 colour blocks always
//! use the 4-colour mode. Texel `i` of a block is at row `i / 4`, column `i % 4`.

/// Decoded texels of one 4x4 block, A, R, G, B slots, row-major.
pub type Block = [[f32; 4]; 16];

/// An RGB 5:6:5 colour as floats.
fn rgb565(v: u16) -> [f32; 3] {
    [
        f32::from((v >> 11) & 0x1F) / 31.0,
        f32::from((v >> 5) & 0x3F) / 63.0,
        f32::from(v & 0x1F) / 31.0,
    ]
}

fn mix(a: [f32; 3], b: [f32; 3], wa: f32, wb: f32, div: f32) -> [f32; 3] {
    [
        (a[0] * wa + b[0] * wb) / div,
        (a[1] * wa + b[1] * wb) / div,
        (a[2] * wa + b[2] * wb) / div,
    ]
}

/// Decode the 8-byte colour part; `three_colour` enables DXT1's `c0 <= c1` mode.
fn colour_block(b: &[u8], three_colour: bool) -> Option<Block> {
    let c0 = u16::from_le_bytes([*b.first()?, *b.get(1)?]);
    let c1 = u16::from_le_bytes([*b.get(2)?, *b.get(3)?]);
    let idx = u32::from_le_bytes([*b.get(4)?, *b.get(5)?, *b.get(6)?, *b.get(7)?]);
    let (p0, p1) = (rgb565(c0), rgb565(c1));
    let mut pal = [
        [1.0, p0[0], p0[1], p0[2]],
        [1.0, p1[0], p1[1], p1[2]],
        [0.0; 4],
        [0.0; 4],
    ];
    if c0 > c1 || !three_colour {
        let p2 = mix(p0, p1, 2.0, 1.0, 3.0);
        let p3 = mix(p0, p1, 1.0, 2.0, 3.0);
        pal[2] = [1.0, p2[0], p2[1], p2[2]];
        pal[3] = [1.0, p3[0], p3[1], p3[2]];
    } else {
        let p2 = mix(p0, p1, 1.0, 1.0, 2.0);
        pal[2] = [1.0, p2[0], p2[1], p2[2]];
        // pal[3] stays transparent black.
    }
    let mut out = [[0.0; 4]; 16];
    for (i, t) in out.iter_mut().enumerate() {
        *t = pal[((idx >> (2 * i)) & 3) as usize];
    }
    Some(out)
}

/// Decode a DXT1 block (8 bytes).
pub fn dxt1(b: &[u8]) -> Option<Block> {
    colour_block(b, true)
}

/// Decode a DXT2/3 block (16 bytes: 64 bits of explicit 4-bit alpha, then a colour block).
pub fn dxt3(b: &[u8]) -> Option<Block> {
    let alpha = u64::from_le_bytes(b.get(0..8)?.try_into().ok()?);
    let mut out = colour_block(b.get(8..16)?, false)?;
    for (i, t) in out.iter_mut().enumerate() {
        t[0] = ((alpha >> (4 * i)) & 0xF) as f32 / 15.0;
    }
    Some(out)
}

/// Decode a DXT4/5 block (16 bytes: two alpha end points, 48 bits of 3-bit indices, then a
/// colour block).
pub fn dxt5(b: &[u8]) -> Option<Block> {
    let a0 = f32::from(*b.first()?);
    let a1 = f32::from(*b.get(1)?);
    let mut bits = [0u8; 8];
    bits.get_mut(0..6)?.copy_from_slice(b.get(2..8)?);
    let idx = u64::from_le_bytes(bits);
    let mut pal = [0.0f32; 8];
    pal[0] = a0;
    pal[1] = a1;
    if a0 > a1 {
        for (k, p) in pal.iter_mut().enumerate().skip(2) {
            let k = k as f32;
            *p = ((8.0 - k) * a0 + (k - 1.0) * a1) / 7.0;
        }
    } else {
        for (k, p) in pal.iter_mut().enumerate().take(6).skip(2) {
            let k = k as f32;
            *p = ((6.0 - k) * a0 + (k - 1.0) * a1) / 5.0;
        }
        pal[6] = 0.0;
        pal[7] = 255.0;
    }
    let mut out = colour_block(b.get(8..16)?, false)?;
    for (i, t) in out.iter_mut().enumerate() {
        t[0] = pal[((idx >> (3 * i)) & 7) as usize] / 255.0;
    }
    Some(out)
}
