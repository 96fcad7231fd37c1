//! Readable decoding of method arguments, for `rsxtrace export-jsonl`: one JSON value per
//! `(register, value)`. Important methods get their fields (primitive names, floats, format,
//! surface, blend, depth and texture bitfields, offsets with locations); every other method
//! gives its raw value as a `"0x%08x"` string.

use crate::draw::Primitive;
use crate::fragment::ProgramAddress;
use crate::methods::{method_name, reg};
use crate::state::raster::{
    blend_equation, blend_factor, compare_func, cull_face, front_face, polygon_mode, shade_mode,
    stencil_op, AntiAliasing, ColorMask, ShaderControl, ShaderWindow, ZMinMaxControl,
};
use crate::state::shading::{self, clip_plane_op, fog_mode};
use crate::state::surface::{color_target, SurfaceFormat};
use crate::state::texture::{TextureAddress, TextureControl0, TextureFilter, TextureFormat};
use crate::stream::MethodCall;
use rsxtrace_fetch::VertexType;
use rsxtrace_rrc::Location;
use serde::Serialize;
use serde_json::{json, Value};

fn hex(v: u32) -> Value {
    Value::String(format!("0x{v:08x}"))
}
fn float(v: u32) -> Value {
    json!(f32::from_bits(v))
}
fn to(v: impl Serialize) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}
fn location(raw: u32) -> Value {
    match Location::from_raw(raw) {
        Some(l) => json!(l.name()),
        None => hex(raw),
    }
}
fn rect(v: u32) -> Value {
    json!({"origin": v & 0xFFFF, "size": v >> 16})
}
fn split16(v: u32, f: fn(u32) -> crate::state::Named) -> Value {
    json!({"rgb": to(f(v & 0xFFFF)), "alpha": to(f(v >> 16))})
}

