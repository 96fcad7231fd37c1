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
use rsxtrace_wgsl::fragment::FragmentTranslateOptions;
use rsxtrace_wgsl::vertex::VertexTranslateOptions;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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

/// One corpus program with the options it is translated with.
enum Program {
    Vertex(vertex::VertexProgram),
    Fragment(fragment::FragmentProgram, FragmentTranslateOptions),
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

fn sorted_names(dir: &Path, ext: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(ext))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Every corpus program, named; programs that do not load are reported and left out.
fn load(dir: &Path) -> Vec<(String, Program)> {
    let mut out = Vec::new();
    let ps3 = dir.join("ps3autotests");
    let mut vertex_files: Vec<String> = sorted_names(&ps3, ".vpo")
        .into_iter()
        .map(|n| format!("ps3autotests/{n}"))
        .collect();
    vertex_files.push("tiny3d/vshader_text_normal.rvp".into());
    for rel in vertex_files {
        let program = std::fs::read(dir.join(&rel))
            .ok()
            .and_then(|b| Container::parse(&b).ok().map(|c| c.ucode().to_vec()))
            .and_then(|ucode| vertex::decode_bytes(&ucode).ok());
        match program {
            Some(p) => out.push((format!("vertex/{rel}"), Program::Vertex(p))),
            None => eprintln!("{rel}: does not load"),
        }
    }
    for name in sorted_names(&ps3, ".fpo") {
        let loaded = std::fs::read(ps3.join(&name)).ok().and_then(|b| {
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
                Program::Fragment(p, FragmentTranslateOptions::with_control(control)),
            )),
            None => eprintln!("{name}: does not load"),
        }
    }
    let json: Option<serde_json::Value> =
        std::fs::read_to_string(dir.join("tiny3d/nv_shaders_fp.json"))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok());
    let programs = json
        .as_ref()
        .and_then(|j| j["programs"].as_array())
        .cloned()
        .unwrap_or_default();
    if programs.is_empty() {
        eprintln!("CORPUS MISSING: tiny3d/nv_shaders_fp.json programs");
    }
    for p in &programs {
        let name = p["name"].as_str().unwrap_or("?").to_string();
        let words: Option<Vec<u32>> = p["rows"].as_array().and_then(|rows| {
            rows.iter()
                .flat_map(|r| r["words"].as_array().into_iter().flatten())
                .map(|w| {
                    let s = w.as_str()?;
                    u32::from_str_radix(s.trim_start_matches("0x"), 16).ok()
                })
                .collect()
        });
        match words.and_then(|w| fragment::decode_words(&w).ok()) {
            Some(program) => out.push((
                format!("fragment/tiny3d/{name}"),
                Program::Fragment(program, FragmentTranslateOptions::with_control(0x40)),
            )),
            None => eprintln!("tiny3d {name}: does not load"),
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let Some(dir) = corpus_dir() else {
        eprintln!("CORPUS MISSING: <workspace>/../shared/corpus not found; nothing measured");
        return;
    };
    let programs = load(&dir);
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
