//! naga back ends: the validated module ([`WgslModule`]) as WGSL (naga's rewrite), SPIR-V,
//! HLSL, MSL or GLSL ([`write()`]).
//!
//! Calls and options follow `shared/reference/stack-notes.md` ("naga 30"): SPIR-V through
//! `spv::write_vec`, HLSL through `hlsl::Writer`, MSL through `msl::write_string` (naga's default options, which invent bindings for resources they are not told
//! about; MSL at version [`MSL_VERSION`]), and
//! GLSL 4.50 core through `glsl::Writer`, which writes **one entry point at a time**: a GLSL
//! output holds one shader per entry point of the module ([`GlslShader`]).

use crate::WgslModule;
use naga::back::{glsl, hlsl, msl, spv, wgsl};

/// Metal Shading Language version written: 2.4 (macOS 12 / iOS 15). naga's default, 1.0,
/// lacks functions the fragment modules use (e.g. fine derivatives).
pub const MSL_VERSION: (u8, u8) = (2, 4);

/// A target language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// WGSL, as naga writes it back from the module.
    Wgsl,
    /// SPIR-V (naga's default options: SPIR-V 1.0, all entry points in one module).
    SpirV,
    /// HLSL (shader model 5.1).
    Hlsl,
    /// Metal Shading Language [`MSL_VERSION`].
    Msl,
    /// GLSL 4.50 core, one shader per entry point.
    Glsl,
}

impl Target {
    /// Every target.
    pub const ALL: [Target; 5] = [
        Target::Wgsl,
        Target::SpirV,
        Target::Hlsl,
        Target::Msl,
        Target::Glsl,
    ];

    /// Lower-case name (`wgsl`, `spirv`, `hlsl`, `msl`, `glsl`).
    pub fn name(self) -> &'static str {
        match self {
            Target::Wgsl => "wgsl",
            Target::SpirV => "spirv",
            Target::Hlsl => "hlsl",
            Target::Msl => "msl",
            Target::Glsl => "glsl",
        }
    }
}

/// One GLSL shader: the module's entry point `entry_point` for `stage`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlslShader {
    /// Entry point name in the WGSL module.
    pub entry_point: String,
    /// Its stage.
    pub stage: naga::ShaderStage,
    /// The GLSL source (starts with `#version 450 core`).
    pub source: String,
}

/// What a back end produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// WGSL, HLSL or MSL source.
    Text(String),
    /// SPIR-V words (host order).
    SpirV(Vec<u32>),
    /// GLSL, one shader per entry point, in the module's entry-point order.
    Glsl(Vec<GlslShader>),
}

impl Output {
    /// SPIR-V as little-endian bytes (the byte order of a `.spv` file on every host); `None`
    /// for text outputs.
    pub fn spirv_bytes(&self) -> Option<Vec<u8>> {
        match self {
            Output::SpirV(words) => Some(words.iter().flat_map(|w| w.to_le_bytes()).collect()),
            _ => None,
        }
    }

    /// The output as one text: the source, or every GLSL shader after a
    /// `// ---- entry point <name> (<stage>) ----` header line; `None` for SPIR-V.
    pub fn text(&self) -> Option<String> {
        match self {
            Output::Text(s) => Some(s.clone()),
            Output::SpirV(_) => None,
            Output::Glsl(shaders) => Some(
                shaders
                    .iter()
                    .map(|s| {
                        format!(
                            "// ---- entry point {} ({:?}) ----\n{}",
                            s.entry_point, s.stage, s.source
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
        }
    }
}

/// Why a back end failed (naga's error, rendered, with the target and entry point).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BackendError {
    /// The WGSL writer failed.
    #[error("module {hash:016x}: WGSL back end: {source}")]
    Wgsl {
        /// Module hash.
        hash: u64,
        /// naga's error.
        source: wgsl::Error,
    },
    /// The SPIR-V writer failed.
    #[error("module {hash:016x}: SPIR-V back end: {source}")]
    SpirV {
        /// Module hash.
        hash: u64,
        /// naga's error.
        source: spv::Error,
    },
    /// The HLSL writer failed.
    #[error("module {hash:016x}: HLSL back end: {source}")]
    Hlsl {
        /// Module hash.
        hash: u64,
        /// naga's error.
        source: hlsl::Error,
    },
    /// The MSL writer failed.
    #[error("module {hash:016x}: MSL back end: {source}")]
    Msl {
        /// Module hash.
        hash: u64,
        /// naga's error.
        source: msl::Error,
    },
    /// The GLSL writer failed for one entry point.
    #[error("module {hash:016x}: GLSL back end, entry point {entry_point}: {source}")]
    Glsl {
        /// Module hash.
        hash: u64,
        /// The entry point being written.
        entry_point: String,
        /// naga's error.
        source: glsl::Error,
    },
}

/// Write `module` for `target`.
pub fn write(module: &WgslModule, target: Target) -> Result<Output, BackendError> {
    let (m, info, hash) = (&module.module, &module.info, module.hash);
    match target {
        Target::Wgsl => wgsl::write_string(m, info, wgsl::WriterFlags::empty())
            .map(Output::Text)
            .map_err(|source| BackendError::Wgsl { hash, source }),
        Target::SpirV => spv::write_vec(m, info, &spv::Options::default(), None)
            .map(Output::SpirV)
            .map_err(|source| BackendError::SpirV { hash, source }),
        Target::Hlsl => {
            let mut s = String::new();
            hlsl::Writer::new(
                &mut s,
                &hlsl::Options::default(),
                &hlsl::PipelineOptions::default(),
            )
            .write(m, info, None)
            .map_err(|source| BackendError::Hlsl { hash, source })?;
            Ok(Output::Text(s))
        }
        Target::Msl => msl::write_string(
            m,
            info,
            &msl::Options {
                lang_version: MSL_VERSION,
                ..msl::Options::default()
            },
            &msl::PipelineOptions::default(),
        )
        .map(|(s, _)| Output::Text(s))
        .map_err(|source| BackendError::Msl { hash, source }),
        Target::Glsl => {
            let mut shaders = Vec::with_capacity(m.entry_points.len());
            for ep in &m.entry_points {
                let glsl_err = |source| BackendError::Glsl {
                    hash,
                    entry_point: ep.name.clone(),
                    source,
                };
                let options = glsl::Options {
                    version: glsl::Version::Desktop(450),
                    ..glsl::Options::default()
                };
                let pipeline = glsl::PipelineOptions {
                    shader_stage: ep.stage,
                    entry_point: ep.name.clone(),
                    multiview: None,
                };
                let mut source = String::new();
                glsl::Writer::new(
                    &mut source,
                    m,
                    info,
                    &options,
                    &pipeline,
                    naga::proc::BoundsCheckPolicies::default(),
                )
                .map_err(glsl_err)?
                .write()
                .map_err(glsl_err)?;
                shaders.push(GlslShader {
                    entry_point: ep.name.clone(),
                    stage: ep.stage,
                    source,
                });
            }
            Ok(Output::Glsl(shaders))
        }
    }
}
