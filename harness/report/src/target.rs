//! A draw's targets as bytes: where each lies ([`TargetPlace`], from the draw's surface state
//! with the renderers' own layout rule: its colour targets and, when it tests depth or
//! stencil, its depth surface, and that surface's stencil when the draw writes it), a copy of
//! its bytes at one moment ([`TargetBytes`], hashed so that a draw that changed nothing is
//! told apart cheaply), and that copy decoded to 8-bit RGBA, resolved when multisampled, as
//! the renderers show their output (a depth surface, or its stencil, as grey levels).

use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::frame::state::{RasterState, Surface};
use rsxtrace_capture::rrc::Location;
use rsxtrace_replay::render::surface::TARGET_NAMES;
use rsxtrace_replay::render::target::{
    colour_targets_of, depth_target_of, target_bits, target_image, uses_depth_surface,
    writes_stencil, NamedTarget, TargetFormat,
};
use rsxtrace_replay::render::Rgba8Image;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};
use xxhash_rust::xxh3::{xxh3_128_with_seed, xxh3_64};

/// Where one of a draw's targets lies and how it reads: a [`NamedTarget`] (its index, layout,
/// format and sample grid) with what the report does with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TargetPlace(pub NamedTarget);

impl From<NamedTarget> for TargetPlace {
    fn from(t: NamedTarget) -> TargetPlace {
        TargetPlace(t)
    }
}

impl Deref for TargetPlace {
    type Target = NamedTarget;
    fn deref(&self) -> &NamedTarget {
        &self.0
    }
}

impl TargetPlace {
    /// The first colour target `surface` writes, or why there is none.
    pub fn of(surface: &Surface) -> Result<TargetPlace, String> {
        colour_targets_of(surface)?
            .into_iter()
            .next()
            .ok_or_else(|| "the draw writes no colour target".to_string())?
            .map(TargetPlace::from)
    }

    /// The draw's other targets, in order: the colour targets after the first (MRT), then
    /// the depth surface when the draw reads or writes it ([`uses_depth_surface`]), then its
    /// stencil when the draw can change it ([`writes_stencil`]) and the format has one. Each
    /// is a place, or why it cannot be shown.
    pub fn others(surface: &Surface, raster: &RasterState) -> Vec<Result<TargetPlace, String>> {
        // A selection that is none: the first target's error already says it.
        let colour = colour_targets_of(surface).unwrap_or_default();
        let depth = uses_depth_surface(raster).then(|| depth_target_of(surface));
        let stencil = match &depth {
            Some(Ok(z)) if writes_stencil(raster) => z.stencil().map(Ok),
            _ => None,
        };
        colour
            .into_iter()
            .skip(1)
            .chain(depth)
            .chain(stencil)
            .map(|t| t.map(TargetPlace::from))
            .collect()
    }

