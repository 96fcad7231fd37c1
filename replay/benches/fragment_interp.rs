//! Fragment interpreter throughput: pixel-instructions per second on a synthetic ALU program,
//! the wall time of `shade` for each ps3autotests `rsx_fp_static_test*` program at 720x480
//! (skipped with a "CORPUS MISSING" note when the corpus is absent), and the trace of one quad
//! through a 2,000-instruction program (`rsxtrace debug --trace`; issue 16 target < 50 ms),
//! plain and with the register file per step (what the GDB server records).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rsxtrace_program::fragment::{
    encode, AluOperands, Condition, Destination, FpOpcode, FragmentInstruction, FragmentProgram,
    InlineConstant, InputAttribute, Operands, OutputScale, Source, SourceKind,
};
use rsxtrace_replay::interp::fragment::trace::{trace_quad, trace_quad_with, TraceOptions};
use rsxtrace_replay::interp::fragment::{run_fragment, FragmentState, QuadInputs};
use rsxtrace_replay::interp::Arithmetic;
use rsxtrace_replay::shade::{load_program_file, shade};
use rsxtrace_replay::texture::NoTextures;

const ALU_OPS: u32 = 64;

/// 64 MAD/MUL/ADD instructions on R0..R3 fed by TEX0 and an inline constant.
fn synthetic_program() -> FragmentProgram {
    synthetic_program_of(ALU_OPS)
}

/// [`synthetic_program`] with `count` instructions.
fn synthetic_program_of(count: u32) -> FragmentProgram {
    let ops = [FpOpcode::Mad, FpOpcode::Mul, FpOpcode::Add, FpOpcode::Dp4];
    let mut insns = Vec::new();
    let mut slot = 0;
    for i in 0..count {
        let d = (i % 4) as u8;
        let first = if i == 0 {
            Source {
                kind: SourceKind::Input,
                ..Source::temp(0)
            }
        } else {
            Source::temp(((i + 3) % 4) as u8)
        };
        let constant = Source {
            kind: SourceKind::Constant,
            ..Source::temp(0)
        };
        insns.push(FragmentInstruction {
            slot,
            opcode: ops[i as usize % 4],
            end: i + 1 == count,
            dest: Destination::temp(d),
            input: InputAttribute(4),
            texture_unit: 0,
            exp_tex: false,
            condition: Condition::ALWAYS,
            operands: Operands::Alu(AluOperands {
                sources: [first, constant, Source::temp(d)],
                scale: OutputScale::None,
                perspective: false,
                indexed_input: false,
                input_displacement: 0,
            }),
            constant: Some(InlineConstant([0.5f32, 0.25, 1.0, -0.5].map(f32::to_bits))),
        });
        slot += 2;
    }
    let bytes = encode(&FragmentProgram::new(insns));
    rsxtrace_program::fragment::decode(&bytes).expect("synthetic program decodes")
}

fn bench(c: &mut Criterion) {
    let program = synthetic_program();
    let state = FragmentState::new(0x40);
    let quads: Vec<QuadInputs> = (0..4096)
        .map(|i| {
            let mut q = QuadInputs {
                coverage: 0xF,
                ..Default::default()
            };
            for l in &mut q.lanes {
                l.attributes[4] = [i as f32 * 1e-3, 0.5, 0.25, 1.0];
            }
            q
        })
        .collect();
    let mut g = c.benchmark_group("fragment_interp");
    g.sample_size(10);
    // Elements = pixel-instructions.
    g.throughput(Throughput::Elements(
        quads.len() as u64 * 4 * u64::from(ALU_OPS),
    ));
    g.bench_function("alu64_16k_pixels", |b| {
        b.iter(|| run_fragment(&program, &state, &quads, &NoTextures).expect("runs"))
    });
    g.finish();

    // One quad through 2,000 instructions, as `rsxtrace debug` records it.
    let long = synthetic_program_of(2_000);
    let quad = quads[7];
    let mut g = c.benchmark_group("trace");
    g.sample_size(20);
    g.bench_function("quad_2000_instructions", |b| {
        b.iter(|| trace_quad(&long, &state, &quad, &NoTextures).expect("traces"))
    });
    let with_registers = TraceOptions {
        snapshot_lane: Some(0),
        patches: Vec::new(),
    };
    g.bench_function("quad_2000_instructions_with_registers", |b| {
        b.iter(|| {
            trace_quad_with(&long, &state, &quad, &NoTextures, &with_registers).expect("traces")
        })
    });
    g.finish();

    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let dir = corpus.path("ps3autotests");
    let mut g = c.benchmark_group("shade_720x480");
    g.sample_size(10);
    for name in [
        "rsx_fp_static_test1",
        "rsx_fp_static_test2",
        "rsx_fp_static_test5",
    ] {
        let loaded = load_program_file(dir.join(format!("{name}.fpo")), &[]).expect("load");
        g.bench_function(name, |b| {
            b.iter(|| {
                shade(
                    &loaded.program,
                    loaded.control,
                    720,
                    480,
                    &NoTextures,
                    Arithmetic::F32,
                )
                .expect("shade")
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
