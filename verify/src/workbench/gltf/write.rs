//! The glTF document and its GLB container: one buffer (the BIN chunk) holding every accessor
//! and image, a buffer view per accessor and image (4-byte aligned), a mesh and a node per
//! draw, a material per textured draw. Positions carry their `min`/`max` (glTF requires them);
//! indices are unsigned shorts when every index fits below 65535 (the primitive-restart value
//! glTF forbids), else unsigned ints.

use super::material::{draw_images, ImageKey, Wrap};
use super::mesh::{ChannelKind, DrawMesh, Mode, Space};
use super::{ExportError, ExportReport, ExportedMesh, GltfExport, SkippedDraw, Target};
use gltf::json;
use json::validation::Checked::Valid;
use json::validation::USize64;
use rsxtrace_capture::frame::Frame;
use serde_json::{json as value, Value};
use std::borrow::Cow;
use std::collections::HashMap;

/// The BIN chunk being filled.
#[derive(Default)]
struct Bin {
    data: Vec<u8>,
}

impl Bin {
    /// Append `bytes` at a 4-byte boundary; its offset.
    fn push(&mut self, bytes: &[u8]) -> usize {
        while self.data.len() % 4 != 0 {
            self.data.push(0);
        }
        let at = self.data.len();
        self.data.extend_from_slice(bytes);
        at
    }
}

fn extras(v: Value) -> json::Extras {
    serde_json::value::to_raw_value(&v).ok()
}

/// The document being built.
struct Doc {
    root: json::Root,
    bin: Bin,
    buffer: json::Index<json::Buffer>,
    samplers: HashMap<([Wrap; 2], bool, u32), json::Index<json::texture::Sampler>>,
    images: HashMap<ImageKey, json::Index<json::Texture>>,
}

impl Doc {
    fn view(
        &mut self,
        bytes: &[u8],
        target: Option<json::buffer::Target>,
    ) -> json::Index<json::buffer::View> {
        let offset = self.bin.push(bytes);
        self.root.push(json::buffer::View {
            buffer: self.buffer,
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: target.map(Valid),
            extensions: None,
            extras: None,
        })
    }

    fn accessor(
        &mut self,
        bytes: &[u8],
        count: usize,
        component: json::accessor::ComponentType,
        ty: json::accessor::Type,
        target: json::buffer::Target,
        bounds: Option<(Value, Value)>,
    ) -> json::Index<json::Accessor> {
        let view = self.view(bytes, Some(target));
        let (min, max) = bounds.map_or((None, None), |(a, b)| (Some(a), Some(b)));
        self.root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(count),
            component_type: Valid(json::accessor::GenericComponentType(component)),
            extensions: None,
            extras: None,
            type_: Valid(ty),
            min,
            max,
            name: None,
            normalized: false,
            sparse: None,
        })
    }

    fn floats(&mut self, values: &[f32], components: usize) -> json::Index<json::Accessor> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let ty = match components {
            1 => json::accessor::Type::Scalar,
            2 => json::accessor::Type::Vec2,
            3 => json::accessor::Type::Vec3,
            _ => json::accessor::Type::Vec4,
        };
        self.accessor(
            &bytes,
            values.len() / components.max(1),
            json::accessor::ComponentType::F32,
            ty,
            json::buffer::Target::ArrayBuffer,
            None,
        )
    }

    fn sampler(
        &mut self,
        wrap: [Wrap; 2],
        mag_linear: bool,
        min: u32,
    ) -> json::Index<json::texture::Sampler> {
        if let Some(&s) = self.samplers.get(&(wrap, mag_linear, min)) {
            return s;
        }
        use json::texture::{MagFilter, MinFilter, WrappingMode};
        let mode = |w: Wrap| match w {
            Wrap::Repeat => WrappingMode::Repeat,
            Wrap::Mirror => WrappingMode::MirroredRepeat,
            Wrap::Clamp => WrappingMode::ClampToEdge,
        };
        let min_filter = match min {
            1 => MinFilter::Nearest,
            3 => MinFilter::NearestMipmapNearest,
            4 => MinFilter::LinearMipmapNearest,
            5 => MinFilter::NearestMipmapLinear,
            6 => MinFilter::LinearMipmapLinear,
            _ => MinFilter::Linear,
        };
        let s = self.root.push(json::texture::Sampler {
            mag_filter: Some(Valid(if mag_linear {
                MagFilter::Linear
            } else {
                MagFilter::Nearest
            })),
            min_filter: Some(Valid(min_filter)),
            name: None,
            wrap_s: Valid(mode(wrap[0])),
            wrap_t: Valid(mode(wrap[1])),
            extensions: None,
            extras: None,
        });
        self.samplers.insert((wrap, mag_linear, min), s);
        s
    }
}

