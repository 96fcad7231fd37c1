//! The lines of a WGSL module that one instruction became: the fragment recompiler marks each
//! instruction's block with a `// <slot>: <OPCODE>` comment on its opening line
//! ([`fragment_marker`]), the vertex recompiler writes the instruction's disassembly as a
//! comment line before its block ([`vertex_marker`]); the block runs to its matching closing
//! brace.

use serde::Serialize;

/// A run of lines of a module.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Lines {
    /// Line number of the first line (1-based).
    pub first: usize,
    /// The lines, as the module has them.
    pub text: Vec<String>,
}

/// Most lines returned for one instruction.
const MOST: usize = 40;

/// The fragment recompiler's marker of slot `slot` (`{ // <slot>: ...`, the slot right
/// aligned to three places).
pub fn fragment_marker(slot: u32) -> String {
    format!("// {slot:>3}: ")
}

/// The vertex recompiler's marker of slot `slot` (the disassembly comment, `// 007: ...`).
pub fn vertex_marker(slot: u32) -> String {
    format!("// {slot:03}: ")
}

/// The first line of `source` holding `marker` and the block it opens or (for a comment line
/// alone) that follows it, through the matching `}`.
pub fn for_marker(source: &str, marker: &str) -> Option<Lines> {
    let lines: Vec<&str> = source.lines().collect();
    let start = lines.iter().position(|l| l.contains(marker))?;
    let code = |l: &str| l.split("//").next().unwrap_or("").to_string();
    let first = code(lines[start]);
    let opens_block = first.contains('{')
        || (first.trim().is_empty()
            && lines
                .get(start + 1)
                .is_some_and(|l| l.trim_start().starts_with('{')));
    let mut depth = 0i64;
    let mut end = start;
    for (k, line) in lines.iter().enumerate().skip(start) {
        let c = code(line);
        depth += c.matches('{').count() as i64 - c.matches('}').count() as i64;
        end = k;
        let inside = depth > 0 || (k == start && opens_block);
        if !inside || k + 1 - start >= MOST {
            break;
        }
    }
    Some(Lines {
        first: start + 1,
        text: lines[start..=end].iter().map(|l| l.to_string()).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_of_a_slot_is_found_through_its_closing_brace() {
        let src = "fn f() {\n    { //   3: ADD\n        let v = s0 + s1;\n        if act { r0 = v; }\n    }\n    { //  14: MUL\n    }\n    brk0 = true; //  15: BRK\n    { //  16: MOV\n    }\n}\n";
        let f = |slot| for_marker(src, &fragment_marker(slot));
        let l = f(3).unwrap();
        assert_eq!(l.first, 2);
        assert_eq!(l.text.len(), 4);
        assert_eq!(f(14).unwrap().text.len(), 2);
        assert_eq!(f(15).unwrap().text, vec!["    brk0 = true; //  15: BRK"]);
        assert!(f(4).is_none());
        let v = "case 0u: {\n    // 000: MOV o[HPOS], v[0]\n    {\n        o[0] = vin[0];\n    }\n    rsx_rec(0u);\n}\n";
        let l = for_marker(v, &vertex_marker(0)).unwrap();
        assert_eq!((l.first, l.text.len()), (2, 4));
    }
}
