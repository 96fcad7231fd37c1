//! Per-fragment shading rules of a draw, decoded once from its registers
//! ([`rsxtrace_capture::frame::state::ShadingState`] and the shade mode) and shared by the CPU
//! render, the GPU render and `verify`'s fragment stage:
//!
//! - **Flat shading** (`SET_SHADE_MODE` FLAT 0x1D00): COL0 and COL1 (and BFC0/BFC1 when they
//!   replace them) take the provoking vertex's value, which is the **last** vertex of each
//!   primitive; every other input (texture coordinates, FOGC) stays interpolated. Source: PS3
//!   hardware photographs in RPCS3 PR #19251 ("rsx: Implement flat shading semantics": the
//!   cyclic ABC/CAB/BCA triangles come out in the last vertex's colour; diffuse and specular
//!   are flat while TEXCOORD0 stays smooth). The provoking vertex is the one the assembler
//!   names per primitive ([`super::Triangle::provoking`]: GL's, the last vertex of a
//!   triangle, line, quad or quad strip quad, which a quad's first triangle does not contain;
//!   the first of a polygon), carried by the renderers' geometry
//!   (`render::cpu::geometry::RasterPrim::provoking`).
//! - **Two-sided colour** (`SET_TWO_SIDE_LIGHT_EN`): back-facing primitives read vertex outputs
//!   3 BFC0 and 4 BFC1 as COL0 and COL1, front-facing ones outputs 1 and 2 (RPCS3 PR #19123
//!   "Fix reversed 2-sided lighting input registers": front → COL, back → BFC; output numbers
//!   rsx-microcode.md B.8 and RPCS3 `VKVertexProgram.cpp` `reg_table`). Facing is the
//!   triangle's winding against `SET_FRONT_FACE` as the geometry stage decides it
//!   ([`super::coverage`] states the winding frame); lines and points are front facing.
//! - **Fog** (`SET_FOG_MODE`, `SET_FOG_PARAMS`): the fragment program's FOGC input is
//!   `(c, factor(c), 0, 0)` where `c` is vertex output 5's x interpolated, and the factor is
//!   computed per fragment from the interpolated `c` and clamped to [0, 1]:
//!   linear `p1·c + (p0 − 1)`, exp `exp(11.084·(p1·c + p0 − 1.5))`, exp2
//!   `exp(−(4.709·(p1·c + p0 − 1.5))²)`, the `_ABS` variants on `|c|` (RPCS3
//!   `RSXFragmentPrologue.glsl` `fetch_fog_value`). The hardware does not blend a fog colour:
//!   NV4097 has no fog colour register, the program mixes with its own constant using FOGC.y.
//!   An unknown mode gives factor 0 (the prologue's default branch) and a warning. A mode of 0
//!   reads as LINEAR with params (1, 1), FOGC.y = c. RPCS3's captures never hold 0 there: its
//!   register file starts from its reset state, EXP with params 0 (`rsx_methods.cpp`
//!   `rsx_state::init`), which a capture's snapshot carries, as the builder's register file
//!   does; 0 comes only from captures made otherwise.
//! - **User clip planes** (`SET_USER_CLIP_PLANE_CONTROL`): plane `n`'s distance is vertex
//!   output 5 (FOGC) `.y/.z/.w` for planes 0..2 and output 6 (PSZ) `.y/.z/.w` for planes 3..5
//!   (rsx-microcode.md B.8; RPCS3 `VKVertexProgram.cpp` `reg_table`). GE keeps `d ≥ 0`, LT
//!   keeps `−d ≥ 0` (RPCS3 `fill_user_clip_data`: factor +1 for GE, −1 for LT, 0 disabled;
//!   the host then keeps `factor·d ≥ 0`; on NV40 hardware Mesa's nv30/nv40 driver enables a GL
//!   clip plane, which keeps `d ≥ 0`, by writing 2 (GE) to its field of the same register,
//!   `nv30_validate_clip`). A plane is applied only when the vertex program exports its
//!   distance (`SET_VERTEX_ATTRIB_OUTPUT_MASK` bit 6 + n, as RPCS3 writes `gl_ClipDistance[n]`
//!   only then); otherwise it is reported and ignored. Clipping is geometric, in clip space, as
//!   OpenGL specifies user clipping (GL 2.1 §2.17) and as RPCS3 gets it from the host's clip
//!   distances: the kept part of a primitive is exactly the pixels whose perspective-correct
//!   interpolated distance passes. The renderers' shared geometry applies it
//!   (`render::cpu::geometry::build`, which the GPU render and `verify` use too): filled
//!   triangles and lines (polygon-mode LINE edges too) are cut, points (polygon-mode POINT
//!   vertices too) outside a plane are dropped. An unknown plane value is disabled with a
//!   warning (RPCS3 logs "bad clip plane control" and disables it).

