//! The rasterizer core (`rsxtrace_replay::raster`): primitive assembly of every primitive kind,
//! clipping against w, the viewport transform, the top-left fill rule, interpolation and the
//! routing of vertex outputs to fragment inputs, each against values worked out by hand.

use std::collections::HashMap;

use rsxtrace_capture::frame::state::ShaderWindow;
use rsxtrace_replay::interp::fragment::attr;
use rsxtrace_replay::raster::{
    assemble, assembled_count, clip_by_distances, clip_triangle, fragment_inputs,
    fragment_inputs_with, may_cover_centre, rasterize_line, rasterize_point, rasterize_triangle,
    rasterize_triangle_facing, to_window, triangle_weights_at, winding, wpos, Assembled, Covered,
    PixelRect, Primitive, VaryingOptions, ViewportTransform, Winding, WindowVertex,
};

fn wv(x: f32, y: f32) -> WindowVertex {
    WindowVertex {
        x,
        y,
        z: 0.0,
        inv_w: 1.0,
    }
}

const ALL: PixelRect = PixelRect {
    x0: 0,
    y0: 0,
    x1: 64,
    y1: 64,
};

#[test]
fn primitive_codes_are_the_begin_end_values() {
    let expected = [
        Primitive::Points,
        Primitive::Lines,
        Primitive::LineLoop,
        Primitive::LineStrip,
        Primitive::Triangles,
        Primitive::TriangleStrip,
        Primitive::TriangleFan,
        Primitive::Quads,
        Primitive::QuadStrip,
        Primitive::Polygon,
    ];
    for (code, p) in (1u32..=10).zip(expected) {
        assert_eq!(Primitive::from_raw(code), Some(p), "code {code}");
    }
    assert_eq!(Primitive::from_raw(0), None);
    assert_eq!(Primitive::from_raw(11), None);
}

#[test]
fn points_and_lines_assemble_with_the_provoking_vertex_last() {
    assert_eq!(
        assemble(Primitive::Points, 3, &[]),
        Assembled::Points(vec![0, 1, 2])
    );
    // 5 vertices: the odd one is dropped.
    assert_eq!(
        assemble(Primitive::Lines, 5, &[]),
        Assembled::Lines(vec![[0, 1], [2, 3]])
    );
    assert_eq!(
        assemble(Primitive::LineStrip, 4, &[]),
        Assembled::Lines(vec![[0, 1], [1, 2], [2, 3]])
    );
    assert_eq!(
        assemble(Primitive::LineLoop, 3, &[]),
        Assembled::Lines(vec![[0, 1], [1, 2], [2, 0]])
    );
    assert_eq!(
        assemble(Primitive::LineLoop, 1, &[]),
        Assembled::Lines(vec![])
    );
}

/// The vertex triples of assembled triangles.
fn vertex_triples(a: Assembled) -> Vec<[u32; 3]> {
    match a {
        Assembled::Triangles(t) => t.iter().map(|t| t.v).collect(),
        other => panic!("{other:?} are not triangles"),
    }
}

/// (vertices, provoking vertex, boundary edges) of assembled triangles.
fn triangles(a: Assembled) -> Vec<([u32; 3], u32, [bool; 3])> {
    match a {
        Assembled::Triangles(t) => t.iter().map(|t| (t.v, t.provoking, t.boundary)).collect(),
        other => panic!("{other:?} are not triangles"),
    }
}

#[test]
fn triangle_kinds_assemble_keeping_winding_and_provoking_vertex() {
    const ALL: [bool; 3] = [true; 3];
    assert_eq!(
        triangles(assemble(Primitive::Triangles, 7, &[])),
        vec![([0, 1, 2], 2, ALL), ([3, 4, 5], 5, ALL)]
    );
    // Odd strip triangles swap their first two vertices (winding), the newest stays last;
    // each strip or fan triangle is a polygon of its own: every edge is a boundary.
    assert_eq!(
        triangles(assemble(Primitive::TriangleStrip, 5, &[])),
        vec![
            ([0, 1, 2], 2, ALL),
            ([2, 1, 3], 3, ALL),
            ([2, 3, 4], 4, ALL)
        ]
    );
    assert_eq!(
        triangles(assemble(Primitive::TriangleFan, 5, &[])),
        vec![
            ([0, 1, 2], 2, ALL),
            ([0, 2, 3], 3, ALL),
            ([0, 3, 4], 4, ALL)
        ]
    );
}

