//! Texture instructions quad by quad: coordinates, derivatives and the level of detail from
//! the quad's lanes, and the sample from the unit's sampler (B.4).

use rsxtrace_program::fragment::FpOpcode;

use super::{Engine, QUADS_PER_BLOCK};
use crate::interp::fragment::compile::Op;
use crate::interp::fragment::error::FragmentExecError;
use crate::interp::fragment::ops;
use crate::interp::fragment::options::LodOperand;
use crate::interp::fragment::real::{idx4, map4, Real};
use crate::interp::fragment::regfile::LANES;
use crate::texture::{LodSource, SampleRequest};

impl<'a, T: Real> Engine<'a, T> {
    /// TEX, TXP, TXD, TXL, TXB, TEXBEM, TXPBEM (B.4), quad by quad.
    pub(super) fn texture(&mut self, op: &Op<T>, active: u64) -> Result<(), FragmentExecError> {
        for k in 0..op.sources {
            self.fetch(op, k)?;
        }
        let opcode = op.opcode;
        for q in 0..QUADS_PER_BLOCK {
            let quad_active = (active >> (q * 4)) & 0xF;
            if quad_active == 0 {
                continue;
            }
            let src: [[[T; 4]; 3]; 4] =
                idx4(|l| [0, 1, 2].map(|k| idx4(|c| self.src[k][c][(q * 4 + l) % LANES])));
            let coords: [[T; 4]; 4] = src.map(|[a, b, c]| {
                let base = match opcode {
                    // x2d = src0.xyxy + src1.xxxx·src2.xzxz + src1.yyyy·src2.ywyw, then
                    // TEX/TXP with it (RPCS3, "untested", B.4).
                    FpOpcode::Texbem | FpOpcode::Txpbem => {
                        let x = ops::bem(a, b, c);
                        // The projective variant keeps src0's q.
                        [x[0], x[1], a[2], a[3]]
                    }
                    _ => a,
                };
                match opcode {
                    // TXP divides xyz by q before sampling (RPCS3 interpreter, B.4).
                    FpOpcode::Txp | FpOpcode::Txpbem => [
                        base[0] / base[3],
                        base[1] / base[3],
                        base[2] / base[3],
                        base[3],
                    ],
                    _ => base,
                }
            });
            let top = idx4(|c| coords[1][c] - coords[0][c]);
            let bottom = idx4(|c| coords[3][c] - coords[2][c]);
            let dx = [top, top, bottom, bottom];
            let left = idx4(|c| coords[2][c] - coords[0][c]);
            let right = idx4(|c| coords[3][c] - coords[1][c]);
            let dy = [left, right, left, right];
            for l in (0..4).filter(|l| (quad_active >> l) & 1 != 0) {
                let [a, b, c] = src[l];
                let lod_value = match self.opts.lod_operand {
                    LodOperand::Src1X => b[0],
                    LodOperand::Src0W => a[3],
                };
                let lod = match opcode {
                    FpOpcode::Txl => LodSource::Explicit(lod_value.to_f32()),
                    FpOpcode::Txb => LodSource::Bias(lod_value.to_f32()),
                    // TXD: src1 = d/dx, src2 = d/dy (B.4).
                    FpOpcode::Txd => LodSource::Gradients {
                        ddx: map4(b, T::to_f32),
                        ddy: map4(c, T::to_f32),
                    },
                    _ => LodSource::Implicit,
                };
                let request = SampleRequest {
                    coord: map4(coords[l], T::to_f32),
                    ddx: map4(dx[l], T::to_f32),
                    ddy: map4(dy[l], T::to_f32),
                    lod,
                };
                // A unit's alpha kill discards the lane as KIL does (rsxtrace_semantics::shadow);
                // bx2 expands the texel before its gamma and bias (`Sampler::sample_for_bx2`).
                let (texel, kill) = if op.exp_tex {
                    self.sampler.sample_for_bx2(op.texture_unit, &request)
                } else {
                    self.sampler.sample_killing(op.texture_unit, &request)
                };
                if kill {
                    self.killed |= 1 << (q * 4 + l);
                }
                let mut v = map4(texel, T::from_f32);
                if op.exp_tex {
                    // bx2: 2x − 1 on the unit's expandable channels (B.4, RPCS3
                    // `_enable_texture_expand`; `TextureLod::bx2`).
                    let channels = self.sampler.bx2_channels(op.texture_unit);
                    for (c, x) in v.iter_mut().enumerate() {
                        if channels >> c & 1 != 0 {
                            *x = T::from_f32(2.0) * *x - T::ONE;
                        }
                    }
                }
                for (row, x) in self.res.iter_mut().zip(v) {
                    row[(q * 4 + l) % LANES] = x;
                }
            }
        }
        self.write(op, active);
        Ok(())
    }
}
