//! Vertex-program memory and transform constants, with the upload rules of rrc-format.md 4.5.
//!
//! Both are shared between draws with `Arc` and copied on write (`Arc::make_mut`), so a frame of
//! thousands of draws copies the 8.7 KB program only when an upload follows a draw that still
//! holds the previous version, and of the constants only the 36-constant chunks written.
//!
//! **`vp_hash`**: xxh3-64 (seed 0) of the program words from the start slot up to and including
//! the first slot whose word 3 has bit 0 (END) set, each word as 4 little-endian bytes (the
//! numeric value as stored in `transform_program`), printed as 16 lowercase hex digits. When no
//! slot from the start on has END, the hash covers the words up to the end of program memory.

use crate::problem::FrameProblem;
use crate::stream::Packet;
use std::sync::Arc;
use xxhash_rust::xxh3::xxh3_64;

/// Number of transform constants that can be written (indices 0..=467, rrc-format.md 4.5).
pub const CONSTANT_COUNT: usize = 468;

/// Constants per shared chunk of [`TransformConstants`] (468 = 13 × 36).
const CHUNK: usize = 36;

/// The transform constants, with a per-constant known flag and the command that last wrote
/// each one.
///
/// Stored as 13 chunks of 36 constants, each shared (`Arc`) and copied on write: a draw's
/// snapshot that differs from the draw before in one matrix copies one 756-byte chunk, not the
/// whole 9.8 KB file (a game frame uploads a few constants between most draws).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransformConstants {
    chunks: Vec<Arc<Chunk>>,
}

/// 36 constants: values, known flags and the command that last wrote each.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Chunk {
    values: [[u32; 4]; CHUNK],
    known: [bool; CHUNK],
    /// Command index of the last write during the frame, or [`NOT_WRITTEN`].
    written_at: [u32; CHUNK],
}

/// `written_at` of a constant no command of the frame wrote.
const NOT_WRITTEN: u32 = u32::MAX;

impl TransformConstants {
    /// Constants from the optional capture block (all known), or all unknown without it
    /// (rrc-format.md 1.9).
    pub fn initial(block: Option<&[[u32; 4]]>) -> TransformConstants {
        let block = block.unwrap_or(&[]);
        let chunks = (0..CONSTANT_COUNT.div_ceil(CHUNK))
            .map(|c| {
                let mut chunk = Chunk {
                    values: [[0u32; 4]; CHUNK],
                    known: [false; CHUNK],
                    written_at: [NOT_WRITTEN; CHUNK],
                };
                let from = block.iter().skip(c * CHUNK).take(CHUNK);
                for ((v, k), b) in chunk.values.iter_mut().zip(&mut chunk.known).zip(from) {
                    *v = *b;
                    *k = true;
                }
                Arc::new(chunk)
            })
            .collect();
        TransformConstants { chunks }
    }

    /// The chunk holding constant `i` and its place there, when `i` is below 468.
    fn at(&self, i: usize) -> Option<(&Chunk, usize)> {
        if i >= CONSTANT_COUNT {
            return None;
        }
        self.chunks.get(i / CHUNK).map(|c| (&**c, i % CHUNK))
    }

    /// The command (index in `Capture::commands`) that last wrote constant `i` during the
    /// frame, or `None` when no command did: its value, if known, is the capture's initial
    /// one (the register-state constants block, rrc-format.md 1.9), from before the frame.
    pub fn written_at(&self, i: usize) -> Option<usize> {
        self.at(i)
            .map(|(c, k)| c.written_at[k])
            .filter(|&c| c != NOT_WRITTEN)
            .map(|c| c as usize)
    }

    /// Raw IEEE bit patterns of constant `i`, if known.
    pub fn raw(&self, i: usize) -> Option<[u32; 4]> {
        self.at(i)
            .filter(|(c, k)| c.known[*k])
            .map(|(c, k)| c.values[k])
    }

    /// Constant `i` as floats, if known.
    pub fn get(&self, i: usize) -> Option<[f32; 4]> {
        self.raw(i).map(|v| v.map(f32::from_bits))
    }

    /// Whether constant `i` is known.
    pub fn is_known(&self, i: usize) -> bool {
        self.at(i).is_some_and(|(c, k)| c.known[k])
    }

    /// Number of known constants.
    pub fn known_count(&self) -> usize {
        self.chunks
            .iter()
            .map(|c| c.known.iter().filter(|k| **k).count())
            .sum()
    }

