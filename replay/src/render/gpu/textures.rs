//! The renderer's textures: each unit of a draw (fragment and vertex) decoded, converted as
//! its unit asks, and uploaded once per content key.

use std::sync::Arc;

use crate::render::surface::Overlay;
use crate::texture::binding::{self, Strictness};
use crate::texture::cache;
use crate::texture::decode::decode_texture;
use crate::texture::texture_spans;
use crate::texture::vertex_units::sampled_state;
use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::rrc::Location;
use rsxtrace_gpu::UploadedTexture;

use super::{draw_gpu_error, vertex, DrawFailure, Renderer};

impl Renderer<'_> {
    /// The uploaded texture of unit `unit` of draw `index`.
    pub(super) fn texture(
        &mut self,
        index: usize,
        unit: u8,
        dim: rsxtrace_gpu::TextureDimension,
        base: &dyn GuestMemory,
    ) -> Result<(Arc<UploadedTexture>, bool), DrawFailure> {
        let frame = self.frame;
        let t = &frame.draws[index].textures[usize::from(unit)];
        if !t.control0.enabled {
            return Ok((self.upload_null(dim)?, true));
        }
        if let Some(location) = t.format.location {
            // The bytes the texture model reads (every face, level and slice); for a state it
            // refuses, a conservative extent: 16 bytes per texel, six faces, a full mip chain.
            // Too wide an extent reads the targets back at every draw that samples a texture
            // placed after them.
            let spans: Vec<(Location, u64, u64)> = match texture_spans(unit, t) {
                Ok(spans) => spans
                    .iter()
                    .map(|s| {
                        let start = u64::from(s.offset);
                        (s.location, start, start + u64::from(s.len))
                    })
                    .collect(),
                Err(_) => {
                    let texels = u64::from(t.width.max(1))
                        * u64::from(t.height.max(1))
                        * u64::from(t.depth.max(1));
                    let start = u64::from(t.offset);
                    vec![(location, start, start + texels * 16 * 6 * 2)]
                }
            };
            self.write_back_over(base, &spans)
                .map_err(DrawFailure::Fatal)?;
        }
        let key = format!("{unit} {t:?}");
        // Keyed by the unit's state and the content of its bytes (`texture::cache`): a texture
        // whose bytes a draw, a transfer or the capture itself (a ring buffer that wraps)
        // changed is uploaded anew. Unreadable textures are not kept.
        let overlay = Overlay {
            base,
            surfaces: &self.surfaces,
        };
        let content = cache::content_key(unit, t, &overlay).ok();
        if let Some(found) = self.known_texture(index, &key, content) {
            return Ok((found, false));
        }
        let overlay = Overlay {
            base,
            surfaces: &self.surfaces,
        };
        let converted = binding::convert(unit, t, &overlay, Strictness::Approximate);
        self.upload_converted(index, ("", unit), (key, content), converted, dim)
    }

    /// The texture uploaded already under `key` and `content`: by an earlier draw of this
    /// frame, or kept with the device by an earlier frame (then its conversion's notes are
    /// this draw's warnings, as when this frame converts it).
    fn known_texture(
        &mut self,
        index: usize,
        key: &str,
        content: Option<u128>,
    ) -> Option<Arc<UploadedTexture>> {
        let key = (key.to_string(), content?);
        if let Some(found) = self.textures.get(&key) {
            return Some(found.clone());
        }
        let (texture, notes) = self.kept.texture(&key)?;
        for n in notes {
            self.warn(Some(index), n);
        }
        self.textures.insert(key, texture.clone());
        Some(texture)
    }

    /// `converted` (texture unit `unit` of draw `index`, `kind` "" or "vertex ") uploaded and
    /// kept under `key` and its content key when it has one; its notes are the draw's
    /// warnings. A conversion that failed, or gave another dimension than `dim` (the one the
    /// program declares), is the null texture of `dim` (RPCS3's, sampling (0, 0, 0, 0)), with
    /// a warning; the flag says so.
    fn upload_converted(
        &mut self,
        index: usize,
        (kind, unit): (&str, u8),
        (key, content): (String, Option<u128>),
        converted: Result<binding::Converted, binding::BindingError>,
        dim: rsxtrace_gpu::TextureDimension,
    ) -> Result<(Arc<UploadedTexture>, bool), DrawFailure> {
        let label = format!("{kind}texture unit {unit}");
        match converted {
            Ok(c) => {
                let notes: Vec<String> = c.notes.iter().map(|n| format!("{label}: {n}")).collect();
                for n in &notes {
                    self.warn(Some(index), n.clone());
                }
                if c.binding.dimension != dim {
                    self.warn(
                        Some(index),
                        format!("{label}: dimension differs from the program's"),
                    );
                    return Ok((self.upload_null(dim)?, true));
                }
                let bytes = c.binding.levels.iter().map(|l| l.len() as u64 * 16).sum();
                let uploaded = self.upload(key.clone(), c.binding)?;
                if let Some(content) = content {
                    self.textures
                        .insert((key.clone(), content), uploaded.clone());
                    self.kept
                        .keep_texture((key, content), uploaded.clone(), notes, bytes);
                }
                Ok((uploaded, false))
            }
            Err(e) => {
                // The model's errors name the unit already ("texture unit N: ...").
                self.warn(Some(index), format!("{kind}{e} (sampled as 0)"));
                Ok((self.upload_null(dim)?, true))
            }
        }
    }

    /// RPCS3's null texture (0, 0, 0, 0) in dimension `dim`, uploaded.
    fn upload_null(
        &mut self,
        dim: rsxtrace_gpu::TextureDimension,
    ) -> Result<Arc<UploadedTexture>, DrawFailure> {
        self.upload(format!("null {dim:?}"), binding::null_binding(dim))
    }

    fn upload(
        &mut self,
        key: String,
        binding: rsxtrace_gpu::TextureBinding,
    ) -> Result<Arc<UploadedTexture>, DrawFailure> {
        Ok(Arc::new(
            self.gpu
                .upload_texture(&binding, &key)
                .map_err(draw_gpu_error)?,
        ))
    }

    /// The vertex texture units `units` of draw `index`'s vertex program, uploaded. They are
    /// decoded from the captured memory at the draw, as the CPU render's vertex stage reads
    /// them (`render::cpu::vertex`; so both renders sample the same texels), with the state
    /// vertex units sample with (`texture::vertex_units::sampled_state`), and cached by state
    /// and content. A disabled unit is the null texture (0, 0, 0, 0), as is one that cannot
    /// be decoded, with a warning; the mask returned names them (bit u = unit u).
    pub(super) fn vertex_textures(
        &mut self,
        index: usize,
        units: u8,
    ) -> (vertex::BoundVertexTextures, u8) {
        let mut out: vertex::BoundVertexTextures = Default::default();
        let mut null = 0u8;
        if units == 0 {
            return (out, null);
        }
        let frame = self.frame;
        let Some(memory) = frame.memory(index) else {
            return (out, null);
        };
        for (u, slot) in out.iter_mut().enumerate() {
            if units & (1 << u) == 0 {
                continue;
            }
            let t = &frame.draws[index].vertex_textures[u];
            match self.vertex_texture(index, u as u8, t, &memory) {
                Ok((uploaded, is_null)) => {
                    *slot = Some(uploaded);
                    null |= u8::from(is_null) << u;
                }
                Err(e) => {
                    null |= 1 << u;
                    let why = match e {
                        DrawFailure::Skip(s) => s,
                        DrawFailure::Fatal(e) => e.to_string(),
                    };
                    self.warn(Some(index), format!("vertex texture unit {u}: {why}"));
                }
            }
        }
        (out, null)
    }

    /// One vertex texture unit of [`Self::vertex_textures`].
    fn vertex_texture<M: GuestMemory + ?Sized>(
        &mut self,
        index: usize,
        unit: u8,
        t: &rsxtrace_capture::frame::state::Texture,
        memory: &M,
    ) -> Result<(Arc<UploadedTexture>, bool), DrawFailure> {
        let dim = binding::vertex_dimension_of(t);
        if !t.control0.enabled {
            return Ok((self.upload_null(dim)?, true));
        }
        let t = sampled_state(t);
        let key = format!("vertex {unit} {t:?}");
        let content = cache::content_key(unit, &t, memory).ok();
        if let Some(found) = self.known_texture(index, &key, content) {
            return Ok((found, false));
        }
        let converted = decode_texture(unit, &t, memory)
            .map_err(binding::BindingError::from)
            .and_then(|image| {
                binding::convert_vertex_decoded(unit, &t, &image, Strictness::Approximate)
            });
        self.upload_converted(index, ("vertex ", unit), (key, content), converted, dim)
    }
}
