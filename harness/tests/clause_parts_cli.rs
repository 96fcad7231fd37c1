//! `draws`, `dump` and `report` on a BEGIN/END whose vertex base offset changes between two ranges
//! (RPCS3's execution barrier, the frame model's draw parts): two draws with `part` 0 and 1,
//! the second reading its vertices at the new base.

use crate::cli_support;
use cli_support::*;

use std::path::Path;

/// Register indices (byte offset / 4).
const BEGIN_END: u32 = 0x1808 / 4;
const DRAW_ARRAYS: u32 = 0x1814 / 4;
const BASE_OFFSET: u32 = 0x1738 / 4;

/// Six float3 positions (x = 0..6); draw 0 (all six) attaches them; then one clause draws
/// vertices 0..3 at base 0 and again at base 3 vertices.
fn split_clause(path: &Path) {
    let mut b = six_positions("clause", 0b1);
    b.draw_arrays(5, &[(0, 6)]).unwrap();
    b.method(BEGIN_END, 5).unwrap();
    b.method(DRAW_ARRAYS, 2 << 24).unwrap();
    b.method(BASE_OFFSET, 36).unwrap();
    b.method(DRAW_ARRAYS, 2 << 24).unwrap();
    b.method(BEGIN_END, 0).unwrap();
    b.write_rrc(path).unwrap();
}

#[test]
fn the_parts_of_a_split_clause_are_listed_and_dumped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("clause.rrc.gz");
    split_clause(&path);
    let draws = json_ok(&["draws", s(&path), "--json"]);
    let parts: Vec<(u64, u64)> = draws
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["part"].as_u64().unwrap(),
                d["end_command"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(parts.len(), 3);
    assert_eq!((parts[1].0, parts[2].0), (0, 1));
    assert_eq!(parts[1].1, parts[2].1, "the parts share the END");
    let text = String::from_utf8(rsxtrace(&["draws", s(&path)]).stdout).unwrap();
    assert!(text.contains(&format!("{} part 1", parts[2].1)), "{text}");
    // Part 1's first vertex is the fourth position (base offset 36 bytes).
    let dump = json_ok(&["dump", s(&path), "--draw", "2", "--json"]);
    assert_eq!(dump["draw"]["part"], 1);
    assert_eq!(dump["vertices"][0]["attributes"]["0"][0], 3.0);
    let part0 = json_ok(&["dump", s(&path), "--draw", "1", "--json"]);
    assert_eq!(part0["vertices"][0]["attributes"]["0"][0], 0.0);
    let text = String::from_utf8(rsxtrace(&["dump", s(&path), "--draw", "2"]).stdout).unwrap();
    assert!(text.contains("part 1 of its BEGIN/END"), "{text}");
    // The report's page of the draw says so too.
    let site = dir.path().join("site");
    let out = rsxtrace(&["report", s(&path), "--html", s(&site), "--quiet"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(site.join("draws/draw-00002.html")).expect("page");
    assert!(page.contains("part 1 of its BEGIN/END"), "{page}");
}
