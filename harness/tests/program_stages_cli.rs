//! `disasm` and `translate` of a draw whose fragment program the capture lacks: the vertex
//! program is still given (text, JSON with null in the fragment program's place, WGSL), the
//! fragment program named in a warning; asked for alone, the missing stage is an error.

use crate::cli_support;
use cli_support::*;

#[test]
fn a_draw_without_its_fragment_program_still_gives_its_vertex_program() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = six_positions("no_fp.rrc", 0b1);
    b.draw_arrays(5, &[(0, 3)]).unwrap();
    let mut capture = b.finish();
    // The fragment program's block (local 0x5_0000) moved where no draw reads it.
    let moved = capture
        .blocks
        .iter_mut()
        .filter(|e| e.value.location == 0 && e.value.offset == 0x5_0000)
        .map(|e| e.value.offset = 0x70_0000)
        .count();
    assert_eq!(moved, 1);
    let path = scene_file(dir.path(), "no_fp.rrc", &capture);
    let path = s(&path);

    let out = rsxtrace(&["disasm", path, "--draw", "0"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("; draw 0: vertex program at slot 0"),
        "{text}"
    );
    assert!(text.contains("END"), "{text}");
    let warned = String::from_utf8_lossy(&out.stderr);
    assert!(
        warned.contains("the fragment program is not in the capture")
            && warned.contains("the fragment program is left out"),
        "{warned}"
    );

    let stages = json_ok(&["disasm", path, "--draw", "0", "--json"]);
    assert_eq!(stages[0]["stage"], "vertex", "{stages}");
    assert!(stages[1].is_null(), "{stages}");

    let out = rsxtrace(&["translate", path, "--draw", "0"]);
    assert_eq!(out.status.code(), Some(0));
    let wgsl = String::from_utf8_lossy(&out.stdout);
    assert!(wgsl.contains("fn rsx_vertex"), "{wgsl}");
    assert!(!wgsl.contains("fn rsx_fragment"), "{wgsl}");

    let refused = failure(&["disasm", path, "--draw", "0", "--stage", "fragment"]);
    assert!(
        refused.contains("draw 0: the fragment program is not in the capture"),
        "{refused}"
    );
}