    /// The ranges of registers that may differ from `other`'s (values, known flags or last
    /// writes): those of the chunks the two do not share. Registers outside them are equal.
    pub fn may_differ<'a>(
        &'a self,
        other: &'a TransformConstants,
    ) -> impl Iterator<Item = std::ops::Range<usize>> + 'a {
        self.chunks
            .iter()
            .zip(&other.chunks)
            .enumerate()
            .filter(|(_, (a, b))| !Arc::ptr_eq(a, b))
            .map(|(c, _)| c * CHUNK..((c + 1) * CHUNK).min(CONSTANT_COUNT))
    }

    /// Write component `component` of constant `index` by command `command`. Writes past 467
    /// are dropped (returns false). A constant becomes known when any component is written
    /// during the frame (libgcm always uploads whole vec4s).
    pub fn write(&mut self, index: usize, component: usize, value: u32, command: usize) -> bool {
        if index >= CONSTANT_COUNT || component >= 4 {
            return false;
        }
        let Some(chunk) = self.chunks.get_mut(index / CHUNK) else {
            return false;
        };
        let chunk = Arc::make_mut(chunk);
        let k = index % CHUNK;
        chunk.values[k][component] = value;
        chunk.known[k] = true;
        // Command indices past u32::MAX - 1 cannot occur in a file below 16 GiB of
        // commands; saturate rather than wrap if one did.
        chunk.written_at[k] = u32::try_from(command)
            .unwrap_or(NOT_WRITTEN - 1)
            .min(NOT_WRITTEN - 1);
        true
    }
}

/// Vertex-program memory and the constant file as the method stream changes them.
#[derive(Clone, Debug)]
pub struct TransformState {
    /// Program memory (2176 words: a 2048-word capture padded).
    pub program: Arc<Vec<u32>>,
    /// Bumped on every program write, to cache hashes.
    pub program_version: u64,
    /// Constants.
    pub constants: Arc<TransformConstants>,
    /// Constant writes dropped because the index was past 467.
    pub dropped_constant_writes: u64,
}

impl TransformState {
    /// Start from the register-state snapshot.
    pub fn new(program: &[u32], constants: Option<&[[u32; 4]]>) -> TransformState {
        // A capture of 512 slots (RRC v3 to early v5, when RPCS3 emulated 512) is program
        // memory of 544 slots here, the last 32 empty: the RSX has 544 (rrc-format.md 1.6;
        // rsxtrace writes such a file for RPCS3 padded the same way, `rsxtrace_rrc::tail`).
        let mut program = program.to_vec();
        if program.len() < rsxtrace_rrc::TRANSFORM_PROGRAM_WORDS {
            program.resize(rsxtrace_rrc::TRANSFORM_PROGRAM_WORDS, 0);
        }
        TransformState {
            program: Arc::new(program),
            program_version: 0,
            constants: Arc::new(TransformConstants::initial(constants)),
            dropped_constant_writes: 0,
        }
    }

    /// Apply a `SET_TRANSFORM_PROGRAM` packet (`packet.reg` in 0x2E0..0x300): the word written
    /// to register `0xB80 + 4k` goes to `program[load*4 + k%4]`, the rest of the batch onward;
    /// then `load += (n + k%4) / 4` (rrc-format.md 4.5). `load` is the
    /// `SET_TRANSFORM_PROGRAM_LOAD` register, updated in place.
    ///
    /// Words past the end of program memory are dropped and the load advances by the words
    /// written, as RPCS3 trims such a write (`set_transform_program` in `rsx_methods.cpp`:
    /// the count is cut to the words left, a write with none left is a NOP); the returned
    /// problem names the first entry dropped.
    pub fn upload_program(&mut self, packet: &Packet<'_>, load: &mut u32) -> Option<FrameProblem> {
        let k = (packet
            .reg
            .wrapping_sub(crate::methods::reg::SET_TRANSFORM_PROGRAM)
            % 4) as u64;
        let start = *load as u64 * 4 + k;
        let n = packet.len() as u64;
        let words = self.program.len();
        let fit = (words as u64).saturating_sub(start).min(n);
        if fit > 0 {
            let program = Arc::make_mut(&mut self.program);
            let dst = &mut program[start as usize..(start + fit) as usize];
            for (d, v) in dst.iter_mut().zip(packet.values()) {
                *d = v;
            }
            self.program_version += 1;
            *load = load.wrapping_add(((fit + k) / 4) as u32);
        }
        (fit < n).then(|| FrameProblem::ProgramOverflow {
            command: packet.command_index + fit as usize,
            word: start + fit,
            words,
            dropped: n - fit,
        })
    }