#[test]
fn quads_split_on_the_hardware_diagonal() {
    // Issue 12 item 1: the PS3 draws quad v0..v3 as (v0, v1, v2) + (v0, v2, v3); v3 is GL's
    // provoking vertex of the quad (GL 2.1 table 2.12); the v0-v2 diagonal is no boundary.
    assert_eq!(
        triangles(assemble(Primitive::Quads, 9, &[])),
        vec![
            ([0, 1, 2], 3, [true, true, false]),
            ([0, 2, 3], 3, [false, true, true]),
            ([4, 5, 6], 7, [true, true, false]),
            ([4, 6, 7], 7, [false, true, true]),
        ]
    );
    // Quad strip quad k: (k, k+1, k+2) + (k+2, k+1, k+3), provoking k+3; the k+1-k+2 diagonal
    // is no boundary.
    assert_eq!(
        triangles(assemble(Primitive::QuadStrip, 6, &[])),
        vec![
            ([0, 1, 2], 3, [true, false, true]),
            ([2, 1, 3], 3, [false, true, true]),
            ([2, 3, 4], 5, [true, false, true]),
            ([4, 3, 5], 5, [false, true, true]),
        ]
    );
    // Polygon: a fan around v0 (GL's provoking vertex for polygons); only the outline edges
    // are boundaries.
    assert_eq!(
        triangles(assemble(Primitive::Polygon, 5, &[])),
        vec![
            ([0, 1, 2], 0, [true, true, false]),
            ([0, 2, 3], 0, [false, true, false]),
            ([0, 3, 4], 0, [false, true, true]),
        ]
    );
}

#[test]
fn assembled_count_is_the_number_assemble_lists() {
    // Every primitive kind, every vertex count up to 13, with no restart, restarts inside,
    // at the ends, repeated, unsorted and out of range.
    let restart_sets: [&[usize]; 6] = [&[], &[3], &[2, 7], &[0, 5, 5, 40], &[9, 4, 1], &[6, 7, 8]];
    for code in 1..=10 {
        let p = Primitive::from_raw(code).unwrap();
        for n in 0..14 {
            for restarts in restart_sets {
                assert_eq!(
                    assembled_count(p, n, restarts),
                    assemble(p, n, restarts).len(),
                    "{p:?} of {n} vertices, restarts {restarts:?}"
                );
            }
        }
    }
    // Worked out by hand: a quad strip of 8 vertices is 3 quads, 6 triangles; cut at 4 it is
    // two strips of one quad each.
    assert_eq!(assembled_count(Primitive::QuadStrip, 8, &[]), 6);
    assert_eq!(assembled_count(Primitive::QuadStrip, 8, &[4]), 4);
    assert_eq!(assembled_count(Primitive::LineLoop, 5, &[]), 5);
}

#[test]
fn boundary_edges_are_the_polygon_outline_once_each() {
    // The boundary edges of a polygon (or quad) assembled into triangles are exactly the
    // polygon's outline, each edge once, whatever the split.
    for (p, n) in [(Primitive::Polygon, 6u32), (Primitive::Quads, 4)] {
        let mut edges: Vec<(u32, u32)> = Vec::new();
        for (v, _, boundary) in triangles(assemble(p, n as usize, &[])) {
            for e in (0..3).filter(|&e| boundary[e]) {
                let (a, b) = (v[e], v[(e + 1) % 3]);
                edges.push((a.min(b), a.max(b)));
            }
        }
        edges.sort_unstable();
        let mut outline: Vec<(u32, u32)> = (0..n)
            .map(|k| (k.min((k + 1) % n), k.max((k + 1) % n)))
            .collect();
        outline.sort_unstable();
        assert_eq!(edges, outline, "{p:?}");
    }
}

