//! Fragment programs through `fp_eval`: per-pixel inputs in a storage buffer, a full-screen
//! triangle into five `Rgba32Float` targets (ABI.md "Fragment programs"), texture units bound
//! from [`TextureBinding`]s, and the targets read back (rows padded to 256 bytes) into
//! [`FragmentResult`]s.

use rsxtrace_wgsl::WgslModule;
use wgpu::util::DeviceExt;

use crate::abi::{require_entry, texture_layout_entries, texture_units, TEXTURE_UNITS};
use crate::cache::{PipelineKey, PipelineState, RenderEntry, UnitSlot};
use crate::device::Gpu;
use crate::error::GpuError;
use crate::render::padded_row;
use crate::texture::TextureBinding;
use crate::vertex::{buffer_entry, read_vec4, storage_entry, uniform_entry};

/// Input attributes per pixel (ABI.md `FpInputs`: 0 WPOS, 1 COL0, 2 COL1, 3 FOGC, 4..13
/// TEX0..TEX9, 14 FACING).
pub const FP_INPUTS: usize = 15;

/// Targets of `fp_eval`: four colours and (depth, killed, 0, 0).
const TARGETS: usize = 5;
/// Bytes of one `Rgba32Float` texel.
const TEXEL: u64 = 16;
/// Bytes of one pixel's inputs.
const INPUT_STRIDE: u64 = FP_INPUTS as u64 * TEXEL;

/// The covering triangle: framebuffer corners (0, 0), (2W, 0), (0, 2H) of a 2W × 2H viewport
/// whose top-left quarter is the W × H target. Its vertices lie on the viewport's edges, so
/// no clipping splits it, and the target holds no primitive edge: lavapipe clips a triangle
/// that sticks out of the viewport into two along the diagonal, and there the quads' helper
/// lanes read 0 from storage buffers, which breaks derivatives (measured on lavapipe 22.3.6).
const COVER_WGSL: &str = "
@vertex
fn cover(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let x = select(-1.0, 1.0, i == 1u);
    let y = select(1.0, -1.0, i == 2u);
    return vec4<f32>(x, y, 0.0, 1.0);
}
";

/// One pixel's outputs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FragmentResult {
    /// Colour outputs 0..3.
    pub colors: [[f32; 4]; 4],
    /// Depth output (as the module exports it; meaningful when the control word exports depth).
    pub depth: f32,
    /// A KIL discarded the pixel (its colours are still reported).
    pub killed: bool,
}

/// Checked sizes of one evaluation.
pub(crate) struct Extent {
    /// Image size.
    pub width: u32,
    pub height: u32,
    /// The input grid: the image rounded up to whole 2 × 2 quads. `fp_params` holds this size,
    /// so it is the row stride of `fp_inputs`.
    pub grid_w: u32,
    pub grid_h: u32,
    /// Pixels of the image.
    pixels: u64,
    /// Bytes of one padded row of one target in the readback buffer.
    padded_row: u64,
    /// Bytes of one target in the readback buffer.
    plane: u64,
}

/// One pixel's inputs.
type Inputs = [[f32; 4]; FP_INPUTS];

impl Gpu {
    /// Runs `module`'s `fp_eval` over a `width` × `height` image whose pixel `y * width + x`
    /// has the inputs `inputs[y * width + x]`, with `textures[u]` bound to unit u (every unit
    /// the module declares must be bound). Returns every pixel's outputs in the same order.
    ///
    /// Odd sizes: the quads on the right and bottom edges need inputs for pixels past the
    /// image. They are extrapolated linearly from the last two columns (rows), or copied from
    /// the last one when the image is 1 wide (high), so derivatives there continue the edge's.
    pub fn run_fragment_eval(
        &self,
        module: &WgslModule,
        width: u32,
        height: u32,
        inputs: &[Inputs],
        textures: &[Option<TextureBinding>; TEXTURE_UNITS as usize],
    ) -> Result<Vec<FragmentResult>, GpuError> {
        let extent = self.fragment_extent(width, height, inputs.len())?;
        if extent.grid_w == width && extent.grid_h == height {
            self.eval_grid(module, &extent, inputs, textures)
        } else {
            self.eval_grid(module, &extent, &pad_grid(inputs, &extent), textures)
        }
    }

