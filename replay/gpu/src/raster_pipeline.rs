//! A general, state-driven render pipeline: the descriptor of one draw's fixed-function state
//! ([`RasterPipelineDesc`]: topology, culling, depth and stencil tests, per-target blending and
//! write masks, target formats, depth bias) and its wgpu pipeline, built once per (module,
//! entry points, state) through the pipeline cache.
//!
//! The vertex stage reads `vertex_attributes` consecutive `Float32x4` attributes per vertex
//! (locations 0.., one interleaved buffer); the fragment entry point writes `@location(n)` for
//! every target slot that is `Some`. Textures are group 1 as in `replay/wgsl/ABI.md` (unit u
//! at bindings 2u and 2u + 1); group 0 is empty. What varies per draw without a new pipeline
//! (viewport, scissor, stencil reference, blend constant) is in
//! [`RasterDraw`](crate::raster_draw::RasterDraw).

use std::hash::{Hash, Hasher};

use rsxtrace_wgsl::WgslModule;

use crate::abi::{require_entry, texture_layout_entries, texture_units};
use crate::cache::{PipelineKey, PipelineState, RenderEntry};
use crate::device::Gpu;
use crate::error::GpuError;

/// Colour targets a pipeline may write (`@location(0..3)`).
pub const MAX_RASTER_TARGETS: usize = 4;
/// Largest `vertex_attributes` (wgpu's guaranteed `max_vertex_attributes`).
pub const MAX_VERTEX_ATTRIBUTES: u32 = 16;

/// Formats a colour target can have on the device. RSX formats without a wgpu equivalent are
/// rendered into one of these and converted when read back (the caller's job).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TargetFormat {
    /// 8-bit unsigned normalised RGBA (every 5/6/8-bit RSX format).
    Rgba8Unorm,
    /// 16-bit float RGBA (blendable).
    Rgba16Float,
    /// 32-bit float RGBA (blending needs `FLOAT32_BLENDABLE`).
    Rgba32Float,
}

impl TargetFormat {
    pub(crate) fn wgpu(self) -> wgpu::TextureFormat {
        match self {
            TargetFormat::Rgba8Unorm => wgpu::TextureFormat::Rgba8Unorm,
            TargetFormat::Rgba16Float => wgpu::TextureFormat::Rgba16Float,
            TargetFormat::Rgba32Float => wgpu::TextureFormat::Rgba32Float,
        }
    }

    /// Bytes of one texel.
    pub fn texel_bytes(self) -> u32 {
        match self {
            TargetFormat::Rgba8Unorm => 4,
            TargetFormat::Rgba16Float => 8,
            TargetFormat::Rgba32Float => 16,
        }
    }
}

/// Depth/stencil formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DepthFormat {
    /// 16-bit unsigned normalised depth, no stencil (RSX Z16, exact).
    Depth16,
    /// 32-bit float depth and 8-bit stencil (RSX Z24S8: depth is kept in float and rounded to
    /// 24 bits by whoever reads it back). Needs `DEPTH32FLOAT_STENCIL8`.
    Depth32Stencil8,
}

impl DepthFormat {
    pub(crate) fn wgpu(self) -> wgpu::TextureFormat {
        match self {
            DepthFormat::Depth16 => wgpu::TextureFormat::Depth16Unorm,
            DepthFormat::Depth32Stencil8 => wgpu::TextureFormat::Depth32FloatStencil8,
        }
    }

    /// The format has a stencil aspect.
    pub fn has_stencil(self) -> bool {
        self == DepthFormat::Depth32Stencil8
    }
}

/// Primitive topology (strips, fans, quads and polygons are converted to lists by the caller).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Topology {
    /// One pixel per vertex.
    PointList,
    /// One-pixel-wide lines, pairs of vertices.
    LineList,
    /// Triangles, triples of vertices.
    #[default]
    TriangleList,
}

/// Which faces are culled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Cull {
    /// None.
    #[default]
    None,
    /// Front faces.
    Front,
    /// Back faces.
    Back,
}

