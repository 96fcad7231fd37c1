//! Operands: registers, write masks, swizzles, conditions, and sources with their modifiers
//! (temporaries, inputs, inline constants).

use crate::fragment::ir::{
    Condition, InlineConstant, InputAttribute, PrecisionModifier, Relation, Source, SourceKind,
    Swizzle, WriteMask,
};

pub(super) enum Base {
    Temp,
    Input(InputAttribute, Option<u16>),
    Constant(InlineConstant),
}

pub(super) fn temp(s: &str) -> Result<(bool, u8), String> {
    let (fp16, n) = if let Some(n) = s.strip_prefix('R') {
        (false, n)
    } else if let Some(n) = s.strip_prefix('H') {
        (true, n)
    } else {
        return Err(format!("{s}: expected a register R<n>, H<n>, RC or HC"));
    };
    let index = n
        .parse::<u8>()
        .ok()
        .filter(|&i| i < 64)
        .ok_or_else(|| format!("{s}: register number 0..63"))?;
    Ok((fp16, index))
}

pub(super) fn parse_mask(m: &str) -> Result<WriteMask, String> {
    let mut bits = 0u8;
    let mut last = None;
    for c in m.chars() {
        let i = "xyzw"
            .find(c)
            .ok_or_else(|| format!(".{m}: a write mask is x, y, z, w in order"))?;
        if last.is_some_and(|l| l >= i) {
            return Err(format!(".{m}: a write mask is x, y, z, w in order"));
        }
        last = Some(i);
        bits |= 1 << i;
    }
    Ok(WriteMask(bits))
}

pub(super) fn parse_swizzle(s: &str) -> Result<Swizzle, String> {
    let comps: Vec<u8> = s
        .chars()
        .map(|c| "xyzw".find(c).map(|i| i as u8))
        .collect::<Option<_>>()
        .ok_or_else(|| format!(".{s}: a swizzle is made of x, y, z, w"))?;
    match comps.len() {
        4 => Ok(Swizzle([comps[0], comps[1], comps[2], comps[3]])),
        // One component: replicated, as NV assembly reads `.x`.
        1 => Ok(Swizzle([comps[0]; 4])),
        _ => Err(format!(".{s}: a swizzle has 1 or 4 components")),
    }
}

pub(super) fn parse_condition(s: &str) -> Result<(Condition, &str), String> {
    let c = crate::assembly::condition_parts(s)?;
    let relation = (0..8)
        .map(Relation::from_bits)
        .find(|r| r.name() == c.relation)
        .ok_or_else(|| crate::assembly::unknown_relation(c.relation))?;
    Ok((
        Condition {
            relation,
            swizzle: parse_swizzle(c.swizzle)?,
            cc: u8::from(c.cc1),
        },
        c.rest,
    ))
}

pub(super) fn parse_source(text: &str) -> Result<(Source, Base), String> {
    let mut s = text.trim();
    let mut source = Source::temp(0);
    if let Some(r) = s.strip_prefix('-') {
        source.negate = true;
        s = r.trim_start();
    }
    for (name, m) in [
        ("x9(", PrecisionModifier::Fx9),
        ("h(", PrecisionModifier::Fp16),
        ("x(", PrecisionModifier::Fx12),
        ("sat(", PrecisionModifier::Sat),
        ("m5(", PrecisionModifier::Unknown5),
        ("m6(", PrecisionModifier::Unknown6),
        ("m7(", PrecisionModifier::Unknown7),
    ] {
        if let Some(r) = s.strip_prefix(name) {
            s = r
                .strip_suffix(')')
                .ok_or_else(|| format!("{text}: unclosed {name}"))?;
            source.modifier = m;
            break;
        }
    }
    if let Some(r) = s.strip_prefix('|') {
        s = r
            .strip_suffix('|')
            .ok_or_else(|| format!("{text}: unclosed |"))?;
        source.abs = true;
    }
    // Base, then an optional swizzle after the last '.' outside brackets and braces.
    let close = s.rfind([']', '}']).map_or(0, |i| i + 1);
    let (base, swizzle) = match s[close..].rfind('.') {
        Some(dot) => (&s[..close + dot], Some(&s[close + dot + 1..])),
        None => (s, None),
    };
    if let Some(swz) = swizzle {
        source.swizzle = parse_swizzle(swz)?;
    }
    let kind = if let Some(inner) = base.strip_prefix("f[").and_then(|b| b.strip_suffix(']')) {
        source.kind = SourceKind::Input;
        if let Some(d) = inner
            .strip_prefix("TEX(A0+")
            .and_then(|d| d.strip_suffix(')'))
        {
            let d = d
                .parse::<u16>()
                .ok()
                .filter(|&d| d < 2048)
                .ok_or_else(|| format!("{inner}: displacement 0..2047"))?;
            Base::Input(InputAttribute::tex(0), Some(d))
        } else {
            Base::Input(input_attribute(inner)?, None)
        }
    } else if let Some(inner) = base.strip_prefix('{').and_then(|b| b.strip_suffix('}')) {
        source.kind = SourceKind::Constant;
        let values: Vec<&str> = inner.split(',').map(str::trim).collect();
        if values.len() != 4 {
            return Err(format!("{base}: an inline constant has four values"));
        }
        let mut bits = [0u32; 4];
        for (b, v) in bits.iter_mut().zip(values) {
            *b = match v.strip_prefix("0x") {
                Some(hex) => u32::from_str_radix(hex, 16).map_err(|e| format!("{v}: {e}"))?,
                None => v.parse::<f32>().map_err(|e| format!("{v}: {e}"))?.to_bits(),
            };
        }
        Base::Constant(InlineConstant(bits))
    } else {
        let (fp16, index) = temp(base)?;
        source.fp16 = fp16;
        source.index = index;
        Base::Temp
    };
    Ok((source, kind))
}

fn input_attribute(name: &str) -> Result<InputAttribute, String> {
    if let Some(n) = name.strip_prefix("ATTR") {
        return n
            .parse::<u8>()
            .ok()
            .filter(|&n| n < 16)
            .map(InputAttribute)
            .ok_or_else(|| format!("{name}: attribute number 0..15"));
    }
    (0..15)
        .map(InputAttribute)
        .find(|a| a.name() == Some(name))
        .ok_or_else(|| {
            format!("{name}: no such input (WPOS COL0 COL1 FOGC TEX0..TEX9 FACING ATTRn)")
        })
}
