//! [`CaptureSampler`]: the [`Sampler`] of one draw, built from the 16 fragment texture units'
//! state and the draw's guest memory. Each enabled unit's image is decoded once, when the
//! sampler is built; sampling then only reads the decoded levels.
//!
//! Units that are disabled (CONTROL0 bit 31 clear), not requested, or out of range return
//! (0, 0, 0, 0): RPCS3 binds a null texture there.
//!
//! Coordinates: normalised (0..1 over the level) unless the format's UN flag (0x40) is set,
//! in which case 1D and 2D coordinates are in texels (RPCS3 scales them by 1 / size in
//! `_texcoord_xform`). Cube maps take a direction ([`cube`](super::cube)); 3D and cube
//! coordinates are always normalised.

use super::cache::TextureCache;
use super::cube::{select_face, CubeAxes};
use super::decode::{decode_texture, DecodedTexture, Dimension, Level};
use super::error::TextureError;
use super::filter::TexelFilter;
use super::lod::{lambda_from_derivatives, Anisotropy, LevelChoice, TextureLod};
use super::remap::{Conversions, TexelConversions};
use super::unit::UnitOptions;
use super::wrap::Wrap;
use super::{LodSource, SampleRequest, Sampler};
use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::frame::state::Texture;
use rsxtrace_semantics::shadow::{DepthCompare, ALPHA_KILL_BELOW};
use std::sync::Arc;

/// Coordinates are clamped to this many texels before conversion to integers.
const COORD_LIMIT: f32 = (1u64 << 30) as f32;

/// One texture unit ready to sample.
#[derive(Clone, Debug, PartialEq)]
pub struct UnitSampler {
    image: Arc<DecodedTexture>,
    wrap: [Wrap; 3],
    min: TexelFilter,
    mag: TexelFilter,
    lod: TextureLod,
    border: [f32; 4],
    unnormalized: bool,
    /// What s is multiplied by on a linear texture narrowed to its pitch
    /// (`TextureLod::s_scale`), worked out once.
    s_scale: Option<f32>,
    /// The post-filter conversions (`TextureLod::post`), `None` where there are none.
    post: Option<TexelConversions>,
    conversions: Conversions,
}

impl UnitSampler {
    /// Decode fragment texture unit `unit` (its state `texture`) from `memory`.
    pub fn new<M: GuestMemory + ?Sized>(
        unit: u8,
        texture: &Texture,
        memory: &M,
    ) -> Result<UnitSampler, TextureError> {
        UnitSampler::from_image(Arc::new(decode_texture(unit, texture, memory)?), texture)
    }

    /// As [`new`](Self::new), the image from `cache` when it holds it.
    pub fn cached<M: GuestMemory + ?Sized>(
        unit: u8,
        texture: &Texture,
        memory: &M,
        cache: &TextureCache,
    ) -> Result<UnitSampler, TextureError> {
        UnitSampler::from_image(cache.decode(unit, texture, memory)?, texture)
    }

    /// The sampler of unit state `texture` over an image already decoded from it (shared
    /// with a [`TextureCache`] or a device binding made from the same texels).
    pub fn from_image(
        image: Arc<DecodedTexture>,
        texture: &Texture,
    ) -> Result<UnitSampler, TextureError> {
        let o = UnitOptions::new(texture, &image);
        Ok(UnitSampler {
            image,
            wrap: o.wrap,
            min: o.min,
            mag: o.mag,
            lod: o.lod,
            border: o.border,
            unnormalized: o.unnormalized,
            s_scale: o.lod.narrow_pitch.map(|_| o.lod.s_scale()),
            post: o.lod.post.any().then_some(o.lod.post),
            conversions: o.conversions,
        })
    }

    /// The decoded image.
    pub fn image(&self) -> &DecodedTexture {
        &self.image
    }

    /// The unit's state for the shared LOD rule (what the recompiled shader must be given).
    pub fn lod(&self) -> TextureLod {
        self.lod
    }

    /// The border colour after the remap (R, G, B, A).
    pub fn border(&self) -> [f32; 4] {
        self.border
    }

    /// Answer one request.
    pub fn sample(&self, req: &SampleRequest) -> [f32; 4] {
        self.convert(self.filtered(req))
    }

    /// The post-filter conversions (gamma, bias; the signed channels were converted per
    /// texel in [`Self::fetch`]; a shadow map has none): the unit's `TextureLod::post`, the
    /// rule the recompiled shader applies too (`rsxtrace_semantics::texel`).
    fn convert(&self, value: [f32; 4]) -> [f32; 4] {
        match &self.post {
            Some(post) => post.apply(value),
            None => value,
        }
    }

