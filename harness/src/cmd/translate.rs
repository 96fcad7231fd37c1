//! `rsxtrace translate`: an RSX program recompiled to WGSL (validated by naga) and, through
//! naga's back ends, to SPIR-V, HLSL, MSL or GLSL.

use super::program_input::{load, Program};
use crate::cli::{Stage, TranslateTarget};
use crate::exit::Status;
use anyhow::{bail, Context};
use rsxtrace_replay::wgsl::backends::{self, Output, Target};
use rsxtrace_replay::wgsl::fragment::{FragmentTranslateOptions, TextureDim};
use rsxtrace_replay::wgsl::vertex::VertexTranslateOptions;
use rsxtrace_replay::wgsl::{fragment, vertex};
use std::io::Write;
use std::path::Path;

pub struct TranslateArgs<'a> {
    pub stage: Option<Stage>,
    pub offset: usize,
    pub draw: Option<usize>,
    pub to: TranslateTarget,
    pub out: Option<&'a Path>,
}

pub fn run(path: &Path, args: &TranslateArgs) -> anyhow::Result<Status> {
    let programs = load(path, args.stage, args.offset, args.draw)?;
    let target = match args.to {
        TranslateTarget::Wgsl => Target::Wgsl,
        TranslateTarget::Spirv => Target::SpirV,
        TranslateTarget::Hlsl => Target::Hlsl,
        TranslateTarget::Msl => Target::Msl,
        TranslateTarget::Glsl => Target::Glsl,
    };
    if programs.len() > 1 && target == Target::SpirV {
        bail!("SPIR-V is one binary per program: choose one with --stage vertex|fragment");
    }
    let mut text = String::new();
    let mut binary: Option<Vec<u8>> = None;
    for located in &programs {
        let module = match &located.program {
            Program::Vertex(p) => vertex::translate_textured(
                p,
                &located.memory_words,
                &VertexTranslateOptions::default(),
                &located.vertex_textures.unwrap_or_default(),
            ),
            Program::Fragment(p) => {
                let mut options =
                    FragmentTranslateOptions::with_control(located.control.unwrap_or(0x40));
                if let Some(dims) = located.texture_dimensions {
                    options.texture_dims = dims.map(|d| match d {
                        1 => TextureDim::D1,
                        3 => TextureDim::D3,
                        6 => TextureDim::Cube,
                        _ => TextureDim::D2,
                    });
                }
                if let Some(lod) = located.texture_lod {
                    options.texture_lod = lod;
                }
                fragment::translate(p, &options)
            }
        }
        .with_context(|| format!("cannot translate {}", located.origin))?;
        text.push_str(&format!(
            "// {} (module {:016x})\n",
            located.origin, module.hash
        ));
        if target == Target::Wgsl {
            // The recompiler's own WGSL (naga validated it), not naga's normalised rewrite.
            text.push_str(&module.source);
            continue;
        }
        match backends::write(&module, target)
            .with_context(|| format!("naga could not write {}", located.origin))?
        {
            Output::Text(s) => text.push_str(&s),
            Output::SpirV(words) => {
                binary = Some(words.iter().flat_map(|w| w.to_le_bytes()).collect());
            }
            Output::Glsl(shaders) => {
                for shader in shaders {
                    text.push_str(&format!(
                        "// entry point {} ({:?})\n{}\n",
                        shader.entry_point, shader.stage, shader.source
                    ));
                }
            }
        }
    }
    match (binary, args.out) {
        (Some(bytes), Some(out)) => {
            std::fs::write(out, bytes).with_context(|| format!("cannot write {}", out.display()))?
        }
        (Some(_), None) => bail!("SPIR-V is binary: give --out FILE.spv"),
        (None, Some(out)) => {
            std::fs::write(out, text).with_context(|| format!("cannot write {}", out.display()))?
        }
        (None, None) => {
            let stdout = std::io::stdout();
            let mut lock = stdout.lock();
            lock.write_all(text.as_bytes())?;
            lock.flush()?;
        }
    }
    Ok(Status::Success)
}
