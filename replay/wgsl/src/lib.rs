//! RSX vertex and fragment programs recompiled to WGSL.
//!
//! Brief overview:
//! - [`vertex::translate`] and [`fragment::translate`] emit one WGSL module per program and
//!   options, following the binding and entry-point contract in `replay/wgsl/ABI.md` (what the
//!   GPU executor binds).
//! - Every emitted module is parsed and validated by naga before it is returned
//!   ([`validate`]); a validation failure is a bug in the recompiler, and the error carries the
//!   program's hash and disassembly.
//! - [`backends`] hands the validated module to naga's back ends (SPIR-V, HLSL, MSL, GLSL).
//!
//! Semantics are the reference interpreter's (`rsxtrace-replay::interp`): the same RSX rules,
//! the same options.

pub mod backends;
pub mod fragment;
mod helpers;
mod levels;
mod trig;
pub mod vertex;

/// A validated WGSL module.
#[derive(Debug)]
pub struct WgslModule {
    /// The WGSL source.
    pub source: String,
    /// The parsed module.
    pub module: naga::Module,
    /// naga's analysis of it (what the back ends need).
    pub info: naga::valid::ModuleInfo,
    /// XXH3-64 of the microcode the module was made from (with the options folded in).
    pub hash: u64,
}

/// Why a program could not be translated.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TranslateError {
    /// The program uses something the recompiler does not translate (names slot and opcode).
    #[error("slot {slot}: {what} is not translated")]
    Unsupported { slot: usize, what: String },
    /// The emitted WGSL did not parse or validate: a recompiler bug.
    #[error("recompiler bug: program {hash:016x} produced invalid WGSL:\n{diagnostic}\n--- disassembly ---\n{disassembly}\n--- WGSL ---\n{wgsl}")]
    Invalid {
        hash: u64,
        diagnostic: String,
        disassembly: String,
        wgsl: String,
    },
}

/// Parse and validate WGSL with naga (all validation flags, all capabilities the executor may
/// use). Returns the module and its info, or naga's rendered diagnostic.
pub fn validate(source: &str) -> Result<(naga::Module, naga::valid::ModuleInfo), String> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| e.emit_to_string(source))?;
    let mut validator = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::SHADER_FLOAT16 | naga::valid::Capabilities::default(),
    );
    let info = validator
        .validate(&module)
        .map_err(|e| e.emit_to_string(source))?;
    Ok((module, info))
}