    /// Apply one `SET_TRANSFORM_CONSTANT` write to register `0x1F00 + 4k`:
    /// `constants[load + k/4][k%4]`; the load register is not advanced (rrc-format.md 4.5).
    pub fn write_constant(&mut self, reg: u16, value: u32, load: u32, command: usize) {
        let k = reg.wrapping_sub(crate::methods::reg::SET_TRANSFORM_CONSTANT) as usize;
        let index = load as usize + k / 4;
        if index >= CONSTANT_COUNT {
            self.dropped_constant_writes += 1;
            return;
        }
        Arc::make_mut(&mut self.constants).write(index, k % 4, value, command);
    }
}

/// Result of scanning a vertex program from its start slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VpScan {
    /// xxh3-64 of the words (see the module docs).
    pub hash: u64,
    /// The slot with END, or `None` when none was found before the end of memory.
    pub end_slot: Option<u32>,
    /// The start slot lies outside program memory (the hash is then of no words).
    pub start_out_of_range: bool,
}

/// Hash a vertex program from `start` (see the module docs for the exact definition).
pub fn scan_vertex_program(program: &[u32], start: u32) -> VpScan {
    let slots = program.len() / 4;
    if start as usize >= slots {
        return VpScan {
            hash: xxh3_64(&[]),
            end_slot: None,
            start_out_of_range: true,
        };
    }
    let mut end_slot = None;
    let mut last = slots;
    for s in start as usize..slots {
        if program[s * 4 + 3] & 1 != 0 {
            end_slot = Some(s as u32);
            last = s + 1;
            break;
        }
    }
    let words = &program[start as usize * 4..last * 4];
    let mut bytes = Vec::with_capacity(words.len() * 4);
    for w in words {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    VpScan {
        hash: xxh3_64(&bytes),
        end_slot,
        start_out_of_range: false,
    }
}

/// Format a 64-bit hash as 16 lowercase hex digits.
pub fn hash_hex(h: u64) -> String {
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_rrc::ReplayCommand;

    fn packet(entries: &[ReplayCommand], reg: u16) -> Packet<'_> {
        Packet {
            command_index: 10,
            reg,
            non_increment: false,
            entries,
        }
    }
    fn cmds(values: &[u32]) -> Vec<ReplayCommand> {
        values
            .iter()
            .map(|&v| ReplayCommand {
                second: v,
                ..Default::default()
            })
            .collect()
    }

    #[test]
    fn program_upload_and_load_advance() {
        let mut t = TransformState::new(&vec![0; 2176], None);
        let mut load = 5;
        let c = cmds(&[1, 2, 3, 4, 5, 6]);
        assert_eq!(t.upload_program(&packet(&c, 0x2E0), &mut load), None);
        assert_eq!(&t.program[20..26], &[1, 2, 3, 4, 5, 6]);
        // n = 6, k = 0 -> load += 1.
        assert_eq!(load, 6);
        // A batch starting at register 0xB88 (k = 2) with 2 words: word at 6*4 + 2.
        let c = cmds(&[7, 8]);
        assert_eq!(t.upload_program(&packet(&c, 0x2E2), &mut load), None);
        assert_eq!(&t.program[24..28], &[5, 6, 7, 8]);
        assert_eq!(load, 7);
        // Past the end: the words that fit are written, the load advances by them, and the
        // problem names the first word dropped (RPCS3's trimming).
        let mut load = 543;
        let c = cmds(&[11, 12, 13, 14, 15, 16]);
        let e = t.upload_program(&packet(&c, 0x2E0), &mut load);
        assert_eq!(
            e,
            Some(FrameProblem::ProgramOverflow {
                command: 14,
                word: 2176,
                words: 2176,
                dropped: 2,
            })
        );
        assert_eq!(&t.program[2172..], &[11, 12, 13, 14]);
        assert_eq!(load, 544);
        // With no word left the write is a NOP and the load stays.
        let version = t.program_version;
        let e = t.upload_program(&packet(&c, 0x2E0), &mut load);
        assert!(matches!(
            e,
            Some(FrameProblem::ProgramOverflow {
                command: 10,
                dropped: 6,
                ..
            })
        ));
        assert_eq!((load, t.program_version), (544, version));
    }

    #[test]
    fn program_copy_on_write() {
        let mut t = TransformState::new(&vec![0; 2176], None);
        let held = Arc::clone(&t.program);
        let mut load = 0;
        let c = cmds(&[9]);
        assert_eq!(t.upload_program(&packet(&c, 0x2E0), &mut load), None);
        assert_eq!(held[0], 0);
        assert_eq!(t.program[0], 9);
        let before = Arc::as_ptr(&t.program);
        assert_eq!(t.upload_program(&packet(&c, 0x2E1), &mut load), None);
        assert_eq!(
            Arc::as_ptr(&t.program),
            before,
            "no copy when nobody else holds it"
        );
    }

    #[test]
    fn constants_known_and_dropped() {
        let mut t = TransformState::new(&vec![0; 2176], None);
        assert!(!t.constants.is_known(0));
        t.write_constant(0x7C0 + 5, 2.0f32.to_bits(), 32, 10);
        assert_eq!(t.constants.raw(33), Some([0, 2.0f32.to_bits(), 0, 0]));
        assert_eq!(t.constants.written_at(33), Some(10));
        assert_eq!(t.constants.written_at(32), None);
        t.write_constant(0x7C0 + 31, 1, 460, 11);
        assert!(t.constants.is_known(467));
        assert_eq!(t.constants.written_at(467), Some(11));
        t.write_constant(0x7C0 + 4, 1, 467, 12);
        assert_eq!(t.dropped_constant_writes, 1);
        assert_eq!(t.constants.written_at(468), None);
        let block = vec![[1u32, 2, 3, 4]; 512];
        let t = TransformState::new(&vec![0; 2176], Some(&block));
        assert_eq!(t.constants.known_count(), CONSTANT_COUNT);
        // Known from the initial block, written by no command of the frame.
        assert_eq!(t.constants.written_at(0), None);
    }

    #[test]
    fn constants_copy_only_the_chunk_written() {
        let block = vec![[7u32, 0, 0, 0]; 40];
        let mut c = TransformConstants::initial(Some(&block));
        assert_eq!(c.known_count(), 40);
        assert_eq!(c.raw(39), Some([7, 0, 0, 0]));
        assert_eq!(c.raw(40), None);
        let held = c.clone();
        assert!(c.write(40, 1, 5, 3));
        assert!(!c.write(CONSTANT_COUNT, 0, 5, 3));
        assert!(!c.write(0, 4, 5, 3));
        // The snapshot held keeps its values; only the written constant's chunk was copied.
        assert_eq!(held.raw(40), None);
        assert_eq!(c.raw(40), Some([0, 5, 0, 0]));
        assert_eq!(c.written_at(40), Some(3));
        let shared: Vec<bool> = c
            .chunks
            .iter()
            .zip(&held.chunks)
            .map(|(a, b)| Arc::ptr_eq(a, b))
            .collect();
        assert_eq!(shared.len(), 13);
        assert_eq!(shared.iter().filter(|s| !**s).count(), 1);
        assert!(!shared[40 / CHUNK]);
        assert_ne!(c, held);
        assert_eq!(c.known_count(), 41);
        assert_eq!(c.may_differ(&held).collect::<Vec<_>>(), vec![36..72]);
        assert_eq!(c.may_differ(&c.clone()).count(), 0);
        let unrelated = TransformConstants::initial(Some(&block));
        assert_eq!(c.may_differ(&unrelated).flatten().count(), CONSTANT_COUNT);
    }

    #[test]
    fn vp_hash_stops_at_end_slot() {
        let mut p = vec![0u32; 2176];
        p[4..8].copy_from_slice(&[0x11, 0x22, 0x33, 0x44]);
        p[8..12].copy_from_slice(&[0x55, 0x66, 0x77, 0x01]); // END in slot 2
        p[12] = 0xDEAD; // after END: not hashed
        let s = scan_vertex_program(&p, 1);
        assert_eq!(s.end_slot, Some(2));
        let mut bytes = Vec::new();
        for w in [0x11u32, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x01] {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        assert_eq!(s.hash, xxh3_64(&bytes));
        p[12] = 0xBEEF;
        assert_eq!(scan_vertex_program(&p, 1).hash, s.hash);
        assert!(scan_vertex_program(&p, 544).start_out_of_range);
        assert_eq!(scan_vertex_program(&p, 3).end_slot, None);
        assert_eq!(hash_hex(0xAB), "00000000000000ab");
    }
}