    /// The filtered texel before the gamma and bias conversions.
    fn filtered(&self, req: &SampleRequest) -> [f32; 4] {
        let dim = self.image.dimension;
        let (layer, coord, axes_of, axes) = match dim {
            Dimension::D1 => (0, [req.coord[0], 0.0, 0.0], CubeAxes::default(), 1),
            Dimension::D2 => (0, [req.coord[0], req.coord[1], 0.0], CubeAxes::default(), 2),
            Dimension::D3 => (
                0,
                [req.coord[0], req.coord[1], req.coord[2]],
                CubeAxes::default(),
                3,
            ),
            Dimension::Cube => match select_face(req.coord[0], req.coord[1], req.coord[2]) {
                Some((face, s, t, a)) => (face, [s, t, 0.0], a, 2),
                None => return [0.0; 4],
            },
        };
        let Some(base) = self.image.level(layer, 0) else {
            return [0.0; 4];
        };
        let size = [base.width as f32, base.height as f32, base.depth as f32];
        let mut coord = coord;
        // A linear texture narrowed to its pitch: s still spans the register's width
        // (`TextureLod::narrow_pitch`; never a cube map).
        let s_scale = self.s_scale;
        // Derivatives in normalised units of the sampled axes.
        let norm = |d: [f32; 4]| -> [f32; 3] {
            let mut d = if dim == Dimension::Cube {
                axes_of.project(d)
            } else {
                [d[0], d[1], d[2]]
            };
            if let Some(k) = s_scale {
                d[0] *= k;
            }
            if self.unnormalized {
                d[0] /= size[0];
                d[1] /= size[1];
            }
            d
        };
        if let Some(k) = s_scale {
            coord[0] *= k;
        }
        if self.unnormalized {
            coord[0] /= size[0];
            coord[1] /= size[1];
        }
        // A 2D shadow map compares each texel with the coordinate's z before filtering
        // (`rsxtrace_semantics::shadow`).
        let z = match (self.lod.compare, dim) {
            (Some(c), Dimension::D2) => Some((c, req.coord[2])),
            _ => None,
        };
        // An anisotropic 2D unit spreads samples along the longer derivative
        // (`rsxtrace_semantics::lod::Anisotropy`); TXL's LOD has no footprint.
        if dim == Dimension::D2 && self.lod.aniso > 1 {
            let footprint = match req.lod {
                LodSource::Implicit => Some((req.ddx, req.ddy, 0.0)),
                LodSource::Bias(b) => Some((req.ddx, req.ddy, b)),
                LodSource::Gradients { ddx, ddy } => Some((ddx, ddy, 0.0)),
                LodSource::Explicit(_) => None,
            };
            if let Some((ddx, ddy, bias)) = footprint {
                let (dx, dy) = (norm(ddx), norm(ddy));
                let scaled = |d: [f32; 3]| [d[0] * size[0], d[1] * size[1]];
                let a = Anisotropy::of(scaled(dx), scaled(dy), self.lod.aniso);
                let along = if a.along_x { dx } else { dy };
                let choice = self.lod.choose(a.lambda + bias, self.image.levels);
                // N samples, summed in order and divided by N (as the WGSL).
                let mut sum = [0.0f32; 4];
                for i in 1..=a.samples {
                    let f = a.offset(i);
                    let at = [coord[0] + along[0] * f, coord[1] + along[1] * f, coord[2]];
                    let v = self.filter_chosen(choice, layer, base, at, axes, z);
                    for (s, v) in sum.iter_mut().zip(v) {
                        *s += v;
                    }
                }
                return sum.map(|s| s / a.samples as f32);
            }
        }
        let implicit = |ddx: [f32; 4], ddy: [f32; 4]| {
            lambda_from_derivatives(norm(ddx), norm(ddy), size, axes)
        };
        // The unit's bias and clamp are applied by `choose` (the shared rule).
        let lambda = match req.lod {
            LodSource::Implicit => implicit(req.ddx, req.ddy),
            LodSource::Bias(b) => implicit(req.ddx, req.ddy) + b,
            LodSource::Explicit(l) => l,
            LodSource::Gradients { ddx, ddy } => implicit(ddx, ddy),
        };
        let choice = self.lod.choose(lambda, self.image.levels);
        self.filter_chosen(choice, layer, base, coord, axes, z)
    }

