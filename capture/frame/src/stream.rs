//! The method stream: rebuilds `(register index, value)` pairs from the recorded commands.
//!
//! Rule (rrc-format.md 3.2, mirroring `alloc_write_fifo` in RPCS3's `rsx_replay.cpp`): keep a
//! countdown. When it is 0 the entry's `first` is a method header: register index
//! `(first & 0xFFFC) >> 2`, count `(first >> 18) & 0x7FF`, non-increment flag bit 30, and its
//! `second` is argument 0. The next `count - 1` entries are continuation entries that contribute
//! only their `second`. In increment mode the register advances by one per argument. A header
//! with count 0 is a NOP (this covers the initial `(0x40, 0)` entry of every capture).
//!
//! Non-increment batches to the block-upload registers (`SET_TRANSFORM_PROGRAM[32]`,
//! `SET_TRANSFORM_CONSTANT[32]`, `NV308A_COLOR[0x700]`) fill consecutive registers too: RPCS3's
//! transform handlers (`set_transform_program`, `set_transform_constant`) take the batch's
//! following arguments as the next registers, up to the end of the register block, and its
//! replay of a capture feeds a recorded batch through them, so argument `i` of a batch at
//! register `r` goes to `r + i mod (block end − r)`. `NV308A_COLOR` is read the same way, as
//! the hardware streams an inline image (RPCS3's `nv308a::color` writes only the last word of
//! each call; docs/ci.md). Other registers take every argument of a non-increment batch.

use crate::error::StreamError;
use rsxtrace_rrc::ReplayCommand;

/// Method header bits that mark a jump, call or return (`RSX_METHOD_NON_METHOD_CMD_MASK`,
/// `gcm_enums.h`); a recorded header never has them.
const NON_METHOD_MASK: u32 = 0xA003_0003;
/// `CELL_GCM_METHOD_FLAG_NON_INCREMENT`.
const NON_INCREMENT: u32 = 0x4000_0000;
/// Highest register index (the register file has 0x4000 words).
const MAX_REG: u32 = 0x3FFF;

/// The register blocks whose handlers take a batch's arguments into consecutive registers
/// (module docs): first register and count.
const BLOCK_UPLOADS: [(u16, u16); 3] = [
    (crate::methods::reg::SET_TRANSFORM_PROGRAM, 32),
    (crate::methods::reg::SET_TRANSFORM_CONSTANT, 32),
    (
        crate::methods::reg::NV308A_COLOR,
        crate::methods::reg::NV308A_COLOR_COUNT,
    ),
];

/// For a register inside a block of [`BLOCK_UPLOADS`], the registers from it to the block's
/// end.
fn block_span(reg: u16) -> Option<u16> {
    BLOCK_UPLOADS
        .iter()
        .find(|(first, count)| (*first..first + count).contains(&reg))
        .map(|(first, count)| first + count - reg)
}

/// One method call: a value written to a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MethodCall {
    /// Index in `Capture::commands` of the entry that carried the value.
    pub command_index: usize,
    /// Register index (method byte offset / 4, subchannel bits included).
    pub reg: u16,
    /// The argument.
    pub value: u32,
}

/// One method header with its arguments: `entries[0]` is the header entry, the rest are its
/// continuation entries. Every entry's `second` is one argument.
#[derive(Clone, Copy, Debug)]
pub struct Packet<'a> {
    /// Index in `Capture::commands` of the header entry.
    pub command_index: usize,
    /// Register index of the first argument.
    pub reg: u16,
    /// All arguments go to `reg` (bit 30 of the header).
    pub non_increment: bool,
    /// The header entry and its continuation entries (never empty).
    pub entries: &'a [ReplayCommand],
}

