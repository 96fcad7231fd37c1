//! Mip-mapped textures as a game ships them: full mip chains, most of them DXT1/DXT3/DXT5,
//! the rest swizzled (Z-order) 16- and 32-bit formats and one linear format, laid out in guest
//! memory as the RSX reads them (rrc-format.md 4.7; RPCS3 `TextureUtils.cpp`
//! `get_subresources_layout_impl`):
//!
//! - levels follow each other with no padding, each halving width and height (minimum 1);
//!   a DXT chain stops at the level whose smaller side is 4 texels (RPCS3 `RSXTexture.cpp`
//!   `get_exact_mipmap_count`);
//! - swizzled levels (no LN flag) hold their texels in Z-order: bit 0 of x, then bit 0 of y,
//!   then bit 1 of x, ..., a coordinate dropping out once its side's bits are used (RPCS3
//!   `rsx_utils.h` `get_z_index`); DXT blocks are row-major whatever the LN flag says;
//! - linear levels (LN) all use level 0's pitch.
//!
//! Each chain starts from procedural art (gradients, stripes, blocks and noise in the low
//! bits, so it compresses about as poorly as real art) and each level is the 2x2 box
//! average of the one above, as a mip generator makes it; DXT levels are encoded with a
//! small range-fit encoder. Sampling a level therefore blends sensibly with its neighbours
//! under trilinear filtering.
//!
//! This module writes the layout itself, independently of the replay's texture model, so
//! that the tests decoding these textures through the replay check the two against each other.

use super::assets::{Bump, Texture};
use super::rng::Rng;
use rsxtrace_capture::builder::{BuildError, CaptureBuilder, TextureDesc};

/// An RGBA8 image, row-major.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub texels: Vec<[u8; 4]>,
}

impl Image {
    fn at(&self, x: u32, y: u32) -> [u8; 4] {
        self.texels[(y * self.width + x) as usize]
    }

    /// The next mip level: each texel the rounded mean of a 2x2 box (1x2 or 2x1 once a side
    /// is 1).
    pub fn half(&self) -> Image {
        let (w, h) = ((self.width / 2).max(1), (self.height / 2).max(1));
        let (sx, sy) = (u32::from(self.width > 1), u32::from(self.height > 1));
        let mut texels = Vec::with_capacity((w * h) as usize);
        for y in 0..h {
            for x in 0..w {
                let (x0, y0) = (x * (1 + sx), y * (1 + sy));
                let box_ = [
                    self.at(x0, y0),
                    self.at(x0 + sx, y0),
                    self.at(x0, y0 + sy),
                    self.at(x0 + sx, y0 + sy),
                ];
                texels.push(std::array::from_fn(|c| {
                    let sum: u32 = box_.iter().map(|t| u32::from(t[c])).sum();
                    ((sum + 2) / 4) as u8
                }));
            }
        }
        Image {
            width: w,
            height: h,
            texels,
        }
    }
}

/// Procedural art of `width x height`: per-channel gradients and stripes that wrap, blocks,
/// and `noise_bits` low bits of noise per channel; alpha a soft diagonal ramp.
pub fn art(rng: &mut Rng, width: u32, height: u32, noise_bits: u32) -> Image {
    let phase: [u32; 4] = std::array::from_fn(|_| rng.below(256) as u32);
    let stripes = 1 + rng.below(4) as u32;
    let mut noise = Rng::new(rng.next_u64());
    let mask = ((1u32 << noise_bits) - 1) as u8;
    let mut texels = Vec::with_capacity((width * height) as usize);
    for y in 0..height {
        let v = y * 256 / height;
        for x in 0..width {
            let u = x * 256 / width;
            let bits = noise.next_u64().to_le_bytes();
            let base = [
                (u + v / 2 + phase[0]) / 2 + 64,
                v * stripes + phase[1],
                ((u ^ v) & 0xC0) + phase[2] / 4,
                (u + v) / 2 + phase[3] / 2,
            ];
            texels.push(std::array::from_fn(|c| {
                let n = bits[c] & mask;
                (base[c] as u8) ^ n
            }));
        }
    }
    Image {
        width,
        height,
        texels,
    }
}