#[test]
fn every_assembled_triangle_keeps_the_input_winding() {
    // Vertices on a convex counter-clockwise ring; any triangle built from them in the input
    // order is counter-clockwise, and so must be every assembled one.
    let ring: Vec<WindowVertex> = (0..8)
        .map(|k| {
            let a = -(k as f32) * std::f32::consts::TAU / 8.0;
            wv(32.0 + 20.0 * a.cos(), 32.0 + 20.0 * a.sin())
        })
        .collect();
    let first = [ring[0], ring[1], ring[2]];
    let expected = winding(&first).unwrap();
    for p in [Primitive::TriangleFan, Primitive::Polygon] {
        let Assembled::Triangles(t) = assemble(p, 8, &[]) else {
            panic!("{p:?} gives triangles");
        };
        for tri in t {
            let v = tri.v.map(|i| ring[i as usize]);
            assert_eq!(winding(&v), Some(expected), "{p:?} {tri:?}");
        }
    }
    // A quad strip of two rows: 0 2 4 on top, 1 3 5 below (the GL layout).
    let strip = [
        wv(0.0, 0.0),
        wv(0.0, 10.0),
        wv(10.0, 0.0),
        wv(10.0, 10.0),
        wv(20.0, 0.0),
        wv(20.0, 10.0),
    ];
    let quad_winding = winding(&[strip[0], strip[1], strip[3]]);
    let Assembled::Triangles(t) = assemble(Primitive::QuadStrip, 6, &[]) else {
        panic!("quad strip gives triangles");
    };
    for tri in t {
        assert_eq!(winding(&tri.v.map(|i| strip[i as usize])), quad_winding);
    }
}

#[test]
fn restarts_start_new_sequences() {
    // Strip 0..4 then 4..7: no triangle crosses position 4.
    assert_eq!(
        vertex_triples(assemble(Primitive::TriangleStrip, 7, &[4])),
        vec![[0, 1, 2], [2, 1, 3], [4, 5, 6]]
    );
    // Unsorted, duplicated, out-of-range and zero positions are harmless.
    assert_eq!(
        assemble(Primitive::LineStrip, 6, &[4, 0, 2, 2, 99]),
        Assembled::Lines(vec![[0, 1], [2, 3], [4, 5]])
    );
    assert_eq!(
        vertex_triples(assemble(Primitive::TriangleFan, 6, &[3])),
        vec![[0, 1, 2], [3, 4, 5]]
    );
}

#[test]
fn clipping_against_w() {
    // All in front: the identity.
    let front = clip_triangle([
        [0.0, 0.0, 0.0, 1.0],
        [1.0, 0.0, 0.0, 2.0],
        [0.0, 1.0, 0.0, 3.0],
    ]);
    assert_eq!(
        front,
        vec![[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]]
    );
    // All behind.
    assert!(clip_triangle([[0.0; 4], [1.0, 0.0, 0.0, -1.0], [0.0, 1.0, 0.0, -2.0]]).is_empty());
    // Vertex 2 behind (w = -1), 0 and 1 at w = 1: the plane w = ε cuts edges 1-2 and 2-0
    // at t = (1 - ε) / 2 from the front vertex. A quadrilateral: two triangles.
    let pieces = clip_triangle([
        [0.0, 0.0, 0.0, 1.0],
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, -1.0],
    ]);
    assert_eq!(pieces.len(), 2);
    let t = (1.0 - 1e-6) / 2.0;
    let cut_12 = [0.0, 1.0 - t, t];
    let cut_20 = [1.0 - t, 0.0, t];
    let close = |a: [f32; 3], b: [f32; 3]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6);
    assert_eq!(pieces[0][0], [1.0, 0.0, 0.0]);
    assert_eq!(pieces[0][1], [0.0, 1.0, 0.0]);
    assert!(close(pieces[0][2], cut_12), "{:?}", pieces[0]);
    assert!(
        close(pieces[1][1], cut_12) && close(pieces[1][2], cut_20),
        "{:?}",
        pieces[1]
    );
    for piece in &pieces {
        for w in piece {
            assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-6);
            // Every kept vertex has w >= ε.
            let wpos = w[0] + w[1] - w[2];
            assert!(wpos >= 0.9e-6, "{w:?}");
        }
    }
    // NaN w is outside.
    assert!(clip_triangle([[0.0, 0.0, 0.0, f32::NAN], [0.0; 4], [0.0; 4]]).is_empty());
    // Two planes: x >= 0 on a triangle straddling it keeps the right part only.
    let right = clip_by_distances(&[[-1.0, 1.0, 1.0]]);
    assert_eq!(right.len(), 2);
}

