//! Primitive assembly: the processing positions of a draw's vertices grouped into points,
//! lines or triangles, with quads, quad strips and polygons converted to triangles.
//!
//! Conventions:
//! - **Split diagonals are the hardware's**: a quad `v0 v1 v2 v3` becomes `(v0, v1, v2)` +
//!   `(v0, v2, v3)`; quad strip quad `i` (vertices `k = 2i .. k+3`, polygon `k, k+1, k+3, k+2`)
//!   becomes `(k, k+1, k+2)` + `(k+2, k+1, k+3)` (issue 12 item 1: the diagonals seen in the
//!   ps3autotests `primitives` images taken on a PS3); a polygon `v0 .. vn` becomes the fan
//!   `(v0, v(k+1), v(k+2))`. Each output triangle keeps the winding of the input polygon, so
//!   culling on the triangles gives the same answer as on the polygon.
//! - A triangle-strip triangle `k` is `(k, k+1, k+2)` for even `k` and `(k+1, k, k+2)` for odd
//!   `k`; fan triangle `k` is `(v0, v(k+1), v(k+2))`; a line loop closes with `(v(n-1), v0)`.
//! - **Provoking vertex** (the vertex flat shading reads), [`Triangle::provoking`]: OpenGL's,
//!   which the RSX's NV4097 class follows (GL 2.1 section 2.14.7 table 2.12): the last vertex of
//!   each triangle, strip or fan triangle, line, quad (`v3`) and quad strip quad (`k+3`), and
//!   the **first** vertex of a polygon (`v0`). A quad's first triangle does not contain its
//!   provoking vertex, so it is named separately, not by position. Lines list their
//!   provoking vertex last.
//! - **Boundary edges** ([`Triangle::boundary`], edge `e` runs from `v[e]` to `v[(e+1) % 3]`):
//!   the edges of the source polygon, which polygon modes LINE and POINT draw (GL 1.1 section
//!   2.6.2 "Polygon Edges" and 3.5.4: LINE draws the boundary edges, POINT the vertices that
//!   start one). Every edge of a triangle, strip triangle or fan triangle is a boundary edge
//!   (each is its own polygon; edge flags default to TRUE); the diagonals that split a quad,
//!   a quad strip quad or a polygon are not.
//! - Incomplete primitives at the end of a segment are dropped.
//!
//! Segments: the vertex list is cut into independent primitive sequences at every position of
//! `restarts` (see [`primitive_starts`]), as a primitive restart does; strips, fans, loops and
//! polygons start afresh in each segment.

use rsxtrace_capture::fetch::index::IndexList;
use rsxtrace_capture::fetch::{DistinctVertices, FetchedVertices};

/// The `SET_BEGIN_END` primitive (rrc-format.md 4.2: codes 1 POINTS .. 10 POLYGON;
/// [`Primitive::from_raw`] decodes them). The same type as `Draw::primitive`.
pub use rsxtrace_capture::frame::Primitive;

/// One assembled triangle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Triangle {
    /// Processing positions, in the winding of the source polygon.
    pub v: [u32; 3],
    /// The provoking vertex of the source primitive (not always one of `v`: a quad's first
    /// triangle).
    pub provoking: u32,
    /// Edge `e` (`v[e]` to `v[(e + 1) % 3]`) is an edge of the source polygon.
    pub boundary: [bool; 3],
}

impl Triangle {
    fn new(v: [u32; 3], provoking: u32, boundary: [bool; 3]) -> Triangle {
        Triangle {
            v,
            provoking,
            boundary,
        }
    }

    /// A triangle that is its own polygon: every edge a boundary, provoking vertex last.
    fn whole(v: [u32; 3]) -> Triangle {
        Triangle::new(v, v[2], [true; 3])
    }
}

/// The provoking vertex of a triangle that [`assemble`] made from `primitive`, under the
/// first-vertex convention (`NV4097_SET_FLAT_SHADE_OP` non-zero: envytools and Mesa's nv30
/// driver name it FLATSHADE_FIRST, gallium's `flatshade_first`). The first-vertex column of
/// GL 3.2 table 2.12 (ARB_provoking_vertex): triangle `i` of independent triangles and strips
/// provokes at its first vertex (`3i`, `i`), of a fan at `i + 1` (not the hub), of quads and
/// quad strips at the quad's first vertex (`4i`, `2i`); a polygon's provoking vertex is its
/// first under both conventions. [`Triangle::provoking`] holds the last-vertex one, so the
/// first is found from it.
pub fn first_vertex_provoking(primitive: Primitive, t: &Triangle) -> u32 {
    let back = match primitive {
        Primitive::Triangles | Primitive::TriangleStrip => 2,
        Primitive::TriangleFan => 1,
        Primitive::Quads | Primitive::QuadStrip => 3,
        _ => 0,
    };
    t.provoking.saturating_sub(back)
}

