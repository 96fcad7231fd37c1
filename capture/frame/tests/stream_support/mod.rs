//! Command lists laid out by hand for the frame-model tests: [`B`] writes method packets
//! (rrc-format.md 3.2) into an otherwise empty capture whose vertex program memory holds an
//! END at slot 0.

use rsxtrace_frame::Frame;
use rsxtrace_rrc::{Capture, ReplayCommand};

/// Header word: method byte offset in bits 2..15, method count in bits 18..28 (rrc-format.md
/// 3.2); batched arguments follow as entries with `first = 0`.
pub fn hdr(byte: u32, count: u32) -> u32 {
    byte | (count << 18)
}

/// A capture being laid out.
pub struct B {
    pub c: Capture,
}

impl B {
    pub fn new() -> B {
        let mut c = Capture::empty("t");
        // Slot 0 of program memory holds an END (word 3 bit 0) so the default start is valid.
        c.reg_state.transform_program[3] = 1;
        c.commands.push(ReplayCommand {
            first: 0x40,
            ..Default::default()
        });
        B { c }
    }

    /// One packet writing `values` to consecutive registers from `byte`.
    pub fn put(&mut self, byte: u32, values: &[u32]) {
        let n = values.len() as u32;
        for (i, v) in values.iter().enumerate() {
            self.c.commands.push(ReplayCommand {
                first: if i == 0 { hdr(byte, n) } else { 0 },
                second: *v,
                ..Default::default()
            });
        }
    }

    pub fn frame(&self) -> Frame {
        Frame::from_capture(&self.c).expect("frame decodes")
    }
}
