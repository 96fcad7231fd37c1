//! `interp::vertex::trace`: one vertex traced instruction by instruction computes exactly what
//! the untraced interpreter computes, and the record is faithful: every output change is
//! listed with the value the output ends with, and the steps follow the slots.

use rsxtrace_program::container::Container;
use rsxtrace_program::vertex;
use rsxtrace_replay::interp::vertex::trace::trace_vertex;
use rsxtrace_replay::interp::vertex::{run_vertex, ConstantBank, VertexEnvironment, VertexOptions};

#[test]
fn a_traced_vertex_computes_what_the_interpreter_computes() {
    let Some(bytes) =
        rsxtrace_testkit::workspace!().corpus_file("ps3autotests/sce_cube_common.vpo")
    else {
        return;
    };
    let c = Container::parse(&bytes).expect("cube container parses");
    let p = vertex::decode_bytes(c.ucode()).expect("cube ucode decodes");
    let mut bank = ConstantBank::new();
    let mvp = [
        [1.5, 0.25, -0.5, 2.0],
        [-0.75, 1.25, 0.125, -1.0],
        [0.0, 0.5, -1.0010005, 4.004],
        [0.0, 0.0, -1.0, 5.0],
    ];
    assert!(bank.set_range(256, &mvp));
    let env = VertexEnvironment {
        input_mask: 0b111,
        ..VertexEnvironment::new(&bank)
    };
    let mut v = [[0.0f32; 4]; 16];
    v[0] = [0.5, -1.25, 2.0, 1.0];
    v[1] = [0.1, 0.2, 0.3, 0.4];
    v[2] = [0.0, 0.0, 1.0, 0.0];
    let options = VertexOptions::default();
    let plain = run_vertex(&p, &[], &env, &[v], &options).unwrap();
    let t = trace_vertex(&p, &[], &env, &v, &options).unwrap();
    assert_eq!(t.output, plain.lanes[0]);
    assert_eq!(t.steps.len(), 6, "six instructions, no branch");
    for (k, s) in t.steps.iter().enumerate() {
        assert_eq!((s.step as usize, s.slot), (k, k));
        assert_eq!(s.next, (k < 5).then_some(k + 1));
    }
    // The last listed value of o[HPOS] is the output's.
    let hpos = t
        .steps
        .iter()
        .flat_map(|s| s.changed.iter())
        .rfind(|(n, _)| n == "o[HPOS]")
        .expect("HPOS written")
        .1;
    assert_eq!(hpos, plain.lanes[0].registers[0]);
}
