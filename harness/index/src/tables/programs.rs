//! `programs` and its three child tables, `program_constants`, `program_textures` and
//! `program_opcodes`: each distinct program once across all captures, by stage and content
//! key (the same program in two captures is one row).

use super::hex64;
use crate::cell::Cell;
use crate::facts::programs::{stage_name, ProgramFacts};
use crate::schema::{col, Table, Ty};
use rsxtrace_verify::probe::constant_layout::groups::{Group, Kind};
use rsxtrace_verify::probe::textures::Reach;

/// Names of the set bits of `bits`, space-separated, by `name`.
fn bit_names(bits: u64, name: impl Fn(u32) -> String) -> String {
    (0..64)
        .filter(|b| bits & (1 << b) != 0)
        .map(name)
        .collect::<Vec<_>>()
        .join(" ")
}

fn fp<T>(p: &ProgramFacts, f: impl Fn(&rsxtrace_verify::matching::Fingerprint) -> T) -> Option<T> {
    p.fingerprint.as_ref().ok().map(f)
}

/// The `programs` table.
pub fn table() -> Table<ProgramFacts> {
    use Ty::*;
    let c = col::<ProgramFacts>;
    Table {
        name: "programs",
        doc: "One row per distinct program (stage and content key) of every capture indexed. \
              The figures are the structural fingerprint of `rsxtrace match` \
              (`docs/batch.md`). A program that does not decode has NULL figures and its \
              `decode_error`.",
        primary_key: &["stage", "key"],
        indexes: &[],
        columns: vec![
            c("stage", Text, "`vertex` or `fragment`.", |p| stage_name(p.stage).into()),
            c("key", Text, "Content key, 16 hex digits: `draws.vp_key` or `draws.fp_key` (a fragment program's inline constants are zeroed in it, so one key covers every copy that differs only in them).", |p| hex64(p.key)),
            c("slots", Integer, "128-bit slots: vertex, from the entry through END; fragment, instructions and inline constants.", |p| p.slots.into()),
            c("instructions", Integer, "Instructions (vertex: slots; fragment: without the inline-constant slots).", |p| Cell::opt(fp(p, |f| f.instructions))),
            c("inputs", Integer, "Inputs read, bit n = input n (vertex `v[n]`; fragment WPOS=0, COL0=1, COL1=2, FOGC=3, TEX0..TEX9=4..13, FACING=14).", |p| Cell::opt(fp(p, |f| f.inputs))),
            c("input_names", Text, "The inputs read, space-separated (`v[POS] v[NRML]`, `COL0 TEX0 FOGC`).", |p| Cell::opt(fp(p, |f| bit_names(u64::from(f.inputs), |n| f.input_name(n))))),
            c("outputs", Integer, "Outputs written, bit n: vertex `o[n]`; fragment R(n) (an H register counts as the R register it aliases).", |p| Cell::opt(fp(p, |f| f.outputs as i64))),
            c("output_names", Text, "The outputs written, space-separated (`o[HPOS] o[TEX0]`, `R0 R2`).", |p| Cell::opt(fp(p, |f| bit_names(f.outputs, |n| f.output_name(n))))),
            c("texture_units", Text, "Texture units sampled, ascending, space-separated (vertex TXL units; fragment units). Per unit detail in `program_textures`.", |p| Cell::text(p.texture_units().iter().map(|t| t.0.to_string()).collect::<Vec<_>>().join(" "))),
            c("inline_constants", Integer, "Fragment: inline-constant slots (`fragment_constants` holds their values per draw); vertex: 0.", |p| p.inline_constants.into()),
            c("constants_read", Text, "Vertex: the constant registers read, space-separated (`c[32] c[33] c[A0+40]`); fragment: NULL. Per register in `program_constants`.", |p| match (p.stage, &p.fingerprint) {
                (rsxtrace_program::container::Stage::Vertex, Ok(f)) => Cell::text(f.constants.iter().map(|&c| f.constant_name(c)).collect::<Vec<_>>().join(" ")),
                _ => Cell::Null,
            }),
            c("indexed_constants", Integer, "Reads constants indexed by the address register (`c[A0+n]`: matrix palettes, bone arrays).", |p| p.indexed_constants().into()),
            c("opcodes", Text, "Opcode histogram, `NAME:count` space-separated in opcode order (vertex scalar-unit operations as `NAME(scalar)`). Per opcode in `program_opcodes`.", |p| Cell::opt(fp(p, |f| f.opcodes.iter().map(|&(k, n)| format!("{}:{n}", f.opcode_name(k).replace(" (scalar)", "(scalar)"))).collect::<Vec<_>>().join(" ")))),
            c("flow_complete", Integer, "The flow analysis followed every path, so `program_textures.reach` and `live` are exact for free conditions: fragment, no CAL and flow that nests; vertex, no BRA that may be taken (a jump to the address register's run-time value) and calls within the explored limit. 0 also when the program does not decode for the analysis.", |p| p.flow_complete.into()),
            c("decode_error", Text, "Why the program does not decode; NULL when it does.", |p| Cell::opt(p.fingerprint.as_ref().err().cloned())),
        ],
    }
}

/// A group kind's column value.
fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::MatrixRows => "matrix_rows",
        Kind::MatrixColumns => "matrix_columns",
        Kind::Scalar => "scalar",
        Kind::Vector => "vector",
    }
}

/// A row of `program_constants`.
pub struct ProgramConstantRow {
    /// Program key.
    pub key: u64,
    /// Register (or relative base).
    pub register: u16,
    /// `c[A0+register]`.
    pub relative: bool,
    /// What the program does with it: its group.
    pub group: Option<Group>,
}

