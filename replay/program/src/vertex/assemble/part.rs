//! One unit's part of a line (`DP4C_SAT R1.xy (NE.xxxx), v[POS], c[4]`, `BRI 12 (GT.xxxx)`,
//! `BRB 7, !b3`), claimed into the slot's words. What is shared between the units (the
//! condition, the `C` and `_SAT` bits, the output field and which unit writes it, the input
//! and constant fields and the address register) is claimed by each part that states it,
//! so parts that disagree are refused.

use super::operand::{
    parse_address, parse_address_register, parse_condition, parse_dest, parse_source, Base,
    ConditionText, Dest, SourceText,
};
use super::words::Words;
use crate::vertex::fields::{self as f};
use crate::vertex::opcode::{ScalarOpcode, VectorOpcode};
use crate::vertex::operand::{AddressRegister, Relation, WriteMask};

/// The unit a part belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unit {
    Vector,
    Scalar,
}

/// What a part leaves for the line to finish: a branch target (a label, resolved later),
/// and whether it writes with no condition stated.
#[derive(Debug, Default)]
pub(super) struct PartInfo {
    /// BRI/CAL/CLI/BRB/CLB: the label named.
    pub target: Option<u32>,
    /// A writing operation that stated no condition (the relation must then not be FL).
    pub unconditional_write: bool,
}

/// A mnemonic split into its name and suffixes: `C`/`C1` (CC update, and which register),
/// `_SAT`.
struct Mnemonic {
    name: &'static str,
    cc_update: Option<bool>,
    saturate: bool,
}

/// `word` as an opcode name `lookup` knows and the suffixes after it.
fn split_mnemonic(word: &str, lookup: &dyn Fn(&str) -> Option<&'static str>) -> Option<Mnemonic> {
    let (base, saturate) = match word.strip_suffix("_SAT") {
        Some(b) => (b, true),
        None => (word, false),
    };
    let candidates = [
        (Some(base), None),
        (base.strip_suffix("C1"), Some(true)),
        (base.strip_suffix('C'), Some(false)),
    ];
    candidates.into_iter().find_map(|(name, cc_update)| {
        lookup(name?).map(|name| Mnemonic {
            name,
            cc_update,
            saturate,
        })
    })
}

fn any_name(n: &str) -> Option<&'static str> {
    vector_opcode(n)
        .map(VectorOpcode::name)
        .or_else(|| scalar_opcode(n).map(ScalarOpcode::name))
}

pub(super) fn vector_opcode(name: &str) -> Option<VectorOpcode> {
    VectorOpcode::ALL.iter().copied().find(|o| o.name() == name)
}

pub(super) fn scalar_opcode(name: &str) -> Option<ScalarOpcode> {
    ScalarOpcode::ALL.iter().copied().find(|o| o.name() == name)
}

/// The opcode name a part starts with (suffixes removed), upper-cased, and which units
/// have an opcode of that name.
pub(super) fn part_units(part: &str) -> (Option<VectorOpcode>, Option<ScalarOpcode>) {
    let word = part
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_uppercase();
    match split_mnemonic(&word, &any_name) {
        Some(m) => (vector_opcode(m.name), scalar_opcode(m.name)),
        None => (None, None),
    }
}

/// Claim a stated condition's relation, swizzle and CC register, and with `enable` the
/// test-enable bit.
fn claim_condition(w: &mut Words, c: ConditionText, who: &str, enable: bool) -> Result<(), String> {
    let what = format!(
        "{who}'s condition ({}{}.{})",
        c.relation.name(),
        if c.cc1 { "1" } else { "" },
        c.swizzle.letters()
    );
    if enable {
        w.claim(f::COND_TEST_ENABLE, 1, &what)?;
    }
    w.claim(f::COND, c.relation.code(), &what)?;
    w.claim(f::COND_SWZ, c.swizzle.to_field(), &what)?;
    w.claim(f::COND_REG_SEL, u32::from(c.cc1), &what)
}

/// Claim the condition fields for a writing operation's stated condition (or its absence).
fn claim_write_condition(
    w: &mut Words,
    cond: Option<ConditionText>,
    who: &str,
) -> Result<(), String> {
    match cond {
        Some(c) => claim_condition(w, c, who, true),
        None => w.claim(
            f::COND_TEST_ENABLE,
            0,
            &format!("{who}'s condition (none: it always writes)"),
        ),
    }
}

