//! Fuzz target: arbitrary bytes (compressed or not) into the RRC reader. It must return Ok or
//! Err, never panic, and never allocate beyond what the input justifies.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(capture) = rsxtrace_rrc::read_bytes(data, "fuzz.rrc") {
        // A capture that reads must also write and read back to the same model.
        let again = rsxtrace_rrc::read_bytes(&rsxtrace_rrc::write_v6_uncompressed(&capture), "x")
            .expect("re-reading written capture");
        assert_eq!(again.commands, capture.commands);
        assert_eq!(again.data, capture.data);
    }
});
