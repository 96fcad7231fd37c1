//! Seeded damage to a capture, for robustness tests and fuzz targets: what a capture written
//! by a buggy recorder, cut short or corrupted on disk looks like once it parses. Every
//! command must go on through such a capture (frame problems, per-draw problems, warnings),
//! never panic and never allocate from a damaged length.
//!
//! [`damage`] applies `edits` edits chosen by a seeded generator: argument values (biased to
//! the method headers, where the draw state is, and to values that are boundaries: 0, 1,
//! all ones, the sign bit, a neighbour of the old value), header words (count and register
//! bits, jump bits), the register-state snapshot, memory blocks (offset, location, an id that
//! is not in the map), data bytes (flipped or cut short), and commands removed or repeated.
//! The same seed always gives the same capture.

use crate::rng::Rng;
use bytes::Bytes;
use rsxtrace_rrc::Capture;

/// A number in `0..n` (0 when `n` is 0).
fn below(rng: &mut Rng, n: usize) -> usize {
    rng.below(n as u64) as usize
}

/// A value a damaged word often holds instead of `old`.
fn word(rng: &mut Rng, old: u32) -> u32 {
    match below(rng, 12) {
        0 => 0,
        1 => 1,
        2 => u32::MAX,
        3 => 0x8000_0000,
        4 => rng.next() as u32,
        5 => below(rng, 64) as u32,
        6 => old.wrapping_add(1),
        7 => old.wrapping_sub(1),
        8 => old ^ (1 << below(rng, 32)),
        9 => old.wrapping_mul(2 + below(rng, 16) as u32),
        10 => ((rng.next() as u32) << 16) | (old & 0xFFFF),
        _ => old ^ (0xFF << (8 * below(rng, 4))),
    }
}

/// A copy of `capture` with `edits` seeded edits (see the module docs).
pub fn damage(capture: &Capture, seed: u64, edits: usize) -> Capture {
    let mut c = capture.clone();
    let mut rng = Rng(seed);
    for _ in 0..edits {
        edit(&mut c, &mut rng);
    }
    c
}

fn edit(c: &mut Capture, rng: &mut Rng) {
    let commands = c.commands.len();
    match below(rng, 16) {
        // An argument: of a method header half of the time (draw state), else any entry
        // (constant and program uploads are most entries).
        0..=6 => {
            let i = if below(rng, 2) == 0 {
                let headers: Vec<usize> = (0..commands)
                    .filter(|&i| c.commands[i].first != 0)
                    .collect();
                headers.get(below(rng, headers.len())).copied().unwrap_or(0)
            } else {
                below(rng, commands)
            };
            if let Some(cmd) = c.commands.get_mut(i) {
                cmd.second = word(rng, cmd.second);
            }
        }
        // A header word: its count, its register, a jump bit, or a continuation made a header.
        7 => {
            let i = below(rng, commands);
            if let Some(cmd) = c.commands.get_mut(i) {
                cmd.first = match below(rng, 4) {
                    0 => cmd.first ^ (1 << (18 + below(rng, 11))),
                    1 => cmd.first ^ (4 << below(rng, 14)),
                    2 => cmd.first | 0x2000_0000,
                    _ => word(rng, cmd.first),
                };
            }
        }
        // The register-state snapshot.
        8 => {
            let n = c.reg_state.registers.len();
            let i = below(rng, n);
            if let Some(r) = c.reg_state.registers.get_mut(i) {
                *r = word(rng, *r);
            }
        }
        // A memory block's offset or location, or an attachment of an id not in the map.
        9 => {
            let n = c.blocks.len();
            if below(rng, 3) == 0 || n == 0 {
                let i = below(rng, commands);
                if let Some(cmd) = c.commands.get_mut(i) {
                    cmd.memory.push(0xDEAD_0000 + below(rng, 16) as u64);
                }
            } else {
                let b = &mut c.blocks[below(rng, n)].value;
                if below(rng, 2) == 0 {
                    b.offset = word(rng, b.offset);
                } else {
                    b.location = word(rng, b.location);
                }
            }
        }
        // Data bytes flipped, or a data entry cut short.
        10..=11 => {
            let n = c.data.len();
            if n == 0 {
                return;
            }
            let entry = &mut c.data[below(rng, n)].value;
            let mut bytes = entry.to_vec();
            if bytes.is_empty() {
                return;
            }
            if below(rng, 3) == 0 {
                bytes.truncate(below(rng, bytes.len()));
            } else {
                for _ in 0..1 + below(rng, 8) {
                    let at = below(rng, bytes.len());
                    bytes[at] ^= 1 << below(rng, 8);
                }
            }
            *entry = Bytes::from(bytes);
        }
        // A command removed, or repeated in place.
        12 => {
            if commands > 1 {
                c.commands.remove(1 + below(rng, commands - 1));
            }
        }
        13 => {
            let i = below(rng, commands);
            if let Some(cmd) = c.commands.get(i).cloned() {
                c.commands.insert(i, cmd);
            }
        }
        // A stretch of arguments of one packet all set to one damaged value (an upload of
        // garbage).
        _ => {
            let i = below(rng, commands);
            let value = word(rng, 0);
            for cmd in c.commands.iter_mut().skip(i).take(1 + below(rng, 16)) {
                cmd.second = value;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_rrc::ReplayCommand;

    fn sample() -> Capture {
        let mut c = Capture::empty("t");
        c.commands = (0..50)
            .map(|i| ReplayCommand {
                first: if i % 3 == 0 { 0x0004_0000 | (i * 4) } else { 0 },
                second: i,
                ..Default::default()
            })
            .collect();
        c
    }

    #[test]
    fn the_same_seed_gives_the_same_capture_and_seeds_differ() {
        let c = sample();
        assert_eq!(damage(&c, 7, 5), damage(&c, 7, 5));
        let distinct: std::collections::HashSet<_> = (0..20)
            .map(|seed| format!("{:?}", damage(&c, seed, 3).commands))
            .collect();
        assert!(distinct.len() > 15, "{}", distinct.len());
        assert_eq!(damage(&c, 7, 0), c);
    }

    #[test]
    fn an_empty_capture_takes_any_edit() {
        let c = Capture::empty("t");
        for seed in 0..500 {
            let _ = damage(&c, seed, 4);
        }
    }
}