#[test]
fn viewport_transform() {
    let vp = ViewportTransform {
        scale: [320.0, -180.0, 0.5, 0.0],
        offset: [320.0, 180.0, 0.5, 0.0],
    };
    // NDC (0.5, 0.5, 0) at w = 2: clip (1, 1, 0, 2).
    let v = to_window([1.0, 1.0, 0.0, 2.0], &vp).unwrap();
    assert_eq!((v.x, v.y, v.z, v.inv_w), (480.0, 90.0, 0.5, 0.5));
    assert_eq!(to_window([0.0, 0.0, 0.0, 0.0], &vp), None);
    assert_eq!(to_window([0.0, 0.0, 0.0, -1.0], &vp), None);
    assert_eq!(to_window([f32::INFINITY, 0.0, 0.0, 1.0], &vp), None);
}

fn covered_set(out: &[Covered]) -> Vec<(u32, u32)> {
    let mut v: Vec<_> = out.iter().map(|c| (c.x, c.y)).collect();
    v.sort_unstable();
    v
}

#[test]
fn small_triangle_coverage_by_hand() {
    // (0,0), (4,0), (0,4): centres (x+.5, y+.5) with x + y + 1 < 4 are strictly inside; those
    // with x + y + 1 = 4 lie on the hypotenuse, a right/bottom edge (not top-left): excluded.
    let mut out = Vec::new();
    rasterize_triangle([wv(0.0, 0.0), wv(4.0, 0.0), wv(0.0, 4.0)], ALL, &mut out);
    let mut expected = Vec::new();
    for x in 0..4u32 {
        for y in 0..4u32 {
            if x + y + 1 < 4 {
                expected.push((x, y));
            }
        }
    }
    assert_eq!(covered_set(&out), expected);
    // The same triangle wound the other way covers the same pixels, facing flipped.
    let mut rev = Vec::new();
    rasterize_triangle([wv(0.0, 0.0), wv(0.0, 4.0), wv(4.0, 0.0)], ALL, &mut rev);
    assert_eq!(covered_set(&rev), expected);
    assert_ne!(out[0].front_facing, rev[0].front_facing);
}

#[test]
fn winding_is_seen_with_row_zero_at_the_top() {
    // Top-left, top-right, bottom-left: clockwise on the image.
    assert_eq!(
        winding(&[wv(0.0, 0.0), wv(4.0, 0.0), wv(0.0, 4.0)]),
        Some(Winding::Clockwise)
    );
    assert_eq!(
        winding(&[wv(0.0, 0.0), wv(0.0, 4.0), wv(4.0, 0.0)]),
        Some(Winding::CounterClockwise)
    );
    assert_eq!(winding(&[wv(0.0, 0.0), wv(1.0, 1.0), wv(2.0, 2.0)]), None);
}

