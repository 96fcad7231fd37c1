//! The body of `rsx_fragment`: walks the instructions exactly as the reference interpreter's
//! `exec::Quad::block` does and emits predicated WGSL.
//!
//! # Why predication
//!
//! The interpreter runs the four lanes of a quad in lockstep with per-lane active masks
//! (IF/ELSE, loops, BRK, RET), and DDX/DDY and implicit texture LODs read the current values of
//! all four lanes, active or not. The WGSL reproduces that model: every lane executes every
//! instruction; a lane's writes (registers, condition codes, `killed`) are masked with its
//! activity (`act`), IF/ELSE blocks are scopes with their own masks, LOOP/REP are `for` loops
//! with the constant trip count (BRK masks the lane for the rest of the loop), RET masks the
//! lane for the rest of the program. Control flow therefore stays uniform, which WGSL requires
//! for `dpdxFine`/`dpdyFine`, and inactive lanes contribute their registers to derivatives
//! exactly like the interpreter's inactive lanes.
//!
//! END inside a construct stops the whole quad in the interpreter once any lane reaches it; the
//! WGSL computes that quad-wide `any` from fine derivatives (`rsx_quad_any`).

use std::fmt::Write as _;

use rsxtrace_program::fragment::{
    AluOperands, FlowKind, FpOpcode, FragmentInstruction, FragmentProgram, OutputScale, Precision,
    Relation,
};

use super::ops::{self, register_of, Uses, COMPONENTS, R_COUNT};
use super::options::{FragmentTranslateOptions, HalfRounding, LodOperand, LoopCounter, TextureDim};
use crate::TranslateError;

/// Deepest IF/LOOP nesting translated (the interpreter's `exec::MAX_NESTING`).
pub const MAX_NESTING: usize = 64;
/// Most instructions emitted for one program (a program whose flow targets overlap can make
/// the interpreter's walk revisit instructions; this bounds the emitted text).
pub const MAX_EMITTED: usize = 1 << 16;

/// The block context: the mask of the enclosing construct, the BRK flag of the innermost loop.
#[derive(Clone)]
struct Ctx {
    mask: String,
    brk: String,
    depth: usize,
}

/// The emitted body and what it uses.
pub struct Body {
    /// WGSL statements (inside `rsx_fragment`).
    pub text: String,
    /// R registers touched.
    pub uses: Uses,
    /// Texture units sampled (bit n = unit n).
    pub units: u16,
}

/// Emits the body of `rsx_fragment` for `program`.
pub fn body(
    program: &FragmentProgram,
    opts: &FragmentTranslateOptions,
) -> Result<Body, TranslateError> {
    if program.instructions.is_empty() {
        return Err(TranslateError::Unsupported {
            slot: 0,
            what: "an empty program".into(),
        });
    }
    let mut e = Emitter::new(program, opts, false);
    e.run()?;
    if e.saw_nested_end {
        e = Emitter::new(program, opts, true);
        e.run()?;
    }
    Ok(Body {
        text: e.out,
        uses: e.uses,
        units: e.units,
    })
}

struct Emitter<'a> {
    insns: &'a [FragmentInstruction],
    opts: &'a FragmentTranslateOptions,
    out: String,
    indent: usize,
    uses: Uses,
    units: u16,
    next_id: usize,
    emitted: usize,
    /// Whether activity includes `!ended` (a nested END exists).
    track_end: bool,
    /// Whether activity includes `!ret` (the program has a RET; otherwise `ret` stays false).
    track_ret: bool,
    /// Whether activity includes the BRK flag (the program has a BRK; otherwise every BRK flag
    /// stays false).
    track_brk: bool,
    saw_nested_end: bool,
}

fn unsupported(insn: &FragmentInstruction, what: impl Into<String>) -> TranslateError {
    TranslateError::Unsupported {
        slot: insn.slot as usize,
        what: what.into(),
    }
}