/// The texel formats the chains use, as RSX format bytes (`CELL_GCM_TEXTURE_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChainFormat {
    /// COMPRESSED_DXT1 (0x86).
    Dxt1,
    /// COMPRESSED_DXT23 (0x87).
    Dxt23,
    /// COMPRESSED_DXT45 (0x88).
    Dxt45,
    /// A8R8G8B8 (0x85), swizzled.
    Argb8,
    /// R5G6B5 (0x84), swizzled.
    Rgb565,
    /// A4R4G4B4 (0x83), swizzled.
    Argb4,
    /// A1R5G5B5 (0x82), swizzled.
    Argb1555,
    /// B8 (0x81), swizzled.
    B8,
    /// A8R8G8B8 (0x85 | LN), linear: every level at level 0's pitch.
    Argb8Linear,
}

/// The formats in the order textures cycle through them: DXT for most, as in a game's
/// assets.
pub const CYCLE: [ChainFormat; 12] = [
    ChainFormat::Dxt1,
    ChainFormat::Dxt45,
    ChainFormat::Argb8,
    ChainFormat::Dxt1,
    ChainFormat::Dxt23,
    ChainFormat::Rgb565,
    ChainFormat::Dxt45,
    ChainFormat::Argb4,
    ChainFormat::Dxt1,
    ChainFormat::B8,
    ChainFormat::Argb1555,
    ChainFormat::Argb8Linear,
];

impl ChainFormat {
    /// The FORMAT register's format byte (with LN 0x20 for the linear one).
    pub fn code(self) -> u8 {
        match self {
            ChainFormat::Dxt1 => 0x86,
            ChainFormat::Dxt23 => 0x87,
            ChainFormat::Dxt45 => 0x88,
            ChainFormat::Argb8 => 0x85,
            ChainFormat::Rgb565 => 0x84,
            ChainFormat::Argb4 => 0x83,
            ChainFormat::Argb1555 => 0x82,
            ChainFormat::B8 => 0x81,
            ChainFormat::Argb8Linear => 0x85 | 0x20,
        }
    }

    /// DXT: 4x4 blocks.
    pub fn is_dxt(self) -> bool {
        matches!(
            self,
            ChainFormat::Dxt1 | ChainFormat::Dxt23 | ChainFormat::Dxt45
        )
    }

    /// Bytes per texel, or per 4x4 block for DXT.
    pub fn unit_bytes(self) -> u32 {
        match self {
            ChainFormat::Dxt1 => 8,
            ChainFormat::Dxt23 | ChainFormat::Dxt45 => 16,
            ChainFormat::Argb8 | ChainFormat::Argb8Linear => 4,
            ChainFormat::Rgb565 | ChainFormat::Argb4 | ChainFormat::Argb1555 => 2,
            ChainFormat::B8 => 1,
        }
    }

    /// Levels of a full chain for `width x height` (powers of two): down to 1x1, or for DXT
    /// down to a smaller side of 4 (`get_exact_mipmap_count`).
    pub fn full_chain(self, width: u32, height: u32) -> u32 {
        if self.is_dxt() {
            (width.min(height) / 4).max(1).ilog2() + 1
        } else {
            width.max(height).max(1).ilog2() + 1
        }
    }

    /// One texel's bytes (not DXT), as stored in memory (big-endian words, A R G B).
    fn texel(self, [r, g, b, a]: [u8; 4]) -> Vec<u8> {
        let (r5, g5, g6, b5) = (
            u16::from(r >> 3),
            u16::from(g >> 3),
            u16::from(g >> 2),
            u16::from(b >> 3),
        );
        match self {
            ChainFormat::Argb8 | ChainFormat::Argb8Linear => vec![a, r, g, b],
            ChainFormat::Rgb565 => ((r5 << 11) | (g6 << 5) | b5).to_be_bytes().to_vec(),
            ChainFormat::Argb4 => {
                let n = |v: u8| u16::from(v >> 4);
                ((n(a) << 12) | (n(r) << 8) | (n(g) << 4) | n(b))
                    .to_be_bytes()
                    .to_vec()
            }
            ChainFormat::Argb1555 => ((u16::from(a >= 128) << 15) | (r5 << 10) | (g5 << 5) | b5)
                .to_be_bytes()
                .to_vec(),
            ChainFormat::B8 => {
                vec![((u32::from(r) + 2 * u32::from(g) + u32::from(b) + 2) / 4) as u8]
            }
            ChainFormat::Dxt1 | ChainFormat::Dxt23 | ChainFormat::Dxt45 => Vec::new(),
        }
    }
}

