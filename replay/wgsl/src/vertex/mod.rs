//! Vertex programs to WGSL (see `replay/wgsl/ABI.md`).
//!
//! Brief overview:
//! - [`translate`] turns a decoded [`VertexProgram`] (plus the transform program memory it was
//!   decoded from, for branch targets outside the decoded extent) into one validated
//!   [`WgslModule`] holding `fn rsx_vertex(inp: array<vec4<f32>, 16>) -> VpResult`
//!   (`struct VpResult { regs: array<vec4<f32>, 16>, written: u32 }`) and the ABI's entry
//!   points `vp_compute` and `vp_main`.
//! - [`VertexTranslateOptions`] is the reference interpreter's rules (`VertexOptions::rules`,
//!   one `rsxtrace_semantics::vertex::VertexRules`); the default is the interpreter's default.
//!
//! # Execution model (the interpreter's, `replay/src/interp/vertex/lanes.rs`)
//!
//! Registers are function variables: temps `r0..r63` (only those used are declared), address
//! registers `a0`, `a1` (`vec4<i32>`), condition codes `cc0`, `cc1`, outputs `o[16]` starting at
//! (0, 0, 0, 1), all others at zero. Control flow is a dispatch loop,
//! `loop { switch pc { case <block leader>: { ... } default: { fault } } }`, over straight-line
//! blocks of consecutive slots (a block ends at a branch, an END, or before another block's
//! leader), with an explicit return stack `array<u32, call_depth>` and a step counter checked
//! before each block (exact: the block faults iff the interpreter would reach its step limit
//! inside it). A loop still running after it ended is the step limit too: a driver may stop
//! a long loop itself (llvmpipe after 65,535 iterations, so on lavapipe a vertex that runs
//! 65,535 blocks or more reports the step limit a few steps early). Branches:
//! BRI/CAL/CLI/RET/BRA test `any()` of the swizzled CC, BRB/CLB test bit `index` of
//! `vp_params.branch_bits`; RET with an empty stack ends the vertex; END ends it after its
//! instruction.
//!
//! # Faults: where the interpreter returns an error
//!
//! A shader cannot return an error, so the vertex records it in `written` bits 16 and up
//! ([`FAULT_INDEX`] .. [`FAULT_INVALID_SLOT`], bits 0–15 stay the output mask), and
//! - a constant or input index outside c[0..468] / v[0..16] is clamped into range and the run
//!   goes on (the interpreter fails with ConstantOutOfRange / InputOutOfRange);
//! - the step limit, a call beyond the stack depth, a BRA outside the slot table, a slot with
//!   no decodable instruction, and a slot the interpreter refuses to run (ARL to a register
//!   other than A0/A1, or ARR/ARA/PSH/POP in memory outside the decoded program) end the
//!   vertex. A write to o[16..31] is dropped, as the interpreter drops it (RPCS3 declares
//!   those registers and no output reads them).
//!
//! Not modelled (the GPU executor's side): unknown constants (the buffer holds whatever the
//! executor put for them), missing inputs (whatever it bound) and unknown branch bits (BRB/CLB
//! read `vp_params.branch_bits` as given).
//!
//! # Refused at translation ([`TranslateError::Unsupported`])
//!
//! A reachable instruction of the decoded program with ARR, ARA (no source defines them), PSH,
//! POP (RPCS3 "Unimplemented sca_opcode"), and a call depth above [`MAX_CALL_DEPTH`].
//!
//! # Vertex textures
//!
//! TXL samples vertex texture unit `tex_num` (0..4) at src0 with the explicit level of detail
//! src1.x, levels chosen by the shared LOD rule from the unit's state
//! ([`VertexTextureUnits`], given to [`translate_textured`]); the module declares the units it
//! samples in group 2 (ABI.md "Vertex textures").
//!
//! # Precision caveats
//!
//! WGSL lets an implementation assume that no NaN or infinity occurs and to contract `a * b + c`
//! into one fused operation, so the NaN selects (`x != x`), `MadRounding::Separate` and the
//! left-to-right dot products are exact only where the GPU compiler honours IEEE semantics;
//! transcendental functions (EX2, LG2, SIN, COS, LIT's pow) follow the GPU's precision, not
//! the host libm's.