#[test]
fn top_and_left_edges_cover_centres_on_them() {
    // Square 1..3 x 1..3 as two triangles: centres at 1.5 and 2.5 only, no centre on an edge.
    // Shift by half a pixel: square 0.5..2.5 has centres 0.5 (left/top edges: covered) and
    // 2.5 (right/bottom edges: not covered), so exactly pixels 0..2 x 0..2.
    let (a, b, c, d) = (wv(0.5, 0.5), wv(2.5, 0.5), wv(2.5, 2.5), wv(0.5, 2.5));
    let mut out = Vec::new();
    rasterize_triangle([a, b, c], ALL, &mut out);
    rasterize_triangle([a, c, d], ALL, &mut out);
    assert_eq!(covered_set(&out), vec![(0, 0), (0, 1), (1, 0), (1, 1)]);
}

#[test]
fn triangles_sharing_an_edge_cover_each_pixel_once() {
    // A fan of triangles around an interior point with awkward coordinates, both windings:
    // every pixel whose centre is inside the hull is covered exactly once.
    let centre = wv(20.3, 17.7);
    let ring: Vec<WindowVertex> = [
        (3.1, 2.25),
        (30.5, 1.5),
        (41.0, 22.0),
        (28.0, 40.5),
        (6.5, 33.0),
        (0.5, 16.5),
    ]
    .iter()
    .map(|&(x, y)| wv(x, y))
    .collect();
    for flip in [false, true] {
        let mut out = Vec::new();
        for k in 0..ring.len() {
            let (p, q) = (ring[k], ring[(k + 1) % ring.len()]);
            let tri = if flip { [q, p, centre] } else { [centre, p, q] };
            rasterize_triangle(tri, ALL, &mut out);
        }
        let mut counts: HashMap<(u32, u32), u32> = HashMap::new();
        for c in &out {
            *counts.entry((c.x, c.y)).or_default() += 1;
        }
        assert!(counts.values().all(|&n| n == 1), "a pixel covered twice");
        // The hull's area is about 1150 pixels; coverage must be close to it.
        assert!((1000..1300).contains(&counts.len()), "{}", counts.len());
        // Also: a second, diagonal split of a square covers each pixel once.
        let sq = [wv(0.0, 0.0), wv(7.0, 0.0), wv(7.0, 7.0), wv(0.0, 7.0)];
        let mut o = Vec::new();
        rasterize_triangle([sq[0], sq[1], sq[2]], ALL, &mut o);
        rasterize_triangle([sq[0], sq[2], sq[3]], ALL, &mut o);
        assert_eq!(o.len(), 49);
        assert_eq!(
            covered_set(&o).windows(2).filter(|w| w[0] == w[1]).count(),
            0
        );
    }
}

#[test]
fn zero_area_triangles_cover_nothing() {
    let mut out = Vec::new();
    rasterize_triangle([wv(1.0, 1.0), wv(5.0, 5.0), wv(9.0, 9.0)], ALL, &mut out);
    rasterize_triangle([wv(3.0, 3.0); 3], ALL, &mut out);
    rasterize_triangle(
        [wv(f32::NAN, 0.0), wv(5.0, 0.0), wv(0.0, 5.0)],
        ALL,
        &mut out,
    );
    assert!(out.is_empty());
}

#[test]
fn bounds_limit_coverage() {
    let mut out = Vec::new();
    let bounds = PixelRect {
        x0: 2,
        y0: 3,
        x1: 4,
        y1: 5,
    };
    rasterize_triangle_facing(
        [wv(-100.0, -100.0), wv(100.0, -100.0), wv(0.0, 100.0)],
        bounds,
        true,
        &mut out,
    );
    assert_eq!(covered_set(&out), vec![(2, 3), (2, 4), (3, 3), (3, 4)]);
    assert!(out.iter().all(|c| c.front_facing));
}

