//! A draw's textures as glTF material images: the units that are bound (enabled with a valid
//! state) and that the fragment program samples on a reachable path
//! (`crate::probe::textures`; every bound unit when the program is unknown), each decoded by
//! the texture model with the unit's own format and remap (`rsxtrace_replay::texture`), level
//! 0 of layer 0 (the +X face of a cube map, slice 0 of a 3D texture), as an 8-bit RGBA PNG.
//! The unit's sampler state becomes a glTF sampler: wrap 1 REPEAT, 2 MIRRORED_REPEAT, anything
//! else CLAMP_TO_EDGE (glTF has no border or mirror-once mode); the minify and magnify filters
//! by name. Only level 0 is embedded: a glTF 2.0 core image has no mip chain, and a mipmap
//! min filter tells the viewer to build the levels (`docs/workbench.md` says why no extension
//! that stores levels fits).

use crate::probe::textures::{draw_textures, program_textures};
use crate::workbench::texture_dump::{content_hash, encode_png};
use rsxtrace_capture::frame::state::Texture;
use rsxtrace_capture::frame::Frame;
use rsxtrace_program::fragment;
use rsxtrace_replay::texture::{decode_texture, read_stored};

/// glTF wrap mode of an RSX wrap mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wrap {
    /// `REPEAT`.
    Repeat,
    /// `MIRRORED_REPEAT`.
    Mirror,
    /// `CLAMP_TO_EDGE`.
    Clamp,
}

/// glTF filters of an RSX unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Filters {
    /// Magnify: linear (else nearest).
    pub mag_linear: bool,
    /// Minify: the RSX minify filter code 1..6 (nearest, linear, nearest_nearest,
    /// linear_nearest, nearest_linear, linear_linear), else linear.
    pub min: u32,
}

/// What makes two units' images the same: the stored bytes' hash, the FORMAT byte, the size,
/// the remap word and the pitch.
pub type ImageKey = (u64, u8, u16, u16, u16, u32, u32);

/// One unit's image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnitImage {
    /// Texture unit.
    pub unit: u8,
    /// The PNG; `None` when the caller already has the image of this key.
    pub png: Option<Vec<u8>>,
    /// What makes two units' images the same.
    pub key: ImageKey,
    /// xxh3-64 of the stored texels, 16 hex digits (the name `textures --dump` gives it).
    pub hash: String,
    /// S and T wrap.
    pub wrap: [Wrap; 2],
    /// Filters.
    pub filters: Filters,
}

/// A draw's material images and what was left out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DrawImages {
    /// Units in ascending order.
    pub units: Vec<UnitImage>,
    /// Units left out, with why.
    pub warnings: Vec<String>,
}

fn wrap(mode: u32) -> Wrap {
    match mode {
        1 => Wrap::Repeat,
        2 => Wrap::Mirror,
        _ => Wrap::Clamp,
    }
}

/// The images of draw `draw`'s sampled units; those whose key `known` accepts are not decoded
/// again (their `png` is `None`).
pub fn draw_images(frame: &Frame, draw: usize, known: &dyn Fn(&ImageKey) -> bool) -> DrawImages {
    let mut out = DrawImages::default();
    let (Some(d), Some(memory)) = (frame.draws.get(draw), frame.memory(draw)) else {
        return out;
    };
    let program = d
        .fragment_program
        .as_deref()
        .ok_or_else(|| "no fragment program".to_string())
        .and_then(|fp| {
            fragment::decode(&fp.ucode)
                .map(|p| program_textures(&p))
                .map_err(|e| e.to_string())
        });
    let listing = draw_textures(d, program.as_ref().map_err(String::as_str));
    for invalid in &listing.invalid {
        out.warnings.push(format!(
            "texture unit {}: {}; left out",
            invalid.unit, invalid.reason
        ));
    }
    let units: Vec<u8> = if listing.problem.is_some() {
        listing.bound.clone()
    } else {
        listing
            .bound
            .iter()
            .copied()
            .filter(|u| !listing.bound_unsampled.contains(u))
            .collect()
    };
    for unit in units {
        let Some(texture) = d.textures.get(usize::from(unit)) else {
            continue;
        };
        match unit_image(unit, texture, &memory, known) {
            Ok(image) => out.units.push(image),
            Err(e) => out
                .warnings
                .push(format!("texture unit {unit}: {e}; left out")),
        }
    }
    out
}

fn unit_image(
    unit: u8,
    texture: &Texture,
    memory: &rsxtrace_capture::frame::MemoryView<'_>,
    known: &dyn Fn(&ImageKey) -> bool,
) -> Result<UnitImage, String> {
    let stored = read_stored(unit, texture, memory).map_err(|e| e.to_string())?;
    let hash = content_hash(&stored);
    let key = (
        hash,
        texture.format.format,
        texture.width,
        texture.height,
        texture.depth,
        (u32::from(texture.remap_override) << 16) | u32::from(texture.remap),
        texture.pitch,
    );
    let png = if known(&key) {
        None
    } else {
        let decoded = decode_texture(unit, texture, memory).map_err(|e| e.to_string())?;
        let level = decoded.level(0, 0).ok_or("no level 0")?;
        let texels = (level.width as usize) * (level.height as usize);
        let (png, _) = encode_png(
            level.width,
            level.height,
            level.texels.get(..texels).unwrap_or(&[]),
            false,
        )?;
        Some(png)
    };
    Ok(UnitImage {
        unit,
        png,
        key,
        hash: format!("{hash:016x}"),
        wrap: [
            wrap(texture.address.wrap_s.raw),
            wrap(texture.address.wrap_t.raw),
        ],
        filters: Filters {
            mag_linear: texture.filter.mag.raw != 1,
            min: texture.filter.min.raw,
        },
    })
}
