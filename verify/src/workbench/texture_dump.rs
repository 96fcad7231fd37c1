//! `rsxtrace textures --dump DIR`: every distinct texture the draws bind, as PNG files decoded
//! by the texture model (`rsxtrace_replay::texture`), DXT textures also as DDS files holding
//! their original blocks, named by content hash, with an index (`index.json`).
//!
//! - **Which textures**: every enabled fragment texture unit (0..16) and vertex texture unit
//!   (0..4) of every draw (or of one draw). A unit the model cannot read (an unsupported
//!   format, memory the capture lacks, a bad dimension) is listed in
//!   [`DumpIndex::skipped`] with the reason, and the rest goes on.
//! - **Content hash**: xxh3-64 of the texture's stored bytes (every sub-resource, layer-major,
//!   as they lie in guest memory: `StoredTexture`), 16 lowercase hex digits. Units that read the
//!   same bytes with the same format and geometry are one texture; the same bytes read with
//!   another format or geometry are another texture, named `<hash>-1`, `<hash>-2`... in order of
//!   appearance.
//! - **Decoding**: the format's own channels, through the default remap (`0xAAE4`, which the
//!   model rewrites for the 16-bit and float formats, as the hardware does); the unit's own
//!   remap, sign, gamma and bias rules are per use, recorded in the index, not applied.
//! - **Tiled memory**: a texture whose bytes lie in a tile region bound at its first use
//!   names it (`tile_region`): RPCS3 stores such memory in the tiled order and the dump reads
//!   it linearly, so its image may be scrambled.
//! - **Files**: `<name>.png` for level 0; `-px`, `-nx`, `-py`, `-ny`, `-pz`, `-nz` for the
//!   faces of a cube map; `-z<k>` for slice k of a 3D texture; `-mip<n>` for level n > 0 (only
//!   with [`DumpOptions::mips`]). RGBA PNG, 8 bits per channel, or 16 for formats wider than 8
//!   bits (depth, X16, Y16_X16, the float formats); values outside 0..1 are clamped and the
//!   texture is marked `clamped`. DXT1/DXT23/DXT45 textures also get `<name>.dds` (DXT1, DXT3,
//!   DXT5; every level and face, the blocks as stored).
//!
//! # `index.json`
//!
//! ```json
//! {
//!   "capture": "texture_formats.rrc.gz",
//!   "textures": [
//!     {"name": "9c1e...", "hash": "9c1e...", "format": "a8r8g8b8", "format_code": 133,
//!      "dimension": "2d", "width": 4, "height": 4, "depth": 1, "layers": 1, "levels": 1,
//!      "layout": "linear", "location": "local", "offset": 4194304, "bytes": 64,
//!      "tile_region": null, "bit_depth": 8, "clamped": false,
//!      "files": [{"file": "9c1e....png", "layer": 0, "slice": 0, "level": 0,
//!                 "width": 4, "height": 4}],
//!      "dds": null,
//!      "uses": [{"draw": 4, "stage": "fragment", "unit": 0, "remap": "0x0000aae4",
//!                "default_remap": true, "signed": 0, "gamma": 0, "unsigned_remap": 0,
//!                "unnormalized": false}]}
//!   ],
//!   "skipped": [{"draw": 9, "stage": "fragment", "unit": 2,
//!                "reason": "texture unit 2: unsupported texture format 0x96"}]
//! }
//! ```

use ddsfile::{Caps, Caps2, D3DFormat, Dds, NewD3dParams};
use rsxtrace_capture::frame::state::Texture;
use rsxtrace_capture::frame::{Draw, Frame};
use rsxtrace_capture::rrc::Location;
use rsxtrace_replay::texture::{
    decode_texture, read_stored, DecodedTexture, Dimension, StoredTexture, TexelFormat,
};
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;
use xxhash_rust::xxh3::Xxh3;

/// What to dump.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DumpOptions {
    /// Only this draw's textures.
    pub draw: Option<usize>,
    /// Every mip level, not only level 0.
    pub mips: bool,
}

