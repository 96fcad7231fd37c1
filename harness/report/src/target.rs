//! A draw's first colour target as bytes: where it lies ([`TargetPlace`], from the draw's
//! surface state with the renderers' own layout rule), a copy of its bytes at one moment
//! ([`TargetBytes`], hashed so that a draw that changed nothing is told apart cheaply), and
//! that copy decoded to 8-bit RGBA, resolved when multisampled, as the renderers show their
//! output.

use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::frame::state::Surface;
use rsxtrace_capture::rrc::Location;
use rsxtrace_replay::render::msaa::Antialias;
use rsxtrace_replay::render::state::{color_targets, ColorFormat};
use rsxtrace_replay::render::surface::{
    bytes_per_pixel, output_image, OutputSurface, SurfaceLayout, TARGET_NAMES,
};
use rsxtrace_replay::render::{OutputSource, Rgba8Image};
use std::sync::{Arc, OnceLock};
use xxhash_rust::xxh3::{xxh3_128_with_seed, xxh3_64};

/// Where a draw's first colour target lies and how it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TargetPlace {
    /// Target index (0..4 = A..D).
    pub index: usize,
    /// Memory layout (the sample grid of a multisampled surface).
    pub layout: SurfaceLayout,
    /// Colour format.
    pub format: ColorFormat,
    /// Sample grid.
    pub antialias: Antialias,
}

impl TargetPlace {
    /// The first colour target `surface` writes, or why there is none.
    pub fn of(surface: &Surface) -> Result<TargetPlace, String> {
        let raw = surface.format.color_format.raw;
        let format =
            ColorFormat::from_raw(raw).ok_or_else(|| format!("colour format {raw} is unknown"))?;
        let targets = color_targets(surface.color_target.raw).ok_or_else(|| {
            format!(
                "SET_SURFACE_COLOR_TARGET 0x{:x} is no target selection",
                surface.color_target.raw
            )
        })?;
        let &index = targets
            .first()
            .ok_or_else(|| "the draw writes no colour target".to_string())?;
        let layout = SurfaceLayout::of_target(surface, index, bytes_per_pixel(format))
            .map_err(|e| e.to_string())?;
        Ok(TargetPlace {
            index,
            layout,
            format,
            antialias: Antialias::of(surface),
        })
    }

    /// Target name, `A`..`D`.
    pub fn name(&self) -> &'static str {
        TARGET_NAMES.get(self.index).copied().unwrap_or("?")
    }

    /// Bytes the target spans.
    fn byte_len(&self) -> Option<u32> {
        u32::try_from(self.layout.byte_len()).ok()
    }

    /// The target's bytes in `memory` now, or `None` when memory does not hold them whole.
    pub fn read<'m>(&self, memory: &'m dyn GuestMemory) -> Option<&'m [u8]> {
        memory.read(self.layout.location, self.layout.offset, self.byte_len()?)
    }

    /// A hash of the target's bytes in `memory` (with its place), or `None` as [`Self::read`].
    pub fn hash(&self, memory: &dyn GuestMemory) -> Option<u128> {
        self.read(memory).map(|b| self.hash_bytes(b))
    }

    fn hash_bytes(&self, bytes: &[u8]) -> u128 {
        // The place seeds a one-shot hash of the bytes (faster than streaming them).
        let l = &self.layout;
        let mut place = Vec::with_capacity(64);
        for v in [
            l.offset,
            l.pitch,
            l.bpp,
            l.width,
            l.height,
            self.index as u32,
        ] {
            place.extend_from_slice(&v.to_le_bytes());
        }
        place.push(u8::from(l.location == Location::Main));
        place.extend_from_slice(format!("{:?}{:?}", self.format, self.antialias).as_bytes());
        xxh3_128_with_seed(bytes, xxh3_64(&place))
    }

    /// A copy of the target's bytes in `memory`, or `None` as [`Self::read`].
    pub fn copy(&self, memory: &dyn GuestMemory) -> Option<Arc<TargetBytes>> {
        let bytes = self.read(memory)?;
        Some(Arc::new(TargetBytes {
            place: *self,
            hash: self.hash_bytes(bytes),
            bytes: bytes.to_vec(),
            image: OnceLock::new(),
            view: OnceLock::new(),
        }))
    }
}