    /// [`Gpu::run_fragment_eval`] of an instrumented module (`FragmentTranslateOptions::
    /// instrument`) over a `width` × `height` image: also returns the record buffer
    /// (`rsxtrace_wgsl::fragment::record`) of pixel `target`, with room for `capacity` records.
    pub fn run_fragment_trace(
        &self,
        module: &WgslModule,
        (width, height): (u32, u32),
        inputs: &[Inputs],
        textures: &[Option<TextureBinding>; TEXTURE_UNITS as usize],
        target: (u32, u32),
        capacity: u32,
    ) -> Result<(Vec<FragmentResult>, Vec<u32>), GpuError> {
        if !crate::vertex::declares_binding(module, 2) {
            return Err(GpuError::argument(
                "module",
                "is not instrumented (no rsx_trace buffer at group 0 binding 2)",
            ));
        }
        let extent = self.fragment_extent(width, height, inputs.len())?;
        use rsxtrace_wgsl::fragment::record;
        self.record_buffer_bytes(capacity, record::HEADER_WORDS, record::RECORD_WORDS)?;
        let words = record::buffer(target, capacity);
        let padded;
        let inputs = if extent.grid_w == width && extent.grid_h == height {
            inputs
        } else {
            padded = pad_grid(inputs, &extent);
            &padded
        };
        let (pixels, trace) =
            self.eval_grid_with(module, &extent, inputs, textures, Some(&words))?;
        Ok((pixels, trace.unwrap_or_default()))
    }

    /// [`Gpu::run_fragment_eval`] on inputs already laid out over the quad grid of `extent`.
    pub(crate) fn eval_grid(
        &self,
        module: &WgslModule,
        extent: &Extent,
        inputs: &[Inputs],
        textures: &[Option<TextureBinding>; TEXTURE_UNITS as usize],
    ) -> Result<Vec<FragmentResult>, GpuError> {
        self.eval_grid_with(module, extent, inputs, textures, None)
            .map(|(pixels, _)| pixels)
    }

