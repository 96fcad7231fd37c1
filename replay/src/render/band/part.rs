//! A band's image on disk and the merge of N of them.
//!
//! A part is a full-size 8-bit RGBA PNG whose rows outside the band are transparent black,
//! with an `iTXt` chunk `rsxtrace-band` holding [`PartInfo`] as JSON: the band's rows, the
//! image size and the frame it shows (capture, draws, renderer). [`merge`] takes the band
//! rows of each part: the parts must show the same frame at the same size, and their bands
//! must cover every row exactly once.

use crate::render::{RenderError, Rgba8Image};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::ops::Range;
use std::path::Path;

/// The `iTXt` keyword of a part's [`PartInfo`].
pub const PART_KEYWORD: &str = "rsxtrace-band";

/// What a part holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartInfo {
    /// `K/N` of the shard that rendered it.
    pub shard: String,
    /// Rows of the image the part holds.
    pub rows: Range<u32>,
    /// Image width.
    pub width: u32,
    /// Image height.
    pub height: u32,
    /// The frame it shows, as the front end names it (capture, draws, renderer): parts of
    /// different frames are not merged.
    pub frame: String,
}

/// Why parts could not be merged.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MergeError {
    /// No part given.
    #[error("no part to merge")]
    NoParts,
    /// A PNG could not be read, or it is not a part.
    #[error("{path}: {message}")]
    Read {
        /// File.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// Parts of different sizes or frames.
    #[error("{path} is {found}, but {first} is {expected}")]
    Mismatch {
        /// The part that differs.
        path: String,
        /// What it is.
        found: String,
        /// The first part.
        first: String,
        /// What the first part is.
        expected: String,
    },
    /// A part's rows lie outside the image.
    #[error("{path}: rows {start}..{end} lie outside the image's {height} rows")]
    OutOfImage {
        /// File.
        path: String,
        /// First row.
        start: u32,
        /// Row past the last.
        end: u32,
        /// Image height.
        height: u32,
    },
    /// Two parts hold the same rows.
    #[error("rows {start}..{end} are in both {first} and {second}")]
    Overlap {
        /// First row.
        start: u32,
        /// Row past the last.
        end: u32,
        /// One part.
        first: String,
        /// The other.
        second: String,
    },
    /// Rows no part holds.
    #[error("rows {missing} are in no part")]
    Missing {
        /// The row ranges, e.g. "0..180, 540..720".
        missing: String,
    },
}

/// Write `image` (already masked to the band) as a part PNG.
pub fn write_part(image: &Rgba8Image, info: &PartInfo, path: &Path) -> Result<(), RenderError> {
    let fail = |message: String| RenderError::Png {
        path: path.display().to_string(),
        message,
    };
    let text = serde_json::to_string(info).map_err(|e| fail(e.to_string()))?;
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, image.width, image.height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder
            .add_itxt_chunk(PART_KEYWORD.to_string(), text)
            .map_err(|e| fail(e.to_string()))?;
        let mut writer = encoder.write_header().map_err(|e| fail(e.to_string()))?;
        writer
            .write_image_data(&image.pixels)
            .map_err(|e| fail(e.to_string()))?;
    }
    std::fs::write(path, out).map_err(|e| fail(e.to_string()))
}

/// Read a part PNG: its image and what it holds.
pub fn read_part(path: &Path) -> Result<(Rgba8Image, PartInfo), MergeError> {
    let fail = |message: String| MergeError::Read {
        path: path.display().to_string(),
        message,
    };
    let image = Rgba8Image::read_png(path).map_err(|e| match e {
        RenderError::Png { message, .. } => fail(message),
        other => fail(other.to_string()),
    })?;
    let info = part_info(path).map_err(fail)?;
    if (info.width, info.height) != (image.width, image.height) {
        return Err(fail(format!(
            "the image is {}x{} but its band chunk says {}x{}",
            image.width, image.height, info.width, info.height
        )));
    }
    Ok((image, info))
}

/// The [`PartInfo`] chunk of a PNG.
fn part_info(path: &Path) -> Result<PartInfo, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_ignore_text_chunk(false);
    let reader = decoder.read_info().map_err(|e| e.to_string())?;
    let chunk = reader
        .info()
        .utf8_text
        .iter()
        .find(|c| c.keyword == PART_KEYWORD)
        .ok_or_else(|| {
            format!("not a band part (no {PART_KEYWORD} chunk; write parts with replay --shard)")
        })?;
    let text = chunk.get_text().map_err(|e| e.to_string())?;
    serde_json::from_str(&text).map_err(|e| format!("bad {PART_KEYWORD} chunk: {e}"))
}

