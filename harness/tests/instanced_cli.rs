//! `dump` and `replay` on an instanced draw as RPCS3's recorder captures it: the colour
//! attribute has a frequency divider, the draw starts at vertex 3, and the recorder attaches
//! the attribute's elements `first..first + count` (`rsx_capture.cpp` `capture_draw_memory`,
//! which the builder follows), not the divided elements 1 and 2 the draw reads. The draw is
//! fetched, those values are `null` with a warning naming the first one's address, and the
//! exit status is 0.

use crate::cli_support;
use cli_support::*;

use rsxtrace_capture::rrc::Location;
use std::path::Path;

/// Colours at main 0x2_0000, 16 bytes each.
const COLOURS: u32 = 0x2_0000;

fn instanced(path: &Path) {
    let mut b = six_positions("instanced", 0b1001);
    let colours: Vec<u8> = (0..6)
        .flat_map(|k| [k as f32 / 8.0, 0.0, 0.0, 1.0])
        .flat_map(|v| v.to_be_bytes())
        .collect();
    b.put_memory(Location::Main, COLOURS, &colours).unwrap();
    // float4, frequency 2, divide (operation bit clear): vertex v reads element v / 2.
    b.set_vertex_array(3, 2, 4, 16, 2, Location::Main, COLOURS)
        .unwrap();
    b.set_frequency_divider_operation(0);
    b.draw_arrays(5, &[(3, 3)]).unwrap();
    b.write_rrc(path).unwrap();
}

#[test]
fn an_instanced_attribute_read_outside_the_recorded_range_is_null_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("instanced.rrc.gz");
    instanced(&path);
    let dump = json_ok(&["dump", s(&path), "--draw", "0", "--json"]);
    assert!(dump["fetch_error"].is_null(), "{dump}");
    assert_eq!(dump["unknown_attributes"], serde_json::json!([3]));
    let colour = |v: usize| dump["vertices"][v]["attributes"]["3"].clone();
    // Vertex 3 reads element 1, vertices 4 and 5 element 2: the recorder kept elements 3..6.
    for v in 0..3 {
        assert!(colour(v).is_null(), "{dump}");
    }
    assert_eq!(
        dump["vertices"][0]["attributes"]["0"],
        serde_json::json!([3.0, 0.0, 0.0, 1.0])
    );
    let out = rsxtrace(&["dump", s(&path), "--draw", "0"]);
    assert_eq!(out.status.code(), Some(0));
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let element1 = format!("{:#010x}", COLOURS + 16);
    assert!(
        text.contains(&format!(
            "attribute 3: every vertex reads array memory the capture does not hold (first 16 bytes at main+{element1})"
        )),
        "{text}"
    );
    // The frame replays, the draw rendered, not skipped.
    let png = dir.path().join("out.png");
    let out = rsxtrace(&["replay", s(&path), "--cpu", "--out", s(&png)]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("1 draws rendered, 0 skipped"), "{said}");
}
