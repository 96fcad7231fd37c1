//! libgcm-style texture calls: the texture unit registers of rrc-format.md 4.7, and the byte
//! size the END draw attaches for each enabled unit (RPCS3 sums the unit's sub-resource
//! layout; the builder takes the caller's figure).

use rsxtrace_rrc::Location;

use crate::builder::{check_range, CaptureBuilder, FRAGMENT_TEXTURE_UNITS, VERTEX_TEXTURE_UNITS};
use crate::error::BuildError;
use crate::methods as m;

/// One texture unit's state, field by field as the registers hold it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextureDesc {
    /// Offset of the texel data in `location`.
    pub offset: u32,
    /// Where the texel data lies.
    pub location: Location,
    /// `CELL_GCM_TEXTURE_*` format byte (0x81..0x9F, with the LN 0x20 / UN 0x40 flags).
    pub format: u8,
    /// Dimension: 1, 2 or 3.
    pub dimension: u8,
    /// Cube map flag (FORMAT bit 2).
    pub cubemap: bool,
    /// Mipmap levels (FORMAT bits 16..31).
    pub mipmaps: u16,
    /// Width in texels.
    pub width: u16,
    /// Height in texels.
    pub height: u16,
    /// Depth (CONTROL3 bits 20..31).
    pub depth: u16,
    /// Pitch in bytes (CONTROL3 bits 0..19).
    pub pitch: u32,
    /// ADDRESS word: wrap s/t/r, remap and compare bits.
    pub address: u32,
    /// CONTROL0 word; the enable bit 31 is set by `set_texture`.
    pub control0: u32,
    /// CONTROL1 channel remap (fragment units only).
    pub remap: u32,
    /// FILTER word.
    pub filter: u32,
    /// BORDER_COLOR (ARGB8).
    pub border_color: u32,
    /// Bytes of texel data a draw attaches (all mips and faces).
    pub byte_size: u32,
    /// The texels include a one-texel border (FORMAT bit 3 clear: `CELL_GCM_TEXTURE_BORDER_TEXTURE`);
    /// `false` (the usual case) sets bit 3, border texels come from BORDER_COLOR instead.
    pub border_texels: bool,
}

impl Default for TextureDesc {
    /// A 1x1 2D A8R8G8B8 linear texture in local memory at offset 0, wrap/clamp defaults.
    fn default() -> Self {
        TextureDesc {
            offset: 0,
            location: Location::Local,
            format: 0x85 | 0x20, // A8R8G8B8 | LN
            dimension: 2,
            cubemap: false,
            mipmaps: 1,
            width: 1,
            height: 1,
            depth: 1,
            pitch: 4,
            address: 0x0003_0101, // wrap s = 1, wrap t = 1, wrap r = 3
            control0: 0,
            remap: 0xAAE4,       // REMAP on all four channels, A R G B source order
            filter: 0x0202_0000, // min filter 2 (bits 16..18), mag filter 2 (bits 24..26)
            border_color: 0,
            byte_size: 4,
            border_texels: false,
        }
    }
}

impl TextureDesc {
    /// The FORMAT register word (4.7).
    pub fn format_word(&self) -> u32 {
        let loc = match self.location {
            Location::Local => 1,
            Location::Main => 2,
        };
        loc | (u32::from(self.cubemap) << 2)
            | (u32::from(!self.border_texels) << 3)
            | (u32::from(self.dimension & 0xF) << 4)
            | (u32::from(self.format) << 8)
            | (u32::from(self.mipmaps) << 16)
    }

    /// The IMAGE_RECT register word: height bits 0..15, width bits 16..31.
    pub fn image_rect(&self) -> u32 {
        u32::from(self.height) | (u32::from(self.width) << 16)
    }

    /// The CONTROL3 register word: pitch bits 0..19, depth bits 20..31.
    pub fn control3(&self) -> u32 {
        (self.pitch & 0xF_FFFF) | (u32::from(self.depth & 0xFFF) << 20)
    }