/// Which texture units a unit belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// Fragment texture units 0..16.
    Fragment,
    /// Vertex texture units 0..4.
    Vertex,
}

/// One draw's unit that reads a texture, with its per-use rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TextureUse {
    /// Draw index.
    pub draw: usize,
    /// Stage of the unit.
    pub stage: Stage,
    /// Unit number.
    pub unit: u8,
    /// CONTROL1 (remap, and the override in the high half), hex.
    pub remap: String,
    /// Whether the remap is the default `0xAAE4` (what the PNG shows).
    pub default_remap: bool,
    /// FILTER bits 28..31: A, R, G, B read as signed.
    pub signed: u8,
    /// ADDRESS bits 20..23: R, G, B, A gamma.
    pub gamma: u8,
    /// ADDRESS bits 12..15: 1 = biased.
    pub unsigned_remap: u8,
    /// FORMAT UN flag: coordinates in texels.
    pub unnormalized: bool,
}

/// One written image.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DumpedFile {
    /// File name in the dump directory.
    pub file: String,
    /// Layer (cube face 0..6: +X, -X, +Y, -Y, +Z, -Z), else 0.
    pub layer: u32,
    /// Slice of a 3D texture, else 0.
    pub slice: u32,
    /// Mip level.
    pub level: u32,
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
}

/// One distinct texture.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DumpedTexture {
    /// File stem: the hash, or `<hash>-k` for another format or geometry of the same bytes.
    pub name: String,
    /// xxh3-64 of the stored bytes, 16 hex digits.
    pub hash: String,
    /// Format name (`a8r8g8b8`, `compressed_dxt1`, ...).
    pub format: String,
    /// Base format code (FORMAT bits 8..15 without LN and UN).
    pub format_code: u8,
    /// `1d`, `2d`, `3d` or `cube`.
    pub dimension: &'static str,
    /// Level 0 width.
    pub width: u32,
    /// Level 0 height.
    pub height: u32,
    /// Level 0 depth.
    pub depth: u32,
    /// Layers (6 for cube maps).
    pub layers: u32,
    /// Mip levels per layer.
    pub levels: u32,
    /// `linear` (pitch) or `swizzled`.
    pub layout: &'static str,
    /// Memory space of the first use.
    pub location: Location,
    /// Offset of the first use.
    pub offset: u32,
    /// Stored bytes hashed.
    pub bytes: u64,
    /// The tile region (its index) bound over these bytes at the first use, if any: RPCS3
    /// keeps a tiled region's memory in the tiled order, so the image may be scrambled
    /// (`rsxtrace_replay::render::tile_regions`).
    pub tile_region: Option<usize>,
    /// PNG bits per channel: 8 or 16.
    pub bit_depth: u8,
    /// Some decoded value was outside 0..1 (or not a number) and was clamped in the PNG.
    pub clamped: bool,
    /// The PNG files.
    pub files: Vec<DumpedFile>,
    /// The DDS file of a DXT texture.
    pub dds: Option<String>,
    /// Every unit that reads it.
    pub uses: Vec<TextureUse>,
}

/// A unit (or a draw) left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SkippedUnit {
    /// Draw index.
    pub draw: usize,
    /// Stage, when one unit is left out.
    pub stage: Option<Stage>,
    /// Unit, when one unit is left out.
    pub unit: Option<u8>,
    /// Why.
    pub reason: String,
}

/// The index written as `index.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DumpIndex {
    /// The capture's file name.
    pub capture: String,
    /// Distinct textures in order of first use.
    pub textures: Vec<DumpedTexture>,
    /// What was left out.
    pub skipped: Vec<SkippedUnit>,
}

/// Why a dump stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DumpError {
    /// A file could not be written.
    #[error("cannot write {}", path.display())]
    Write {
        /// The file.
        path: std::path::PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// An image could not be encoded.
    #[error("cannot encode {file}: {reason}")]
    Encode {
        /// The file.
        file: String,
        /// Why.
        reason: String,
    },
}

