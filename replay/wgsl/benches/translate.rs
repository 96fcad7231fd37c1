//! Translation + naga validation time of each corpus vertex program (read from the shared
//! corpus, never copied; nothing is measured when it is absent).

use criterion::{criterion_group, criterion_main, Criterion};
use rsxtrace_program::container::Container;
use rsxtrace_program::vertex;
use rsxtrace_wgsl::vertex::{translate, VertexTranslateOptions};
use std::path::PathBuf;

fn corpus_dir() -> Option<PathBuf> {
    let mut dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    loop {
        if dir.join("Cargo.lock").is_file() {
            let c = dir.join("../shared/corpus");
            return c.join("MANIFEST.json").is_file().then_some(c);
        }
        if !dir.pop() {
            return None;
        }
    }
}

fn bench(c: &mut Criterion) {
    let Some(dir) = corpus_dir() else {
        eprintln!("CORPUS MISSING: <workspace>/../shared/corpus not found; nothing measured");
        return;
    };
    let mut group = c.benchmark_group("vertex_translate_validate");
    for rel in [
        "ps3autotests/sce_cube_common.vpo",
        "ps3autotests/primitives.vpo",
        "tiny3d/vshader_text_normal.rvp",
    ] {
        let Ok(bytes) = std::fs::read(dir.join(rel)) else {
            eprintln!("CORPUS MISSING: {rel}");
            continue;
        };
        let Ok(container) = Container::parse(&bytes) else {
            eprintln!("{rel}: container does not parse");
            continue;
        };
        let Ok(program) = vertex::decode_bytes(container.ucode()) else {
            eprintln!("{rel}: ucode does not decode");
            continue;
        };
        let options = VertexTranslateOptions::default();
        group.bench_function(rel, |b| {
            b.iter(|| translate(&program, &[], &options).map(|m| m.source.len()))
        });
        // The share of naga's parse + validation in the above.
        if let Ok(m) = translate(&program, &[], &options) {
            group.bench_function(format!("{rel} (naga parse+validate only)"), |b| {
                b.iter(|| rsxtrace_wgsl::validate(&m.source).is_ok())
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
