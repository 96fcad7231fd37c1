//! `textures` (distinct textures by content key, across captures) and `draw_textures` (each
//! enabled texture unit of each draw: a view over `draw_texture_rows` and `texture_bindings`).

use super::{hex128, loc, named, shared};
use crate::cell::Cell;
use crate::facts::programs::stage_name;
use crate::facts::{TextureFacts, UnitFacts};
use crate::schema::{col, Column, Table, Ty, View};
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
#[derive(Clone, Copy)]
pub struct UnitRow<'a> {
    /// Capture.
    pub capture_id: i64,
    /// Draw.
    pub draw: usize,
    /// The unit.
    pub u: &'a UnitFacts,
    /// Its binding's number in the capture ([`bindings`]).
    pub binding: usize,
}

/// The columns of `texture_bindings`: the unit's texture and sampler state, which repeat over
/// a capture's draws (the game sample: 2,890 units, 18 distinct).
const BINDING_COLUMNS: [&str; 21] = [
    "texture_key",
    "location",
    "offset",
    "format",
    "width",
    "height",
    "min_filter",
    "mag_filter",
    "lod_bias",
    "min_lod",
    "max_lod",
    "max_aniso",
    "wrap_s",
    "wrap_t",
    "wrap_r",
    "zfunc",
    "gamma",
    "remap",
    "border_color",
    "alpha_kill",
    "problem",
];

fn is_binding(name: &str) -> bool {
    BINDING_COLUMNS.contains(&name)
}

fn binding_column<'a>() -> Column<UnitRow<'a>> {
    shared::number_column(
        "binding",
        "The unit's texture and sampler state (`texture_bindings.binding`): units with one \
         number have equal values in every column of `texture_bindings`.",
        |r| r.binding.into(),
    )
}

/// The `draw_texture_rows` table: `draw_textures` less the texture and sampler state, which
/// it names by number.
pub fn unit_rows_table<'a>() -> Table<UnitRow<'a>> {
    let (mut columns, _) = shared::split(unit_columns(), is_binding);
    columns.insert(4, binding_column());
    Table {
        name: "draw_texture_rows",
        doc: "What `draw_textures` stores per unit: the draw, the unit, whether the draw's \
              program samples it, and the number of its texture and sampler state \
              (`texture_bindings`). Query `draw_textures`.",
        primary_key: &["capture_id", "draw", "stage", "unit"],
        indexes: &[],
        columns,
    }
}

/// The `texture_bindings` table: each distinct texture and sampler state of a capture's units,
/// once.
pub fn bindings_table<'a>() -> Table<UnitRow<'a>> {
    let (_, bound) = shared::split(unit_columns(), is_binding);
    let mut columns = vec![
        col(
            "capture_id",
            Ty::Integer,
            "The capture.",
            |r: &UnitRow<'a>| r.capture_id.into(),
        ),
        binding_column(),
    ];
    columns.extend(bound);
    Table {
        name: "texture_bindings",
        doc: "One row per distinct texture and sampler state among a capture's enabled texture \
              units, numbered from 0 in order of first use (`draw_textures.binding`); the \
              columns are `draw_textures`' texture and sampler columns.",
        primary_key: &["capture_id", "binding"],
        indexes: &[&["texture_key"]],
        columns,
    }
}

/// The `draw_textures` view: `draw_texture_rows` joined with `texture_bindings`, in the
/// documented column order, with `binding` last.
pub fn units_view() -> View {
    shared::split_view(
        "draw_textures",
        "One row per enabled texture unit (`CONTROL0` bit 31) of each draw, with its sampler \
         state and whether the draw's fragment program samples it. Made from \
         `draw_texture_rows` and `texture_bindings`.",
        &unit_columns(),
        is_binding,
        ("draw_texture_rows", "texture_bindings"),
        binding_column::<'static>(),
    )
}

/// Each unit's binding number and, per binding, the first unit that has it (indices into
/// `units`): units whose `texture_bindings` columns are equal share a number, given in order
/// of first use.
pub fn bindings(units: &[UnitRow<'_>]) -> (Vec<usize>, Vec<usize>) {
    let (_, bound) = shared::split(unit_columns(), is_binding);
    shared::numbers(units, &bound, |_, _| false)
}

/// Every documented column of `draw_textures`, in the view's order (without `binding`).
fn unit_columns<'a>() -> Vec<Column<UnitRow<'a>>> {
    use Ty::*;
    let c = col::<UnitRow<'a>>;
    vec![
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
    ]
}
