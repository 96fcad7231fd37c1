//! What the site shows of each draw's images, gathered while the frame renders once: a
//! [`DrawObserver`] that reads the draw's targets before and after it (its first colour
//! target, then its other colour targets and its depth surface when it uses one; hashing
//! their bytes, so that a draw that changed nothing costs no image) and the textures its
//! fragment program samples (as the draw sees them, rendered surfaces included), and hands
//! the pixel work to the [`ImageStore`].
//!
//! The "after" copy of one draw is usually the "before" of the next draw on the same target,
//! so each state of a target is copied, decoded and encoded once.

use crate::images::{ImageId, ImageStore};
use crate::pixels::{change_view, downscale, Change, Channels};
use crate::target::{TargetBytes, TargetPlace};
use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::frame::Frame;
use rsxtrace_replay::program::fragment::decode as decode_fragment;
use rsxtrace_replay::render::{DrawObserver, Rgba8Image};
use rsxtrace_replay::texture::cache::content_key;
use rsxtrace_replay::texture::decode::texel_format;
use rsxtrace_replay::texture::{decode_texture, DecodedTexture};
use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex, PoisonError};

/// Image sizes of the site (boxes images are scaled down to fit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    /// The target before and after a draw, and the change view, on draw pages.
    pub view: (u32, u32),
    /// The target after a draw on the index.
    pub thumb: (u32, u32),
    /// A texture's level 0.
    pub texture: (u32, u32),
    /// A texture on a draw page's unit table.
    pub texture_thumb: (u32, u32),
}

impl Default for Sizes {
    fn default() -> Self {
        Sizes {
            view: (288, 162),
            thumb: (96, 54),
            texture: (512, 512),
            texture_thumb: (64, 64),
        }
    }
}

/// A target state's images.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateImages {
    /// At view size.
    pub view: ImageId,
    /// At thumbnail size.
    pub thumb: ImageId,
}

/// The draw's target around it.
#[derive(Clone, Debug)]
pub struct TargetShot {
    /// Which target, where, in which format.
    pub place: TargetPlace,
    /// Before the draw (`Err`: why it could not be read).
    pub before: Result<StateImages, String>,
    /// After the draw.
    pub after: Result<StateImages, String>,
    /// When the draw changed the target's bytes: the changed pixels (transparent elsewhere),
    /// to lay over the after view.
    pub diff: Option<ImageId>,
}

/// One sampled texture unit.
#[derive(Clone, Debug)]
pub struct TextureShot {
    /// Unit number.
    pub unit: u8,
    /// Its images, or why it could not be decoded.
    pub images: Result<TextureImages, String>,
}

/// A decoded texture's images.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureImages {
    /// Level 0 (first layer, first slice), scaled to fit the texture size.
    pub full: ImageId,
    /// Thumbnail.
    pub thumb: ImageId,
    /// Level 0's size in texels.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// Mip levels per layer.
    pub levels: u32,
    /// Layers (6 for a cube map).
    pub layers: u32,
}

/// Everything gathered about one draw.
#[derive(Clone, Debug, Default)]
pub struct DrawShots {
    /// The first colour target, or why it is not shown.
    pub target: Option<Result<TargetShot, String>>,
    /// The other targets ([`TargetPlace::others`]: further colour targets, the depth
    /// surface), each or why it is not shown.
    pub others: Vec<Result<TargetShot, String>>,
    /// Sampled units in order.
    pub textures: Vec<TextureShot>,
}

/// The observer (see the module documentation). [`Snapshots::finish`] gives the per-draw
/// records and the changes counted by the image work.
pub struct Snapshots<'a> {
    frame: &'a Frame,
    store: &'a ImageStore,
    sizes: Sizes,
    first: usize,
    draws: Vec<DrawShots>,
    /// Target states already imaged, by [`TargetPlace::hash`].
    states: HashMap<u128, StateImages>,
    /// The last copy made of each target index (usually the next draw's "before").
    last: HashMap<usize, Arc<TargetBytes>>,
    /// The copies taken before the current draw: its first target's, then its others'.
    before: Vec<Option<Arc<TargetBytes>>>,
    /// Textures already imaged, by content key.
    textures: HashMap<u128, TextureImages>,
    /// Sampled units per fragment program hash.
    units: HashMap<u64, u16>,
    changes: Arc<Mutex<HashMap<usize, Change>>>,
    /// Picture the depth surface of draws that have a colour target too.
    depth_beside_colour: bool,
}

