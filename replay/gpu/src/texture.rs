//! Texture bindings: the caller's description of one texture unit (texels as `[f32; 4]` per
//! level, sampler state), its checks, and its upload as an `Rgba32Float` texture with a sampler.

use crate::device::Gpu;
use crate::error::GpuError;

/// Texture dimension of a unit (ABI.md: `texture_1d/2d/3d/cube<f32>`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TextureDimension {
    /// 1D: height and depth 1, one mip level (a wgpu restriction on 1D textures).
    D1,
    /// 2D: depth 1.
    #[default]
    D2,
    /// 3D: depth slices shrink with the level like width and height.
    D3,
    /// Cube map: square faces, `depth_or_layers` = 6 (faces +X, −X, +Y, −Y, +Z, −Z).
    Cube,
}

/// Texture coordinate wrap mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WrapMode {
    /// Repeat.
    #[default]
    Repeat,
    /// Mirrored repeat.
    MirrorRepeat,
    /// Clamp to the edge texel.
    ClampToEdge,
    /// Clamp to a border colour (needs `ADDRESS_MODE_CLAMP_TO_BORDER`).
    ClampToBorder(BorderColor),
}

/// Border colours wgpu can give.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BorderColor {
    /// (0, 0, 0, 0).
    #[default]
    TransparentBlack,
    /// (0, 0, 0, 1).
    OpaqueBlack,
    /// (1, 1, 1, 1).
    OpaqueWhite,
}

/// Magnification/minification filter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Filter {
    /// Nearest texel.
    #[default]
    Nearest,
    /// Bilinear (needs `FLOAT32_FILTERABLE` for `Rgba32Float`).
    Linear,
}

/// Sampler state of a unit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SamplerDesc {
    /// Wrap of s, t, r.
    pub wrap: [WrapMode; 3],
    /// Magnification filter.
    pub mag: Filter,
    /// Minification filter (within a level). There is no mip filter: the recompiled fragment
    /// programs choose and blend levels themselves (the shared LOD rule,
    /// `rsxtrace_semantics::lod`; ABI.md "Textures") and sample each level with
    /// `textureSampleLevel`, so every sampler has mipmap mode nearest and LOD range 0..32.
    pub min: Filter,
}

/// One texture unit's contents.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TextureBinding {
    /// Dimension; must match what the module declares for the unit.
    pub dimension: TextureDimension,
    /// Width of level 0.
    pub width: u32,
    /// Height of level 0 (1 for 1D).
    pub height: u32,
    /// Depth of level 0 for 3D, 6 for cube maps, 1 otherwise.
    pub depth_or_layers: u32,
    /// Mip levels; `levels.len()` must equal it.
    pub mip_levels: u32,
    /// Texels of each level, row-major, row 0 first (v = 0), then each depth slice or cube face
    /// in turn: `w_l * h_l * d_l` texels for level l, where each size halves per level (at
    /// least 1) and cube faces do not shrink in number.
    pub levels: Vec<Vec<[f32; 4]>>,
    /// Sampler state.
    pub sampler: SamplerDesc,
}

/// Size of one `Rgba32Float` texel in bytes.
const TEXEL_BYTES: u32 = 16;

impl TextureBinding {
    /// Size of level `level`: (width, height, depth or layers).
    pub fn level_size(&self, level: u32) -> (u32, u32, u32) {
        let shrink = |v: u32| v.checked_shr(level).unwrap_or(0).max(1);
        let d = match self.dimension {
            TextureDimension::D3 => shrink(self.depth_or_layers),
            _ => self.depth_or_layers,
        };
        (shrink(self.width), shrink(self.height), d)
    }

