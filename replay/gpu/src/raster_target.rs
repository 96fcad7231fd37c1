//! Render targets of the raster pipeline and draws into them: colour targets in real formats
//! ([`ColorTarget`]), depth/stencil targets ([`DepthTarget`]), their upload and readback,
//! textures uploaded once and bound to many draws ([`UploadedTexture`]), and
//! [`Gpu::raster_draw`]: one draw with a [`RasterPipelineDesc`] and its dynamic state
//! (viewport, scissor, stencil reference, blend constant), loading and storing the targets.

use rsxtrace_wgsl::WgslModule;
use wgpu::util::DeviceExt;

use crate::abi::TEXTURE_UNITS;
use crate::cache::UnitSlot;
use crate::device::Gpu;
use crate::error::GpuError;
use crate::raster_pipeline::{
    Compare, DepthFormat, DepthStencilDesc, RasterPipelineDesc, TargetFormat, Topology,
    MAX_RASTER_TARGETS,
};
use crate::texture::{TextureBinding, TextureDimension};

/// A colour render target.
#[derive(Debug)]
pub struct ColorTarget {
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    format: TargetFormat,
    width: u32,
    height: u32,
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
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    format: DepthFormat,
    width: u32,
    height: u32,
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

/// The viewport of a draw in framebuffer pixels and its depth range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RasterViewport {
    /// Left.
    pub x: f32,
    /// Top.
    pub y: f32,
    /// Width.
    pub width: f32,
    /// Height.
    pub height: f32,
    /// Depth of NDC z = 0.
    pub min_depth: f32,
    /// Depth of NDC z = 1.
    pub max_depth: f32,
}

/// The targets a draw renders into: `colors[n]` for each `Some` slot of the pipeline's
/// targets (same format and size), and the depth target when the pipeline has depth.
#[derive(Clone, Copy, Debug, Default)]
pub struct RasterTargets<'a> {
    /// Colour targets by slot.
    pub colors: [Option<&'a ColorTarget>; MAX_RASTER_TARGETS],
    /// Depth target.
    pub depth: Option<&'a DepthTarget>,
}

/// One draw.
#[derive(Clone, Copy, Debug)]
pub struct RasterDraw<'a> {
    /// The module holding both entry points (and `rsx_fragment` with its texture units).
    pub module: &'a WgslModule,
    /// Pipeline state.
    pub desc: &'a RasterPipelineDesc,
    /// Vertices: `desc.vertex_attributes` vec4 each, consecutive; topology as in `desc`.
    pub vertices: &'a [[f32; 4]],
    /// Indices into `vertices` (`None`: the vertices in order); topology as in `desc`.
    pub indices: Option<&'a [u32]>,
    /// Textures by unit (every unit the module declares must be bound).
    pub textures: [Option<&'a UploadedTexture>; TEXTURE_UNITS as usize],
    /// Viewport (`None`: the whole target, depth 0..1).
    pub viewport: Option<RasterViewport>,
    /// Scissor `[x, y, width, height]` (clamped to the targets; `None`: whole target).
    pub scissor: Option<[u32; 4]>,
    /// Stencil reference.
    pub stencil_reference: u32,
    /// Blend constant (R, G, B, A).
    pub blend_constant: [f64; 4],
    /// The depth bounds `[min, max]` of a pipeline with
    /// [`RasterPipelineDesc::depth_bounds`] (`None` for the others): its fragment entry point
    /// compares the depth target's value from before the draw with them.
    pub depth_bounds: Option<[f32; 2]>,
    /// Stencil state per face that one pipeline cannot hold (`None`: `desc` draws every
    /// primitive).
    pub faces: Option<FaceRuns<'a>>,
}