impl<'a> Snapshots<'a> {
    /// An observer of draws `range` of `frame` (the renderer's range).
    pub fn new(frame: &'a Frame, range: Range<usize>, store: &'a ImageStore, sizes: Sizes) -> Self {
        Snapshots {
            frame,
            store,
            sizes,
            first: range.start,
            draws: vec![DrawShots::default(); range.len()],
            states: HashMap::new(),
            last: HashMap::new(),
            before: Vec::new(),
            textures: HashMap::new(),
            units: HashMap::new(),
            changes: Arc::default(),
            depth_beside_colour: false,
        }
    }

    /// Also picture the depth surface of draws that have a colour target (by default only
    /// a draw without one shows its depth surface: a depth-only pass).
    pub fn with_depth_beside_colour(mut self, depth: bool) -> Self {
        self.depth_beside_colour = depth;
        self
    }

    /// The records of draws `range.start..` in order, and the changes per draw index (filled
    /// once the store finished).
    pub fn finish(self) -> (Vec<DrawShots>, Arc<Mutex<HashMap<usize, Change>>>) {
        (self.draws, self.changes)
    }

    fn shots(&mut self, draw: usize) -> Option<&mut DrawShots> {
        self.draws.get_mut(draw.checked_sub(self.first)?)
    }

    /// The images of the state `bytes` holds, made once per state.
    fn state_images(&mut self, bytes: &Arc<TargetBytes>) -> StateImages {
        if let Some(known) = self.states.get(&bytes.hash) {
            return *known;
        }
        let ids = self.store.reserve(2);
        let images = StateImages {
            view: ids[0],
            thumb: ids[1],
        };
        self.states.insert(bytes.hash, images);
        let (bytes, sizes) = (bytes.clone(), self.sizes);
        self.store.submit(move || {
            let view = bytes.view(sizes.view.0, sizes.view.1);
            vec![
                (images.view, view.clone(), Channels::Rgb),
                (images.thumb, fit(view, sizes.thumb), Channels::Rgb),
            ]
        });
        images
    }

    /// A copy of the target in `memory`, reusing the last copy of that target when the
    /// bytes are the same.
    fn copy(&mut self, place: &TargetPlace, memory: &dyn GuestMemory) -> Option<Arc<TargetBytes>> {
        let hash = place.hash(memory)?;
        if let Some(last) = self.last.get(&place.index) {
            if last.hash == hash {
                return Some(last.clone());
            }
        }
        let copy = place.copy(memory)?;
        self.last.insert(place.index, copy.clone());
        Some(copy)
    }

    /// The shot of `place` before a draw, keeping the copy for [`Self::after_shot`].
    fn before_shot(&mut self, place: TargetPlace, memory: &dyn GuestMemory) -> TargetShot {
        let before = match self.copy(&place, memory) {
            Some(bytes) => {
                let images = self.state_images(&bytes);
                self.before.push(Some(bytes));
                Ok(images)
            }
            None => {
                self.before.push(None);
                Err("the target's memory is not readable".to_string())
            }
        };
        TargetShot {
            place,
            before,
            after: Err("the draw was not observed after".to_string()),
            diff: None,
        }
    }

    /// `shot` completed after draw `draw`: its state now and, when the draw changed its
    /// bytes, the changed pixels (counted in [`Self::finish`]'s changes when `counted`: the
    /// first colour target's).
    fn after_shot(
        &mut self,
        draw: usize,
        shot: &mut TargetShot,
        before: Option<Arc<TargetBytes>>,
        counted: bool,
        memory: &dyn GuestMemory,
    ) {
        let Some(after) = self.copy(&shot.place, memory) else {
            return;
        };
        shot.after = Ok(self.state_images(&after));
        if let Some(before) = before.filter(|b| b.hash != after.hash) {
            let id = self.store.reserve(1)[0];
            shot.diff = Some(id);
            let (changes, view) = (self.changes.clone(), self.sizes.view);
            self.store.submit(move || {
                let after_view = after.view(view.0, view.1);
                let (change, image) = change_view(before.compared(), after.compared(), after_view);
                if counted {
                    changes
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .insert(draw, change);
                }
                vec![(id, image, Channels::Rgba)]
            });
        }
    }

    /// The units draw `draw`'s fragment program samples (bit n = unit n).
    fn sampled_units(&mut self, draw: usize) -> u16 {
        let Some(fp) = self
            .frame
            .draws
            .get(draw)
            .and_then(|d| d.fragment_program.as_ref())
        else {
            return 0;
        };
        *self
            .units
            .entry(fp.hash)
            .or_insert_with(|| decode_fragment(&fp.ucode).map_or(0, |p| p.texture_units_read()))
    }

