//! One module per subcommand; [`run`] dispatches.

pub mod asm;
pub mod batch;
pub mod ci;
mod convert;
pub mod debug;
pub mod diff;
mod disasm;
mod draws;
mod dump;
pub mod edit;
mod exec;
pub mod export;
mod export_jsonl;
pub mod find;
mod flow;
pub mod history;
pub mod index;
mod info;
pub mod matching;
pub mod mvp;
pub mod overdraw;
pub mod probe;
mod program_input;
pub mod replay;
pub mod report;
mod rrc_out;
mod shade;
pub mod stats;
pub mod targets;
pub mod textures;
mod translate;
pub mod trim;
pub mod uniforms;
pub mod verify;
pub mod verify_explain;

pub use shade::parse_size as shade_size;

use crate::cli::{Cli, Command};
use crate::exit::Status;

/// Run the parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<Status> {
    match cli.command {
        Command::Info { file, json } => info::run(&file, json),
        Command::Draws { file, json } => draws::run(&file, json),
        Command::Dump { file, draw, json } => dump::run(&file, draw, json),
        Command::ExportJsonl { file } => export_jsonl::run(&file),
        Command::Verify(args) => verify::run(&args),
        Command::Batch(args) => batch::run(&args),
        Command::Debug(args) => debug::run(&args),
        Command::Match(args) => matching::run(&args),
        Command::Replay(args) => replay::run(&args),
        Command::History(args) => history::run(&args),
        Command::Trim(args) => trim::run(&args),
        Command::Edit(args) => edit::run(&args),
        Command::Asm(args) => asm::run(&args),
        Command::Diff(args) => diff::run(&args),
        Command::Report(args) => report::run(&args),
        Command::Ci(args) => ci::run(&args),
        Command::Mvp(args) => mvp::run(&args),
        Command::Uniforms(args) => uniforms::run(&args),
        Command::Probe(command) => probe::run(&command),
        Command::Targets(args) => targets::run(&args),
        Command::Overdraw(args) => overdraw::run(&args),
        Command::Stats(args) => stats::run(&args),
        Command::Textures(args) => textures::run(&args),
        Command::Index(args) => index::run(&args),
        Command::Find(args) => find::run(&args),
        Command::Export(command) => export::run(&command),
        Command::Translate {
            file,
            to,
            stage,
            offset,
            draw,
            out,
            json,
        } => translate::run(
            &file,
            &translate::TranslateArgs {
                stage,
                offset,
                draw,
                to,
                out: out.as_deref(),
                json,
            },
        ),
        Command::Shade {
            program,
            size,
            out,
            uniforms,
            f64,
            gpu,
            rpcs3,
            trig,
            backend,
            json,
        } => shade::run(
            &program,
            size,
            &out,
            &uniforms,
            shade::Engine::from_flags(f64, gpu, backend),
            shade::Rules::from_flags(rpcs3, trig),
            json,
        ),
        Command::Exec {
            file,
            draw,
            json,
            f64,
            rpcs3,
            allow_unknown_constants: _,
            branch_bits,
        } => exec::run(
            &file,
            &exec::ExecArgs {
                draw,
                json,
                f64,
                rpcs3,
                branch_bits,
            },
        ),
        Command::Convert {
            input,
            output,
            to,
            json,
        } => convert::run(&input, &output, to, json),
        Command::Disasm {
            file,
            stage,
            offset,
            draw,
            json,
        } => disasm::run(&file, stage, offset, draw, json),
        Command::Flow {
            file,
            offset,
            draw,
            json,
        } => flow::run(&file, offset, draw, json),
    }
}

/// Load a capture and decode its frame; what the frame model skipped is named on standard
/// error ([`warn_frame_problems`]).
fn load_frame(
    path: &std::path::Path,
) -> anyhow::Result<(
    rsxtrace_capture::rrc::Capture,
    rsxtrace_capture::frame::Frame,
)> {
    use anyhow::Context;
    let capture = rsxtrace_capture::open::open_capture(path)?;
    let frame = rsxtrace_capture::frame::Frame::from_capture(&capture)
        .with_context(|| format!("cannot decode the frame of {}", path.display()))?;
    warn_frame_problems(path, &frame);
    Ok((capture, frame))
}

/// Frame problems named in `warning:` lines before a command's output.
const FRAME_PROBLEMS_SHOWN: usize = 5;

/// Name the first of the frame's problems (commands the frame model skipped or could not
/// apply) on standard error, and how many more there are (`rsxtrace info` lists them all).
fn warn_frame_problems(path: &std::path::Path, frame: &rsxtrace_capture::frame::Frame) {
    for problem in frame.problems.iter().take(FRAME_PROBLEMS_SHOWN) {
        eprintln!("warning: {}: {problem}", path.display());
    }
    let more = frame.problems.len().saturating_sub(FRAME_PROBLEMS_SHOWN);
    if more > 0 {
        eprintln!(
            "warning: {}: {more} more frame problems (`rsxtrace info` lists them all)",
            path.display()
        );
    }
}

/// The draw with index `draw`, or an error that says how many there are.
fn draw_at(
    frame: &rsxtrace_capture::frame::Frame,
    draw: usize,
) -> anyhow::Result<&rsxtrace_capture::frame::Draw> {
    frame.draws.get(draw).ok_or_else(|| {
        anyhow::anyhow!(
            "draw {draw} does not exist: the capture has {} draws (0..{})",
            frame.draws.len(),
            frame.draws.len()
        )
    })
}

/// First 8 hex digits of a 16-digit hash, for tables.
fn short_hash(hash: &str) -> &str {
    hash.get(..8).unwrap_or(hash)
}
