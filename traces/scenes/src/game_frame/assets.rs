//! The game frame's shared assets: meshes (vertex and index buffers that many draws reuse, as
//! a game's are) and textures of several formats, all generated from the seed and laid out
//! in guest memory as big-endian data (rrc-format.md 3.3, 4.3, 4.7).

use super::rng::Rng;
use rsxtrace_capture::builder::{BuildError, CaptureBuilder, TextureDesc};
use rsxtrace_capture::rrc::Location;

/// Primitive codes of `SET_BEGIN_END` (rrc-format.md 4.2).
pub const TRIANGLES: u32 = 5;
pub const TRIANGLE_STRIP: u32 = 6;
pub const QUADS: u32 = 8;

/// Vertex array type codes (rrc-format.md 4.3).
const TYPE_S1: u32 = 1;
const TYPE_F: u32 = 2;
const TYPE_UB: u32 = 4;

/// Index value that restarts a strip (SET_RESTART_INDEX).
pub const RESTART: u16 = 0xFFFF;

/// How a mesh is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topology {
    /// Indexed u16 triangle list.
    IndexedTriangles,
    /// Indexed u16 strips, one per grid row, joined by the restart index.
    IndexedStrips,
    /// Non-indexed quads, four vertices per grid cell.
    Quads,
}

/// How a mesh's vertices are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// One interleaved buffer: position F x3, normal F x3, uv F x2, colour UB x4 (36 bytes).
    Interleaved,
    /// Separate arrays: position F x3 (12), normal S1 x4 (8, normalised shorts), uv F x2 (8),
    /// colour UB x4 (4).
    Split,
}

/// A mesh in guest memory.
#[derive(Clone, Debug)]
pub struct Mesh {
    pub topology: Topology,
    pub location: Location,
    /// Its vertex arrays.
    pub arrays: Vec<VertexArray>,
    /// Index buffer offset (indexed topologies), in `location`.
    pub index_offset: Option<u32>,
    /// The ranges draws use: whole triangles, whole strips or whole quads, `(first, count)`.
    pub parts: Vec<(u32, u32)>,
    /// The primitive code.
    pub primitive: u32,
}

/// One vertex array: `SET_VERTEX_DATA_ARRAY_FORMAT`/`OFFSET` fields (rrc-format.md 4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VertexArray {
    pub attribute: u32,
    pub type_code: u32,
    pub size: u32,
    pub stride: u32,
    pub offset: u32,
}

const fn array(attribute: u32, type_code: u32, size: u32, stride: u32, offset: u32) -> VertexArray {
    VertexArray {
        attribute,
        type_code,
        size,
        stride,
        offset,
    }
}

/// A bump allocator over one guest space, 128-byte aligned.
pub struct Bump {
    pub location: Location,
    pub next: u32,
}

impl Bump {
    pub fn alloc(&mut self, len: usize) -> Result<u32, BuildError> {
        let at = self.next;
        let next = (u64::from(at) + len as u64 + 0xFF) & !0x7F;
        self.next = u32::try_from(next).map_err(|_| BuildError::InvalidArgument {
            what: "game frame size",
            detail: format!("{} memory exhausted", self.location.name()),
        })?;
        Ok(at)
    }
}

struct Vertex {
    position: [f32; 3],
    normal: [f32; 3],
    uv: [f32; 2],
    colour: [u8; 4],
}

/// A height field over a `cells x cells` grid of unit size, shaped by the seed.
fn grid(rng: &mut Rng, cells: u32) -> Vec<Vertex> {
    let (a, b, c) = (
        rng.range(0.5, 3.0),
        rng.range(0.5, 3.0),
        rng.range(0.0, 0.3),
    );
    let tint = [
        rng.below(256) as u8,
        rng.below(256) as u8,
        rng.below(256) as u8,
    ];
    let n = cells as f32;
    let mut out = Vec::with_capacity(((cells + 1) * (cells + 1)) as usize);
    for j in 0..=cells {
        for i in 0..=cells {
            let (u, v) = (i as f32 / n, j as f32 / n);
            let (x, z) = (u - 0.5, v - 0.5);
            let h = c * (a * x * 6.0).sin() * (b * z * 6.0).cos();
            let dx = c * a * 6.0 * (a * x * 6.0).cos() * (b * z * 6.0).cos();
            let dz = -c * b * 6.0 * (a * x * 6.0).sin() * (b * z * 6.0).sin();
            let len = (dx * dx + 1.0 + dz * dz).sqrt();
            out.push(Vertex {
                position: [x, h, z],
                normal: [-dx / len, 1.0 / len, -dz / len],
                uv: [u * 2.0, v * 2.0],
                colour: [
                    tint[0].wrapping_add((u * 64.0) as u8),
                    tint[1],
                    tint[2].wrapping_add((v * 64.0) as u8),
                    0xFF,
                ],
            });
        }
    }
    out
}

fn floats(values: &[f32]) -> impl Iterator<Item = u8> + '_ {
    values.iter().flat_map(|v| v.to_be_bytes())
}

