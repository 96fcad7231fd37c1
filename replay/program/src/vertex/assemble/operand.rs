//! Operands of a vertex instruction line, as the disassembly writes them: sources
//! (`-|R1.xyzw|`, `v[POS]`, `v[A0.x+3]`, `c[12]`, `c[A1.y+4]`), destinations (`R1`,
//! `R1+o[HPOS]`, `o[COL0]`, `A1`, `CC0`, `NONE`), write masks, conditions (`(NE1.xxyy)`)
//! and address registers.

use crate::vertex::operand::{
    AddressRegister, Component, InputAttribute, OutputRegister, Relation, Swizzle, WriteMask,
};

/// Where a source reads from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Base {
    /// `R<n>`.
    Temp(u8),
    /// `v[NAME]` / `v[N]`, or `v[A0.x+N]`.
    Input(Option<AddressRegister>, u8),
    /// `c[N]`, or `c[A0.x+N]`.
    Constant(Option<AddressRegister>, u16),
}

/// A source operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct SourceText {
    pub base: Base,
    pub swizzle: Swizzle,
    pub negate: bool,
    pub abs: bool,
}

/// A destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dest {
    /// `R<n>`.
    Temp(u8),
    /// `R<n>+o[NAME]`.
    TempAndOutput(u8, OutputRegister),
    /// `o[NAME]`.
    Output(OutputRegister),
    /// `NONE`: the output writer with no output register.
    Nothing,
    /// `CC0` / `CC1`: no temp, not the output writer (the result goes to the CC register).
    Cc(bool),
    /// `A<n>`: ARL/ARR/ARA's destination temp field.
    Address(u8),
}

/// A condition: relation, CC1 or not, swizzle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ConditionText {
    pub relation: Relation,
    pub cc1: bool,
    pub swizzle: Swizzle,
}

fn number<T: std::str::FromStr>(s: &str, what: &str) -> Result<T, String> {
    s.trim()
        .parse::<T>()
        .map_err(|_| format!("{s}: expected {what}"))
}

fn component(c: char) -> Option<Component> {
    match c {
        'x' => Some(Component::X),
        'y' => Some(Component::Y),
        'z' => Some(Component::Z),
        'w' => Some(Component::W),
        _ => None,
    }
}

/// Swizzle letters: one to four, the last repeated (`.x` is `.xxxx`, `.xy` is `.xyyy`).
pub(super) fn parse_swizzle(letters: &str) -> Result<Swizzle, String> {
    let comps: Vec<Component> = letters
        .chars()
        .map(|c| component(c).ok_or_else(|| format!(".{letters}: not a swizzle")))
        .collect::<Result<_, _>>()?;
    match comps.as_slice() {
        [] => Err("an empty swizzle".into()),
        c if c.len() > 4 => Err(format!(".{letters}: more than four components")),
        c => {
            let last = c[c.len() - 1];
            Ok(Swizzle(
                [0, 1, 2, 3].map(|k| c.get(k).copied().unwrap_or(last)),
            ))
        }
    }
}

/// A write mask's letters in x, y, z, w order, or `none`.
pub(super) fn parse_mask(letters: &str) -> Result<WriteMask, String> {
    if letters == "none" {
        return Ok(WriteMask(0));
    }
    let mut mask = 0u8;
    let mut last = None;
    for c in letters.chars() {
        let comp = component(c).ok_or_else(|| format!(".{letters}: not a write mask"))?;
        if last.is_some_and(|l: Component| l.code() >= comp.code()) {
            return Err(format!(
                ".{letters}: a write mask names components in xyzw order"
            ));
        }
        last = Some(comp);
        mask |= 1 << comp.code();
    }
    if mask == 0 {
        return Err("an empty write mask (write .none)".into());
    }
    Ok(WriteMask(mask))
}

/// `A0.x`: an address register and component.
pub(super) fn parse_address(s: &str) -> Result<AddressRegister, String> {
    let (reg, comp) = s
        .split_once('.')
        .ok_or_else(|| format!("{s}: expected an address register A0.x .. A1.w"))?;
    let register = match reg {
        "A0" => 0,
        "A1" => 1,
        _ => return Err(format!("{s}: the address registers are A0 and A1")),
    };
    let mut chars = comp.chars();
    let component = match (chars.next().and_then(component), chars.next()) {
        (Some(c), None) => c,
        _ => return Err(format!("{s}: one component after the address register")),
    };
    Ok(AddressRegister {
        register,
        component,
    })
}

/// `A0` / `A1` alone (PSH, POP).
pub(super) fn parse_address_register(s: &str) -> Result<u8, String> {
    match s {
        "A0" => Ok(0),
        "A1" => Ok(1),
        _ => Err(format!("{s}: expected A0 or A1")),
    }
}

/// Inside `v[...]` / `c[...]`: an index, or `A0.x+N` (`A0.x` alone is `+0`).
fn indexed(inner: &str) -> Result<(Option<AddressRegister>, &str), String> {
    if inner.starts_with('A') {
        let (addr, offset) = match inner.split_once('+') {
            Some((a, o)) => (a, o),
            None => (inner, "0"),
        };
        Ok((Some(parse_address(addr.trim())?), offset.trim()))
    } else {
        Ok((None, inner.trim()))
    }
}