/// The per-component condition test (B.2): `ccN.swizzle REL 0`, IEEE comparisons.
fn condition(insn: &FragmentInstruction) -> String {
    let c = &insn.condition;
    let op = match c.relation {
        Relation::Fl => return "vec4<bool>(false)".into(),
        Relation::Tr => return "vec4<bool>(true)".into(),
        Relation::Lt => "<",
        Relation::Eq => "==",
        Relation::Le => "<=",
        Relation::Gt => ">",
        Relation::Ne => "!=",
        Relation::Ge => ">=",
    };
    let cc = format!("cc{}.{}", c.cc & 1, c.swizzle);
    // NE holds for a NaN: tested on the bits, as the device may assume NaNs away in `!=`
    // (lavapipe evaluates `NaN != 0.0` as false; replay/tests/gpu_vertex_ops.rs).
    if op == "!=" {
        return format!("(({cc} != vec4<f32>(0.0)) | rsx_isnan({cc}))");
    }
    format!("({cc} {op} vec4<f32>(0.0))")
}

impl<'a> Emitter<'a> {
    fn new(
        program: &'a FragmentProgram,
        opts: &'a FragmentTranslateOptions,
        track_end: bool,
    ) -> Self {
        Emitter {
            insns: &program.instructions,
            opts,
            out: String::new(),
            indent: 1,
            uses: Uses::default(),
            units: 0,
            next_id: 0,
            emitted: 0,
            track_end,
            track_ret: program
                .instructions
                .iter()
                .any(|i| i.flow().is_some_and(|f| matches!(f.kind, FlowKind::Ret))),
            track_brk: program
                .instructions
                .iter()
                .any(|i| i.flow().is_some_and(|f| matches!(f.kind, FlowKind::Brk))),
            saw_nested_end: false,
        }
    }

    fn run(&mut self) -> Result<(), TranslateError> {
        let top = Ctx {
            mask: "true".into(),
            brk: "brk0".into(),
            depth: 0,
        };
        self.block(0, u32::MAX, &top).map(|_| ())
    }

    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn id(&mut self) -> usize {
        self.next_id += 1;
        self.next_id
    }

    /// Index of the instruction at slot `target`, or past-the-end when `target` lies beyond
    /// the last instruction (interpreter `prepare::Prepared::index_of`).
    fn index_of(&self, target: u32, from: &FragmentInstruction) -> Result<usize, TranslateError> {
        match self.insns.binary_search_by_key(&target, |i| i.slot) {
            Ok(i) => Ok(i),
            Err(i) if i == self.insns.len() => Ok(i),
            Err(_) => Err(unsupported(
                from,
                format!("flow target slot {target}, which is not an instruction"),
            )),
        }
    }

    /// The lane's activity: the construct's mask and the flags that can be set (a flag no
    /// instruction sets is left out; `true` when nothing can deactivate the lane).
    fn activity(&self, ctx: &Ctx) -> String {
        let mut parts: Vec<String> = Vec::with_capacity(4);
        if ctx.mask != "true" {
            parts.push(ctx.mask.clone());
        }
        if self.track_ret {
            parts.push("!ret".into());
        }
        if self.track_brk {
            parts.push(format!("!{}", ctx.brk));
        }
        if self.track_end {
            parts.push("!ended".into());
        }
        if parts.is_empty() {
            "true".into()
        } else {
            parts.join(" && ")
        }
    }

