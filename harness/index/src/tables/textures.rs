//! `textures` (distinct textures by content key, across captures) and `draw_textures` (each
//! enabled texture unit of each draw).

use super::{hex128, loc, named};
use crate::cell::Cell;
use crate::facts::programs::stage_name;
use crate::facts::{TextureFacts, UnitFacts};
use crate::schema::{col, Table, Ty};
use crate::tables::programs::reach_name;
use rsxtrace_capture::frame::state::Texture;

fn layout(t: &Texture) -> &'static str {
    if t.format.linear {
        "linear"
    } else {
        "swizzled"
    }
}

/// The `textures` table.
pub fn table() -> Table<TextureFacts> {
    use Ty::*;
    let c = col::<TextureFacts>;
    Table {
        name: "textures",
        doc: "One row per distinct texture of every capture indexed, by content key: the \
              same texels in the same shape are one texture wherever they lie and whichever \
              capture holds them. The shape is that of the first unit it was found bound to.",
        primary_key: &["key"],
        indexes: &[],
        columns: vec![
            c("key", Text, "Content key, 32 hex digits: XXH3-128 of the shape (format, dimension, size, mips, layout, pitch, remap) and of every texel byte the texture model reads (rsxtrace's texture-cache key).", |t| hex128(t.key)),
            c("format", Any, "Base format (`a8r8g8b8`, `compressed_dxt1`, `depth24_d8`, ...).", |t| named(t.texture.format.base_format)),
            c("format_code", Integer, "`FORMAT` bits 8..15 with the LN (0x20) and UN (0x40) flags.", |t| t.texture.format.format.into()),
            c("dimension", Integer, "1, 2 or 3.", |t| t.texture.format.dimension.into()),
            c("cubemap", Integer, "1 for a cube map (six faces).", |t| t.texture.format.cubemap.into()),
            c("width", Integer, "Width, texels.", |t| t.texture.width.into()),
            c("height", Integer, "Height, texels.", |t| t.texture.height.into()),
            c("depth", Integer, "Depth, texels (3D textures; else as the register holds it).", |t| t.texture.depth.into()),
            c("mips", Integer, "Mip levels the `FORMAT` register declares.", |t| t.texture.format.mip_count.into()),
            c("layout", Text, "`linear` (pitch) or `swizzled`.", |t| layout(&t.texture).into()),
            c("pitch", Integer, "Row pitch, bytes (`CONTROL3`; linear layouts).", |t| t.texture.pitch.into()),
            c("remap", Integer, "Channel remap (`CONTROL1` low 16 bits).", |t| t.texture.remap.into()),
            c("bytes", Integer, "Texel bytes over every level and face.", |t| t.bytes.into()),
        ],
    }
}

/// A row of `draw_textures`.
pub struct UnitRow<'a> {
    /// Capture.
    pub capture_id: i64,
    /// Draw.
    pub draw: usize,
    /// The unit.
    pub u: &'a UnitFacts,
}

/// The `draw_textures` table.
pub fn units_table<'a>() -> Table<UnitRow<'a>> {
    use Ty::*;
    let c = col::<UnitRow<'a>>;
    Table {
        name: "draw_textures",
        doc: "One row per enabled texture unit (`CONTROL0` bit 31) of each draw, with its \
              sampler state and whether the draw's fragment program samples it.",
        primary_key: &["capture_id", "draw", "stage", "unit"],
        indexes: &[&["texture_key"]],
        columns: vec![
            c("capture_id", Integer, "The capture.", |r| r.capture_id.into()),
            c("draw", Integer, "The draw.", |r| r.draw.into()),
            c("stage", Text, "`fragment` (units 0..15) or `vertex` (units 0..3).", |r| stage_name(r.u.stage).into()),
            c("unit", Integer, "Texture unit.", |r| r.u.unit.into()),
            c("texture_key", Text, "The texture (`textures.key`); NULL when it cannot be read (see `problem`).", |r| Cell::opt(r.u.key.map(|k| format!("{k:032x}")))),
            c("location", Text, "`local` or `main`; NULL when the `FORMAT` location field is invalid.", |r| loc(r.u.texture.location)),
            c("offset", Integer, "Offset of the texels in their location, bytes.", |r| r.u.texture.offset.into()),
            c("format", Any, "Base format.", |r| named(r.u.texture.format.base_format)),
            c("width", Integer, "Width, texels.", |r| r.u.texture.width.into()),
            c("height", Integer, "Height, texels.", |r| r.u.texture.height.into()),
            c("min_filter", Any, "Minification filter (`nearest`, `linear`, `linear_linear`, ...).", |r| named(r.u.texture.filter.min)),
            c("mag_filter", Any, "Magnification filter (`nearest`, `linear`, `convolution_mag`).", |r| named(r.u.texture.filter.mag)),
            c("lod_bias", Real, "LOD bias.", |r| r.u.texture.filter.bias.into()),
            c("min_lod", Real, "Minimum LOD.", |r| r.u.texture.control0.min_lod.into()),
            c("max_lod", Real, "Maximum LOD.", |r| r.u.texture.control0.max_lod.into()),
            c("max_aniso", Any, "Maximum anisotropy (`x1` .. `x16`).", |r| named(r.u.texture.control0.max_aniso)),
            c("wrap_s", Any, "Wrap mode along s (`wrap`, `mirror`, `clamp_to_edge`, `border`, `clamp`, ...).", |r| named(r.u.texture.address.wrap_s)),
            c("wrap_t", Any, "Wrap mode along t.", |r| named(r.u.texture.address.wrap_t)),
            c("wrap_r", Any, "Wrap mode along r.", |r| named(r.u.texture.address.wrap_r)),
            c("zfunc", Any, "Depth comparison of shadow lookups.", |r| named(r.u.texture.address.zfunc)),
            c("gamma", Integer, "Per-channel gamma (sRGB) flags.", |r| r.u.texture.address.gamma.into()),
            c("remap", Integer, "Channel remap (`CONTROL1` low 16 bits).", |r| r.u.texture.remap.into()),
            c("border_color", Integer, "Border colour, ARGB8.", |r| r.u.texture.border_color.into()),
            c("alpha_kill", Integer, "Alpha kill enabled.", |r| r.u.texture.control0.alpha_kill.into()),
            c("sampled", Integer, "1 when the draw's program of the unit's stage (fragment, or vertex for a vertex unit) samples this unit on a path that is not unreachable, 0 when it does not (a wasted bind); NULL when the program is unknown.", |r| if r.u.program_known { r.u.sampled.is_some_and(|(reach, _)| reach != rsxtrace_verify::probe::textures::Reach::Unreachable).into() } else { Cell::Null }),
            c("reach", Text, "How the program's sampling of this unit is reached (`program_textures.reach`); NULL when it does not sample it.", |r| Cell::opt(r.u.sampled.map(|(reach, _)| reach_name(reach)))),
            c("live", Integer, "1 when this unit's texels can influence an output (`program_textures.live`); NULL when not sampled.", |r| Cell::opt(r.u.sampled.map(|(_, live)| live))),
            c("problem", Text, "Why the texture cannot be read (state the texture model refuses, texels not in the capture); NULL when it can.", |r| Cell::opt(r.u.problem.clone())),
        ],
    }
}
