//! What RPCS3 HEAD's reader needs of a version 6 file beyond its byte layout, applied to a
//! capture before it is written ([`for_rpcs3`]):
//!
//! - **One entry per content in each map.** RPCS3 keys all four maps by their content and
//!   reads a map entry by entry with `insert` (`utils::serial`; rrc-format.md 1.5: "the maps
//!   de-duplicate by content"), so an entry whose content repeats an earlier one's is dropped
//!   there, and a command naming its id stops the replay ("requested memory data state for
//!   command not found in memory_data_map", `rsx_replay.cpp`). Such entries are merged into
//!   the first, and every reference renamed: a block's data id, a command's blocks, tile and
//!   display-buffer states.
//! - **No transform-constants block in the tail.** RPCS3 reads that block only when its own
//!   session's `global_version` is set, which it never is when a capture is opened, so it
//!   would read the 8192 constant bytes as the first 2048 registers (rrc-format.md 1.6, 1.9).
//!   The block's 468 constants are uploaded instead by commands right after the first one, as
//!   RPCS3 records a transform-constant batch (rrc-format.md 3.2), and the constant load
//!   register is set back to its value afterwards.

use crate::model::{Capture, Entry, ReplayCommand};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::hash::Hash;

/// `NV4097_SET_TRANSFORM_CONSTANT_LOAD`, byte offset.
const CONSTANT_LOAD: u32 = 0x1EFC;
/// `NV4097_SET_TRANSFORM_CONSTANT`, byte offset of its first register.
const CONSTANT: u32 = 0x1F00;
/// Transform constants the RSX has (RPCS3 `max_transform_constants`).
const CONSTANTS: usize = 468;
/// Words of one recorded transform-constant batch (32 registers).
const BATCH_WORDS: usize = 32;

/// `capture` as RPCS3 HEAD reads it (module docs); borrowed when nothing needs changing.
pub fn for_rpcs3(capture: &Capture) -> Cow<'_, Capture> {
    let repeats = repeats_bytes(&capture.data)
        || repeats(&capture.blocks)
        || repeats(&capture.tiles)
        || repeats(&capture.display_buffers);
    let constants = capture.reg_state.transform_constants.is_some();
    if !repeats && !constants {
        return Cow::Borrowed(capture);
    }
    let mut c = capture.clone();
    if repeats {
        merge_repeats(&mut c);
    }
    if let Some(block) = c.reg_state.transform_constants.take() {
        let load = c.reg_state.registers[(CONSTANT_LOAD / 4) as usize];
        let at = usize::from(c.commands.first().is_some_and(is_nop));
        let uploads = constant_uploads(&block, load);
        c.commands.splice(at..at, uploads);
    }
    Cow::Owned(c)
}

/// A header with count 0 (the `(0x40, 0)` entry that opens every capture).
fn is_nop(c: &ReplayCommand) -> bool {
    c.first != 0 && (c.first >> 18) & 0x7FF == 0
}

fn repeats<T: Hash + Eq>(entries: &[Entry<T>]) -> bool {
    let mut seen = HashSet::with_capacity(entries.len());
    !entries.iter().all(|e| seen.insert(&e.value))
}

/// Whether two data entries hold the same bytes: compared only within equal lengths, so a
/// capture of distinct blobs costs a pass over their lengths and a few early-exit compares.
fn repeats_bytes(entries: &[Entry<bytes::Bytes>]) -> bool {
    let mut by_len: HashMap<usize, Vec<&[u8]>> = HashMap::new();
    for e in entries {
        let same = by_len.entry(e.value.len()).or_default();
        if same.iter().any(|b| *b == &e.value[..]) {
            return true;
        }
        same.push(&e.value);
    }
    false
}

/// Keep the first entry of each content; the ids of the others, renamed to its id.
fn merge<T: Hash + Eq + Clone>(entries: &mut Vec<Entry<T>>) -> HashMap<u64, u64> {
    let mut first: HashMap<T, u64> = HashMap::with_capacity(entries.len());
    let mut renamed = HashMap::new();
    entries.retain(|e| match first.get(&e.value) {
        Some(&id) => {
            renamed.insert(e.id, id);
            false
        }
        None => {
            first.insert(e.value.clone(), e.id);
            true
        }
    });
    renamed
}

fn merge_repeats(c: &mut Capture) {
    let data = merge(&mut c.data);
    for b in &mut c.blocks {
        if let Some(&id) = data.get(&b.value.data_id) {
            b.value.data_id = id;
        }
    }
    // Blocks are compared after their data ids are renamed.
    let blocks = merge(&mut c.blocks);
    let tiles = merge(&mut c.tiles);
    let displays = merge(&mut c.display_buffers);
    let rename = |names: &HashMap<u64, u64>, id: &mut u64| {
        if let Some(&to) = names.get(id) {
            *id = to;
        }
    };
    for cmd in &mut c.commands {
        if !blocks.is_empty() {
            for id in &mut cmd.memory {
                rename(&blocks, id);
            }
            // A command's blocks are a set (`unordered_set<u64>`).
            let mut seen = HashSet::new();
            cmd.memory.retain(|id| seen.insert(*id));
        }
        rename(&tiles, &mut cmd.tile_state);
        rename(&displays, &mut cmd.display_buffer_state);
    }
}