impl<'a> Packet<'a> {
    /// Number of arguments.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Never true: count-0 headers are skipped as NOPs.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The arguments in order.
    pub fn values(&self) -> impl Iterator<Item = u32> + 'a {
        self.entries.iter().map(|e| e.second)
    }

    /// The packet as individual calls. The register cannot overflow: [`Packets`] checks it.
    pub fn calls(&self) -> impl Iterator<Item = MethodCall> + 'a {
        let (base, reg) = (self.command_index, self.reg);
        // Increment: one register per argument; non-increment: the same register, or round the
        // rest of a block-upload block (module docs).
        let span = match (self.non_increment, block_span(reg)) {
            (false, _) => None,
            (true, Some(span)) => Some(usize::from(span)),
            (true, None) => Some(1),
        };
        self.entries
            .iter()
            .enumerate()
            .map(move |(i, e)| MethodCall {
                command_index: base + i,
                // i < count and reg + count - 1 <= 0x3FFF was checked when the packet was
                // built; a span keeps the register inside its block.
                reg: reg.wrapping_add(span.map_or(i, |s| i % s) as u16),
                value: e.second,
            })
    }

    /// Whether this packet is a copy RPCS3's recorder made of `previous`'s tail rather than a
    /// batch of its own: both are non-increment batches to one block-upload register, this one
    /// follows `previous` directly and holds exactly its arguments after the first
    /// `block end − reg`. The recorder (`RSXFIFO.cpp` `run_FIFO`) records a header and every
    /// argument left each time the FIFO reaches a method, and a block upload's handler takes
    /// only `block end − reg` arguments per call (`set_transform_program::impl`), so a
    /// non-increment batch of `n` arguments is recorded as batches of `n`, `n − span`,
    /// `n − 2·span`... The game sent the arguments once.
    pub fn repeats_tail_of(&self, previous: &Packet<'_>) -> bool {
        let Some(span) = block_span(self.reg).map(usize::from) else {
            return false;
        };
        self.non_increment
            && previous.non_increment
            && self.reg == previous.reg
            && self.command_index == previous.command_index + previous.len()
            && previous.len() > span
            && self.len() == previous.len() - span
            && self.values().eq(previous.values().skip(span))
    }

    /// The packet cut where RPCS3's handler of a block upload starts again (module docs): an
    /// increment packet, or one to another register, is one piece; a non-increment packet to
    /// a block-upload register is cut every `block end − reg` arguments.
    pub fn uploads(&self) -> impl Iterator<Item = Packet<'a>> + 'a {
        let span = match (self.non_increment, block_span(self.reg)) {
            (true, Some(span)) => usize::from(span),
            _ => self.entries.len().max(1),
        };
        let (base, reg, non_increment) = (self.command_index, self.reg, self.non_increment);
        self.entries
            .chunks(span)
            .enumerate()
            .map(move |(k, entries)| Packet {
                command_index: base + k * span,
                reg,
                non_increment,
                entries,
            })
    }
}

/// Iterator over the packets of a command list. A malformed stretch yields one error and is
/// skipped: the entry the error names and the continuation entries (`first == 0`) after it;
/// the stream goes on at the next header. Two batches are the exception, their error followed
/// by the packet of the arguments they hold: one that runs off the end, and one cut short by
/// a header inside its countdown (the recorder stopped at PUT). RPCS3 ignores broken or
/// garbage commands and
/// goes on (`invalid_method` in `rsx_methods.cpp`: "Don't throw, gather information and
/// ignore broken/garbage commands").
#[derive(Clone, Debug)]
pub struct Packets<'a> {
    commands: &'a [ReplayCommand],
    pos: usize,
    /// The arguments of a batch that runs off the end or is cut short, yielded after its
    /// error.
    pending: Option<Packet<'a>>,
}

impl Packets<'_> {
    /// Go on after a malformed entry at `pos`: at the next entry after it that is a header.
    fn skip_stretch(&mut self, pos: usize) {
        self.pos = self
            .commands
            .iter()
            .skip(pos + 1)
            .position(|c| c.first != 0)
            .map_or(self.commands.len(), |k| pos + 1 + k);
    }
}

/// The packets of a recorded command list, in order; count-0 headers (NOPs) are skipped.
pub fn packets(commands: &[ReplayCommand]) -> Packets<'_> {
    Packets {
        commands,
        pos: 0,
        pending: None,
    }
}