    /// Emits the instructions from index `i` while their slot is below `end_slot` (interpreter
    /// `block`). Returns true when an END stopped the walk.
    fn block(&mut self, mut i: usize, end_slot: u32, ctx: &Ctx) -> Result<bool, TranslateError> {
        while let Some(insn) = self.insns.get(i) {
            if insn.slot >= end_slot {
                break;
            }
            self.emitted += 1;
            if self.emitted > MAX_EMITTED {
                return Err(unsupported(
                    insn,
                    format!("flow that needs more than {MAX_EMITTED} emitted instructions"),
                ));
            }
            let act = self.activity(ctx);
            if let Some(flow) = insn.flow() {
                match flow.kind {
                    FlowKind::Ife {
                        else_slot,
                        end_slot: end,
                    } => {
                        if !(insn.slot < else_slot && else_slot <= end) {
                            return Err(unsupported(
                                insn,
                                format!("IFE with else {else_slot} / end {end} not after it"),
                            ));
                        }
                        let inner = self.nested(insn, ctx)?;
                        let n = self.id();
                        self.line(&format!("{{ // {:>3}: IFE", insn.slot));
                        self.indent += 1;
                        self.line(&format!("let act = {act};"));
                        self.line(&format!("let t{n} = act && any({});", condition(insn)));
                        self.line(&format!("let e{n} = act && !t{n};"));
                        let body = Ctx {
                            mask: format!("t{n}"),
                            ..inner.clone()
                        };
                        self.block(i + 1, else_slot, &body)?;
                        if else_slot < end {
                            let j = self.index_of(else_slot, insn)?;
                            let other = Ctx {
                                mask: format!("e{n}"),
                                ..inner
                            };
                            self.block(j, end, &other)?;
                        }
                        self.indent -= 1;
                        self.line("}");
                        if insn.end {
                            self.end(ctx, &act);
                            return Ok(true);
                        }
                        i = self.index_of(end, insn)?;
                        continue;
                    }
                    FlowKind::Loop(l) | FlowKind::Rep(l) => {
                        if l.end_slot <= insn.slot {
                            return Err(unsupported(
                                insn,
                                format!("loop end {} not after it", l.end_slot),
                            ));
                        }
                        let inner = self.nested(insn, ctx)?;
                        let n = self.id();
                        self.line(&format!(
                            "{{ // {:>3}: {} count {} init {} increment {}",
                            insn.slot, insn.opcode, l.count, l.init, l.increment
                        ));
                        self.indent += 1;
                        // Entered on the lanes its condition passes (`any()`, as IFE).
                        self.line(&format!("let lm{n} = ({act}) && any({});", condition(insn)));
                        self.line(&format!("let sa{n} = a0;"));
                        self.line(&format!("var brk{n} = false;"));
                        self.line(&format!(
                            "for (var k{n}: i32 = 0; k{n} < {}; k{n} += 1) {{",
                            l.count
                        ));
                        self.indent += 1;
                        // A0 (B.5): the iteration number (RPCS3) or init + k × increment.
                        match self.opts.loop_counter {
                            LoopCounter::Iteration => self.line(&format!("a0 = k{n};")),
                            LoopCounter::InitIncrement => {
                                self.line(&format!("a0 = {} + k{n} * {};", l.init, l.increment))
                            }
                        }
                        let body = Ctx {
                            mask: format!("lm{n}"),
                            brk: format!("brk{n}"),
                            depth: inner.depth,
                        };
                        self.block(i + 1, l.end_slot, &body)?;
                        self.indent -= 1;
                        self.line("}");
                        self.line(&format!("a0 = sa{n};"));
                        self.indent -= 1;
                        self.line("}");
                        if insn.end {
                            self.end(ctx, &act);
                            return Ok(true);
                        }
                        i = self.index_of(l.end_slot, insn)?;
                        continue;
                    }
                    // BRK leaves the innermost loop; outside a loop it stops the lane like
                    // RET (interpreter `block`).
                    FlowKind::Brk => {
                        let b = ctx.brk.clone();
                        self.line(&format!(
                            "{b} = {b} || (({act}) && any({})); // {:>3}: BRK",
                            condition(insn),
                            insn.slot
                        ));
                    }
                    FlowKind::Ret => self.line(&format!(
                        "ret = ret || (({act}) && any({})); // {:>3}: RET",
                        condition(insn),
                        insn.slot
                    )),
                    FlowKind::Cal { .. } => {
                        return Err(unsupported(insn, "CAL (unimplemented in RPCS3, B.5)"))
                    }
                }
            } else {
                self.instruction(insn, &act)?;
            }
            if insn.end {
                self.end(ctx, &act);
                return Ok(true);
            }
            i += 1;
        }
        Ok(false)
    }