/// What makes two units' textures the same: the bytes' hash, the format and the geometry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Identity {
    hash: u64,
    format: u8,
    dimension: u8,
    cubemap: bool,
    width: u16,
    height: u16,
    depth: u16,
    levels: u32,
    linear: bool,
    pitch: u32,
    border: u8,
}

/// xxh3-64 of a texture's stored bytes (the content hash the dump names files by).
pub fn content_hash(stored: &StoredTexture<'_>) -> u64 {
    let mut h = Xxh3::new();
    for bytes in stored.bytes() {
        h.update(bytes);
    }
    h.digest()
}

/// Dump the textures of `frame` (capture file name `capture`) into `dir`, which must exist,
/// advancing `progress` by one per draw.
pub fn dump_textures(
    frame: &Frame,
    capture: &str,
    options: &DumpOptions,
    dir: &Path,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<DumpIndex, DumpError> {
    let mut index = DumpIndex {
        capture: capture.to_string(),
        textures: Vec::new(),
        skipped: Vec::new(),
    };
    let draws: Vec<&Draw> = match options.draw {
        Some(d) => match frame.draws.get(d) {
            Some(draw) => vec![draw],
            None => {
                index.skipped.push(SkippedUnit {
                    draw: d,
                    stage: None,
                    unit: None,
                    reason: format!(
                        "draw {d} does not exist: the capture has {} draws",
                        frame.draws.len()
                    ),
                });
                Vec::new()
            }
        },
        None => frame.draws.iter().collect(),
    };
    let mut known: HashMap<Identity, usize> = HashMap::new();
    let mut names_per_hash: HashMap<u64, usize> = HashMap::new();
    if let Some(bar) = progress {
        bar.set_length(draws.len() as u64);
    }
    for draw in draws {
        if let Some(bar) = progress {
            bar.inc(1);
        }
        let Some(memory) = frame.memory(draw.index) else {
            continue;
        };
        let units = draw
            .textures
            .iter()
            .zip(0u8..)
            .map(|(t, u)| (Stage::Fragment, u, t))
            .chain(
                draw.vertex_textures
                    .iter()
                    .zip(0u8..)
                    .map(|(t, u)| (Stage::Vertex, u, t)),
            );
        for (stage, unit, texture) in units {
            if !texture.control0.enabled {
                continue;
            }
            let skip = |reason: String| SkippedUnit {
                draw: draw.index,
                stage: Some(stage),
                unit: Some(unit),
                reason,
            };
            let stored = match read_stored(unit, texture, &memory) {
                Ok(s) => s,
                Err(e) => {
                    index.skipped.push(skip(e.to_string()));
                    continue;
                }
            };
            let identity = identity(&stored, texture);
            let texture_use = texture_use(draw.index, stage, unit, texture);
            if let Some(&at) = known.get(&identity) {
                index.textures[at].uses.push(texture_use);
                continue;
            }
            let seen = names_per_hash.entry(identity.hash).or_insert(0);
            let name = match *seen {
                0 => format!("{:016x}", identity.hash),
                k => format!("{:016x}-{k}", identity.hash),
            };
            *seen += 1;
            // The format's own channels: the default remap, not the unit's.
            let mut plain = *texture;
            plain.remap = 0xAAE4;
            plain.remap_override = 0;
            let decoded = match decode_texture(unit, &plain, &memory) {
                Ok(d) => d,
                Err(e) => {
                    index.skipped.push(skip(e.to_string()));
                    continue;
                }
            };
            let mut dumped = describe(&name, &stored, texture, identity.hash);
            dumped.tile_region = tile_region(frame, draw, &dumped);
            write_images(&decoded, &mut dumped, options.mips, dir)?;
            if stored.format.is_dxt() {
                dumped.dds = Some(write_dds(&stored, &name, dir)?);
            }
            dumped.uses.push(texture_use);
            known.insert(identity, index.textures.len());
            index.textures.push(dumped);
        }
    }
    let path = dir.join("index.json");
    let mut text = serde_json::to_string_pretty(&index).map_err(|e| DumpError::Encode {
        file: "index.json".into(),
        reason: e.to_string(),
    })?;
    text.push('\n');
    std::fs::write(&path, text).map_err(|source| DumpError::Write { path, source })?;
    Ok(index)
}

/// The tile region bound at `draw` over the texture's bytes.
fn tile_region(frame: &Frame, draw: &Draw, t: &DumpedTexture) -> Option<usize> {
    let end = u64::from(t.offset) + t.bytes;
    let bound = frame.regions.at(draw.end_command)?;
    let tile = bound.tiles.iter().find(|tile| {
        let r = &tile.region;
        r.location == t.location && u64::from(r.offset) < end && r.end() > u64::from(t.offset)
    })?;
    Some(tile.index)
}

fn identity(stored: &StoredTexture<'_>, texture: &Texture) -> Identity {
    let f = &texture.format;
    Identity {
        hash: content_hash(stored),
        format: stored.format.code(),
        dimension: f.dimension,
        cubemap: f.cubemap,
        width: texture.width,
        height: texture.height,
        depth: texture.depth,
        levels: stored.levels,
        linear: f.linear,
        pitch: if f.linear { texture.pitch } else { 0 },
        border: f.border_type,
    }
}

fn texture_use(draw: usize, stage: Stage, unit: u8, t: &Texture) -> TextureUse {
    let remap = (u32::from(t.remap_override) << 16) | u32::from(t.remap);
    TextureUse {
        draw,
        stage,
        unit,
        remap: format!("0x{remap:08x}"),
        default_remap: remap == 0xAAE4,
        signed: t.filter.argb_signed,
        gamma: t.address.gamma,
        unsigned_remap: t.address.unsigned_remap,
        unnormalized: t.format.unnormalized,
    }
}

/// Formats whose channels are wider than 8 bits: dumped as 16-bit PNG.
fn wide(format: TexelFormat) -> bool {
    use TexelFormat::*;
    matches!(
        format,
        Depth24D8
            | Depth24D8Float
            | Depth16
            | Depth16Float
            | X16
            | Y16X16
            | W16Z16Y16X16Float
            | W32Z32Y32X32Float
            | X32Float
            | Y16X16Float
    )
}

fn describe(name: &str, stored: &StoredTexture<'_>, texture: &Texture, hash: u64) -> DumpedTexture {
    let level0 = stored.subresources.first().map(|(s, _)| *s);
    DumpedTexture {
        name: name.to_string(),
        hash: format!("{hash:016x}"),
        format: texture
            .format
            .base_format
            .name
            .unwrap_or("unknown")
            .to_string(),
        format_code: stored.format.code(),
        dimension: match stored.dimension {
            Dimension::D1 => "1d",
            Dimension::D2 => "2d",
            Dimension::D3 => "3d",
            Dimension::Cube => "cube",
        },
        width: level0.map_or(0, |s| s.width),
        height: level0.map_or(0, |s| s.height),
        depth: level0.map_or(0, |s| s.depth),
        layers: stored.layers,
        levels: stored.levels,
        layout: if texture.format.linear {
            "linear"
        } else {
            "swizzled"
        },
        location: stored.location,
        offset: stored.offset,
        bytes: stored.bytes().map(|b| b.len() as u64).sum(),
        tile_region: None,
        bit_depth: if wide(stored.format) { 16 } else { 8 },
        clamped: false,
        files: Vec::new(),
        dds: None,
        uses: Vec::new(),
    }
}

const FACES: [&str; 6] = ["px", "nx", "py", "ny", "pz", "nz"];

/// The PNG of every face, slice and (with `mips`) level of `decoded`.
fn write_images(
    decoded: &DecodedTexture,
    dumped: &mut DumpedTexture,
    mips: bool,
    dir: &Path,
) -> Result<(), DumpError> {
    let levels = if mips { decoded.levels } else { 1 };
    for layer in 0..decoded.layers {
        for level in 0..levels {
            let Some(image) = decoded.level(layer, level) else {
                continue;
            };
            for slice in 0..image.depth {
                let mut file = dumped.name.clone();
                if decoded.dimension == Dimension::Cube {
                    file.push('-');
                    file.push_str(FACES.get(layer as usize).copied().unwrap_or("face"));
                }
                if decoded.dimension == Dimension::D3 {
                    file.push_str(&format!("-z{slice}"));
                }
                if level > 0 {
                    file.push_str(&format!("-mip{level}"));
                }
                file.push_str(".png");
                let texels = (image.width as usize) * (image.height as usize);
                let start = slice as usize * texels;
                let pixels = image.texels.get(start..start + texels).unwrap_or(&[]);
                let (bytes, clamped) =
                    encode_png(image.width, image.height, pixels, dumped.bit_depth == 16).map_err(
                        |reason| DumpError::Encode {
                            file: file.clone(),
                            reason,
                        },
                    )?;
                dumped.clamped |= clamped;
                let path = dir.join(&file);
                std::fs::write(&path, bytes).map_err(|source| DumpError::Write { path, source })?;
                dumped.files.push(DumpedFile {
                    file,
                    layer,
                    slice,
                    level,
                    width: image.width,
                    height: image.height,
                });
            }
        }
    }
    Ok(())
}

/// An RGBA PNG of `texels` (8 or 16 bits per channel), and whether a value was clamped.
pub fn encode_png(
    width: u32,
    height: u32,
    texels: &[[f32; 4]],
    sixteen: bool,
) -> Result<(Vec<u8>, bool), String> {
    let mut clamped = false;
    let mut data = Vec::with_capacity(texels.len() * if sixteen { 8 } else { 4 });
    for texel in texels {
        for &c in texel {
            if !(0.0..=1.0).contains(&c) {
                clamped = true;
            }
            let c = if c.is_nan() { 0.0 } else { c.clamp(0.0, 1.0) };
            if sixteen {
                data.extend_from_slice(&((c * 65535.0).round() as u16).to_be_bytes());
            } else {
                data.push((c * 255.0).round() as u8);
            }
        }
    }
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(if sixteen {
            png::BitDepth::Sixteen
        } else {
            png::BitDepth::Eight
        });
        let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
        writer.write_image_data(&data).map_err(|e| e.to_string())?;
    }
    Ok((out, clamped))
}

