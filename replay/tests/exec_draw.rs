//! `execute_draw` on captures built with the capture builder: the draw's program is decoded
//! from transform memory at `vp_start`, its vertices fetched from guest memory, and the outputs
//! checked against values computed here.

use crate::vertex_interp_support;

use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
use rsxtrace_capture::builder::CaptureBuilder;
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::Location;
use rsxtrace_program::vertex::{self, VectorOpcode as V};
use rsxtrace_replay::exec::{execute_draw, ExecError, ExecOptions, OutputValue};
use rsxtrace_replay::interp::vertex::{UnknownConstantRead, VertexExecError, VertexOptions};
use rsxtrace_replay::interp::Arithmetic;
use vertex_interp_support::*;

const MVP: [[f32; 4]; 4] = [
    [2.0, 0.0, 0.5, -1.0],
    [0.0, 1.5, 0.0, 0.25],
    [0.125, 0.0, -1.0, 3.0],
    [0.0, 0.0, -1.0, 0.0],
];
const POSITIONS: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, -2.0, 0.5], [-0.25, 4.0, 8.0]];
const COLOUR: [f32; 4] = [0.25, 0.5, 0.75, 1.0];
const LOAD_SLOT: u32 = 10;

/// DP4 o[HPOS].x..w, v[POS], c[256..259]; MOV o[COL0], v[COL0]; ADD o[TEX0], v[POS], c[k].
fn program_words(tex_constant: u16) -> Vec<u32> {
    let mut insns = Vec::new();
    for (row, m) in ["x", "y", "z", "w"].into_iter().enumerate() {
        insns.push(
            I::vec_out(V::Dp4, 0, m)
                .s0(v())
                .s1(c())
                .konst(256 + row as u16),
        );
    }
    insns.push(I::vec_out(V::Mov, 1, "xyzw").s0(v()).input(3));
    insns.push(
        I::vec_out(V::Add, 7, "xyzw")
            .s0(v())
            .s2(c())
            .konst(tex_constant)
            .end(),
    );
    vertex::encode(&program(&insns))
}

/// A one-draw capture: the program at slot 10 (start 10), MVP in c[256..259], c[8] set,
/// three float3 positions in main memory and COL0 as an immediate value.
fn capture(tex_constant: u16) -> rsxtrace_capture::rrc::Capture {
    let mut b = CaptureBuilder::new("exec_draw.rrc.gz");
    // A draw needs a fragment program (the builder's one-instruction MOV).
    b.set_fragment_program(Location::Local, 0x1000, &FRAGMENT_MOV_COL0, 0x40)
        .unwrap();
    b.set_vertex_program(
        &program_words(tex_constant),
        LOAD_SLOT,
        LOAD_SLOT,
        0b1001,
        0x4003,
    )
    .unwrap();
    b.set_transform_constants(256, &MVP).unwrap();
    b.set_transform_constants(8, &[[10.0, 20.0, 30.0, 40.0]])
        .unwrap();
    let bytes: Vec<u8> = POSITIONS
        .iter()
        .flatten()
        .flat_map(|x| x.to_be_bytes())
        .collect();
    b.put_memory(Location::Main, 0x2000, &bytes).unwrap();
    // Type 2 = float, 3 components, stride 12.
    b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x2000)
        .unwrap();
    b.set_vertex_data_4f(3, COLOUR).unwrap();
    b.set_vertex_attrib_input_mask(0b1001);
    b.draw_arrays(5, &[(0, 3)]).unwrap();
    b.finish()
}

fn dot4(a: [f32; 4], b: [f32; 4]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
}