/// The Z-order index of `(x, y)` in a `2^lw x 2^lh` level: bit 0 of x, bit 0 of y, bit 1 of
/// x, ..., each coordinate dropping out once its bits are used (RPCS3 `get_z_index`).
pub fn z_order(mut x: u32, mut y: u32, mut lw: u32, mut lh: u32) -> u32 {
    let (mut out, mut shift) = (0u32, 0u32);
    while lw > 0 || lh > 0 {
        if lw > 0 {
            out |= (x & 1) << shift;
            x >>= 1;
            lw -= 1;
            shift += 1;
        }
        if lh > 0 {
            out |= (y & 1) << shift;
            y >>= 1;
            lh -= 1;
            shift += 1;
        }
    }
    out
}

fn rgb565(c: [u8; 4]) -> u16 {
    (u16::from(c[0] >> 3) << 11) | (u16::from(c[1] >> 2) << 5) | u16::from(c[2] >> 3)
}

fn expand565(v: u16) -> [i32; 3] {
    let (r, g, b) = (
        i32::from(v >> 11),
        i32::from((v >> 5) & 0x3F),
        i32::from(v & 0x1F),
    );
    [
        (r << 3) | (r >> 2),
        (g << 2) | (g >> 4),
        (b << 3) | (b >> 2),
    ]
}

/// The colour half of a DXT block (8 bytes: c0, c1 little-endian, 2-bit indices): end
/// points at the texels furthest apart along the colours' principal axis (a few steps of
/// power iteration on their covariance), c0 > c1 (the four-colour mode), each texel the
/// nearest of the four palette entries. `decoded` gets the colour each texel decodes to.
fn colour_block(texels: &[[u8; 4]; 16], decoded: &mut [[u8; 4]; 16]) -> [u8; 8] {
    let rgb = |t: &[u8; 4]| [f32::from(t[0]), f32::from(t[1]), f32::from(t[2])];
    let mean: [f32; 3] =
        std::array::from_fn(|c| texels.iter().map(|t| rgb(t)[c]).sum::<f32>() / 16.0);
    let mut cov = [[0.0f32; 3]; 3];
    for t in texels {
        let d: [f32; 3] = std::array::from_fn(|c| rgb(t)[c] - mean[c]);
        for (i, row) in cov.iter_mut().enumerate() {
            for (j, cell) in row.iter_mut().enumerate() {
                *cell += d[i] * d[j];
            }
        }
    }
    let mut axis = [1.0f32, 1.0, 1.0];
    for _ in 0..6 {
        let next: [f32; 3] = std::array::from_fn(|i| (0..3).map(|j| cov[i][j] * axis[j]).sum());
        let len = next.iter().map(|v| v * v).sum::<f32>().sqrt();
        if len < 1e-6 {
            break;
        }
        axis = next.map(|v| v / len);
    }
    let along = |t: &&[u8; 4]| {
        let p = rgb(t);
        ((0..3).map(|c| p[c] * axis[c]).sum::<f32>() * 16.0) as i32
    };
    let hi = texels.iter().max_by_key(along).copied().unwrap_or_default();
    let lo = texels.iter().min_by_key(along).copied().unwrap_or_default();
    let (mut c0, mut c1) = (rgb565(hi), rgb565(lo));
    if c0 < c1 {
        std::mem::swap(&mut c0, &mut c1);
    }
    let mut out = [0u8; 8];
    out[0..2].copy_from_slice(&c0.to_le_bytes());
    out[2..4].copy_from_slice(&c1.to_le_bytes());
    let (p0, p1) = (expand565(c0), expand565(c1));
    if c0 == c1 {
        for d in decoded.iter_mut() {
            *d = [p0[0] as u8, p0[1] as u8, p0[2] as u8, 255];
        }
        return out; // every index 0: c0
    }
    let palette: [[i32; 3]; 4] = [
        p0,
        p1,
        std::array::from_fn(|c| (2 * p0[c] + p1[c]) / 3),
        std::array::from_fn(|c| (p0[c] + 2 * p1[c]) / 3),
    ];
    let mut indices = 0u32;
    for (i, t) in texels.iter().enumerate() {
        let distance =
            |p: &[i32; 3]| -> i32 { (0..3).map(|c| (p[c] - i32::from(t[c])).pow(2)).sum() };
        let best = (0..4).min_by_key(|&k| distance(&palette[k])).unwrap_or(0);
        indices |= (best as u32) << (2 * i);
        let p = palette[best];
        decoded[i] = [p[0] as u8, p[1] as u8, p[2] as u8, 255];
    }
    out[4..8].copy_from_slice(&indices.to_le_bytes());
    out
}