/// The DDS file of a DXT texture: every face and level, the blocks as stored.
pub fn dds_bytes(stored: &StoredTexture<'_>) -> Result<Vec<u8>, String> {
    let format = match stored.format {
        TexelFormat::Dxt1 => D3DFormat::DXT1,
        TexelFormat::Dxt23 => D3DFormat::DXT3,
        TexelFormat::Dxt45 => D3DFormat::DXT5,
        other => return Err(format!("{other:?} is not a DXT format")),
    };
    let level0 = stored
        .subresources
        .first()
        .map(|(s, _)| *s)
        .ok_or("no sub-resource")?;
    let caps2 = match stored.dimension {
        Dimension::Cube => Some(Caps2::CUBEMAP | Caps2::CUBEMAP_ALLFACES),
        Dimension::D3 => Some(Caps2::VOLUME),
        _ => None,
    };
    let mut dds = Dds::new_d3d(NewD3dParams {
        height: level0.height,
        width: level0.width,
        depth: (stored.dimension == Dimension::D3).then_some(level0.depth),
        format,
        mipmap_levels: Some(stored.levels),
        caps2,
    })
    .map_err(|e| e.to_string())?;
    if stored.dimension == Dimension::Cube {
        dds.header.caps.insert(Caps::COMPLEX);
    }
    let mut data = Vec::new();
    for i in 0..stored.subresources.len() {
        data.extend(
            stored
                .packed_blocks(i)
                .ok_or("a sub-resource is incomplete")?,
        );
    }
    dds.data = data;
    let mut out = Vec::new();
    dds.write(&mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

fn write_dds(stored: &StoredTexture<'_>, name: &str, dir: &Path) -> Result<String, DumpError> {
    let file = format!("{name}.dds");
    let bytes = dds_bytes(stored).map_err(|reason| DumpError::Encode {
        file: file.clone(),
        reason,
    })?;
    let path = dir.join(&file);
    std::fs::write(&path, bytes).map_err(|source| DumpError::Write { path, source })?;
    Ok(file)
}
