//! Rendering with the recompiled rendering entry points: a render pipeline made of a vertex
//! module's `vp_main` and a fragment module's `fp_main` (ABI.md "Entry points"), one
//! interleaved vertex buffer of 16 `Float32x4` attributes, the transform constants and
//! `VpParams` in group 0 for the vertex stage, a triangle list drawn into cleared
//! `Rgba32Float` targets, and colour target 0 read back.

use rsxtrace_wgsl::WgslModule;
use wgpu::util::DeviceExt;

use crate::abi::{require_entry, texture_units, vertex_texture_units};
use crate::cache::{PipelineKey, PipelineState, RenderEntry};
use crate::device::Gpu;
use crate::error::GpuError;
use crate::vertex::{
    buffer_entry, read_vec4, storage_entry, uniform_entry, VP_CONSTANTS, VP_INPUTS,
};

/// Bytes of one vec4 (an attribute, a constant, an `Rgba32Float` texel).
const VEC4: u64 = 16;
/// Bytes of one vertex in the interleaved buffer: attribute a at offset 16a.
const VERTEX_STRIDE: u64 = VP_INPUTS as u64 * VEC4;
/// Colour outputs `fp_main` may declare (ABI.md: `@location(0..3)`).
const MAX_TARGETS: u32 = 4;
/// The cache entry name of a `vp_main` + `fp_main` pipeline. Keys also differ from the
/// single-module pipelines by their combined module and source hashes.
const RENDER_ENTRY: &str = "vp_main+fp_main";
/// Depth format used when `fp_main` writes `frag_depth` (wgpu refuses such a pipeline without
/// a depth attachment, wgpu-core validation `MissingFragDepthAttachment`).
const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// What the fragment entry point writes, from naga's reflection of its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FragmentOutputs {
    /// Bit n set when `@location(n)` is an output.
    locations: u32,
    /// `@builtin(frag_depth)` is an output.
    depth: bool,
}

impl FragmentOutputs {
    /// Number of colour target slots: one past the highest location (gaps are `None`).
    fn slots(self) -> u32 {
        u32::BITS - self.locations.leading_zeros()
    }
}

/// The outputs of `module`'s entry point `name` (a fragment entry point, checked before).
fn fragment_outputs(module: &WgslModule, name: &str) -> Result<FragmentOutputs, GpuError> {
    let abi = |what: String| GpuError::Abi {
        hash: module.hash,
        what,
    };
    let ep = module
        .module
        .entry_points
        .iter()
        .find(|ep| ep.name == name)
        .ok_or_else(|| abi(format!("entry point {name} is missing")))?;
    let mut out = FragmentOutputs {
        locations: 0,
        depth: false,
    };
    let Some(result) = &ep.function.result else {
        return Ok(out);
    };
    let mut record = |binding: Option<&naga::Binding>| -> Result<(), GpuError> {
        match binding {
            Some(naga::Binding::Location { location, .. }) if *location < MAX_TARGETS => {
                out.locations |= 1 << location;
                Ok(())
            }
            Some(naga::Binding::Location { location, .. }) => Err(abi(format!(
                "{name} writes @location({location}); the ABI has colour outputs 0..3"
            ))),
            Some(naga::Binding::BuiltIn(naga::BuiltIn::FragDepth)) => {
                out.depth = true;
                Ok(())
            }
            Some(naga::Binding::BuiltIn(b)) => {
                Err(abi(format!("{name} writes the built-in {b:?}")))
            }
            None => Err(abi(format!("{name} has an output without a binding"))),
        }
    };
    if result.binding.is_some() {
        record(result.binding.as_ref())?;
        return Ok(out);
    }
    let ty = module
        .module
        .types
        .get_handle(result.ty)
        .map_err(|_| abi(format!("the result of {name} has no type")))?;
    match &ty.inner {
        naga::TypeInner::Struct { members, .. } => {
            for m in members {
                record(m.binding.as_ref())?;
            }
        }
        _ => return Err(abi(format!("the result of {name} has no binding"))),
    }
    Ok(out)
}

/// A checked render size: image, padded readback row, readback bytes.
struct Target {
    width: u32,
    height: u32,
    padded_row: u64,
    bytes: u64,
}