    fn nested(&self, insn: &FragmentInstruction, ctx: &Ctx) -> Result<Ctx, TranslateError> {
        if ctx.depth >= MAX_NESTING {
            return Err(unsupported(
                insn,
                format!("flow nested deeper than {MAX_NESTING}"),
            ));
        }
        Ok(Ctx {
            depth: ctx.depth + 1,
            ..ctx.clone()
        })
    }

    /// END: at the top level nothing follows; nested, the quad stops once any lane gets here.
    fn end(&mut self, ctx: &Ctx, act: &str) {
        if ctx.depth > 0 {
            self.saw_nested_end = true;
            self.line(&format!("ended = ended || rsx_quad_any({act}); // END"));
        }
    }

    fn instruction(&mut self, insn: &FragmentInstruction, act: &str) -> Result<(), TranslateError> {
        let Some(alu) = insn.alu() else {
            return Ok(());
        };
        let op = insn.opcode;
        if matches!(op, FpOpcode::Bemlum | FpOpcode::Timeswtex) {
            return Err(unsupported(insn, format!("{op} (no known semantics, B.7)")));
        }
        let d = insn.dest;
        let (dest_r, half) = register_of(d.index, d.fp16);
        if !d.no_dest && dest_r >= R_COUNT {
            return Err(unsupported(
                insn,
                format!("destination R{dest_r} outside the 48-entry file"),
            ));
        }
        let Some(scale) = alu.scale.factor() else {
            return Err(unsupported(insn, "output scale encoding 4"));
        };
        self.line(&format!("{{ // {:>3}: {op}", insn.slot));
        self.indent += 1;
        let always = act == "true";
        if !always {
            self.line(&format!("let act = {act};"));
        }
        for k in 0..op.operands_read() {
            let e = ops::source(insn, alu, k, self.opts, &mut self.uses)?;
            self.line(&format!("let s{k} = {e};"));
        }
        let produced = match op {
            FpOpcode::Nop | FpOpcode::Fenct | FpOpcode::Fencb => false,
            // KIL: where any(CC test) (B.5); the entry points discard after the body.
            FpOpcode::Kil => {
                let c = condition(insn);
                if always {
                    self.line(&format!("killed = killed || any({c});"));
                } else {
                    self.line(&format!("killed = killed || (act && any({c}));"));
                }
                false
            }
            // Fine derivatives: per row / per column of the quad, like the interpreter's ddx
            // (right − left) and ddy (bottom − top, increasing framebuffer y).
            FpOpcode::Ddx => {
                self.line("let v = dpdxFine(s0);");
                true
            }
            FpOpcode::Ddy => {
                self.line("let v = dpdyFine(s0);");
                true
            }
            _ if op.is_texture() => {
                self.texture(insn, always);
                true
            }
            _ => {
                let Some(e) = ops::alu(op, self.opts) else {
                    return Err(unsupported(insn, format!("{op}")));
                };
                self.line(&format!("let v = {e};"));
                true
            }
        };
        if produced {
            self.write(insn, alu, scale, dest_r, half, always);
        }
        if self.opts.instrument {
            self.record(insn, dest_r, always);
        }
        self.indent -= 1;
        self.line("}");
        Ok(())
    }

    /// Instrumentation (`FragmentTranslateOptions::instrument`): the record of one executed
    /// instruction for the traced pixel, in the layout of [`crate::fragment::record`].
    fn record(&mut self, insn: &FragmentInstruction, dest_r: u8, always: bool) {
        let d = insn.dest;
        let (reg, cc) = super::record::writes(insn);
        let flags = super::record::flags(d.index, d.fp16, reg, cc, d.cc_write & 1);
        let r = if reg {
            format!("r{dest_r}")
        } else {
            "vec4<u32>(0u)".into()
        };
        let c = if cc {
            format!("bitcast<vec4<u32>>(cc{})", d.cc_write & 1)
        } else {
            "vec4<u32>(0u)".into()
        };
        let call = format!("rsx_rec({}u, {flags}u, {r}, {c}, killed);", insn.slot);
        if always {
            self.line(&call);
        } else {
            self.line(&format!("if act {{ {call} }}"));
        }
    }

