//! Writes the game-scale frame generator's capture at any number of draws, for measuring
//! replay and verify at the sizes of issue 14 (2,000 / 8,000 / 20,000 draws). With the corpus
//! beside the checkout, its genuine programs are mixed in.
//!
//! `cargo run --release -p rsxtrace-scenes --example game_scale -- DRAWS OUT.rrc.gz [CORPUS]`

use rsxtrace_scenes::game_frame::{build, GameFrameOptions};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(draws), Some(out)) = (args.get(1).and_then(|d| d.parse().ok()), args.get(2)) else {
        eprintln!("usage: game_scale DRAWS OUT.rrc.gz [CORPUS]");
        std::process::exit(2);
    };
    let options = GameFrameOptions {
        corpus: args.get(3).map(Into::into),
        draws,
        ..Default::default()
    };
    let capture = match build(&options) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("game_scale: {e}");
            std::process::exit(2);
        }
    };
    let bytes = rsxtrace_capture::rrc::write_v6(&capture);
    if let Err(e) = std::fs::write(out, &bytes) {
        eprintln!("game_scale: cannot write {out}: {e}");
        std::process::exit(2);
    }
    let attached: usize = capture.commands.iter().map(|c| c.memory.len()).sum();
    eprintln!(
        "wrote {out}: {draws} draws, {} commands, {} memory attachments, {} MiB gzip",
        capture.commands.len(),
        attached,
        bytes.len() >> 20
    );
}