    fn check(&self) -> Result<(), BuildError> {
        check_range("texture offset", u64::from(self.offset), 1 << 31)?;
        check_range("texture pitch", u64::from(self.pitch), 1 << 20)?;
        check_range("texture depth", u64::from(self.depth), 1 << 12)?;
        if !(1..=3).contains(&self.dimension) {
            return Err(BuildError::InvalidArgument {
                what: "texture dimension",
                detail: format!("{} is not 1..3", self.dimension),
            });
        }
        Ok(())
    }
}

impl CaptureBuilder {
    /// Write fragment texture unit `unit` (0..15): OFFSET, FORMAT, ADDRESS, CONTROL0 (enabled),
    /// CONTROL1, FILTER, IMAGE_RECT, BORDER_COLOR, CONTROL3. The texel bytes must be placed
    /// with `put_memory`; `desc.byte_size` of them are attached to each later draw.
    pub fn set_texture(&mut self, unit: u32, desc: &TextureDesc) -> Result<(), BuildError> {
        check_range(
            "fragment texture unit",
            u64::from(unit),
            FRAGMENT_TEXTURE_UNITS as u64,
        )?;
        desc.check()?;
        let s = m::TEXTURE_UNIT_STRIDE * unit;
        self.record(m::TEXTURE_OFFSET + s, desc.offset);
        self.record(m::TEXTURE_FORMAT + s, desc.format_word());
        self.record(m::TEXTURE_ADDRESS + s, desc.address);
        self.record(m::TEXTURE_CONTROL0 + s, desc.control0 | (1 << 31));
        self.record(m::TEXTURE_CONTROL1 + s, desc.remap);
        self.record(m::TEXTURE_FILTER + s, desc.filter);
        self.record(m::TEXTURE_IMAGE_RECT + s, desc.image_rect());
        self.record(m::TEXTURE_BORDER_COLOR + s, desc.border_color);
        self.record(m::TEXTURE_CONTROL3 + unit, desc.control3());
        if let Some(size) = self.texture_sizes.get_mut(unit as usize) {
            *size = desc.byte_size;
        }
        Ok(())
    }

    /// Disable fragment texture unit `unit` (CONTROL0 = 0).
    pub fn disable_texture(&mut self, unit: u32) -> Result<(), BuildError> {
        check_range(
            "fragment texture unit",
            u64::from(unit),
            FRAGMENT_TEXTURE_UNITS as u64,
        )?;
        self.record(m::TEXTURE_CONTROL0 + m::TEXTURE_UNIT_STRIDE * unit, 0);
        Ok(())
    }

    /// Write vertex texture unit `unit` (0..3): OFFSET, FORMAT, ADDRESS, CONTROL0 (enabled),
    /// CONTROL3, FILTER, IMAGE_RECT, BORDER_COLOR (`remap` is not used).
    pub fn set_vertex_texture(&mut self, unit: u32, desc: &TextureDesc) -> Result<(), BuildError> {
        check_range(
            "vertex texture unit",
            u64::from(unit),
            VERTEX_TEXTURE_UNITS as u64,
        )?;
        desc.check()?;
        let s = m::TEXTURE_UNIT_STRIDE * unit;
        self.record(m::VERTEX_TEXTURE_OFFSET + s, desc.offset);
        self.record(m::VERTEX_TEXTURE_FORMAT + s, desc.format_word());
        self.record(m::VERTEX_TEXTURE_ADDRESS + s, desc.address);
        self.record(m::VERTEX_TEXTURE_CONTROL0 + s, desc.control0 | (1 << 31));
        self.record(m::VERTEX_TEXTURE_CONTROL3 + s, desc.control3());
        self.record(m::VERTEX_TEXTURE_FILTER + s, desc.filter);
        self.record(m::VERTEX_TEXTURE_IMAGE_RECT + s, desc.image_rect());
        self.record(m::VERTEX_TEXTURE_BORDER_COLOR + s, desc.border_color);
        if let Some(size) = self.vertex_texture_sizes.get_mut(unit as usize) {
            *size = desc.byte_size;
        }
        Ok(())
    }
}
