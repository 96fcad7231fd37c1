//! `rsxtrace debug FILE --pixel X,Y`: one pixel's invocation of a fragment program on the
//! reference interpreter, either served to gdb (`rsxtrace_debugger`: a GDB remote server on
//! 127.0.0.1, one connection, exit 0 when gdb disconnects or the program ends) or, with
//! `--trace`, printed instruction by instruction (the source values, the value written, the
//! condition registers, flow decisions), as text or as one JSON object per step (`--json`):
//! the record a bug report can carry.
//!
//! FILE is a fragment program run with `shade`'s inputs over a `--size` image, or with
//! `--draw N` a capture whose draw N is run at the pixel with its own inputs and textures
//! (`rsxtrace_verify::invocation`). `--draw N --vertex K` debugs the draw's vertex program
//! on its vertex K instead; `--vertex K` without `--draw` debugs a standalone vertex program
//! (FILE as `rsxtrace batch` reads it) on `batch`'s input set K.

use crate::exit::Status;
use anyhow::{bail, Context};
use clap::Args;
use rsxtrace_debugger::vertex::VertexInputs;
use rsxtrace_debugger::{Session, VertexSession};
use rsxtrace_program::fragment::FragmentProgram;
use rsxtrace_replay::interp::fragment::trace::{trace_quad, QuadValue, Step};
use rsxtrace_replay::interp::fragment::{FragmentState, HalfRounding, QuadInputs};
use rsxtrace_replay::interp::vertex::trace::trace_vertex;
use rsxtrace_replay::interp::Arithmetic;
use rsxtrace_replay::shade::{load_program_file, pixel_quad};
use rsxtrace_replay::texture::{NoTextures, Sampler};
use rsxtrace_verify::divergence::vertex_stage::interp_options;
use rsxtrace_verify::invocation::{draw_pixel, draw_vertex, program_vertex};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct DebugArgs {
    /// Fragment program (CgBinary .fpo, PSL1GHT, or raw microcode), a vertex program with
    /// --vertex (any file `rsxtrace batch` reads), or a capture with --draw.
    pub file: PathBuf,
    /// The pixel, `X,Y`: of the `--size` image (row 0 at the top), or in window coordinates
    /// of the draw's surface (as `verify` reports pixels).
    #[arg(long, value_parser = parse_pixel, required_unless_present = "vertex")]
    pub pixel: Option<(u32, u32)>,
    /// FILE is a capture: debug this draw's fragment program (or with --vertex its vertex
    /// program).
    #[arg(long)]
    pub draw: Option<usize>,
    /// Debug a vertex program on vertex K: the draw's vertex K (processing order) with
    /// --draw, else input set K (0..2048) of `rsxtrace batch`'s inputs for a standalone program.
    #[arg(long, value_name = "K", conflicts_with = "pixel")]
    pub vertex: Option<usize>,
    /// Image size `WxH` for `shade`'s inputs (programs only).
    #[arg(long, value_parser = super::shade_size, default_value = "256x256")]
    pub size: (u32, u32),
    /// Set a uniform before running, `NAME=x,y,z,w` (repeatable; programs only).
    #[arg(long = "uniform")]
    pub uniforms: Vec<String>,
    /// Print every executed instruction instead of serving gdb.
    #[arg(long)]
    pub trace: bool,
    /// One JSON object per step instead of text (with --trace).
    #[arg(long, requires = "trace")]
    pub json: bool,
    /// Address the GDB server listens on (port 0: any free port; the address is printed).
    #[arg(long, default_value = "127.0.0.1:0")]
    pub listen: std::net::SocketAddr,
    /// Allow a --listen address other than the loopback interface.
    #[arg(long)]
    pub allow_remote: bool,
    /// f64 arithmetic.
    #[arg(long)]
    pub f64: bool,
    /// fp16 conversions round to nearest even as RPCS3 does, instead of truncating.
    #[arg(long)]
    pub rpcs3: bool,
}

pub(crate) fn parse_pixel(s: &str) -> Result<(u32, u32), String> {
    let (x, y) = s
        .split_once(',')
        .ok_or_else(|| format!("{s:?}: expected X,Y"))?;
    let n = |v: &str| {
        v.trim()
            .parse::<u32>()
            .map_err(|e| format!("{s:?}: {v:?}: {e}"))
    };
    Ok((n(x)?, n(y)?))
}

/// One lane's components in `mask` (`_` for the others).
fn vec4(v: &QuadValue, lane: usize, mask: u8) -> String {
    let c = v[lane];
    let parts: Vec<String> = (0..4)
        .map(|k| {
            if mask & (1 << k) != 0 {
                c[k].to_string()
            } else {
                "_".to_string()
            }
        })
        .collect();
    format!("({})", parts.join(", "))
}

