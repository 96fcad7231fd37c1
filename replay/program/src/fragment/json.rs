//! JSON form of a fragment program: `{"stage": "fragment", "slot_count": n, "instructions":
//! [...]}` with one object per instruction (never per constant slot); each holds `slot`,
//! `opcode` (the RPCS3 name) and every decoded field, the inline constant as raw bits and
//! f32 values.

use super::ir::FragmentProgram;

/// The program as a `serde_json::Value`.
pub fn to_json(program: &FragmentProgram) -> serde_json::Value {
    // Every field serialises to plain JSON types (strings, numbers, bools, arrays, maps with
    // string keys), which serde_json::to_value cannot refuse.
    serde_json::to_value(program).unwrap_or(serde_json::Value::Null)
}