mod emit;
pub mod options;
mod prelude;
pub mod record;
mod table;

pub use options::{
    ArlRounding, ExpLog, Lg2Guard, MadRounding, MinMaxNan, RccClamp, RsqGuard, SaturateNan,
    ScalarOperand, TextureDim, TextureLod, VertexRules, VertexTextureUnits, VertexTranslateOptions,
    VERTEX_TEXTURE_UNITS,
};

use crate::{validate, TranslateError, WgslModule};
use emit::{cc_test, static_fault, BodyWriter};
use rsxtrace_program::vertex::{disassemble, Relation, ScalarOpcode, VertexProgram};
use std::fmt::Write;
use table::{is_branch, SlotTable};

/// Output registers (HPOS..TEX8, rsx-microcode.md B.8 "Outputs").
pub const OUTPUT_COUNT: usize = 16;
/// Largest [`VertexTranslateOptions::call_depth`] translated.
pub const MAX_CALL_DEPTH: usize = 64;

/// `written` bit: a constant or input index fell outside its register file (clamped).
pub const FAULT_INDEX: u32 = 1 << 16;
/// `written` bit: the vertex reached the step limit (ended).
pub const FAULT_STEP_LIMIT: u32 = 1 << 17;
/// `written` bit: a call exceeded the return stack depth (ended).
pub const FAULT_CALL_DEPTH: u32 = 1 << 18;
/// `written` bit: a BRA target outside the slot table (ended).
pub const FAULT_BRANCH_RANGE: u32 = 1 << 19;
/// `written` bit: execution reached a slot with no decodable instruction (ended).
pub const FAULT_NO_INSTRUCTION: u32 = 1 << 20;
/// `written` bit: execution reached a slot the interpreter refuses to run (ended).
pub const FAULT_INVALID_SLOT: u32 = 1 << 21;
/// Every fault bit.
pub const FAULT_MASK: u32 = 0xFFFF_0000;

/// What the fault bits of a `written` word say, one phrase per bit set (unknown bits by
/// number).
pub fn fault_names(written: u32) -> Vec<String> {
    const NAMES: [(u32, &str); 6] = [
        (
            FAULT_INDEX,
            "a constant or input index out of range (clamped)",
        ),
        (FAULT_STEP_LIMIT, "the step limit reached without END"),
        (FAULT_CALL_DEPTH, "a call past the return stack's depth"),
        (FAULT_BRANCH_RANGE, "a BRA target outside the program"),
        (
            FAULT_NO_INSTRUCTION,
            "a slot with no decodable instruction reached",
        ),
        (
            FAULT_INVALID_SLOT,
            "a slot the interpreter refuses to run reached",
        ),
    ];
    let mut names: Vec<String> = NAMES
        .iter()
        .filter(|(bit, _)| written & bit != 0)
        .map(|(_, name)| name.to_string())
        .collect();
    let known = NAMES.iter().fold(0, |m, (bit, _)| m | bit);
    let unknown = written & FAULT_MASK & !known;
    if unknown != 0 {
        names.push(format!("unknown fault bits {unknown:#x}"));
    }
    names
}

/// Recompile `program` to a validated WGSL module.
///
/// `program` holds absolute slots and starts at its `start_slot` (as the interpreter runs it);
/// `memory_words` is the 544-slot transform program memory it was decoded from (4 words per
/// slot from slot 0; may be empty): slots the program does not contain are decoded from it,
/// exactly as the interpreter's slot table does.
pub fn translate(
    program: &VertexProgram,
    memory_words: &[u32],
    options: &VertexTranslateOptions,
) -> Result<WgslModule, TranslateError> {
    translate_with(
        program,
        memory_words,
        options,
        &VertexTextureUnits::default(),
        false,
    )
}

/// [`translate`] for a draw whose vertex texture units are in state `textures` (their
/// dimension and LOD state shape what a TXL emits; ABI.md "Vertex textures").
pub fn translate_textured(
    program: &VertexProgram,
    memory_words: &[u32],
    options: &VertexTranslateOptions,
    textures: &VertexTextureUnits,
) -> Result<WgslModule, TranslateError> {
    translate_with(program, memory_words, options, textures, false)
}

