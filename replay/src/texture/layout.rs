//! Where each sub-resource (layer x mip level) of a texture lies in guest memory, and where a
//! texel lies inside a sub-resource: RPCS3 `TextureUtils.cpp` `get_subresources_layout_impl`
//! restated.
//!
//! * Levels follow each other with no padding; each level halves width, height and depth
//!   (minimum 1).
//! * Linear (`LN`) textures: every level uses the pitch of CONTROL3 (rows of level `n > 0` are
//!   padded). When the pitch is smaller than a packed row, a non-zero pitch narrows the width to
//!   what fits (the sampler then stretches s over the register width,
//!   `TextureLod::narrow_pitch`), and a zero pitch makes the texture a single packed row
//!   (height = depth = 1).
//! * Swizzled textures: rows are packed (pitch = width in blocks) and texels within a level are
//!   in Z-order (Morton order, [`z_index`]). Each layer (cube face) starts 128-byte aligned.
//!   DXT textures and the two-texel COMPRESSED_B8R8_G8R8 / R8B8_R8G8 ignore swizzling: their
//!   blocks are always row-major (RPCS3 copies them without deswizzling, "other compressed_*
//!   formats ignore this option"). A block is 4x4 texels for DXT, 2x1 for the two-texel
//!   formats (RPCS3 `get_subresources_layout_impl`: "only the width is compressed"). Texels of
//!   8 or 16 bytes are swizzled as 2 or 4 texels of 4 bytes side by side
//!   ([`Subresource::word_layout`]).
//! * 3D DXT levels whose width and height are powers of two lie in NVIDIA's VTC order (RPCS3
//!   `TextureUtils.cpp` `copy_unmodified_block_vtc`: "PS3 uses the Nvidia VTC memory layout for
//!   compressed 3D textures"; NV_texture_compression_vtc): slices in groups of four, and block
//!   `i` (row-major in its slice) of slice `d` of a group is block `4i + d` of the group's
//!   packed blocks; a last group of `n < 4` slices interleaves `n`. The row pitch is not used.
//! * Border texels (FORMAT bit 3 = 0, `CELL_GCM_TEXTURE_BORDER_TEXTURE`): 1 texel on each side
//!   for linear textures; swizzled textures pad to `next_pow2(size + 8)` with 4 texels each side.
//!   DXT and two-texel textures never have border texels. The stored border texels are skipped, not sampled.
//! * The mip count is `min(FORMAT mip field, floor(log2(max(w, h))) + 1)`, or for DXT
//!   `floor(log2(min(w / 4, h / 4))) + 1` (RPCS3 `RSXTexture.cpp` `get_exact_mipmap_count`); a
//!   zero mip field counts as 1.

use super::format::TexelFormat;

/// The register-level geometry of a texture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Texel format.
    pub format: TexelFormat,
    /// Width in texels (IMAGE_RECT).
    pub width: u32,
    /// Height in texels (1 for 1D).
    pub height: u32,
    /// Depth in texels (1 unless 3D).
    pub depth: u32,
    /// 6 for cube maps, else 1.
    pub layers: u32,
    /// FORMAT mip count field.
    pub mip_field: u32,
    /// LN flag: pitch layout rather than swizzled.
    pub linear: bool,
    /// FORMAT bit 3 is 0: border texels are stored.
    pub border_texels: bool,
    /// CONTROL3 pitch in bytes.
    pub pitch: u32,
}

/// One sub-resource: a mip level of one layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Subresource {
    /// Layer (cube face).
    pub layer: u32,
    /// Mip level.
    pub level: u32,
    /// Size in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Depth in texels.
    pub depth: u32,
    /// Row stride in blocks.
    pub pitch_in_block: u64,
    /// Rows per slice (including border rows).
    pub rows: u64,
    /// Border size in blocks on each side.
    pub border: u64,
    /// Border size in blocks at each end of a row: [`Self::border`], but for a
    /// [`word layout`](Self::word_layout) `k` times it (a bordered texel is `k` words).
    pub column_border: u64,
    /// Whether texels are in Z-order.
    pub morton: bool,
    /// Whether DXT blocks are in VTC order (a 3D level whose width and height are powers of
    /// two; see the module documentation).
    pub vtc: bool,
    /// Byte offset from the texture base.
    pub offset: u64,
    /// Bytes this sub-resource occupies in the chain (what the next one is placed after).
    pub size: u64,
    /// Bytes that must be readable from `offset` to decode every texel: up to the end of
    /// the last texel (row padding after it and Z-order holes past it are not required).
    pub span: u64,
}