impl<'a> Iterator for Packets<'a> {
    type Item = Result<Packet<'a>, StreamError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(packet) = self.pending.take() {
            return Some(Ok(packet));
        }
        loop {
            let pos = self.pos;
            let entry = self.commands.get(pos)?;
            let first = entry.first;
            if first == 0 {
                self.skip_stretch(pos);
                return Some(Err(StreamError::DanglingContinuation { command: pos }));
            }
            if first & NON_METHOD_MASK != 0 {
                self.skip_stretch(pos);
                return Some(Err(StreamError::NotAMethod {
                    command: pos,
                    first,
                }));
            }
            let count = (first >> 18) & 0x7FF;
            let reg = (first & 0xFFFC) >> 2;
            if count == 0 {
                self.pos = pos + 1;
                continue;
            }
            let non_increment = first & NON_INCREMENT != 0;
            // A continuation entry's `first` is always 0 (rrc-format.md 3.2): an entry with a
            // header word inside the countdown means the recorder stopped at PUT before the
            // batch's last argument. The batch ends there and that entry is the next header.
            let window = &self.commands[pos + 1..(pos + count as usize).min(self.commands.len())];
            if let Some(k) = window.iter().position(|c| c.first != 0) {
                let cut = pos + 1 + k;
                if non_increment || reg + (cut - pos) as u32 - 1 <= MAX_REG {
                    self.pending = Some(Packet {
                        command_index: pos,
                        reg: reg as u16,
                        non_increment,
                        entries: &self.commands[pos..cut],
                    });
                }
                self.pos = cut;
                return Some(Err(StreamError::ShortBatch {
                    command: pos,
                    count,
                    recorded: (cut - pos) as u32,
                }));
            }
            let available = self.commands.len() - pos;
            if count as usize > available {
                // The reader's countdown runs off the end: the entries left are the batch's
                // arguments, applied after the error that names the batch.
                if non_increment || reg + available as u32 - 1 <= MAX_REG {
                    self.pending = Some(Packet {
                        command_index: pos,
                        reg: reg as u16,
                        non_increment,
                        entries: &self.commands[pos..],
                    });
                }
                self.pos = self.commands.len();
                return Some(Err(StreamError::UnterminatedBatch {
                    command: pos,
                    count,
                    available,
                }));
            }
            if !non_increment && reg + count - 1 > MAX_REG {
                self.skip_stretch(pos);
                return Some(Err(StreamError::RegisterOverflow {
                    command: pos,
                    reg: reg as u16,
                    count,
                }));
            }
            let end = pos + count as usize;
            self.pos = end;
            return Some(Ok(Packet {
                command_index: pos,
                reg: reg as u16,
                non_increment,
                entries: &self.commands[pos..end],
            }));
        }
    }
}

/// The method calls of a command list, in order; each malformed stretch is one error in
/// their place (see [`Packets`]).
pub fn method_calls(
    commands: &[ReplayCommand],
) -> impl Iterator<Item = Result<MethodCall, StreamError>> + '_ {
    packets(commands).flat_map(
        |p| -> Box<dyn Iterator<Item = Result<MethodCall, StreamError>>> {
            match p {
                Ok(p) => Box::new(p.calls().map(Ok)),
                Err(e) => Box::new(std::iter::once(Err(e))),
            }
        },
    )
}