fn snorm16(v: f32) -> [u8; 2] {
    ((v.clamp(-1.0, 1.0) * 32767.0).round() as i16).to_be_bytes()
}

/// Write `vertices` in `layout`, plus one spare vertex (RPCS3 captures one element past the
/// highest index, rrc-format.md 3.3); returns the arrays.
fn put_vertices(
    b: &mut CaptureBuilder,
    mem: &mut Bump,
    layout: Layout,
    vertices: &[Vertex],
) -> Result<Vec<VertexArray>, BuildError> {
    let spare = Vertex {
        position: [0.0; 3],
        normal: [0.0, 1.0, 0.0],
        uv: [0.0; 2],
        colour: [0; 4],
    };
    let all = || vertices.iter().chain(std::iter::once(&spare));
    match layout {
        Layout::Interleaved => {
            let mut bytes = Vec::with_capacity((vertices.len() + 1) * 36);
            for v in all() {
                bytes.extend(floats(&v.position));
                bytes.extend(floats(&v.normal));
                bytes.extend(floats(&v.uv));
                bytes.extend_from_slice(&v.colour);
            }
            let at = mem.alloc(bytes.len())?;
            b.put_memory(mem.location, at, &bytes)?;
            Ok(vec![
                array(0, TYPE_F, 3, 36, at),
                array(2, TYPE_F, 3, 36, at + 12),
                array(8, TYPE_F, 2, 36, at + 24),
                array(3, TYPE_UB, 4, 36, at + 32),
            ])
        }
        Layout::Split => {
            let pos: Vec<u8> = all()
                .flat_map(|v| floats(&v.position).collect::<Vec<_>>())
                .collect();
            let nrm: Vec<u8> = all()
                .flat_map(|v| {
                    let [x, y, z] = v.normal;
                    [snorm16(x), snorm16(y), snorm16(z), snorm16(0.0)].concat()
                })
                .collect();
            let uv: Vec<u8> = all()
                .flat_map(|v| floats(&v.uv).collect::<Vec<_>>())
                .collect();
            let col: Vec<u8> = all().flat_map(|v| v.colour).collect();
            let mut arrays = Vec::new();
            for (attr, ty, size, stride, bytes) in [
                (0, TYPE_F, 3, 12, pos),
                (2, TYPE_S1, 4, 8, nrm),
                (8, TYPE_F, 2, 8, uv),
                (3, TYPE_UB, 4, 4, col),
            ] {
                let at = mem.alloc(bytes.len())?;
                b.put_memory(mem.location, at, &bytes)?;
                arrays.push(array(attr, ty, size, stride, at));
            }
            Ok(arrays)
        }
    }
}

/// Split `total` primitives of `per` indices into `parts` ranges of whole primitives.
fn split(total: u32, per: u32, parts: u32) -> Vec<(u32, u32)> {
    let prims = total / per;
    let each = (prims / parts.max(1)).max(1);
    let mut out = Vec::new();
    let mut first = 0;
    while first < prims {
        let n = each.min(prims - first);
        out.push((first * per, n * per));
        first += n;
    }
    out
}

/// One mesh of `cells x cells` grid cells.
pub fn mesh(
    b: &mut CaptureBuilder,
    rng: &mut Rng,
    mem: &mut Bump,
    topology: Topology,
    layout: Layout,
    cells: u32,
) -> Result<Mesh, BuildError> {
    let vertices = grid(rng, cells);
    let row = cells + 1;
    let at = |i: u32, j: u32| j * row + i;
    let (arrays, index_offset, parts, primitive) = match topology {
        Topology::IndexedTriangles => {
            let arrays = put_vertices(b, mem, layout, &vertices)?;
            let mut idx: Vec<u16> = Vec::new();
            for j in 0..cells {
                for i in 0..cells {
                    let (a, b2, c, d) = (at(i, j), at(i + 1, j), at(i, j + 1), at(i + 1, j + 1));
                    idx.extend([a, c, b2, b2, c, d].map(|v| v as u16));
                }
            }
            let bytes: Vec<u8> = idx.iter().flat_map(|i| i.to_be_bytes()).collect();
            let ib = mem.alloc(bytes.len())?;
            b.put_memory(mem.location, ib, &bytes)?;
            let parts = split(idx.len() as u32, 3, 1 + rng.below(4) as u32);
            (arrays, Some(ib), parts, TRIANGLES)
        }
        Topology::IndexedStrips => {
            let arrays = put_vertices(b, mem, layout, &vertices)?;
            // One strip per row, each followed by the restart index; a part is whole rows.
            let per_row = 2 * row + 1;
            let mut idx: Vec<u16> = Vec::new();
            for j in 0..cells {
                for i in 0..row {
                    idx.push(at(i, j) as u16);
                    idx.push(at(i, j + 1) as u16);
                }
                idx.push(RESTART);
            }
            let bytes: Vec<u8> = idx.iter().flat_map(|i| i.to_be_bytes()).collect();
            let ib = mem.alloc(bytes.len())?;
            b.put_memory(mem.location, ib, &bytes)?;
            let parts = split(idx.len() as u32, per_row, 1 + rng.below(3) as u32);
            (arrays, Some(ib), parts, TRIANGLE_STRIP)
        }
        Topology::Quads => {
            let mut quads = Vec::with_capacity((cells * cells * 4) as usize);
            for j in 0..cells {
                for i in 0..cells {
                    for (di, dj) in [(0, 0), (0, 1), (1, 1), (1, 0)] {
                        let v = &vertices[at(i + di, j + dj) as usize];
                        quads.push(Vertex {
                            position: v.position,
                            normal: v.normal,
                            uv: v.uv,
                            colour: v.colour,
                        });
                    }
                }
            }
            let arrays = put_vertices(b, mem, layout, &quads)?;
            let parts = split(quads.len() as u32, 4, 1 + rng.below(4) as u32);
            (arrays, None, parts, QUADS)
        }
    };
    Ok(Mesh {
        topology,
        location: mem.location,
        arrays,
        index_offset,
        parts,
        primitive,
    })
}

