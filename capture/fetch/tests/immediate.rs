//! Immediate-mode (push buffer) draws: `VertexSource::Immediate`.

use crate::common;

use common::*;
use rsxtrace_fetch::*;
use rsxtrace_rrc::Location::Local;

fn stream(attribute: u8, values: &[[f32; 4]]) -> ImmediateStream {
    ImmediateStream {
        attribute,
        values: values.iter().map(|&v| ImmediateValue::Known(v)).collect(),
    }
}

#[test]
fn streams_are_per_vertex_and_other_attributes_take_their_register_value() {
    let pos = [
        [0.0, 0.0, 0.0, 1.0],
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
    ];
    let col = [
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
    ];
    // Mask: POS (0), COL0 (3), TEX0 (8).
    let mut inp = inputs(
        1 | 1 << 3 | 1 << 8,
        VertexSource::Immediate {
            count: 3,
            streams: vec![stream(3, &col), stream(0, &pos)],
        },
    );
    inp.immediate[8] = ImmediateValue::Known([0.5, 0.25, 0.0, 1.0]);
    // An enabled array is ignored in immediate mode, even for an attribute without a stream.
    inp.arrays[8] = Some(array(VertexType::F, 4, 16, 0, Local));
    let out = fetch_draw(&inp, &TestMemory::new()).expect("fetch");
    assert_eq!(out.indices, vec![0, 1, 2]);
    crate::fetch::assert_same_positions(&inp, &TestMemory::new(), &out);
    assert_eq!(out.range_starts, vec![0]);
    assert!(out.restarts.is_empty());
    let column = |a: u8| out.attribute(a).expect("column").values.clone();
    assert_eq!(column(0), pos.to_vec());
    assert_eq!(column(3), col.to_vec());
    assert_eq!(column(8), vec![[0.5, 0.25, 0.0, 1.0]; 3]);
    assert_eq!(
        out.attribute(0).map(|a| a.source),
        Some(AttributeSource::PushBuffer)
    );
    assert_eq!(
        out.attribute(8).map(|a| a.source),
        Some(AttributeSource::Immediate)
    );
    // Attribute order follows the mask, not the stream order.
    let order: Vec<u8> = out.attributes.iter().map(|a| a.attribute).collect();
    assert_eq!(order, vec![0, 3, 8]);
}

#[test]
fn streams_outside_the_input_mask_are_not_fetched() {
    let inp = inputs(
        1,
        VertexSource::Immediate {
            count: 1,
            streams: vec![stream(0, &[[2.0; 4]]), stream(5, &[[3.0; 4]])],
        },
    );
    let out = fetch_draw(&inp, &TestMemory::new()).expect("fetch");
    assert_eq!(out.attributes.len(), 1);
    assert_eq!(out.vertex(0).and_then(|v| v.get(0)), Some([2.0; 4]));
}

#[test]
fn pushed_values_padded_before_the_frame_read_their_replayed_value() {
    let mut s = stream(2, &[[1.0; 4], [1.0; 4], [1.0; 4]]);
    s.values[1] = ImmediateValue::Partial { replayed: [0.0; 4] };
    let mut inp = inputs(
        1 << 2,
        VertexSource::Immediate {
            count: 3,
            streams: vec![s],
        },
    );
    inp.immediate[2] = ImmediateValue::Known([0.0; 4]);
    let out = fetch_draw(&inp, &TestMemory::new()).expect("fetch goes on");
    let a = out.attribute(2).expect("column");
    assert_eq!(a.values, vec![[1.0; 4], [0.0; 4], [1.0; 4]]);
    assert_eq!(a.unknown, UnknownValues::Positions(vec![1]));
    assert!(a.is_known(0) && !a.is_known(1) && a.is_known(2));
    assert_eq!(out.vertex(1).and_then(|v| v.get_known(2)), Some(None));
}

#[test]
fn attribute_without_stream_or_register_value_reads_the_unset_default() {
    let inp = inputs(
        1 | 1 << 1,
        VertexSource::Immediate {
            count: 2,
            streams: vec![stream(0, &[[0.0; 4], [1.0; 4]])],
        },
    );
    let out = fetch_draw(&inp, &TestMemory::new()).expect("fetch goes on");
    let a = out.attribute(1).expect("column");
    assert_eq!(a.source, AttributeSource::Unset);
    assert_eq!(a.values, vec![UNSET_ATTRIBUTE; 2]);
    assert_eq!(UNSET_ATTRIBUTE, [0.0, 0.0, 0.0, 1.0]);
    assert_eq!(out.unknown_attributes(), vec![1]);
}

#[test]
fn stream_length_must_match_the_count() {
    let inp = inputs(
        1,
        VertexSource::Immediate {
            count: 3,
            streams: vec![stream(0, &[[0.0; 4], [1.0; 4]])],
        },
    );
    assert_eq!(
        fetch_draw(&inp, &TestMemory::new()),
        Err(FetchError::ImmediateStreamLength {
            attribute: 0,
            len: 2,
            count: 3
        })
    );
}

#[test]
fn count_above_the_limit_is_refused_before_allocating() {
    let inp = inputs(
        0,
        VertexSource::Immediate {
            count: u32::MAX,
            streams: Vec::new(),
        },
    );
    assert_eq!(
        fetch_draw(&inp, &TestMemory::new()),
        Err(FetchError::TooManyVertices {
            count: u64::from(u32::MAX),
            limit: MAX_VERTICES
        })
    );
}