/// Claim a branch's condition: shown whenever the test is enabled or the relation is not
/// TR, so a TR condition has the test enabled, and no condition means TR with the test off.
fn claim_branch_condition(
    w: &mut Words,
    cond: Option<ConditionText>,
    who: &str,
) -> Result<(), String> {
    match cond {
        Some(c) => claim_condition(w, c, who, c.relation == Relation::TR),
        None => {
            let what = format!("{who}'s condition (none: always)");
            w.claim(f::COND_TEST_ENABLE, 0, &what)?;
            w.claim(f::COND, Relation::TR.code(), &what)
        }
    }
}

fn claim_address(w: &mut Words, a: AddressRegister, what: &str) -> Result<(), String> {
    w.claim(f::ADDR_REG_SEL, u32::from(a.register), what)?;
    w.claim(f::ADDR_SWZ, a.component.code(), what)
}

/// Claim source operand `n`.
fn claim_source(
    w: &mut Words,
    n: usize,
    s: &SourceText,
    text: &str,
    who: &str,
) -> Result<(), String> {
    let what = format!("{who}'s src{n} {}", text.trim());
    w.claim(f::SRC_ABS[n], u32::from(s.abs), &what)?;
    let (reg_type, temp) = match s.base {
        Base::Temp(t) => (1, Some(t)),
        Base::Input(..) => (2, None),
        Base::Constant(..) => (3, None),
    };
    let mut value = reg_type
        | (s.swizzle.to_field() << f::OP_SWZ_SHIFT)
        | (u32::from(s.negate) << f::OP_NEG_SHIFT);
    let mut mask = 3 | (0xFF << f::OP_SWZ_SHIFT) | (1 << f::OP_NEG_SHIFT);
    if let Some(t) = temp {
        value |= u32::from(t) << f::OP_TEMP_SHIFT;
        mask |= 0x3F << f::OP_TEMP_SHIFT;
    }
    w.claim_operand(n, value, mask, &what)?;
    match s.base {
        Base::Temp(_) => Ok(()),
        Base::Input(address, index) => {
            w.claim(f::INPUT_SRC, u32::from(index), &what)?;
            w.claim(f::INDEX_INPUT, u32::from(address.is_some()), &what)?;
            address.map_or(Ok(()), |a| claim_address(w, a, &what))
        }
        Base::Constant(address, index) => {
            w.claim(f::CONST_SRC, u32::from(index), &what)?;
            w.claim(f::INDEX_CONST, u32::from(address.is_some()), &what)?;
            address.map_or(Ok(()), |a| claim_address(w, a, &what))
        }
    }
}

/// Claim a destination: the unit's temp field, and for an output, `NONE` or `CC`, which
/// unit writes the output (`vec_result`), the output field and the CC register.
fn claim_dest(w: &mut Words, unit: Unit, dest: Dest, who: &str) -> Result<(), String> {
    let what = format!("{who}'s destination");
    let temp_field = match unit {
        Unit::Vector => f::VEC_DST_TMP,
        Unit::Scalar => f::SCA_DST_TMP,
    };
    // vec_result: 1 when the vector unit writes the output field.
    let writer = |w: &mut Words, writes: bool| {
        let vector_writes = (unit == Unit::Vector) == writes;
        w.claim(f::VEC_RESULT, u32::from(vector_writes), &what)
    };
    match dest {
        Dest::Temp(t) | Dest::Address(t) => w.claim(temp_field, u32::from(t), &what),
        Dest::TempAndOutput(t, o) => {
            w.claim(temp_field, u32::from(t), &what)?;
            writer(w, true)?;
            w.claim(f::DST, u32::from(o.0), &what)
        }
        Dest::Output(o) => {
            w.claim(temp_field, f::NO_TEMP, &what)?;
            writer(w, true)?;
            w.claim(f::DST, u32::from(o.0), &what)
        }
        Dest::Nothing => {
            w.claim(temp_field, f::NO_TEMP, &what)?;
            writer(w, true)?;
            w.claim(f::DST, f::NO_OUTPUT, &what)
        }
        Dest::Cc(cc1) => {
            w.claim(temp_field, f::NO_TEMP, &what)?;
            writer(w, false)?;
            w.claim(f::COND_REG_SEL, u32::from(cc1), &what)
        }
    }
}

/// A writing operation's text after its mnemonic: the destination and its mask, the
/// condition, and the operands after them.
struct Operands<'a> {
    dest: Dest,
    mask: WriteMask,
    condition: Option<ConditionText>,
    sources: Vec<&'a str>,
}