/// A draw whose front- and back-facing primitives take different stencil state than one
/// pipeline holds (a pipeline has one reference, one compare mask and one write mask for both
/// faces): its primitives are drawn in runs of one facing, in their order, each run with its
/// face's pipeline and reference. The caller decides the facing, so each face's pipeline
/// should give both of the device's faces that face's stencil state.
#[derive(Clone, Copy, Debug)]
pub struct FaceRuns<'a> {
    /// The pipeline of the back-facing runs (the draw's `desc` draws the front-facing ones):
    /// it may differ from `desc` in its depth/stencil state only.
    pub back_desc: &'a RasterPipelineDesc,
    /// The stencil reference of the back-facing runs.
    pub back_reference: u32,
    /// Each run as its first vertex (an index into `indices`, or a vertex when there are none;
    /// whole primitives) and whether it is back facing, in drawing order: a run ends where
    /// the next begins, the last at the end. Vertices before the first run are not drawn.
    pub runs: &'a [(u32, bool)],
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

    /// Draws `draw` into `targets` (loading and storing their contents): [`Gpu::raster_draws`]
    /// with one draw.
    pub fn raster_draw(
        &self,
        targets: &RasterTargets<'_>,
        draw: &RasterDraw<'_>,
    ) -> Result<(), GpuError> {
        self.raster_draws(&[(*targets, *draw)])
    }

    /// Draws each `(targets, draw)` in order, recorded into one command buffer (consecutive
    /// draws that attach the same targets share one render pass, loading and storing them)
    /// and submitted once: a run of draws costs one submission instead of one per draw. The
    /// draws are checked first; a bad one fails the call before anything is recorded.
    pub fn raster_draws(
        &self,
        draws: &[(RasterTargets<'_>, RasterDraw<'_>)],
    ) -> Result<(), GpuError> {
        self.raster_draws_counted(draws, &[]).map(|_| ())
    }

    /// [`raster_draws`](Self::raster_draws), counting the samples that pass the depth and
    /// stencil tests of each draw `counted` marks (an occlusion query around each): read them
    /// with [`read_sample_counts`](Self::read_sample_counts). A draw left out of `counted`
    /// (shorter than `draws`) is not counted.
    pub fn raster_draws_counted(
        &self,
        draws: &[(RasterTargets<'_>, RasterDraw<'_>)],
        counted: &[bool],
    ) -> Result<SampleCounts, GpuError> {
        let mut checked = Vec::with_capacity(draws.len());
        let mut queries: Vec<Option<u32>> = vec![None; draws.len()];
        let mut used = 0u32;
        for (n, (targets, draw)) in draws.iter().enumerate() {
            let counts = counted.get(n).copied().unwrap_or(false);
            if let Some(c) = self.checked_raster_draw(targets, draw)? {
                let query = counts.then(|| {
                    used += 1;
                    used - 1
                });
                queries[n] = query;
                checked.push((targets, draw, c, query));
            }
        }
        // A counted draw that draws nothing (its scissor leaves no pixel) counted 0.
        let mut counts = SampleCounts {
            per_draw: queries
                .iter()
                .enumerate()
                .map(
                    |(n, &q)| match (counted.get(n).copied().unwrap_or(false), q) {
                        (true, Some(q)) => CountSlot::Query(q),
                        (true, None) => CountSlot::Zero,
                        (false, _) => CountSlot::NotCounted,
                    },
                )
                .collect(),
            readback: None,
        };
        if checked.is_empty() {
            return Ok(counts);
        }
        let bytes = u64::from(used) * 8;
        counts.readback = self.scoped("drawing raster draws", || {
            let query_set = (used > 0).then(|| {
                self.device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("occlusion counts"),
                    ty: wgpu::QueryType::Occlusion,
                    count: used,
                })
            });
            // One copy of each target a draw reads as it was before it (the depth target of a
            // depth bounds test, the colour targets of `colors_before`), made again before
            // every such draw (the encoder orders the copies and the passes).
            let mut copies: Vec<(&wgpu::Texture, TargetCopy)> = Vec::new();
            for (targets, draw, _, _) in &checked {
                for (texture, depth) in read_before(targets, draw.desc) {
                    if !copies.iter().any(|(t, _)| std::ptr::eq(*t, texture)) {
                        copies.push((texture, self.target_copy(texture, depth)));
                    }
                }
            }
            let copy_of = |texture: &wgpu::Texture| {
                copies
                    .iter()
                    .find(|(t, _)| std::ptr::eq(*t, texture))
                    .map(|(_, c)| c)
            };
            let prepared: Vec<PreparedDraw> = checked
                .iter()
                .map(|(targets, draw, c, _)| {
                    let depth = targets.depth.and_then(|t| copy_of(&t.texture));
                    let colors: [Option<&TargetCopy>; MAX_RASTER_TARGETS] =
                        std::array::from_fn(|n| {
                            targets.colors[n].and_then(|t| copy_of(&t.texture))
                        });
                    self.prepare_raster_draw(draw, c, depth, &colors)
                })
                .collect();
            let mut encoder = self
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("raster draws"),
                });
            // Consecutive draws into the same attachments share one render pass: a pass
            // boundary changes nothing drawn (draws keep their order), but on a CPU device
            // each pass is a scene binned, rasterised and waited for on its own. A draw that
            // reads a target as it was before it starts a pass of its own, after the copy.
            let mut start = 0;
            while let Some((targets, first, _, _)) = checked.get(start) {
                let end = (start + 1..checked.len())
                    .find(|&k| {
                        let (t, d, _, _) = &checked[k];
                        !same_attachments(targets, first.desc, t, d.desc) || d.desc.reads_before()
                    })
                    .unwrap_or(checked.len());
                for (texture, _) in read_before(targets, first.desc) {
                    if let Some(copy) = copy_of(texture) {
                        encoder.copy_texture_to_texture(
                            texture.as_image_copy(),
                            copy.texture.as_image_copy(),
                            texture.size(),
                        );
                    }
                }
                let mut pass = begin_pass(&mut encoder, targets, first.desc, query_set.as_ref());
                for ((_, draw, c, query), p) in
                    checked[start..end].iter().zip(&prepared[start..end])
                {
                    if let Some(q) = query {
                        pass.begin_occlusion_query(*q);
                        record_raster_draw(&mut pass, draw, c, p);
                        pass.end_occlusion_query();
                    } else {
                        record_raster_draw(&mut pass, draw, c, p);
                    }
                }
                drop(pass);
                start = end;
            }
            let readback = query_set.as_ref().map(|set| {
                let resolved = self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("occlusion counts resolved"),
                    size: bytes,
                    usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                });
                let readback = self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("occlusion counts"),
                    size: bytes,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                encoder.resolve_query_set(set, 0..used, &resolved, 0);
                encoder.copy_buffer_to_buffer(&resolved, 0, &readback, 0, bytes);
                readback
            });
            let submission = self.queue.submit([encoder.finish()]);
            readback.map(|buffer| (buffer, bytes, submission))
        })?;
        Ok(counts)
    }

    /// The samples each counted draw of `counts` passed (`None` for the draws not counted),
    /// in the order they were given; waits for their submission.
    pub fn read_sample_counts(&self, counts: &SampleCounts) -> Result<Vec<Option<u64>>, GpuError> {
        let values: Vec<u64> = match &counts.readback {
            Some((buffer, bytes, submission)) => self
                .read_buffers_after(
                    &[(buffer, *bytes)],
                    Some(submission.clone()),
                    "reading occlusion counts",
                    |b| {
                        b.chunks_exact(8)
                            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
                            .collect::<Vec<u64>>()
                    },
                )?
                .pop()
                .unwrap_or_default(),
            None => Vec::new(),
        };
        Ok(counts
            .per_draw
            .iter()
            .map(|slot| match slot {
                CountSlot::NotCounted => None,
                CountSlot::Zero => Some(0),
                CountSlot::Query(q) => Some(values.get(*q as usize).copied().unwrap_or(0)),
            })
            .collect())
    }

    /// Whether [`Gpu::raster_draws`] would take `draw` into `targets` (targets matching the
    /// pipeline, whole primitives, every unit the module samples bound; the pipeline is built
    /// and cached): the error it would fail with, checked before a draw is queued.
    pub fn check_raster_draw(
        &self,
        targets: &RasterTargets<'_>,
        draw: &RasterDraw<'_>,
    ) -> Result<(), GpuError> {
        self.checked_raster_draw(targets, draw).map(|_| ())
    }

    /// The checks of one draw and what recording it needs; `None` when its scissor leaves
    /// nothing to draw.
    fn checked_raster_draw(
        &self,
        targets: &RasterTargets<'_>,
        draw: &RasterDraw<'_>,
    ) -> Result<Option<CheckedDraw>, GpuError> {
        let desc = draw.desc;
        // Targets must match the pipeline's slots and each other's size.
        let mut size: Option<(u32, u32)> = None;
        let mut same_size = |name: String, s: (u32, u32)| -> Result<(), GpuError> {
            match size {
                Some(first) if first != s => Err(GpuError::argument(
                    name,
                    format!(
                        "is {}x{}, other targets are {}x{}",
                        s.0, s.1, first.0, first.1
                    ),
                )),
                _ => {
                    size = Some(s);
                    Ok(())
                }
            }
        };
        for n in 0..MAX_RASTER_TARGETS {
            let want = desc.targets.get(n).copied().flatten();
            match (want, targets.colors[n]) {
                (None, None) => {}
                (Some(w), Some(t)) if w.format == t.format => {
                    same_size(format!("targets.colors[{n}]"), t.size())?
                }
                (w, t) => {
                    return Err(GpuError::argument(
                        format!("targets.colors[{n}]"),
                        format!(
                            "the pipeline wants {:?}, the target is {:?}",
                            w.map(|w| w.format),
                            t.map(ColorTarget::format)
                        ),
                    ))
                }
            }
        }
        match (desc.depth_stencil, targets.depth) {
            (None, None) => {}
            (Some(d), Some(t)) if d.format == t.format => {
                same_size("targets.depth".to_string(), t.size())?
            }
            (d, t) => {
                return Err(GpuError::argument(
                    "targets.depth",
                    format!(
                        "the pipeline wants {:?}, the target is {:?}",
                        d.map(|d| d.format),
                        t.map(DepthTarget::format)
                    ),
                ))
            }
        }
        let Some((width, height)) = size else {
            return Err(GpuError::argument("targets", "no target to draw into"));
        };
        let stride = desc.vertex_attributes as usize;
        if stride == 0 || draw.vertices.len() % stride != 0 {
            return Err(GpuError::argument(
                "vertices",
                format!(
                    "holds {} vec4, not a whole number of {stride}-attribute vertices",
                    draw.vertices.len()
                ),
            ));
        }
        let vertices = draw.vertices.len() / stride;
        if let Some(indices) = draw.indices {
            if let Some((i, v)) = indices
                .iter()
                .enumerate()
                .find(|(_, &v)| v as usize >= vertices)
            {
                return Err(GpuError::argument(
                    "indices",
                    format!("index {i} is {v}, past the {vertices} vertices"),
                ));
            }
        }
        let count = draw.indices.map_or(vertices, <[u32]>::len);
        let per_primitive = match desc.topology {
            Topology::PointList => 1,
            Topology::LineList => 2,
            Topology::TriangleList => 3,
        };
        if count % per_primitive != 0 {
            return Err(GpuError::argument(
                if draw.indices.is_some() {
                    "indices"
                } else {
                    "vertices"
                },
                format!(
                    "{count} vertices are not whole {:?} primitives",
                    desc.topology
                ),
            ));
        }
        let count = u32::try_from(count)
            .ok()
            .filter(|_| (draw.vertices.len() as u64) * 16 <= self.limits.max_buffer_size)
            .filter(|&n| u64::from(n) * 4 <= self.limits.max_buffer_size)
            .ok_or_else(|| GpuError::argument("vertices", "exceed the vertex buffer limit"))?;
        for n in 0..MAX_RASTER_TARGETS {
            if desc.colors_before >> n & 1 != 0 && targets.colors[n].is_none() {
                return Err(GpuError::argument(
                    format!("targets.colors[{n}]"),
                    "the pipeline reads it as it was before the draw: it must be given",
                ));
            }
        }
        if desc.depth_bounds != draw.depth_bounds.is_some() {
            return Err(GpuError::argument(
                "depth_bounds",
                if desc.depth_bounds {
                    "the pipeline tests depth bounds: the draw must give them"
                } else {
                    "the pipeline does not test depth bounds"
                },
            ));
        }
        let entry = self.raster_pipeline(draw.module, desc)?;
        check_bound_units(&entry.units, &draw.textures, "textures")?;
        let back = match &draw.faces {
            Some(f) => Some(self.back_pipeline(draw.module, desc, f, count, per_primitive)?),
            None => None,
        };
        let scissor = match draw.scissor {
            None => Some([0, 0, width, height]),
            Some([x, y, w, h]) => {
                let x0 = x.min(width);
                let y0 = y.min(height);
                let x1 = x.saturating_add(w).min(width);
                let y1 = y.saturating_add(h).min(height);
                (x1 > x0 && y1 > y0).then_some([x0, y0, x1 - x0, y1 - y0])
            }
        };
        let Some(scissor) = scissor else {
            // Nothing inside the scissor: nothing is drawn.
            return Ok(None);
        };
        Ok(Some(CheckedDraw {
            entry,
            back,
            count,
            size: (width, height),
            scissor,
        }))
    }

    /// The back-facing runs' pipeline of a draw of `count` vertices, `per_primitive` each,
    /// under `desc` with `faces`, after checking them.
    fn back_pipeline(
        &self,
        module: &WgslModule,
        desc: &RasterPipelineDesc,
        faces: &FaceRuns<'_>,
        count: u32,
        per_primitive: usize,
    ) -> Result<crate::cache::RenderEntry, GpuError> {
        let back = faces.back_desc;
        let same_but_depth_stencil = RasterPipelineDesc {
            depth_stencil: desc.depth_stencil,
            ..back.clone()
        };
        if same_but_depth_stencil != *desc {
            return Err(GpuError::argument(
                "faces.back_desc",
                "differs from desc in more than its depth/stencil state",
            ));
        }
        let mut previous = None;
        for (i, &(first, _)) in faces.runs.iter().enumerate() {
            if first > count
                || first as usize % per_primitive != 0
                || previous.is_some_and(|p| first <= p)
            {
                return Err(GpuError::argument(
                    format!("faces.runs[{i}]"),
                    format!(
                        "starts at {first}: runs start at increasing whole primitives of the \
                         {count} vertices"
                    ),
                ));
            }
            previous = Some(first);
        }
        self.raster_pipeline(module, back)
    }

    /// A texture `texture` can be copied into and bound from (as depth when `depth`: its
    /// depth aspect), for a draw that reads it as it was before the draw.
    fn target_copy(&self, texture: &wgpu::Texture, depth: bool) -> TargetCopy {
        let copy = self.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("target before the draw"),
            size: texture.size(),
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: texture.format(),
            usage: wgpu::TextureUsages::COPY_DST | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        });
        let view = copy.create_view(&wgpu::TextureViewDescriptor {
            label: Some("target before the draw"),
            aspect: if depth {
                wgpu::TextureAspect::DepthOnly
            } else {
                wgpu::TextureAspect::All
            },
            ..Default::default()
        });
        TargetCopy {
            texture: copy,
            view,
        }
    }

    /// The bind groups and vertex buffer of a checked draw; `depth` and `colors` are the
    /// copies of its targets it reads as they were before it.
    fn prepare_raster_draw(
        &self,
        draw: &RasterDraw<'_>,
        c: &CheckedDraw,
        depth: Option<&TargetCopy>,
        colors: &[Option<&TargetCopy>; MAX_RASTER_TARGETS],
    ) -> PreparedDraw {
        let group1_entries = bound_unit_entries(&c.entry.units, &draw.textures);
        let bounds = draw.depth_bounds.map(|[lo, hi]| {
            self.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("depth bounds"),
                    contents: bytemuck::cast_slice(&[lo, hi, 0.0f32, 0.0]),
                    usage: wgpu::BufferUsages::UNIFORM,
                })
        });
        let mut group0_entries: Vec<wgpu::BindGroupEntry<'_>> = match (depth, &bounds) {
            (Some(copy), Some(bounds)) if draw.desc.depth_bounds => vec![
                wgpu::BindGroupEntry {
                    binding: crate::raster_pipeline::DEPTH_BEFORE_BINDING,
                    resource: wgpu::BindingResource::TextureView(&copy.view),
                },
                wgpu::BindGroupEntry {
                    binding: crate::raster_pipeline::DEPTH_BOUNDS_BINDING,
                    resource: bounds.as_entire_binding(),
                },
            ],
            _ => Vec::new(),
        };
        for (n, copy) in colors.iter().enumerate() {
            if let (Some(copy), true) = (copy, draw.desc.colors_before >> n & 1 != 0) {
                group0_entries.push(wgpu::BindGroupEntry {
                    binding: crate::raster_pipeline::COLOR_BEFORE_BINDING + n as u32,
                    resource: wgpu::BindingResource::TextureView(&copy.view),
                });
            }
        }
        let group0 = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("raster group 0"),
            layout: &c.entry.group0,
            entries: &group0_entries,
        });
        let group1 = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("raster group 1"),
            layout: &c.entry.group1,
            entries: &group1_entries,
        });
        let vertices = (c.count > 0).then(|| {
            self.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("raster vertices"),
                    contents: bytemuck::cast_slice(draw.vertices),
                    usage: wgpu::BufferUsages::VERTEX,
                })
        });
        let indices = draw.indices.filter(|_| c.count > 0).map(|indices| {
            self.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("raster indices"),
                    contents: bytemuck::cast_slice(indices),
                    usage: wgpu::BufferUsages::INDEX,
                })
        });
        PreparedDraw {
            group0,
            group1,
            vertices,
            indices,
        }
    }
}

