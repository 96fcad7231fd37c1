//! The command line: one subcommand per job. Every command that reads a capture accepts
//! `.rrc`, `.rrc.gz`, `.rrc.zst` and rsxtrace trace files, recognised by content.

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "rsxtrace",
    version,
    about = "Replay and verify PlayStation 3 RSX captures made by RPCS3",
    after_help = "Exit status: 0 success, 1 a check found something, 2 error."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Summary of a capture: version, commands, draws, memory, distinct programs.
    Info {
        /// Capture or trace file.
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// One row per draw (or a JSON array of draw objects with --json).
    Draws {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Everything about one draw, fetched vertices included.
    Dump {
        file: PathBuf,
        /// Draw index (0-based, in order of the draws' END commands).
        #[arg(long)]
        draw: usize,
        #[arg(long)]
        json: bool,
    },
    /// One JSON object per method call: command index, register, method name, decoded argument.
    ExportJsonl { file: PathBuf },
    /// Convert a capture to a trace (`.rsxt`) or a trace to an RRC v6 capture (`.rrc.gz`).
    Convert {
        /// Input: any capture or trace file.
        input: PathBuf,
        /// Output path.
        output: PathBuf,
        /// Output format; by default chosen from the output name (`.rrc`, `.rrc.gz`,
        /// `.rrc.zst`: RRC v6; anything else: trace).
        #[arg(long, value_enum)]
        to: Option<ConvertFormat>,
    },
    /// Disassemble an RSX program: a CgBinaryProgram, a PSL1GHT container, raw microcode, or
    /// the programs of one draw of a capture.
    Disasm {
        file: PathBuf,
        /// Stage of raw microcode (containers and captures say it themselves).
        #[arg(long, value_enum)]
        stage: Option<Stage>,
        /// Byte offset of the program in a raw file.
        #[arg(long, default_value_t = 0)]
        offset: usize,
        /// For a capture: the draw whose programs to disassemble.
        #[arg(long)]
        draw: Option<usize>,
        #[arg(long)]
        json: bool,
    },
    /// Which texture units and interpolants can influence each output of a fragment program.
    Flow {
        file: PathBuf,
        /// Byte offset of the program in a raw file.
        #[arg(long, default_value_t = 0)]
        offset: usize,
        /// For a capture: the draw whose fragment program to analyse.
        #[arg(long)]
        draw: Option<usize>,
        #[arg(long)]
        json: bool,
    },
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvertFormat {
    /// rsxtrace trace (Cap'n Proto).
    Trace,
    /// RPCS3 capture, version 6, gzip-compressed (as RPCS3 writes it).
    Rrc,
    /// RPCS3 capture, version 6, uncompressed.
    RrcRaw,
    /// RPCS3 capture, version 6, zstd-compressed (RPCS3 can open it; it never writes one).
    RrcZst,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Vertex,
    Fragment,
}