impl Gpu {
    /// Draws `vertices` (16 attributes each, consecutive triples are triangles) with
    /// `vp_module`'s `vp_main` and `fp_module`'s `fp_main` into a `width` × `height` target
    /// cleared to 0, with the transform constants `constants` and branch bits 0, and returns
    /// colour target 0 row by row, row 0 at the top (wgpu's framebuffer convention: NDC y = +1
    /// is row 0). No depth test, no culling, no blending; the fragment module must sample no
    /// texture.
    pub fn render_triangles(
        &self,
        vp_module: &WgslModule,
        fp_module: &WgslModule,
        vertices: &[[[f32; 4]; VP_INPUTS]],
        constants: &[[f32; 4]; VP_CONSTANTS],
        width: u32,
        height: u32,
    ) -> Result<Vec<[f32; 4]>, GpuError> {
        self.render_triangles_with_branch_bits(
            vp_module, fp_module, vertices, constants, 0, width, height,
        )
    }

    /// [`Gpu::render_triangles`] with `vp_params.branch_bits` = `branch_bits` (the draw's
    /// `SET_TRANSFORM_BRANCH_BITS`, read by BRB/CLB).
    #[allow(clippy::too_many_arguments)]
    pub fn render_triangles_with_branch_bits(
        &self,
        vp_module: &WgslModule,
        fp_module: &WgslModule,
        vertices: &[[[f32; 4]; VP_INPUTS]],
        constants: &[[f32; 4]; VP_CONSTANTS],
        branch_bits: u32,
        width: u32,
        height: u32,
    ) -> Result<Vec<[f32; 4]>, GpuError> {
        let target = self.render_target(width, height)?;
        if vertices.len() % 3 != 0 {
            return Err(GpuError::argument(
                "vertices",
                format!(
                    "holds {} vertices, not a whole number of triangles",
                    vertices.len()
                ),
            ));
        }
        let vertex_count = u32::try_from(vertices.len())
            .ok()
            .filter(|_| vertices.len() as u64 * VERTEX_STRIDE <= self.limits.max_buffer_size)
            .ok_or_else(|| {
                GpuError::argument(
                    "vertices",
                    format!("{} vertices exceed the vertex buffer limit", vertices.len()),
                )
            })?;
        let (entry, outputs) = self.render_pipeline(vp_module, fp_module)?;
        let stage = "rendering vp_main + fp_main";
        let readback = self.scoped(stage, || {
            let constants_buf = self
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("vp_constants"),
                    contents: bytemuck::cast_slice(constants.as_slice()),
                    usage: wgpu::BufferUsages::STORAGE,
                });
            let params: [u32; 4] = [vertex_count, branch_bits, 0, 0];
            let params_buf = self
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("vp_params"),
                    contents: bytemuck::cast_slice(&params),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
            let vertex_buf = (vertex_count > 0).then(|| {
                self.device
                    .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                        label: Some("vertices"),
                        contents: bytemuck::cast_slice(vertices),
                        usage: wgpu::BufferUsages::VERTEX,
                    })
            });
            let group0 = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("render group 0"),
                layout: &entry.group0,
                entries: &[
                    buffer_entry(0, &constants_buf),
                    buffer_entry(1, &params_buf),
                ],
            });
            let group1 = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("render group 1 (no textures)"),
                layout: &entry.group1,
                entries: &[],
            });
            let extent = wgpu::Extent3d {
                width: target.width,
                height: target.height,
                depth_or_array_layers: 1,
            };
            let texture = |label, format, usage| {
                self.device.create_texture(&wgpu::TextureDescriptor {
                    label: Some(label),
                    size: extent,
                    mip_level_count: 1,
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage,
                    view_formats: &[],
                })
            };
            let colours: Vec<Option<wgpu::Texture>> = (0..outputs.slots())
                .map(|n| {
                    (outputs.locations & (1 << n) != 0).then(|| {
                        texture(
                            "render colour target",
                            wgpu::TextureFormat::Rgba32Float,
                            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
                        )
                    })
                })
                .collect();
            let views: Vec<Option<wgpu::TextureView>> = colours
                .iter()
                .map(|t| {
                    t.as_ref()
                        .map(|t| t.create_view(&wgpu::TextureViewDescriptor::default()))
                })
                .collect();
            let attachments: Vec<Option<wgpu::RenderPassColorAttachment<'_>>> = views
                .iter()
                .map(|view| {
                    view.as_ref().map(|view| wgpu::RenderPassColorAttachment {
                        view,
                        depth_slice: None,
                        resolve_target: None,
                        ops: wgpu::Operations {
                            load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                            store: wgpu::StoreOp::Store,
                        },
                    })
                })
                .collect();
            let depth_view = outputs.depth.then(|| {
                texture(
                    "render depth",
                    DEPTH_FORMAT,
                    wgpu::TextureUsages::RENDER_ATTACHMENT,
                )
                .create_view(&wgpu::TextureViewDescriptor::default())
            });
            let readback = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("render readback"),
                size: target.bytes,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let mut encoder = self
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("render_triangles"),
                });
            {
                let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("render_triangles"),
                    color_attachments: &attachments,
                    depth_stencil_attachment: depth_view.as_ref().map(|view| {
                        wgpu::RenderPassDepthStencilAttachment {
                            view,
                            depth_ops: Some(wgpu::Operations {
                                load: wgpu::LoadOp::Clear(1.0),
                                store: wgpu::StoreOp::Discard,
                            }),
                            stencil_ops: None,
                        }
                    }),
                    timestamp_writes: None,
                    occlusion_query_set: None,
                    multiview_mask: None,
                });
                if let Some(buf) = &vertex_buf {
                    pass.set_pipeline(&entry.pipeline);
                    pass.set_bind_group(0, &group0, &[]);
                    pass.set_bind_group(1, &group1, &[]);
                    pass.set_vertex_buffer(0, buf.slice(..));
                    pass.draw(0..vertex_count, 0..1);
                }
            }
            // Target 0 exists: render_pipeline requires fp_main to write @location(0).
            if let Some(Some(texture)) = colours.first() {
                encoder.copy_texture_to_buffer(
                    wgpu::TexelCopyTextureInfo {
                        texture,
                        mip_level: 0,
                        origin: wgpu::Origin3d::ZERO,
                        aspect: wgpu::TextureAspect::All,
                    },
                    wgpu::TexelCopyBufferInfo {
                        buffer: &readback,
                        layout: wgpu::TexelCopyBufferLayout {
                            offset: 0,
                            // padded_row <= 16 * max_texture_dimension_2d + 255, fits u32.
                            bytes_per_row: Some(target.padded_row as u32),
                            rows_per_image: Some(target.height),
                        },
                    },
                    extent,
                );
            }
            self.queue.submit([encoder.finish()]);
            readback
        })?;
        let bytes = self.read_buffer(&readback, target.bytes, "reading render target 0")?;
        let mut pixels = Vec::with_capacity(target.width as usize * target.height as usize);
        for (y, row) in (0..target.height).zip(bytes.chunks(target.padded_row as usize)) {
            let texels = row
                .get(..target.width as usize * VEC4 as usize)
                .ok_or_else(|| GpuError::BadResult {
                    at: format!("row {y}"),
                    what: format!("the readback row holds only {} bytes", row.len()),
                })?;
            pixels.extend(texels.chunks_exact(VEC4 as usize).map(read_vec4));
        }
        let expected = u64::from(target.width) * u64::from(target.height);
        if pixels.len() as u64 != expected {
            return Err(GpuError::BadResult {
                at: "render target 0".to_string(),
                what: format!("read back {} of {expected} pixels", pixels.len()),
            });
        }
        Ok(pixels)
    }

    /// Checks the size against the limits and the device's `Rgba32Float` rendering.
    fn render_target(&self, width: u32, height: u32) -> Result<Target, GpuError> {
        if !self.info.rgba32float_renderable {
            return Err(self.unsupported(
                "render to Rgba32Float (render_triangles needs it; wgpu-GL cannot, use the \
                 Vulkan backend)",
            ));
        }
        let max = self.limits.max_texture_dimension_2d;
        if width == 0 || height == 0 || width > max || height > max {
            return Err(GpuError::argument(
                "width, height",
                format!("{width}x{height} is outside 1..={max} on each side"),
            ));
        }
        let padded_row = padded_row(width);
        let bytes = padded_row * u64::from(height);
        if bytes > self.limits.max_buffer_size {
            return Err(GpuError::argument(
                "width, height",
                format!("{width}x{height}: the readback buffer exceeds max_buffer_size"),
            ));
        }
        Ok(Target {
            width,
            height,
            padded_row,
            bytes,
        })
    }

    /// The cached render pipeline of (`vp_module`, `fp_module`) and what `fp_main` writes.
    fn render_pipeline(
        &self,
        vp_module: &WgslModule,
        fp_module: &WgslModule,
    ) -> Result<(RenderEntry, FragmentOutputs), GpuError> {
        require_entry(vp_module, "vp_main", naga::ShaderStage::Vertex)?;
        require_entry(fp_module, "fp_main", naga::ShaderStage::Fragment)?;
        let outputs = fragment_outputs(fp_module, "fp_main")?;
        if outputs.locations & 1 == 0 {
            return Err(GpuError::Abi {
                hash: fp_module.hash,
                what: "fp_main does not write @location(0)".to_string(),
            });
        }
        if let Some(u) = vertex_texture_units(vp_module)?.first() {
            return Err(GpuError::argument(
                "vp_module",
                format!(
                    "samples vertex texture unit {}; render_triangles binds no textures",
                    u.unit
                ),
            ));
        }
        let units = texture_units(fp_module)?;
        if let Some(u) = units.first() {
            return Err(GpuError::argument(
                "fp_module",
                format!(
                    "samples texture unit {}; render_triangles binds no textures",
                    u.unit
                ),
            ));
        }
        let bytes = outputs.locations.count_ones() * VEC4 as u32;
        if outputs.slots() > self.info.max_color_attachments
            || bytes > self.info.max_color_attachment_bytes_per_sample
        {
            return Err(self.unsupported(format!(
                "bind {} Rgba32Float targets: max_color_attachments {}, \
                 max_color_attachment_bytes_per_sample {} (need {bytes})",
                outputs.locations.count_ones(),
                self.info.max_color_attachments,
                self.info.max_color_attachment_bytes_per_sample
            )));
        }
        let key = render_key(vp_module, fp_module);
        let entry = self.cache.render(key, || {
            self.scoped("creating render pipeline vp_main + fp_main", || {
                let vis = wgpu::ShaderStages::VERTEX;
                let constants = wgpu::BufferSize::new(VP_CONSTANTS as u64 * VEC4);
                let group0 = [
                    storage_entry(0, vis, true, constants),
                    uniform_entry(1, vis),
                ];
                // Group 1 is empty: this path binds no textures.
                let layout = self.two_group_layout("render_triangles", &group0, &[]);
                let vs = self.wgsl_module("vertex program", &vp_module.source);
                let fs = self.wgsl_module("fragment program", &fp_module.source);
                let attributes: [wgpu::VertexAttribute; VP_INPUTS] =
                    std::array::from_fn(|a| wgpu::VertexAttribute {
                        format: wgpu::VertexFormat::Float32x4,
                        offset: a as u64 * VEC4,
                        shader_location: a as u32,
                    });
                let buffers = [Some(wgpu::VertexBufferLayout {
                    array_stride: VERTEX_STRIDE,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &attributes,
                })];
                let targets: Vec<Option<wgpu::ColorTargetState>> = (0..outputs.slots())
                    .map(|n| {
                        (outputs.locations & (1 << n) != 0).then_some(wgpu::ColorTargetState {
                            format: wgpu::TextureFormat::Rgba32Float,
                            blend: None,
                            write_mask: wgpu::ColorWrites::ALL,
                        })
                    })
                    .collect();
                let pipeline =
                    self.device
                        .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                            label: Some("render_triangles"),
                            layout: Some(&layout.pipeline),
                            vertex: wgpu::VertexState {
                                module: &vs,
                                entry_point: Some("vp_main"),
                                compilation_options: Default::default(),
                                buffers: &buffers,
                            },
                            primitive: wgpu::PrimitiveState {
                                topology: wgpu::PrimitiveTopology::TriangleList,
                                cull_mode: None,
                                ..Default::default()
                            },
                            depth_stencil: outputs.depth.then(|| wgpu::DepthStencilState {
                                format: DEPTH_FORMAT,
                                depth_write_enabled: Some(true),
                                depth_compare: Some(wgpu::CompareFunction::Always),
                                stencil: wgpu::StencilState::default(),
                                bias: wgpu::DepthBiasState::default(),
                            }),
                            multisample: wgpu::MultisampleState::default(),
                            fragment: Some(wgpu::FragmentState {
                                module: &fs,
                                entry_point: Some("fp_main"),
                                compilation_options: Default::default(),
                                targets: &targets,
                            }),
                            multiview_mask: None,
                            cache: None,
                        });
                RenderEntry {
                    pipeline,
                    group0: layout.group0,
                    group1: layout.group1,
                    units: Vec::new(),
                }
            })
        })?;
        Ok((entry, outputs))
    }
}

