//! The level's meshes: vertex bytes as a game stores them (interleaved big-endian float3
//! position and float3 normal, stride 24) and u16 triangle lists.

/// Bytes per vertex: float3 position + float3 normal.
pub const STRIDE: u32 = 24;

/// One mesh.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshData {
    /// Its name (the mesh file's name without extension).
    pub name: &'static str,
    /// Position and normal per vertex.
    pub vertices: Vec<[f32; 6]>,
    /// Triangle list.
    pub indices: Vec<u16>,
}

impl MeshData {
    /// The vertex bytes: each float big-endian, vertex after vertex.
    pub fn vertex_bytes(&self) -> Vec<u8> {
        self.vertices
            .iter()
            .flatten()
            .flat_map(|v| v.to_be_bytes())
            .collect()
    }

    /// The index bytes, big-endian u16.
    pub fn index_bytes(&self) -> Vec<u8> {
        self.indices.iter().flat_map(|i| i.to_be_bytes()).collect()
    }

    fn quad(&mut self, corners: [[f32; 3]; 4], normal: [f32; 3]) {
        let base = self.vertices.len() as u16;
        for c in corners {
            self.vertices
                .push([c[0], c[1], c[2], normal[0], normal[1], normal[2]]);
        }
        self.indices
            .extend([base, base + 1, base + 2, base, base + 2, base + 3]);
    }
}

/// A unit cube centred on the origin: 6 faces of 4 vertices (24), 12 triangles.
pub fn crate_box() -> MeshData {
    let mut m = MeshData {
        name: "crate",
        vertices: Vec::new(),
        indices: Vec::new(),
    };
    let h = 0.5;
    m.quad(
        [[h, -h, -h], [h, h, -h], [h, h, h], [h, -h, h]],
        [1.0, 0.0, 0.0],
    );
    m.quad(
        [[-h, -h, h], [-h, h, h], [-h, h, -h], [-h, -h, -h]],
        [-1.0, 0.0, 0.0],
    );
    m.quad(
        [[-h, h, -h], [-h, h, h], [h, h, h], [h, h, -h]],
        [0.0, 1.0, 0.0],
    );
    m.quad(
        [[-h, -h, h], [-h, -h, -h], [h, -h, -h], [h, -h, h]],
        [0.0, -1.0, 0.0],
    );
    m.quad(
        [[-h, -h, h], [h, -h, h], [h, h, h], [-h, h, h]],
        [0.0, 0.0, 1.0],
    );
    m.quad(
        [[h, -h, -h], [-h, -h, -h], [-h, h, -h], [h, h, -h]],
        [0.0, 0.0, -1.0],
    );
    m
}

/// A ramp: a unit square base rising from height 0 at z = +0.5 to 1 at z = -0.5.
pub fn wedge() -> MeshData {
    let mut m = MeshData {
        name: "wedge",
        vertices: Vec::new(),
        indices: Vec::new(),
    };
    let s = std::f32::consts::FRAC_1_SQRT_2;
    m.quad(
        [
            [-0.5, 0.0, 0.5],
            [0.5, 0.0, 0.5],
            [0.5, 1.0, -0.5],
            [-0.5, 1.0, -0.5],
        ],
        [0.0, s, s],
    );
    m.quad(
        [
            [-0.5, 0.0, -0.5],
            [0.5, 0.0, -0.5],
            [0.5, 0.0, 0.5],
            [-0.5, 0.0, 0.5],
        ],
        [0.0, -1.0, 0.0],
    );
    m.quad(
        [
            [0.5, 0.0, -0.5],
            [-0.5, 0.0, -0.5],
            [-0.5, 1.0, -0.5],
            [0.5, 1.0, -0.5],
        ],
        [0.0, 0.0, -1.0],
    );
    for x in [0.5f32, -0.5] {
        let base = m.vertices.len() as u16;
        for (y, z) in [(0.0, 0.5), (0.0, -0.5), (1.0, -0.5)] {
            m.vertices.push([x, y, z, x.signum(), 0.0, 0.0]);
        }
        m.indices.extend([base, base + 1, base + 2]);
    }
    m
}

/// A pillar: an open cylinder of radius 0.5 from y = 0 to 2, 12 segments, smooth normals.
pub fn pillar() -> MeshData {
    ring_mesh("pillar", 12, 0.5, [0.0, 2.0], false)
}

/// The sky dome: a hemisphere of radius 400 around the origin, 16 segments by 4 rings, its
/// normals pointing inward (seen from inside).
pub fn sky_dome() -> MeshData {
    let segments = 16u16;
    let rings = 4u16;
    let radius = 400.0f32;
    let mut m = MeshData {
        name: "sky",
        vertices: Vec::new(),
        indices: Vec::new(),
    };
    for r in 0..=rings {
        let elevation = f32::from(r) / f32::from(rings) * std::f32::consts::FRAC_PI_2;
        for s in 0..=segments {
            let azimuth = f32::from(s) / f32::from(segments) * std::f32::consts::TAU;
            let n = [
                elevation.cos() * azimuth.cos(),
                elevation.sin(),
                elevation.cos() * azimuth.sin(),
            ];
            m.vertices.push([
                n[0] * radius,
                n[1] * radius,
                n[2] * radius,
                -n[0],
                -n[1],
                -n[2],
            ]);
        }
    }
    let row = segments + 1;
    for r in 0..rings {
        for s in 0..segments {
            let a = r * row + s;
            m.indices
                .extend([a, a + row, a + 1, a + 1, a + row, a + row + 1]);
        }
    }
    m
}

fn ring_mesh(name: &'static str, segments: u16, radius: f32, y: [f32; 2], _caps: bool) -> MeshData {
    let mut m = MeshData {
        name,
        vertices: Vec::new(),
        indices: Vec::new(),
    };
    for s in 0..=segments {
        let a = f32::from(s) / f32::from(segments) * std::f32::consts::TAU;
        let (sin, cos) = a.sin_cos();
        for h in y {
            m.vertices
                .push([cos * radius, h, sin * radius, cos, 0.0, sin]);
        }
    }
    for s in 0..segments {
        let a = s * 2;
        m.indices.extend([a, a + 1, a + 2, a + 2, a + 1, a + 3]);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meshes_are_distinct_and_indices_in_range() {
        let meshes = [crate_box(), wedge(), pillar(), sky_dome()];
        for m in &meshes {
            assert_eq!(m.vertex_bytes().len(), m.vertices.len() * STRIDE as usize);
            assert!(
                m.indices.iter().all(|&i| usize::from(i) < m.vertices.len()),
                "{}",
                m.name
            );
            assert_eq!(m.indices.len() % 3, 0);
        }
        assert_eq!(meshes[0].vertices.len(), 24);
        // The first vertex of the crate, byte by byte: 0.5 = 0x3F000000, -0.5 = 0xBF000000.
        assert_eq!(
            &meshes[0].vertex_bytes()[..12],
            &[0x3F, 0, 0, 0, 0xBF, 0, 0, 0, 0xBF, 0, 0, 0]
        );
        for i in 0..meshes.len() {
            for j in i + 1..meshes.len() {
                assert_ne!(meshes[i].vertex_bytes(), meshes[j].vertex_bytes());
            }
        }
    }
}