/// A draw that passed [`Gpu::raster_draws`]' checks.
struct CheckedDraw {
    entry: crate::cache::RenderEntry,
    /// The pipeline of the back-facing runs of a draw with [`FaceRuns`].
    back: Option<crate::cache::RenderEntry>,
    count: u32,
    size: (u32, u32),
    scissor: [u32; 4],
}

/// A copy of a target, bound to the draws that read it as it was before them.
struct TargetCopy {
    texture: wgpu::Texture,
    view: wgpu::TextureView,
}

/// The textures of `targets` that a draw under `desc` reads as they were before it, and
/// whether each is a depth target: the depth target of a depth bounds test, the colour
/// targets of [`RasterPipelineDesc::colors_before`].
fn read_before<'t>(
    targets: &RasterTargets<'t>,
    desc: &RasterPipelineDesc,
) -> Vec<(&'t wgpu::Texture, bool)> {
    let mut out = Vec::new();
    if desc.depth_bounds {
        if let Some(t) = targets.depth {
            out.push((&t.texture, true));
        }
    }
    for (n, t) in targets.colors.iter().enumerate() {
        if let (Some(t), true) = (t, desc.colors_before >> n & 1 != 0) {
            out.push((&t.texture, false));
        }
    }
    out
}

/// The occlusion counts of a [`Gpu::raster_draws_counted`] call, read with
/// [`Gpu::read_sample_counts`].
#[derive(Debug)]
pub struct SampleCounts {
    per_draw: Vec<CountSlot>,
    /// The buffer the counts are copied to, its size and the submission that writes it.
    readback: Option<(wgpu::Buffer, u64, wgpu::SubmissionIndex)>,
}