/// DXT5's alpha half: end points at the largest and smallest alpha (a0 > a1, the
/// eight-value mode), 3-bit indices of the nearest value; `decoded` gets each texel's alpha.
fn dxt5_alpha(texels: &[[u8; 4]; 16], decoded: &mut [[u8; 4]; 16]) -> [u8; 8] {
    let a0 = texels.iter().map(|t| t[3]).max().unwrap_or(0);
    let a1 = texels.iter().map(|t| t[3]).min().unwrap_or(0);
    let mut out = [0u8; 8];
    out[0] = a0;
    out[1] = a1;
    if a0 == a1 {
        for d in decoded.iter_mut() {
            d[3] = a0;
        }
        return out;
    }
    let (f0, f1) = (i32::from(a0), i32::from(a1));
    // Palette index k: 0 = a0, 1 = a1, 2..7 = ((8 - k) a0 + (k - 1) a1) / 7.
    let value = |k: i32| match k {
        0 => f0,
        1 => f1,
        k => ((8 - k) * f0 + (k - 1) * f1) / 7,
    };
    let mut bits = 0u64;
    for (i, t) in texels.iter().enumerate() {
        let a = i32::from(t[3]);
        let best = (0..8).min_by_key(|&k| (value(k) - a).abs()).unwrap_or(0);
        bits |= (best as u64) << (3 * i);
        decoded[i][3] = value(best) as u8;
    }
    out[2..8].copy_from_slice(&bits.to_le_bytes()[..6]);
    out
}

/// One DXT block of `format` for 16 texels (row-major in the block), and what its texels
/// decode to.
fn dxt_block(format: ChainFormat, texels: &[[u8; 4]; 16]) -> (Vec<u8>, [[u8; 4]; 16]) {
    let mut decoded = [[0u8; 4]; 16];
    let colour = colour_block(texels, &mut decoded);
    let bytes = match format {
        ChainFormat::Dxt23 => {
            let mut alpha = 0u64;
            for (i, t) in texels.iter().enumerate() {
                alpha |= u64::from(t[3] >> 4) << (4 * i);
                decoded[i][3] = (t[3] >> 4) * 17;
            }
            [alpha.to_le_bytes(), colour].concat()
        }
        ChainFormat::Dxt45 => [dxt5_alpha(texels, &mut decoded), colour].concat(),
        _ => colour.to_vec(),
    };
    (bytes, decoded)
}