/// Bytes of one `Rgba32Float` readback row of `width` texels, padded to
/// `COPY_BYTES_PER_ROW_ALIGNMENT`.
pub(crate) fn padded_row(width: u32) -> u64 {
    let align = u64::from(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    (u64::from(width) * VEC4).div_ceil(align) * align
}

/// The cache key of a two-module pipeline: both modules' hashes and both sources folded into
/// one key, under its own entry name.
fn render_key(vp_module: &WgslModule, fp_module: &WgslModule) -> PipelineKey {
    let mut ids = [0u8; 16];
    ids[..8].copy_from_slice(&vp_module.hash.to_le_bytes());
    ids[8..].copy_from_slice(&fp_module.hash.to_le_bytes());
    let mut sources = xxhash_rust::xxh3::Xxh3::new();
    sources.update(&(vp_module.source.len() as u64).to_le_bytes());
    sources.update(vp_module.source.as_bytes());
    sources.update(fp_module.source.as_bytes());
    PipelineKey {
        module: xxhash_rust::xxh3::xxh3_64(&ids),
        source: sources.digest(),
        entry: RENDER_ENTRY,
        state: PipelineState::Render,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(source: &str) -> WgslModule {
        let (module, info) = rsxtrace_wgsl::validate(source).expect("valid WGSL");
        WgslModule {
            source: source.to_string(),
            module,
            info,
            hash: 7,
        }
    }

    #[test]
    fn outputs_are_read_from_the_result_struct() {
        let m = module(
            "struct T { @location(0) a: vec4<f32>, @location(2) b: vec4<f32>, \
             @builtin(frag_depth) d: f32 }\n\
             @fragment fn fp_main() -> T { return T(vec4<f32>(), vec4<f32>(), 0.5); }",
        );
        let o = fragment_outputs(&m, "fp_main").unwrap();
        assert_eq!(
            o,
            FragmentOutputs {
                locations: 0b101,
                depth: true
            }
        );
        assert_eq!(o.slots(), 3);
    }

    #[test]
    fn a_single_output_and_bad_locations() {
        let m = module("@fragment fn fp_main() -> @location(1) vec4<f32> { return vec4<f32>(); }");
        let o = fragment_outputs(&m, "fp_main").unwrap();
        assert_eq!((o.locations, o.depth, o.slots()), (0b10, false, 2));
        let m = module("@fragment fn fp_main() -> @location(5) vec4<f32> { return vec4<f32>(); }");
        let err = fragment_outputs(&m, "fp_main").unwrap_err().to_string();
        assert!(err.contains("@location(5)"), "{err}");
        let err = fragment_outputs(&m, "fp_other").unwrap_err().to_string();
        assert!(err.contains("fp_other is missing"), "{err}");
    }

    #[test]
    fn keys_depend_on_both_modules() {
        let a = module("@fragment fn fp_main() -> @location(0) vec4<f32> { return vec4<f32>(); }");
        let b =
            module("@fragment fn fp_main() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }");
        assert_ne!(render_key(&a, &b), render_key(&b, &a));
        assert_ne!(render_key(&a, &a), render_key(&a, &b));
        assert_eq!(render_key(&a, &b), render_key(&a, &b));
        assert_ne!(
            render_key(&a, &b),
            PipelineKey::new(
                &a,
                "fp_eval",
                PipelineState::FragmentEval { filterable: true }
            )
        );
    }
}