/// Assemble the GLB of `meshes`.
pub fn write_glb(
    frame: &Frame,
    capture: &str,
    space: Space,
    meshes: Vec<DrawMesh>,
    skipped: Vec<SkippedDraw>,
    warnings: Vec<String>,
) -> Result<GltfExport, ExportError> {
    let mut root = json::Root::default();
    root.asset.generator = Some(format!("rsxtrace {}", env!("CARGO_PKG_VERSION")));
    let buffer = root.push(json::Buffer {
        byte_length: USize64(0),
        name: None,
        uri: None,
        extensions: None,
        extras: None,
    });
    let mut doc = Doc {
        root,
        bin: Bin::default(),
        buffer,
        samplers: HashMap::new(),
        images: HashMap::new(),
    };
    let mut nodes = Vec::new();
    let mut exported = Vec::new();
    for mesh in meshes {
        let draw = frame.draws.get(mesh.draw);
        let (lo, hi) = mesh.bounds();
        let positions: Vec<f32> = mesh.positions.iter().flatten().copied().collect();
        let position_bytes: Vec<u8> = positions.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut attributes = std::collections::BTreeMap::new();
        attributes.insert(
            Valid(json::mesh::Semantic::Positions),
            doc.accessor(
                &position_bytes,
                mesh.vertex_count(),
                json::accessor::ComponentType::F32,
                json::accessor::Type::Vec3,
                json::buffer::Target::ArrayBuffer,
                Some((value!(lo), value!(hi))),
            ),
        );
        let mut raw = Vec::new();
        for channel in &mesh.channels {
            let semantic = match channel.kind {
                ChannelKind::Mapped(Target::Normal) => json::mesh::Semantic::Normals,
                ChannelKind::Mapped(Target::Color(n)) => json::mesh::Semantic::Colors(n.into()),
                ChannelKind::Mapped(Target::TexCoord(n)) => {
                    json::mesh::Semantic::TexCoords(n.into())
                }
                ChannelKind::Mapped(Target::Position) => continue,
                ChannelKind::Raw(n) => {
                    raw.push(channel.kind.gltf_name());
                    json::mesh::Semantic::Extras(format!("ATTR{n}"))
                }
                ChannelKind::ClipW => json::mesh::Semantic::Extras("CLIP_W".into()),
            };
            let accessor = doc.floats(&channel.values, channel.components);
            attributes.insert(Valid(semantic), accessor);
        }
        let wide = mesh.vertex_count() >= 0xFFFF;
        let (index_bytes, component): (Vec<u8>, _) = if wide {
            (
                mesh.indices.iter().flat_map(|i| i.to_le_bytes()).collect(),
                json::accessor::ComponentType::U32,
            )
        } else {
            (
                mesh.indices
                    .iter()
                    .flat_map(|&i| (i as u16).to_le_bytes())
                    .collect(),
                json::accessor::ComponentType::U16,
            )
        };
        let indices = doc.accessor(
            &index_bytes,
            mesh.indices.len(),
            component,
            json::accessor::Type::Scalar,
            json::buffer::Target::ElementArrayBuffer,
            None,
        );
        // The material: the sampled units' images; the lowest unit is the base colour when
        // the mesh has TEXCOORD_0.
        let images = draw_images(frame, mesh.draw, &|key| doc.images.contains_key(key));
        let mut warnings_here = mesh.warnings.clone();
        warnings_here.extend(images.warnings.iter().cloned());
        let mut unit_list = Vec::new();
        let mut textures = Vec::new();
        for image in &images.units {
            let texture = match (doc.images.get(&image.key), &image.png) {
                (Some(&t), _) => t,
                (None, None) => continue, // not reached: a new key always has its image
                (None, Some(png)) => {
                    let view = doc.view(png, None);
                    let source = doc.root.push(json::Image {
                        buffer_view: Some(view),
                        mime_type: Some(json::image::MimeType("image/png".into())),
                        name: Some(image.hash.clone()),
                        uri: None,
                        extensions: None,
                        extras: None,
                    });
                    let sampler =
                        doc.sampler(image.wrap, image.filters.mag_linear, image.filters.min);
                    let t = doc.root.push(json::Texture {
                        name: Some(format!("texture {}", image.hash)),
                        sampler: Some(sampler),
                        source,
                        extensions: None,
                        extras: None,
                    });
                    doc.images.insert(image.key, t);
                    t
                }
            };
            unit_list
                .push(value!({"unit": image.unit, "texture": texture.value(), "hash": image.hash}));
            textures.push((image.unit, texture));
        }
        let has_uv = mesh.channel(Target::TexCoord(0)).is_some();
        let material = (!textures.is_empty()).then(|| {
            let mut m = json::Material {
                name: Some(format!("draw {}", mesh.draw)),
                double_sided: true,
                extras: extras(value!({"units": unit_list})),
                ..Default::default()
            };
            m.pbr_metallic_roughness.metallic_factor = json::material::StrengthFactor(0.0);
            m.pbr_metallic_roughness.roughness_factor = json::material::StrengthFactor(1.0);
            if has_uv {
                m.pbr_metallic_roughness.base_color_texture =
                    textures.first().map(|&(_, t)| json::texture::Info {
                        index: t,
                        tex_coord: 0,
                        extensions: None,
                        extras: None,
                    });
            }
            doc.root.push(m)
        });
        if !textures.is_empty() && !has_uv {
            warnings_here.push(
                "no TEXCOORD_0: the textures are in the material's extras, not applied".into(),
            );
        }
        let summary = ExportedMesh {
            draw: mesh.draw,
            mesh: doc.root.meshes.len(),
            primitive: mesh.primitive.name(),
            mode: mesh.mode,
            vertices: mesh.vertex_count(),
            primitives: mesh.primitive_count(),
            bounds: [lo, hi],
            attributes: mesh.chosen.clone(),
            textures: textures.iter().map(|&(u, _)| u).collect(),
            warnings: warnings_here,
        };
        let mesh_extras = value!({
            "capture": capture,
            "draw": mesh.draw,
            "primitive": mesh.primitive.name(),
            "mode": mesh.mode,
            "space": space,
            "vp_hash": draw.map(|d| format!("{:016x}", d.vp_hash)),
            "fp_hash": draw.and_then(|d| d.fp_hash()),
            "vertex_count": mesh.vertex_count(),
            "attributes": mesh.chosen,
            "raw_attributes": raw,
            "textures": unit_list,
            "warnings": summary.warnings,
        });
        let primitive = json::mesh::Primitive {
            attributes,
            extensions: None,
            extras: None,
            indices: Some(indices),
            material,
            mode: Valid(match mesh.mode {
                Mode::Points => json::mesh::Mode::Points,
                Mode::Lines => json::mesh::Mode::Lines,
                Mode::Triangles => json::mesh::Mode::Triangles,
            }),
            targets: None,
        };
        let gltf_mesh = doc.root.push(json::Mesh {
            extensions: None,
            extras: extras(mesh_extras),
            name: Some(format!("draw {}", mesh.draw)),
            primitives: vec![primitive],
            weights: None,
        });
        nodes.push(doc.root.push(json::Node {
            mesh: Some(gltf_mesh),
            name: Some(format!("draw {}", mesh.draw)),
            ..Default::default()
        }));
        exported.push(summary);
    }
    let scene = doc.root.push(json::Scene {
        extensions: None,
        extras: None,
        name: Some(capture.to_string()),
        nodes,
    });
    doc.root.scene = Some(scene);
    doc.root.extras = extras(value!({
        "capture": capture,
        "space": space,
        "skipped": skipped,
        "warnings": warnings,
    }));
    let Doc { mut root, bin, .. } = doc;
    let mut bin = bin.data;
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    if let Some(b) = root.buffers.first_mut() {
        b.byte_length = USize64::from(bin.len());
    }
    let json_bytes = serde_json::to_vec(&root).map_err(|e| ExportError::Encode(e.to_string()))?;
    let total = 12 + 8 + json_bytes.len() as u64 + 3 + 8 + bin.len() as u64;
    if total > u64::from(u32::MAX) {
        return Err(ExportError::TooLarge { bytes: total });
    }
    let glb = gltf::binary::Glb {
        header: gltf::binary::Header {
            magic: *b"glTF",
            version: 2,
            length: total as u32,
        },
        json: Cow::Owned(json_bytes),
        bin: Some(Cow::Owned(bin)),
    }
    .to_vec()
    .map_err(|e| ExportError::Encode(e.to_string()))?;
    let bytes = glb.len();
    Ok(GltfExport {
        glb,
        report: ExportReport {
            capture: capture.to_string(),
            space,
            meshes: exported,
            skipped,
            warnings,
            bytes,
        },
    })
}