/// The bytes of one level in `format`'s layout (`pitch`: level 0's row pitch, used by the
/// linear format only); for DXT, also the image the blocks decode to.
pub fn encode_level(format: ChainFormat, image: &Image, pitch: u32) -> (Vec<u8>, Option<Image>) {
    let (w, h) = (image.width, image.height);
    let unit = format.unit_bytes() as usize;
    if format.is_dxt() {
        let (bw, bh) = (w.div_ceil(4), h.div_ceil(4));
        let mut out = Vec::with_capacity((bw * bh) as usize * unit);
        let mut decoded = image.clone();
        for by in 0..bh {
            for bx in 0..bw {
                let at = |i: usize| (bx * 4 + i as u32 % 4, by * 4 + i as u32 / 4);
                let block: [[u8; 4]; 16] = std::array::from_fn(|i| {
                    let (x, y) = at(i);
                    image.at(x.min(w - 1), y.min(h - 1))
                });
                let (bytes, texels) = dxt_block(format, &block);
                out.extend(bytes);
                for (i, t) in texels.into_iter().enumerate() {
                    let (x, y) = at(i);
                    if x < w && y < h {
                        decoded.texels[(y * w + x) as usize] = t;
                    }
                }
            }
        }
        return (out, Some(decoded));
    }
    if format == ChainFormat::Argb8Linear {
        let mut out = vec![0u8; pitch as usize * h as usize];
        for y in 0..h {
            for x in 0..w {
                let at = (y * pitch) as usize + x as usize * unit;
                out[at..at + unit].copy_from_slice(&format.texel(image.at(x, y)));
            }
        }
        return (out, None);
    }
    let (lw, lh) = (w.ilog2(), h.ilog2());
    let mut out = vec![0u8; (w * h) as usize * unit];
    for y in 0..h {
        for x in 0..w {
            let at = z_order(x, y, lw, lh) as usize * unit;
            out[at..at + unit].copy_from_slice(&format.texel(image.at(x, y)));
        }
    }
    (out, None)
}

/// A texture's whole chain: its level images (what the levels should decode to, before
/// quantisation) and its bytes in memory.
#[derive(Clone, Debug)]
pub struct Chain {
    pub levels: Vec<Image>,
    /// DXT: what each level's blocks decode to (empty for the other formats); for tests.
    #[allow(dead_code)]
    pub dxt_decoded: Vec<Image>,
    pub bytes: Vec<u8>,
    /// Level 0's row pitch in bytes (the CONTROL3 pitch).
    pub pitch: u32,
}

/// A full chain of `format` from `art` (power-of-two sides, at least 4).
pub fn chain(format: ChainFormat, art: Image) -> Chain {
    let count = format.full_chain(art.width, art.height);
    let pitch = if format.is_dxt() {
        art.width / 4 * format.unit_bytes()
    } else {
        art.width * format.unit_bytes()
    };
    let mut levels = vec![art];
    while levels.len() < count as usize {
        let next = levels[levels.len() - 1].half();
        levels.push(next);
    }
    let mut bytes = Vec::new();
    let mut dxt_decoded = Vec::new();
    for level in &levels {
        let (encoded, decoded) = encode_level(format, level, pitch);
        bytes.extend(encoded);
        dxt_decoded.extend(decoded);
    }
    Chain {
        levels,
        dxt_decoded,
        bytes,
        pitch,
    }
}

/// Min filters (FILTER bits 16..18) the textures pick from: LINEAR_MIPMAP_LINEAR (trilinear,
/// twice as likely), NEAREST_MIPMAP_LINEAR (also blends two levels), LINEAR_MIPMAP_NEAREST
/// (RPCS3 `GLTexture.cpp` `tex_min_filter`).
pub const MIN_FILTERS: [u32; 4] = [6, 6, 5, 4];

/// `count` mip-mapped textures cycling through [`CYCLE`], placed in `mem`: square sides from
/// `sides` in turn, every third one twice as wide as high; trilinear min filtering on most.
pub fn textures(
    b: &mut CaptureBuilder,
    rng: &mut Rng,
    mem: &mut Bump,
    count: usize,
    sides: &[u16; 3],
) -> Result<Vec<Texture>, BuildError> {
    (0..count)
        .map(|k| texture(b, rng, mem, k, sides).map(|(t, _)| t))
        .collect()
}

