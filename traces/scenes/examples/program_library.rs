//! Writes a generated program library (issue 15's benchmark library: 1,500 programs by
//! default) into a folder, with the corpus's containers mixed in when the corpus is beside the
//! checkout (`../shared/corpus`) or named on the command line.
//!
//! `cargo run --release -p rsxtrace-scenes --example program_library -- OUT_DIR [COUNT] [CORPUS]`
//!
//! With `--scenes OUT_DIR` it writes the level's and the basic sample's programs by name
//! (`fog.fpo`, `mvp_c32.vpo`, ...) instead.

use rsxtrace_scenes::game_frame::GameFrameOptions;
use rsxtrace_scenes::program_library::{write_generated_library, write_scene_library};
use std::path::{Path, PathBuf};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--scenes") {
        let Some(out) = args.get(2) else {
            eprintln!("usage: program_library --scenes OUT_DIR");
            std::process::exit(2);
        };
        match write_scene_library(Path::new(out)) {
            Ok(files) => eprintln!("wrote {out}: {} programs", files.len()),
            Err(e) => {
                eprintln!("program_library: {e}");
                std::process::exit(2);
            }
        }
        return;
    }
    let Some(out) = args.get(1) else {
        eprintln!("usage: program_library OUT_DIR [COUNT] [CORPUS] | --scenes OUT_DIR");
        std::process::exit(2);
    };
    let count = match args.get(2).map(|c| c.parse::<usize>()) {
        None => 1_500,
        Some(Ok(n)) => n,
        Some(Err(e)) => {
            eprintln!("program_library: COUNT: {e}");
            std::process::exit(2);
        }
    };
    let corpus = args
        .get(3)
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"));
    let seed = GameFrameOptions::default().seed;
    match write_generated_library(Path::new(out), count, seed, Some(&corpus)) {
        Ok(lib) => eprintln!(
            "wrote {out}: {} programs ({} vertex, {} fragment generated, {} from the corpus)",
            lib.programs(),
            lib.vertex,
            lib.fragment,
            lib.corpus
        ),
        Err(e) => {
            eprintln!("program_library: {e}");
            std::process::exit(2);
        }
    }
}
