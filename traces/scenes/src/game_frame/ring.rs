//! Streamed geometry: a dynamic vertex buffer, as a game keeps one for particles and other
//! per-frame geometry. Each streamed draw writes its vertices at the ring's head just before
//! it is drawn; a batch that does not fit before the ring's end starts again at its
//! beginning (the ring wraps), so later draws overwrite bytes that earlier draws read. The
//! builder attaches the bytes each draw reads at its END, as RPCS3 captures them
//! (rrc-format.md 3.3), so every draw's attachments hold its own vertices.
//!
//! The streamed batches are particle quads drawn as indexed triangles through one static u16
//! index buffer (two triangles per quad), the usual way to draw sprites.

use super::assets::{Bump, Mesh, Topology, VertexArray, TRIANGLES};
use super::rng::Rng;
use rsxtrace_capture::builder::{BuildError, CaptureBuilder};
use rsxtrace_capture::rrc::Location;

/// Bytes of one streamed vertex: position F x3, normal F x3, uv F x2, colour UB x4 (the
/// interleaved layout of the frame's meshes).
pub const VERTEX_BYTES: u32 = 36;

/// Most quads one streamed draw holds.
pub const MAX_QUADS: u32 = 96;

/// Vertex array type codes (rrc-format.md 4.3).
const TYPE_F: u32 = 2;
const TYPE_UB: u32 = 4;

/// A ring buffer in one guest space.
#[derive(Clone, Debug)]
pub struct Ring {
    pub location: Location,
    pub base: u32,
    pub size: u32,
    head: u32,
    /// Times the head went back to the start.
    pub wraps: u32,
}

impl Ring {
    /// A ring of `size` bytes allocated from `mem`.
    pub fn new(mem: &mut Bump, size: u32) -> Result<Ring, BuildError> {
        Ok(Ring {
            location: mem.location,
            base: mem.alloc(size as usize)?,
            size,
            head: 0,
            wraps: 0,
        })
    }

    /// Room for `len` bytes (128-byte aligned): the offset, and whether the ring wrapped
    /// to make it. `None` when `len` is larger than the ring.
    pub fn push(&mut self, len: u32) -> Option<(u32, bool)> {
        if len > self.size {
            return None;
        }
        let wrapped = self.head + len > self.size;
        if wrapped {
            self.head = 0;
            self.wraps += 1;
        }
        let at = self.base + self.head;
        self.head = (self.head + len).next_multiple_of(128).min(self.size);
        Some((at, wrapped))
    }
}

/// One streamed draw, as the generator wrote it (for tests to check what replay reads).
#[derive(Clone, Debug, PartialEq)]
pub struct StreamedDraw {
    /// The draw's index in the frame.
    pub draw: usize,
    /// Where its vertices lie.
    pub location: Location,
    /// Offset of its first vertex.
    pub offset: u32,
    /// Vertices drawn (four per quad; one more is written, as RPCS3 captures one element
    /// past the highest index).
    pub vertices: u32,
    /// The ring went back to its start for this draw.
    pub wrapped: bool,
    /// Its first vertex's position.
    pub first_position: [f32; 3],
}

/// The static index buffer: `MAX_QUADS` quads as two triangles each (big-endian u16).
pub fn put_quad_indices(b: &mut CaptureBuilder, mem: &mut Bump) -> Result<u32, BuildError> {
    let indices: Vec<u8> = (0..MAX_QUADS as u16)
        .flat_map(|q| [0, 1, 2, 2, 1, 3].map(|k| 4 * q + k))
        .flat_map(u16::to_be_bytes)
        .collect();
    let at = mem.alloc(indices.len())?;
    b.put_memory(mem.location, at, &indices)?;
    Ok(at)
}

/// `quads` particle quads in a unit box, upright (in the x-y plane), each with its own colour
/// and alpha, plus one spare vertex: the interleaved bytes, and the first vertex's position.
pub fn particles(rng: &mut Rng, quads: u32) -> (Vec<u8>, [f32; 3]) {
    let mut out = Vec::with_capacity(((4 * quads + 1) * VERTEX_BYTES) as usize);
    let mut first = [0.0; 3];
    let vertex = |out: &mut Vec<u8>, p: [f32; 3], uv: [f32; 2], colour: [u8; 4]| {
        for v in p.iter().chain(&[0.0, 0.0, 1.0]).chain(&uv) {
            out.extend(v.to_be_bytes());
        }
        out.extend(colour);
    };
    for q in 0..quads {
        let centre = [
            rng.range(-0.5, 0.5),
            rng.range(0.0, 1.0),
            rng.range(-0.5, 0.5),
        ];
        let half = rng.range(0.01, 0.06);
        let colour = [
            rng.below(256) as u8,
            rng.below(256) as u8,
            rng.below(256) as u8,
            64 + rng.below(192) as u8,
        ];
        for (dx, dy) in [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)] {
            let p = [centre[0] + dx * half, centre[1] + dy * half, centre[2]];
            if q == 0 && dx < 0.0 && dy < 0.0 {
                first = p;
            }
            vertex(&mut out, p, [(dx + 1.0) / 2.0, (1.0 - dy) / 2.0], colour);
        }
    }
    vertex(&mut out, [0.0; 3], [0.0; 2], [0; 4]);
    (out, first)
}

/// The mesh a streamed draw binds: its vertices at `offset` in `location`, the static quad
/// index buffer, one part of `quads` quads.
pub fn streamed_mesh(location: Location, offset: u32, index_offset: u32, quads: u32) -> Mesh {
    let array = |attribute, type_code, size, at| VertexArray {
        attribute,
        type_code,
        size,
        stride: VERTEX_BYTES,
        offset: offset + at,
    };
    Mesh {
        topology: Topology::IndexedTriangles,
        location,
        arrays: vec![
            array(0, TYPE_F, 3, 0),
            array(2, TYPE_F, 3, 12),
            array(8, TYPE_F, 2, 24),
            array(3, TYPE_UB, 4, 32),
        ],
        index_offset: Some(index_offset),
        parts: vec![(0, 6 * quads)],
        primitive: TRIANGLES,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_wraps_when_a_batch_does_not_fit() {
        let mut mem = Bump {
            location: Location::Main,
            next: 0x1000,
        };
        let mut ring = Ring::new(&mut mem, 1024).unwrap();
        assert_eq!(ring.push(300), Some((0x1000, false)));
        assert_eq!(ring.push(300), Some((0x1000 + 384, false)));
        // 768 + 300 > 1024: back to the start.
        assert_eq!(ring.push(300), Some((0x1000, true)));
        assert_eq!(ring.wraps, 1);
        assert_eq!(ring.push(2000), None);
    }

    #[test]
    fn particles_hold_four_vertices_a_quad_and_a_spare() {
        let mut rng = Rng::new(3);
        let (bytes, first) = particles(&mut rng, 5);
        assert_eq!(bytes.len(), 21 * VERTEX_BYTES as usize);
        let x = f32::from_be_bytes(bytes[0..4].try_into().unwrap());
        assert_eq!(x, first[0]);
    }
}
