//! The reference fragment-program interpreter: executes a decoded [`FragmentProgram`] on
//! batches of 2×2 pixel quads with the RSX's arithmetic rules (rsx-microcode.md B.2–B.7).
//!
//! # Model
//!
//! - **Registers.** One 48 × 16-byte file per lane shared by R and H ([`regfile`]); H(2n),
//!   H(2n+1) are real binary16 halves of R(n). Everything starts at 0.
//! - **Results** follow RPCS3's `SetDst` order ([`exec`]): scale, the fp16 conversion for H
//!   destinations (truncation, as the hardware does, of MUL/ADD/MAD results carried to 26
//!   bits ([`carry`]), or RPCS3's nearest: [`HalfRounding`]), saturate (NaN → 0) or the
//!   precision clamp (fp16 / fx12 / fx9, with the B.2
//!   exceptions), per-component conditional write through the mask, then the CC update
//!   (the selected CC register, same components, same value).
//! - **Sources**: swizzle, abs, precision modifier, negate; COL0/COL1 are clamped to [0, 1]
//!   on read and skip the modifier; FOGC.w reads 0.
//! - **Flow**: IFE, LOOP/REP, BRK, RET are structured with per-lane active masks (`any()` of
//!   the swizzled CC test per lane); END stops every lane. KIL flags the lane as killed; the
//!   lane keeps running as a helper so derivatives stay defined.
//! - **Quads and derivatives.** Lane 0 is the top-left pixel, 1 top-right, 2 bottom-left,
//!   3 bottom-right, where "top" is the smaller image row. DDX = right − left within the
//!   lane's row; DDY = bottom − top within its column (coarse). DDY is therefore taken along
//!   increasing image rows: with WPOS.y = H − (row + 0.5) (as in [`crate::shade`]), DDY of
//!   WPOS.y is −1. Texture instructions pass the same derivatives of their coordinate.
//! - **Perspective flag** (`SRC2` bit 31): see [`PerspectiveFlag`]; inputs arrive already
//!   interpolated.
//! - **Outputs**: colours from R0/R2/R3/R4 when control bit 0x40 is set, else from
//!   H0/H4/H6/H8; depth from R1.z when `control & 0xE` (B.6).
//! - **Width**: [`Arithmetic::F32`] computes in f32, [`Arithmetic::F64`] the same rules in
//!   f64 (through [`Real`]); fp16/fixed-point rounding still applies.
//!
//! # Entry points
//!
//! [`run_fragment`] runs a slice of [`QuadInputs`]; [`run_fragment_with`] produces each
//! quad's inputs on demand (no input buffer). Both check the program first (unsupported
//! opcodes, registers, constants, flow targets: [`FragmentExecError`]), convert it once into
//! a pre-decoded form ([`compile`]) and run it on blocks of 16 quads ([`exec`]: one
//! instruction dispatch for 64 lanes, values stored component-major), blocks in parallel
//! with rayon.
//!
//! ```
//! use rsxtrace_program::fragment::decode;
//! use rsxtrace_replay::interp::fragment::{run_fragment, FragmentState, QuadInputs};
//! use rsxtrace_replay::texture::NoTextures;
//! // primitives.fpo: MOV R0, f[COL0]; END (rsx-microcode.md B.1).
//! let program = decode(&[0x3e, 0x01, 0x01, 0x00, 0xc8, 0x01, 0x1c, 0x9d,
//!                        0xc8, 0x00, 0x00, 0x01, 0xc8, 0x00, 0x3f, 0xe1]).unwrap();
//! let mut quad = QuadInputs { coverage: 0xF, ..Default::default() };
//! quad.lanes[0].attributes[1] = [0.25, 2.0, -1.0, 0.5]; // COL0, clamped on read
//! let out = run_fragment(&program, &FragmentState::new(0x40), &[quad], &NoTextures).unwrap();
//! assert_eq!(out[0].lanes[0].colors[0], [0.25, 1.0, 0.0, 0.5]);
//! ```
//!
//! [`Arithmetic::F32`]: crate::interp::Arithmetic::F32
//! [`Arithmetic::F64`]: crate::interp::Arithmetic::F64

pub mod carry;
pub mod compile;
pub mod error;
pub mod exec;
pub mod io;
pub mod ops;
pub mod options;
pub mod precision;
pub mod prepare;
pub mod real;
pub mod regfile;
pub mod rowops;
pub mod skew;
pub mod trace;
pub mod trig;