    /// [`Gpu::eval_grid`], with the record buffer `trace` (initial words) bound for an
    /// instrumented module and read back after the run.
    fn eval_grid_with(
        &self,
        module: &WgslModule,
        extent: &Extent,
        inputs: &[Inputs],
        textures: &[Option<TextureBinding>; TEXTURE_UNITS as usize],
        trace: Option<&[u32]>,
    ) -> Result<(Vec<FragmentResult>, Option<Vec<u32>>), GpuError> {
        let (width, height) = (extent.width, extent.height);
        let (grid_w, grid_h) = (extent.grid_w, extent.grid_h);
        if inputs.len() as u64 != u64::from(grid_w) * u64::from(grid_h) {
            return Err(GpuError::argument(
                "inputs",
                format!(
                    "holds {} pixels, the {grid_w}x{grid_h} grid needs {}",
                    inputs.len(),
                    u64::from(grid_w) * u64::from(grid_h)
                ),
            ));
        }
        let entry = self.fragment_pipeline(module)?;
        let mut bound = Vec::new();
        for slot in &entry.units {
            bound.push(self.bind_unit(slot, textures)?);
        }
        let stage = "running fp_eval";
        let readback = self.scoped(stage, || {
            let input_buf = self
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("fp_inputs"),
                    contents: bytemuck::cast_slice(inputs),
                    usage: wgpu::BufferUsages::STORAGE,
                });
            let params: [u32; 4] = [grid_w, grid_h, 0, 0];
            let params_buf = self
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("fp_params"),
                    contents: bytemuck::cast_slice(&params),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
            let trace_buf = trace.map(|words| {
                self.device
                    .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                        label: Some("rsx_trace"),
                        contents: bytemuck::cast_slice(words),
                        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                    })
            });
            let mut group0_entries =
                vec![buffer_entry(0, &input_buf), buffer_entry(1, &params_buf)];
            if let Some(b) = &trace_buf {
                group0_entries.push(buffer_entry(2, b));
            }
            let group0 = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("fp group 0"),
                layout: &entry.group0,
                entries: &group0_entries,
            });
            let mut entries = Vec::new();
            for (slot, (_, view, sampler)) in entry.units.iter().zip(&bound) {
                if slot.texture.is_some() {
                    entries.push(wgpu::BindGroupEntry {
                        binding: slot.unit * 2,
                        resource: wgpu::BindingResource::TextureView(view),
                    });
                }
                if slot.sampler {
                    entries.push(wgpu::BindGroupEntry {
                        binding: slot.unit * 2 + 1,
                        resource: wgpu::BindingResource::Sampler(sampler),
                    });
                }
            }
            let group1 = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("fp group 1"),
                layout: &entry.group1,
                entries: &entries,
            });
            let targets: Vec<wgpu::Texture> = (0..TARGETS)
                .map(|_| {
                    self.device.create_texture(&wgpu::TextureDescriptor {
                        label: Some("fp_eval target"),
                        size: wgpu::Extent3d {
                            width: grid_w,
                            height: grid_h,
                            depth_or_array_layers: 1,
                        },
                        mip_level_count: 1,
                        sample_count: 1,
                        dimension: wgpu::TextureDimension::D2,
                        format: wgpu::TextureFormat::Rgba32Float,
                        usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                            | wgpu::TextureUsages::COPY_SRC,
                        view_formats: &[],
                    })
                })
                .collect();
            let views: Vec<wgpu::TextureView> = targets
                .iter()
                .map(|t| t.create_view(&wgpu::TextureViewDescriptor::default()))
                .collect();
            let attachments: Vec<Option<wgpu::RenderPassColorAttachment<'_>>> = views
                .iter()
                .map(|view| {
                    Some(wgpu::RenderPassColorAttachment {
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
            let readback = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("fp_eval readback"),
                size: extent.plane * TARGETS as u64,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let mut encoder = self
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("fp_eval"),
                });
            {
                let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("fp_eval"),
                    color_attachments: &attachments,
                    depth_stencil_attachment: None,
                    timestamp_writes: None,
                    occlusion_query_set: None,
                    multiview_mask: None,
                });
                // See COVER_WGSL: a 2W × 2H viewport (checked against the limit).
                pass.set_viewport(0.0, 0.0, 2.0 * grid_w as f32, 2.0 * grid_h as f32, 0.0, 1.0);
                pass.set_pipeline(&entry.pipeline);
                pass.set_bind_group(0, &group0, &[]);
                pass.set_bind_group(1, &group1, &[]);
                pass.draw(0..3, 0..1);
            }
            for (t, texture) in (0u64..).zip(&targets) {
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
                            offset: t * extent.plane,
                            // padded_row <= 16 * max_texture_dimension_2d + 255, fits u32.
                            bytes_per_row: Some(extent.padded_row as u32),
                            rows_per_image: Some(height),
                        },
                    },
                    wgpu::Extent3d {
                        width,
                        height,
                        depth_or_array_layers: 1,
                    },
                );
            }
            let trace_readback = trace_buf.map(|b| {
                let rb = self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("rsx_trace readback"),
                    size: b.size(),
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                encoder.copy_buffer_to_buffer(&b, 0, &rb, 0, b.size());
                rb
            });
            self.queue.submit([encoder.finish()]);
            (readback, trace_readback)
        })?;
        let (readback, trace_readback) = readback;
        let bytes = self.read_buffer(
            &readback,
            extent.plane * TARGETS as u64,
            "reading fp_eval targets",
        )?;
        let trace = match trace_readback {
            Some(rb) => {
                let bytes = self.read_buffer(&rb, rb.size(), "reading rsx_trace")?;
                Some(crate::vertex::words_of(&bytes))
            }
            None => None,
        };
        Ok((parse_targets(&bytes, extent)?, trace))
    }

    /// Checks the device can render five `Rgba32Float` targets at once.
    fn check_render_targets(&self) -> Result<(), GpuError> {
        let i = &self.info;
        if !i.rgba32float_renderable {
            return Err(self.unsupported(
                "render to Rgba32Float (fp_eval needs it; wgpu-GL cannot, use the Vulkan backend)",
            ));
        }
        let bytes = TARGETS as u32 * TEXEL as u32;
        if i.max_color_attachments < TARGETS as u32
            || i.max_color_attachment_bytes_per_sample < bytes
        {
            return Err(self.unsupported(format!(
                "bind {TARGETS} Rgba32Float targets: max_color_attachments {} (need {TARGETS}), \
                 max_color_attachment_bytes_per_sample {} (need {bytes})",
                i.max_color_attachments, i.max_color_attachment_bytes_per_sample
            )));
        }
        Ok(())
    }

    /// Checks the image size against the inputs and the limits (and that the device can
    /// render five `Rgba32Float` targets).
    pub(crate) fn fragment_extent(
        &self,
        width: u32,
        height: u32,
        inputs: usize,
    ) -> Result<Extent, GpuError> {
        self.check_render_targets()?;
        let max = self.limits.max_texture_dimension_2d;
        if width == 0 || height == 0 || width > max || height > max {
            return Err(GpuError::argument(
                "width, height",
                format!("{width}x{height} is outside 1..={max} on each side"),
            ));
        }
        let pixels = u64::from(width) * u64::from(height);
        if inputs as u64 != pixels {
            return Err(GpuError::argument(
                "inputs",
                format!("holds {inputs} pixels, a {width}x{height} image has {pixels}"),
            ));
        }
        let (grid_w, grid_h) = (width + (width & 1), height + (height & 1));
        // The covering triangle's viewport is twice the grid on each side.
        if u64::from(grid_w) * 2 > u64::from(max) || u64::from(grid_h) * 2 > u64::from(max) {
            return Err(self.unsupported(format!(
                "evaluate a {width}x{height} image: its 2x viewport exceeds \
                 max_texture_dimension_2d {max}"
            )));
        }
        let input_bytes = u64::from(grid_w) * u64::from(grid_h) * INPUT_STRIDE;
        let max_binding = self
            .limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size);
        if input_bytes > max_binding {
            return Err(GpuError::argument(
                "inputs",
                format!(
                    "{input_bytes} bytes exceed the storage binding limit {max_binding} \
                     ({width}x{height} is too large for one fp_eval run)"
                ),
            ));
        }
        let padded_row = padded_row(width);
        let plane = padded_row * u64::from(height);
        if plane * TARGETS as u64 > self.limits.max_buffer_size {
            return Err(GpuError::argument(
                "width, height",
                format!("{width}x{height}: the readback buffer exceeds max_buffer_size"),
            ));
        }
        Ok(Extent {
            width,
            height,
            grid_w,
            grid_h,
            pixels,
            padded_row,
            plane,
        })
    }

    /// The view and sampler for one declared unit.
    fn bind_unit(
        &self,
        slot: &UnitSlot,
        textures: &[Option<TextureBinding>; TEXTURE_UNITS as usize],
    ) -> Result<(wgpu::Texture, wgpu::TextureView, wgpu::Sampler), GpuError> {
        let name = format!("textures[{}]", slot.unit);
        let binding = textures
            .get(slot.unit as usize)
            .and_then(Option::as_ref)
            .ok_or_else(|| {
                GpuError::argument(&name, "the module samples this unit but nothing is bound")
            })?;
        if let Some(dim) = slot.texture {
            if dim != binding.dimension {
                return Err(GpuError::argument(
                    &name,
                    format!(
                        "the module declares a {dim:?} texture, the binding is {:?}",
                        binding.dimension
                    ),
                ));
            }
        }
        self.upload_kept(binding, &name)
    }

    /// The cached `fp_eval` pipeline of `module`.
    fn fragment_pipeline(&self, module: &WgslModule) -> Result<RenderEntry, GpuError> {
        let filterable = self.info.float32_filterable;
        let key = PipelineKey::new(
            module,
            "fp_eval",
            PipelineState::FragmentEval { filterable },
        );
        self.cache.render(key, || {
            require_entry(module, "fp_eval", naga::ShaderStage::Fragment)?;
            let units = texture_units(module)?;
            self.scoped("creating render pipeline fp_eval", || {
                let vis = wgpu::ShaderStages::FRAGMENT;
                let mut group0_entries =
                    vec![storage_entry(0, vis, true, None), uniform_entry(1, vis)];
                if crate::vertex::declares_binding(module, 2) {
                    group0_entries.push(storage_entry(2, vis, false, None));
                }
                let entries =
                    texture_layout_entries(&units, filterable, wgpu::ShaderStages::FRAGMENT);
                let layout = self.two_group_layout("fp_eval", &group0_entries, &entries);
                let cover = self.wgsl_module("covering triangle", COVER_WGSL);
                let shader = self.wgsl_module("fragment program", &module.source);
                let target = Some(wgpu::ColorTargetState {
                    format: wgpu::TextureFormat::Rgba32Float,
                    blend: None,
                    write_mask: wgpu::ColorWrites::ALL,
                });
                let targets = [(); TARGETS].map(|()| target.clone());
                let pipeline =
                    self.device
                        .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                            label: Some("fp_eval"),
                            layout: Some(&layout.pipeline),
                            vertex: wgpu::VertexState {
                                module: &cover,
                                entry_point: Some("cover"),
                                compilation_options: Default::default(),
                                buffers: &[],
                            },
                            primitive: wgpu::PrimitiveState::default(),
                            depth_stencil: None,
                            multisample: wgpu::MultisampleState::default(),
                            fragment: Some(wgpu::FragmentState {
                                module: &shader,
                                entry_point: Some("fp_eval"),
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

/// Un-pads the five targets into per-pixel results.
fn parse_targets(bytes: &[u8], e: &Extent) -> Result<Vec<FragmentResult>, GpuError> {
    let mut out = Vec::with_capacity(usize::try_from(e.pixels).unwrap_or(0));
    for y in 0..u64::from(e.height) {
        for x in 0..u64::from(e.width) {
            let mut texels = [[0f32; 4]; TARGETS];
            for (t, texel) in (0u64..).zip(texels.iter_mut()) {
                let at = t * e.plane + y * e.padded_row + x * TEXEL;
                let src = usize::try_from(at)
                    .ok()
                    .and_then(|at| bytes.get(at..at.checked_add(TEXEL as usize)?))
                    .ok_or_else(|| GpuError::BadResult {
                        at: format!("pixel ({x}, {y})"),
                        what: format!("target {t} lies past the {} readback bytes", bytes.len()),
                    })?;
                *texel = read_vec4(src);
            }
            let [c0, c1, c2, c3, dk] = texels;
            out.push(FragmentResult {
                colors: [c0, c1, c2, c3],
                depth: dk[0],
                killed: dk[1] != 0.0,
            });
        }
    }
    Ok(out)
}

/// `inputs` (`width * height`, checked) laid out over the quad grid, the extra column and row
/// extrapolated linearly (copied when there is a single column or row).
fn pad_grid(inputs: &[Inputs], e: &Extent) -> Vec<Inputs> {
    let (w, h) = (e.width as usize, e.height as usize);
    let (gw, gh) = (e.grid_w as usize, e.grid_h as usize);
    let mut grid = Vec::with_capacity(gw * gh);
    for row in inputs.chunks_exact(w) {
        grid.extend_from_slice(row);
        if gw > w {
            if let Some(last) = row.last() {
                let prev = w.checked_sub(2).and_then(|i| row.get(i));
                grid.push(extrapolate(last, prev));
            }
        }
    }
    if gh > h {
        let row_at = |y: usize| {
            y.checked_mul(gw)
                .and_then(|a| grid.get(a..a.checked_add(gw)?))
        };
        let extra: Vec<Inputs> = match (
            h.checked_sub(1).and_then(row_at),
            h.checked_sub(2).and_then(row_at),
        ) {
            (Some(last), prev) => last
                .iter()
                .enumerate()
                .map(|(x, l)| extrapolate(l, prev.and_then(|p| p.get(x))))
                .collect(),
            (None, _) => Vec::new(),
        };
        grid.extend(extra);
    }
    grid
}

/// `2 * last - prev` per component, or `last` when there is no `prev`.
fn extrapolate(last: &Inputs, prev: Option<&Inputs>) -> Inputs {
    let Some(prev) = prev else {
        return *last;
    };
    let mut out = *last;
    for (o, p) in out.iter_mut().zip(prev) {
        for (c, pc) in o.iter_mut().zip(p) {
            *c = 2.0 * *c - pc;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extent(width: u32, height: u32) -> Extent {
        Extent {
            width,
            height,
            grid_w: width + (width & 1),
            grid_h: height + (height & 1),
            pixels: u64::from(width) * u64::from(height),
            padded_row: 256,
            plane: 256 * u64::from(height),
        }
    }

    /// Pixel (x, y) of a 3 × 3 image: attribute a = (x + 10a, y, x * y, 1).
    fn image(w: u32, h: u32) -> Vec<Inputs> {
        (0..h)
            .flat_map(|y| (0..w).map(move |x| (x as f32, y as f32)))
            .map(|(x, y)| {
                let mut i = [[0f32; 4]; FP_INPUTS];
                for (a, attr) in i.iter_mut().enumerate() {
                    *attr = [x + 10.0 * a as f32, y, x * y, 1.0];
                }
                i
            })
            .collect()
    }

    #[test]
    fn odd_images_are_padded_by_linear_extrapolation() {
        let grid = pad_grid(&image(3, 3), &extent(3, 3));
        assert_eq!(grid.len(), 16);
        // Column 3 continues x and x * y linearly from columns 1 and 2; row 3 likewise.
        assert_eq!(grid[3][0], [3.0, 0.0, 0.0, 1.0]);
        assert_eq!(grid[4 + 3][2], [23.0, 1.0, 3.0, 1.0]);
        assert_eq!(grid[12][0], [0.0, 3.0, 0.0, 1.0]);
        assert_eq!(grid[15][1], [13.0, 3.0, 9.0, 1.0]);
        // Inside pixels are unchanged.
        assert_eq!(grid[4 + 1], image(3, 3)[3 + 1]);
    }

    #[test]
    fn single_columns_and_rows_are_copied() {
        let grid = pad_grid(&image(1, 1), &extent(1, 1));
        assert_eq!(grid, vec![image(1, 1)[0]; 4]);
        let grid = pad_grid(&image(2, 1), &extent(2, 1));
        assert_eq!(grid[2..], grid[..2]);
    }
}
