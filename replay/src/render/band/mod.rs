//! Screen bands: one frame split across machines in screen space (sort-first parallel
//! rendering), so that `rsxtrace replay --shard K/N` on N machines renders N row bands of the
//! output image and a merge puts them together, byte for byte the whole frame's image.
//!
//! - [`shard_rows`]: the rows of band K of N.
//! - [`plan`]: which draws a band may cut (those into the output surface, their scissor
//!   intersected with the band) and whether cutting them is exact; when it is not, the
//!   frame renders whole and the reason is kept.
//! - [`part`]: a band's image as a PNG that names its rows, and the merge of N of them.

pub mod part;
pub mod plan;

pub use part::{merge, read_part, write_part, MergeError, PartInfo};
pub use plan::{BandOutcome, BandPlan};

use crate::render::Rgba8Image;
use std::ops::Range;

/// Band K of N of the output image's rows ([`shard_rows`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Band {
    /// K, 1-based.
    pub index: usize,
    /// N.
    pub count: usize,
}

impl Band {
    /// Its rows in an image `height` rows high.
    pub fn rows(&self, height: u32) -> Range<u32> {
        shard_rows(self.index, self.count, height)
    }
}

/// Rows `floor((K-1)·H/N) .. floor(K·H/N)` of an image `height` rows high: band `index`
/// (1-based) of `count`. The N bands are contiguous, disjoint, cover every row, and differ in
/// height by at most one row (some are empty when the image has fewer rows than bands).
/// `index` outside `1..=count` gives an empty range.
pub fn shard_rows(index: usize, count: usize, height: u32) -> Range<u32> {
    if index == 0 || index > count {
        return 0..0;
    }
    let at = |k: usize| {
        let rows = u128::from(height) * k as u128 / count as u128;
        u32::try_from(rows).unwrap_or(height)
    };
    at(index - 1)..at(index)
}

/// Rows `rows` of `image` as an image of their own (clamped to the image), e.g. to checksum
/// a band.
pub fn rows_of(image: &Rgba8Image, rows: Range<u32>) -> Rgba8Image {
    let end = rows.end.min(image.height);
    let start = rows.start.min(end);
    let row = image.width as usize * 4;
    Rgba8Image {
        width: image.width,
        height: end - start,
        pixels: image
            .pixels
            .get(start as usize * row..end as usize * row)
            .unwrap_or_default()
            .to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_of_takes_whole_rows() {
        let image = Rgba8Image {
            width: 2,
            height: 3,
            pixels: (0..24).collect(),
        };
        let band = rows_of(&image, 1..5);
        assert_eq!((band.width, band.height), (2, 2));
        assert_eq!(band.pixels, (8..24).collect::<Vec<u8>>());
        assert_eq!(rows_of(&image, 3..3).height, 0);
    }

    #[test]
    fn bands_tile_the_rows_evenly() {
        for height in [0u32, 1, 2, 5, 7, 480, 720, 1081] {
            for count in 1..=9usize {
                let mut next = 0;
                for index in 1..=count {
                    let rows = shard_rows(index, count, height);
                    assert_eq!(rows.start, next, "{index}/{count} of {height}");
                    let len = rows.end - rows.start;
                    assert!(len == height / count as u32 || len == height / count as u32 + 1);
                    next = rows.end;
                }
                assert_eq!(next, height);
            }
        }
        assert_eq!(shard_rows(2, 4, 720), 180..360);
        assert_eq!(shard_rows(3, 7, 100), 28..42);
        assert_eq!(shard_rows(0, 3, 100), 0..0);
        assert_eq!(shard_rows(4, 3, 100), 0..0);
    }
}
