//! Primitive assembly: the processing positions of a draw's vertices grouped into points,
//! lines or triangles, with quads, quad strips and polygons converted to triangles.
//!
//! Conventions (OpenGL's, which the RSX's NV4097 class follows; the GL 2.1 specification
//! section 2.14.7 table 2.12 gives the provoking vertex of each primitive):
//! - every output primitive lists its **provoking vertex last** (flat shading reads slot 2 of
//!   a triangle, slot 1 of a line), and keeps the winding of the input primitive, so culling
//!   on the output triangles gives the same answer as on the input polygons;
//! - GL's provoking vertex is the last vertex of each primitive for triangles, strips, fans,
//!   lines, quads and quad strips, and the **first** vertex for polygons;
//! - a quad `v0 v1 v2 v3` becomes `(v0, v1, v3)`, `(v1, v2, v3)`; quad strip quad `i` (polygon
//!   `2i, 2i+1, 2i+3, 2i+2`) becomes `(2i, 2i+1, 2i+3)`, `(2i+2, 2i, 2i+3)`; a polygon
//!   `v0 .. vn` becomes the fan `(v(k), v(k+1), v0)`; a triangle-strip triangle `k` is
//!   `(k, k+1, k+2)` for even `k` and `(k+1, k, k+2)` for odd `k`; fan triangle `k` is
//!   `(v0, v(k+1), v(k+2))`; a line loop closes with `(v(n-1), v0)`.
//! - Incomplete primitives at the end of a segment are dropped.
//!
//! Segments: the vertex list is cut into independent primitive sequences at every position of
//! `restarts` (see [`primitive_starts`]), as a primitive restart does; strips, fans, loops and
//! polygons start afresh in each segment.

use rsxtrace_capture::fetch::FetchedVertices;

/// The `SET_BEGIN_END` primitive (rrc-format.md 4.2: codes 1 POINTS .. 10 POLYGON;
/// [`Primitive::from_raw`] decodes them). The same type as `Draw::primitive`.
pub use rsxtrace_capture::frame::Primitive;

/// Assembled primitives: indices are processing positions (into the fetched vertices / vertex
/// program outputs), provoking vertex last.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Assembled {
    /// One position per point.
    Points(Vec<u32>),
    /// Two positions per line.
    Lines(Vec<[u32; 2]>),
    /// Three positions per triangle.
    Triangles(Vec<[u32; 3]>),
}

impl Assembled {
    /// Number of primitives.
    pub fn len(&self) -> usize {
        match self {
            Assembled::Points(p) => p.len(),
            Assembled::Lines(l) => l.len(),
            Assembled::Triangles(t) => t.len(),
        }
    }

    /// No primitive at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The positions where a new, independent primitive sequence starts in a fetched draw: every
/// primitive restart (`FetchedVertices::restarts`) and every draw range after the first
/// (`FetchedVertices::range_starts`: each `DRAW_ARRAYS` / `DRAW_INDEX_ARRAY` command is its
/// own draw call in RPCS3, so a strip does not continue across ranges). Sorted, deduplicated.
pub fn primitive_starts(fetched: &FetchedVertices) -> Vec<usize> {
    let mut starts: Vec<usize> = fetched
        .restarts
        .iter()
        .chain(&fetched.range_starts)
        .copied()
        .filter(|&p| p > 0 && p < fetched.len())
        .collect();
    starts.sort_unstable();
    starts.dedup();
    starts
}

/// Assemble `vertex_count` vertices (processing positions `0..vertex_count`) as `primitive`,
/// starting a new primitive sequence at every position in `restarts` (any order; positions 0
/// and `>= vertex_count` are ignored). Positions past `u32::MAX` are not produced (a draw holds
/// at most 2^24 vertices, `rsxtrace_fetch::MAX_VERTICES`).
pub fn assemble(primitive: Primitive, vertex_count: usize, restarts: &[usize]) -> Assembled {
    let count = vertex_count.min(u32::MAX as usize);
    let mut cuts: Vec<usize> = restarts
        .iter()
        .copied()
        .filter(|&p| p > 0 && p < count)
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut bounds = Vec::with_capacity(cuts.len() + 2);
    bounds.push(0);
    bounds.extend(cuts);
    bounds.push(count);
    let segments = bounds.windows(2).map(|w| (w[0] as u32, w[1] as u32));
    match primitive {
        Primitive::Points => Assembled::Points(segments.flat_map(|(a, b)| a..b).collect()),
        Primitive::Lines | Primitive::LineStrip | Primitive::LineLoop => {
            let mut out = Vec::new();
            for (a, b) in segments {
                lines(primitive, a, b, &mut out);
            }
            Assembled::Lines(out)
        }
        _ => {
            let mut out = Vec::new();
            for (a, b) in segments {
                triangles(primitive, a, b, &mut out);
            }
            Assembled::Triangles(out)
        }
    }
}

/// Lines of one segment `a..b`.
fn lines(primitive: Primitive, a: u32, b: u32, out: &mut Vec<[u32; 2]>) {
    let n = b - a;
    match primitive {
        Primitive::Lines => out.extend((0..n / 2).map(|k| [a + 2 * k, a + 2 * k + 1])),
        Primitive::LineStrip | Primitive::LineLoop => {
            if n < 2 {
                return;
            }
            out.extend((a..b - 1).map(|v| [v, v + 1]));
            if primitive == Primitive::LineLoop {
                out.push([b - 1, a]);
            }
        }
        _ => {}
    }
}

/// Triangles of one segment `a..b`.
fn triangles(primitive: Primitive, a: u32, b: u32, out: &mut Vec<[u32; 3]>) {
    let n = b - a;
    match primitive {
        Primitive::Triangles => {
            out.extend((0..n / 3).map(|k| [a + 3 * k, a + 3 * k + 1, a + 3 * k + 2]))
        }
        Primitive::TriangleStrip => out.extend((0..n.saturating_sub(2)).map(|k| {
            let v = a + k;
            if k % 2 == 0 {
                [v, v + 1, v + 2]
            } else {
                [v + 1, v, v + 2]
            }
        })),
        Primitive::TriangleFan => {
            out.extend((0..n.saturating_sub(2)).map(|k| [a, a + k + 1, a + k + 2]))
        }
        Primitive::Quads => {
            for k in 0..n / 4 {
                let v = a + 4 * k;
                out.push([v, v + 1, v + 3]);
                out.push([v + 1, v + 2, v + 3]);
            }
        }
        Primitive::QuadStrip => {
            for k in 0..n.saturating_sub(2) / 2 {
                let v = a + 2 * k;
                out.push([v, v + 1, v + 3]);
                out.push([v + 2, v, v + 3]);
            }
        }
        Primitive::Polygon => {
            out.extend((0..n.saturating_sub(2)).map(|k| [a + k + 1, a + k + 2, a]))
        }
        _ => {}
    }
}