    /// TEX, TXP, TXD, TXL, TXB, TEXBEM, TXPBEM (B.4; interpreter `texture`).
    fn texture(&mut self, insn: &FragmentInstruction, always: bool) {
        let op = insn.opcode;
        let u = insn.texture_unit & 15;
        self.units |= 1 << u;
        let base = match op {
            // The projective variant keeps src0's q (interpreter).
            FpOpcode::Texbem | FpOpcode::Txpbem => "vec4<f32>(rsx_bem(s0, s1, s2).xy, s0.zw)",
            _ => "s0",
        };
        self.line(&format!("let b = {base};"));
        match op {
            // TXP divides xyz by q (RPCS3 interpreter, B.4).
            FpOpcode::Txp | FpOpcode::Txpbem => self.line("let cp = vec4<f32>(b.xyz / b.w, b.w);"),
            _ => self.line("let cp = b;"),
        }
        let dim = self.opts.texture_dims[usize::from(u)];
        let narrow = narrow_scale(self.opts, u, dim);
        match (texel_size(self.opts, u, dim), narrow) {
            // Texel coordinates scaled to [0, 1] before sampling and derivatives (the
            // interpreter's `UnitSampler`; `TextureLod::unnormalized`).
            (Some(size), _) => self.line(&format!("let c = vec4<f32>(cp.xy / {size}, cp.zw);")),
            // s over the register's width on a texture narrowed to its pitch, before sampling
            // and derivatives (`TextureLod::narrow_pitch`).
            (None, Some(k)) => self.line(&format!("let c = vec4<f32>(cp.x * {k:?}, cp.yzw);")),
            (None, None) => self.line("let c = cp;"),
        }
        let lod = match self.opts.lod_operand {
            LodOperand::Src1X => "s1.x",
            LodOperand::Src0W => "s0.w",
        };
        self.texture_levels(op, u, dim, lod);
        let unit = self.opts.texture_lod[usize::from(u)];
        if unit.alpha_kill {
            // The unit's alpha kill discards as KIL does (rsxtrace_semantics::shadow).
            let below = rsxtrace_semantics::shadow::ALPHA_KILL_BELOW;
            if always {
                self.line(&format!("killed = killed || t.a < {below:?};"));
            } else {
                self.line(&format!("killed = killed || (act && t.a < {below:?});"));
            }
        }
        // The gamma and bias conversions of the filtered texel, after the alpha kill
        // (`rsxtrace_semantics::texel`, as the interpreter's sampler applies them), unless a
        // bx2 expansion replaces them (RPCS3 `_enable_texture_expand` erases the gamma flags
        // and turns the bias into `2x − 1`; `Sampler::sample_for_bx2`).
        let mask = |m: u8| {
            let on = |c: u8| if m >> c & 1 != 0 { "true" } else { "false" };
            format!("vec4<bool>({}, {}, {}, {})", on(0), on(1), on(2), on(3))
        };
        let bx2 = unit.bx2 & 0xF;
        let post = unit.post;
        if post.any() && !(insn.exp_tex && bx2 != 0) {
            self.line(&format!(
                "let tc = rsx_texel_convert(t, {}, {}, {});",
                mask(post.gamma),
                mask(post.bias),
                post.wide
            ));
        } else {
            self.line("let tc = t;");
        }
        if insn.exp_tex && bx2 == 0xF {
            // bx2: 2x − 1 (B.4).
            self.line("let v = 2.0 * tc - vec4<f32>(1.0);");
        } else if insn.exp_tex && bx2 != 0 {
            // bx2 on the unit's expandable channels only (`TextureLod::bx2`).
            self.line(&format!(
                "let v = select(tc, 2.0 * tc - vec4<f32>(1.0), {});",
                mask(bx2)
            ));
        } else {
            self.line("let v = tc;");
        }
    }

