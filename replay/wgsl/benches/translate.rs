//! Translation + naga validation time of every corpus program, read from the shared corpus
//! (never copied; nothing is measured when it is absent):
//!
//! - vertex: every `ps3autotests/*.vpo` and the Tiny3D `.rvp` (default options);
//! - fragment: every `ps3autotests/*.fpo` (with its own `SHADER_CONTROL` word) and the 13
//!   Tiny3D programs of `tiny3d/nv_shaders_fp.json` (control 0x40, 32-bit exports).
//!
//! One benchmark per program (`vertex/<name>`, `fragment/<name>`), then `corpus/all_<n>`, the
//! time to translate and validate all of them once: divided by n it is the per-program mean
//! (also printed before the measurements, from a quick single pass).

use criterion::{criterion_group, criterion_main, Criterion};
use rsxtrace_program::container::{CgStageInfo, Container};
use rsxtrace_program::{fragment, vertex};
use rsxtrace_testkit::{tiny3d, Corpus};
use rsxtrace_wgsl::fragment::FragmentTranslateOptions;
use rsxtrace_wgsl::vertex::VertexTranslateOptions;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// One corpus program with the options it is translated with.
enum Program {
    Vertex(vertex::VertexProgram),
    Fragment(fragment::FragmentProgram, Box<FragmentTranslateOptions>),
}

impl Program {
    /// Translate + validate; the WGSL source.
    fn source(&self) -> Option<String> {
        match self {
            Program::Vertex(p) => {
                rsxtrace_wgsl::vertex::translate(p, &[], &VertexTranslateOptions::default())
                    .ok()
                    .map(|m| m.source)
            }
            Program::Fragment(p, o) => rsxtrace_wgsl::fragment::translate(p, o)
                .ok()
                .map(|m| m.source),
        }
    }

    /// Translate + validate; the source length (so nothing is optimised away).
    fn run(&self) -> Option<usize> {
        self.source().map(|s| s.len())
    }
}

/// Every corpus program, named; programs that do not load are reported and left out.
fn load(corpus: &Corpus) -> Vec<(String, Program)> {
    let mut out = Vec::new();
    let mut vertex_files = corpus.files_ending("ps3autotests", ".vpo");
    vertex_files.push(tiny3d::VERTEX_PROGRAM.into());
    for rel in vertex_files {
        let program = std::fs::read(corpus.path(&rel))
            .ok()
            .and_then(|b| Container::parse(&b).ok().map(|c| c.ucode().to_vec()))
            .and_then(|ucode| vertex::decode_bytes(&ucode).ok());
        match program {
            Some(p) => out.push((format!("vertex/{rel}"), Program::Vertex(p))),
            None => eprintln!("{rel}: does not load"),
        }
    }
    for rel in corpus.files_ending("ps3autotests", ".fpo") {
        let name = rel.trim_start_matches("ps3autotests/");
        let loaded = std::fs::read(corpus.path(&rel)).ok().and_then(|b| {
            let Ok(Container::Cg(cg)) = Container::parse(&b) else {
                return None;
            };
            let CgStageInfo::Fragment(info) = cg.stage_info else {
                return None;
            };
            let p = fragment::decode(&cg.ucode).ok()?;
            Some((p, info.control_word()))
        });
        match loaded {
            Some((p, control)) => out.push((
                format!("fragment/ps3autotests/{name}"),
                Program::Fragment(p, Box::new(FragmentTranslateOptions::with_control(control))),
            )),
            None => eprintln!("{name}: does not load"),
        }
    }
    let text = std::fs::read_to_string(corpus.path(tiny3d::FRAGMENT_PROGRAMS));
    let programs = match text
        .map_err(|e| e.to_string())
        .and_then(|t| tiny3d::parse_fragment_programs(&t))
    {
        Ok(programs) => programs,
        Err(e) => {
            eprintln!("{}: does not load: {e}", tiny3d::FRAGMENT_PROGRAMS);
            Vec::new()
        }
    };
    for p in &programs {
        match fragment::decode_words(&p.words()) {
            Ok(program) => out.push((
                format!("fragment/tiny3d/{}", p.name),
                Program::Fragment(
                    program,
                    Box::new(FragmentTranslateOptions::with_control(0x40)),
                ),
            )),
            Err(e) => eprintln!("tiny3d {}: does not load: {e}", p.name),
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let programs = load(&corpus);
    // A quick single pass first: every program must translate, and its time and size printed.
    let mut total = Duration::ZERO;
    for (name, p) in &programs {
        let t = Instant::now();
        let source = p.source();
        let dt = t.elapsed();
        total += dt;
        match source {
            Some(source) => {
                eprintln!(
                    "{name}: {} bytes of WGSL, {dt:.2?} (single pass)",
                    source.len()
                );
                // RSXTRACE_DUMP_WGSL=<dir>: keep the sources for inspection.
                if let Some(out) = std::env::var_os("RSXTRACE_DUMP_WGSL") {
                    let file = PathBuf::from(out).join(name.replace('/', "_") + ".wgsl");
                    if let Err(e) = std::fs::write(&file, source) {
                        eprintln!("{}: {e}", file.display());
                    }
                }
            }
            None => eprintln!("{name}: DOES NOT TRANSLATE"),
        }
    }
    if let Some(n) = u32::try_from(programs.len()).ok().filter(|n| *n > 0) {
        eprintln!(
            "single pass: {} programs, mean {:.2?} per program",
            programs.len(),
            total / n
        );
    }
    let mut group = c.benchmark_group("translate_validate");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    for (name, p) in &programs {
        group.bench_function(name.as_str(), |b| b.iter(|| p.run()));
    }
    // The whole corpus once per iteration: time / n is the mean per program.
    group.bench_function(format!("corpus/all_{}", programs.len()), |b| {
        b.iter(|| programs.iter().filter_map(|(_, p)| p.run()).sum::<usize>())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
