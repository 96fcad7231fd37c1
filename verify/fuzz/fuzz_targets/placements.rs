//! Fuzz target: the placements file and the view-projection file (the probes' JSON inputs)
//! never panic on arbitrary bytes, and every placement they accept has a finite world matrix.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rsxtrace_verify::probe::placement::{parse_placements, parse_view_projection};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(placements) = parse_placements(text) {
        for p in placements {
            assert!(p.world.iter().flatten().all(|v| v.is_finite()), "{}", p.id);
        }
    }
    let _ = parse_view_projection(text);
});
