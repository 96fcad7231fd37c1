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
        /// Print what was written as JSON (docs/json.md).
        #[arg(long)]
        json: bool,
    },
    /// Cut a capture down to a range of draws (a smaller capture that replays them as
    /// `replay --draws` does from the whole file), for a bug report or a test case.
    Trim(crate::cmd::trim::TrimArgs),
    /// Write a capture whose chosen draws run other vertex or fragment programs (from
    /// `.vpo`/`.fpo`, PSL1GHT or raw microcode files), to replay, verify or diff the frame with
    /// them.
    Edit(crate::cmd::edit::EditArgs),
    /// Assemble vertex or fragment assembly text (as `disasm` writes it) into raw microcode,
    /// or into a container like a given one, CgBinaryProgram or PSL1GHT (its parameters kept,
    /// uniforms following their inline constants).
    Asm(crate::cmd::asm::AsmArgs),
    /// Two captures side by side: their draws aligned by what they draw, and per aligned pair
    /// the state, constants, inline constants and vertex data that differ (exit 1 when the
    /// frames differ).
    Diff(crate::cmd::diff::DiffArgs),
    /// Disassemble an RSX program: a CgBinaryProgram, a PSL1GHT container, assembly text,
    /// raw microcode, every program of an executable (ELF, debug SELF) or of a folder (RPCS3
    /// shader caches too), or the programs of one draw of a capture.
    Disasm {
        file: PathBuf,
        /// Stage of raw microcode (containers and captures say it themselves).
        #[arg(long, value_enum)]
        stage: Option<Stage>,
        /// Byte offset of the program in a raw file.
        #[arg(long, default_value_t = 0, conflicts_with = "draw")]
        offset: usize,
        /// For a capture: the draw whose programs to disassemble.
        #[arg(long)]
        draw: Option<usize>,
        #[arg(long)]
        json: bool,
    },
    /// Run a draw's vertex program on the reference interpreter over its fetched vertices and
    /// print every output of every vertex.
    Exec {
        file: PathBuf,
        #[arg(long)]
        draw: usize,
        #[arg(long)]
        json: bool,
        /// Evaluate the same rules in f64 (to tell an ill-conditioned result from a wrong one).
        #[arg(long)]
        f64: bool,
        /// Use RPCS3's behaviour for every rule where it differs from the hardware description
        /// (ARL truncation, natural EXP/LOG, RSQ/LG2 guards...).
        #[arg(long)]
        rpcs3: bool,
        /// Has no effect (still accepted so existing scripts parse): constants the capture
        /// does not hold always read as 0 and are listed (warnings in text,
        /// `unknown_constants` in JSON).
        #[arg(long)]
        allow_unknown_constants: bool,
        /// `SET_TRANSFORM_BRANCH_BITS` for BRB/CLB branches; overrides the value the draw has
        /// in the capture.
        #[arg(long, value_parser = parse_u32)]
        branch_bits: Option<u32>,
    },
    /// Run a fragment program over every pixel of an image on the reference interpreter and
    /// write COL0 as an 8-bit RGBA PNG.
    Shade {
        /// A CgBinaryProgram (.fpo), a PSL1GHT fragment container, or raw microcode.
        program: PathBuf,
        /// Image size, WIDTHxHEIGHT.
        #[arg(long, value_parser = crate::cmd::shade_size)]
        size: (u32, u32),
        /// Output PNG.
        #[arg(long)]
        out: PathBuf,
        /// Set a uniform by name through the container's embedded constants: NAME=x,y,z,w
        /// (repeatable).
        #[arg(long = "uniform")]
        uniforms: Vec<String>,
        /// Evaluate the same rules in f64.
        #[arg(long)]
        f64: bool,
        /// Run the recompiled (WGSL) program on a GPU device instead of the interpreter.
        #[arg(long, conflicts_with = "f64")]
        gpu: bool,
        /// Convert fp32 to fp16 (H registers, fp16 source modifiers) by rounding to nearest
        /// even, as RPCS3 does, instead of the hardware's truncation (of MUL/ADD/MAD results
        /// carried to 26 bits, docs/arithmetic.md).
        #[arg(long)]
        rpcs3: bool,
        /// SIN/COS argument reduction: exact (IEEE, default) or turns (x times f32(1/2pi),
        /// fraction, times 2pi, each rounded to f32: refuted for the RSX by the hardware image
        /// of rsx_fp_static_test2, docs/arithmetic.md).
        #[arg(long, value_enum, default_value_t = TrigArg::Exact)]
        trig: TrigArg,
        /// Graphics backend for --gpu.
        #[arg(long, value_enum, default_value_t = GpuBackend::Auto)]
        backend: GpuBackend,
        /// Print what was computed as JSON: the rules, the device, the image's checksum
        /// (docs/json.md).
        #[arg(long)]
        json: bool,
    },
    /// Recompile an RSX program to WGSL (validated by naga), or through naga's back ends to
    /// SPIR-V, HLSL, MSL or GLSL: a container, assembly text, raw microcode, the programs of
    /// an executable, or a draw's programs.
    Translate {
        file: PathBuf,
        /// Output language.
        #[arg(long, value_enum, default_value_t = TranslateTarget::Wgsl)]
        to: TranslateTarget,
        /// Stage of raw microcode; for a draw, only this stage.
        #[arg(long, value_enum)]
        stage: Option<Stage>,
        /// Byte offset of the program in a raw file.
        #[arg(long, default_value_t = 0)]
        offset: usize,
        /// For a capture: the draw whose programs to translate.
        #[arg(long)]
        draw: Option<usize>,
        /// Write to this file instead of standard output (required for SPIR-V).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Print each program's translation as a JSON object (origin, stage, module key,
        /// text or SPIR-V words; docs/json.md) instead of the text.
        #[arg(long, conflicts_with = "out")]
        json: bool,
    },
    /// Run every draw's shaders recompiled on a GPU device and on the reference interpreter,
    /// and report where they diverge (exit 1 when something diverges).
    Verify(crate::cmd::verify::VerifyArgs),
    /// Check every unique program of RPCS3 shader caches, executables and containers:
    /// decode, interpret, recompile, and compare on the device (exit 1 when one is not proven).
    Batch(crate::cmd::batch::BatchArgs),
    /// Debug one pixel of a fragment program in gdb (a GDB remote server), or trace it
    /// instruction by instruction with --trace (text or JSON per step).
    Debug(crate::cmd::debug::DebugArgs),
    /// Name every draw's vertex and fragment program from a program library: exactly by
    /// content key, else the nearest by structural fingerprint with a score (exit 1 when a
    /// program is not named exactly).
    Match(crate::cmd::matching::MatchArgs),
    /// Render a captured frame headlessly (GPU, or the CPU reference with --cpu) to a PNG.
    Replay(crate::cmd::replay::ReplayArgs),
    /// Pixel history: every clear, image transfer and fragment that reached one pixel of the
    /// frame's output image, in order, with each fragment's program output and the test that
    /// stopped it or the value it left (CPU reference render)
    History(crate::cmd::history::HistoryArgs),
    /// Write a static HTML site for a capture: the frame, every event, one page per draw
    /// (state, programs, inputs, textures, the target before and after).
    Report(crate::cmd::report::ReportArgs),
    /// Run a manifest of traces against reference images and report (exit 1 when anything fails).
    Ci(crate::cmd::ci::CiArgs),
    /// Match each draw's model-view-projection constants (c32..c35) to level placements.
    Mvp(crate::cmd::mvp::MvpArgs),
    /// The values of a fragment program's named uniforms at every draw that uses it.
    Uniforms(crate::cmd::uniforms::UniformsArgs),
    /// Reverse-engineering probes that answer one question with evidence.
    #[command(subcommand)]
    Probe(crate::cmd::probe::ProbeCommand),
    /// Every render target of the frame: colour targets and depth surfaces, the draws that
    /// render into each, the output image, the later draws that sample it as a texture.
    Targets(crate::cmd::targets::TargetsArgs),
    /// Overdraw: the fragments the frame's draws rasterize at each pixel of the output image
    /// (or of a target), as a heat map PNG, and the draws that rasterize the most.
    Overdraw(crate::cmd::overdraw::OverdrawArgs),
    /// Statistics of a frame (or of a range of draws): draws by primitive and vertex source,
    /// vertices and primitives, how often each part of the state changes between draws,
    /// clears, transfers and method calls by method.
    Stats(crate::cmd::stats::StatsArgs),
    /// Per draw: texture units bound and enabled versus units the fragment program can sample;
    /// with --dump, every distinct texture as PNG (DXT also as DDS) with an index.
    Textures(crate::cmd::textures::TexturesArgs),
    /// Index captures into one SQLite database: draws, programs, constants, textures and
    /// memory blocks, queryable across captures (docs/index.md). Exit 2 when a capture, or a
    /// part of one, could not be indexed (the rest is).
    Index(crate::cmd::index::IndexArgs),
    /// Where a byte pattern (or a block or buffer with a given hash) is in a capture, and what
    /// the draws use it as.
    Find(crate::cmd::find::FindArgs),
    /// Export draws to other tools' formats: `export gltf` writes one glTF 2.0 binary.
    #[command(subcommand)]
    Export(crate::cmd::export::ExportCommand),
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
pub enum TrigArg {
    /// The IEEE functions of the argument.
    Exact,
    /// Reduction in turns: 2pi * fract(x * f32(1/2pi)), each step rounded to f32 (what later
    /// NVIDIA GPUs document; refuted for the RSX by a hardware image, docs/arithmetic.md).
    Turns,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuBackend {
    /// Vulkan, then GL.
    Auto,
    Vulkan,
    /// GL (Mesa llvmpipe); cannot render to float targets, so fragment work needs Vulkan.
    Gl,
}

impl GpuBackend {
    /// The device backend this choice means.
    pub fn backend(self) -> rsxtrace_gpu::Backend {
        match self {
            GpuBackend::Auto => rsxtrace_gpu::Backend::Auto,
            GpuBackend::Vulkan => rsxtrace_gpu::Backend::Vulkan,
            GpuBackend::Gl => rsxtrace_gpu::Backend::Gl,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TranslateTarget {
    Wgsl,
    Spirv,
    Hlsl,
    Msl,
    Glsl,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Vertex,
    Fragment,
}

/// A u32 in decimal or 0x-prefixed hex.
pub(crate) fn parse_u32(s: &str) -> Result<u32, String> {
    let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16),
        None => s.parse(),
    };
    parsed.map_err(|e| format!("{s}: {e}"))
}
