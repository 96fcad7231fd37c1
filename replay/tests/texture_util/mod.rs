//! Shared helpers of the texture tests: a guest memory made of blocks, and texture unit state
//! built from raw register words (rrc-format.md 4.7) so that the frame model's own register
//! decoding is exercised.
#![allow(dead_code)]

use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::frame::state::{Texture, TextureRegs};
use rsxtrace_capture::rrc::Location;
use rsxtrace_replay::texture::{LodSource, SampleRequest};

/// Blocks of captured memory.
#[derive(Default)]
pub struct Mem {
    pub blocks: Vec<(Location, u32, Vec<u8>)>,
}

impl Mem {
    pub fn local(offset: u32, bytes: Vec<u8>) -> Mem {
        Mem {
            blocks: vec![(Location::Local, offset, bytes)],
        }
    }
}

impl GuestMemory for Mem {
    fn read(
        &self,
        location: Location,
        offset: u32,
        len: u32,
    ) -> Option<std::borrow::Cow<'_, [u8]>> {
        self.blocks
            .iter()
            .find_map(|(l, start, bytes)| {
                if *l != location {
                    return None;
                }
                let rel = offset.checked_sub(*start)? as usize;
                bytes.get(rel..rel.checked_add(len as usize)?)
            })
            .map(std::borrow::Cow::Borrowed)
    }
}

/// Texture unit description, turned into register words by [`Tex::texture`].
#[derive(Clone, Copy)]
pub struct Tex {
    pub offset: u32,
    /// FORMAT bits 0..1 (location + 1): 1 local, 2 main.
    pub location_plus_one: u32,
    pub format: u8,
    pub linear: bool,
    pub unnormalized: bool,
    pub dimension: u32,
    pub cubemap: bool,
    pub mips: u32,
    pub width: u32,
    pub height: u32,
    pub depth: u32,
    pub pitch: u32,
    pub wrap: [u32; 3],
    pub unsigned_remap: u32,
    pub gamma: u32,
    pub enabled: bool,
    /// 4.8 fixed point.
    pub min_lod: u32,
    pub max_lod: u32,
    pub remap: u32,
    /// FILTER bits 0..12 (signed 4.8).
    pub bias: u32,
    pub min_filter: u32,
    pub mag_filter: u32,
    pub argb_signed: u32,
    pub border_color: u32,
}

impl Tex {
    /// A 2D, enabled, nearest-filtered, clamp-to-edge, identity-remap (0xAAE4) texture in
    /// local memory at offset 0, no border texels (FORMAT bit 3 = 1).
    pub fn new(format: u8, width: u32, height: u32) -> Tex {
        Tex {
            offset: 0,
            location_plus_one: 1,
            format,
            linear: false,
            unnormalized: false,
            dimension: 2,
            cubemap: false,
            mips: 1,
            width,
            height,
            depth: 1,
            pitch: 0,
            wrap: [3, 3, 3],
            unsigned_remap: 0,
            gamma: 0,
            enabled: true,
            min_lod: 0,
            max_lod: 12 << 8,
            remap: 0xAAE4,
            bias: 0,
            min_filter: 1,
            mag_filter: 1,
            argb_signed: 0,
            border_color: 0,
        }
    }

    /// Linear (LN) layout with `pitch` bytes per row.
    pub fn linear(mut self, pitch: u32) -> Tex {
        self.linear = true;
        self.pitch = pitch;
        self
    }

    pub fn regs(&self) -> TextureRegs {
        let fmt = u32::from(self.format)
            | if self.linear { 0x20 } else { 0 }
            | if self.unnormalized { 0x40 } else { 0 };
        TextureRegs {
            offset: self.offset,
            format: self.location_plus_one
                | (u32::from(self.cubemap) << 2)
                | (1 << 3)
                | (self.dimension << 4)
                | (fmt << 8)
                | (self.mips << 16),
            address: self.wrap[0]
                | (self.wrap[1] << 8)
                | (self.unsigned_remap << 12)
                | (self.wrap[2] << 16)
                | (self.gamma << 20),
            control0: (u32::from(self.enabled) << 31) | (self.min_lod << 19) | (self.max_lod << 7),
            control1: self.remap,
            control2: 0,
            filter: (self.bias & 0x1FFF)
                | (self.min_filter << 16)
                | (self.mag_filter << 24)
                | (self.argb_signed << 28),
            image_rect: (self.width << 16) | self.height,
            border_color: self.border_color,
            control3: (self.depth << 20) | self.pitch,
        }
    }

    pub fn texture(&self) -> Texture {
        Texture::from_regs(&self.regs())
    }
}

/// A request at `coord` with zero derivatives (magnification, level 0).
pub fn at(coord: [f32; 4]) -> SampleRequest {
    SampleRequest {
        coord,
        ddx: [0.0; 4],
        ddy: [0.0; 4],
        lod: LodSource::Implicit,
    }
}

/// A 2D request at (s, t).
pub fn at2(s: f32, t: f32) -> SampleRequest {
    at([s, t, 0.0, 1.0])
}

/// Compare with a small tolerance, printing both vectors on failure.
#[track_caller]
pub fn assert_close(got: [f32; 4], want: [f32; 4]) {
    for i in 0..4 {
        assert!(
            (got[i] - want[i]).abs() <= 1e-5 || (got[i].is_nan() && want[i].is_nan()),
            "channel {i}: got {got:?}, want {want:?}"
        );
    }
}

/// The texel centre of texel `i` of `n` in normalised coordinates.
pub fn centre(i: u32, n: u32) -> f32 {
    (i as f32 + 0.5) / n as f32
}
