//! A skinned draw: two triangles whose vertex program reads a bone palette relative to the
//! address register (`c[A0.x+40..42]`, the bone's three rows, with the bone index × 3 in
//! attribute 7), then a camera matrix as rows (`c[0..3]`), a normal matrix as columns
//! (`c[4..6]`) and a scalar (`c[8].x`): the constant layouts `rsxtrace probe constants`
//! tells apart, the way skinned meshes read their bone matrices on the RSX.
//!
//! The vertices use bones [`BONES`] (0, 2 and 3 of the four uploaded), so the palette's
//! entries reached are 0, 6 and 9 in A0.x: registers c[40..51].

use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
use rsxtrace_capture::builder::CaptureBuilder;
use rsxtrace_capture::rrc::{Capture, Location};
use rsxtrace_program::vertex;

/// The skinning program, as `disasm` writes vertex assembly.
pub const SKINNING: &str = "\
ARL A0.x, v[7].x;
DP4 R1.x, v[0], c[A0.x+40];
DP4 R1.y, v[0], c[A0.x+41];
DP4 R1.z, v[0], c[A0.x+42];
MOV R1.w, v[0];
DP4 o[HPOS].x, R1, c[0];
DP4 o[HPOS].y, R1, c[1];
DP4 o[HPOS].z, R1, c[2];
DP4 o[HPOS].w, R1, c[3];
MUL R2, v[2].xxxx, c[4];
MAD R2, v[2].yyyy, c[5], R2;
MAD R2, v[2].zzzz, c[6], R2;
MUL o[COL0], R2, c[8].xxxx; END
";

/// Bones the six vertices use (two triangles).
pub const BONES: [u32; 6] = [0, 2, 3, 3, 0, 2];

/// One skinned draw of two triangles; the palette (four bones of three rows at `c[40]`) is
/// uploaded when `palette`.
pub fn skinned_capture(palette: bool) -> Capture {
    let mut b = CaptureBuilder::new("skinned.rrc");
    let program = vertex::assemble(SKINNING).unwrap();
    b.set_vertex_program(&vertex::encode_span(&program), 0, 0, 0b1000_0101, 0b1)
        .unwrap();
    let rows = |k: usize| -> [f32; 4] { std::array::from_fn(|c| if c == k { 1.0 } else { 0.0 }) };
    b.set_transform_constants(0, &[rows(0), rows(1), rows(2), rows(3)])
        .unwrap();
    b.set_transform_constants(4, &[rows(0), rows(1), rows(2)])
        .unwrap();
    b.set_transform_constants(8, &[[0.5, 0.0, 0.0, 0.0]])
        .unwrap();
    if palette {
        let bones: Vec<[f32; 4]> = (0..12)
            .map(|r| {
                let mut row = rows(r % 3);
                row[3] = (r / 3) as f32;
                row
            })
            .collect();
        b.set_transform_constants(40, &bones).unwrap();
    }
    let mut bytes = Vec::new();
    for (k, bone) in BONES.iter().enumerate() {
        let attrs = [
            [k as f32, (k % 2) as f32, 0.0, 1.0],
            [0.0, 0.0, 1.0, 0.0],
            [(bone * 3) as f32, 0.0, 0.0, 0.0],
        ];
        for c in attrs.iter().flatten() {
            bytes.extend(c.to_be_bytes());
        }
    }
    b.put_memory(Location::Main, 0x1_0000, &bytes).unwrap();
    for (k, attribute) in [0u32, 2, 7].into_iter().enumerate() {
        b.set_vertex_array(
            attribute,
            2,
            4,
            48,
            0,
            Location::Main,
            0x1_0000 + 16 * k as u32,
        )
        .unwrap();
    }
    b.set_vertex_attrib_input_mask(0b1000_0101);
    b.set_fragment_program(Location::Local, 0x1000, &FRAGMENT_MOV_COL0, 0x40)
        .unwrap();
    b.draw_arrays(5, &[(0, BONES.len() as u32)]).unwrap();
    b.finish()
}