/// `rest` (a part after its mnemonic) as [`Operands`].
fn dest_and_operands(rest: &str) -> Result<Operands<'_>, String> {
    let mut pieces = rest.split(',');
    let first = pieces.next().unwrap_or("").trim();
    if first.is_empty() {
        return Err("expected a destination".into());
    }
    let (dest_text, cond) = match first.find('(') {
        Some(p) => {
            let (c, tail) = parse_condition(&first[p..])?;
            if !tail.trim().is_empty() {
                return Err(format!("{}: unexpected after the condition", tail.trim()));
            }
            (&first[..p], Some(c))
        }
        None => (first, None),
    };
    let (dest, mask) = parse_dest(dest_text)?;
    Ok(Operands {
        dest,
        mask,
        condition: cond,
        sources: pieces.map(str::trim).collect(),
    })
}

/// Claim the mnemonic's shared suffixes for a writing operation.
fn claim_suffixes(w: &mut Words, m: &Mnemonic, word: &str) -> Result<(), String> {
    let what = format!("{word}'s condition-code update");
    let update = u32::from(m.cc_update.is_some());
    w.claim(f::COND_UPDATE_0, update, &what)?;
    w.claim(f::COND_UPDATE_1, update, &what)?;
    if let Some(cc1) = m.cc_update {
        w.claim(f::COND_REG_SEL, u32::from(cc1), &what)?;
    }
    w.claim(
        f::SATURATE,
        u32::from(m.saturate),
        &format!("{word}'s saturation"),
    )
}

/// A writing operation's suffixes, destination, write mask and condition, claimed; its
/// operand texts and whether it stated no condition. Only ARL, ARR and ARA
/// (`address_op`) write an address register, and they write nothing else.
fn claim_writing<'a>(
    w: &mut Words,
    unit: Unit,
    m: &Mnemonic,
    word: &str,
    rest: &'a str,
    address_op: bool,
) -> Result<(Vec<&'a str>, bool), String> {
    claim_suffixes(w, m, word)?;
    let Operands {
        dest,
        mask,
        condition,
        sources,
    } = dest_and_operands(rest)?;
    match dest {
        Dest::Address(_) if !address_op => {
            return Err(format!(
                "{word}: only ARL, ARR and ARA write an address register"
            ))
        }
        Dest::Temp(_) | Dest::TempAndOutput(..) if address_op => {
            return Err(format!("{word} writes an address register: A0 or A1"))
        }
        _ => {}
    }
    claim_dest(w, unit, dest, word)?;
    let mask_field = match unit {
        Unit::Vector => f::VEC_WRITEMASK,
        Unit::Scalar => f::SCA_WRITEMASK,
    };
    w.claim(mask_field, mask.to_field(), &format!("{word}'s write mask"))?;
    let unconditional = condition.is_none();
    claim_write_condition(w, condition, word)?;
    Ok((sources, unconditional))
}

/// Parse one part of `unit` and claim its bits.
pub(super) fn claim_part(w: &mut Words, unit: Unit, part: &str) -> Result<PartInfo, String> {
    let part = part.trim();
    let (word, rest) = part.split_once(char::is_whitespace).unwrap_or((part, ""));
    let word_upper = word.to_ascii_uppercase();
    let lookup = |n: &str| match unit {
        Unit::Vector => vector_opcode(n).map(VectorOpcode::name),
        Unit::Scalar => scalar_opcode(n).map(ScalarOpcode::name),
    };
    let m = split_mnemonic(&word_upper, &lookup).ok_or_else(|| {
        format!(
            "{word}: no such {} opcode (or suffix)",
            match unit {
                Unit::Vector => "vector",
                Unit::Scalar => "scalar",
            }
        )
    })?;
    let mut info = PartInfo::default();
    match unit {
        Unit::Vector => {
            let op = vector_opcode(m.name).unwrap_or(VectorOpcode::Nop);
            w.claim(f::VEC_OPCODE, op.code(), &format!("{word}'s opcode"))?;
            if op == VectorOpcode::Nop {
                return if rest.trim().is_empty() && m.cc_update.is_none() && !m.saturate {
                    Ok(info)
                } else {
                    Err(format!("{part}: NOP takes nothing"))
                };
            }
            let address_op = matches!(
                op,
                VectorOpcode::Arl | VectorOpcode::Arr | VectorOpcode::Ara
            );
            let (operands, unconditional) = claim_writing(w, unit, &m, word, rest, address_op)?;
            info.unconditional_write = unconditional;
            let reads = op.reads();
            let wanted =
                reads.iter().filter(|r| **r).count() + usize::from(op == VectorOpcode::Txl);
            if operands.len() != wanted {
                return Err(format!(
                    "{word} takes a destination and {wanted} operand{}, not {}",
                    if wanted == 1 { "" } else { "s" },
                    operands.len()
                ));
            }
            let mut texts = operands.iter();
            for (n, _) in reads.iter().enumerate().filter(|(_, r)| **r) {
                let text = texts.next().copied().unwrap_or("");
                claim_source(w, n, &parse_source(text)?, text, word)?;
            }
            if op == VectorOpcode::Txl {
                let text = texts.next().copied().unwrap_or("");
                let unit = text
                    .strip_prefix("tex")
                    .and_then(|u| u.parse::<u32>().ok())
                    .filter(|u| *u < 4)
                    .ok_or_else(|| format!("{text}: expected the texture unit tex0..tex3"))?;
                w.claim(f::TEX_NUM, unit, &format!("{word}'s texture unit {text}"))?;
            }
        }
        Unit::Scalar => {
            let op = scalar_opcode(m.name).unwrap_or(ScalarOpcode::Nop);
            w.claim(f::SCA_OPCODE, op.code(), &format!("{word}'s opcode"))?;
            let plain = m.cc_update.is_none() && !m.saturate;
            if op.is_flow() || op == ScalarOpcode::Nop {
                if !plain {
                    return Err(format!("{word}: {} takes no suffix", m.name));
                }
                return claim_flow(w, op, rest, word).map(|target| PartInfo {
                    target,
                    ..PartInfo::default()
                });
            }
            let (operands, unconditional) = claim_writing(w, unit, &m, word, rest, false)?;
            info.unconditional_write = unconditional;
            match operands.as_slice() {
                [text] if op.reads_src2() => claim_source(w, 2, &parse_source(text)?, text, word)?,
                _ => return Err(format!("{word} takes a destination and one operand")),
            }
        }
    }
    Ok(info)
}