/// The commands that upload the 468 constants of `block` from register 0, as RPCS3 records a
/// batch (a header of count n, then n − 1 entries with `first` 0), then set the load register
/// back to `load`.
fn constant_uploads(block: &[[u32; 4]], load: u32) -> Vec<ReplayCommand> {
    let header = |reg: u32, count: usize, value: u32| ReplayCommand {
        first: reg | ((count as u32) << 18),
        second: value,
        ..ReplayCommand::default()
    };
    let words: Vec<u32> = (0..CONSTANTS)
        .flat_map(|k| block.get(k).copied().unwrap_or_default())
        .collect();
    let mut out = Vec::with_capacity(words.len() + 2 * words.len() / BATCH_WORDS + 2);
    for (n, batch) in words.chunks(BATCH_WORDS).enumerate() {
        out.push(header(CONSTANT_LOAD, 1, (n * BATCH_WORDS / 4) as u32));
        out.push(header(CONSTANT, batch.len(), batch[0]));
        out.extend(batch[1..].iter().map(|&w| ReplayCommand {
            second: w,
            ..ReplayCommand::default()
        }));
    }
    out.push(header(CONSTANT_LOAD, 1, load));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::MemoryBlock;

    fn block(offset: u32, data_id: u64) -> MemoryBlock {
        MemoryBlock {
            offset,
            location: 0,
            data_id,
        }
    }

    #[test]
    fn repeated_contents_are_merged_and_references_renamed() {
        let mut c = Capture::empty("t");
        c.data = vec![
            Entry {
                id: 10,
                value: bytes::Bytes::from_static(b"abcd"),
            },
            Entry {
                id: 11,
                value: bytes::Bytes::from_static(b"wxyz"),
            },
            Entry {
                id: 12,
                value: bytes::Bytes::from_static(b"abcd"),
            },
        ];
        // Block 21 repeats block 20 once its data id 12 becomes 10.
        c.blocks = vec![
            Entry {
                id: 20,
                value: block(0x100, 10),
            },
            Entry {
                id: 21,
                value: block(0x100, 12),
            },
            Entry {
                id: 22,
                value: block(0x200, 11),
            },
        ];
        c.commands = vec![ReplayCommand {
            first: 0x40,
            memory: vec![21, 20, 22],
            ..ReplayCommand::default()
        }];
        let out = for_rpcs3(&c);
        assert_eq!(out.data.iter().map(|e| e.id).collect::<Vec<_>>(), [10, 11]);
        assert_eq!(
            out.blocks.iter().map(|e| e.id).collect::<Vec<_>>(),
            [20, 22]
        );
        assert_eq!(out.commands[0].memory, [20, 22]);
        // Nothing to change: the capture is borrowed.
        assert!(matches!(for_rpcs3(&out), Cow::Borrowed(_)));
    }

    #[test]
    fn a_constants_block_becomes_uploads_after_the_first_command() {
        let mut c = Capture::empty("t");
        c.commands = vec![
            ReplayCommand {
                first: 0x40,
                ..ReplayCommand::default()
            },
            ReplayCommand {
                first: 0x1808 | 1 << 18,
                second: 5,
                ..ReplayCommand::default()
            },
        ];
        let mut k = vec![[0u32; 4]; 512];
        k[0] = [1, 2, 3, 4];
        k[467] = [9, 9, 9, 9];
        c.reg_state.transform_constants = Some(k);
        c.reg_state.registers[(CONSTANT_LOAD / 4) as usize] = 40;
        let out = for_rpcs3(&c);
        assert!(out.reg_state.transform_constants.is_none());
        let cmds = &out.commands;
        assert_eq!(cmds[0].first, 0x40);
        assert_eq!((cmds[1].first, cmds[1].second), (0x1EFC | 1 << 18, 0));
        assert_eq!((cmds[2].first, cmds[2].second), (0x1F00 | 32 << 18, 1));
        assert_eq!((cmds[3].first, cmds[3].second), (0, 2));
        // 468 constants: 58 batches of 32 words and one of 16, each after its load.
        let batches = cmds.iter().filter(|c| c.first & 0xFFFC == 0x1F00).count();
        assert_eq!(batches, 59);
        let last = &cmds[cmds.len() - 2];
        assert_eq!((last.first, last.second), (0x1EFC | 1 << 18, 40));
        assert_eq!(cmds[cmds.len() - 1].second, 5);
        assert_eq!(cmds[cmds.len() - 3].second, 9);
    }
}
