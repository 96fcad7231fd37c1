//! Ranges of draws as people write them (`A..B`, `A..=B`, `A..`, `N`), resolved against a
//! frame's draw count. One syntax for `replay --draws`, `verify --draws` and the CI
//! manifest's `draws` key.

use std::ops::Range;

/// A range of draw indices, possibly open at the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawRange {
    pub start: usize,
    /// Exclusive; `None`: to the frame's last draw.
    pub end: Option<usize>,
}

/// Parse a draw range: `A..B` (B excluded, A < B), `A..=B`, `A..` (to the last draw), or `N`
/// (just draw N).
pub fn parse(s: &str) -> Result<DrawRange, String> {
    let number = |part: &str, what: &str| -> Result<usize, String> {
        part.trim()
            .parse::<usize>()
            .map_err(|e| format!("{s}: {what}: {e} (expected A..B, A..=B, A.. or N)"))
    };
    let (start, end) = if let Some((a, b)) = s.split_once("..=") {
        let end = number(b, "end")?
            .checked_add(1)
            .ok_or_else(|| format!("{s}: end too large"))?;
        (number(a, "start")?, Some(end))
    } else if let Some((a, b)) = s.split_once("..") {
        let end = if b.trim().is_empty() {
            None
        } else {
            Some(number(b, "end")?)
        };
        (number(a, "start")?, end)
    } else {
        let n = number(s, "draw")?;
        let end = n
            .checked_add(1)
            .ok_or_else(|| format!("{s}: draw too large"))?;
        (n, Some(end))
    };
    if end.is_some_and(|end| start >= end) {
        return Err(format!(
            "{s}: empty range (the start must be below the end)"
        ));
    }
    Ok(DrawRange { start, end })
}

impl std::str::FromStr for DrawRange {
    type Err = String;
    fn from_str(s: &str) -> Result<DrawRange, String> {
        parse(s)
    }
}

impl std::fmt::Display for DrawRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.end {
            Some(end) => write!(f, "{}..{end}", self.start),
            None => write!(f, "{}..", self.start),
        }
    }
}

/// A draw range that runs past the frame's last draw (or, open, starts past it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("draws {range} do not exist: the capture has {draws} draws (0..{draws})")]
pub struct OutOfRange {
    pub range: DrawRange,
    pub draws: usize,
}

impl DrawRange {
    /// The draws of a frame of `draws` draws this range names.
    pub fn resolve(&self, draws: usize) -> Result<Range<usize>, OutOfRange> {
        let end = self.end.unwrap_or(draws);
        if self.start >= end || end > draws {
            return Err(OutOfRange {
                range: *self,
                draws,
            });
        }
        Ok(self.start..end)
    }
}

/// Resolve an optional range (none: the whole frame, kept as `None`) against a frame's count.
pub fn resolve(range: Option<DrawRange>, draws: usize) -> Result<Option<Range<usize>>, OutOfRange> {
    range.map(|r| r.resolve(draws)).transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn closed(start: usize, end: usize) -> DrawRange {
        DrawRange {
            start,
            end: Some(end),
        }
    }

    #[test]
    fn draw_ranges() {
        assert_eq!(parse("2..5"), Ok(closed(2, 5)));
        assert_eq!(parse("2..=5"), Ok(closed(2, 6)));
        assert_eq!(parse("7"), Ok(closed(7, 8)));
        assert_eq!(parse(" 0 .. 1 "), Ok(closed(0, 1)));
        assert_eq!(
            parse("3.."),
            Ok(DrawRange {
                start: 3,
                end: None
            })
        );
        for bad in [
            "5..5",
            "5..2",
            "a..2",
            "..3",
            "",
            "-1",
            "1..=18446744073709551615",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn ranges_resolved_against_the_frame() {
        assert_eq!(closed(0, 3).resolve(3), Ok(0..3));
        assert_eq!(parse("1..").unwrap().resolve(3), Ok(1..3));
        assert!(parse("3..").unwrap().resolve(3).is_err());
        assert_eq!(resolve(None, 0), Ok(None));
        let e = closed(2, 4).resolve(3).unwrap_err().to_string();
        assert!(e.contains("2..4") && e.contains("3 draws"), "{e}");
    }
}