#[test]
fn interpolation_is_perspective_correct_and_z_linear() {
    // Right triangle (0,0) (8,0) (0,8); vertex 1 at w = 4 (inv_w 0.25), others at w = 1.
    let v = [
        WindowVertex {
            x: 0.0,
            y: 0.0,
            z: 0.0,
            inv_w: 1.0,
        },
        WindowVertex {
            x: 8.0,
            y: 0.0,
            z: 1.0,
            inv_w: 0.25,
        },
        WindowVertex {
            x: 0.0,
            y: 8.0,
            z: 0.5,
            inv_w: 1.0,
        },
    ];
    let mut out = Vec::new();
    rasterize_triangle(v, ALL, &mut out);
    let c = out.iter().find(|c| (c.x, c.y) == (3, 1)).unwrap();
    // Screen barycentrics at (3.5, 1.5): b1 = 3.5/8, b2 = 1.5/8, b0 = 3/8.
    let b: [f64; 3] = [3.0 / 8.0, 3.5 / 8.0, 1.5 / 8.0];
    let z = b[1] * 1.0 + b[2] * 0.5;
    assert!((f64::from(c.z) - z).abs() < 1e-6);
    let q = [b[0], b[1] * 0.25, b[2]];
    let s: f64 = q.iter().sum();
    for (k, (w, qk)) in c.weights.iter().zip(q).enumerate() {
        assert!((f64::from(*w) - qk / s).abs() < 1e-6, "{k}");
    }
    assert!((f64::from(c.inv_w) - s).abs() < 1e-6);
    // The extrapolating interpolator agrees inside, and answers outside.
    let (w, zi, iw) = triangle_weights_at(&v, 3, 1).unwrap();
    assert_eq!((w, zi, iw), (c.weights, c.z, c.inv_w));
    assert!(triangle_weights_at(&v, 20, 20).is_some());
}

#[test]
fn lines_and_points() {
    // Horizontal line y = 2.5 from x = 0 to 4: width 1 covers row 2, columns 0..3 (the pixel
    // at the end point is on the parallelogram's right edge: excluded).
    let mut out = Vec::new();
    let a = WindowVertex {
        x: 0.0,
        y: 2.5,
        z: 0.0,
        inv_w: 1.0,
    };
    let b = WindowVertex {
        x: 4.0,
        y: 2.5,
        z: 1.0,
        inv_w: 1.0,
    };
    rasterize_line([a, b], 1.0, ALL, &mut out);
    assert_eq!(covered_set(&out), vec![(0, 2), (1, 2), (2, 2), (3, 2)]);
    let c = out.iter().find(|c| c.x == 1).unwrap();
    // t = 1.5 / 4.
    assert!((c.weights[1] - 0.375).abs() < 1e-6 && (c.z - 0.375).abs() < 1e-6);
    // A point of size 2 at (5, 5) covers the centres 4.5 and 5.5 on each axis.
    let mut p = Vec::new();
    rasterize_point(wv(5.0, 5.0), 2.0, ALL, &mut p);
    assert_eq!(covered_set(&p), vec![(4, 4), (4, 5), (5, 4), (5, 5)]);
    // Size 1 at (5.2, 5.7): the one pixel (5, 5).
    p.clear();
    rasterize_point(wv(5.2, 5.7), 1.0, ALL, &mut p);
    assert_eq!(covered_set(&p), vec![(5, 5)]);
}

#[test]
fn wpos_follows_the_shader_window() {
    let top_half = ShaderWindow {
        height: 100,
        origin: 0,
        pixel_center: 0,
    };
    assert_eq!(wpos(3, 7, 0.25, 0.5, &top_half), [3.5, 7.5, 0.25, 0.5]);
    let bottom_half = ShaderWindow {
        origin: 1,
        ..top_half
    };
    // shade.rs convention: H − (row + 0.5).
    assert_eq!(wpos(3, 7, 0.0, 1.0, &bottom_half)[1], 92.5);
    let bottom_int = ShaderWindow {
        origin: 1,
        pixel_center: 1,
        ..top_half
    };
    assert_eq!(wpos(3, 7, 0.0, 1.0, &bottom_int)[..2], [3.0, 92.0]);
}