/// What is debugged.
struct Invocation {
    program: FragmentProgram,
    ucode: Vec<u8>,
    state: FragmentState,
    quad: QuadInputs,
    lane: usize,
    sampler: Box<dyn Sampler + Send>,
    units: Vec<String>,
}

/// The invocation FILE and the flags name.
fn invocation(args: &DebugArgs, (x, y): (u32, u32)) -> anyhow::Result<Invocation> {
    let (program, ucode, control, quad, lane, sampler, units): (
        _,
        _,
        _,
        _,
        _,
        Box<dyn Sampler + Send>,
        _,
    ) = match args.draw {
        Some(draw) => {
            let (_capture, frame) = super::load_frame(&args.file)?;
            let inv = draw_pixel(&frame, draw, (x, y)).map_err(|e| anyhow::anyhow!(e))?;
            (
                inv.program,
                inv.ucode,
                inv.control,
                inv.quad,
                inv.lane,
                Box::new(inv.sampler),
                inv.units,
            )
        }
        None => {
            let (w, h) = args.size;
            if x >= w || y >= h {
                bail!("pixel {x},{y} is outside the {w}x{h} image");
            }
            refuse_capture_without_draw(
                args,
                &format!(
                    " (`rsxtrace history {} --pixel {x},{y}` lists the draws that reached \
                     that pixel)",
                    args.file.display()
                ),
            )?;
            let uniforms: Vec<&str> = args.uniforms.iter().map(String::as_str).collect();
            let loaded = load_program_file(&args.file, &uniforms)
                .with_context(|| format!("cannot load {}", args.file.display()))?;
            let (quad, lane) = pixel_quad(x, y, w, h);
            (
                loaded.program,
                loaded.ucode,
                loaded.control,
                quad,
                lane,
                Box::new(NoTextures),
                Vec::new(),
            )
        }
    };
    let mut state = FragmentState::new(control);
    if args.f64 {
        state.options.arithmetic = Arithmetic::F64;
    }
    if args.rpcs3 {
        state.options.half_rounding = HalfRounding::Nearest;
    }
    Ok(Invocation {
        program,
        ucode,
        state,
        quad,
        lane,
        sampler,
        units,
    })
}

/// The GDB server on the invocation, until gdb disconnects or the program ends.
fn serve(args: &DebugArgs, inv: Invocation) -> anyhow::Result<Status> {
    let units = if inv.units.is_empty() {
        "no texture unit sampled".to_string()
    } else {
        inv.units.join("\n")
    };
    let mut session = Session::new(
        inv.program,
        inv.ucode,
        inv.state,
        (inv.quad, inv.lane),
        inv.sampler,
    )
    .with_context(|| format!("cannot run {}", args.file.display()))?;
    session.describe_textures(units);
    serve_on(args, session)
}

/// Listens, takes one gdb connection and serves `invocation` until it disconnects or the
/// program ends.
fn serve_on(
    args: &DebugArgs,
    invocation: impl rsxtrace_debugger::Invocation,
) -> anyhow::Result<Status> {
    if !args.listen.ip().is_loopback() && !args.allow_remote {
        bail!(
            "--listen {} is not a loopback address; add --allow-remote to serve other hosts",
            args.listen
        );
    }
    let listener = std::net::TcpListener::bind(args.listen)
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    let addr = listener.local_addr()?;
    eprintln!("rsxtrace debug: listening on {addr} (gdb -ex 'target remote {addr}')");
    let (stream, peer) = listener.accept().context("no connection")?;
    eprintln!("rsxtrace debug: gdb connected from {peer}");
    let reason = rsxtrace_debugger::serve(invocation, stream)
        .map_err(|e| anyhow::anyhow!("GDB session: {e}"))?;
    eprintln!("rsxtrace debug: {reason:?}");
    Ok(Status::Success)
}

