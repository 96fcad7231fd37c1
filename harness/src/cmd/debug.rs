//! `rsxtrace debug PROGRAM --pixel X,Y`: one pixel of a fragment program, run alone on the
//! reference interpreter with `shade`'s inputs, either served to gdb (`rsxtrace_debugger`: a
//! GDB remote server on 127.0.0.1, one connection, exit 0 when gdb disconnects or the program
//! ends) or, with `--trace`, printed instruction by instruction (the source values, the value
//! written, the condition registers, flow decisions), as text or as one JSON object per step
//! (`--json`): the record a bug report can carry.

use crate::exit::Status;
use anyhow::{bail, Context};
use clap::Args;
use rsxtrace_debugger::Session;
use rsxtrace_replay::interp::fragment::trace::{trace_quad, QuadValue, Step};
use rsxtrace_replay::interp::fragment::QuadInputs;
use rsxtrace_replay::interp::fragment::{FragmentState, HalfRounding};
use rsxtrace_replay::interp::Arithmetic;
use rsxtrace_replay::shade::{load_program_file, pixel_quad, LoadedProgram};
use rsxtrace_replay::texture::NoTextures;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct DebugArgs {
    /// Fragment program (CgBinary .fpo, PSL1GHT, or raw microcode).
    pub program: PathBuf,
    /// The pixel to trace, `X,Y` (row 0 at the top).
    #[arg(long, value_parser = parse_pixel)]
    pub pixel: (u32, u32),
    /// Image size `WxH` for `shade`'s inputs.
    #[arg(long, value_parser = super::shade_size, default_value = "256x256")]
    pub size: (u32, u32),
    /// Set a uniform before running, `NAME=x,y,z,w` (repeatable).
    #[arg(long = "uniform")]
    pub uniforms: Vec<String>,
    /// Print every executed instruction instead of serving gdb.
    #[arg(long)]
    pub trace: bool,
    /// Address the GDB server listens on (port 0: any free port; the address is printed).
    #[arg(long, default_value = "127.0.0.1:0")]
    pub listen: std::net::SocketAddr,
    /// Allow a --listen address other than the loopback interface.
    #[arg(long)]
    pub allow_remote: bool,
    /// One JSON object per step instead of text.
    #[arg(long)]
    pub json: bool,
    /// f64 arithmetic.
    #[arg(long)]
    pub f64: bool,
    /// fp16 conversions round to nearest even as RPCS3 does, instead of truncating.
    #[arg(long)]
    pub rpcs3: bool,
}

fn parse_pixel(s: &str) -> Result<(u32, u32), String> {
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

/// The GDB server on the pixel's invocation, until gdb disconnects or the program ends.
fn serve(
    args: &DebugArgs,
    loaded: LoadedProgram,
    state: FragmentState,
    invocation: (QuadInputs, usize),
) -> anyhow::Result<Status> {
    if !args.listen.ip().is_loopback() && !args.allow_remote {
        bail!(
            "--listen {} is not a loopback address; add --allow-remote to serve other hosts",
            args.listen
        );
    }
    let session = Session::new(loaded.program, loaded.ucode, state, invocation, &NoTextures)
        .with_context(|| format!("cannot run {}", args.program.display()))?;
    let listener = std::net::TcpListener::bind(args.listen)
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    eprintln!(
        "rsxtrace debug: listening on {} (gdb -ex 'target remote {}')",
        listener.local_addr()?,
        listener.local_addr()?
    );
    let (stream, peer) = listener.accept().context("no connection")?;
    eprintln!("rsxtrace debug: gdb connected from {peer}");
    let reason =
        rsxtrace_debugger::serve(session, stream, "no texture units (shade inputs)".into())
            .map_err(|e| anyhow::anyhow!("GDB session: {e}"))?;
    eprintln!("rsxtrace debug: {reason:?}");
    Ok(Status::Success)
}

pub fn run(args: &DebugArgs) -> anyhow::Result<Status> {
    let (x, y) = args.pixel;
    let (w, h) = args.size;
    if x >= w || y >= h {
        bail!("pixel {x},{y} is outside the {w}x{h} image");
    }
    let uniforms: Vec<&str> = args.uniforms.iter().map(String::as_str).collect();
    let loaded = load_program_file(&args.program, &uniforms)
        .with_context(|| format!("cannot load {}", args.program.display()))?;
    let mut state = FragmentState::new(loaded.control);
    if args.f64 {
        state.options.arithmetic = Arithmetic::F64;
    }
    if args.rpcs3 {
        state.options.half_rounding = HalfRounding::Nearest;
    }
    let (quad, lane) = pixel_quad(x, y, w, h);
    if !args.trace {
        return serve(args, loaded, state, (quad, lane));
    }
    let trace = trace_quad(&loaded.program, &state, &quad, &NoTextures)
        .with_context(|| format!("the interpreter refused {}", args.program.display()))?;
    let text_of = |step: &Step| {
        loaded
            .program
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