use rayon::prelude::*;
use rsxtrace_program::fragment::FragmentProgram;

pub use error::FragmentExecError;
pub use io::{attr, LaneInputs, LaneOutputs, QuadInputs, QuadOutputs, ATTRIBUTE_COUNT};
pub use options::{
    FixedPointMode, FragmentOptions, FragmentState, HalfRounding, LodOperand, LoopCounter,
    MinMaxNan, PerspectiveFlag, TrigReduction, CONTROL_32_BIT_EXPORTS, CONTROL_DEPTH_EXPORT,
};
pub use real::Real;
pub use skew::TranscendentalSkew;

use crate::interp::Arithmetic;
use crate::texture::Sampler;
use compile::Compiled;
use exec::{Engine, QUADS_PER_BLOCK};
use prepare::Prepared;

/// Runs `program` on every quad of `quads` and returns their outputs in the same order.
pub fn run_fragment(
    program: &FragmentProgram,
    state: &FragmentState,
    quads: &[QuadInputs],
    sampler: &dyn Sampler,
) -> Result<Vec<QuadOutputs>, FragmentExecError> {
    run_fragment_with(
        program,
        state,
        quads.len(),
        |i| quads.get(i).copied().unwrap_or_default(),
        sampler,
    )
}

/// Runs `program` on `quad_count` quads whose inputs `inputs(i)` produces (called once per
/// quad, from several threads), returning outputs in quad order. The first error (in quad
/// order of discovery) is returned.
pub fn run_fragment_with<F>(
    program: &FragmentProgram,
    state: &FragmentState,
    quad_count: usize,
    inputs: F,
    sampler: &dyn Sampler,
) -> Result<Vec<QuadOutputs>, FragmentExecError>
where
    F: Fn(usize) -> QuadInputs + Sync,
{
    let prepared = Prepared::new(program)?;
    let mut out = vec![QuadOutputs::default(); quad_count];
    match state.options.arithmetic {
        Arithmetic::F32 => run_blocks::<f32, F>(&prepared, state, &mut out, &inputs, sampler)?,
        Arithmetic::F64 => run_blocks::<f64, F>(&prepared, state, &mut out, &inputs, sampler)?,
    }
    Ok(out)
}

/// Runs one quad (no parallelism), e.g. for tests or callers with their own scheduling.
pub fn run_single_quad(
    program: &FragmentProgram,
    state: &FragmentState,
    quad: &QuadInputs,
    sampler: &dyn Sampler,
) -> Result<QuadOutputs, FragmentExecError> {
    let prepared = Prepared::new(program)?;
    let mut out = [QuadOutputs::default()];
    let inputs = |_| *quad;
    match state.options.arithmetic {
        Arithmetic::F32 => single::<f32>(&prepared, state, &mut out, &inputs, sampler)?,
        Arithmetic::F64 => single::<f64>(&prepared, state, &mut out, &inputs, sampler)?,
    }
    let [o] = out;
    Ok(o)
}

fn single<T: Real>(
    prepared: &Prepared<'_>,
    state: &FragmentState,
    out: &mut [QuadOutputs],
    inputs: &impl Fn(usize) -> QuadInputs,
    sampler: &dyn Sampler,
) -> Result<(), FragmentExecError> {
    let compiled = Compiled::<T>::new(prepared, &state.options)?;
    let mut engine = Engine::new(&compiled, state, sampler);
    let result = engine.run_block(0, out, inputs);
    drop(engine);
    result
}

/// Blocks of [`QUADS_PER_BLOCK`] quads in parallel, one engine (register files, scratch
/// rows) per rayon job.
fn run_blocks<T: Real, F>(
    prepared: &Prepared<'_>,
    state: &FragmentState,
    out: &mut [QuadOutputs],
    inputs: &F,
    sampler: &dyn Sampler,
) -> Result<(), FragmentExecError>
where
    F: Fn(usize) -> QuadInputs + Sync,
{
    let compiled = Compiled::<T>::new(prepared, &state.options)?;
    out.par_chunks_mut(QUADS_PER_BLOCK)
        .enumerate()
        .try_for_each_init(
            || Box::new(Engine::new(&compiled, state, sampler)),
            |engine, (b, chunk)| engine.run_block(b * QUADS_PER_BLOCK, chunk, inputs),
        )
}