use super::clip::clip_by_distances;
use super::varyings::VaryingOptions;
use rsxtrace_capture::frame::state::{ClipPlaneOp, FogMode, ShadingState};
use rsxtrace_capture::frame::Draw;

/// RPCS3's exp-fog scale (`fetch_fog_value`).
const EXP_SCALE: f32 = 11.084;
/// RPCS3's exp2-fog scale (`fetch_fog_value`).
const EXP2_SCALE: f32 = 4.709;

/// The fog stage: how FOGC reaches the fragment program.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FogRule {
    /// The equation, `None` for an unknown mode (factor 0).
    pub equation: Option<FogMode>,
    /// `SET_FOG_PARAMS` (param 0, param 1).
    pub params: [f32; 2],
}

impl Default for FogRule {
    /// A mode of 0: LINEAR, params (1, 1) (see the module documentation).
    fn default() -> Self {
        FogRule {
            equation: Some(FogMode::Linear),
            params: [1.0, 1.0],
        }
    }
}

impl FogRule {
    /// Decode; the warning names an unknown mode.
    pub fn from_state(s: &ShadingState) -> (FogRule, Option<String>) {
        if s.fog_mode.raw == 0 {
            return (FogRule::default(), None);
        }
        let equation = FogMode::from_raw(s.fog_mode.raw);
        let warning = equation.is_none().then(|| {
            format!(
                "NV4097_SET_FOG_MODE = 0x{:x} is not a fog mode: FOGC.y (the fog factor) reads 0",
                s.fog_mode.raw
            )
        });
        (
            FogRule {
                equation,
                params: s.fog_params,
            },
            warning,
        )
    }

    /// The fog factor for the interpolated fog coordinate `c`, in [0, 1].
    pub fn factor(&self, c: f32) -> f32 {
        let Some(eq) = self.equation else {
            return 0.0;
        };
        let [p0, p1] = self.params;
        let c = if eq.uses_abs() { c.abs() } else { c };
        let f = match eq {
            FogMode::Linear | FogMode::LinearAbs => p1 * c + (p0 - 1.0),
            FogMode::Exp | FogMode::ExpAbs => (EXP_SCALE * (p1 * c + p0 - 1.5)).exp(),
            FogMode::Exp2 | FogMode::Exp2Abs => {
                let t = EXP2_SCALE * (p1 * c + p0 - 1.5);
                (-(t * t)).exp()
            }
        };
        f.clamp(0.0, 1.0)
    }

    /// The FOGC input for the interpolated fog coordinate `c`: `(c, factor, 0, 0)`.
    pub fn fogc(&self, c: f32) -> [f32; 4] {
        [c, self.factor(c), 0.0, 0.0]
    }

    /// [`FogRule::factor`] as a WGSL expression of the f32 expression `c`, with `lit` writing
    /// an f32 literal (the same operations in the same order).
    pub fn wgsl_factor(&self, c: &str, lit: impl Fn(f32) -> String) -> String {
        let Some(eq) = self.equation else {
            return "0.0".to_string();
        };
        let [p0, p1] = self.params;
        let c = if eq.uses_abs() {
            format!("abs({c})")
        } else {
            format!("({c})")
        };
        let f = match eq {
            FogMode::Linear | FogMode::LinearAbs => {
                format!("{} * {c} + {}", lit(p1), lit(p0 - 1.0))
            }
            FogMode::Exp | FogMode::ExpAbs => format!(
                "exp({} * ({} * {c} + {} - 1.5))",
                lit(EXP_SCALE),
                lit(p1),
                lit(p0)
            ),
            FogMode::Exp2 | FogMode::Exp2Abs => {
                let t = format!(
                    "({} * ({} * {c} + {} - 1.5))",
                    lit(EXP2_SCALE),
                    lit(p1),
                    lit(p0)
                );
                format!("exp(-({t} * {t}))")
            }
        };
        format!("clamp({f}, 0.0, 1.0)")
    }
}