    /// Checks the description against itself and `limits`; `name` is the argument's name
    /// for errors (e.g. `textures[3]`).
    pub(crate) fn check(&self, name: &str, limits: &wgpu::Limits) -> Result<(), GpuError> {
        let arg = |what: String| GpuError::argument(name, what);
        let (w, h, d) = (self.width, self.height, self.depth_or_layers);
        if w == 0 || h == 0 || d == 0 {
            return Err(arg(format!("size {w}x{h}x{d} has a zero side")));
        }
        let (max_side, shape_ok) = match self.dimension {
            TextureDimension::D1 => (limits.max_texture_dimension_1d, h == 1 && d == 1),
            TextureDimension::D2 => (limits.max_texture_dimension_2d, d == 1),
            TextureDimension::D3 => (limits.max_texture_dimension_3d, true),
            TextureDimension::Cube => (limits.max_texture_dimension_2d, w == h && d == 6),
        };
        if !shape_ok {
            return Err(arg(format!(
                "size {w}x{h}x{d} does not fit a {:?} texture (1D: h = d = 1, 2D: d = 1, \
                 cube: w = h, d = 6)",
                self.dimension
            )));
        }
        let depth_side = if self.dimension == TextureDimension::D3 {
            d
        } else {
            1
        };
        if w.max(h).max(depth_side) > max_side {
            return Err(arg(format!(
                "size {w}x{h}x{d} exceeds the device limit {max_side}"
            )));
        }
        let largest = w.max(h).max(depth_side);
        let full_chain = 32 - largest.leading_zeros();
        let max_levels = if self.dimension == TextureDimension::D1 {
            1
        } else {
            full_chain
        };
        if self.mip_levels == 0 || self.mip_levels > max_levels {
            return Err(arg(format!(
                "mip_levels {} is outside 1..={max_levels}",
                self.mip_levels
            )));
        }
        if self.levels.len() != self.mip_levels as usize {
            return Err(arg(format!(
                "levels holds {} levels, mip_levels says {}",
                self.levels.len(),
                self.mip_levels
            )));
        }
        for (l, texels) in (0u32..).zip(&self.levels) {
            let (lw, lh, ld) = self.level_size(l);
            let want = u64::from(lw) * u64::from(lh) * u64::from(ld);
            if texels.len() as u64 != want {
                return Err(GpuError::argument(
                    format!("{name}.levels[{l}]"),
                    format!(
                        "holds {} texels, level size {lw}x{lh}x{ld} needs {want}",
                        texels.len()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Uploads the texture (checked first) and creates its view and sampler. `filterable`:
    /// the device has `FLOAT32_FILTERABLE`, so linear filters are allowed.
    pub(crate) fn upload(
        &self,
        gpu: &Gpu,
        name: &str,
    ) -> Result<(wgpu::Texture, wgpu::TextureView, wgpu::Sampler), GpuError> {
        self.check(name, &gpu.limits)?;
        let s = &self.sampler;
        // Levels are blended by the shader (ABI.md), so only the filters within a level need
        // a filtering sampler.
        let linear = s.mag == Filter::Linear || s.min == Filter::Linear;
        if linear && !gpu.info.float32_filterable {
            return Err(gpu.unsupported(format!(
                "filter {name} linearly: FLOAT32_FILTERABLE is missing (use nearest filters)"
            )));
        }
        let mut border = None;
        let mut address = [wgpu::AddressMode::Repeat; 3];
        for (a, wrap) in address.iter_mut().zip(s.wrap) {
            *a = match wrap {
                WrapMode::Repeat => wgpu::AddressMode::Repeat,
                WrapMode::MirrorRepeat => wgpu::AddressMode::MirrorRepeat,
                WrapMode::ClampToEdge => wgpu::AddressMode::ClampToEdge,
                WrapMode::ClampToBorder(c) => {
                    if !gpu.info.clamp_to_border {
                        return Err(gpu.unsupported(format!(
                            "clamp {name} to a border: ADDRESS_MODE_CLAMP_TO_BORDER is missing"
                        )));
                    }
                    if border.is_some_and(|b| b != c) {
                        return Err(GpuError::argument(
                            format!("{name}.sampler.wrap"),
                            "wgpu allows one border colour per sampler",
                        ));
                    }
                    border = Some(c);
                    wgpu::AddressMode::ClampToBorder
                }
            };
        }
        let filter = |f: Filter| match f {
            Filter::Nearest => wgpu::FilterMode::Nearest,
            Filter::Linear => wgpu::FilterMode::Linear,
        };
        let (texture_dim, view_dim) = match self.dimension {
            TextureDimension::D1 => (wgpu::TextureDimension::D1, wgpu::TextureViewDimension::D1),
            TextureDimension::D2 => (wgpu::TextureDimension::D2, wgpu::TextureViewDimension::D2),
            TextureDimension::D3 => (wgpu::TextureDimension::D3, wgpu::TextureViewDimension::D3),
            TextureDimension::Cube => {
                (wgpu::TextureDimension::D2, wgpu::TextureViewDimension::Cube)
            }
        };
        gpu.scoped(&format!("uploading {name}"), || {
            let texture = gpu.device.create_texture(&wgpu::TextureDescriptor {
                label: Some(name),
                size: wgpu::Extent3d {
                    width: self.width,
                    height: self.height,
                    depth_or_array_layers: self.depth_or_layers,
                },
                mip_level_count: self.mip_levels,
                sample_count: 1,
                dimension: texture_dim,
                format: wgpu::TextureFormat::Rgba32Float,
                usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
                view_formats: &[],
            });
            for (l, texels) in (0u32..).zip(&self.levels) {
                write_level(gpu, &texture, l, self.level_size(l), texels);
            }
            let view = texture.create_view(&wgpu::TextureViewDescriptor {
                label: Some(name),
                dimension: Some(view_dim),
                ..Default::default()
            });
            let sampler = gpu.device.create_sampler(&wgpu::SamplerDescriptor {
                label: Some(name),
                address_mode_u: address[0],
                address_mode_v: address[1],
                address_mode_w: address[2],
                mag_filter: filter(s.mag),
                min_filter: filter(s.min),
                // The shader asks for level k at LOD k + 0.25 (min filter, level k) or for
                // LOD 0 (mag filter, level 0): mipmap mode nearest, no clamp of its own.
                mipmap_filter: wgpu::MipmapFilterMode::Nearest,
                lod_min_clamp: 0.0,
                lod_max_clamp: 32.0,
                border_color: border.map(|c| match c {
                    BorderColor::TransparentBlack => wgpu::SamplerBorderColor::TransparentBlack,
                    BorderColor::OpaqueBlack => wgpu::SamplerBorderColor::OpaqueBlack,
                    BorderColor::OpaqueWhite => wgpu::SamplerBorderColor::OpaqueWhite,
                }),
                ..Default::default()
            });
            (texture, view, sampler)
        })
    }
}

/// Bytes written to the device between waits when a level is larger: each write goes
/// through a staging buffer as large as it, freed when its submission completes, so a
/// 4096x4096 level (256 MiB of `Rgba32Float`) written at once doubled the upload's peak memory.
const UPLOAD_BAND_BYTES: usize = 16 << 20;

/// Writes level `level` (`size` texels wide, high and deep or layered) of `texture` from
/// `texels`: at once when it fits [`UPLOAD_BAND_BYTES`], else in bands of rows of one slice,
/// waiting for each band's submission so that one staging buffer of a band is alive at a time.
fn write_level(
    gpu: &Gpu,
    texture: &wgpu::Texture,
    level: u32,
    (width, height, depth): (u32, u32, u32),
    texels: &[[f32; 4]],
) {
    let row_texels = width as usize;
    let bytes: &[u8] = bytemuck::cast_slice(texels);
    let write = |y: u32, z: u32, rows: u32, layers: u32, data: &[u8]| {
        gpu.queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture,
                mip_level: level,
                origin: wgpu::Origin3d { x: 0, y, z },
                aspect: wgpu::TextureAspect::All,
            },
            data,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(width * TEXEL_BYTES),
                rows_per_image: Some(rows),
            },
            wgpu::Extent3d {
                width,
                height: rows,
                depth_or_array_layers: layers,
            },
        );
    };
    if bytes.len() <= UPLOAD_BAND_BYTES {
        write(0, 0, height, depth, bytes);
        return;
    }
    let row_bytes = row_texels * TEXEL_BYTES as usize;
    let band_rows = (UPLOAD_BAND_BYTES / row_bytes.max(1)).max(1);
    let slice_bytes = row_bytes * height as usize;
    for z in 0..depth {
        let slice_start = z as usize * slice_bytes;
        for y in (0..height as usize).step_by(band_rows) {
            let rows = band_rows.min(height as usize - y);
            let start = slice_start + y * row_bytes;
            let Some(data) = bytes.get(start..start + rows * row_bytes) else {
                return;
            };
            write(y as u32, z, rows as u32, 1, data);
            let index = gpu.queue.submit([]);
            // A failed wait only leaves the staging buffer alive longer.
            let _ = gpu.device.poll(wgpu::PollType::Wait {
                submission_index: Some(index),
                timeout: None,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binding(dimension: TextureDimension, w: u32, h: u32, d: u32, levels: u32) -> TextureBinding {
        let mut t = TextureBinding {
            dimension,
            width: w,
            height: h,
            depth_or_layers: d,
            mip_levels: levels,
            ..Default::default()
        };
        t.levels = (0..levels)
            .map(|l| {
                let (lw, lh, ld) = t.level_size(l);
                vec![[0.0; 4]; (lw * lh * ld) as usize]
            })
            .collect();
        t
    }

    #[test]
    fn level_sizes_halve_and_cube_faces_stay_six() {
        let t = binding(TextureDimension::D3, 8, 4, 2, 4);
        assert_eq!(
            (0..4).map(|l| t.level_size(l)).collect::<Vec<_>>(),
            [(8, 4, 2), (4, 2, 1), (2, 1, 1), (1, 1, 1)]
        );
        let c = binding(TextureDimension::Cube, 4, 4, 6, 3);
        assert_eq!(c.level_size(2), (1, 1, 6));
        assert_eq!(
            c.level_size(40),
            (1, 1, 6),
            "huge levels do not overflow the shift"
        );
        let limits = wgpu::Limits::default();
        assert!(t.check("t", &limits).is_ok());
        assert!(c.check("c", &limits).is_ok());
    }

    #[test]
    fn bad_descriptions_name_the_argument() {
        let limits = wgpu::Limits::default();
        let err = |t: TextureBinding| match t.check("textures[2]", &limits) {
            Err(GpuError::Argument { name, what }) => format!("{name}: {what}"),
            other => panic!("expected an argument error, got {other:?}"),
        };
        assert!(err(binding(TextureDimension::D2, 0, 4, 1, 1)).contains("zero side"));
        assert!(err(binding(TextureDimension::Cube, 4, 2, 6, 1)).contains("does not fit"));
        assert!(err(binding(TextureDimension::D1, 4, 2, 1, 1)).contains("does not fit"));
        assert!(err(binding(TextureDimension::D2, 1 << 20, 1, 1, 1)).contains("device limit"));
        let mut too_many = binding(TextureDimension::D2, 4, 4, 1, 3);
        too_many.mip_levels = 4;
        assert!(err(too_many).contains("outside 1..=3"));
        let mut short = binding(TextureDimension::D2, 4, 4, 1, 2);
        short.levels[1].pop();
        assert_eq!(
            err(short),
            "textures[2].levels[1]: holds 3 texels, level size 2x2x1 needs 4"
        );
    }
}