/// The `k`th texture of [`textures`], and its chain.
fn texture(
    b: &mut CaptureBuilder,
    rng: &mut Rng,
    mem: &mut Bump,
    k: usize,
    sides: &[u16; 3],
) -> Result<(Texture, Chain), BuildError> {
    let format = CYCLE[k % CYCLE.len()];
    // Sides in turn, three textures each, so that every format meets every side and the
    // bytes a number of textures holds are predictable.
    let side = u32::from(sides[(k / 3) % sides.len()])
        .next_power_of_two()
        .max(8);
    let (width, height) = if k % 3 == 2 {
        (side, side / 2)
    } else {
        (side, side)
    };
    let art = art(rng, width, height, 3);
    let chain = chain(format, art);
    let offset = mem.alloc(chain.bytes.len())?;
    b.put_memory(mem.location, offset, &chain.bytes)?;
    let wrap = [0x0001_0101u32, 0x0003_0303, 0x0002_0202][rng.below(3)];
    let min = MIN_FILTERS[rng.below(MIN_FILTERS.len())];
    let mag = 2; // LINEAR
    let texture = Texture {
        desc: TextureDesc {
            offset,
            location: mem.location,
            format: format.code(),
            dimension: 2,
            cubemap: false,
            mipmaps: chain.levels.len() as u16,
            width: width as u16,
            height: height as u16,
            depth: 1,
            pitch: chain.pitch,
            address: wrap,
            // Min LOD 0, max LOD 12.0 in 4.8 fixed point (bits 7..18).
            control0: (12 << 8) << 7,
            remap: 0x0000_AAE4,
            filter: (min << 16) | (mag << 24),
            border_color: 0,
            byte_size: chain.bytes.len() as u32,
            border_texels: false,
        },
    };
    Ok((texture, chain))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn z_order_interleaves_x_then_y_and_drops_a_finished_side() {
        // 4x4: x0 y0 x1 y1.
        assert_eq!(z_order(1, 0, 2, 2), 1);
        assert_eq!(z_order(0, 1, 2, 2), 2);
        assert_eq!(z_order(2, 0, 2, 2), 4);
        assert_eq!(z_order(3, 3, 2, 2), 15);
        // 8x2: x0 y0 x1 x2 (y runs out after one bit).
        assert_eq!(z_order(4, 0, 3, 1), 8);
        assert_eq!(z_order(7, 1, 3, 1), 15);
    }

    #[test]
    fn chains_are_full_and_halve() {
        let mut rng = Rng::new(1);
        let c = chain(ChainFormat::Argb8, art(&mut rng, 16, 8, 0));
        assert_eq!(c.levels.len(), 5); // 16x8, 8x4, 4x2, 2x1, 1x1
        assert_eq!((c.levels[4].width, c.levels[4].height), (1, 1));
        assert_eq!(c.bytes.len(), 4 * (128 + 32 + 8 + 2 + 1));
        let d = chain(ChainFormat::Dxt1, art(&mut rng, 32, 16, 0));
        assert_eq!(d.levels.len(), 3); // 32x16, 16x8, 8x4
        assert_eq!(d.bytes.len(), 8 * (32 + 8 + 2));
        let l = chain(ChainFormat::Argb8Linear, art(&mut rng, 8, 8, 0));
        // Every level at level 0's pitch (32 bytes): 8 + 4 + 2 + 1 rows.
        assert_eq!(l.bytes.len(), 32 * 15);
    }

    /// Every format's chain, laid out here, decoded by the replay's texture model from the
    /// register words a draw would hold: every level of the chain comes back as the image it
    /// was made from, exactly for 8-bit channels, within a step of the format's precision for
    /// 16-bit texels, within DXT's error for the block formats. A misplaced level, a wrong
    /// Z-order or a wrong byte order would be off by far more.
    #[test]
    fn every_format_decodes_through_the_replay_to_its_levels() {
        use rsxtrace_capture::builder::CaptureBuilder;
        use rsxtrace_capture::frame::state::{Texture as UnitState, TextureRegs};
        use rsxtrace_capture::rrc::Location;
        use rsxtrace_replay::texture::decode::decode_texture;

        let mut rng = Rng::new(9);
        for (k, format) in CYCLE.into_iter().enumerate() {
            let mut b = CaptureBuilder::new("t");
            let mut mem = Bump {
                location: Location::Local,
                next: 0,
            };
            // 64x64, or 64x32 for every third.
            let (t, expected) = texture(&mut b, &mut rng, &mut mem, k, &[64, 64, 64]).unwrap();
            assert_eq!(t.desc.format, format.code());
            let regs = TextureRegs {
                offset: t.desc.offset,
                format: t.desc.format_word(),
                address: t.desc.address,
                control0: t.desc.control0 | (1 << 31),
                control1: t.desc.remap,
                control2: 0,
                filter: t.desc.filter,
                image_rect: t.desc.image_rect(),
                border_color: 0,
                control3: t.desc.control3(),
            };
            let memory = rsxtrace_capture::fetch::FlatMemory::local(expected.bytes);
            let decoded = decode_texture(0, &UnitState::from_regs(&regs), &memory)
                .unwrap_or_else(|e| panic!("{format:?}: {e}"));
            assert_eq!(decoded.levels as usize, expected.levels.len(), "{format:?}");
            for (l, image) in expected.levels.iter().enumerate() {
                // DXT: the decoded blocks, and the source for the encoder's error.
                let image_dxt = expected.dxt_decoded.get(l);
                let got = decoded.level(0, l as u32).unwrap();
                assert_eq!((got.width, got.height), (image.width, image.height));
                if let Some(blocks) = image_dxt {
                    for (i, (g, want)) in got.texels.iter().zip(&blocks.texels).enumerate() {
                        let want = want.map(|c| f32::from(c) / 255.0);
                        assert!(
                            (0..4).all(|c| (g[c] - want[c]).abs() <= 2.0 / 255.0),
                            "{format:?} level {l} texel {i}: {g:?}, blocks hold {want:?}"
                        );
                    }
                }
                let (mut sum, mut worst) = (0.0f32, 0.0f32);
                for (g, want) in got.texels.iter().zip(&image.texels) {
                    let want: [f32; 4] = match format {
                        ChainFormat::B8 => {
                            let luma = (u32::from(want[0])
                                + 2 * u32::from(want[1])
                                + u32::from(want[2])
                                + 2)
                                / 4;
                            let v = luma as f32 / 255.0;
                            [v, v, v, 1.0]
                        }
                        _ => want.map(|c| f32::from(c) / 255.0),
                    };
                    let opaque = matches!(
                        format,
                        ChainFormat::Rgb565 | ChainFormat::Dxt1 | ChainFormat::B8
                    );
                    let channels = if opaque { 3 } else { 4 };
                    for c in 0..channels {
                        let d = (g[c] - want[c]).abs();
                        sum += d;
                        worst = worst.max(d);
                    }
                }
                let channels = if matches!(
                    format,
                    ChainFormat::Rgb565 | ChainFormat::Dxt1 | ChainFormat::B8
                ) {
                    3.0
                } else {
                    4.0
                };
                let mean = sum / (got.texels.len() as f32 * channels);
                if format.is_dxt() && l > 0 {
                    // Smaller levels average stripes of many colours into one block, which
                    // four colours on a line cannot hold: the encoder's error is measured on
                    // level 0 only (every level's blocks are checked exactly above).
                    continue;
                }
                let (mean_max, worst_max) = match format {
                    ChainFormat::Argb8 | ChainFormat::Argb8Linear | ChainFormat::B8 => (1e-6, 1e-6),
                    // A1R5G5B5's alpha is one bit.
                    ChainFormat::Argb1555 => (0.2, 0.51),
                    ChainFormat::Rgb565 => (0.02, 1.0 / 31.0 + 1e-4),
                    ChainFormat::Argb4 => (0.04, 1.0 / 15.0 + 1e-4),
                    // The encoder's error (the layout is checked exactly against the blocks
                    // above): four colours on a line per block lose a channel across a
                    // sharp stripe.
                    ChainFormat::Dxt1 | ChainFormat::Dxt23 | ChainFormat::Dxt45 => (0.06, 1.0),
                };
                assert!(
                    mean <= mean_max && worst <= worst_max,
                    "{format:?} level {l}: mean error {mean}, worst {worst}"
                );
            }
        }
    }

    #[test]
    fn a_flat_block_encodes_to_its_colour() {
        let block = [[0xF8, 0xFC, 0xF8, 0x80]; 16];
        let (b, decoded) = dxt_block(ChainFormat::Dxt1, &block);
        assert_eq!(decoded[5], [0xFF, 0xFF, 0xFF, 0xFF]);
        assert_eq!(&b[0..4], &[0xFF, 0xFF, 0xFF, 0xFF]);
        assert_eq!(&b[4..8], &[0; 4]);
        let (b5, _) = dxt_block(ChainFormat::Dxt45, &block);
        assert_eq!((b5[0], b5[1]), (0x80, 0x80));
    }
}