/// The vertex output register and component holding user clip plane `n`'s distance (0..6).
pub fn clip_distance_register(n: usize) -> (usize, usize) {
    if n < 3 {
        (5, n + 1)
    } else {
        (6, n - 2)
    }
}

/// Whether `draw`'s vertex program writes output register `register` at all: RPCS3 routes
/// the point size and the clip distances from a register only when the decompiled program
/// declares it, which a write under the condition FL does not (`VKVertexProgram.cpp`
/// `insertMainEnd`, `HasParam`; `SetDST`). A program that does not decode counts as writing
/// it.
pub fn vertex_program_writes(draw: &Draw, register: u8) -> bool {
    rsxtrace_program::vertex::decode_from_memory(&draw.vertex_program, draw.vp_start as usize)
        .map_or(true, |p| {
            p.instructions
                .iter()
                .any(|i| i.output_written() == Some(register))
        })
}

/// The user clip planes that apply to a draw.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UserClip {
    /// Per plane: 0 not applied, +1 keep `d ≥ 0` (GE), −1 keep `−d ≥ 0` (LT).
    pub factors: [f32; 6],
}

impl UserClip {
    /// Decode from the control fields, the vertex output mask and `writes` (whether the
    /// vertex program writes an output register, [`vertex_program_writes`]); the warnings
    /// name unknown values and planes whose distance the program does not export.
    pub fn from_state(
        s: &ShadingState,
        output_mask: u32,
        writes: impl Fn(u8) -> bool,
    ) -> (UserClip, Vec<String>) {
        let mut clip = UserClip::default();
        let mut warnings = Vec::new();
        for (n, field) in s.user_clip_planes.iter().enumerate() {
            let factor = match ClipPlaneOp::from_raw(field.raw) {
                Some(ClipPlaneOp::Disabled) => continue,
                Some(ClipPlaneOp::LessThan) => -1.0,
                Some(ClipPlaneOp::GreaterOrEqual) => 1.0,
                None => {
                    warnings.push(format!(
                        "NV4097_SET_USER_CLIP_PLANE_CONTROL plane {n} = {} is not a clip \
                         operation: the plane is disabled",
                        field.raw
                    ));
                    continue;
                }
            };
            if output_mask & (1 << (6 + n)) == 0 {
                warnings.push(format!(
                    "user clip plane {n} is enabled but the vertex program does not export its \
                     distance (SET_VERTEX_ATTRIB_OUTPUT_MASK bit {}): not clipped",
                    6 + n
                ));
                continue;
            }
            let (register, _) = clip_distance_register(n);
            if !writes(register as u8) {
                // RPCS3 assigns gl_ClipDistance[n] only from a register the program writes.
                warnings.push(format!(
                    "user clip plane {n} is enabled but the vertex program never writes \
                     o[{register}], which holds its distance: not clipped, as RPCS3 does not clip"
                ));
                continue;
            }
            if let Some(f) = clip.factors.get_mut(n) {
                *f = factor;
            }
        }
        (clip, warnings)
    }

    /// Some plane applies.
    pub fn is_active(&self) -> bool {
        self.factors.iter().any(|&f| f != 0.0)
    }

    /// The signed distances (factor applied, kept where `≥ 0`) of the applied planes of one
    /// vertex, in plane order.
    pub fn distances(&self, outputs: &[[f32; 4]; 16]) -> Vec<f32> {
        (0..6)
            .filter(|&n| self.factors[n] != 0.0)
            .map(|n| {
                let (reg, comp) = clip_distance_register(n);
                self.factors[n] * outputs[reg][comp]
            })
            .collect()
    }

    /// A point survives when every applied plane keeps its vertex (NaN is outside).
    pub fn keeps_point(&self, outputs: &[[f32; 4]; 16]) -> bool {
        self.distances(outputs).iter().all(|&d| d >= 0.0)
    }

