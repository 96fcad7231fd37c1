//! Fragment programs to WGSL: one module per (program, options) following `ABI.md` (entry
//! points `fp_main` and `fp_eval`, the `rsx_fragment` body, texture bindings in group 1), with
//! the reference interpreter's semantics (`rsxtrace-replay` `interp::fragment`).
//!
//! - [`options`]: [`FragmentTranslateOptions`] and the interpreter switches it mirrors.
//! - [`emit`]: the predicated body (flow, writes, textures, derivatives).
//! - [`ops`]: source reads and per-opcode expressions.
//! - [`prelude`]: the ABI structs and the library of helper functions (a module carries the
//!   helpers its body calls).
//! - [`entry`]: the resource declarations and entry points.
//! - [`record`]: the instrumented module's per-instruction record (`verify --explain`).
//!
//! The register file is 48 `vec4<u32>` words shared by R and H exactly as in the interpreter
//! (B.3): R reads/writes are bitcasts of whole words, H(2n) is the four binary16 halves of
//! R(n).xy and H(2n+1) those of R(n).zw; binary16 conversions are done with integer
//! operations (truncation as the RSX does, or RPCS3's nearest even:
//! [`FragmentTranslateOptions::half_rounding`]), so H values are bit-exact.

pub mod carry;
pub mod emit;
pub mod entry;
pub mod ops;
pub mod options;
pub mod prelude;
pub mod record;

use std::fmt::Write as _;

use rsxtrace_program::fragment::{disassemble, encode, FragmentProgram};

pub use options::{
    FixedPointMode, FragmentTranslateOptions, HalfRounding, LodOperand, LoopCounter, MinMaxNan,
    MipFilter, PerspectiveFlag, TextureDim, TextureLod, TrigReduction, CONTROL_32_BIT_EXPORTS,
    CONTROL_DEPTH_EXPORT,
};

use crate::{TranslateError, WgslModule};

/// Translates `program` to a validated WGSL module.
///
/// Refuses (`TranslateError::Unsupported`, naming the slot) what the interpreter refuses
/// (CAL, BEMLUM, TIMESWTEX, registers outside the file, constant sources without a slot,
/// invalid input attribute or scale, flow targets that are not instructions, nesting deeper
/// than 64), flow whose targets do not lie after the instruction, and `HalfRounding::Keep`
/// (reported at slot 0: the interpreter's oracle option has no WGSL form). A module that naga
/// rejects is a recompiler bug: `TranslateError::Invalid` with the disassembly and source.
pub fn translate(
    program: &FragmentProgram,
    options: &FragmentTranslateOptions,
) -> Result<WgslModule, TranslateError> {
    if options.half_rounding == HalfRounding::Keep {
        // H registers are packed binary16 words in the emitted WGSL: no room for f32 values.
        return Err(TranslateError::Unsupported {
            slot: 0,
            what: "HalfRounding::Keep (an interpreter-only oracle option)".to_string(),
        });
    }
    let hash = module_hash(program, options);
    let body = emit::body(program, options)?;
    let source = assemble(&body, options, hash);
    match crate::validate(&source) {
        Ok((module, info)) => Ok(WgslModule {
            source,
            module,
            info,
            hash,
        }),
        Err(diagnostic) => Err(TranslateError::Invalid {
            hash,
            diagnostic,
            disassembly: disassemble(program),
            wgsl: source,
        }),
    }
}

/// XXH3-64 of the microcode (re-encoded, so every bit counts) followed by the options.
pub fn module_hash(program: &FragmentProgram, options: &FragmentTranslateOptions) -> u64 {
    let mut bytes = encode(program);
    bytes.extend_from_slice(&options.fingerprint());
    xxhash_rust::xxh3::xxh3_64(&bytes)
}

fn assemble(body: &emit::Body, options: &FragmentTranslateOptions, hash: u64) -> String {
    let mut s = String::with_capacity(body.text.len() + 1024);
    s.push_str("\nfn rsx_fragment(inp: FpInputs) -> FpResult {\n");
    s.push_str("    var attr = inp.attr;\n");
    s.push_str("    var cc0 = vec4<f32>(0.0);\n    var cc1 = vec4<f32>(0.0);\n");
    let mut regs = body.uses.regs;
    // Outputs: R0/R2/R3/R4 or H0/H4/H6/H8 (= R0/R2/R3/R4 .xy), R1 for depth (B.6).
    for r in [0, 2, 3, 4] {
        regs[r] = true;
    }
    if options.control & CONTROL_DEPTH_EXPORT != 0 {
        regs[1] = true;
    }
    for (r, _) in regs.iter().enumerate().filter(|(_, u)| **u) {
        let _ = writeln!(s, "    var r{r} = vec4<u32>(0u);");
    }
    s.push_str(
        "    var ret = false;\n    var brk0 = false;\n    var ended = false;\n    var killed = false;\n    var a0: i32 = 0;\n",
    );
    s.push_str(&body.text);
    s.push_str("    var out: FpResult;\n");
    let r32 = options.control & CONTROL_32_BIT_EXPORTS != 0;
    for (k, r) in [0, 2, 3, 4].into_iter().enumerate() {
        if r32 {
            let _ = writeln!(s, "    out.colors[{k}] = bitcast<vec4<f32>>(r{r});");
        } else {
            let _ = writeln!(s, "    out.colors[{k}] = rsx_rd_h(r{r}.xy);");
        }
    }
    if options.control & CONTROL_DEPTH_EXPORT != 0 {
        s.push_str("    out.depth = bitcast<f32>(r1.z);\n");
    } else {
        s.push_str("    out.depth = 0.0;\n");
    }
    s.push_str("    out.killed = killed;\n    return out;\n}\n");
    let function = s;

    let mut s = String::with_capacity(function.len() + 8 * 1024);
    let _ = writeln!(
        s,
        "// rsxtrace fragment program {hash:016x}, control {:#x}",
        options.control
    );
    let native_f16 = options.native_f16 && options.half_rounding == HalfRounding::Nearest;
    if native_f16 {
        s.push_str("enable f16;\n\n");
    }
    s.push_str(prelude::STRUCTS);
    // Only the helpers the function calls (the entry points call none).
    let hrt = match options.half_rounding {
        HalfRounding::Truncate => prelude::HALF_TRUNCATE,
        HalfRounding::Nearest if native_f16 => prelude::HALF_NATIVE,
        HalfRounding::Nearest => prelude::HALF_EXACT,
        // Refused by `translate`; the exact round trip keeps `assemble` total.
        HalfRounding::Keep => prelude::HALF_EXACT,
    };
    let library: Vec<(&str, &str)> = prelude::LIBRARY
        .iter()
        .chain(ops::OP_LIBRARY)
        .chain(carry::LIBRARY)
        .chain(crate::trig::LIBRARY)
        .chain(rsxtrace_semantics::lod::WGSL_LIBRARY)
        .chain(rsxtrace_semantics::shadow::WGSL_LIBRARY)
        .chain(rsxtrace_semantics::texel::WGSL_LIBRARY)
        .chain(rsxtrace_semantics::border::WGSL_LIBRARY)
        .copied()
        .chain([("rsx_hrt", hrt)])
        .collect();
    crate::helpers::append_used(&mut s, &library, &[&function]);
    s.push_str(&entry::resources(body.units, options));
    if options.instrument {
        s.push_str(record::WGSL);
    }
    s.push_str(&function);
    s.push_str(&entry::entry_points(options));
    s
}