    /// The texel filtered from the levels `choice` names, at `coord`.
    #[inline(always)]
    fn filter_chosen(
        &self,
        choice: LevelChoice,
        layer: u32,
        base: &Level,
        coord: [f32; 3],
        axes: usize,
        z: Option<(DepthCompare, f32)>,
    ) -> [f32; 4] {
        // The mirror-once axes reflect the sample's coordinate (`super::wrap`; a shadow
        // map's third component is its reference, beyond `axes`).
        let mut coord = coord;
        if self.lod.mirror_once != 0 {
            for (k, c) in coord.iter_mut().enumerate().take(axes) {
                if self.lod.mirror_once >> k & 1 != 0 {
                    *c = c.abs();
                }
            }
        }
        match choice {
            LevelChoice::Magnify => self.filter_level(base, coord, self.mag, axes, z),
            LevelChoice::Level(0) => self.filter_level(base, coord, self.min, axes, z),
            LevelChoice::Level(l) => self.filter_at(layer, l, coord, axes, z),
            LevelChoice::Blend { level, weight } => {
                let a = self.filter_at(layer, level, coord, axes, z);
                let b = self.filter_at(layer, level + 1, coord, axes, z);
                lerp4(a, b, weight)
            }
        }
    }

    /// As [`sample`](Self::sample), and whether the unit's alpha kill discards the fragment:
    /// the filtered texel's alpha before the gamma and bias conversions (a signed alpha read
    /// signed) is below [`ALPHA_KILL_BELOW`] (`rsxtrace_semantics::shadow`).
    pub fn sample_killing(&self, req: &SampleRequest) -> ([f32; 4], bool) {
        let (value, killed) = self.sample_unconverted(req);
        (self.convert(value), killed)
    }

    /// As [`sample_killing`](Self::sample_killing) without the gamma and bias conversions
    /// (what a TEX with bx2 expands on a unit that expands; the signed channels were
    /// reinterpreted per texel).
    pub fn sample_unconverted(&self, req: &SampleRequest) -> ([f32; 4], bool) {
        let value = self.filtered(req);
        let killed = self.lod.alpha_kill && value[3] < ALPHA_KILL_BELOW;
        (value, killed)
    }

    fn filter_at(
        &self,
        layer: u32,
        level: u32,
        coord: [f32; 3],
        axes: usize,
        z: Option<(DepthCompare, f32)>,
    ) -> [f32; 4] {
        match self.image.level(layer, level) {
            Some(l) => self.filter_level(l, coord, self.min, axes, z),
            None => [0.0; 4],
        }
    }

    /// Fetch a texel by integer coordinates, applying the wrap modes; a shadow map's texel
    /// (or border) compared with the reference `z`.
    #[inline]
    fn fetch(
        &self,
        level: &Level,
        i: [i64; 3],
        axes: usize,
        z: Option<(DepthCompare, f32)>,
    ) -> [f32; 4] {
        let dims = [
            i64::from(level.width),
            i64::from(level.height),
            i64::from(level.depth),
        ];
        let mut at = [0u32; 3];
        let mut border = false;
        for k in 0..axes.min(3) {
            match self.wrap[k].apply(i[k], dims[k]) {
                Some(v) => at[k] = v as u32,
                None => border = true,
            }
        }
        let texel = if border {
            self.border
        } else {
            level.texel(at[0], at[1], at[2])
        };
        match z {
            Some((c, reference)) => [c.compare(texel[0], reference); 4],
            // Signed channels are reinterpreted before filtering (`Conversions::apply_signed`).
            None if self.conversions.any_signed() => self.conversions.apply_signed(texel),
            None => texel,
        }
    }

    fn filter_level(
        &self,
        level: &Level,
        coord: [f32; 3],
        filter: TexelFilter,
        axes: usize,
        z: Option<(DepthCompare, f32)>,
    ) -> [f32; 4] {
        let dims = [level.width as f32, level.height as f32, level.depth as f32];
        let scaled = |k: usize, offset: f32| -> f32 {
            let v = coord[k] * dims[k] - offset;
            if v.is_nan() {
                0.0
            } else {
                v.clamp(-COORD_LIMIT, COORD_LIMIT)
            }
        };
        match filter {
            TexelFilter::Nearest => {
                let mut i = [0i64; 3];
                for (k, slot) in i.iter_mut().enumerate().take(axes) {
                    *slot = scaled(k, 0.0).floor() as i64;
                }
                self.fetch(level, i, axes, z)
            }
            TexelFilter::Linear => {
                let mut base = [0i64; 3];
                let mut frac = [0f32; 3];
                for k in 0..axes {
                    let u = scaled(k, 0.5);
                    let f = u.floor();
                    base[k] = f as i64;
                    frac[k] = u - f;
                }
                let mut acc = [0f32; 4];
                let corners = 1usize << axes;
                for c in 0..corners {
                    let mut w = 1.0f32;
                    let mut i = base;
                    for k in 0..axes {
                        if c & (1 << k) != 0 {
                            i[k] += 1;
                            w *= frac[k];
                        } else {
                            w *= 1.0 - frac[k];
                        }
                    }
                    if w != 0.0 {
                        let t = self.fetch(level, i, axes, z);
                        for (a, t) in acc.iter_mut().zip(t) {
                            *a += w * t;
                        }
                    }
                }
                acc
            }
        }
    }
}

