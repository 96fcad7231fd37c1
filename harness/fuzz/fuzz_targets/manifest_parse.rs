//! Fuzz target: arbitrary text into the CI manifest parser. It must return Ok or Err, never
//! panic; a manifest it accepts keeps the rules its validation promises.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::collections::BTreeSet;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(manifest) = rsxtrace_ci::manifest::parse(text, Path::new("suite/manifest.toml")) {
        let mut names = BTreeSet::new();
        for trace in &manifest.traces {
            assert!(names.insert(trace.name.clone()), "duplicate name accepted");
            assert!(!trace.name.is_empty() && !trace.name.starts_with('.'));
            assert!(trace.tolerance.max_mean_error.is_finite());
            assert!(trace.tolerance.max_mean_error >= 0.0);
            if let Some(draws) = trace.draws {
                assert!(draws.end.is_none_or(|end| draws.start < end));
            }
        }
    }
});
