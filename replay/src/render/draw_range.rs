//! Ranges of draws as people write them (`A..B`, `A..=B`, `N`), checked against a frame's
//! draw count. Used by `replay --draws`, the CI manifest's `draws` key and everything that
//! renders part of a frame.

use std::ops::Range;

/// Parse a draw range: `A..B` (B excluded, A < B), `A..=B`, or `N` (just draw N).
pub fn parse(s: &str) -> Result<Range<usize>, String> {
    let number = |part: &str, what: &str| -> Result<usize, String> {
        part.trim()
            .parse::<usize>()
            .map_err(|e| format!("{s}: {what}: {e} (expected A..B, A..=B or N)"))
    };
    let range = if let Some((a, b)) = s.split_once("..=") {
        let end = number(b, "end")?
            .checked_add(1)
            .ok_or_else(|| format!("{s}: end too large"))?;
        number(a, "start")?..end
    } else if let Some((a, b)) = s.split_once("..") {
        number(a, "start")?..number(b, "end")?
    } else {
        let n = number(s, "draw")?;
        n..n.checked_add(1)
            .ok_or_else(|| format!("{s}: draw too large"))?
    };
    if range.start >= range.end {
        return Err(format!(
            "{s}: empty range (the start must be below the end)"
        ));
    }
    Ok(range)
}

/// A draw range that runs past the frame's last draw.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("draws {}..{} do not exist: the capture has {draws} draws (0..{draws})", range.start, range.end)]
pub struct OutOfRange {
    pub range: Range<usize>,
    pub draws: usize,
}

/// Check a draw range (none: the whole frame) against the frame's draw count.
pub fn check(range: &Option<Range<usize>>, draws: usize) -> Result<(), OutOfRange> {
    match range {
        Some(r) if r.end > draws => Err(OutOfRange {
            range: r.clone(),
            draws,
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draw_ranges() {
        assert_eq!(parse("2..5"), Ok(2..5));
        assert_eq!(parse("2..=5"), Ok(2..6));
        assert_eq!(parse("7"), Ok(7..8));
        assert_eq!(parse(" 0 .. 1 "), Ok(0..1));
        for bad in [
            "5..5",
            "5..2",
            "a..2",
            "..3",
            "3..",
            "",
            "-1",
            "1..=18446744073709551615",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn range_checked_against_the_frame() {
        assert!(check(&Some(0..3), 3).is_ok());
        assert!(check(&None, 0).is_ok());
        let e = check(&Some(2..4), 3).unwrap_err().to_string();
        assert!(e.contains("2..4") && e.contains("3 draws"), "{e}");
    }
}
