//! Writes the benchmarks' large synthetic capture (`rsxtrace_scenes::large_capture`) and
//! reports what it holds.
//!
//! `cargo run --release -p rsxtrace-scenes --example large_capture -- OUT_DIR [MEMORY_MIB [DRAWS [SEED]]]`

use rsxtrace_scenes::large_capture::{cached_file, LargeCaptureOptions};
use std::path::Path;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(dir) = args.get(1) else {
        eprintln!("usage: large_capture OUT_DIR [MEMORY_MIB [DRAWS [SEED]]]");
        std::process::exit(2);
    };
    let mut options = LargeCaptureOptions::default();
    let number = |i: usize| args.get(i).map(|a| a.parse::<u64>());
    match (number(2), number(3), number(4)) {
        (Some(Err(_)), ..) | (_, Some(Err(_)), _) | (.., Some(Err(_))) => {
            eprintln!("large_capture: MEMORY_MIB, DRAWS and SEED are numbers");
            std::process::exit(2);
        }
        (mib, draws, seed) => {
            if let Some(Ok(mib)) = mib {
                options.memory_bytes = mib << 20;
            }
            if let Some(Ok(draws)) = draws {
                options.draws = draws as usize;
            }
            if let Some(Ok(seed)) = seed {
                options.seed = seed;
            }
        }
    }
    let started = Instant::now();
    let path = match cached_file(&options, Path::new(dir)) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("large_capture: {e}");
            std::process::exit(2);
        }
    };
    let written = started.elapsed();
    let capture = match rsxtrace_capture::rrc::read_file(&path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("large_capture: cannot read back {}: {e}", path.display());
            std::process::exit(2);
        }
    };
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    eprintln!(
        "{}: {} MiB of memory in {} blobs ({} blocks), {} commands, {} MiB gzip; built and written in {:.1} s",
        path.display(),
        capture.memory_bytes() >> 20,
        capture.data.len(),
        capture.blocks.len(),
        capture.commands.len(),
        size >> 20,
        written.as_secs_f64()
    );
}
