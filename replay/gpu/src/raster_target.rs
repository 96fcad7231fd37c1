//! Render targets of the raster pipeline: colour targets in real formats ([`ColorTarget`]),
//! depth/stencil targets ([`DepthTarget`]), their upload and readback, and textures uploaded
//! once and bound to many draws ([`UploadedTexture`]). The draws into them are
//! [`crate::raster_draw`]'s.

use rsxtrace_wgsl::WgslModule;

use crate::abi::TEXTURE_UNITS;
use crate::cache::UnitSlot;
use crate::device::Gpu;
use crate::error::GpuError;
use crate::raster_draw::{RasterDraw, RasterTargets};
use crate::raster_pipeline::{
    Compare, DepthFormat, DepthStencilDesc, RasterPipelineDesc, TargetFormat, Topology,
    MAX_RASTER_TARGETS,
};
use crate::texture::{TextureBinding, TextureDimension};

/// A colour render target.
#[derive(Debug)]
pub struct ColorTarget {
    pub(crate) texture: wgpu::Texture,
    pub(crate) view: wgpu::TextureView,
    pub(crate) format: TargetFormat,
    pub(crate) width: u32,
    pub(crate) height: u32,
}

impl ColorTarget {
    /// Format.
    pub fn format(&self) -> TargetFormat {
        self.format
    }
    /// (width, height).
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }
}

/// A depth (and stencil) render target.
#[derive(Debug)]
pub struct DepthTarget {
    pub(crate) texture: wgpu::Texture,
    pub(crate) view: wgpu::TextureView,
    pub(crate) format: DepthFormat,
    pub(crate) width: u32,
    pub(crate) height: u32,
}

impl DepthTarget {
    /// Format.
    pub fn format(&self) -> DepthFormat {
        self.format
    }
    /// (width, height).
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }
}

/// What a depth target holds, row 0 first.
#[derive(Clone, Debug, PartialEq)]
pub struct DepthContents {
    /// Depth per pixel, 0..1.
    pub depth: Vec<f32>,
    /// Stencil per pixel, when the format has stencil.
    pub stencil: Option<Vec<u8>>,
}

/// A texture on the device with its sampler, bindable to any number of draws.
#[derive(Debug)]
pub struct UploadedTexture {
    _texture: wgpu::Texture,
    view: wgpu::TextureView,
    sampler: wgpu::Sampler,
    dimension: TextureDimension,
}

/// Checks that every unit of `units` (what a module declares, ABI.md "Textures", "Vertex
/// textures") is bound in `textures` (by unit number) with the dimension the module declares;
/// `what` names the argument in errors (`textures`, `vertex textures`).
pub(crate) fn check_bound_units(
    units: &[UnitSlot],
    textures: &[Option<&UploadedTexture>],
    what: &str,
) -> Result<(), GpuError> {
    for slot in units {
        let name = format!("{what}[{}]", slot.unit);
        let t = textures
            .get(slot.unit as usize)
            .copied()
            .flatten()
            .ok_or_else(|| {
                GpuError::argument(&name, "the module samples this unit but nothing is bound")
            })?;
        if let Some(dim) = slot.texture.filter(|d| *d != t.dimension) {
            return Err(GpuError::argument(
                &name,
                format!(
                    "the module declares a {dim:?} texture, the binding is {:?}",
                    t.dimension
                ),
            ));
        }
    }
    Ok(())
}

/// The bind group entries of `units` from `textures` (checked by [`check_bound_units`]):
/// each unit's texture view at binding 2u and its sampler at 2u + 1, where declared.
pub(crate) fn bound_unit_entries<'a>(
    units: &[UnitSlot],
    textures: &[Option<&'a UploadedTexture>],
) -> Vec<wgpu::BindGroupEntry<'a>> {
    let mut entries = Vec::with_capacity(units.len() * 2);
    for slot in units {
        let Some(t) = textures.get(slot.unit as usize).copied().flatten() else {
            continue;
        };
        if slot.texture.is_some() {
            entries.push(wgpu::BindGroupEntry {
                binding: slot.unit * 2,
                resource: wgpu::BindingResource::TextureView(&t.view),
            });
        }
        if slot.sampler {
            entries.push(wgpu::BindGroupEntry {
                binding: slot.unit * 2 + 1,
                resource: wgpu::BindingResource::Sampler(&t.sampler),
            });
        }
    }
    entries
}