/// Winding of front faces in framebuffer coordinates (row 0 at the top, y down): `Ccw` =
/// counter-clockwise as seen on a screen showing row 0 at the top.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Winding {
    /// Counter-clockwise on screen.
    #[default]
    Ccw,
    /// Clockwise on screen.
    Cw,
}

/// A comparison (depth, stencil).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Compare {
    /// Never passes.
    Never,
    /// new < old.
    Less,
    /// new == old.
    Equal,
    /// new <= old.
    LessEqual,
    /// new > old.
    Greater,
    /// new != old.
    NotEqual,
    /// new >= old.
    GreaterEqual,
    /// Always passes.
    #[default]
    Always,
}

impl Compare {
    fn wgpu(self) -> wgpu::CompareFunction {
        match self {
            Compare::Never => wgpu::CompareFunction::Never,
            Compare::Less => wgpu::CompareFunction::Less,
            Compare::Equal => wgpu::CompareFunction::Equal,
            Compare::LessEqual => wgpu::CompareFunction::LessEqual,
            Compare::Greater => wgpu::CompareFunction::Greater,
            Compare::NotEqual => wgpu::CompareFunction::NotEqual,
            Compare::GreaterEqual => wgpu::CompareFunction::GreaterEqual,
            Compare::Always => wgpu::CompareFunction::Always,
        }
    }
}

/// A stencil operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum StencilOperation {
    /// Keep.
    #[default]
    Keep,
    /// Zero.
    Zero,
    /// Replace with the reference.
    Replace,
    /// Bitwise invert.
    Invert,
    /// Increment, clamped.
    IncrementClamp,
    /// Decrement, clamped.
    DecrementClamp,
    /// Increment, wrapping.
    IncrementWrap,
    /// Decrement, wrapping.
    DecrementWrap,
}

impl StencilOperation {
    fn wgpu(self) -> wgpu::StencilOperation {
        match self {
            StencilOperation::Keep => wgpu::StencilOperation::Keep,
            StencilOperation::Zero => wgpu::StencilOperation::Zero,
            StencilOperation::Replace => wgpu::StencilOperation::Replace,
            StencilOperation::Invert => wgpu::StencilOperation::Invert,
            StencilOperation::IncrementClamp => wgpu::StencilOperation::IncrementClamp,
            StencilOperation::DecrementClamp => wgpu::StencilOperation::DecrementClamp,
            StencilOperation::IncrementWrap => wgpu::StencilOperation::IncrementWrap,
            StencilOperation::DecrementWrap => wgpu::StencilOperation::DecrementWrap,
        }
    }
}

/// One face's stencil test.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StencilFaceDesc {
    /// Comparison of (reference & read mask) with (stored & read mask).
    pub compare: Compare,
    /// Operation when the stencil test fails.
    pub fail: StencilOperation,
    /// Operation when the stencil test passes and the depth test fails.
    pub depth_fail: StencilOperation,
    /// Operation when both pass.
    pub pass: StencilOperation,
}

/// The stencil test (wgpu has one read mask and one write mask for both faces).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StencilDesc {
    /// Front faces.
    pub front: StencilFaceDesc,
    /// Back faces.
    pub back: StencilFaceDesc,
    /// Read (compare) mask.
    pub read_mask: u8,
    /// Write mask.
    pub write_mask: u8,
}

/// Depth bias (polygon offset), in the units of wgpu's `DepthBiasState`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DepthBias {
    /// Constant bias, in units of the format's smallest step.
    pub constant: i32,
    /// Slope factor.
    pub slope_scale: f32,
}

impl Hash for DepthBias {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.constant.hash(state);
        self.slope_scale.to_bits().hash(state);
    }
}

impl Eq for DepthBias {}

/// Depth and stencil state of a pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DepthStencilDesc {
    /// Format of the depth target.
    pub format: DepthFormat,
    /// Depth comparison (`Always` when the test is off).
    pub compare: Compare,
    /// Depth writes.
    pub write: bool,
    /// Stencil test (`None`: off).
    pub stencil: Option<StencilDesc>,
    /// Depth bias.
    pub bias: DepthBias,
}