/// A texture: its register state and where its texels lie.
#[derive(Clone, Copy, Debug)]
pub struct Texture {
    pub desc: TextureDesc,
}

/// The texel formats the frame uses: (format byte with LN where linear, bytes per texel or
/// per 4x4 block, block size in texels).
const FORMATS: [(u8, u32, u32); 6] = [
    (0x85 | 0x20, 4, 1), // A8R8G8B8, linear
    (0x84 | 0x20, 2, 1), // R5G6B5, linear
    (0x83 | 0x20, 2, 1), // A4R4G4B4, linear
    (0x81 | 0x20, 1, 1), // B8, linear
    (0x86, 8, 4),        // DXT1 (always block-linear)
    (0x88, 16, 4),       // DXT45
];

/// How many low bits of each texel byte carry noise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grain {
    /// None: stripes and gradients only (the committed frame).
    Smooth,
    /// The low 5 bits of each byte are noise, so the texels compress about as poorly as
    /// real art in DXT blocks does (gzip gains about a third).
    Noisy,
}

/// `count` 2D textures cycling through the formats, `side x side` texels (a side picked from
/// `sides`), one mip level, with procedural texels (stripes and gradients, so they compress
/// like real art does), with `grain`.
pub fn textures(
    b: &mut CaptureBuilder,
    rng: &mut Rng,
    mem: &mut Bump,
    count: usize,
    sides: &[u16; 3],
    grain: Grain,
) -> Result<Vec<Texture>, BuildError> {
    let mut out = Vec::with_capacity(count);
    for k in 0..count {
        let (format, unit_bytes, block) = FORMATS[k % FORMATS.len()];
        let side: u16 = sides[rng.below(sides.len())];
        let blocks = u32::from(side) / block;
        let pitch = blocks * unit_bytes;
        let size = (pitch * blocks) as usize;
        let phase = rng.below(256) as u32;
        let mut bytes: Vec<u8> = (0..size as u32)
            .map(|i| {
                let (x, y) = (i % pitch, i / pitch);
                ((x * 3 + y * 5 + phase) ^ (y << 2)) as u8
            })
            .collect();
        if grain == Grain::Noisy {
            let mut noise = Rng::new(rng.next_u64());
            for chunk in bytes.chunks_mut(8) {
                let bits = noise.next_u64().to_le_bytes();
                for (byte, n) in chunk.iter_mut().zip(bits) {
                    *byte ^= n & 0x1F;
                }
            }
        }
        let offset = mem.alloc(size)?;
        b.put_memory(mem.location, offset, &bytes)?;
        let wrap = [0x0001_0101u32, 0x0003_0303, 0x0002_0202][rng.below(3)];
        let filter = [(1 << 16) | (1 << 24), (2 << 16) | (2 << 24)][rng.below(2)];
        out.push(Texture {
            desc: TextureDesc {
                offset,
                location: mem.location,
                format,
                dimension: 2,
                cubemap: false,
                mipmaps: 1,
                width: side,
                height: side,
                depth: 1,
                pitch,
                address: wrap,
                // Max LOD 12.0 in 4.8 fixed point (bits 7..18), as the basic sample.
                control0: (12 << 8) << 7,
                remap: 0x0000_AAE4,
                filter,
                border_color: 0,
                byte_size: size as u32,
                border_texels: false,
            },
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_keeps_whole_primitives() {
        assert_eq!(split(18, 3, 2), vec![(0, 9), (9, 9)]);
        assert_eq!(
            split(20, 4, 3),
            vec![(0, 4), (4, 4), (8, 4), (12, 4), (16, 4)]
        );
        assert_eq!(split(12, 3, 1), vec![(0, 12)]);
    }

    #[test]
    fn snorm_and_alloc() {
        assert_eq!(snorm16(1.0), [0x7F, 0xFF]);
        assert_eq!(snorm16(-1.0), [0x80, 0x01]);
        let mut bump = Bump {
            location: Location::Local,
            next: 0x100,
        };
        assert_eq!(bump.alloc(10).unwrap(), 0x100);
        assert_eq!(bump.alloc(1).unwrap(), 0x200);
    }
}