#[test]
fn vertex_outputs_route_to_fragment_inputs() {
    let mut o = [[[0f32; 4]; 16]; 3];
    for (v, regs) in o.iter_mut().enumerate() {
        for (r, reg) in regs.iter_mut().enumerate() {
            *reg = [(10 * v + r) as f32, 1.0, 2.0, 3.0];
        }
    }
    let refs = [&o[0], &o[1], &o[2]];
    let w = [0.5, 0.25, 0.25];
    let at = |r: usize| 0.5 * (r as f32) + 0.25 * (10.0 + r as f32) + 0.25 * (20.0 + r as f32);
    let lane = fragment_inputs(refs, w, [1.0, 2.0, 3.0, 4.0], true, None);
    let a = &lane.attributes;
    assert_eq!(a[attr::WPOS], [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(a[attr::COL0][0], at(1));
    assert_eq!(a[attr::COL1][0], at(2));
    // FOGC = (c, factor, 0, 0) with RPCS3's reset fog (linear, params 1, 1): factor =
    // clamp(c, 0, 1) (raster::shading); output 5's y, z, w are clip distances, not read.
    let c = at(5);
    assert_eq!(a[attr::FOGC], [c, c.clamp(0.0, 1.0), 0.0, 0.0]);
    for n in 0..8 {
        assert_eq!(a[attr::TEX0 + n][0], at(7 + n), "TEX{n}");
    }
    assert_eq!(a[attr::TEX0 + 8][0], at(15));
    assert_eq!(a[attr::TEX0 + 9][0], at(6));
    assert_eq!(a[attr::FACING], [1.0, 0.0, 0.0, 0.0]);
    // Back face with two-sided colour reads BFC0/BFC1; flat shading takes the colours of the
    // provoking vertex only, which need not be one of the three (a quad's first triangle), and
    // leaves texture coordinates interpolated (RPCS3 PR #19251's hardware photographs).
    let mut provoking = [[0f32; 4]; 16];
    for (r, reg) in provoking.iter_mut().enumerate() {
        *reg = [(30 + r) as f32, 1.0, 2.0, 3.0];
    }
    let back = fragment_inputs_with(
        refs,
        &provoking,
        w,
        [0.0; 4],
        false,
        &VaryingOptions {
            two_sided_color: true,
            flat: true,
            ..VaryingOptions::default()
        },
    );
    assert_eq!(back.attributes[attr::COL0], provoking[3]);
    assert_eq!(back.attributes[attr::COL1], provoking[4]);
    assert_eq!(back.attributes[attr::TEX0][0], at(7));
    assert_eq!(back.attributes[attr::FACING], [-1.0, 0.0, 0.0, 0.0]);
    // Without two-sided colour a back face still reads COL0.
    let plain = fragment_inputs(refs, w, [0.0; 4], false, Some(2));
    assert_eq!(plain.attributes[attr::COL0], o[2][1]);
}

#[test]
fn may_cover_centre_is_false_exactly_where_the_bounding_box_holds_no_centre() {
    let rect = PixelRect {
        x0: 2,
        y0: 2,
        x1: 6,
        y1: 6,
    };
    let covered = |v: [WindowVertex; 3]| {
        let mut out = Vec::new();
        rasterize_triangle_facing(v, rect, true, &mut out);
        out.len()
    };
    // Between the centres of columns 3 and 4 (x 3.5 and 4.5): no centre in x.
    let thin = [wv(3.6, 2.0), wv(4.4, 2.0), wv(4.0, 6.0)];
    assert!(!may_cover_centre(&thin, rect));
    assert_eq!(covered(thin), 0);
    // Left of the bounds (its centres at x 0.5 and 1.5 are outside them).
    let left = [wv(0.0, 0.0), wv(2.0, 0.0), wv(0.0, 6.0)];
    assert!(!may_cover_centre(&left, rect));
    assert_eq!(covered(left), 0);
    // A box holding centres: may cover (and here does).
    let big = [wv(2.0, 2.0), wv(6.0, 2.0), wv(2.0, 6.0)];
    assert!(may_cover_centre(&big, rect));
    assert!(covered(big) > 0);
    // A centre on the box's edge counts (x = 3.5 is column 3's centre).
    let edge = [wv(3.5, 2.0), wv(3.9, 2.0), wv(3.5, 6.0)];
    assert!(may_cover_centre(&edge, rect));
}