/// Merge parts `(name, image, info)` into the whole image: each part's band rows, copied.
pub fn merge(parts: &[(String, Rgba8Image, PartInfo)]) -> Result<Rgba8Image, MergeError> {
    let (first_name, _, first) = parts.first().ok_or(MergeError::NoParts)?;
    let (width, height) = (first.width, first.height);
    for (name, image, info) in parts {
        let found = (image.width, image.height);
        if found != (width, height) {
            return Err(MergeError::Mismatch {
                path: name.clone(),
                found: format!("{}x{}", found.0, found.1),
                first: first_name.clone(),
                expected: format!("{width}x{height}"),
            });
        }
        if info.frame != first.frame {
            return Err(MergeError::Mismatch {
                path: name.clone(),
                found: format!("a band of {}", info.frame),
                first: first_name.clone(),
                expected: format!("a band of {}", first.frame),
            });
        }
        if info.rows.start > info.rows.end || info.rows.end > height {
            return Err(MergeError::OutOfImage {
                path: name.clone(),
                start: info.rows.start,
                end: info.rows.end,
                height,
            });
        }
    }
    let mut order: Vec<&(String, Rgba8Image, PartInfo)> =
        parts.iter().filter(|p| !p.2.rows.is_empty()).collect();
    order.sort_by_key(|p| (p.2.rows.start, p.2.rows.end));
    let mut missing = String::new();
    let mut next = 0u32;
    let mut previous: Option<&(String, Rgba8Image, PartInfo)> = None;
    for part in &order {
        let rows = &part.2.rows;
        if let Some(prev) = previous.filter(|p| p.2.rows.end > rows.start) {
            return Err(MergeError::Overlap {
                start: rows.start,
                end: prev.2.rows.end.min(rows.end),
                first: prev.0.clone(),
                second: part.0.clone(),
            });
        }
        if rows.start > next {
            note_missing(&mut missing, next, rows.start);
        }
        next = rows.end;
        previous = Some(part);
    }
    if next < height {
        note_missing(&mut missing, next, height);
    }
    if !missing.is_empty() {
        return Err(MergeError::Missing { missing });
    }
    let mut merged = Rgba8Image::filled(width, height, [0; 4]);
    let row = width as usize * 4;
    for (_, image, info) in order {
        let span = info.rows.start as usize * row..info.rows.end as usize * row;
        if let (Some(to), Some(from)) = (
            merged.pixels.get_mut(span.clone()),
            image.pixels.get(span.clone()),
        ) {
            to.copy_from_slice(from);
        }
    }
    Ok(merged)
}

fn note_missing(out: &mut String, start: u32, end: u32) {
    if !out.is_empty() {
        out.push_str(", ");
    }
    let _ = write!(out, "{start}..{end}");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(name: &str, rows: Range<u32>, fill: u8) -> (String, Rgba8Image, PartInfo) {
        let mut image = Rgba8Image::filled(3, 10, [0; 4]);
        for y in rows.clone() {
            for x in 0..3usize {
                let at = (y as usize * 3 + x) * 4;
                image.pixels[at..at + 4].copy_from_slice(&[fill, y as u8, x as u8, 255]);
            }
        }
        let info = PartInfo {
            shard: "?".into(),
            rows,
            width: 3,
            height: 10,
            frame: "f".into(),
        };
        (name.to_string(), image, info)
    }

    #[test]
    fn merges_bands_in_any_order() {
        let merged = merge(&[part("b", 4..10, 2), part("a", 0..4, 1), part("e", 4..4, 9)]).unwrap();
        assert_eq!(merged.pixel(1, 3), Some([1, 3, 1, 255]));
        assert_eq!(merged.pixel(2, 4), Some([2, 4, 2, 255]));
        assert_eq!(merged.pixel(0, 9), Some([2, 9, 0, 255]));
    }

    #[test]
    fn refuses_overlaps_gaps_and_mismatches() {
        let e = merge(&[part("a", 0..5, 1), part("b", 4..10, 2)]).unwrap_err();
        assert_eq!(e.to_string(), "rows 4..5 are in both a and b");
        let e = merge(&[part("a", 1..3, 1), part("b", 5..9, 2)]).unwrap_err();
        assert_eq!(e.to_string(), "rows 0..1, 3..5, 9..10 are in no part");
        let mut other = part("b", 5..10, 2);
        other.2.frame = "g".into();
        let e = merge(&[part("a", 0..5, 1), other]).unwrap_err();
        assert!(e.to_string().contains("a band of g"), "{e}");
        let mut small = part("b", 5..10, 2);
        small.1 = Rgba8Image::filled(3, 9, [0; 4]);
        let e = merge(&[part("a", 0..5, 1), small]).unwrap_err();
        assert_eq!(e.to_string(), "b is 3x9, but a is 3x10");
        let mut tall = part("a", 0..10, 1);
        tall.2.rows = 0..11;
        let e = merge(&[tall]).unwrap_err();
        assert!(matches!(e, MergeError::OutOfImage { .. }), "{e}");
        assert!(matches!(merge(&[]), Err(MergeError::NoParts)));
    }

    #[test]
    fn parts_round_trip_through_png() {
        let dir = std::env::temp_dir().join(format!("rsxtrace-band-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (_, image, info) = part("a", 2..7, 5);
        let path = dir.join("part.png");
        write_part(&image, &info, &path).unwrap();
        let (back, back_info) = read_part(&path).unwrap();
        assert_eq!(back, image);
        assert_eq!(back_info, info);
        image.write_png(dir.join("plain.png")).unwrap();
        let e = read_part(&dir.join("plain.png")).unwrap_err();
        assert!(e.to_string().contains("not a band part"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