    /// The part `t0..=t1` (parameters along a→b in clip space) of a segment every applied
    /// plane keeps; `None` when nothing is left. `(0, 1)` when no plane applies.
    pub fn segment(&self, a: &[[f32; 4]; 16], b: &[[f32; 4]; 16]) -> Option<(f32, f32)> {
        let (da, db) = (self.distances(a), self.distances(b));
        let (mut t0, mut t1) = (0f32, 1f32);
        for (&p, &q) in da.iter().zip(&db) {
            let (p, q) = (nan_out(p), nan_out(q));
            match (p >= 0.0, q >= 0.0) {
                (true, true) => {}
                (false, false) => return None,
                (true, false) => t1 = t1.min(p / (p - q)),
                (false, true) => t0 = t0.max(p / (p - q)),
            }
        }
        (t0 <= t1).then_some((t0, t1))
    }

    /// Clip a triangle piece, given as barycentric weights `piece` over three vertices whose
    /// outputs are `vertices`, by the applied planes. Returns the kept pieces as weights over
    /// the same three vertices (the piece itself when no plane applies or all keep it).
    pub fn clip_piece(
        &self,
        piece: [[f32; 3]; 3],
        vertices: [&[[f32; 4]; 16]; 3],
    ) -> Vec<[[f32; 3]; 3]> {
        if !self.is_active() {
            return vec![piece];
        }
        let d = vertices.map(|o| self.distances(o));
        // Distances are linear in clip space, so a piece vertex's distance is the weighted
        // sum of the original vertices' distances.
        let planes: Vec<[f32; 3]> = (0..d[0].len())
            .map(|p| {
                piece.map(|w| {
                    nan_out(w[0] * d[0][p]) + nan_out(w[1] * d[1][p]) + nan_out(w[2] * d[2][p])
                })
            })
            .collect();
        clip_by_distances(&planes)
            .into_iter()
            .map(|sub| {
                sub.map(|s| {
                    std::array::from_fn(|j| {
                        s[0] * piece[0][j] + s[1] * piece[1][j] + s[2] * piece[2][j]
                    })
                })
            })
            .collect()
    }
}

/// NaN counts as outside.
fn nan_out(d: f32) -> f32 {
    if d.is_nan() {
        -1.0
    } else {
        d
    }
}

/// Every per-fragment shading rule of one draw.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShadingRules {
    /// `SET_SHADE_MODE` FLAT.
    pub flat: bool,
    /// `SET_TWO_SIDE_LIGHT_EN`.
    pub two_sided: bool,
    /// `SET_FLAT_SHADE_OP` non-zero: the first vertex of each primitive provokes
    /// ([`super::primitive::first_vertex_provoking`]), not the last.
    pub first_vertex_provokes: bool,
    /// The fog stage.
    pub fog: FogRule,
    /// The user clip planes.
    pub clip: UserClip,
    /// `SET_TEX_COORD_CONTROL`: bit `n` makes TEXn two-dimensional
    /// ([`super::varyings::apply_texcoord_2d`]).
    pub texcoord_2d: u16,
    /// The clear bits of `SET_VERTEX_ATTRIB_OUTPUT_MASK` ([`super::varyings::output_sent`]).
    pub outputs_off: u32,
    /// Unknown register values and ignored planes (one message each).
    pub warnings: Vec<String>,
}

impl ShadingRules {
    /// Decode a draw's rules. Shade mode 0 (never written) and 0x1D01 are smooth; another
    /// value is smooth with a warning.
    pub fn from_draw(draw: &Draw) -> ShadingRules {
        let raster = &draw.raster;
        let s = &raster.shading;
        let mut warnings = Vec::new();
        let shade = raster.modes.shade_mode.raw;
        if !matches!(shade, 0 | 0x1D00 | 0x1D01) {
            warnings.push(format!(
                "NV4097_SET_SHADE_MODE = 0x{shade:x} is not a shade mode: shaded smooth"
            ));
        }
        let (fog, fog_warning) = FogRule::from_state(s);
        warnings.extend(fog_warning);
        let (clip, clip_warnings) =
            UserClip::from_state(s, draw.output_mask, |r| vertex_program_writes(draw, r));
        warnings.extend(clip_warnings);
        ShadingRules {
            flat: shade == 0x1D00,
            two_sided: s.two_side_light,
            first_vertex_provokes: s.flat_shade_first,
            fog,
            clip,
            texcoord_2d: s.texcoord_2d,
            outputs_off: !draw.output_mask,
            warnings,
        }
    }

