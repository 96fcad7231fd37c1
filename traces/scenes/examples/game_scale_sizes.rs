//! Writes the captures of issue 14's three sizes (`rsxtrace_scenes::game_scale`: 2,000 /
//! 8,000 / 20,000 draws, 62 / 257 / 661 MB uncompressed) as gzip-compressed RRC files, with
//! the corpus's genuine programs mixed in when `../shared/corpus` (or the directory given)
//! exists, and prints what each holds.
//!
//! `cargo run --release -p rsxtrace-scenes --example game_scale_sizes -- OUT_DIR [2k|8k|20k ...] [--corpus DIR] [--seed N]`
//!
//! With no size named, all three are written; `--seed` replaces each size's own seed.

use rsxtrace_scenes::game_scale::{build_logged, GameScaleOptions, Size};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(out) = args.next().map(PathBuf::from) else {
        eprintln!("usage: game_scale_sizes OUT_DIR [2k|8k|20k ...] [--corpus DIR] [--seed N]");
        return ExitCode::from(2);
    };
    let mut sizes = Vec::new();
    let mut corpus = Some(PathBuf::from("../shared/corpus"));
    let mut seed = None;
    while let Some(arg) = args.next() {
        if arg == "--corpus" {
            corpus = args.next().map(PathBuf::from);
        } else if arg == "--seed" {
            let Some(n) = args.next().and_then(|n| n.parse().ok()) else {
                eprintln!("game_scale_sizes: --seed needs a number");
                return ExitCode::from(2);
            };
            seed = Some(n);
        } else if let Some(size) = Size::from_name(&arg) {
            sizes.push(size);
        } else {
            eprintln!("game_scale_sizes: unknown size {arg:?} (2k, 8k or 20k)");
            return ExitCode::from(2);
        }
    }
    if sizes.is_empty() {
        sizes = Size::ALL.to_vec();
    }
    let corpus = corpus.filter(|dir| {
        let found = dir.is_dir();
        if !found {
            eprintln!(
                "CORPUS MISSING: {} is not a directory; only rsxtrace's own programs are used",
                dir.display()
            );
        }
        found
    });
    if let Err(e) = std::fs::create_dir_all(&out) {
        eprintln!("game_scale_sizes: cannot create {}: {e}", out.display());
        return ExitCode::from(2);
    }
    for size in sizes {
        let mut options = GameScaleOptions::of(size, corpus.clone());
        options.seed = seed.unwrap_or(options.seed);
        let started = Instant::now();
        let (capture, streamed) = match build_logged(&options) {
            Ok(built) => built,
            Err(e) => {
                eprintln!("game_scale_sizes: {}: {e}", size.name());
                return ExitCode::from(2);
            }
        };
        let built = started.elapsed().as_secs_f64();
        let uncompressed = rsxtrace_capture::rrc::write_v6_uncompressed(&capture).len();
        let bytes = rsxtrace_capture::rrc::write_v6(&capture);
        let path = out.join(options.file_name());
        if let Err(e) = std::fs::write(&path, &bytes) {
            eprintln!("game_scale_sizes: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
        let wraps = streamed.iter().filter(|s| s.wrapped).count();
        let textures = match rsxtrace_capture::frame::Frame::from_capture(&capture) {
            Ok(frame) => frame
                .draws
                .iter()
                .flat_map(|d| d.textures.iter().filter(|t| t.control0.enabled))
                .map(|t| (t.location, t.offset))
                .collect::<std::collections::BTreeSet<_>>()
                .len(),
            Err(e) => {
                eprintln!(
                    "game_scale_sizes: {}: the frame does not decode: {e}",
                    size.name()
                );
                return ExitCode::from(2);
            }
        };
        println!(
            "{}: {} draws, {} commands, {} MB uncompressed ({} MB of memory in {} blobs), \
             {} MB gzip, {textures} textures bound, {} streamed draws, the ring wrapped {wraps} \
             times; built in {built:.1} s",
            path.display(),
            options.draws,
            capture.commands.len(),
            uncompressed / 1_000_000,
            capture.memory_bytes() / 1_000_000,
            capture.data.len(),
            bytes.len() / 1_000_000,
            streamed.len(),
        );
    }
    ExitCode::SUCCESS
}
