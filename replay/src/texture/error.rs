//! Errors of texture decoding: what stops a texture unit's image from being built.
//!
//! Every error names the texture unit; memory errors also name the location, the address and
//! the sub-resource (layer = cube face, mip level) being read.

use rsxtrace_capture::rrc::Location;
use thiserror::Error;

/// Why a texture unit's image could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum TextureError {
    /// The capture does not hold the texel bytes of a sub-resource.
    #[error(
        "texture unit {unit}: capture holds no memory at {location:?} offset {offset:#x} \
         ({len} bytes, layer {layer}, level {level})"
    )]
    MissingMemory {
        /// Texture unit (0..16 fragment).
        unit: u8,
        /// Memory location of the texture.
        location: Location,
        /// Offset of the first byte of the sub-resource in `location`.
        offset: u32,
        /// Number of bytes needed.
        len: u32,
        /// Layer (cube face 0..6, else 0).
        layer: u8,
        /// Mip level.
        level: u16,
    },
    /// A sub-resource lies beyond the 4 GiB offset space.
    #[error("texture unit {unit}: layer {layer} level {level} ends beyond offset 0xffffffff (base {base:#x})")]
    AddressOverflow {
        /// Texture unit.
        unit: u8,
        /// Base offset of the texture.
        base: u32,
        /// Layer.
        layer: u8,
        /// Mip level.
        level: u16,
    },
    /// FORMAT bits 0..1 hold 0 or 3 (no location).
    #[error("texture unit {unit}: FORMAT field location is invalid (bits 0..1 = 0 or 3)")]
    NoLocation {
        /// Texture unit.
        unit: u8,
    },
    /// The base format (FORMAT bits 8..15 without LN/UN) is not decoded by this model.
    #[error("texture unit {unit}: unsupported texture format {format:#04x}")]
    UnsupportedFormat {
        /// Texture unit.
        unit: u8,
        /// The base format code.
        format: u8,
    },
    /// FORMAT bits 4..7 are not 1, 2 or 3, or a cube map is not 2D.
    #[error("texture unit {unit}: invalid dimension field {dimension} (cubemap {cubemap})")]
    BadDimension {
        /// Texture unit.
        unit: u8,
        /// The dimension field.
        dimension: u8,
        /// The cube map flag.
        cubemap: bool,
    },
    /// IMAGE_RECT or CONTROL3 give a zero width, height or depth.
    #[error("texture unit {unit}: empty image {width}x{height}x{depth}")]
    EmptyImage {
        /// Texture unit.
        unit: u8,
        /// Width in texels.
        width: u32,
        /// Height in texels.
        height: u32,
        /// Depth in texels.
        depth: u32,
    },
    /// The decoded image would exceed [`MAX_DECODED_TEXELS`](super::MAX_DECODED_TEXELS).
    #[error("texture unit {unit}: {texels} decoded texels exceed the limit")]
    TooLarge {
        /// Texture unit.
        unit: u8,
        /// Texels the image would hold (all layers and levels).
        texels: u64,
    },
}
