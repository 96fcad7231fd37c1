//! The recompiled cache export (`rsxtrace batch --out DIR`): per program its WGSL and, through
//! naga's back ends, SPIR-V, HLSL, MSL and GLSL, named by the content key, so that an
//! emulator or a recompiler port loads them by the key a capture's draw carries.
//!
//! Files: `DIR/<stage>/<key>.wgsl`, `.spv`, `.hlsl`, `.metal` and one `.<entry>.glsl` per
//! entry point (GLSL holds one entry point per shader). A back end that refuses the module
//! (e.g. a feature the target language lacks) writes no file; the error is returned for the
//! manifest instead, and the other files are still written. `<key>.asm` is the program's
//! disassembly, which `rsxtrace asm`, `edit`, `disasm` and `translate` read back, written for
//! every program that decodes, recompiled or not.

use rsxtrace_replay::wgsl::backends::{self, Output, Target};
use rsxtrace_replay::wgsl::WgslModule;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// What the export wrote for one program.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Exported {
    /// Files written, relative to the output folder.
    pub files: Vec<String>,
    /// Back ends that refused the module: (language, error).
    pub refused: Vec<(String, String)>,
}

/// Every language's bytes of `module` by file extension (the project's naga back ends,
/// `rsxtrace_replay::wgsl::backends`, as `rsxtrace translate` uses them).
fn translations(module: &WgslModule) -> Vec<(String, Result<Vec<u8>, String>)> {
    let mut out = vec![("wgsl".to_string(), Ok(module.source.clone().into_bytes()))];
    for (ext, target) in [
        ("spv", Target::SpirV),
        ("hlsl", Target::Hlsl),
        ("metal", Target::Msl),
    ] {
        let bytes = backends::write(module, target)
            .map_err(|e| e.to_string())
            .map(|o| match o {
                Output::SpirV(_) => o.spirv_bytes().unwrap_or_default(),
                o => o.text().unwrap_or_default().into_bytes(),
            });
        out.push((ext.to_string(), bytes));
    }
    match backends::write(module, Target::Glsl) {
        Ok(Output::Glsl(shaders)) => {
            for s in shaders {
                out.push((format!("{}.glsl", s.entry_point), Ok(s.source.into_bytes())));
            }
        }
        Ok(_) => {}
        Err(e) => out.push(("glsl".to_string(), Err(e.to_string()))),
    }
    out
}

/// Writes the program's `disassembly` (when it decoded) as `dir/<stage>/<key>.asm` and
/// `module`'s translations (when it was recompiled) as `dir/<stage>/<key>.<ext>`; `Err` only
/// when a file cannot be written.
pub fn export(
    dir: &Path,
    stage: &str,
    key: &str,
    module: Option<&WgslModule>,
    disassembly: &str,
) -> std::io::Result<Exported> {
    let mut done = Exported::default();
    if module.is_none() && disassembly.is_empty() {
        return Ok(done);
    }
    let folder: PathBuf = dir.join(stage);
    std::fs::create_dir_all(&folder)?;
    if !disassembly.is_empty() {
        let name = format!("{key}.asm");
        let text = format!("; {stage} program {key}\n{disassembly}");
        std::fs::write(folder.join(&name), text)?;
        done.files.push(format!("{stage}/{name}"));
    }
    for (ext, bytes) in module.map(translations).unwrap_or_default() {
        match bytes {
            Ok(b) => {
                let name = format!("{key}.{ext}");
                std::fs::write(folder.join(&name), b)?;
                done.files.push(format!("{stage}/{name}"));
            }
            Err(e) => done.refused.push((ext, e)),
        }
    }
    Ok(done)
}
