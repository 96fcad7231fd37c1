//! The genuine Sony-compiled cube vertex program of ps3autotests (`sce_cube_common.vpo`, read
//! from the shared corpus, never copied) run through the reference interpreter: it must
//! transform a vertex by the modelViewProj set in c[256..259] to the value computed here.

use rsxtrace_program::container::Container;
use rsxtrace_program::vertex;
use rsxtrace_replay::interp::vertex::{
    run_vertex, ConstantBank, VertexEnvironment, VertexExecError, VertexOptions,
};

/// Row-major modelViewProj as the sample sets it: o.x = dot(v, row0) ... (DP4 with c[256+k]).
const MVP: [[f32; 4]; 4] = [
    [1.5, 0.25, -0.5, 2.0],
    [-0.75, 1.25, 0.125, -1.0],
    [0.0, 0.5, -1.0010005, 4.004],
    [0.0, 0.0, -1.0, 5.0],
];

fn dot4(a: [f32; 4], b: [f32; 4]) -> f32 {
    // Left to right, each product rounded, as DP4 is specified (x*x' + y*y' + z*z' + w*w').
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
}

#[test]
fn cube_program_transforms_by_model_view_proj() {
    let Some(bytes) =
        rsxtrace_testkit::workspace!().corpus_file("ps3autotests/sce_cube_common.vpo")
    else {
        return;
    };
    let c = Container::parse(&bytes).expect("cube container parses");
    let p = vertex::decode_bytes(c.ucode()).expect("cube ucode decodes");
    assert_eq!(p.instructions.len(), 6);

    let mut bank = ConstantBank::new();
    assert!(bank.set_range(256, &MVP));
    let env = VertexEnvironment {
        input_mask: 0b111, // attributeInputMask 0x7 in the container
        ..VertexEnvironment::new(&bank)
    };
    let pos = [0.5f32, -1.25, 2.0, 1.0];
    let weight = [0.1f32, 0.2, 0.3, 0.4];
    let normal = [0.0f32, 0.0, 1.0, 0.0];
    let mut v = [[0.0f32; 4]; 16];
    v[0] = pos;
    v[1] = weight;
    v[2] = normal;
    let pos2 = [-3.0f32, 0.75, -0.5, 1.0];
    let mut v2 = v;
    v2[0] = pos2;
    let out = run_vertex(&p, &[], &env, &[v, v2], &VertexOptions::default()).expect("cube runs");

    for (lane, position) in [(0, pos), (1, pos2)] {
        let expected = [
            dot4(position, MVP[0]),
            dot4(position, MVP[1]),
            dot4(position, MVP[2]),
            dot4(position, MVP[3]),
        ];
        let l = &out.lanes[lane];
        assert_eq!(l.get_f32(0), Some(expected), "HPOS of lane {lane}");
        assert_eq!(l.get_f32(1), Some(weight), "COL0 = v[WEIGHT]");
        assert_eq!(l.get_f32(7), Some(normal), "TEX0 = v[NORMAL]");
        assert_eq!(l.written, 0b1000_0011, "HPOS, COL0, TEX0 written");
        assert_eq!(l.steps, 6);
    }
    // Same rules in f64: each component equals the f64 dot product of the f32 inputs.
    let f64_options = VertexOptions {
        arithmetic: rsxtrace_replay::interp::Arithmetic::F64,
        ..VertexOptions::default()
    };
    let wide = run_vertex(&p, &[], &env, &[v], &f64_options).expect("cube runs in f64");
    let hpos = wide.lanes[0].get(0).expect("HPOS");
    for (k, row) in MVP.iter().enumerate() {
        let e: f64 = (0..4).map(|i| f64::from(pos[i]) * f64::from(row[i])).sum();
        assert_eq!(hpos[k], e, "f64 HPOS component {k}");
    }
}

#[test]
fn cube_program_without_its_matrix_names_the_constant() {
    let Some(bytes) =
        rsxtrace_testkit::workspace!().corpus_file("ps3autotests/sce_cube_common.vpo")
    else {
        return;
    };
    let c = Container::parse(&bytes).expect("cube container parses");
    let p = vertex::decode_bytes(c.ucode()).expect("cube ucode decodes");
    let bank = ConstantBank::new();
    let env = VertexEnvironment::new(&bank);
    let err = run_vertex(&p, &[], &env, &[[[1.0; 4]; 16]], &VertexOptions::default())
        .expect_err("c[259] unknown");
    // Slot 2 (DP4 o[HPOS].w, v[POS], c[259]) is the first to read a constant.
    assert_eq!(
        err,
        VertexExecError::UnknownConstant {
            slot: 2,
            constant: 259,
            lane: 0
        }
    );
    assert!(err.to_string().contains("c[259]"));
}

/// `run_vertex_outputs` (the renderers' entry) gives `run_vertex`'s registers as f32, in both
/// widths, over more vertices than one lane group, and names the same unknown constants.
#[test]
fn renderer_outputs_are_the_batch_registers() {
    use rsxtrace_replay::interp::vertex::run_vertex_outputs;
    use rsxtrace_replay::interp::Arithmetic;
    let Some(bytes) =
        rsxtrace_testkit::workspace!().corpus_file("ps3autotests/sce_cube_common.vpo")
    else {
        return;
    };
    let c = Container::parse(&bytes).expect("cube container parses");
    let p = vertex::decode_bytes(c.ucode()).expect("cube ucode decodes");
    let mut bank = ConstantBank::new();
    // c[259] left unknown: read as 0 and reported by both.
    assert!(bank.set_range(256, &MVP[..3]));
    let env = VertexEnvironment {
        input_mask: 0b111,
        ..VertexEnvironment::new(&bank)
    };
    let inputs: Vec<[[f32; 4]; 16]> = (0..600)
        .map(|i| {
            let mut v = [[0.0f32; 4]; 16];
            let t = i as f32 * 0.37;
            v[0] = [t.sin() * 3.0, t.cos(), 0.5 - t * 0.01, 1.0];
            v[1] = [0.1, 0.2, 0.3, 0.4];
            v[2] = [0.0, 0.0, 1.0, 0.0];
            v
        })
        .collect();
    for arithmetic in [Arithmetic::F32, Arithmetic::F64] {
        let options = VertexOptions {
            allow_unknown_constants: true,
            arithmetic,
            ..VertexOptions::default()
        };
        let batch = run_vertex(&p, &[], &env, &inputs, &options).expect("batch runs");
        let (outputs, unknown) =
            run_vertex_outputs(&p, &[], &env, &inputs, &options).expect("outputs run");
        assert_eq!(outputs.len(), inputs.len());
        for (lane, out) in batch.lanes.iter().zip(&outputs) {
            let expected = lane.registers.map(|r| r.map(|c| c as f32));
            assert_eq!(
                expected.map(|r| r.map(f32::to_bits)),
                out.map(|r| r.map(f32::to_bits))
            );
        }
        assert_eq!(unknown, batch.unknown_constant_reads);
        assert!(unknown.iter().any(|u| u.constant == 259));
    }
}