/// A blend factor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BlendFactor {
    /// 0.
    Zero,
    /// 1.
    #[default]
    One,
    /// Source colour.
    Src,
    /// 1 - source colour.
    OneMinusSrc,
    /// Source alpha.
    SrcAlpha,
    /// 1 - source alpha.
    OneMinusSrcAlpha,
    /// Destination colour.
    Dst,
    /// 1 - destination colour.
    OneMinusDst,
    /// Destination alpha.
    DstAlpha,
    /// 1 - destination alpha.
    OneMinusDstAlpha,
    /// min(source alpha, 1 - destination alpha).
    SrcAlphaSaturated,
    /// The draw's blend constant.
    Constant,
    /// 1 - the draw's blend constant.
    OneMinusConstant,
}

impl BlendFactor {
    fn wgpu(self) -> wgpu::BlendFactor {
        match self {
            BlendFactor::Zero => wgpu::BlendFactor::Zero,
            BlendFactor::One => wgpu::BlendFactor::One,
            BlendFactor::Src => wgpu::BlendFactor::Src,
            BlendFactor::OneMinusSrc => wgpu::BlendFactor::OneMinusSrc,
            BlendFactor::SrcAlpha => wgpu::BlendFactor::SrcAlpha,
            BlendFactor::OneMinusSrcAlpha => wgpu::BlendFactor::OneMinusSrcAlpha,
            BlendFactor::Dst => wgpu::BlendFactor::Dst,
            BlendFactor::OneMinusDst => wgpu::BlendFactor::OneMinusDst,
            BlendFactor::DstAlpha => wgpu::BlendFactor::DstAlpha,
            BlendFactor::OneMinusDstAlpha => wgpu::BlendFactor::OneMinusDstAlpha,
            BlendFactor::SrcAlphaSaturated => wgpu::BlendFactor::SrcAlphaSaturated,
            BlendFactor::Constant => wgpu::BlendFactor::Constant,
            BlendFactor::OneMinusConstant => wgpu::BlendFactor::OneMinusConstant,
        }
    }
}

/// A blend equation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BlendOperation {
    /// src × sf + dst × df.
    #[default]
    Add,
    /// src × sf − dst × df.
    Subtract,
    /// dst × df − src × sf.
    ReverseSubtract,
    /// min(src, dst).
    Min,
    /// max(src, dst).
    Max,
}

impl BlendOperation {
    fn wgpu(self) -> wgpu::BlendOperation {
        match self {
            BlendOperation::Add => wgpu::BlendOperation::Add,
            BlendOperation::Subtract => wgpu::BlendOperation::Subtract,
            BlendOperation::ReverseSubtract => wgpu::BlendOperation::ReverseSubtract,
            BlendOperation::Min => wgpu::BlendOperation::Min,
            BlendOperation::Max => wgpu::BlendOperation::Max,
        }
    }
}

/// Blending of the colour or the alpha channel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BlendComponentDesc {
    /// Source factor.
    pub src: BlendFactor,
    /// Destination factor.
    pub dst: BlendFactor,
    /// Equation.
    pub operation: BlendOperation,
}

impl BlendComponentDesc {
    fn wgpu(self) -> wgpu::BlendComponent {
        // wgpu requires factors One for Min/Max (WebGPU "blend component" validation); the
        // factors do not take part in those equations anyway.
        let minmax = matches!(self.operation, BlendOperation::Min | BlendOperation::Max);
        wgpu::BlendComponent {
            src_factor: if minmax {
                wgpu::BlendFactor::One
            } else {
                self.src.wgpu()
            },
            dst_factor: if minmax {
                wgpu::BlendFactor::One
            } else {
                self.dst.wgpu()
            },
            operation: self.operation.wgpu(),
        }
    }
}

/// Blending of one target.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BlendDesc {
    /// RGB.
    pub color: BlendComponentDesc,
    /// Alpha.
    pub alpha: BlendComponentDesc,
}

/// One colour target of a pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ColorTargetDesc {
    /// Format.
    pub format: TargetFormat,
    /// Blending (`None`: off).
    pub blend: Option<BlendDesc>,
    /// Channel writes: bit 0 R, 1 G, 2 B, 3 A.
    pub write_mask: u8,
}