    /// `t` = the filtered texel of unit `u` (2D, 3D or cube) with the levels chosen by the
    /// shared LOD rule (`rsxtrace_semantics::lod`, the interpreter's sampler's rule): lambda
    /// from the quad's fine derivatives of the coordinate (or TXD's gradients, TXL's operand)
    /// scaled by the level-0 size, plus TXB's operand; the unit's bias, clamp and mip filter
    /// from the options; each level sampled with `textureSampleLevel` (ABI.md "Textures").
    fn texture_levels(&mut self, op: FpOpcode, u: u8, dim: TextureDim, lod: &str) {
        let state = self.opts.texture_lod[usize::from(u)];
        // The coordinate: xy for 2D, xyz for 3D and for a cube map's direction, (s, ½) for 1D
        // (a 2D texture one texel high, ABI.md "Textures"); the size: the level-0 side of each
        // derivative axis (a cube face's for cube maps).
        let sel = if dim == TextureDim::D2 { "xy" } else { "xyz" };
        let size = if dim == TextureDim::D3 {
            format!("vec3<f32>(textureDimensions(rsx_tex{u}, 0))")
        } else {
            format!("vec3<f32>(vec2<f32>(textureDimensions(rsx_tex{u}, 0)), 0.0)")
        };
        let (dx, dy) = match (op, texel_size(self.opts, u, dim)) {
            // TXD: src1 = d/dx, src2 = d/dy (B.4), in texels on an unnormalised unit.
            (FpOpcode::Txd, Some(texels)) => (
                format!("vec3<f32>(s1.xy / {texels}, s1.z)"),
                format!("vec3<f32>(s2.xy / {texels}, s2.z)"),
            ),
            (FpOpcode::Txd, None) => match narrow_scale(self.opts, u, dim) {
                Some(k) => (
                    format!("vec3<f32>(s1.x * {k:?}, s1.yz)"),
                    format!("vec3<f32>(s2.x * {k:?}, s2.yz)"),
                ),
                None => ("s1.xyz".to_string(), "s2.xyz".to_string()),
            },
            _ => ("dpdxFine(c).xyz".to_string(), "dpdyFine(c).xyz".to_string()),
        };
        self.line(&format!("let size = {size};"));
        if dim == TextureDim::Cube {
            // Face-coordinate derivatives (the interpreter's `cube::CubeAxes::project`).
            self.line(&format!("let dx = rsx_cube_face_d(c.xyz, {dx}) * size;"));
            self.line(&format!("let dy = rsx_cube_face_d(c.xyz, {dy}) * size;"));
        } else if dim == TextureDim::D1 {
            // Only s counts (the interpreter's sampler takes one axis).
            self.line(&format!("let gx = vec2<f32>(({dx}).x, 0.0);"));
            self.line(&format!("let gy = vec2<f32>(({dy}).x, 0.0);"));
            self.line("let dx = vec3<f32>(gx, 0.0) * size;");
            self.line("let dy = vec3<f32>(gy, 0.0) * size;");
        } else if dim == TextureDim::D2 {
            self.line(&format!("let gx = ({dx}).xy;"));
            self.line(&format!("let gy = ({dy}).xy;"));
            self.line("let dx = vec3<f32>(gx, 0.0) * size;");
            self.line("let dy = vec3<f32>(gy, 0.0) * size;");
        } else {
            self.line(&format!("let dx = ({dx}) * size;"));
            self.line(&format!("let dy = ({dy}) * size;"));
        }
        // An anisotropic 2D unit spreads its samples along the longer derivative
        // (`rsxtrace_semantics::lod::Anisotropy`, `rsx_aniso`: x lambda, y N, z along x);
        // TXL's LOD has no footprint.
        let spread = dim == TextureDim::D2 && state.aniso > 1 && op != FpOpcode::Txl;
        if spread {
            self.line(&format!(
                "let an = rsx_aniso(dx.xy, dy.xy, {:?});",
                f32::from(state.aniso)
            ));
        }
        let footprint = if spread {
            "an.x"
        } else {
            "rsx_lod_lambda(dx, dy)"
        };
        let lambda = match op {
            FpOpcode::Txl => lod.to_string(),
            FpOpcode::Txb => format!("{footprint} + {lod}"),
            _ => footprint.to_string(),
        };
        let (tex, smp) = (format!("rsx_tex{u}"), format!("rsx_smp{u}"));
        let compare = state.compare.filter(|_| dim == TextureDim::D2);
        // Each sample's coordinate, its magnitude taken on the mirror-once axes
        // (`TextureLod::mirror_once`; a shadow map's third component is its reference).
        let (width, axes) = match (dim, compare) {
            (TextureDim::D1, _) => (2, 1),
            (TextureDim::D2, None) => (2, 2),
            (TextureDim::D2, Some(_)) => (3, 2),
            _ => (3, 3),
        };
        // A cube map clamps per face: its direction is never reflected.
        let mirror = if dim == TextureDim::Cube {
            0
        } else {
            state.mirror_once
        };
        let sample = |coord: &str, out: &str| {
            let coord = crate::levels::mirrored(coord, mirror, width, axes);
            match compare {
                Some(cmp) => crate::levels::compare_chosen(&tex, &smp, &coord, &state, cmp, out),
                None => crate::levels::sample_chosen(&tex, &smp, &coord, width, &state, out),
            }
        };
        self.line(&crate::levels::choose_levels(&tex, &lambda, &state));
        if !spread {
            // A shadow map's reference depth is the coordinate's z.
            let coord = match (dim, compare) {
                (TextureDim::D1, _) => "vec2<f32>(c.x, 0.5)".to_string(),
                (_, Some(_)) => "c.xyz".to_string(),
                _ => format!("c.{sel}"),
            };
            for line in sample(&coord, "t") {
                self.line(&line);
            }
            return;
        }
        // N samples summed in order and divided by N (the interpreter's sampler).
        self.line("let along = select(gy, gx, an.z > 0.5);");
        self.line("var ts = vec4<f32>(0.0);");
        self.line("for (var i = 1u; i <= u32(an.y); i = i + 1u) {");
        self.indent += 1;
        self.line("let f = f32(i) / (an.y + 1.0) - 0.5;");
        let coord = if compare.is_some() {
            "vec3<f32>(c.xy + along * f, c.z)"
        } else {
            "c.xy + along * f"
        };
        for line in sample(coord, "ti") {
            self.line(&line);
        }
        self.line("ts = ts + ti;");
        self.indent -= 1;
        self.line("}");
        self.line("let t = ts / an.y;");
    }

