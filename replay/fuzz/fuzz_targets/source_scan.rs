//! Fuzz target: the program-source readers never panic on arbitrary bytes. The bytes go to
//! the executable reader (ELF/SELF parsing, header scan, symbol recovery), the loose reader
//! (whole container or scan at offsets), the pipeline-file reader for every version folder
//! and backend (sized to each layout by padding or cutting), and the raw-file name hashes.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rsxtrace_program::container::Stage;
use rsxtrace_program::source::rpcs3_cache::{name_hash, read_pipeline};
use rsxtrace_program::source::{executable, loose, scan};
use std::path::Path;

const VERSIONS: [&str; 6] = ["v1.91", "v1.92", "v1.93", "v1.94", "v1.95", "v9"];
const SIZES: [usize; 8] = [216, 224, 232, 648, 656, 664, 672, 100];

fuzz_target!(|data: &[u8]| {
    let path = Path::new("fuzz");
    let report = scan::scan(data);
    for hit in &report.hits {
        assert!(hit.offset + hit.len <= data.len() as u64);
    }
    let (programs, _) = executable::read(path, data);
    for p in &programs {
        assert_eq!(p.ucode.len() % 16, 0);
    }
    let _ = loose::read(path, data);
    // An ELF/SELF prefix in front of the same bytes reaches the executable paths.
    let mut elf = b"\x7fELF\x02\x02".to_vec();
    elf.extend_from_slice(data);
    let _ = executable::read(path, &elf);
    for backend in ["opengl", "vulkan"] {
        for version in VERSIONS {
            for size in SIZES {
                let mut bytes = data.to_vec();
                bytes.resize(size, 0);
                if let Ok(r) = read_pipeline(path, backend, version, &bytes) {
                    assert!(r.state.vp_jump_table.len() <= 32);
                }
            }
            let _ = read_pipeline(path, backend, version, data);
        }
    }
    for stage in [Stage::Vertex, Stage::Fragment] {
        let _ = name_hash::checksum(stage, data);
        let _ = name_hash::fnv_name(stage, data, None);
        let _ = name_hash::fnv_name(stage, data, Some(&[u64::MAX, 0, 1]));
    }
});