/// Bytes of a readback row of `width` texels of `bytes` bytes, padded to the copy alignment.
fn padded(width: u32, bytes: u32) -> u64 {
    let align = u64::from(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    (u64::from(width) * u64::from(bytes)).div_ceil(align) * align
}

/// f32 to IEEE binary16 bits, round to nearest even (for `Rgba16Float` uploads).
fn f16_bits(v: f32) -> u16 {
    let x = v.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xFF) as i32;
    let man = x & 0x7F_FFFF;
    if exp == 0xFF {
        return sign | 0x7C00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1F {
        return sign | 0x7C00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let rest = m & ((1u32 << shift) - 1);
        let mut h = m >> shift;
        if rest > half || (rest == half && h & 1 == 1) {
            h += 1;
        }
        return sign | h as u16;
    }
    let rest = man & 0x1FFF;
    let mut h = ((e as u32) << 10) | (man >> 13);
    if rest > 0x1000 || (rest == 0x1000 && h & 1 == 1) {
        h += 1;
    }
    sign | h as u16
}

/// IEEE binary16 bits to f32.
fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h & 0x8000) << 16;
    let exp = u32::from((h >> 10) & 0x1F);
    let man = u32::from(h & 0x3FF);
    let bits = match (exp, man) {
        (0, 0) => sign,
        (0, m) => {
            // Subnormal: normalise.
            let shift = m.leading_zeros() - 21;
            let m = (m << shift) & 0x3FF;
            sign | ((113 - shift) << 23) | (m << 13)
        }
        (0x1F, m) => sign | 0x7F80_0000 | (m << 13),
        (e, m) => sign | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

/// Texels (R, G, B, A floats) as the bytes of `format`.
fn encode_texels(format: TargetFormat, texels: &[[f32; 4]]) -> Vec<u8> {
    match format {
        TargetFormat::Rgba8Unorm => texels
            .iter()
            .flat_map(|t| {
                t.map(|c| {
                    if c.is_nan() {
                        0
                    } else {
                        (c.clamp(0.0, 1.0) * 255.0).round() as u8
                    }
                })
            })
            .collect(),
        TargetFormat::Rgba16Float => texels
            .iter()
            .flat_map(|t| t.map(f16_bits))
            .flat_map(u16::to_le_bytes)
            .collect(),
        TargetFormat::Rgba32Float => bytemuck::cast_slice(texels).to_vec(),
    }
}

/// One texel of `format` from its bytes.
fn decode_texel(format: TargetFormat, b: &[u8]) -> [f32; 4] {
    let mut out = [0.0; 4];
    match format {
        TargetFormat::Rgba8Unorm => {
            for (o, v) in out.iter_mut().zip(b) {
                *o = f32::from(*v) / 255.0;
            }
        }
        TargetFormat::Rgba16Float => {
            for (o, v) in out.iter_mut().zip(b.chunks_exact(2)) {
                *o = f16_to_f32(u16::from_le_bytes([v[0], v[1]]));
            }
        }
        TargetFormat::Rgba32Float => {
            for (o, v) in out.iter_mut().zip(b.chunks_exact(4)) {
                *o = f32::from_le_bytes([v[0], v[1], v[2], v[3]]);
            }
        }
    }
    out
}

/// The covering-triangle module that writes a depth target from an `Rgba32Float` texture on
/// unit 0 (x = depth), used to upload depth where copies into depth are not allowed.
const DEPTH_UPLOAD_WGSL: &str = "
@group(1) @binding(0) var src: texture_2d<f32>;

@vertex
fn upload_vs(@location(0) p: vec4<f32>) -> @builtin(position) vec4<f32> {
    return p;
}

@fragment
fn upload_fs(@builtin(position) pos: vec4<f32>) -> @builtin(frag_depth) f32 {
    return clamp(textureLoad(src, vec2<i32>(pos.xy), 0).x, 0.0, 1.0);
}
";

impl Gpu {
    fn check_target_size(&self, width: u32, height: u32) -> Result<(), GpuError> {
        let max = self.limits.max_texture_dimension_2d;
        if width == 0 || height == 0 || width > max || height > max {
            return Err(GpuError::argument(
                "width, height",
                format!("{width}x{height} is outside 1..={max} on each side"),
            ));
        }
        Ok(())
    }

    fn target_texture(
        &self,
        label: &str,
        format: wgpu::TextureFormat,
        width: u32,
        height: u32,
        extra: wgpu::TextureUsages,
    ) -> Result<(wgpu::Texture, wgpu::TextureView), GpuError> {
        self.check_target_size(width, height)?;
        self.scoped(&format!("creating {label}"), || {
            let texture = self.device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size: wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                    | wgpu::TextureUsages::COPY_SRC
                    | extra,
                view_formats: &[],
            });
            let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
            (texture, view)
        })
    }

    /// A `width` × `height` colour target of `format`, cleared to 0.
    pub fn create_color_target(
        &self,
        format: TargetFormat,
        width: u32,
        height: u32,
    ) -> Result<ColorTarget, GpuError> {
        if format == TargetFormat::Rgba32Float && !self.info.rgba32float_renderable {
            return Err(self.unsupported("render to Rgba32Float"));
        }
        let (texture, view) = self.target_texture(
            "colour target",
            format.wgpu(),
            width,
            height,
            wgpu::TextureUsages::COPY_DST,
        )?;
        Ok(ColorTarget {
            texture,
            view,
            format,
            width,
            height,
        })
    }

    /// A `width` × `height` depth target of `format` (depth 0, stencil 0).
    pub fn create_depth_target(
        &self,
        format: DepthFormat,
        width: u32,
        height: u32,
    ) -> Result<DepthTarget, GpuError> {
        if format == DepthFormat::Depth32Stencil8
            && !self
                .device
                .features()
                .contains(wgpu::Features::DEPTH32FLOAT_STENCIL8)
        {
            return Err(self.unsupported("use Depth32FloatStencil8 (DEPTH32FLOAT_STENCIL8)"));
        }
        let (texture, view) = self.target_texture(
            "depth target",
            format.wgpu(),
            width,
            height,
            wgpu::TextureUsages::COPY_DST,
        )?;
        Ok(DepthTarget {
            texture,
            view,
            format,
            width,
            height,
        })
    }

    /// Replaces the contents of `target` with `texels` (row 0 first, R, G, B, A; converted to
    /// the format: 8-bit channels rounded, 16-bit floats rounded to nearest even).
    pub fn write_color_target(
        &self,
        target: &ColorTarget,
        texels: &[[f32; 4]],
    ) -> Result<(), GpuError> {
        let want = u64::from(target.width) * u64::from(target.height);
        if texels.len() as u64 != want {
            return Err(GpuError::argument(
                "texels",
                format!("holds {} texels, the target has {want}", texels.len()),
            ));
        }
        let bytes = encode_texels(target.format, texels);
        self.scoped("uploading a colour target", || {
            self.queue.write_texture(
                wgpu::TexelCopyTextureInfo {
                    texture: &target.texture,
                    mip_level: 0,
                    origin: wgpu::Origin3d::ZERO,
                    aspect: wgpu::TextureAspect::All,
                },
                &bytes,
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(target.width * target.format.texel_bytes()),
                    rows_per_image: Some(target.height),
                },
                wgpu::Extent3d {
                    width: target.width,
                    height: target.height,
                    depth_or_array_layers: 1,
                },
            );
        })
    }

    /// Replaces the contents of `target`: `depth` (0..1, row 0 first) and, for formats with
    /// stencil, `stencil` (`None` leaves it unchanged). Depth16 is copied; float depth (which
    /// wgpu does not let a copy write) is drawn from a texture with a covering triangle.
    pub fn write_depth_target(
        &self,
        target: &DepthTarget,
        depth: &[f32],
        stencil: Option<&[u8]>,
    ) -> Result<(), GpuError> {
        let want = u64::from(target.width) * u64::from(target.height);
        if depth.len() as u64 != want {
            return Err(GpuError::argument(
                "depth",
                format!("holds {} values, the target has {want}", depth.len()),
            ));
        }
        if let Some(s) = stencil {
            if s.len() as u64 != want {
                return Err(GpuError::argument(
                    "stencil",
                    format!("holds {} values, the target has {want}", s.len()),
                ));
            }
        }
        let extent = wgpu::Extent3d {
            width: target.width,
            height: target.height,
            depth_or_array_layers: 1,
        };
        let copy = |aspect, bytes: &[u8], bpp: u32| {
            self.queue.write_texture(
                wgpu::TexelCopyTextureInfo {
                    texture: &target.texture,
                    mip_level: 0,
                    origin: wgpu::Origin3d::ZERO,
                    aspect,
                },
                bytes,
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(target.width * bpp),
                    rows_per_image: Some(target.height),
                },
                extent,
            );
        };
        match target.format {
            DepthFormat::Depth16 => {
                let bytes: Vec<u8> = depth
                    .iter()
                    .map(|d| {
                        if d.is_nan() {
                            0
                        } else {
                            (d.clamp(0.0, 1.0) * 65535.0).round() as u16
                        }
                    })
                    .flat_map(u16::to_le_bytes)
                    .collect();
                self.scoped("uploading a depth target", || {
                    copy(wgpu::TextureAspect::DepthOnly, &bytes, 2);
                })
            }
            DepthFormat::Depth32Stencil8 => {
                if let Some(s) = stencil {
                    self.scoped("uploading a stencil target", || {
                        copy(wgpu::TextureAspect::StencilOnly, s, 1);
                    })?;
                }
                self.draw_depth(target, depth)
            }
        }
    }

    /// Writes `depth` into a float depth target by drawing it.
    fn draw_depth(&self, target: &DepthTarget, depth: &[f32]) -> Result<(), GpuError> {
        let (module, info) =
            rsxtrace_wgsl::validate(DEPTH_UPLOAD_WGSL).map_err(|e| GpuError::Abi {
                hash: 0,
                what: format!("the depth upload module does not validate: {e}"),
            })?;
        let module = WgslModule {
            source: DEPTH_UPLOAD_WGSL.to_string(),
            module,
            info,
            hash: xxhash_rust::xxh3::xxh3_64(DEPTH_UPLOAD_WGSL.as_bytes()),
        };
        let binding = TextureBinding {
            dimension: TextureDimension::D2,
            width: target.width,
            height: target.height,
            depth_or_layers: 1,
            mip_levels: 1,
            levels: vec![depth.iter().map(|&d| [d, 0.0, 0.0, 0.0]).collect()],
            sampler: Default::default(),
        };
        let texture = self.upload_texture(&binding, "depth upload")?;
        let desc = RasterPipelineDesc {
            vertex_entry: "upload_vs".into(),
            fragment_entry: "upload_fs".into(),
            vertex_attributes: 1,
            topology: Topology::TriangleList,
            cull: Default::default(),
            front_face: Default::default(),
            targets: Vec::new(),
            depth_stencil: Some(DepthStencilDesc {
                format: target.format,
                compare: Compare::Always,
                write: true,
                stencil: None,
                bias: Default::default(),
            }),
            depth_bounds: false,
            colors_before: 0,
        };
        let mut textures = [None; TEXTURE_UNITS as usize];
        textures[0] = Some(&texture);
        let vertices = [
            [-1.0, -1.0, 0.0, 1.0],
            [3.0, -1.0, 0.0, 1.0],
            [-1.0, 3.0, 0.0, 1.0],
        ];
        self.raster_draw(
            &RasterTargets {
                colors: [None; MAX_RASTER_TARGETS],
                depth: Some(target),
            },
            &RasterDraw {
                module: &module,
                desc: &desc,
                vertices: &vertices,
                indices: None,
                textures,
                viewport: None,
                scissor: None,
                stencil_reference: 0,
                blend_constant: [0.0; 4],
                depth_bounds: None,
                faces: None,
            },
        )
    }

    /// Uploads `binding` (checked first) as a texture with its sampler.
    pub fn upload_texture(
        &self,
        binding: &TextureBinding,
        name: &str,
    ) -> Result<UploadedTexture, GpuError> {
        let (texture, view, sampler) = binding.upload(self, name)?;
        Ok(UploadedTexture {
            _texture: texture,
            view,
            sampler,
            dimension: binding.dimension,
        })
    }

    /// Reads `aspect` of `texture` (`bpp` bytes per texel) back, rows unpadded.
    fn read_texture(
        &self,
        texture: &wgpu::Texture,
        aspect: wgpu::TextureAspect,
        (width, height): (u32, u32),
        bpp: u32,
        stage: &str,
    ) -> Result<Vec<u8>, GpuError> {
        let row = padded(width, bpp);
        let size = row * u64::from(height);
        if size > self.limits.max_buffer_size {
            return Err(GpuError::argument(
                "target",
                format!("{width}x{height}: the readback buffer exceeds max_buffer_size"),
            ));
        }
        let buffer = self.scoped(stage, || {
            let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("target readback"),
                size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let mut encoder = self
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("target readback"),
                });
            encoder.copy_texture_to_buffer(
                wgpu::TexelCopyTextureInfo {
                    texture,
                    mip_level: 0,
                    origin: wgpu::Origin3d::ZERO,
                    aspect,
                },
                wgpu::TexelCopyBufferInfo {
                    buffer: &buffer,
                    layout: wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        // row <= 16 * max_texture_dimension_2d + 255: fits u32.
                        bytes_per_row: Some(row as u32),
                        rows_per_image: Some(height),
                    },
                },
                wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
            );
            self.queue.submit([encoder.finish()]);
            buffer
        })?;
        let bytes = self.read_buffer(&buffer, size, stage)?;
        let used = width as usize * bpp as usize;
        let mut out = Vec::with_capacity(used * height as usize);
        for (y, chunk) in (0..height).zip(bytes.chunks(row as usize)) {
            let texels = chunk.get(..used).ok_or_else(|| GpuError::BadResult {
                at: format!("row {y}"),
                what: format!("the readback row holds only {} bytes", chunk.len()),
            })?;
            out.extend_from_slice(texels);
        }
        if out.len() != used * height as usize {
            return Err(GpuError::BadResult {
                at: stage.to_string(),
                what: format!(
                    "read back {} of {} bytes",
                    out.len(),
                    used * height as usize
                ),
            });
        }
        Ok(out)
    }

    /// The texels of `target`, row 0 first, as R, G, B, A floats.
    pub fn read_color_target(&self, target: &ColorTarget) -> Result<Vec<[f32; 4]>, GpuError> {
        let bpp = target.format.texel_bytes();
        let bytes = self.read_texture(
            &target.texture,
            wgpu::TextureAspect::All,
            target.size(),
            bpp,
            "reading a colour target",
        )?;
        Ok(bytes
            .chunks_exact(bpp as usize)
            .map(|b| decode_texel(target.format, b))
            .collect())
    }

    /// The depth (and stencil) of `target`, row 0 first.
    pub fn read_depth_target(&self, target: &DepthTarget) -> Result<DepthContents, GpuError> {
        let depth = match target.format {
            DepthFormat::Depth16 => self
                .read_texture(
                    &target.texture,
                    wgpu::TextureAspect::DepthOnly,
                    target.size(),
                    2,
                    "reading a depth target",
                )?
                .chunks_exact(2)
                .map(|b| f32::from(u16::from_le_bytes([b[0], b[1]])) / 65535.0)
                .collect(),
            DepthFormat::Depth32Stencil8 => self
                .read_texture(
                    &target.texture,
                    wgpu::TextureAspect::DepthOnly,
                    target.size(),
                    4,
                    "reading a depth target",
                )?
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
        };
        let stencil = if target.format.has_stencil() {
            Some(self.read_texture(
                &target.texture,
                wgpu::TextureAspect::StencilOnly,
                target.size(),
                1,
                "reading a stencil target",
            )?)
        } else {
            None
        };
        Ok(DepthContents { depth, stencil })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_floats_round_trip_and_round_to_nearest_even() {
        for v in [
            0.0f32,
            1.0,
            -2.5,
            0.333_251_95,
            65504.0,
            6.103_515_6e-5,
            5.960_464_5e-8,
        ] {
            assert_eq!(f16_to_f32(f16_bits(v)), v, "{v}");
        }
        assert_eq!(f16_bits(1.0), 0x3C00);
        assert_eq!(f16_bits(-2.0), 0xC000);
        // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1.0).
        assert_eq!(f16_bits(1.0 + 2f32.powi(-11)), 0x3C00);
        assert_eq!(f16_bits(1.0 + 3.0 * 2f32.powi(-11)), 0x3C02);
        assert_eq!(f16_bits(1.0e6), 0x7C00);
        assert!(f16_to_f32(f16_bits(f32::NAN)).is_nan());
    }

    #[test]
    fn texels_encode_per_format() {
        let t = [[0.0, 0.5, 1.0, 2.0]];
        assert_eq!(
            encode_texels(TargetFormat::Rgba8Unorm, &t),
            vec![0, 128, 255, 255]
        );
        let b = encode_texels(TargetFormat::Rgba16Float, &t);
        assert_eq!(b, vec![0, 0, 0, 0x38, 0, 0x3C, 0, 0x40]);
        assert_eq!(
            decode_texel(TargetFormat::Rgba16Float, &b),
            [0.0, 0.5, 1.0, 2.0]
        );
        assert_eq!(
            decode_texel(TargetFormat::Rgba8Unorm, &[0, 51, 255, 102]),
            [0.0, 0.2, 1.0, 0.4]
        );
        assert_eq!(padded(3, 4), 256);
        assert_eq!(padded(64, 4), 256);
        assert_eq!(padded(65, 4), 512);
    }
}