fn lerp4(a: [f32; 4], b: [f32; 4], t: f32) -> [f32; 4] {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
        a[3] + (b[3] - a[3]) * t,
    ]
}

/// The sampler of one draw: up to 16 decoded fragment texture units.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CaptureSampler {
    units: Vec<Option<UnitSampler>>,
}

impl CaptureSampler {
    /// Decode every enabled unit of `textures` (a draw's fragment units) from `memory`. The
    /// first unit that cannot be decoded is the error.
    pub fn new<M: GuestMemory + ?Sized>(
        textures: &[Texture; 16],
        memory: &M,
    ) -> Result<CaptureSampler, TextureError> {
        CaptureSampler::with_units(textures, memory, 0xFFFF)
    }

    /// As [`new`](Self::new), decoding only the enabled units whose bit is set in `mask`
    /// (bit `i` = unit `i`, e.g. the units the fragment program references).
    pub fn with_units<M: GuestMemory + ?Sized>(
        textures: &[Texture; 16],
        memory: &M,
        mask: u16,
    ) -> Result<CaptureSampler, TextureError> {
        let mut units = Vec::with_capacity(16);
        for (i, t) in textures.iter().enumerate() {
            let unit = i as u8;
            if mask & (1 << i) != 0 && t.control0.enabled {
                units.push(Some(UnitSampler::new(unit, t, memory)?));
            } else {
                units.push(None);
            }
        }
        Ok(CaptureSampler { units })
    }

    /// As [`with_units`](Self::with_units), but a unit that cannot be decoded samples as
    /// (0, 0, 0, 0) and its error is returned alongside; images come from `cache` when given.
    pub fn lenient<M: GuestMemory + ?Sized>(
        textures: &[Texture; 16],
        memory: &M,
        mask: u16,
        cache: Option<&TextureCache>,
    ) -> (CaptureSampler, Vec<TextureError>) {
        let mut errors = Vec::new();
        let mut units = Vec::with_capacity(16);
        for (i, t) in textures.iter().enumerate() {
            let unit = i as u8;
            if mask & (1 << i) != 0 && t.control0.enabled {
                let decoded = match cache {
                    Some(cache) => UnitSampler::cached(unit, t, memory, cache),
                    None => UnitSampler::new(unit, t, memory),
                };
                match decoded {
                    Ok(u) => units.push(Some(u)),
                    Err(e) => {
                        errors.push(e);
                        units.push(None);
                    }
                }
            } else {
                units.push(None);
            }
        }
        (CaptureSampler { units }, errors)
    }

    /// A sampler of the given units (index = unit number; missing and `None` ones sample
    /// (0, 0, 0, 0)).
    pub fn from_units(units: Vec<Option<UnitSampler>>) -> CaptureSampler {
        CaptureSampler { units }
    }

    /// The decoded unit, if it is in use.
    pub fn unit(&self, unit: u8) -> Option<&UnitSampler> {
        self.units.get(usize::from(unit)).and_then(Option::as_ref)
    }
}

impl Sampler for CaptureSampler {
    /// Disabled, unused and out-of-range units return (0, 0, 0, 0).
    fn sample(&self, unit: u8, request: &SampleRequest) -> [f32; 4] {
        match self.unit(unit) {
            Some(u) => u.sample(request),
            None => [0.0; 4],
        }
    }

    fn sample_killing(&self, unit: u8, request: &SampleRequest) -> ([f32; 4], bool) {
        match self.unit(unit) {
            Some(u) => u.sample_killing(request),
            None => ([0.0; 4], false),
        }
    }

    /// A unit without a texture samples (0, 0, 0, 0) unexpanded.
    fn bx2_channels(&self, unit: u8) -> u8 {
        self.unit(unit).map_or(0, |u| u.lod().bx2)
    }

    fn sample_for_bx2(&self, unit: u8, request: &SampleRequest) -> ([f32; 4], bool) {
        match self.unit(unit) {
            Some(u) if u.lod().bx2 != 0 => u.sample_unconverted(request),
            Some(u) => u.sample_killing(request),
            None => ([0.0; 4], false),
        }
    }
}
