//! `rsxtrace translate`: an RSX program recompiled to WGSL (validated by naga) and, through
//! naga's back ends, to SPIR-V, HLSL, MSL or GLSL.

use super::program_input::{load, Program};
use crate::cli::{Stage, TranslateTarget};
use crate::exit::Status;
use anyhow::{bail, Context};
use clap::ValueEnum;
use rsxtrace_replay::wgsl::backends::{self, Output, Target};
use rsxtrace_replay::wgsl::fragment::{FragmentTranslateOptions, TextureDim};
use rsxtrace_replay::wgsl::vertex::VertexTranslateOptions;
use rsxtrace_replay::wgsl::{fragment, vertex};
use serde_json::json;
use std::io::Write;
use std::path::Path;

pub struct TranslateArgs<'a> {
    pub stage: Option<Stage>,
    pub offset: usize,
    pub draw: Option<usize>,
    pub to: TranslateTarget,
    pub out: Option<&'a Path>,
    /// One JSON object per program on standard output instead of the text.
    pub json: bool,
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
    if programs.len() > 1 && target == Target::SpirV && !args.json {
        bail!("SPIR-V is one binary per program: choose one with --stage vertex|fragment");
    }
    let mut text = String::new();
    let mut binary: Option<Vec<u8>> = None;
    let mut objects = Vec::new();
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
        if args.json {
            objects.push(program_json(located, &module, target, args.to)?);
            continue;
        }
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
    if args.json {
        crate::output::print_json(&objects)?;
        return Ok(Status::Success);
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

/// One program's translation as JSON (docs/json.md): where it came from, its stage and module
/// key, and the output: `text` (WGSL, HLSL, MSL), `glsl` (one shader per entry point) or
/// `spirv` (the words), the others null.
fn program_json(
    located: &super::program_input::Located,
    module: &rsxtrace_replay::wgsl::WgslModule,
    target: Target,
    to: TranslateTarget,
) -> anyhow::Result<serde_json::Value> {
    let output = if target == Target::Wgsl {
        Output::Text(module.source.clone())
    } else {
        backends::write(module, target)
            .with_context(|| format!("naga could not write {}", located.origin))?
    };
    let (text, glsl, spirv) = match output {
        Output::Text(s) => (Some(s), None, None),
        Output::SpirV(words) => (None, None, Some(words)),
        Output::Glsl(shaders) => (
            None,
            Some(
                shaders
                    .into_iter()
                    .map(|shader| {
                        json!({
                            "entry_point": shader.entry_point,
                            "stage": format!("{:?}", shader.stage).to_lowercase(),
                            "source": shader.source,
                        })
                    })
                    .collect::<Vec<_>>(),
            ),
            None,
        ),
    };
    Ok(json!({
        "origin": located.origin,
        "stage": match located.program {
            Program::Vertex(_) => "vertex",
            Program::Fragment(_) => "fragment",
        },
        "module": format!("{:016x}", module.hash),
        "target": to.to_possible_value().map(|v| v.get_name().to_string()),
        "text": text,
        "glsl": glsl,
        "spirv": spirv,
    }))
}