    /// The sampled units' images as the draw sees them.
    fn textures(&mut self, draw: usize, memory: &dyn GuestMemory) -> Vec<TextureShot> {
        let units = self.sampled_units(draw);
        let Some(d) = self.frame.draws.get(draw) else {
            return Vec::new();
        };
        let mut shots = Vec::new();
        for (unit, texture) in d.textures.iter().enumerate() {
            if units & (1 << unit) == 0 {
                continue;
            }
            let unit = unit as u8;
            let images = if !texture.control0.enabled {
                Err("sampled but not enabled (reads as 0, 0, 0, 0)".to_string())
            } else {
                self.texture_images(unit, texture, memory)
            };
            shots.push(TextureShot { unit, images });
        }
        shots
    }

    fn texture_images(
        &mut self,
        unit: u8,
        texture: &rsxtrace_capture::frame::state::Texture,
        memory: &dyn GuestMemory,
    ) -> Result<TextureImages, String> {
        let key = content_key(unit, texture, memory).map_err(|e| e.to_string())?;
        if let Some(known) = self.textures.get(&key) {
            return Ok(*known);
        }
        let decoded = decode_texture(unit, texture, memory).map_err(|e| e.to_string())?;
        let opaque = texel_format(unit, texture).is_ok_and(|f| f.is_depth());
        let level = level0(&decoded, opaque).ok_or("the texture has no level 0")?;
        let ids = self.store.reserve(2);
        let images = TextureImages {
            full: ids[0],
            thumb: ids[1],
            width: level.width,
            height: level.height,
            levels: decoded.levels,
            layers: decoded.layers,
        };
        self.textures.insert(key, images);
        let sizes = self.sizes;
        self.store.submit(move || {
            vec![
                (images.full, fit(&level, sizes.texture), Channels::Rgba),
                (
                    images.thumb,
                    fit(&level, sizes.texture_thumb),
                    Channels::Rgba,
                ),
            ]
        });
        Ok(images)
    }
}

/// `image` scaled down to fit `(w, h)`.
fn fit(image: &Rgba8Image, (w, h): (u32, u32)) -> Rgba8Image {
    downscale(image, w, h)
}

/// Level 0 of layer 0 (slice 0 of a 3D texture) as 8-bit RGBA, `round(clamp(v, 0, 1) × 255)`;
/// alpha 255 when `opaque`.
fn level0(texture: &DecodedTexture, opaque: bool) -> Option<Rgba8Image> {
    let level = texture.level(0, 0)?;
    let count = level.width as usize * level.height as usize;
    let unorm = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    let pixels = level
        .texels
        .iter()
        .take(count)
        .flat_map(|t| {
            let a = if opaque { 255 } else { unorm(t[3]) };
            [unorm(t[0]), unorm(t[1]), unorm(t[2]), a]
        })
        .collect::<Vec<u8>>();
    (pixels.len() == count * 4).then_some(Rgba8Image {
        width: level.width,
        height: level.height,
        pixels,
    })
}

impl DrawObserver for Snapshots<'_> {
    fn before(&mut self, draw: usize, memory: &dyn GuestMemory) {
        self.before.clear();
        let Some(d) = self.frame.draws.get(draw) else {
            return;
        };
        let textures = self.textures(draw, memory);
        let target = match TargetPlace::of(&d.surface) {
            Ok(place) => Ok(self.before_shot(place, memory)),
            Err(why) => {
                self.before.push(None);
                Err(why)
            }
        };
        let has_colour = target.is_ok();
        let depth_beside_colour = self.depth_beside_colour;
        let others = TargetPlace::others(&d.surface, &d.raster)
            .into_iter()
            .filter(|place| {
                !(has_colour && !depth_beside_colour && place.as_ref().is_ok_and(|p| p.is_depth()))
            })
            .map(|place| match place {
                Ok(place) => Ok(self.before_shot(place, memory)),
                Err(why) => {
                    self.before.push(None);
                    Err(why)
                }
            })
            .collect();
        if let Some(shots) = self.shots(draw) {
            shots.textures = textures;
            shots.target = Some(target);
            shots.others = others;
        }
    }

    fn after(&mut self, draw: usize, memory: &dyn GuestMemory) {
        // Taken out while `after_shot` borrows the observer, put back completed.
        let Some((target, others)) = self
            .shots(draw)
            .map(|s| (s.target.take(), std::mem::take(&mut s.others)))
        else {
            return;
        };
        let mut befores = std::mem::take(&mut self.before).into_iter();
        let target = target.map(|t| {
            let before = befores.next().flatten();
            t.map(|mut shot| {
                self.after_shot(draw, &mut shot, before, true, memory);
                shot
            })
        });
        let others: Vec<Result<TargetShot, String>> = others
            .into_iter()
            .map(|t| {
                let before = befores.next().flatten();
                t.map(|mut shot| {
                    self.after_shot(draw, &mut shot, before, false, memory);
                    shot
                })
            })
            .collect();
        if let Some(shots) = self.shots(draw) {
            shots.target = target;
            shots.others = others;
        }
    }
}