/// `ceil(log2(v))`, 0 for `v <= 1`.
pub fn ceil_log2(v: u64) -> u32 {
    if v <= 1 {
        0
    } else {
        64 - (v - 1).leading_zeros()
    }
}

/// `floor(log2(v))`, 0 for `v <= 1`.
pub fn floor_log2(v: u64) -> u32 {
    if v <= 1 {
        0
    } else {
        63 - v.leading_zeros()
    }
}

/// The smallest power of two `>= v` (`v` itself for 0..=2, as RPCS3 `next_pow2`).
pub fn next_pow2(v: u64) -> u64 {
    if v <= 2 {
        v
    } else {
        1u64 << ceil_log2(v)
    }
}

/// The `(x, y)` whose Z-order index in a `2^lw x 2^lh` region is `index`: the inverse of
/// [`z_index`] with no depth (`z_index(x, y, 0, lw, lh, 0) == index`).
pub fn z_coords(mut index: u64, mut lw: u32, mut lh: u32) -> (u64, u64) {
    let (mut x, mut y, mut bit) = (0u64, 0u64, 0u32);
    while (lw | lh) != 0 && bit < 63 {
        if lw > 0 {
            x |= (index & 1) << bit;
            index >>= 1;
            lw -= 1;
        }
        if lh > 0 {
            y |= (index & 1) << bit;
            index >>= 1;
            lh -= 1;
        }
        bit += 1;
    }
    (x, y)
}

/// The Z-order index of `(x, y, z)` in a `2^lw x 2^lh x 2^ld` region: one bit of x, then y,
/// then z, from the least significant bit up, each coordinate dropping out once its
/// dimension's bits are used (RPCS3 `rsx_utils.h` `get_z_index` / `convert_linear_swizzle`).
pub fn z_index(mut x: u64, mut y: u64, mut z: u64, mut lw: u32, mut lh: u32, mut ld: u32) -> u64 {
    let mut out = 0u64;
    let mut shift = 0u32;
    while (lw | lh | ld) != 0 && shift < 63 {
        if lw > 0 {
            out |= (x & 1) << shift;
            shift += 1;
            x >>= 1;
            lw -= 1;
        }
        if lh > 0 {
            out |= (y & 1) << shift;
            shift += 1;
            y >>= 1;
            lh -= 1;
        }
        if ld > 0 {
            out |= (z & 1) << shift;
            shift += 1;
            z >>= 1;
            ld -= 1;
        }
    }
    out
}

/// The number of mip levels RPCS3 uploads (`get_exact_mipmap_count`).
pub fn exact_mip_count(format: TexelFormat, width: u32, height: u32, mip_field: u32) -> u32 {
    let max = if format.is_dxt() {
        floor_log2(u64::from(width.min(height) / 4)) + 1
    } else {
        floor_log2(u64::from(width.max(height))) + 1
    };
    mip_field.max(1).min(max)
}

impl Subresource {
    /// The layout of a swizzled level of 8- or 16-byte texels (W16_Z16_Y16_X16_FLOAT,
    /// W32_Z32_Y32_X32_FLOAT) as the RSX stores it: "Maximum block size on RSX is 4 bytes.
    /// Wider blocks are stored as multiple texels" (RPCS3 `TextureUtils.cpp`, which swizzles
    /// them as a grid `block_bytes / 4` times wider of 4-byte words, on both of its upload
    /// paths): word `j` of texel `(x, y, z)` is the 4-byte block `(x·k + j, y, z)` of the
    /// returned sub-resource, `k = block_bytes / 4`. A level with border texels is padded as
    /// a texel grid and swizzled as the words of it (RPCS3 3574677, April 2026), so its rows
    /// start `k` words per border texel in. `None` for other levels.
    pub fn word_layout(&self, block_bytes: u64) -> Option<Subresource> {
        let k = block_bytes / 4;
        (self.morton && k > 1).then(|| Subresource {
            width: self.width.saturating_mul(k as u32),
            pitch_in_block: self.pitch_in_block * k,
            column_border: self.border * k,
            ..*self
        })
    }

