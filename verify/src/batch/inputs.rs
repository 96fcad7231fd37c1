//! The inputs a program is checked on, seeded by its content key so that a run is
//! reproducible: vertex input sets (edge cases first, then random values over several
//! magnitudes) with random transform constants, and a pixel grid of fragment quads whose
//! inputs vary per pixel (affine in x and y, so derivatives are meaningful).

use crate::divergence::fragment_stage::Quad;
use crate::divergence::mutate::XorShift;
use rsxtrace_gpu::VP_CONSTANTS;
use rsxtrace_replay::interp::fragment::{attr, LaneInputs, QuadInputs, ATTRIBUTE_COUNT};
use rsxtrace_replay::interp::vertex::VertexAttributes;

/// Vertex input sets per program.
pub const VERTEX_SETS: usize = 2048;
/// Of those, the sets built from [`EDGE_VALUES`].
pub const EDGE_SETS: usize = 256;
/// Quads per side of the fragment grid (32 × 32 pixels).
pub const GRID_QUADS: u32 = 16;

/// Values where arithmetic rules differ: signed zeros, ±1, halves, values near the fp16
/// range's ends, tiny and large magnitudes.
pub const EDGE_VALUES: [f32; 16] = [
    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 1e-3, -1e-3, 1e3, -1e3, 65504.0, 6.1e-5, 0.999,
    1.001,
];

/// A uniform value in [-1, 1) from 24 random bits.
fn unit(rng: &mut XorShift) -> f32 {
    (rng.next_u64() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
}

/// `VERTEX_SETS` input sets of 16 attributes for the program keyed `key`.
pub fn vertex_inputs(key: u64) -> Vec<VertexAttributes> {
    let mut rng = XorShift::new(key ^ 0x5645_5254_4558_0001);
    (0..VERTEX_SETS)
        .map(|set| {
            std::array::from_fn(|a| {
                std::array::from_fn(|c| {
                    if set < EDGE_SETS {
                        // Every value in every component, in shifted orders.
                        EDGE_VALUES[(set + a * 3 + c * 5) % EDGE_VALUES.len()]
                    } else {
                        // Magnitudes from 1/16 to 16.
                        let scale = 2f32.powi((rng.below(9) as i32) - 4);
                        unit(&mut rng) * scale
                    }
                })
            })
        })
        .collect()
}

/// Random transform constants in [-1, 1) (no shader cache records them).
pub fn vertex_constants(key: u64) -> Box<[[f32; 4]; VP_CONSTANTS]> {
    let mut rng = XorShift::new(key ^ 0x434F_4E53_5400_0002);
    let mut c = Box::new([[0f32; 4]; VP_CONSTANTS]);
    for v in c.iter_mut() {
        *v = std::array::from_fn(|_| unit(&mut rng));
    }
    c
}

/// Branch bits for the program keyed `key` (random: both sides take the same paths).
pub fn branch_bits(key: u64) -> u32 {
    XorShift::new(key ^ 0x4252_414E_4348_0003).next_u64() as u32
}

/// The fragment grid: `GRID_QUADS`² fully covered quads. WPOS is the pixel centre; every
/// other input is `base + dx·x + dy·y` per component with seeded coefficients (colours kept in
/// [0, 1], texture coordinates spanning about one texture per 32 pixels), FACING front.
pub fn fragment_quads(key: u64) -> Vec<Quad> {
    let mut rng = XorShift::new(key ^ 0x4652_4147_0000_0004);
    let mut planes = [[[0f32; 3]; 4]; ATTRIBUTE_COUNT];
    for (a, plane) in planes.iter_mut().enumerate() {
        for p in plane.iter_mut() {
            *p = match a {
                attr::COL0 | attr::COL1 => [
                    (unit(&mut rng) + 1.0) / 2.0,
                    unit(&mut rng) / 64.0,
                    unit(&mut rng) / 64.0,
                ],
                _ => [
                    unit(&mut rng) * 2.0,
                    unit(&mut rng) / 32.0,
                    unit(&mut rng) / 32.0,
                ],
            };
        }
    }
    let lane = |x: u32, y: u32| {
        let mut l = LaneInputs::default();
        for (a, plane) in planes.iter().enumerate() {
            l.attributes[a] = std::array::from_fn(|c| {
                let [b, dx, dy] = plane[c];
                let v = b + dx * x as f32 + dy * y as f32;
                if a == attr::COL0 || a == attr::COL1 {
                    v.clamp(0.0, 1.0)
                } else {
                    v
                }
            });
        }
        l.attributes[attr::WPOS] = [x as f32 + 0.5, y as f32 + 0.5, 0.5, 1.0];
        l.attributes[attr::FACING] = [1.0, 0.0, 0.0, 0.0];
        l
    };
    let mut quads = Vec::with_capacity((GRID_QUADS * GRID_QUADS) as usize);
    for qy in 0..GRID_QUADS {
        for qx in 0..GRID_QUADS {
            let (x0, y0) = (qx * 2, qy * 2);
            quads.push(Quad {
                inputs: QuadInputs {
                    lanes: std::array::from_fn(|k| lane(x0 + (k as u32 & 1), y0 + (k as u32 >> 1))),
                    coverage: 0xF,
                },
                origin: [x0, y0],
            });
        }
    }
    quads
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_seeded_by_key() {
        assert_eq!(vertex_inputs(7), vertex_inputs(7));
        assert_ne!(vertex_inputs(7)[EDGE_SETS], vertex_inputs(8)[EDGE_SETS]);
        assert_eq!(vertex_inputs(7).len(), VERTEX_SETS);
        let q = fragment_quads(3);
        assert_eq!(q.len(), (GRID_QUADS * GRID_QUADS) as usize);
        // Lane 1 is one pixel right of lane 0.
        let l = &q[0].inputs.lanes;
        assert_eq!(
            l[1].attributes[attr::WPOS][0],
            l[0].attributes[attr::WPOS][0] + 1.0
        );
        assert_eq!(
            l[2].attributes[attr::WPOS][1],
            l[0].attributes[attr::WPOS][1] + 1.0
        );
    }

    #[test]
    fn every_edge_value_reaches_every_component() {
        let sets = vertex_inputs(1);
        for a in 0..16 {
            for c in 0..4 {
                for v in EDGE_VALUES {
                    assert!(
                        sets[..EDGE_SETS]
                            .iter()
                            .any(|s| s[a][c].to_bits() == v.to_bits()),
                        "attribute {a}.{c} never gets {v}"
                    );
                }
            }
        }
    }
}