/// Assembled primitives: indices are processing positions (into the fetched vertices / vertex
/// program outputs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Assembled {
    /// One position per point.
    Points(Vec<u32>),
    /// Two positions per line, provoking vertex last.
    Lines(Vec<[u32; 2]>),
    /// Triangles with their provoking vertex and boundary edges.
    Triangles(Vec<Triangle>),
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
/// primitive restart (`FetchedVertices::restarts`) and every draw range after the first that
/// does not continue the one before it (`FetchedVertices::range_starts`: RPCS3 joins adjacent
/// `DRAW_ARRAYS` / `DRAW_INDEX_ARRAY` ranges, libgcm's 256-vertex pieces of one draw, into one
/// draw call, and draws a range that does not continue on its own). Sorted, deduplicated.
pub fn primitive_starts(fetched: &FetchedVertices) -> Vec<usize> {
    primitive_starts_at(&fetched.restarts, &fetched.range_starts, fetched.len())
}

/// [`primitive_starts`] of a fetch of distinct vertices: its restarts and range starts are
/// processing positions, and it has fewer rows than positions.
pub fn primitive_starts_distinct(fetched: &DistinctVertices) -> Vec<usize> {
    let v = &fetched.vertices;
    primitive_starts_at(&v.restarts, &v.range_starts, fetched.positions())
}

/// [`primitive_starts`] of a draw's positions alone (`rsxtrace_fetch::positions`).
pub fn primitive_starts_of(list: &IndexList) -> Vec<usize> {
    primitive_starts_at(&list.restarts, &list.range_starts, list.indices.len())
}

/// The restarts and range starts strictly inside `0..positions`, sorted, deduplicated.
fn primitive_starts_at(restarts: &[usize], range_starts: &[usize], positions: usize) -> Vec<usize> {
    let mut starts: Vec<usize> = restarts
        .iter()
        .chain(range_starts)
        .copied()
        .filter(|&p| p > 0 && p < positions)
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
    let segments = segments(vertex_count, restarts);
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

/// How many primitives [`assemble`] makes of the same arguments (`assemble(..).len()`:
/// points, lines or triangles, a quad two), counted without listing them.
pub fn assembled_count(primitive: Primitive, vertex_count: usize, restarts: &[usize]) -> usize {
    segments(vertex_count, restarts)
        .map(|(a, b)| segment_count(primitive, (b - a) as usize))
        .sum()
}

/// The independent primitive sequences `a..b` of `vertex_count` positions cut at `restarts`
/// (any order; positions 0 and `>= vertex_count` ignored), positions capped at `u32::MAX`.
fn segments(vertex_count: usize, restarts: &[usize]) -> impl Iterator<Item = (u32, u32)> {
    let count = vertex_count.min(u32::MAX as usize);
    let mut bounds: Vec<usize> = restarts
        .iter()
        .copied()
        .filter(|&p| p > 0 && p < count)
        .collect();
    bounds.push(0);
    bounds.push(count);
    bounds.sort_unstable();
    bounds.dedup();
    let pairs: Vec<(u32, u32)> = bounds
        .windows(2)
        .map(|w| (w[0] as u32, w[1] as u32))
        .collect();
    pairs.into_iter()
}

/// Primitives [`assemble`] makes of one segment of `n` vertices.
fn segment_count(primitive: Primitive, n: usize) -> usize {
    match primitive {
        Primitive::Points => n,
        Primitive::Lines => n / 2,
        Primitive::LineStrip if n >= 2 => n - 1,
        Primitive::LineLoop if n >= 2 => n,
        Primitive::LineStrip | Primitive::LineLoop => 0,
        Primitive::Triangles => n / 3,
        Primitive::TriangleStrip | Primitive::TriangleFan | Primitive::Polygon => {
            n.saturating_sub(2)
        }
        Primitive::Quads => n / 4 * 2,
        Primitive::QuadStrip => n.saturating_sub(2) / 2 * 2,
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
fn triangles(primitive: Primitive, a: u32, b: u32, out: &mut Vec<Triangle>) {
    let n = b - a;
    match primitive {
        Primitive::Triangles => out
            .extend((0..n / 3).map(|k| Triangle::whole([a + 3 * k, a + 3 * k + 1, a + 3 * k + 2]))),
        Primitive::TriangleStrip => out.extend((0..n.saturating_sub(2)).map(|k| {
            let v = a + k;
            Triangle::whole(if k % 2 == 0 {
                [v, v + 1, v + 2]
            } else {
                [v + 1, v, v + 2]
            })
        })),
        Primitive::TriangleFan => {
            out.extend((0..n.saturating_sub(2)).map(|k| Triangle::whole([a, a + k + 1, a + k + 2])))
        }
        Primitive::Quads => {
            for k in 0..n / 4 {
                let v = a + 4 * k;
                out.push(Triangle::new([v, v + 1, v + 2], v + 3, [true, true, false]));
                out.push(Triangle::new([v, v + 2, v + 3], v + 3, [false, true, true]));
            }
        }
        Primitive::QuadStrip => {
            for i in 0..n.saturating_sub(2) / 2 {
                let k = a + 2 * i;
                out.push(Triangle::new([k, k + 1, k + 2], k + 3, [true, false, true]));
                out.push(Triangle::new(
                    [k + 2, k + 1, k + 3],
                    k + 3,
                    [false, true, true],
                ));
            }
        }
        Primitive::Polygon => {
            let count = n.saturating_sub(2);
            out.extend((0..count).map(|k| {
                Triangle::new([a, a + k + 1, a + k + 2], a, [k == 0, true, k + 1 == count])
            }))
        }
        _ => {}
    }
}