/// Where one draw's count is.
#[derive(Clone, Copy, Debug)]
enum CountSlot {
    NotCounted,
    /// Counted, but it drew nothing.
    Zero,
    Query(u32),
}

/// The device objects a checked draw is recorded with.
struct PreparedDraw {
    group0: wgpu::BindGroup,
    group1: wgpu::BindGroup,
    vertices: Option<wgpu::Buffer>,
    indices: Option<wgpu::Buffer>,
}

/// Whether draws with pipelines `a_desc` and `b_desc` into `a` and `b` attach the same
/// targets (the same colour slots, the same depth target): they can share a render pass.
fn same_attachments(
    a: &RasterTargets<'_>,
    a_desc: &RasterPipelineDesc,
    b: &RasterTargets<'_>,
    b_desc: &RasterPipelineDesc,
) -> bool {
    fn same<T>(x: Option<&T>, y: Option<&T>) -> bool {
        match (x, y) {
            (Some(x), Some(y)) => std::ptr::eq(x, y),
            (None, None) => true,
            _ => false,
        }
    }
    a_desc.targets.len() == b_desc.targets.len()
        && a.colors
            .iter()
            .zip(&b.colors)
            .take(a_desc.targets.len())
            .all(|(x, y)| same(*x, *y))
        && same(a.depth, b.depth)
}