/// [`translate`] with instrumentation: after every executed instruction the module appends
/// the registers it wrote to a storage buffer ([`record`]), the device side of `verify
/// --explain`. The module has `vp_compute` only (no render entry point).
pub fn translate_instrumented(
    program: &VertexProgram,
    memory_words: &[u32],
    options: &VertexTranslateOptions,
    textures: &VertexTextureUnits,
) -> Result<WgslModule, TranslateError> {
    translate_with(program, memory_words, options, textures, true)
}

fn translate_with(
    program: &VertexProgram,
    memory_words: &[u32],
    options: &VertexTranslateOptions,
    textures: &VertexTextureUnits,
    instrument: bool,
) -> Result<WgslModule, TranslateError> {
    if options.call_depth > MAX_CALL_DEPTH {
        return Err(TranslateError::Unsupported {
            slot: program.start_slot,
            what: format!(
                "call depth {} (at most {MAX_CALL_DEPTH})",
                options.call_depth
            ),
        });
    }
    let table = SlotTable::build(program, memory_words);
    let (reachable, any_bra) = table.reachable();
    for (slot, _) in reachable.iter().enumerate().filter(|(_, r)| **r) {
        if let Some(i) = table.insn(slot) {
            if let Some((what, refuse)) = static_fault(i) {
                if refuse && table.is_program_slot(slot) {
                    return Err(TranslateError::Unsupported { slot, what });
                }
            }
        }
    }
    let hash = module_hash(program, memory_words, options, textures, instrument);
    let source = emit_module(
        &table, &reachable, any_bra, options, textures, hash, instrument,
    );
    match validate(&source) {
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

/// XXH3-64 over the start slot, every instruction's words, the memory words and the options.
fn module_hash(
    program: &VertexProgram,
    memory_words: &[u32],
    o: &VertexTranslateOptions,
    textures: &VertexTextureUnits,
    instrument: bool,
) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(if instrument {
        b"rsxtrace-wgsl vertex 1 instrumented"
    } else {
        b"rsxtrace-wgsl vertex 1"
    });
    h.update(&(program.start_slot as u64).to_le_bytes());
    for i in &program.instructions {
        h.update(&(i.slot as u64).to_le_bytes());
        for w in i.to_words() {
            h.update(&w.to_le_bytes());
        }
    }
    h.update(&(memory_words.len() as u64).to_le_bytes());
    for w in memory_words {
        h.update(&w.to_le_bytes());
    }
    h.update(&options::fingerprint(o));
    h.update(&textures.fingerprint());
    h.digest()
}

/// The whole module text.
fn emit_module(
    table: &SlotTable,
    reachable: &[bool],
    any_bra: bool,
    options: &VertexTranslateOptions,
    textures: &VertexTextureUnits,
    hash: u64,
    instrument: bool,
) -> String {
    let leaders = table.leaders(reachable, any_bra);
    let mut writer = BodyWriter {
        options,
        textures,
        temps: [false; 64],
        units: 0,
    };
    let mut cases = String::with_capacity(256 * table.slots.len().min(1024));
    let ind = "                ";
    for (leader, _) in leaders
        .iter()
        .enumerate()
        .filter(|(s, l)| **l && reachable.get(*s).copied().unwrap_or(false))
    {
        if table.insn(leader).is_none() {
            // Reaching it faults: left to the default case.
            continue;
        }
        // The block: consecutive ready slots from the leader.
        let mut block = vec![leader];
        while let Some(&last) = block.last() {
            let Some(i) = table.insn(last) else {
                break;
            };
            let next = last + 1;
            if i.end
                || is_branch(i.scalar)
                || static_fault(i).is_some()
                || table.insn(next).is_none()
                || leaders.get(next).copied().unwrap_or(false)
            {
                break;
            }
            block.push(next);
        }
        let k = block.len() as u32;
        let _ = writeln!(cases, "            case {leader}u: {{");
        // Interpreter: `steps >= limit` before an instruction is an error; the block's last
        // instruction runs at steps + k - 1.
        match options.step_limit.checked_sub(k - 1) {
            Some(bound) => {
                let _ = writeln!(
                    cases,
                    "{ind}if (steps >= {bound}u) {{ written |= {FAULT_STEP_LIMIT}u; running = false; break; }}"
                );
            }
            None => {
                let _ = writeln!(
                    cases,
                    "{ind}written |= {FAULT_STEP_LIMIT}u;\n{ind}running = false;\n{ind}break;"
                );
            }
        }
        let _ = writeln!(cases, "{ind}steps += {k}u;");
        for &slot in &block {
            let Some(i) = table.insn(slot) else {
                continue;
            };
            let _ = writeln!(cases, "{ind}// {}", i.to_string().replace('\n', " "));
            if static_fault(i).is_some() {
                let _ = writeln!(
                    cases,
                    "{ind}written |= {FAULT_INVALID_SLOT}u;\n{ind}running = false;\n{ind}break;"
                );
                continue;
            }
            if i.condition.relation != Relation::FL {
                let inner = format!("{ind}    ");
                let mut body = String::new();
                writer.body(&mut body, i, &inner);
                if !body.is_empty() {
                    let _ = writeln!(cases, "{ind}{{\n{body}{ind}}}");
                }
            }
            if instrument {
                let _ = writeln!(cases, "{ind}{}", record::call(i));
            }
        }
        if let Some(i) = block.last().and_then(|s| table.insn(*s)) {
            if static_fault(i).is_none() {
                flow(&mut cases, i, table.slots.len(), options, ind);
            }
        }
        let _ = writeln!(cases, "            }}");
    }

    let mut s = String::with_capacity(cases.len() + 4096);
    s.push_str("\nfn rsx_vertex(inp: array<vec4<f32>, 16>) -> VpResult {\n");
    s.push_str("    var vin = inp;\n");
    s.push_str("    var o = array<vec4<f32>, 16>(");
    for n in 0..OUTPUT_COUNT {
        if n > 0 {
            s.push_str(", ");
        }
        s.push_str("vec4<f32>(0.0, 0.0, 0.0, 1.0)");
    }
    s.push_str(");\n");
    s.push_str("    var written = 0u;\n");
    for (t, _) in writer.temps.iter().enumerate().filter(|(_, u)| **u) {
        let _ = writeln!(s, "    var r{t} = vec4<f32>(0.0);");
    }
    s.push_str("    var a0 = vec4<i32>(0);\n    var a1 = vec4<i32>(0);\n");
    s.push_str("    var cc0 = vec4<f32>(0.0);\n    var cc1 = vec4<f32>(0.0);\n");
    let _ = writeln!(s, "    var pc = {}u;", table.start);
    s.push_str("    var steps = 0u;\n    var sp = 0u;\n");
    let _ = writeln!(
        s,
        "    var stack: array<u32, {}>;",
        options.call_depth.max(1)
    );
    s.push_str("    var running = true;\n    loop {\n        switch pc {\n");
    s.push_str(&cases);
    let _ = writeln!(
        s,
        "            default: {{\n                written |= {FAULT_NO_INSTRUCTION}u;\n                running = false;\n            }}"
    );
    s.push_str("        }\n        if (!running) {\n            break;\n        }\n    }\n");
    // A loop the driver ended (llvmpipe stops any loop after 65,535 iterations: Mesa
    // gallivm's LP_MAX_TGSI_LOOP_ITERATIONS) still running: the step limit, not a result.
    let _ = writeln!(
        s,
        "    if (running) {{\n        written |= {FAULT_STEP_LIMIT}u;\n    }}"
    );
    s.push_str("    return VpResult(o, written);\n}\n\n");
    let function = s;

    let mut s = String::with_capacity(function.len() + 8192);
    let _ = writeln!(
        s,
        "// rsxtrace vertex program {hash:016x} (generated by rsxtrace-wgsl; ABI.md)\n"
    );
    s.push_str(prelude::DECLARATIONS);
    s.push_str(&prelude::texture_declarations(writer.units, textures));
    // Only the helpers `rsx_vertex` calls (the entry points call none).
    let library: Vec<(&str, String)> = prelude::helpers(options)
        .into_iter()
        .chain(
            rsxtrace_semantics::lod::WGSL_LIBRARY
                .iter()
                .chain(rsxtrace_semantics::border::WGSL_LIBRARY)
                .chain(crate::trig::LIBRARY)
                .map(|(n, t)| (*n, t.to_string())),
        )
        .collect();
    crate::helpers::append_used(&mut s, &library, &[&function]);
    s.push_str(&function);
    if instrument {
        s.push_str(record::WGSL);
        // The compute entry point only: a vertex stage may not write storage.
        let compute = prelude::ENTRY_POINTS
            .split("\nstruct VpVaryings")
            .next()
            .unwrap_or(prelude::ENTRY_POINTS);
        s.push_str(compute);
    } else {
        s.push_str(prelude::ENTRY_POINTS);
    }
    s
}

/// The program-counter update after the last instruction of a block (`lanes.rs` `flow`), then
/// END.
fn flow(
    out: &mut String,
    i: &rsxtrace_program::vertex::VertexInstruction,
    table_len: usize,
    options: &VertexTranslateOptions,
    ind: &str,
) {
    let next = i.slot + 1;
    let taken = match i.condition.relation {
        Relation::TR => "true".to_string(),
        Relation::FL => "false".to_string(),
        _ => format!("any({})", cc_test(i).unwrap_or_default()),
    };
    let target = i.branch_target().map_or(0, usize::from);
    let static_taken = || {
        let b = i.boolean_branch();
        let (index, if_true) = b.map_or((0, false), |b| (b.index & 31, b.if_true));
        format!(
            "((vp_params.branch_bits >> {index}u) & 1u) == {}u",
            u32::from(if_true)
        )
    };
    let call = |cond: String| {
        format!(
            "{ind}if ({cond}) {{\n{ind}    if (sp >= {depth}u) {{\n{ind}        written |= {FAULT_CALL_DEPTH}u;\n{ind}        running = false;\n{ind}    }} else {{\n{ind}        stack[sp] = {next}u;\n{ind}        sp += 1u;\n{ind}        pc = {target}u;\n{ind}    }}\n{ind}}} else {{\n{ind}    pc = {next}u;\n{ind}}}\n",
            depth = options.call_depth
        )
    };
    let text = match i.scalar {
        ScalarOpcode::Bri => format!(
            "{ind}if ({taken}) {{ pc = {target}u; }} else {{ pc = {next}u; }}\n"
        ),
        ScalarOpcode::Brb => format!(
            "{ind}if ({}) {{ pc = {target}u; }} else {{ pc = {next}u; }}\n",
            static_taken()
        ),
        ScalarOpcode::Bra => format!(
            "{ind}if ({taken}) {{\n{ind}    let t = a{}.{};\n{ind}    if (t < 0i || t >= {table_len}i) {{\n{ind}        written |= {FAULT_BRANCH_RANGE}u;\n{ind}        running = false;\n{ind}    }} else {{\n{ind}        pc = u32(t);\n{ind}    }}\n{ind}}} else {{\n{ind}    pc = {next}u;\n{ind}}}\n",
            i.address.register & 1,
            i.address.component.letter()
        ),
        // CLI: RPCS3 treats it as CAL (interpreter lanes.rs).
        ScalarOpcode::Cal | ScalarOpcode::Cli => call(taken),
        ScalarOpcode::Clb => call(static_taken()),
        ScalarOpcode::Ret => format!(
            "{ind}if ({taken}) {{\n{ind}    if (sp == 0u) {{\n{ind}        running = false;\n{ind}    }} else {{\n{ind}        sp -= 1u;\n{ind}        pc = stack[sp];\n{ind}    }}\n{ind}}} else {{\n{ind}    pc = {next}u;\n{ind}}}\n"
        ),
        _ => format!("{ind}pc = {next}u;\n"),
    };
    out.push_str(&text);
    if i.end {
        let _ = writeln!(out, "{ind}running = false;");
    }
}
