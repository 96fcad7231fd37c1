//! Fetch throughput: a 100k-vertex indexed draw with four attributes (F x3, UB x4, SF x2,
//! S1 x3) naming 50k distinct vertices, reported as vertex-attributes per second (per
//! position): every position fetched (`fetch_draw`) and each distinct vertex once, with each
//! position's row (`fetch_distinct`, what the renderers use), side by side.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rsxtrace_fetch::*;
use rsxtrace_rrc::Location;
use std::hint::black_box;

const VERTICES: u32 = 100_000;
/// Distinct vertices referenced by the index buffer.
const UNIQUE: u32 = 50_000;

fn setup() -> (VertexInputs, FlatMemory) {
    // Interleaved vertex: F x3 (12) + UB x4 (4) + SF x2 (4) + S1 x3 (6, padded to 8) = 28 bytes.
    let stride = 28u32;
    let vertex_bytes = UNIQUE * stride;
    let mut bytes = Vec::with_capacity((vertex_bytes + VERTICES * 2) as usize);
    for v in 0..UNIQUE {
        let f = v as f32;
        for c in [f, f * 0.5, -f] {
            bytes.extend(c.to_be_bytes());
        }
        bytes.extend(v.to_be_bytes());
        bytes.extend(half::f16::from_f32(f * 0.25).to_bits().to_be_bytes());
        bytes.extend(half::f16::from_f32(-1.5).to_bits().to_be_bytes());
        for c in [v as i16, -(v as i16), 7] {
            bytes.extend(c.to_be_bytes());
        }
        bytes.extend([0, 0]);
    }
    let index_offset = bytes.len() as u32;
    // A scattered but deterministic index order (multiplicative hash), u16 indices.
    for i in 0..VERTICES {
        let idx = (i.wrapping_mul(40_503) % UNIQUE) as u16;
        bytes.extend(idx.to_be_bytes());
    }
    let array = |ty, size, offset| {
        Some(VertexArray {
            ty,
            size,
            stride: stride as u8,
            frequency: 0,
            frequency_op: FrequencyOp::Divide,
            offset,
            location: Location::Local,
        })
    };
    let mut arrays = [None; 16];
    arrays[0] = array(VertexType::F, 3, 0);
    arrays[3] = array(VertexType::UB, 4, 12);
    arrays[8] = array(VertexType::SF, 2, 16);
    arrays[2] = array(VertexType::S1, 3, 20);
    let inputs = VertexInputs {
        arrays,
        immediate: [ImmediateValue::Unknown; 16],
        input_mask: (1 << 0) | (1 << 2) | (1 << 3) | (1 << 8),
        base_offset: 0,
        base_index: 0,
        restart: Restart {
            enabled: true,
            index: 0xFFFF,
        },
        source: VertexSource::Indexed {
            index: IndexArray {
                ty: IndexType::U16,
                offset: index_offset,
                location: Location::Local,
            },
            ranges: vec![DrawRange {
                first: 0,
                count: VERTICES,
            }],
        },
    };
    (inputs, FlatMemory::local(bytes))
}

fn bench_fetch(c: &mut Criterion) {
    let (inputs, mem) = setup();
    let check = fetch_draw(&inputs, &mem).expect("bench draw fetches");
    assert_eq!(check.len(), VERTICES as usize);
    assert_eq!(check.attributes.len(), 4);
    let mut group = c.benchmark_group("fetch");
    group.throughput(Throughput::Elements(u64::from(VERTICES) * 4));
    group.bench_function("indexed_100k_x4_attributes", |b| {
        b.iter(|| fetch_draw(black_box(&inputs), black_box(&mem)).expect("fetch"))
    });
    let distinct = fetch_distinct(&inputs, &mem).expect("bench draw fetches");
    assert_eq!(distinct.vertices.len(), UNIQUE as usize);
    group.bench_function("distinct_100k_x4_attributes", |b| {
        b.iter(|| fetch_distinct(black_box(&inputs), black_box(&mem)).expect("fetch"))
    });
    group.finish();
}

criterion_group!(benches, bench_fetch);
criterion_main!(benches);