    /// The result write in RPCS3's `SetDst` order (B.2; interpreter `write`): FL skips; scale;
    /// H destination rounds to fp16; saturate (NaN → 0) or the precision clamp; masked,
    /// per-component conditional write; CC update with the same value and components.
    fn write(
        &mut self,
        insn: &FragmentInstruction,
        alu: &AluOperands,
        scale: f32,
        dest_r: u8,
        half: &str,
        always: bool,
    ) {
        let d = insn.dest;
        if insn.condition.relation == Relation::Fl {
            self.line("// condition FL: nothing written");
            return;
        }
        if d.no_dest && !d.set_cond {
            return;
        }
        let mut e = "v".to_string();
        let scale = if alu.scale != OutputScale::None {
            scale
        } else {
            1.0
        };
        if d.fp16
            && self.opts.half_rounding == HalfRounding::Truncate
            && super::carry::carries(insn.opcode)
        {
            // What the truncation sees of the result (docs/arithmetic.md, `carry`).
            e = super::carry::expression(insn.opcode, self.opts.fused_mad, &e, scale);
        } else if scale != 1.0 {
            e = format!("{e} * {scale:?}");
        }
        if d.fp16 {
            e = format!("rsx_hrt({e})");
        }
        if d.saturate {
            e = format!("rsx_sat({e})");
        } else if !insn.skips_precision_clamp() {
            // fp16 on an R register is ignored; on an H register it is the rounding above.
            match d.precision {
                Precision::Fp32 | Precision::Fp16 => {}
                Precision::Fx12 => e = ops::fixed_point(&e, self.opts.fx12, true),
                Precision::Fx9 => e = ops::fixed_point(&e, self.opts.fx9, false),
            }
        }
        self.line(&format!("let res = {e};"));
        let conditional = insn.condition.is_conditional();
        if conditional {
            self.line(&format!("let cnd = {};", condition(insn)));
        }
        // `act` is the literal `true` when nothing can deactivate the lane (`always`).
        let act = if always { "true" } else { "act" };
        let mut wm = String::from("vec4<bool>(");
        for (c, name) in COMPONENTS.iter().enumerate() {
            if c > 0 {
                wm.push_str(", ");
            }
            match (d.mask.has(c), conditional, always) {
                (false, _, _) => wm.push_str("false"),
                (true, false, _) => wm.push_str(act),
                (true, true, true) => {
                    let _ = write!(wm, "cnd.{name}");
                }
                (true, true, false) => {
                    let _ = write!(wm, "act && cnd.{name}");
                }
            }
        }
        wm.push(')');
        // Every component written, unconditionally: plain assignments.
        let full = always && !conditional && (0..4).all(|c| d.mask.has(c));
        if !full || d.fp16 {
            self.line(&format!("let wm = {wm};"));
        }
        if !d.no_dest {
            if let Some(used) = self.uses.regs.get_mut(usize::from(dest_r)) {
                *used = true;
            }
            let r = dest_r;
            if d.fp16 {
                let s = if half == "xy" {
                    format!("r{r} = vec4<u32>(rsx_wr_h(r{r}.xy, res, wm), r{r}.zw);")
                } else {
                    format!("r{r} = vec4<u32>(r{r}.xy, rsx_wr_h(r{r}.zw, res, wm));")
                };
                self.line(&s);
            } else if full {
                self.line(&format!("r{r} = bitcast<vec4<u32>>(res);"));
            } else {
                self.line(&format!(
                    "r{r} = select(r{r}, bitcast<vec4<u32>>(res), wm);"
                ));
            }
        }
        if d.set_cond {
            let k = d.cc_write & 1;
            if full {
                self.line(&format!("cc{k} = res;"));
            } else {
                self.line(&format!("cc{k} = select(cc{k}, res, wm);"));
            }
        }
    }
}