/// The `program_constants` table.
pub fn constants_table() -> Table<ProgramConstantRow> {
    use Ty::*;
    let c = col::<ProgramConstantRow>;
    Table {
        name: "program_constants",
        doc: "One row per constant register a vertex program reads (fragment programs have \
              no constant registers: see `fragment_constants`).",
        primary_key: &["key", "register", "relative"],
        indexes: &[&["register"]],
        columns: vec![
            c("key", Text, "Vertex program key (`programs.key`).", |r| {
                hex64(r.key)
            }),
            c(
                "register",
                Integer,
                "Constant register 0..467 (`c[n]`), or the base `n` of a relative read `c[A0+n]`.",
                |r| r.register.into(),
            ),
            c(
                "relative",
                Integer,
                "1 for `c[A0+n]`: the register read depends on the address register at run time.",
                |r| r.relative.into(),
            ),
            c(
                "role",
                Text,
                "What the program does with the register, as `rsxtrace probe constants` tells (`docs/probes.md`): `matrix_rows` (one of consecutive registers each dotted with the same operand, the form of `mul(M, v)`), `matrix_columns` (one of consecutive registers each scaled by the next component of one vector, and the translation added after them), `scalar` (read one component at a time) or `vector`. A register read both as part of a matrix and otherwise is the matrix's. NULL when the program does not decode from memory.",
                |r| Cell::opt(r.group.as_ref().map(|g| kind_name(g.kind))),
            ),
            c(
                "group_first",
                Integer,
                "The first register (or relative base) of the register's group: a matrix's first row or column.",
                |r| Cell::opt(r.group.as_ref().map(|g| i64::from(g.first))),
            ),
            c(
                "group_count",
                Integer,
                "Registers in the group (a 4x4 matrix's rows: 4; a scalar or vector: 1).",
                |r| Cell::opt(r.group.as_ref().map(|g| i64::from(g.count))),
            ),
            c(
                "multiplies",
                Text,
                "For a matrix, the operand it multiplies as the disassembly writes it (`v[POS]`, `R1`); NULL otherwise.",
                |r| Cell::opt(r.group.as_ref().and_then(|g| g.with.clone())),
            ),
        ],
    }
}

/// A row of `program_textures`.
pub struct ProgramTextureRow {
    /// Stage name.
    pub stage: &'static str,
    /// Program key.
    pub key: u64,
    /// Unit.
    pub unit: u8,
    /// Texture instructions sampling it.
    pub instructions: u32,
    /// Flow class.
    pub reach: Option<Reach>,
    /// Liveness.
    pub live: Option<bool>,
}

/// A reach's name.
pub fn reach_name(r: Reach) -> &'static str {
    match r {
        Reach::Always => "always",
        Reach::Conditional => "conditional",
        Reach::Unreachable => "unreachable",
    }
}

/// The `program_textures` table.
pub fn textures_table() -> Table<ProgramTextureRow> {
    use Ty::*;
    let c = col::<ProgramTextureRow>;
    Table {
        name: "program_textures",
        doc: "One row per texture unit a program samples, with its flow class \
              (`rsxtrace textures` and `docs/probes.md` define the terms; vertex programs, \
              whose flow is free-form, in `docs/index.md` \"Vertex texture units\").",
        primary_key: &["stage", "key", "unit"],
        indexes: &[],
        columns: vec![
            c("stage", Text, "`vertex` or `fragment`.", |r| r.stage.into()),
            c("key", Text, "Program key (`programs.key`).", |r| hex64(r.key)),
            c("unit", Integer, "Texture unit (fragment 0..15, vertex 0..3).", |r| r.unit.into()),
            c("instructions", Integer, "Texture instructions that sample it.", |r| r.instructions.into()),
            c("reach", Text, "How those instructions are reached: `always`, `conditional` or `unreachable`. Fragment: inside IFE, a loop or after a conditional RET is `conditional`. Vertex: `always` when every path from the entry to an end passes through one, `conditional` when some path reaches one (a CC test, a boolean branch on the draw's transform branch bits, a loop), `unreachable` when no path does (a BRA that may be taken makes nothing unreachable). NULL for a vertex program the analysis could not run on.", |r| Cell::opt(r.reach.map(reach_name))),
            c("live", Integer, "1 when a texel of this unit can influence an output, the discard (fragment) or a branch that tests the CC (vertex) (conservative flow analysis); NULL as `reach`.", |r| Cell::opt(r.live)),
        ],
    }
}

/// A row of `program_opcodes`.
pub struct ProgramOpcodeRow {
    /// Stage name.
    pub stage: &'static str,
    /// Program key.
    pub key: u64,
    /// Opcode name.
    pub opcode: String,
    /// Count.
    pub count: u32,
}

/// The `program_opcodes` table.
pub fn opcodes_table() -> Table<ProgramOpcodeRow> {
    use Ty::*;
    let c = col::<ProgramOpcodeRow>;
    Table {
        name: "program_opcodes",
        doc: "One row per opcode a program uses, with how many times.",
        primary_key: &["stage", "key", "opcode"],
        indexes: &[&["opcode"]],
        columns: vec![
            c("stage", Text, "`vertex` or `fragment`.", |r| r.stage.into()),
            c("key", Text, "Program key (`programs.key`).", |r| hex64(r.key)),
            c("opcode", Text, "Opcode name (`DP4`, `TEX`, `KIL`; a vertex scalar-unit operation as `RSQ(scalar)`).", |r| Cell::text(r.opcode.clone())),
            c("count", Integer, "Instructions with this opcode (vertex: per unit that is active).", |r| r.count.into()),
        ],
    }
}
