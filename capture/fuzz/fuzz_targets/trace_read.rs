//! Fuzz the trace reader: any bytes must give an error or a capture, never a panic.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(trace) = rsxtrace_trace::Trace::from_bytes(data.to_vec()) {
        let _ = trace.to_capture();
        if let Ok(view) = trace.view() {
            if let Ok(commands) = view.commands() {
                for command in commands.flatten() {
                    let _ = command.memory.iter().count();
                }
            }
        }
    }
});