#[test]
fn executes_a_built_draw() {
    let frame = Frame::from_capture(&capture(8)).unwrap();
    assert_eq!(frame.draws[0].vp_start, LOAD_SLOT);
    let ex = execute_draw(&frame, 0, &ExecOptions::default()).unwrap();
    assert_eq!((ex.draw, ex.vp_start, ex.instructions), (0, LOAD_SLOT, 6));
    assert_eq!(ex.vertex_count, 3);
    assert!(ex.unknown_constants.is_empty());
    for (k, p) in POSITIONS.iter().enumerate() {
        // Float3 arrays fetch w = 1 (rrc-format.md 4.3).
        let pos = [p[0], p[1], p[2], 1.0];
        let vx = &ex.vertices[k];
        assert_eq!((vx.position, vx.index, vx.steps), (k, k as u32, 6));
        let hpos = MVP.map(|row| dot4(pos, row));
        assert_eq!(
            vx.output("HPOS").unwrap().value,
            OutputValue::F32(hpos),
            "vertex {k}"
        );
        assert_eq!(vx.output("COL0").unwrap().value, OutputValue::F32(COLOUR));
        let tex = [pos[0] + 10.0, pos[1] + 20.0, pos[2] + 30.0, pos[3] + 40.0];
        assert_eq!(vx.output("TEX0").unwrap().value, OutputValue::F32(tex));
        let regs: Vec<u8> = vx.outputs.iter().map(|o| o.register).collect();
        assert_eq!(regs, vec![0, 1, 7]);
    }
}

#[test]
fn json_shape() {
    let frame = Frame::from_capture(&capture(8)).unwrap();
    let ex = execute_draw(&frame, 0, &ExecOptions::default()).unwrap();
    let j = serde_json::to_value(&ex).unwrap();
    assert_eq!(j["draw"], 0);
    assert_eq!(j["vp_start"], 10);
    assert_eq!(j["arithmetic"], "f32");
    assert_eq!(j["output_mask"], 0x4003);
    assert_eq!(j["vertex_count"], 3);
    assert_eq!(j["unknown_constants"], serde_json::json!([]));
    let v1 = &j["vertices"][1];
    assert_eq!(v1["index"], 1);
    assert_eq!(v1["outputs"][1]["name"], "COL0");
    assert_eq!(v1["outputs"][1]["register"], 1);
    assert_eq!(
        v1["outputs"][1]["value"],
        serde_json::json!([0.25, 0.5, 0.75, 1.0])
    );
    // f32 values print as their shortest f32 decimal: TEX0.x of vertex 1 = 1 + 10.
    assert_eq!(
        serde_json::to_string(&v1["outputs"][2]["value"][0]).unwrap(),
        "11.0"
    );
}

#[test]
fn f64_execution() {
    let frame = Frame::from_capture(&capture(8)).unwrap();
    let options = ExecOptions {
        vertex: VertexOptions {
            arithmetic: Arithmetic::F64,
            ..VertexOptions::default()
        },
        ..ExecOptions::default()
    };
    let ex = execute_draw(&frame, 0, &options).unwrap();
    let p = POSITIONS[2];
    let pos = [p[0], p[1], p[2], 1.0].map(f64::from);
    let hpos = MVP.map(|row| (0..4).map(|i| pos[i] * f64::from(row[i])).sum::<f64>());
    assert_eq!(
        ex.vertices[2].output("HPOS").unwrap().value,
        OutputValue::F64(hpos)
    );
}

#[test]
fn unknown_constant_is_an_error_or_reported() {
    let frame = Frame::from_capture(&capture(400)).unwrap();
    let err = execute_draw(&frame, 0, &ExecOptions::default()).unwrap_err();
    assert_eq!(
        err,
        ExecError::Exec {
            draw: 0,
            source: VertexExecError::UnknownConstant {
                slot: 15,
                constant: 400,
                lane: 0
            }
        }
    );
    assert!(err.to_string().contains("c[400]"), "{err}");
    let allow = ExecOptions {
        vertex: VertexOptions {
            allow_unknown_constants: true,
            ..VertexOptions::default()
        },
        ..ExecOptions::default()
    };
    let ex = execute_draw(&frame, 0, &allow).unwrap();
    assert_eq!(
        ex.unknown_constants,
        vec![UnknownConstantRead {
            constant: 400,
            slot: 15
        }]
    );
    let p = POSITIONS[1];
    assert_eq!(
        ex.vertices[1].output("TEX0").unwrap().value,
        OutputValue::F32([p[0], p[1], p[2], 1.0])
    );
}

#[test]
fn max_vertices_and_missing_draw() {
    let frame = Frame::from_capture(&capture(8)).unwrap();
    let opts = ExecOptions {
        max_vertices: Some(2),
        ..ExecOptions::default()
    };
    assert_eq!(execute_draw(&frame, 0, &opts).unwrap().vertices.len(), 2);
    assert_eq!(
        execute_draw(&frame, 3, &ExecOptions::default()).unwrap_err(),
        ExecError::NoSuchDraw { draw: 3, count: 1 }
    );
}
