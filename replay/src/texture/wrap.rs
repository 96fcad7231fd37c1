//! Texture coordinate wrap modes (ADDRESS wrap fields, values 1..8; rrc-format.md 4.7, RPCS3
//! `to_texture_wrap_mode`) applied to integer texel indices, as OpenGL does.
//!
//! The mirror-once modes reflect the coordinate, not the indices: the sampler takes `|s|`
//! before it computes the texel indices (`TextureLod::mirror_once`), then the mode clamps or
//! reads the border as its non-mirrored counterpart (`EXT_texture_mirror_clamp`, NVIDIA's
//! description of its hardware: `mirrorClampToBorder(f)` is `|f|` clamped, then the border
//! rule; Mesa softpipe `wrap_linear_mirror_clamp_to_border`). The difference from mirroring
//! indices shows at the seam: a linear filter at `|s|·N < ½` blends texel 0 with the border
//! in mode 7 (texel −1 is outside), where mirrored indices would read texel 0 twice.
//!
//! RPCS3 maps the modes to GL (`GLTexture.cpp` `wrap_mode`): WRAP = REPEAT, MIRROR =
//! MIRRORED_REPEAT, CLAMP_TO_EDGE, BORDER = CLAMP_TO_BORDER, CLAMP = CLAMP_TO_EDGE,
//! MIRROR_ONCE_CLAMP_TO_EDGE = MIRROR_CLAMP_TO_EDGE, MIRROR_ONCE_BORDER = MIRROR_CLAMP_TO_BORDER,
//! MIRROR_ONCE_CLAMP = MIRROR_CLAMP (modelled as MIRROR_CLAMP_TO_EDGE; the legacy GL_CLAMP
//! blend with the border at the edge is not modelled). Other values, which RPCS3 rejects, are
//! treated as WRAP.

/// A wrap mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wrap {
    /// 1: repeat.
    Wrap,
    /// 2: mirrored repeat.
    Mirror,
    /// 3: clamp to the edge texel.
    ClampToEdge,
    /// 4: texels outside the image read the border colour.
    Border,
    /// 5: GL_CLAMP, as RPCS3: clamp to edge.
    Clamp,
    /// 6: mirror once about 0, then clamp to edge.
    MirrorOnceClampToEdge,
    /// 7: mirror once about 0, then border.
    MirrorOnceBorder,
    /// 8: mirror once about 0, then clamp (as clamp to edge).
    MirrorOnceClamp,
}

impl Wrap {
    /// From the raw ADDRESS field.
    pub fn from_raw(v: u32) -> Wrap {
        match v {
            2 => Wrap::Mirror,
            3 => Wrap::ClampToEdge,
            4 => Wrap::Border,
            5 => Wrap::Clamp,
            6 => Wrap::MirrorOnceClampToEdge,
            7 => Wrap::MirrorOnceBorder,
            8 => Wrap::MirrorOnceClamp,
            _ => Wrap::Wrap,
        }
    }

    /// Whether the mode mirrors once about 0 (6, 7 and 8).
    pub fn mirrors_once(self) -> bool {
        matches!(
            self,
            Wrap::MirrorOnceClampToEdge | Wrap::MirrorOnceBorder | Wrap::MirrorOnceClamp
        )
    }

    /// Whether texels outside the image read the border colour (4 and 7).
    pub fn reads_border(self) -> bool {
        matches!(self, Wrap::Border | Wrap::MirrorOnceBorder)
    }

    /// The texel index for integer coordinate `i` in a dimension of `size` texels, or `None`
    /// for the border colour. `i` must lie in `-2^40..2^40` (callers clamp), `size >= 1`.
    /// The mirror-once modes clamp or read the border here: the sampler has reflected the
    /// coordinate already (module documentation).
    #[inline]
    pub fn apply(self, i: i64, size: i64) -> Option<i64> {
        let size = size.max(1);
        if (0..size).contains(&i) {
            // Every mode leaves in-range indices alone.
            return Some(i);
        }
        match self {
            Wrap::Wrap => Some(i.rem_euclid(size)),
            Wrap::Mirror => {
                let period = 2 * size;
                let m = i.rem_euclid(period);
                Some(if m < size { m } else { period - 1 - m })
            }
            Wrap::ClampToEdge
            | Wrap::Clamp
            | Wrap::MirrorOnceClampToEdge
            | Wrap::MirrorOnceClamp => Some(i.clamp(0, size - 1)),
            Wrap::Border | Wrap::MirrorOnceBorder => None,
        }
    }
}