/// Begins a render pass loading and storing `targets` (the colour slots of `desc`).
fn begin_pass<'e>(
    encoder: &'e mut wgpu::CommandEncoder,
    targets: &RasterTargets<'_>,
    desc: &RasterPipelineDesc,
    occlusion: Option<&wgpu::QuerySet>,
) -> wgpu::RenderPass<'e> {
    let attachments: Vec<Option<wgpu::RenderPassColorAttachment<'_>>> = targets
        .colors
        .iter()
        .take(desc.targets.len())
        .map(|t| {
            t.map(|t| wgpu::RenderPassColorAttachment {
                view: &t.view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Load,
                    store: wgpu::StoreOp::Store,
                },
            })
        })
        .collect();
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("raster draws"),
        color_attachments: &attachments,
        depth_stencil_attachment: targets
            .depth
            .map(|t| wgpu::RenderPassDepthStencilAttachment {
                view: &t.view,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Load,
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: t.format.has_stencil().then_some(wgpu::Operations {
                    load: wgpu::LoadOp::Load,
                    store: wgpu::StoreOp::Store,
                }),
            }),
        timestamp_writes: None,
        occlusion_query_set: occlusion,
        multiview_mask: None,
    })
}

/// Records `draw` into `pass` (begun on its targets).
fn record_raster_draw(
    pass: &mut wgpu::RenderPass<'_>,
    draw: &RasterDraw<'_>,
    c: &CheckedDraw,
    p: &PreparedDraw,
) {
    let (width, height) = c.size;
    let Some(buf) = &p.vertices else {
        return;
    };
    pass.set_pipeline(&c.entry.pipeline);
    pass.set_bind_group(0, &p.group0, &[]);
    pass.set_bind_group(1, &p.group1, &[]);
    pass.set_vertex_buffer(0, buf.slice(..));
    let v = draw.viewport.unwrap_or(RasterViewport {
        x: 0.0,
        y: 0.0,
        width: width as f32,
        height: height as f32,
        min_depth: 0.0,
        max_depth: 1.0,
    });
    pass.set_viewport(v.x, v.y, v.width, v.height, v.min_depth, v.max_depth);
    let s = c.scissor;
    pass.set_scissor_rect(s[0], s[1], s[2], s[3]);
    pass.set_stencil_reference(draw.stencil_reference);
    let k = draw.blend_constant;
    pass.set_blend_constant(wgpu::Color {
        r: k[0],
        g: k[1],
        b: k[2],
        a: k[3],
    });
    if let Some(indices) = &p.indices {
        pass.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
    }
    let range = |pass: &mut wgpu::RenderPass<'_>, r: std::ops::Range<u32>| {
        if p.indices.is_some() {
            pass.draw_indexed(r, 0, 0..1);
        } else {
            pass.draw(r, 0..1);
        }
    };
    match (&draw.faces, &c.back) {
        (Some(faces), Some(back)) => {
            let runs = faces.runs;
            for (i, &(first, is_back)) in runs.iter().enumerate() {
                let end = runs.get(i + 1).map_or(c.count, |r| r.0);
                if is_back {
                    pass.set_pipeline(&back.pipeline);
                    pass.set_stencil_reference(faces.back_reference);
                } else {
                    pass.set_pipeline(&c.entry.pipeline);
                    pass.set_stencil_reference(draw.stencil_reference);
                }
                range(pass, first..end);
            }
        }
        _ => range(pass, 0..c.count),
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