/// Decode the argument of a method call (see the module docs).
pub fn decode_argument(reg_index: u16, v: u32) -> Value {
    let b = reg_index as u32 * 4;
    // Arrays of float registers.
    let float_ranges: &[(u32, u32)] = &[
        (0x0A20, 0x0A3C), // viewport offset / scale
        (0x1E40, 0x1E7C), // DATA1F
        (0x1880, 0x18FC), // DATA2F
        (0x1500, 0x15FC), // DATA3F
        (0x1C00, 0x1CFC), // DATA4F
        (0x1F00, 0x1F7C), // transform constants
        (0x08D0, 0x08D4), // fog params
    ];
    if float_ranges.iter().any(|&(lo, hi)| (lo..=hi).contains(&b)) {
        return float(v);
    }
    // Fragment textures (stride 0x20) and vertex textures.
    if (0x1A00..0x1C00).contains(&b) || (0x0900..0x0980).contains(&b) {
        return match b & 0x1F {
            0x00 => json!({"offset": v & 0x7FFF_FFFF}),
            0x04 => to(TextureFormat::from_raw(v)),
            0x08 => to(TextureAddress::from_raw(v)),
            0x0C => to(TextureControl0::from_raw(v)),
            0x10 if b >= 0x1A00 => json!({"remap": v & 0xFFFF, "override": v >> 16}),
            0x10 => json!({"pitch": v & 0xF_FFFF, "depth": v >> 20}),
            0x14 => to(TextureFilter::from_raw(v)),
            0x18 => json!({"width": v >> 16, "height": v & 0xFFFF}),
            _ => hex(v),
        };
    }
    // Per-fragment shading registers (state::shading).
    match reg_index {
        shading::SET_FOG_MODE => return to(fog_mode(v)),
        shading::SET_TWO_SIDE_LIGHT_EN => return json!(v != 0),
        shading::SET_USER_CLIP_PLANE_CONTROL => {
            let planes: Vec<_> = (0..6)
                .map(|n| clip_plane_op((v >> (4 * n)) & 0xF))
                .collect();
            return to(planes);
        }
        _ => {}
    }
    if (0x1840..0x1880).contains(&b) {
        return json!({"pitch": v & 0xF_FFFF, "depth": v >> 20});
    }
    if (0x1740..0x1780).contains(&b) {
        return json!({
            "type": VertexType::from_field(v & 7).name(),
            "size": (v >> 4) & 0xF,
            "stride": (v >> 8) & 0xFF,
            "frequency": v >> 16,
        });
    }
    if (0x1680..0x16C0).contains(&b) {
        return json!({"location": if v >> 31 != 0 { "main" } else { "local" }, "offset": v & 0x7FFF_FFFF});
    }
    match reg_index {
        reg::SET_BEGIN_END => match Primitive::from_raw(v) {
            Some(p) => json!({"primitive": p.name()}),
            None if v & 0xFF == 0 => json!("end"),
            None => json!({"primitive": v & 0xFF}),
        },
        reg::DRAW_ARRAYS | reg::DRAW_INDEX_ARRAY => to(crate::frame::range(v)),
        reg::ARRAY_ELEMENT16 => json!([v & 0xFFFF, v >> 16]),
        reg::SET_INDEX_ARRAY_ADDRESS => json!({"offset": v & 0x1FFF_FFFF}),
        reg::SET_INDEX_ARRAY_DMA => json!({
            "location": match v & 0xF { 0 => json!("local"), 1 => json!("main"), x => json!(x) },
            "type": match (v >> 4) & 0xFF { 0 => json!("u32"), 1 => json!("u16"), x => json!(x) },
        }),
        reg::SET_SHADER_PROGRAM => match ProgramAddress::from_raw(v) {
            Some(a) => to(a),
            None => hex(v),
        },
        reg::SET_SHADER_CONTROL => to(ShaderControl::from_raw(v)),
        reg::SET_SHADER_WINDOW => to(ShaderWindow::from_raw(v)),
        reg::SET_SURFACE_FORMAT => to(SurfaceFormat::from_raw(v)),
        reg::SET_SURFACE_COLOR_TARGET => to(color_target(v)),
        reg::SET_CONTEXT_DMA_COLOR_A
        | reg::SET_CONTEXT_DMA_COLOR_B
        | reg::SET_CONTEXT_DMA_COLOR_C
        | reg::SET_CONTEXT_DMA_COLOR_D
        | reg::SET_CONTEXT_DMA_ZETA => location(v),
        reg::SET_SURFACE_CLIP_HORIZONTAL
        | reg::SET_SURFACE_CLIP_VERTICAL
        | reg::SET_VIEWPORT_HORIZONTAL
        | reg::SET_VIEWPORT_VERTICAL
        | reg::SET_SCISSOR_HORIZONTAL
        | reg::SET_SCISSOR_VERTICAL => rect(v),
        reg::SET_WINDOW_OFFSET => json!({"x": v & 0xFFFF, "y": v >> 16}),
        reg::SET_CLIP_MIN
        | reg::SET_CLIP_MAX
        | reg::SET_POLYGON_OFFSET_SCALE_FACTOR
        | reg::SET_POLYGON_OFFSET_BIAS
        | reg::SET_DEPTH_BOUNDS_MIN
        | reg::SET_DEPTH_BOUNDS_MAX
        | reg::SET_POINT_SIZE => float(v),
        reg::SET_DEPTH_FUNC
        | reg::SET_ALPHA_FUNC
        | reg::SET_STENCIL_FUNC
        | reg::SET_BACK_STENCIL_FUNC => to(compare_func(v)),
        reg::SET_STENCIL_OP_FAIL
        | reg::SET_STENCIL_OP_ZFAIL
        | reg::SET_STENCIL_OP_ZPASS
        | reg::SET_BACK_STENCIL_OP_FAIL
        | reg::SET_BACK_STENCIL_OP_ZFAIL
        | reg::SET_BACK_STENCIL_OP_ZPASS => to(stencil_op(v)),
        reg::SET_BLEND_FUNC_SFACTOR | reg::SET_BLEND_FUNC_DFACTOR => split16(v, blend_factor),
        reg::SET_BLEND_EQUATION => split16(v, blend_equation),
        reg::SET_COLOR_MASK => to(ColorMask::from_raw(v)),
        reg::SET_FRONT_POLYGON_MODE | reg::SET_BACK_POLYGON_MODE => to(polygon_mode(v)),
        reg::SET_CULL_FACE => to(cull_face(v)),
        reg::SET_FRONT_FACE => to(front_face(v)),
        reg::SET_SHADE_MODE => to(shade_mode(v)),
        reg::SET_ZMIN_MAX_CONTROL => to(ZMinMaxControl::from_raw(v)),
        reg::SET_ANTI_ALIASING_CONTROL => to(AntiAliasing::from_raw(v)),
        reg::CLEAR_SURFACE => json!({
            "z": v & 0x01 != 0, "s": v & 0x02 != 0, "r": v & 0x10 != 0,
            "g": v & 0x20 != 0, "b": v & 0x40 != 0, "a": v & 0x80 != 0,
        }),
        reg::SET_BLEND_ENABLE
        | reg::SET_DEPTH_TEST_ENABLE
        | reg::SET_DEPTH_MASK
        | reg::SET_STENCIL_TEST_ENABLE
        | reg::SET_TWO_SIDED_STENCIL_TEST_ENABLE
        | reg::SET_ALPHA_TEST_ENABLE
        | reg::SET_CULL_FACE_ENABLE
        | reg::SET_RESTART_INDEX_ENABLE
        | reg::SET_POLY_OFFSET_POINT_ENABLE
        | reg::SET_POLY_OFFSET_LINE_ENABLE
        | reg::SET_POLY_OFFSET_FILL_ENABLE => json!(v != 0),
        reg::SET_TRANSFORM_PROGRAM_LOAD
        | reg::SET_TRANSFORM_PROGRAM_START
        | reg::SET_TRANSFORM_CONSTANT_LOAD
        | reg::SET_VERTEX_DATA_BASE_INDEX
        | reg::SET_VERTEX_DATA_BASE_OFFSET
        | reg::SET_RESTART_INDEX => json!(v),
        _ => hex(v),
    }
}