/// A flow operation's operands; returns the label a BRI/CAL/CLI/BRB/CLB names.
fn claim_flow(
    w: &mut Words,
    op: ScalarOpcode,
    rest: &str,
    word: &str,
) -> Result<Option<u32>, String> {
    let rest = rest.trim();
    // The operand, then an optional condition.
    let (operand, cond) = match rest.find('(') {
        Some(p) => {
            let (c, tail) = parse_condition(&rest[p..])?;
            if !tail.trim().is_empty() {
                return Err(format!("{}: unexpected after the condition", tail.trim()));
            }
            (rest[..p].trim(), Some(c))
        }
        None => (rest, None),
    };
    let label = |s: &str| {
        s.trim()
            .parse::<u32>()
            .map_err(|_| format!("{s}: expected a slot label"))
    };
    match op {
        ScalarOpcode::Nop if operand.is_empty() && cond.is_none() => Ok(None),
        ScalarOpcode::Bri | ScalarOpcode::Cal | ScalarOpcode::Cli => {
            claim_branch_condition(w, cond, word)?;
            label(operand).map(Some)
        }
        ScalarOpcode::Brb | ScalarOpcode::Clb if cond.is_none() => {
            let (target, boolean) = operand
                .split_once(',')
                .ok_or_else(|| format!("{word}: expected {word} SLOT, b<n> (or !b<n>)"))?;
            let boolean = boolean.trim();
            let (if_true, index) = match boolean.strip_prefix('!') {
                Some(b) => (false, b),
                None => (true, boolean),
            };
            let index = index
                .strip_prefix('b')
                .and_then(|n| n.parse::<u32>().ok())
                .filter(|n| *n < 32)
                .ok_or_else(|| format!("{boolean}: expected a boolean b0..b31"))?;
            let what = format!("{word}'s boolean {boolean}");
            w.claim(f::BRANCH_INDEX, index, &what)?;
            w.claim(f::BRB_COND_TRUE, u32::from(if_true), &what)?;
            label(target).map(Some)
        }
        ScalarOpcode::Bra => {
            claim_branch_condition(w, cond, word)?;
            claim_address(
                w,
                parse_address(operand)?,
                &format!("{word}'s address {operand}"),
            )?;
            Ok(None)
        }
        ScalarOpcode::Psh | ScalarOpcode::Pop => {
            claim_branch_condition(w, cond, word)?;
            let register = parse_address_register(operand)?;
            w.claim(
                f::ADDR_REG_SEL,
                u32::from(register),
                &format!("{word}'s {operand}"),
            )?;
            Ok(None)
        }
        ScalarOpcode::Ret if operand.is_empty() => {
            claim_branch_condition(w, cond, word)?;
            Ok(None)
        }
        _ => Err(format!(
            "{word}: expected {}",
            match op {
                ScalarOpcode::Brb | ScalarOpcode::Clb => "SLOT, b<n> (no condition)",
                ScalarOpcode::Ret => "only a condition",
                _ => "nothing",
            }
        )),
    }
}