/// All method calls of a command list, or the first stream error (for callers that accept
/// only a well-formed stream).
pub fn collect_method_calls(commands: &[ReplayCommand]) -> Result<Vec<MethodCall>, StreamError> {
    method_calls(commands).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(first: u32, second: u32) -> ReplayCommand {
        ReplayCommand {
            first,
            second,
            ..Default::default()
        }
    }

    /// Header word for a register index, count and mode, laid out by bits (rrc-format.md 3.2).
    fn hdr(reg: u32, count: u32, non_inc: bool) -> u32 {
        (reg << 2) | (count << 18) | if non_inc { 1 << 30 } else { 0 }
    }

    #[test]
    fn initial_nop_and_count_zero_are_skipped() {
        let cmds = [cmd(0x40, 0), cmd(0x0004_1808, 5), cmd(0x0004_1000, 7)];
        // 0x40: reg 0x10 count 0 -> NOP. 0x00041808 -> reg 0x602 count 1. 0x00041000: reg 0x400, count 1.
        let calls = collect_method_calls(&cmds).unwrap();
        assert_eq!(
            calls,
            vec![
                MethodCall {
                    command_index: 1,
                    reg: 0x602,
                    value: 5
                },
                MethodCall {
                    command_index: 2,
                    reg: 0x400,
                    value: 7
                },
            ]
        );
        // A count-0 header in the middle is a NOP too.
        let cmds = [cmd(hdr(0x602, 0, false), 9), cmd(hdr(0x602, 1, false), 1)];
        assert_eq!(collect_method_calls(&cmds).unwrap().len(), 1);
    }

    #[test]
    fn increment_batch_advances_register() {
        // 0x1F00 >> 2 = 0x7C0, count 3: 0x7C0 | 3 << 18 after the shift = 0x000C_1F00.
        assert_eq!(hdr(0x7C0, 3, false), 0x000C_1F00);
        let cmds = [
            cmd(0x000C_1F00, 10),
            cmd(0, 11),
            cmd(0, 12),
            cmd(hdr(0x7BF, 1, false), 32),
        ];
        let calls = collect_method_calls(&cmds).unwrap();
        let got: Vec<_> = calls
            .iter()
            .map(|c| (c.command_index, c.reg, c.value))
            .collect();
        assert_eq!(
            got,
            vec![
                (0, 0x7C0, 10),
                (1, 0x7C1, 11),
                (2, 0x7C2, 12),
                (3, 0x7BF, 32)
            ]
        );
    }

    #[test]
    fn non_increment_batch_keeps_register() {
        assert_eq!(hdr(0x2E0, 2, true), 0x4008_0B80);
        // SET_COLOR_MASK (0x0324 >> 2 = 0xC9): every argument to the one register.
        let cmds = [cmd(hdr(0xC9, 2, true), 1), cmd(0, 2)];
        let calls = collect_method_calls(&cmds).unwrap();
        assert_eq!(calls[0].reg, 0xC9);
        assert_eq!(calls[1].reg, 0xC9);
        assert_eq!(calls[1].command_index, 1);
        let p: Vec<_> = packets(&cmds).collect::<Result<_, _>>().unwrap();
        assert_eq!(p.len(), 1);
        assert!(p[0].non_increment);
        assert_eq!(p[0].values().collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(p[0].uploads().count(), 1);
    }

    #[test]
    fn non_increment_block_uploads_fill_the_block_from_their_register() {
        // SET_TRANSFORM_CONSTANT[30] (0x7DE), four arguments, non-increment: registers 30, 31,
        // then 30, 31 again (RPCS3's handler takes up to the block's end, the next argument
        // starts again at the batch's register).
        let cmds = [cmd(hdr(0x7DE, 4, true), 1), cmd(0, 2), cmd(0, 3), cmd(0, 4)];
        let regs: Vec<u16> = collect_method_calls(&cmds)
            .unwrap()
            .iter()
            .map(|c| c.reg)
            .collect();
        assert_eq!(regs, vec![0x7DE, 0x7DF, 0x7DE, 0x7DF]);
        let p = packets(&cmds).next().unwrap().unwrap();
        let pieces: Vec<(usize, Vec<u32>)> = p
            .uploads()
            .map(|u| (u.command_index, u.values().collect()))
            .collect();
        assert_eq!(pieces, vec![(0, vec![1, 2]), (2, vec![3, 4])]);
        // SET_TRANSFORM_PROGRAM[0] and NV308A_COLOR[0], non-increment: consecutive registers.
        let cmds = [cmd(hdr(0x2E0, 3, true), 1), cmd(0, 2), cmd(0, 3)];
        let regs: Vec<u16> = collect_method_calls(&cmds)
            .unwrap()
            .iter()
            .map(|c| c.reg)
            .collect();
        assert_eq!(regs, vec![0x2E0, 0x2E1, 0x2E2]);
        let cmds = [cmd(hdr(0x2900, 2, true), 1), cmd(0, 2)];
        let regs: Vec<u16> = collect_method_calls(&cmds)
            .unwrap()
            .iter()
            .map(|c| c.reg)
            .collect();
        assert_eq!(regs, vec![0x2900, 0x2901]);
    }

    #[test]
    fn dangling_continuation_names_command() {
        let cmds = [cmd(0x40, 0), cmd(hdr(0x602, 1, false), 5), cmd(0, 6)];
        assert_eq!(
            collect_method_calls(&cmds),
            Err(StreamError::DanglingContinuation { command: 2 })
        );
    }

    #[test]
    fn open_countdown_at_end_names_header() {
        let cmds = [cmd(0x40, 0), cmd(hdr(0x7C0, 4, false), 5), cmd(0, 6)];
        assert_eq!(
            collect_method_calls(&cmds),
            Err(StreamError::UnterminatedBatch {
                command: 1,
                count: 4,
                available: 2
            })
        );
    }

    #[test]
    fn a_header_inside_a_countdown_ends_the_batch_there() {
        // A transform-constant batch announcing 4 arguments, of which the recorder kept 2
        // (it stops at PUT), then a header: the batch takes its 2 arguments, after the error
        // that names it, and the header is read as one.
        let cmds = [
            cmd(0x40, 0),
            cmd(hdr(0x7C0, 4, false), 5),
            cmd(0, 6),
            cmd(hdr(0x602, 1, false), 7),
        ];
        let items: Vec<_> = method_calls(&cmds).collect();
        let call = |command_index, reg, value| {
            Ok(MethodCall {
                command_index,
                reg,
                value,
            })
        };
        assert_eq!(
            items,
            vec![
                Err(StreamError::ShortBatch {
                    command: 1,
                    count: 4,
                    recorded: 2
                }),
                call(1, 0x7C0, 5),
                call(2, 0x7C1, 6),
                call(3, 0x602, 7),
            ]
        );
    }

    #[test]
    fn jump_and_register_overflow_rejected() {
        let cmds = [cmd(0x2000_0000 | 0x100, 0)];
        assert_eq!(
            collect_method_calls(&cmds),
            Err(StreamError::NotAMethod {
                command: 0,
                first: 0x2000_0100
            })
        );
        let cmds = [cmd(hdr(0x3FFF, 2, false), 0), cmd(0, 0)];
        assert!(matches!(
            collect_method_calls(&cmds),
            Err(StreamError::RegisterOverflow {
                command: 0,
                reg: 0x3FFF,
                count: 2
            })
        ));
        // The same in non-increment mode is fine.
        let cmds = [cmd(hdr(0x3FFF, 2, true), 0), cmd(0, 0)];
        assert_eq!(collect_method_calls(&cmds).unwrap().len(), 2);
    }

    #[test]
    fn the_stream_goes_on_at_the_next_header_after_an_error() {
        let cmds = [
            cmd(0x40, 0),
            cmd(0, 1), // dangling, with the continuation after it
            cmd(0, 2),
            cmd(hdr(0x602, 1, false), 3),
            cmd(0x2000_0100, 4), // not a method, with its continuation
            cmd(0, 5),
            cmd(hdr(0x3FFF, 2, false), 6), // past the register file
            cmd(0, 7),
            cmd(hdr(0x604, 1, false), 8),
            cmd(hdr(0x7C0, 4, false), 9), // runs off the end
            cmd(0, 10),
        ];
        let items: Vec<_> = method_calls(&cmds).collect();
        assert_eq!(
            items,
            vec![
                Err(StreamError::DanglingContinuation { command: 1 }),
                Ok(MethodCall {
                    command_index: 3,
                    reg: 0x602,
                    value: 3
                }),
                Err(StreamError::NotAMethod {
                    command: 4,
                    first: 0x2000_0100
                }),
                Err(StreamError::RegisterOverflow {
                    command: 6,
                    reg: 0x3FFF,
                    count: 2
                }),
                Ok(MethodCall {
                    command_index: 8,
                    reg: 0x604,
                    value: 8
                }),
                Err(StreamError::UnterminatedBatch {
                    command: 9,
                    count: 4,
                    available: 2
                }),
                Ok(MethodCall {
                    command_index: 9,
                    reg: 0x7C0,
                    value: 9
                }),
                Ok(MethodCall {
                    command_index: 10,
                    reg: 0x7C1,
                    value: 10
                }),
            ]
        );
    }

    #[test]
    fn never_panics_on_arbitrary_words() {
        // A small deterministic sweep over header-like words.
        let mut x: u32 = 0x1234_5678;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let cmds: Vec<_> = (0..8u32)
                .map(|i| cmd(x.rotate_left(i * 3) & 0x5FFF_FFFC, i))
                .collect();
            let _ = collect_method_calls(&cmds);
        }
    }
}