/// `--vertex K`: the draw's vertex program on vertex K (with `--draw`), or a standalone vertex
/// program on `rsxtrace batch`'s input set K, served to gdb or traced.
fn debug_vertex(args: &DebugArgs, k: usize) -> anyhow::Result<Status> {
    let (vi, k, of) = match args.draw {
        Some(draw) => {
            let (_capture, frame) = super::load_frame(&args.file)?;
            let (vi, k) = draw_vertex(&frame, draw, k).map_err(|e| anyhow::anyhow!(e))?;
            (vi, k, format!("draw {draw}"))
        }
        None => {
            refuse_capture_without_draw(args, "")?;
            program_vertex(&args.file, k).map_err(|e| anyhow::anyhow!(e))?
        }
    };
    let options = interp_options(if args.f64 {
        Arithmetic::F64
    } else {
        Arithmetic::F32
    });
    if !args.trace {
        let session = VertexSession::new(VertexInputs {
            program: vi.program.clone(),
            memory_words: vi.memory_words.clone(),
            constants: vi.bank.clone(),
            constant_values: vi.constants.to_vec(),
            branch_bits: vi.branch_bits,
            input_mask: vi.input_mask,
            input: vi.inputs[k],
            options,
        })
        .with_context(|| format!("the interpreter refused {of}'s vertex program"))?;
        return serve_on(args, session);
    }
    let env = vi.environment();
    let trace = trace_vertex(&vi.program, &vi.memory_words, &env, &vi.inputs[k], &options)
        .with_context(|| format!("the interpreter refused {of}'s vertex program"))?;
    let text_of = |slot: usize| {
        vi.program
            .instructions
            .iter()
            .find(|i| i.slot == slot)
            .map(|i| i.to_string())
            .unwrap_or_default()
    };
    for step in &trace.steps {
        if args.json {
            let mut v = serde_json::to_value(step)?;
            v["vertex"] = k.into();
            v["instruction"] = text_of(step.slot).into();
            outln!("{}", serde_json::to_string(&v)?);
            continue;
        }
        let mut line = format!("#{:<5} {}", step.step, text_of(step.slot));
        for (name, v) in &step.changed {
            line.push_str(&format!(
                "\n         -> {name} = ({}, {}, {}, {})",
                v[0], v[1], v[2], v[3]
            ));
        }
        match step.next {
            Some(n) if n != step.slot + 1 => line.push_str(&format!("\n         next: slot {n}")),
            None => line.push_str("\n         the vertex ends"),
            _ => {}
        }
        outln!("{line}");
    }
    if !args.json {
        let hpos = trace.output.registers[0];
        outln!(
            "vertex {k} of {of}: {} instructions executed; HPOS = ({}, {}, {}, {})",
            trace.steps.len(),
            hpos[0],
            hpos[1],
            hpos[2],
            hpos[3]
        );
    }
    Ok(Status::Success)
}

/// A capture holds many programs: without `--draw` there is no saying which to debug (it was
/// read as a program container and refused with a container error).
fn refuse_capture_without_draw(args: &DebugArgs, hint: &str) -> anyhow::Result<()> {
    use rsxtrace_capture::open::{file_kind, FileKind};
    if let Ok(FileKind::Capture | FileKind::Trace) = file_kind(&args.file) {
        bail!(
            "{} is a capture: name the draw with --draw N{hint}",
            args.file.display()
        );
    }
    Ok(())
}

pub fn run(args: &DebugArgs) -> anyhow::Result<Status> {
    if let Some(k) = args.vertex {
        return debug_vertex(args, k);
    }
    let Some((x, y)) = args.pixel else {
        bail!("give --pixel X,Y (or --draw N --vertex K)");
    };
    let inv = invocation(args, (x, y))?;
    if !args.trace {
        return serve(args, inv);
    }
    let lane = inv.lane;
    let trace = trace_quad(&inv.program, &inv.state, &inv.quad, inv.sampler.as_ref())
        .with_context(|| format!("the interpreter refused {}", args.file.display()))?;
    let text_of = |step: &Step| {
        inv.program
            .instructions
            .iter()
            .find(|i| i.slot == step.slot)
            .map(|i| i.to_string())
            .unwrap_or_default()
    };
    for step in &trace.steps {
        if args.json {
            let mut v = serde_json::to_value(step)?;
            v["lane"] = lane.into();
            v["instruction"] = text_of(step).trim().into();
            outln!("{}", serde_json::to_string(&v)?);
            continue;
        }
        let mut line = format!("#{:<5} {}", step.step, text_of(step));
        if step.active & (1 << lane) == 0 {
            line.push_str("   [lane inactive]");
        }
        for (k, s) in step.sources.iter().enumerate() {
            let mask = step.source_components.get(k).copied().unwrap_or(0xF);
            line.push_str(&format!("\n         src{k} = {}", vec4(s, lane, mask)));
        }
        if let Some(wr) = &step.written {
            line.push_str(&format!(
                "\n         -> {} = {}",
                wr.register,
                vec4(&wr.value, lane, 0xF)
            ));
        }
        if let Some(b) = &step.branch {
            line.push_str(&format!("\n         {b}"));
        }
        outln!("{line}");
    }
    let o = &trace.outputs.lanes[lane];
    if !args.json {
        outln!(
            "pixel {x},{y} (lane {lane}): {} instructions executed; COL0 = ({}, {}, {}, {}){}",
            trace.steps.last().map_or(0, |s| s.step + 1),
            o.colors[0][0],
            o.colors[0][1],
            o.colors[0][2],
            o.colors[0][3],
            if o.killed { "; killed" } else { "" }
        );
    }
    Ok(Status::Success)
}