    /// The interpolation switches of [`super::fragment_inputs_with`].
    pub fn varyings(&self) -> VaryingOptions {
        VaryingOptions {
            two_sided_color: self.two_sided,
            flat: self.flat,
            fog: self.fog,
            texcoord_2d: self.texcoord_2d,
            outputs_off: self.outputs_off,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outputs(d: [f32; 6]) -> [[f32; 4]; 16] {
        let mut o = [[0.0, 0.0, 0.0, 1.0]; 16];
        for (n, v) in d.iter().enumerate() {
            let (r, c) = clip_distance_register(n);
            o[r][c] = *v;
        }
        o
    }

    #[test]
    fn fog_equations_follow_the_documented_formulas() {
        let rule = |eq, p0: f32, p1: f32| FogRule {
            equation: Some(eq),
            params: [p0, p1],
        };
        // GL linear fog start 2, end 10 as RSX params: p1 = −1/8, p0 − 1 = 10/8.
        let lin = rule(FogMode::Linear, 2.25, -0.125);
        assert_eq!(lin.factor(6.0), 0.5);
        assert_eq!(lin.factor(0.0), 1.0, "clamped");
        assert_eq!(lin.factor(20.0), 0.0, "clamped");
        assert_eq!(rule(FogMode::LinearAbs, 2.25, -0.125).factor(-6.0), 0.5);
        let e = rule(FogMode::Exp, 1.0, -0.1).factor(2.0);
        assert!((e - (11.084f32 * (-0.2 - 0.5)).exp()).abs() < 1e-6, "{e}");
        let e2 = rule(FogMode::Exp2, 1.5, 0.1).factor(1.0);
        assert!((e2 - (-(0.4709f32 * 0.4709)).exp()).abs() < 1e-6, "{e2}");
        assert_eq!(
            rule(FogMode::Exp2Abs, 1.5, 0.1).factor(-1.0),
            rule(FogMode::Exp2, 1.5, 0.1).factor(1.0)
        );
        assert_eq!(FogRule::default().fogc(0.25), [0.25, 0.25, 0.0, 0.0]);
        let unknown = FogRule {
            equation: None,
            params: [1.0, 1.0],
        };
        assert_eq!(unknown.fogc(0.5), [0.5, 0.0, 0.0, 0.0]);
        let w = lin.wgsl_factor("x", |v| format!("{v:?}f"));
        assert_eq!(w, "clamp(-0.125f * (x) + 1.25f, 0.0, 1.0)");
    }

    #[test]
    fn clip_planes_keep_their_side() {
        let clip = UserClip {
            factors: [1.0, 0.0, 0.0, -1.0, 0.0, 0.0],
        };
        assert!(clip.keeps_point(&outputs([0.5, -9.0, 0.0, -0.5, 0.0, 0.0])));
        assert!(!clip.keeps_point(&outputs([-0.5, 0.0, 0.0, -0.5, 0.0, 0.0])));
        assert!(!clip.keeps_point(&outputs([0.5, 0.0, 0.0, 0.5, 0.0, 0.0])));
        // Plane 0 goes from 1 to −3 along the segment: kept up to t = 0.25.
        let a = outputs([1.0, 0.0, 0.0, -1.0, 0.0, 0.0]);
        let b = outputs([-3.0, 0.0, 0.0, -1.0, 0.0, 0.0]);
        assert_eq!(clip.segment(&a, &b), Some((0.0, 0.25)));
        assert_eq!(clip.segment(&b, &a), Some((0.75, 1.0)));
        assert_eq!(clip.segment(&b, &b), None);
        // A triangle cut by plane 0 at the middle of two edges keeps a smaller triangle.
        let c = outputs([1.0, 0.0, 0.0, -1.0, 0.0, 0.0]);
        let identity = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let pieces = clip.clip_piece(identity, [&a, &b, &c]);
        let area: f32 = pieces
            .iter()
            .map(|p| {
                let (u, v) = (
                    [p[1][1] - p[0][1], p[1][2] - p[0][2]],
                    [p[2][1] - p[0][1], p[2][2] - p[0][2]],
                );
                (u[0] * v[1] - u[1] * v[0]).abs() / 2.0
            })
            .sum();
        // Kept: the region where 1 − 4·w_b ≥ 0, i.e. w_b ≤ 1/4: 1 − (3/4)² of the triangle.
        assert!((area / 0.5 - (1.0 - 0.5625)).abs() < 1e-5, "{area}");
    }
}