    /// Target name, `A`..`D`, `Z` for the depth surface, `S` for its stencil.
    pub fn name(&self) -> &'static str {
        match self.format {
            TargetFormat::Stencil(_) => "S",
            TargetFormat::Depth(_) => "Z",
            TargetFormat::Color(_) => TARGET_NAMES.get(self.index).copied().unwrap_or("?"),
        }
    }

    /// Whether this is the stencil of the depth surface.
    pub fn is_stencil(&self) -> bool {
        self.format.is_stencil()
    }

    /// The format's lowercase name.
    pub fn format_name(&self) -> &'static str {
        self.format.name()
    }

    /// Whether this is the depth surface (or its stencil).
    pub fn is_depth(&self) -> bool {
        self.format.is_depth()
    }

    /// Bytes the target spans.
    fn byte_len(&self) -> Option<u32> {
        u32::try_from(self.layout.byte_len()).ok()
    }

    /// The target's bytes in `memory` now, or `None` when memory does not hold them whole.
    pub fn read<'m>(&self, memory: &'m dyn GuestMemory) -> Option<std::borrow::Cow<'m, [u8]>> {
        memory.read(self.layout.location, self.layout.offset, self.byte_len()?)
    }

    /// A hash of the target's bytes in `memory` (with its place), or `None` as [`Self::read`].
    pub fn hash(&self, memory: &dyn GuestMemory) -> Option<u128> {
        self.read(memory).map(|b| self.hash_bytes(&b))
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
        let seed = xxh3_64(&place);
        if self.is_stencil() {
            // The stencil alone: the last byte of each 32-bit depth-stencil word (formats
            // with stencil store `depth << 8 | stencil` big-endian), so that a draw that
            // changed only depth did not change the stencil.
            let stencil: Vec<u8> = bytes.iter().skip(3).step_by(4).copied().collect();
            return xxh3_128_with_seed(&stencil, seed);
        }
        xxh3_128_with_seed(bytes, seed)
    }

    /// A copy of the target's bytes in `memory`, or `None` as [`Self::read`].
    pub fn copy(&self, memory: &dyn GuestMemory) -> Option<Arc<TargetBytes>> {
        let bytes = self.read(memory)?;
        Some(Arc::new(TargetBytes {
            place: *self,
            hash: self.hash_bytes(&bytes),
            bytes: bytes.to_vec(),
            image: OnceLock::new(),
            view: OnceLock::new(),
            bits: OnceLock::new(),
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
    /// A depth surface's stored bits as an image ([`Self::compared`]).
    bits: OnceLock<Rgba8Image>,
}

impl TargetBytes {
    /// The target as 8-bit RGBA (resolved when multisampled), decoded once, as `replay
    /// --target` writes it (`render::target::target_image`: a depth surface, or its stencil,
    /// as grey levels).
    pub fn image(&self) -> &Rgba8Image {
        self.image.get_or_init(|| target_image(&self.place, self))
    }

    /// What tells two states of the target apart pixel by pixel (`render::target::target_bits`:
    /// [`Self::image`] for a colour target, the stored bits for a depth surface or its
    /// stencil, whose images' grey levels are fitted to each state's values).
    pub fn compared(&self) -> &Rgba8Image {
        match self.place.format {
            TargetFormat::Color(_) => self.image(),
            _ => self.bits.get_or_init(|| target_bits(&self.place, self)),
        }
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
    fn read(
        &self,
        location: Location,
        offset: u32,
        len: u32,
    ) -> Option<std::borrow::Cow<'_, [u8]>> {
        if location != self.place.layout.location {
            return None;
        }
        let start = offset.checked_sub(self.place.layout.offset)? as usize;
        self.bytes
            .get(start..start.checked_add(len as usize)?)
            .map(std::borrow::Cow::Borrowed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_capture::fetch::FlatMemory;
    use rsxtrace_capture::frame::state::{color_target, Rect, SurfaceFormat, SurfaceTarget};

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
        let memory = FlatMemory::local(bytes.clone());
        let copy = place.copy(&memory).expect("readable");
        assert_eq!(Some(copy.hash), place.hash(&memory));
        let image = copy.image();
        assert_eq!((image.width, image.height), (2, 2));
        assert_eq!(image.pixel(0, 0), Some([255, 0, 0, 255]));
        assert_eq!(image.pixel(1, 1), Some([255, 255, 255, 255]));
        bytes[1] = 0;
        assert_ne!(place.hash(&FlatMemory::local(bytes)), Some(copy.hash));
        assert!(
            place.hash(&FlatMemory::local(vec![0; 4])).is_none(),
            "too short"
        );
    }

    #[test]
    fn no_colour_target_is_said() {
        let mut s = surface_2x2_argb8();
        s.color_target = color_target(0);
        assert!(TargetPlace::of(&s).is_err());
    }

    /// Colour targets A and B (at 0 and 16) and a Z24S8 depth surface (at 32), 2x2 pitch 8.
    fn surface_mrt_with_depth() -> Surface {
        let mut surface = surface_2x2_argb8();
        // A8R8G8B8 (8), Z24S8 (2 << 5), pitch surface (1 << 8).
        surface.format = SurfaceFormat::from_raw(8 | (2 << 5) | (1 << 8));
        surface.color_target = color_target(0x13);
        surface.color[1].offset = 16;
        surface.zeta.offset = 32;
        surface
    }

    fn raster(depth_test: bool) -> RasterState {
        let mut raster = RasterState::from_regs(&vec![0; 0x4000]);
        raster.depth.test = depth_test;
        raster
    }

    #[test]
    fn the_other_targets_are_the_further_colour_targets_and_the_depth_surface_in_use() {
        let surface = surface_mrt_with_depth();
        let first = TargetPlace::of(&surface).expect("A");
        assert_eq!((first.name(), first.layout.offset), ("A", 0));
        let others = TargetPlace::others(&surface, &raster(true));
        let names: Vec<(&str, u32, bool)> = others
            .iter()
            .map(|p| {
                let p = p.as_ref().expect("a place");
                (p.name(), p.layout.offset, p.is_depth())
            })
            .collect();
        assert_eq!(names, [("B", 16, false), ("Z", 32, true)]);
        assert_eq!(others[1].as_ref().unwrap().format_name(), "z24s8");
        // Without the depth, stencil or depth bounds test the depth surface is not shown.
        assert_eq!(TargetPlace::others(&surface, &raster(false)).len(), 1);
        let mut stencil = raster(false);
        stencil.stencil.enabled = true;
        assert_eq!(TargetPlace::others(&surface, &stencil).len(), 2);
        // A depth-only pass: no colour target, the depth surface among the others.
        let mut depth_only = surface;
        depth_only.color_target = color_target(0);
        assert!(TargetPlace::of(&depth_only).is_err());
        let others = TargetPlace::others(&depth_only, &raster(true));
        assert_eq!(others.len(), 1);
        assert!(others[0].as_ref().unwrap().is_depth());
    }

    #[test]
    fn a_draw_that_writes_stencil_shows_it_apart_hashed_on_the_stencil_alone() {
        let surface = surface_mrt_with_depth();
        let mut writes = raster(true);
        writes.stencil.enabled = true;
        writes.stencil.front.write_mask = 0xFF;
        writes.stencil.front.fail.raw = 0x1E00;
        writes.stencil.front.zfail.raw = 0x1E00;
        writes.stencil.front.zpass.raw = 0x1E01; // REPLACE
        let others = TargetPlace::others(&surface, &writes);
        let names: Vec<&str> = others.iter().map(|p| p.as_ref().unwrap().name()).collect();
        assert_eq!(names, ["B", "Z", "S"]);
        let stencil = *others[2].as_ref().unwrap();
        assert!(stencil.is_stencil() && stencil.is_depth());
        // KEEP everywhere, or no write mask: the stencil cannot change, not shown.
        let mut keeps = writes;
        keeps.stencil.front.zpass.raw = 0x1E00;
        assert_eq!(TargetPlace::others(&surface, &keeps).len(), 2);
        let mut masked = writes;
        masked.stencil.front.write_mask = 0;
        assert_eq!(TargetPlace::others(&surface, &masked).len(), 2);

        // Z24S8 words depth << 8 | stencil: stencil 1, 1, 2, 3 as black .. white.
        let words = |depth: u32, stencils: [u8; 4]| {
            let mut memory = vec![0u8; 32];
            for s in stencils {
                memory.extend_from_slice(&((depth << 8) | u32::from(s)).to_be_bytes());
            }
            FlatMemory::local(memory)
        };
        let copy = stencil.copy(&words(5, [1, 1, 2, 3])).expect("readable");
        assert_eq!(copy.image().pixel(0, 0), Some([0, 0, 0, 255]));
        assert_eq!(copy.image().pixel(1, 1), Some([255, 255, 255, 255]));
        assert_eq!(copy.compared().pixel(1, 1), Some([3, 3, 3, 255]));
        // Another depth, the same stencil: the same stencil state; the depth surface's not.
        assert_eq!(stencil.hash(&words(9, [1, 1, 2, 3])), Some(copy.hash));
        assert_ne!(stencil.hash(&words(5, [1, 1, 2, 4])), Some(copy.hash));
        let depth = *others[1].as_ref().unwrap();
        assert_ne!(
            depth.hash(&words(9, [1, 1, 2, 3])),
            depth.hash(&words(5, [1, 1, 2, 3]))
        );
    }

    #[test]
    fn a_depth_surface_shows_as_grey_levels_fitted_to_its_range() {
        let surface = surface_mrt_with_depth();
        let place = TargetPlace::others(&surface, &raster(true))
            .pop()
            .unwrap()
            .unwrap();
        // Z24S8 big-endian words: depth << 8 | stencil.
        let word = |depth: u32, stencil: u8| ((depth << 8) | u32::from(stencil)).to_be_bytes();
        let full = 0xFF_FFFF;
        let depths = [
            (0x40_0000, 1),
            (full / 2, 2),
            (full, 3),
            (0x40_0000 + full / 4, 4),
        ];
        let mut memory = vec![0u8; 32];
        for (depth, stencil) in depths {
            memory.extend_from_slice(&word(depth, stencil));
        }
        let copy = place
            .copy(&FlatMemory::local(memory.clone()))
            .expect("readable");
        let image = copy.image();
        // 0.25 .. 1.0 fitted to black .. white.
        assert_eq!(image.pixel(0, 0), Some([0, 0, 0, 255]));
        assert_eq!(image.pixel(0, 1), Some([255, 255, 255, 255]));
        let grey = |x: u32, y: u32| image.pixel(x, y).unwrap()[0];
        assert!(
            (84..=86).contains(&grey(1, 0)),
            "0.5 of 0.25..1: {}",
            grey(1, 0)
        );
        assert!(
            (84..=86).contains(&grey(1, 1)),
            "0.5 of 0.25..1: {}",
            grey(1, 1)
        );
        // The stored bits tell states apart where the fitted grey would not: another stencil.
        let mut other = memory.clone();
        other[32 + 3] = 9;
        let changed = place.copy(&FlatMemory::local(other)).unwrap();
        assert_eq!(changed.image().pixels, copy.image().pixels);
        assert_ne!(changed.compared().pixels, copy.compared().pixels);
        // One depth everywhere: mid grey.
        let flat: Vec<u8> = vec![0u8; 32]
            .into_iter()
            .chain((0..4).flat_map(|_| word(full / 3, 0)))
            .collect();
        let flat = place.copy(&FlatMemory::local(flat)).unwrap();
        assert!(flat
            .image()
            .pixels
            .chunks(4)
            .all(|p| p == [128, 128, 128, 255]));
    }
}