/// A target's bytes at one moment, decoded on first use.
#[derive(Debug)]
pub struct TargetBytes {
    /// Where they came from.
    pub place: TargetPlace,
    /// [`TargetPlace::hash`] of them.
    pub hash: u128,
    bytes: Vec<u8>,
    image: OnceLock<Rgba8Image>,
    view: OnceLock<Rgba8Image>,
}

impl TargetBytes {
    /// The target as 8-bit RGBA (resolved when multisampled), decoded once.
    pub fn image(&self) -> &Rgba8Image {
        self.image.get_or_init(|| {
            let output = OutputSurface {
                source: OutputSource::LastColorTarget {
                    address: self.place.layout.offset,
                    format: self.place.format.name().to_string(),
                },
                layout: self.place.layout,
                format: self.place.format,
                antialias: self.place.antialias,
            };
            output_image(&output, self)
        })
    }
}

impl TargetBytes {
    /// [`Self::image`] scaled down to fit `max_w` x `max_h` (area average), made once: every
    /// call must ask for the same box.
    pub fn view(&self, max_w: u32, max_h: u32) -> &Rgba8Image {
        self.view
            .get_or_init(|| crate::pixels::downscale(self.image(), max_w, max_h))
    }
}

impl GuestMemory for TargetBytes {
    fn read(&self, location: Location, offset: u32, len: u32) -> Option<&[u8]> {
        if location != self.place.layout.location {
            return None;
        }
        let start = offset.checked_sub(self.place.layout.offset)? as usize;
        self.bytes.get(start..start.checked_add(len as usize)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_capture::frame::state::{color_target, Rect, SurfaceFormat, SurfaceTarget};

    /// Guest memory holding `bytes` at local offset 0.
    struct Local(Vec<u8>);

    impl GuestMemory for Local {
        fn read(&self, location: Location, offset: u32, len: u32) -> Option<&[u8]> {
            let start = offset as usize;
            (location == Location::Local)
                .then(|| self.0.get(start..start.checked_add(len as usize)?))
                .flatten()
        }
    }

    fn surface_2x2_argb8() -> Surface {
        let target = SurfaceTarget {
            offset: 0,
            pitch: 8,
            location: Some(Location::Local),
            dma: 0xFEED_0000,
        };
        Surface {
            // A8R8G8B8 (8), pitch surface (1).
            format: SurfaceFormat::from_raw(8 | (1 << 8)),
            color_target: color_target(1),
            color: [target; 4],
            zeta: target,
            clip: Rect {
                x: 0,
                y: 0,
                width: 2,
                height: 2,
            },
            window_offset_x: 0,
            window_offset_y: 0,
            depth_float: false,
        }
    }

    #[test]
    fn a_copy_decodes_and_hashes_with_its_bytes() {
        let place = TargetPlace::of(&surface_2x2_argb8()).expect("target A");
        assert_eq!(place.name(), "A");
        // A8R8G8B8 stored as A, R, G, B: red, green, blue, white.
        let mut bytes = vec![
            255, 255, 0, 0, 255, 0, 255, 0, //
            255, 0, 0, 255, 255, 255, 255, 255,
        ];
        let memory = Local(bytes.clone());
        let copy = place.copy(&memory).expect("readable");
        assert_eq!(Some(copy.hash), place.hash(&memory));
        let image = copy.image();
        assert_eq!((image.width, image.height), (2, 2));
        assert_eq!(image.pixel(0, 0), Some([255, 0, 0, 255]));
        assert_eq!(image.pixel(1, 1), Some([255, 255, 255, 255]));
        bytes[1] = 0;
        assert_ne!(place.hash(&Local(bytes)), Some(copy.hash));
        assert!(place.hash(&Local(vec![0; 4])).is_none(), "too short");
    }

    #[test]
    fn no_colour_target_is_said() {
        let mut s = surface_2x2_argb8();
        s.color_target = color_target(0);
        assert!(TargetPlace::of(&s).is_err());
    }
}
