//! What `find` looks for: literal bytes (from a file or hex text) or a content hash (xxh3-64 or
//! SHA-256) of a whole block or of a draw's buffer region.

use serde::Serialize;

/// A search pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// These bytes, at any address and alignment.
    Bytes(Vec<u8>),
    /// A block or region whose xxh3-64 is this.
    Xxh3(u64),
    /// A block or region whose SHA-256 is this.
    Sha256([u8; 32]),
}

/// Why a pattern was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PatternError {
    /// A character that is not a hex digit.
    #[error("{text:?}: {character:?} at character {at} is not a hex digit")]
    NotHex {
        /// The text given.
        text: String,
        /// The character.
        character: char,
        /// Its index (in characters).
        at: usize,
    },
    /// An odd number of hex digits.
    #[error("{text:?}: {digits} hex digits do not make whole bytes")]
    OddDigits {
        /// The text given.
        text: String,
        /// Digits counted.
        digits: usize,
    },
    /// No byte at all.
    #[error("the pattern is empty")]
    Empty,
    /// A hash of the wrong length.
    #[error("{text:?}: a {kind} hash has {expected} hex digits, not {digits}")]
    HashLength {
        /// The text given.
        text: String,
        /// `xxh3` or `sha256`.
        kind: &'static str,
        /// Digits expected.
        expected: usize,
        /// Digits given.
        digits: usize,
    },
}

/// Parse hex text into bytes: digits in pairs, with optional `0x` prefixes and any spaces,
/// commas, colons, dashes or underscores between them (`"de ad be ef"`, `"0xdead,0xbeef"`).
pub fn parse_hex(text: &str) -> Result<Vec<u8>, PatternError> {
    let mut digits = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '0' && matches!(chars.get(i + 1), Some('x' | 'X')) {
            i += 2;
            continue;
        }
        if c.is_whitespace() || matches!(c, ',' | ':' | '-' | '_') {
            i += 1;
            continue;
        }
        let value = c.to_digit(16).ok_or(PatternError::NotHex {
            text: text.to_string(),
            character: c,
            at: i,
        })?;
        digits.push(value as u8);
        i += 1;
    }
    if digits.len() % 2 != 0 {
        return Err(PatternError::OddDigits {
            text: text.to_string(),
            digits: digits.len(),
        });
    }
    if digits.is_empty() {
        return Err(PatternError::Empty);
    }
    Ok(digits.chunks(2).map(|p| (p[0] << 4) | p[1]).collect())
}

impl Pattern {
    /// `--hex TEXT`.
    pub fn hex(text: &str) -> Result<Pattern, PatternError> {
        parse_hex(text).map(Pattern::Bytes)
    }

    /// `--bytes FILE`'s contents.
    pub fn bytes(bytes: Vec<u8>) -> Result<Pattern, PatternError> {
        if bytes.is_empty() {
            return Err(PatternError::Empty);
        }
        Ok(Pattern::Bytes(bytes))
    }

    /// `--xxh3 H`: 16 hex digits (as `rsxtrace` prints hashes).
    pub fn xxh3(text: &str) -> Result<Pattern, PatternError> {
        let bytes = hash_digits(text, "xxh3", 8)?;
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes);
        Ok(Pattern::Xxh3(u64::from_be_bytes(word)))
    }

    /// `--sha256 H`: 64 hex digits.
    pub fn sha256(text: &str) -> Result<Pattern, PatternError> {
        let bytes = hash_digits(text, "sha256", 32)?;
        let mut hash = [0u8; 32];
        hash.copy_from_slice(&bytes);
        Ok(Pattern::Sha256(hash))
    }

    /// What the report says about the pattern.
    pub fn summary(&self) -> PatternSummary {
        match self {
            Pattern::Bytes(b) => PatternSummary {
                kind: "bytes",
                len: Some(b.len()),
                value: hex(b.get(..64).unwrap_or(b)) + if b.len() > 64 { "..." } else { "" },
            },
            Pattern::Xxh3(h) => PatternSummary {
                kind: "xxh3",
                len: None,
                value: format!("{h:016x}"),
            },
            Pattern::Sha256(h) => PatternSummary {
                kind: "sha256",
                len: None,
                value: hex(h),
            },
        }
    }
}

fn hash_digits(text: &str, kind: &'static str, bytes: usize) -> Result<Vec<u8>, PatternError> {
    let parsed = parse_hex(text)?;
    if parsed.len() != bytes {
        return Err(PatternError::HashLength {
            text: text.to_string(),
            kind,
            expected: 2 * bytes,
            digits: 2 * parsed.len(),
        });
    }
    Ok(parsed)
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The pattern as the report shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PatternSummary {
    /// `bytes`, `xxh3` or `sha256`.
    pub kind: &'static str,
    /// Pattern length in bytes (byte patterns).
    pub len: Option<usize>,
    /// The bytes (first 64, then `...`) or the hash, in lowercase hex.
    pub value: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_text_in_the_usual_spellings() {
        assert_eq!(parse_hex("deadBEEF").unwrap(), vec![0xDE, 0xAD, 0xBE, 0xEF]);
        assert_eq!(
            parse_hex("0xde 0xad, be:ef_01-02").unwrap(),
            vec![0xDE, 0xAD, 0xBE, 0xEF, 1, 2]
        );
        assert!(matches!(
            parse_hex("abc"),
            Err(PatternError::OddDigits { digits: 3, .. })
        ));
        assert!(matches!(
            parse_hex("ag"),
            Err(PatternError::NotHex {
                character: 'g',
                at: 1,
                ..
            })
        ));
        assert_eq!(parse_hex(" "), Err(PatternError::Empty));
    }

    #[test]
    fn hashes_have_their_own_length() {
        assert_eq!(
            Pattern::xxh3("00000000000000ff").unwrap(),
            Pattern::Xxh3(0xFF)
        );
        assert!(matches!(
            Pattern::xxh3("ff"),
            Err(PatternError::HashLength {
                expected: 16,
                digits: 2,
                ..
            })
        ));
        assert!(Pattern::sha256(&"ab".repeat(32)).is_ok());
        assert!(Pattern::sha256(&"ab".repeat(31)).is_err());
    }
}