/// Everything a raster pipeline depends on besides its module.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RasterPipelineDesc {
    /// Vertex entry point of the module.
    pub vertex_entry: String,
    /// Fragment entry point of the module.
    pub fragment_entry: String,
    /// `Float32x4` attributes per vertex (locations 0..n), 1..=16.
    pub vertex_attributes: u32,
    /// Topology.
    pub topology: Topology,
    /// Culling.
    pub cull: Cull,
    /// Front-face winding.
    pub front_face: Winding,
    /// Colour targets by slot (`@location(n)`), at most 4.
    pub targets: Vec<Option<ColorTargetDesc>>,
    /// Depth/stencil (`None`: no depth target).
    pub depth_stencil: Option<DepthStencilDesc>,
    /// The fragment entry point reads, for the depth bounds test, the depth target as it was
    /// before the draw (group 0 binding [`DEPTH_BEFORE_BINDING`], `texture_depth_2d`) and the
    /// bounds (binding [`DEPTH_BOUNDS_BINDING`], `var<uniform> vec4<f32>`, x the lower, y the
    /// upper): each draw then gives [`RasterDraw::depth_bounds`](crate::RasterDraw), and
    /// [`Gpu::raster_draws`] copies the depth target before it. Needs a depth target.
    pub depth_bounds: bool,
    /// The colour slots (bit n = slot n) whose target the fragment entry point reads as it
    /// was before the draw, at group 0 binding [`COLOR_BEFORE_BINDING`] + n
    /// (`texture_2d<f32>`, read with `textureLoad`): [`Gpu::raster_draws`] copies them before
    /// the draw (a logic operation the device has not, done in the shader).
    pub colors_before: u8,
}

impl RasterPipelineDesc {
    /// Whether a draw under this pipeline reads a target as it was before the draw.
    pub fn reads_before(&self) -> bool {
        self.depth_bounds || self.colors_before != 0
    }
}

/// Group 0 binding of a raster module's copy of the depth target from before the draw
/// ([`RasterPipelineDesc::depth_bounds`]; bindings 0..2 are a fragment module's verification
/// and instrumentation resources, ABI.md).
pub const DEPTH_BEFORE_BINDING: u32 = 3;
/// Group 0 binding of a raster module's depth bounds.
pub const DEPTH_BOUNDS_BINDING: u32 = 4;
/// Group 0 binding of a raster module's copy of colour slot 0 from before the draw
/// ([`RasterPipelineDesc::colors_before`]); slot n at this + n.
pub const COLOR_BEFORE_BINDING: u32 = 5;

impl RasterPipelineDesc {
    /// A 64-bit digest of the descriptor for the pipeline cache key.
    fn digest(&self) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.hash(&mut h);
        h.finish()
    }

    /// Checks the descriptor against itself and the device.
    fn check(&self, gpu: &Gpu) -> Result<(), GpuError> {
        if self.vertex_attributes == 0
            || self.vertex_attributes > MAX_VERTEX_ATTRIBUTES
            || self.vertex_attributes > gpu.limits.max_vertex_attributes
        {
            return Err(GpuError::argument(
                "desc.vertex_attributes",
                format!(
                    "{} is outside 1..={}",
                    self.vertex_attributes,
                    MAX_VERTEX_ATTRIBUTES.min(gpu.limits.max_vertex_attributes)
                ),
            ));
        }
        if self.targets.len() > MAX_RASTER_TARGETS {
            return Err(GpuError::argument(
                "desc.targets",
                format!("{} slots, at most {MAX_RASTER_TARGETS}", self.targets.len()),
            ));
        }
        let features = gpu.device.features();
        for (n, t) in self.targets.iter().enumerate() {
            let Some(t) = t else { continue };
            if t.format == TargetFormat::Rgba32Float {
                if !gpu.info.rgba32float_renderable {
                    return Err(gpu.unsupported("render to Rgba32Float"));
                }
                if t.blend.is_some() && !features.contains(wgpu::Features::FLOAT32_BLENDABLE) {
                    return Err(GpuError::argument(
                        format!("desc.targets[{n}].blend"),
                        "Rgba32Float blending needs FLOAT32_BLENDABLE, which the device lacks",
                    ));
                }
            }
        }
        if self.colors_before >> self.targets.len().min(MAX_RASTER_TARGETS) != 0
            || (0..self.targets.len())
                .any(|n| self.colors_before >> n & 1 != 0 && self.targets[n].is_none())
        {
            return Err(GpuError::argument(
                "desc.colors_before",
                format!(
                    "0b{:04b} names a slot with no colour target",
                    self.colors_before
                ),
            ));
        }
        if self.depth_bounds && self.depth_stencil.is_none() {
            return Err(GpuError::argument(
                "desc.depth_bounds",
                "the depth bounds test needs a depth target",
            ));
        }
        if self
            .depth_stencil
            .is_some_and(|d| d.format == DepthFormat::Depth32Stencil8)
            && !features.contains(wgpu::Features::DEPTH32FLOAT_STENCIL8)
        {
            return Err(gpu.unsupported("use Depth32FloatStencil8 (DEPTH32FLOAT_STENCIL8)"));
        }
        Ok(())
    }
}