    /// Byte offset (from the sub-resource start) of the block holding texel block
    /// `(bx, by, z)`; coordinates must be inside the level.
    pub fn block_offset(&self, bx: u64, by: u64, z: u64, block_bytes: u64) -> u64 {
        let row = self.row_part(by, z, block_bytes);
        row.offset + self.column_part(bx, block_bytes) * row.column_scale
    }

    /// The part of [`block_offset`](Self::block_offset) that depends on the column: the bits
    /// of x in Z-order ([`z_index`] places each coordinate's bits apart), or x in a pitch
    /// layout (times the row's [`RowStart::column_scale`]).
    fn column_part(&self, bx: u64, block_bytes: u64) -> u64 {
        let x = bx + self.column_border;
        let index = if self.morton {
            let (lw, lh, ld) = self.log2_extents();
            z_index(x, 0, 0, lw, lh, ld)
        } else {
            x
        };
        index * block_bytes
    }

    /// The part of [`block_offset`](Self::block_offset) that depends on the row and slice.
    fn row_part(&self, by: u64, z: u64, block_bytes: u64) -> RowStart {
        let y = by + self.border;
        if self.vtc {
            // Slice z is slice `d` of a group of `n` (4, or what the last group holds) whose
            // packed blocks start at `(z - d)` slices of `plane` blocks. DXT blocks are 4×4
            // texels, with no border; rows are packed whatever the pitch.
            let columns = u64::from(self.width).div_ceil(4);
            let plane = columns * u64::from(self.height).div_ceil(4);
            let depth = u64::from(self.depth);
            let (d, n) = if z < depth / 4 * 4 {
                (z % 4, 4)
            } else {
                (z - depth / 4 * 4, depth % 4)
            };
            let index = (z - d) * plane + d + n * y * columns;
            return RowStart {
                offset: index * block_bytes,
                column_scale: n,
            };
        }
        let index = if self.morton {
            let (lw, lh, ld) = self.log2_extents();
            z_index(0, y, z, lw, lh, ld)
        } else {
            (z * self.rows + y) * self.pitch_in_block
        };
        RowStart {
            offset: index * block_bytes,
            column_scale: 1,
        }
    }

    /// The Z-order region's log2 width, height and depth.
    fn log2_extents(&self) -> (u32, u32, u32) {
        (
            ceil_log2(self.pitch_in_block),
            ceil_log2(self.rows),
            ceil_log2(u64::from(self.depth)),
        )
    }
}

/// Where a row of blocks starts ([`BlockOffsets::row`]): the offset of its part that depends
/// on the row and slice, and what a column's part is multiplied by (1, or the slices a VTC
/// group interleaves).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowStart {
    offset: u64,
    column_scale: u64,
}

/// The byte offsets of a sub-resource's blocks, worked out once per level: a block's offset
/// (`Subresource::block_offset`) is a part that depends on its column alone plus a part that
/// depends on its row and slice ([`z_index`] puts the bits of x, y and z in places that do not
/// depend on their values; a pitch layout adds them), so a decode adds one table entry per
/// block instead of interleaving bits.
#[derive(Clone, Debug)]
pub struct BlockOffsets {
    sub: Subresource,
    block_bytes: u64,
    /// The column part of the offset of block column `bx`.
    columns: Vec<u64>,
}

impl BlockOffsets {
    /// The offsets of the first `columns` block columns of `sub`, `block_bytes` per block.
    pub fn new(sub: &Subresource, block_bytes: u64, columns: u64) -> BlockOffsets {
        BlockOffsets {
            sub: *sub,
            block_bytes,
            columns: (0..columns)
                .map(|bx| sub.column_part(bx, block_bytes))
                .collect(),
        }
    }

    /// The row part of the offsets of block row `by` of slice `z` (add a column's with
    /// [`at`](Self::at)).
    pub fn row(&self, by: u64, z: u64) -> RowStart {
        self.sub.row_part(by, z, self.block_bytes)
    }

    /// The offset of block `bx` in the row at `row` ([`row`](Self::row)); `None` past the
    /// columns given to [`new`](Self::new).
    #[inline]
    pub fn at(&self, row: RowStart, bx: u64) -> Option<u64> {
        let column = self.columns.get(usize::try_from(bx).ok()?)?;
        Some(row.offset + column * row.column_scale)
    }
}

