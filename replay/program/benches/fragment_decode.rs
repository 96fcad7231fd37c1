//! Fragment decode throughput, in instructions per second (criterion `Throughput::Elements`).
//!
//! Two programs:
//! - `mix`: 1024 instructions of a seeded pseudo-random mix (every ALU/texture opcode, random
//!   registers, swizzles, modifiers and conditions; about a quarter with an inline constant;
//!   an IFE/ELSE and a LOOP in every 64 instructions), so the decoder sees realistic branch
//!   patterns rather than one instruction repeated.
//! - `mad_mul`: the earlier fixed program (MAD with a constant every fourth instruction, MUL
//!   otherwise), kept for comparison with older figures.
//!
//! Words are laid out in nouveau order (rsx-microcode.md B.1) and swapped to guest order.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use rsxtrace_program::fragment::{decode, disassemble, encode, FpOpcode};
use rsxtrace_testkit::rng::XorShift64;

/// xorshift64's high halves: a fixed seed gives the same program on every run.
struct Rng(XorShift64);

impl Rng {
    fn next(&mut self) -> u32 {
        (self.0.next_u64() >> 32) as u32
    }
}

/// `SRC0` condition bits for "always": relation TR (7) at 18–20, identity swizzle 0xE4 at
/// 21–28 (B.1).
const COND_TR: u32 = (7 << 18) | (0xE4 << 21);

/// Guest bytes of nouveau-order words (each word's 16-bit halves swapped, B.1).
fn guest(words: &[u32]) -> Vec<u8> {
    words
        .iter()
        .flat_map(|w| w.rotate_left(16).to_be_bytes())
        .collect()
}

/// The random mix; returns guest bytes and the instruction count.
fn mix_program() -> (Vec<u8>, u64) {
    const COUNT: usize = 1024;
    let alu: Vec<FpOpcode> = FpOpcode::ALL
        .iter()
        .copied()
        .filter(|o| !o.is_flow())
        .collect();
    let mut rng = Rng(XorShift64(0x9E37_79B9_7F4A_7C15));
    // First pass: which instructions own a constant (so slot numbers are known for flow
    // targets). Instruction k % 64 == 0 is IFE, == 32 is LOOP; neither has a constant.
    let has_const: Vec<bool> = (0..COUNT)
        .map(|k| k % 32 != 0 && rng.next() % 4 == 0)
        .collect();
    let mut slot_of = Vec::with_capacity(COUNT + 1);
    let mut s = 0u32;
    for &c in &has_const {
        slot_of.push(s);
        s += 1 + u32::from(c);
    }
    slot_of.push(s);
    let dwords = |k: usize| slot_of[k.min(COUNT - 1)] * 4;
    let mut words = Vec::with_capacity(s as usize * 4);
    for (k, &own_const) in has_const.iter().enumerate() {
        let end = u32::from(k == COUNT - 1);
        if k % 64 == 0 {
            // IFE (0x42: 0x02 in OPDEST 24–29, SRC1 bit 31) testing NE (5) on CC0: else at
            // k + 8, end at k + 16 (B.5: absolute dword offsets).
            words.extend_from_slice(&[
                (0x02 << 24) | (1 << 30) | end,
                (5 << 18) | (0xE4 << 21),
                (1 << 31) | dwords(k + 8),
                dwords(k + 16),
            ]);
            continue;
        }
        if k % 64 == 32 {
            // LOOP (0x43): count 4, init 0, increment 1 (SRC1 2–9, 10–17, 19–26), end k + 16.
            words.extend_from_slice(&[
                (0x03 << 24) | (1 << 30) | end,
                COND_TR,
                (1 << 31) | (4 << 2) | (1 << 19),
                dwords(k + 16),
            ]);
            continue;
        }
        let op = alu[rng.next() as usize % alu.len()].value();
        let r = rng.next();
        // OPDEST: random bits 1–23 and 30–31 (register, H, CC, mask, input, texture unit,
        // precision, no_dest, saturate), the opcode in 24–29, END in bit 0.
        let w0 = (r & 0xC0FF_FFFE) | (u32::from(op & 0x3F) << 24) | end;
        // Source types 0 (temp) or 1 (input); one of them 2 (constant) when it owns one.
        let mut src = [rng.next(), rng.next(), rng.next()];
        for w in &mut src {
            *w &= !2;
        }
        if own_const {
            src[rng.next() as usize % 3] = (src[0] & !3) | 2;
        }
        // SRC1 bit 31 must be clear for a non-flow opcode.
        src[1] &= !(1 << 31);
        words.extend_from_slice(&[w0, src[0], src[1], src[2]]);
        if own_const {
            words.extend_from_slice(&[rng.next(), rng.next(), rng.next(), rng.next()]);
        }
    }
    (guest(&words), COUNT as u64)
}

/// A 1024-instruction program: MAD R0, R1, f[TEX0], {c} with its constant every fourth
/// instruction, plain MUL R0, R0, R1 otherwise; MOV R0, f[COL0] END last.
fn mad_mul_program() -> (Vec<u8>, u64) {
    let mut words: Vec<u32> = Vec::new();
    let mut count = 0u64;
    for i in 0..1023 {
        if i % 4 == 0 {
            // MAD R0, R1, f[TEX0], {c}: SRC2 type 2.
            words.extend_from_slice(&[0x04009E00, 0x1C9DC804, 0x0001C801, 0x0001C802]);
            words.extend_from_slice(&[0x3F800000, 0x3F000000, 0, 0xBF800000]);
        } else {
            words.extend_from_slice(&[0x02001E00, 0x1C9DC800, 0x0001C804, 0]);
        }
        count += 1;
    }
    words.extend_from_slice(&[0x01003E01, 0x1C9DC801, 0, 0]);
    count += 1;
    (guest(&words), count)
}

fn bench(c: &mut Criterion) {
    for (name, (bytes, count)) in [("mix", mix_program()), ("mad_mul", mad_mul_program())] {
        let decoded = decode(&bytes).expect("bench program decodes");
        assert_eq!(decoded.instructions.len() as u64, count);
        assert_eq!(encode(&decoded), bytes, "bench program round-trips");
        let mut g = c.benchmark_group(format!("fragment_{name}"));
        g.throughput(Throughput::Elements(count));
        g.bench_function("decode", |b| b.iter(|| decode(black_box(&bytes))));
        if name == "mix" {
            g.bench_function("encode", |b| b.iter(|| encode(black_box(&decoded))));
            g.bench_function("disassemble", |b| {
                b.iter(|| disassemble(black_box(&decoded)))
            });
        }
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