impl Gpu {
    /// The device blends into `Rgba32Float` targets (`FLOAT32_BLENDABLE`).
    pub fn blends_float32(&self) -> bool {
        self.device
            .features()
            .contains(wgpu::Features::FLOAT32_BLENDABLE)
    }

    /// Builds (and caches) the raster pipeline of `module` under `desc` without drawing, so
    /// that pipeline creation can be timed apart from rendering; [`Gpu::raster_draw`] uses the
    /// cached pipeline.
    pub fn prepare_raster_pipeline(
        &self,
        module: &WgslModule,
        desc: &RasterPipelineDesc,
    ) -> Result<(), GpuError> {
        self.raster_pipeline(module, desc).map(|_| ())
    }

    /// The cached raster pipeline of `module` under `desc`.
    pub(crate) fn raster_pipeline(
        &self,
        module: &WgslModule,
        desc: &RasterPipelineDesc,
    ) -> Result<RenderEntry, GpuError> {
        desc.check(self)?;
        let filterable = self.info.float32_filterable;
        // The entry names are part of `desc`, so of its digest.
        let key = PipelineKey::new(
            module,
            "raster",
            PipelineState::Raster {
                desc: desc.digest(),
                filterable,
            },
        );
        self.cache.render(key, || {
            require_entry(module, &desc.vertex_entry, naga::ShaderStage::Vertex)?;
            require_entry(module, &desc.fragment_entry, naga::ShaderStage::Fragment)?;
            let units = texture_units(module)?;
            self.scoped("creating a raster pipeline", || {
                // Group 0: empty, or the depth bounds test's copy and bounds.
                let bounds_entries = [
                    wgpu::BindGroupLayoutEntry {
                        binding: DEPTH_BEFORE_BINDING,
                        visibility: wgpu::ShaderStages::FRAGMENT,
                        ty: wgpu::BindingType::Texture {
                            sample_type: wgpu::TextureSampleType::Depth,
                            view_dimension: wgpu::TextureViewDimension::D2,
                            multisampled: false,
                        },
                        count: None,
                    },
                    wgpu::BindGroupLayoutEntry {
                        binding: DEPTH_BOUNDS_BINDING,
                        visibility: wgpu::ShaderStages::FRAGMENT,
                        ty: wgpu::BindingType::Buffer {
                            ty: wgpu::BufferBindingType::Uniform,
                            has_dynamic_offset: false,
                            min_binding_size: wgpu::BufferSize::new(16),
                        },
                        count: None,
                    },
                ];
                let mut group0_entries: Vec<wgpu::BindGroupLayoutEntry> = if desc.depth_bounds {
                    bounds_entries.to_vec()
                } else {
                    Vec::new()
                };
                for n in 0..MAX_RASTER_TARGETS as u32 {
                    if desc.colors_before >> n & 1 != 0 {
                        group0_entries.push(wgpu::BindGroupLayoutEntry {
                            binding: COLOR_BEFORE_BINDING + n,
                            visibility: wgpu::ShaderStages::FRAGMENT,
                            ty: wgpu::BindingType::Texture {
                                sample_type: wgpu::TextureSampleType::Float { filterable: false },
                                view_dimension: wgpu::TextureViewDimension::D2,
                                multisampled: false,
                            },
                            count: None,
                        });
                    }
                }
                let entries =
                    texture_layout_entries(&units, filterable, wgpu::ShaderStages::FRAGMENT);
                let layout = self.two_group_layout("raster", &group0_entries, &entries);
                let shader = self.wgsl_module("raster module", &module.source);
                let attributes: Vec<wgpu::VertexAttribute> = (0..desc.vertex_attributes)
                    .map(|a| wgpu::VertexAttribute {
                        format: wgpu::VertexFormat::Float32x4,
                        offset: u64::from(a) * 16,
                        shader_location: a,
                    })
                    .collect();
                let buffers = [Some(wgpu::VertexBufferLayout {
                    array_stride: u64::from(desc.vertex_attributes) * 16,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &attributes,
                })];
                let targets: Vec<Option<wgpu::ColorTargetState>> = desc
                    .targets
                    .iter()
                    .map(|t| {
                        t.map(|t| wgpu::ColorTargetState {
                            format: t.format.wgpu(),
                            blend: t.blend.map(|b| wgpu::BlendState {
                                color: b.color.wgpu(),
                                alpha: b.alpha.wgpu(),
                            }),
                            write_mask: wgpu::ColorWrites::from_bits_truncate(u32::from(
                                t.write_mask & 0xF,
                            )),
                        })
                    })
                    .collect();
                let depth_stencil = desc.depth_stencil.map(|d| {
                    let face = |f: StencilFaceDesc| wgpu::StencilFaceState {
                        compare: f.compare.wgpu(),
                        fail_op: f.fail.wgpu(),
                        depth_fail_op: f.depth_fail.wgpu(),
                        pass_op: f.pass.wgpu(),
                    };
                    let stencil = match (d.stencil, d.format.has_stencil()) {
                        (Some(s), true) => wgpu::StencilState {
                            front: face(s.front),
                            back: face(s.back),
                            read_mask: u32::from(s.read_mask),
                            write_mask: u32::from(s.write_mask),
                        },
                        _ => wgpu::StencilState::default(),
                    };
                    wgpu::DepthStencilState {
                        format: d.format.wgpu(),
                        depth_write_enabled: Some(d.write),
                        depth_compare: Some(d.compare.wgpu()),
                        stencil,
                        bias: wgpu::DepthBiasState {
                            constant: d.bias.constant,
                            slope_scale: d.bias.slope_scale,
                            clamp: 0.0,
                        },
                    }
                });
                let pipeline =
                    self.device
                        .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                            label: Some("raster"),
                            layout: Some(&layout.pipeline),
                            vertex: wgpu::VertexState {
                                module: &shader,
                                entry_point: Some(&desc.vertex_entry),
                                compilation_options: Default::default(),
                                buffers: &buffers,
                            },
                            primitive: wgpu::PrimitiveState {
                                topology: match desc.topology {
                                    Topology::PointList => wgpu::PrimitiveTopology::PointList,
                                    Topology::LineList => wgpu::PrimitiveTopology::LineList,
                                    Topology::TriangleList => wgpu::PrimitiveTopology::TriangleList,
                                },
                                // wgpu's winding is in NDC (y up); framebuffer rows go down, so
                                // a counter-clockwise triangle on screen is clockwise in NDC.
                                front_face: match desc.front_face {
                                    Winding::Ccw => wgpu::FrontFace::Cw,
                                    Winding::Cw => wgpu::FrontFace::Ccw,
                                },
                                cull_mode: match desc.cull {
                                    Cull::None => None,
                                    Cull::Front => Some(wgpu::Face::Front),
                                    Cull::Back => Some(wgpu::Face::Back),
                                },
                                ..Default::default()
                            },
                            depth_stencil,
                            multisample: wgpu::MultisampleState::default(),
                            fragment: Some(wgpu::FragmentState {
                                module: &shader,
                                entry_point: Some(&desc.fragment_entry),
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
                    units: units.clone(),
                }
            })
        })
    }
}
