//! What the fragment and vertex assemblers share: the error type, the test for assembly
//! text, the reading of lines into labels, bodies and comments, and the shape of a
//! condition.
//!
//! A line that is empty or starts with `;` is a comment; so is the rest of a line from `#`.
//! A leading `N:` (digits only) is the line's slot label.

/// Why a line does not assemble.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct AssembleError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// `bytes` as assembly text: UTF-8 without NUL bytes (microcode and containers have them)
/// and with a line that is not a comment. `None` for anything else.
pub fn assembly_text(bytes: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(bytes).ok()?;
    let code = |l: &str| {
        let l = l.trim();
        !l.is_empty() && !l.starts_with(';') && !l.starts_with('#')
    };
    (!text.contains('\0') && text.lines().any(code)).then_some(text)
}

/// One line that holds an instruction.
pub(crate) struct CodeLine<'a> {
    /// 1-based line number.
    pub line: usize,
    /// The `N:` label, if any.
    pub label: Option<u32>,
    /// The instruction text, trimmed, without label or comment.
    pub body: &'a str,
    /// The text after `#`, trimmed.
    pub comment: Option<&'a str>,
}

/// The lines of `text` that hold instructions, in order; a label that is not a number
/// (too large) is an error at its line.
pub(crate) fn code_lines(text: &str) -> Result<Vec<CodeLine<'_>>, AssembleError> {
    let mut out = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = n + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with(';') {
            continue;
        }
        let (body, comment) = match trimmed.split_once('#') {
            Some((b, c)) => (b.trim(), Some(c.trim())),
            None => (trimmed, None),
        };
        let (label, body) = match body.split_once(':') {
            Some((l, rest))
                if !l.trim().is_empty() && l.trim().chars().all(|c| c.is_ascii_digit()) =>
            {
                let label = l.trim().parse::<u32>().map_err(|e| AssembleError {
                    line,
                    message: format!("slot: {e}"),
                })?;
                (Some(label), rest.trim())
            }
            _ => (None, body),
        };
        if body.is_empty() && label.is_none() {
            // A line holding only a comment after `#`.
            continue;
        }
        out.push(CodeLine {
            line,
            label,
            body,
            comment,
        });
    }
    if out.is_empty() {
        return Err(AssembleError {
            line: 1,
            message: "no instruction".into(),
        });
    }
    Ok(out)
}

/// A condition's text, `(NE.xxxx)` or `(NE1.xyzw)`, split: the relation's name, whether it
/// tests CC1, the swizzle letters (`xyzw` when none is written), and the text after it. The
/// caller reads the relation and the swizzle into its stage's types.
pub(crate) struct ConditionParts<'a> {
    pub relation: &'a str,
    pub cc1: bool,
    pub swizzle: &'a str,
    pub rest: &'a str,
}

/// Split the condition at the start of `s` (leading blanks skipped).
pub(crate) fn condition_parts(s: &str) -> Result<ConditionParts<'_>, String> {
    let s = s.trim_start();
    let inner_end = s
        .find(')')
        .filter(|_| s.starts_with('('))
        .ok_or_else(|| format!("{s}: expected a condition (NE.xxxx)"))?;
    let inner = &s[1..inner_end];
    let (relation, swizzle) = inner.split_once('.').unwrap_or((inner, "xyzw"));
    let (relation, cc1) = match relation.strip_suffix('1') {
        Some(r) => (r, true),
        None => (relation, false),
    };
    Ok(ConditionParts {
        relation,
        cc1,
        swizzle,
        rest: &s[inner_end + 1..],
    })
}

/// The error for a relation name no table holds.
pub(crate) fn unknown_relation(name: &str) -> String {
    format!("{name}: no such relation (FL LT EQ LE GT NE GE TR)")
}