/// One line of `export-jsonl`: `command_index`, `register` (`"0x%04x"` register index),
/// `method` (name), `value` (`"0x%08x"`), `decoded`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MethodRecord {
    /// Index in `Capture::commands`.
    pub command_index: usize,
    /// Register index as `0x%04x`.
    pub register: String,
    /// Method name.
    pub method: String,
    /// Value as `0x%08x`.
    pub value: String,
    /// [`decode_argument`].
    pub decoded: Value,
}

/// Build the `export-jsonl` record of a call.
pub fn method_record(call: &MethodCall) -> MethodRecord {
    MethodRecord {
        command_index: call.command_index,
        register: format!("0x{:04x}", call.reg),
        method: method_name(call.reg).into_owned(),
        value: format!("0x{:08x}", call.value),
        decoded: decode_argument(call.reg, call.value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(byte: u32, v: u32) -> Value {
        decode_argument((byte / 4) as u16, v)
    }

    #[test]
    fn decodes_important_methods() {
        assert_eq!(d(0x1808, 5), json!({"primitive": "triangles"}));
        assert_eq!(d(0x1808, 0), json!("end"));
        assert_eq!(d(0x1814, 0x0200_0010), json!({"first": 16, "count": 3}));
        assert_eq!(d(0x0A30, 0x3F80_0000), json!(1.0));
        assert_eq!(d(0x1F04, 0xC000_0000), json!(-2.0));
        assert_eq!(
            d(0x08E4, 0x0000_1002),
            json!({"location": "main", "offset": 0x1000})
        );
        assert_eq!(d(0x0194, 0xFEED_0000), json!("local"));
        assert_eq!(
            d(0x0314, 0x0001_0302),
            json!({"rgb": "src_alpha", "alpha": "one"})
        );
        assert_eq!(d(0x0A6C, 0x0203), json!("lequal"));
        assert_eq!(
            d(0x1820, 0x0000_0011),
            json!({"location": "main", "type": "u16"})
        );
        assert_eq!(
            d(0x1744, 0x0000_2042),
            json!({"type": "F", "size": 4, "stride": 32, "frequency": 0})
        );
        assert_eq!(
            d(0x1684, 0x8000_0100),
            json!({"location": "main", "offset": 0x100})
        );
        assert_eq!(
            d(0x1A04 + 0x20, 0x0001_8529)["base_format"],
            json!("a8r8g8b8")
        );
        assert_eq!(
            d(0x1A18, (64 << 16) | 32),
            json!({"width": 64, "height": 32})
        );
        assert_eq!(d(0x0208, 0x090A_0148)["color_format"], json!("a8r8g8b8"));
        assert_eq!(d(0x1D94, 0xF3)["z"], json!(true));
        assert_eq!(d(0x0A50, 0x1234), json!("0x00001234"));
    }

    #[test]
    fn shading_registers_decode() {
        let d = |byte: u32, v: u32| decode_argument((byte / 4) as u16, v);
        assert_eq!(d(0x08CC, 0x0802), json!("exp_abs"));
        assert_eq!(d(0x08D4, 0.5f32.to_bits()), json!(0.5));
        assert_eq!(d(0x142C, 1), json!(true));
        // Plane 0 GE, plane 1 LT, plane 5 unknown 9.
        assert_eq!(
            d(0x1478, 2 | (1 << 4) | (9 << 20)),
            json!([
                "greater_or_equal",
                "less_than",
                "disabled",
                "disabled",
                "disabled",
                9
            ])
        );
    }

    #[test]
    fn record_fields() {
        let rec = method_record(&MethodCall {
            command_index: 7,
            reg: 0x602,
            value: 8,
        });
        let j = serde_json::to_value(&rec).unwrap();
        assert_eq!(
            j,
            json!({
                "command_index": 7,
                "register": "0x0602",
                "method": "NV4097_SET_BEGIN_END",
                "value": "0x00000008",
                "decoded": {"primitive": "quads"},
            })
        );
    }
}