fn input_index(s: &str) -> Result<u8, String> {
    if let Some(n) = (0..16u8).find(|&n| InputAttribute(n).name() == s) {
        return Ok(n);
    }
    let n: u8 = number(
        s,
        "an input attribute name (POS, NORMAL, TEX0, ...) or 0..15",
    )?;
    if n < 16 {
        Ok(n)
    } else {
        Err(format!("v[{s}]: input attributes are 0..15"))
    }
}

/// One source operand.
pub(super) fn parse_source(text: &str) -> Result<SourceText, String> {
    let mut s = text.trim();
    let negate = match s.strip_prefix('-') {
        Some(r) => {
            s = r.trim_start();
            true
        }
        None => false,
    };
    let abs = match s.strip_prefix('|').and_then(|r| r.strip_suffix('|')) {
        Some(r) => {
            s = r.trim();
            true
        }
        None => false,
    };
    let (base_text, swizzle) = match s.rfind('.') {
        // A dot after the closing bracket (or in `R1.x`) is the swizzle; one inside
        // `A0.x` is not.
        Some(dot) if !s[dot..].contains(']') => (&s[..dot], parse_swizzle(&s[dot + 1..])?),
        _ => (s, Swizzle::IDENTITY),
    };
    let base = if let Some(n) = base_text.strip_prefix('R') {
        let n: u8 = number(n, "a temp register R0..R63")?;
        if n > 63 {
            return Err(format!("{base_text}: temp registers are R0..R63"));
        }
        Base::Temp(n)
    } else if let Some(inner) = base_text
        .strip_prefix("v[")
        .and_then(|r| r.strip_suffix(']'))
    {
        let (address, index) = indexed(inner)?;
        Base::Input(address, input_index(index)?)
    } else if let Some(inner) = base_text
        .strip_prefix("c[")
        .and_then(|r| r.strip_suffix(']'))
    {
        let (address, index) = indexed(inner)?;
        let n: u16 = number(index, "a constant index 0..1023")?;
        if n > 1023 {
            return Err(format!(
                "{base_text}: constant indices are 0..1023 (10 bits)"
            ));
        }
        Base::Constant(address, n)
    } else {
        return Err(format!(
            "{text}: expected a source (R1, v[POS], c[12], c[A0.x+4], with .swizzle, - and |..|)"
        ));
    };
    Ok(SourceText {
        base,
        swizzle,
        negate,
        abs,
    })
}

fn output(inner: &str) -> Result<OutputRegister, String> {
    if let Some(n) = (0..16u8).find(|&n| OutputRegister(n).name() == Some(inner)) {
        return Ok(OutputRegister(n));
    }
    let n: u8 = number(inner, "an output name (HPOS, COL0, TEX0, ...) or 0..30")?;
    if n < 31 {
        Ok(OutputRegister(n))
    } else {
        Err(format!("o[{inner}]: outputs are 0..30"))
    }
}

fn dest_temp(s: &str) -> Result<u8, String> {
    let n: u8 = number(s, "a temp register number")?;
    if n < 63 {
        Ok(n)
    } else {
        Err(format!(
            "{n}: destination registers are 0..62 (63 means none)"
        ))
    }
}

/// A destination and its write mask (full when none is written).
pub(super) fn parse_dest(text: &str) -> Result<(Dest, WriteMask), String> {
    let text = text.trim();
    let (base, mask) = match text.rfind('.') {
        Some(dot) if !text[dot..].contains(']') => (&text[..dot], parse_mask(&text[dot + 1..])?),
        _ => (text, WriteMask::XYZW),
    };
    let out = |s: &str| {
        s.strip_prefix("o[")
            .and_then(|r| r.strip_suffix(']'))
            .map(output)
    };
    let dest = match base {
        "NONE" => Dest::Nothing,
        "CC0" => Dest::Cc(false),
        "CC1" => Dest::Cc(true),
        _ => {
            if let Some(o) = out(base) {
                Dest::Output(o?)
            } else if let Some((t, o)) = base.split_once('+') {
                let t = t
                    .strip_prefix('R')
                    .ok_or_else(|| format!("{base}: expected R<n>+o[NAME]"))?;
                let o = out(o).ok_or_else(|| format!("{base}: expected R<n>+o[NAME]"))??;
                Dest::TempAndOutput(dest_temp(t)?, o)
            } else if let Some(t) = base.strip_prefix('R') {
                Dest::Temp(dest_temp(t)?)
            } else if let Some(t) = base.strip_prefix('A') {
                Dest::Address(dest_temp(t)?)
            } else {
                return Err(format!(
                    "{base}: expected a destination (R1, o[HPOS], R1+o[HPOS], A0, CC0, NONE)"
                ));
            }
        }
    };
    Ok((dest, mask))
}

/// `(NE.xxxx)` / `(NE1.xyzw)`; returns the condition and the text after it.
pub(super) fn parse_condition(s: &str) -> Result<(ConditionText, &str), String> {
    let c = crate::assembly::condition_parts(s)?;
    let relation = (0..8)
        .map(Relation::from_code)
        .find(|r| r.name() == c.relation)
        .ok_or_else(|| crate::assembly::unknown_relation(c.relation))?;
    Ok((
        ConditionText {
            relation,
            cc1: c.cc1,
            swizzle: parse_swizzle(c.swizzle)?,
        },
        c.rest,
    ))
}