/// What unit `u`'s s is multiplied by when its linear texture is narrowed to its pitch
/// (`TextureLod::s_scale`), or `None` (no narrowing, or a cube map).
fn narrow_scale(opts: &FragmentTranslateOptions, u: u8, dim: TextureDim) -> Option<f32> {
    let state = opts.texture_lod[usize::from(u & 15)];
    (state.narrow_pitch.is_some() && dim != TextureDim::Cube).then(|| state.s_scale())
}

/// The level-0 size (WGSL `vec2<f32>` expression) that divides unit `u`'s coordinates when
/// they are in texels: 1D and 2D units whose `TextureLod::unnormalized` is set; `None`
/// otherwise (normalised coordinates, or a dimension the flag does not apply to).
fn texel_size(opts: &FragmentTranslateOptions, u: u8, dim: TextureDim) -> Option<String> {
    if !opts.texture_lod[usize::from(u & 15)].unnormalized {
        return None;
    }
    match dim {
        TextureDim::D1 => Some(format!(
            "vec2<f32>(f32(textureDimensions(rsx_tex{u}, 0).x), 1.0)"
        )),
        TextureDim::D2 => Some(format!("vec2<f32>(textureDimensions(rsx_tex{u}, 0))")),
        TextureDim::D3 | TextureDim::Cube => None,
    }
}