/// The bytes of a packed level-0 row of a linear texture `width` texels wide, its border
/// texels included (RPCS3 `get_format_packed_pitch`; DXT and two-texel formats never have
/// border texels).
pub fn packed_pitch(format: TexelFormat, width: u32, border_texels: bool) -> u64 {
    let border = u64::from(border_texels && !format.is_compressed());
    let blocks = u64::from(width).div_ceil(u64::from(format.block_width()));
    (blocks + 2 * border) * u64::from(format.block_bytes())
}

/// Every sub-resource of a texture, layer-major (all levels of layer 0, then layer 1, ...), as
/// RPCS3 orders them.
pub fn subresources(g: &Geometry) -> Vec<Subresource> {
    let f = g.format;
    let (bw, bh) = (u64::from(f.block_width()), u64::from(f.block_height()));
    let bytes = u64::from(f.block_bytes());
    let levels = exact_mip_count(f, g.width, g.height, g.mip_field);
    let border_texels = g.border_texels && !f.is_compressed();
    let border = match (border_texels, g.linear) {
        (false, _) => 0,
        (true, true) => 1,
        (true, false) => 4,
    };
    let (mut width, mut height, mut depth) = (g.width, g.height, g.depth);
    let mut pitch = u64::from(g.pitch);
    if g.linear {
        let packed = packed_pitch(f, width, border_texels);
        if pitch < packed {
            if pitch != 0 {
                let w = (pitch / bytes) * bw;
                width = u32::try_from(w).unwrap_or(u32::MAX).max(1);
            } else {
                height = 1;
                depth = 1;
                pitch = packed;
            }
        }
    }
    let mut out = Vec::with_capacity((g.layers * levels) as usize);
    let mut offset = 0u64;
    for layer in 0..g.layers {
        let (mut w, mut h, mut d) = (width, height, depth);
        for level in 0..levels {
            let wb = u64::from(w).div_ceil(bw);
            let hb = u64::from(h).div_ceil(bh);
            let (pitch_in_block, rows) = if g.linear {
                (pitch / bytes, hb + 2 * border)
            } else if border == 0 {
                (wb, hb)
            } else {
                (next_pow2(wb + 2 * border), next_pow2(hb + 2 * border))
            };
            let size = pitch_in_block * bytes * rows * u64::from(d);
            let morton = !g.linear && !f.is_compressed();
            let vtc = f.is_dxt() && d > 1 && w.is_power_of_two() && h.is_power_of_two();
            let mut sub = Subresource {
                layer,
                level,
                width: w,
                height: h,
                depth: d,
                pitch_in_block,
                rows,
                border,
                column_border: border,
                morton,
                vtc,
                offset,
                size,
                span: size,
            };
            // The highest block address: Z-order over a non-power-of-two level can reach past
            // the packed size; a linear level's last row needs no padding.
            let last = sub.block_offset(
                wb.saturating_sub(1),
                hb.saturating_sub(1),
                u64::from(d).saturating_sub(1),
                bytes,
            );
            sub.span = match sub.word_layout(bytes) {
                // The last texel's last word.
                Some(words) => {
                    let k = bytes / 4;
                    words.block_offset(
                        (wb.saturating_sub(1)) * k + k - 1,
                        hb.saturating_sub(1),
                        u64::from(d).saturating_sub(1),
                        4,
                    ) + 4
                }
                None => last + bytes,
            };
            out.push(sub);
            offset += size;
            w = (w / 2).max(1);
            h = (h / 2).max(1);
            d = (d / 2).max(1);
        }
        if !g.linear {
            offset = offset.next_multiple_of(128);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn z_coords_inverts_z_index() {
        for (lw, lh) in [(0, 0), (3, 3), (4, 2), (1, 5), (12, 12)] {
            for (x, y) in [(0u64, 0u64), (1, 0), (0, 1), (5, 3), (7, 1)] {
                let (x, y) = (x % (1 << lw), y % (1 << lh));
                let i = super::z_index(x, y, 0, lw, lh, 0);
                assert_eq!(super::z_coords(i, lw, lh), (x, y), "{lw} {lh}");
            }
        }
    }

    use super::*;

    fn sub(morton: bool, border: u64) -> Subresource {
        Subresource {
            layer: 0,
            level: 0,
            width: 20,
            height: 12,
            depth: 3,
            pitch_in_block: 24 + 2 * border,
            rows: 12 + 2 * border,
            border,
            column_border: border,
            morton,
            vtc: false,
            offset: 0,
            size: 0,
            span: 0,
        }
    }

    /// The offset of block (bx, by, z) worked out whole: the Z-order index of the bordered
    /// coordinates in the region the pitch, rows and depth round up to, or the pitch layout's
    /// row-major index.
    fn whole_offset(s: &Subresource, bx: u64, by: u64, z: u64, bytes: u64) -> u64 {
        let (x, y) = (bx + s.border, by + s.border);
        let index = if s.morton {
            z_index(
                x,
                y,
                z,
                ceil_log2(s.pitch_in_block),
                ceil_log2(s.rows),
                ceil_log2(u64::from(s.depth)),
            )
        } else {
            (z * s.rows + y) * s.pitch_in_block + x
        };
        index * bytes
    }

    #[test]
    fn block_offsets_add_up_to_the_whole_offset() {
        for (morton, border) in [(true, 0), (true, 4), (false, 0), (false, 1)] {
            let s = sub(morton, border);
            for bytes in [1, 4, 8, 16] {
                let table = BlockOffsets::new(&s, bytes, 20);
                for z in 0..3 {
                    for by in 0..12 {
                        let row = table.row(by, z);
                        for bx in 0..20 {
                            let whole = whole_offset(&s, bx, by, z, bytes);
                            let at = format!(
                                "morton {morton} border {border} ({bx}, {by}, {z}) x{bytes}"
                            );
                            assert_eq!(table.at(row, bx), Some(whole), "{at}");
                            assert_eq!(s.block_offset(bx, by, z, bytes), whole, "{at}");
                        }
                        assert_eq!(table.at(row, 20), None);
                    }
                }
            }
        }
    }

    fn dxt1_3d(width: u32, height: u32, depth: u32, linear: bool, pitch: u32) -> Vec<Subresource> {
        subresources(&Geometry {
            format: TexelFormat::Dxt1,
            width,
            height,
            depth,
            layers: 1,
            mip_field: 1,
            linear,
            border_texels: false,
            pitch,
        })
    }

    /// The packed block index of every block (bx, by, z) of `s`, row-major per slice.
    fn vtc_indices(s: &Subresource) -> Vec<u64> {
        let (wb, hb) = (u64::from(s.width) / 4, u64::from(s.height) / 4);
        let table = BlockOffsets::new(s, 8, wb);
        let mut out = Vec::new();
        for z in 0..u64::from(s.depth) {
            for by in 0..hb {
                let row = table.row(by, z);
                for bx in 0..wb {
                    let at = s.block_offset(bx, by, z, 8);
                    assert_eq!(table.at(row, bx), Some(at), "({bx}, {by}, {z})");
                    out.push(at / 8);
                }
            }
        }
        out
    }

    #[test]
    fn dxt_3d_levels_lie_in_vtc_order() {
        // 8×4×4 DXT1 (RPCS3 copy_unmodified_block_vtc): slice d's blocks are packed blocks
        // d and 4 + d; a plain layout would give slice 1 blocks 2 and 3.
        let s = dxt1_3d(8, 4, 4, false, 0)[0];
        assert!(s.vtc);
        assert_eq!(vtc_indices(&s), [0, 4, 1, 5, 2, 6, 3, 7]);
        // 8×4×6: a group of four, then a last group of two interleaving two slices.
        let s = dxt1_3d(8, 4, 6, false, 0)[0];
        assert_eq!(
            vtc_indices(&s),
            [0, 4, 1, 5, 2, 6, 3, 7, 8, 10, 9, 11],
            "tail group of 2"
        );
        // A linear texture with a wide pitch reads packed blocks too.
        let s = dxt1_3d(8, 8, 3, true, 64)[0];
        assert!(s.vtc);
        let mut seen = vtc_indices(&s);
        assert_eq!(&seen[..4], &[0, 3, 6, 9], "slice 0 of a group of 3");
        seen.sort_unstable();
        assert_eq!(seen, (0..12).collect::<Vec<_>>(), "a permutation");
        assert_eq!(s.span, 12 * 8, "the last block is the highest");
        // Not VTC: a width that is not a power of two, one slice, a 2D texture.
        assert!(!dxt1_3d(12, 4, 4, false, 0)[0].vtc);
        assert!(!dxt1_3d(8, 4, 1, false, 0)[0].vtc);
    }
}
