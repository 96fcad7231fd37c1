//! Comparing two RGBA8 images: per pixel the largest channel difference, the pixels over a
//! threshold, the mean error, the verdict against a [`Tolerance`], and a difference image that
//! makes differences visible.

use super::manifest::Tolerance;
use rsxtrace_replay::render::Rgba8Image;

/// Numbers of one comparison.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct DiffStats {
    /// Image width (both images).
    pub width: u32,
    /// Image height (both images).
    pub height: u32,
    /// Largest channel difference of any pixel (0..=255).
    pub max_difference: u8,
    /// Pixels whose largest channel difference exceeds the tolerance's threshold.
    pub pixels_over: u64,
    /// Pixels with any difference.
    pub pixels_different: u64,
    /// Mean over all pixels of the largest channel difference (0..=255 scale).
    pub mean_error: f64,
    /// Threshold used for `pixels_over`.
    pub threshold: u8,
    /// First pixel over the threshold, `[x, y]`.
    pub first_over: Option<[u32; 2]>,
}

impl DiffStats {
    /// Whether the comparison is within `tolerance` (its threshold is the one the stats used).
    pub fn within(&self, tolerance: &Tolerance) -> bool {
        self.pixels_over <= tolerance.max_pixels_over && self.mean_error <= tolerance.max_mean_error
    }

    /// One line for people: "12 pixels over 8 (max 40), mean error 0.031".
    pub fn summary(&self) -> String {
        format!(
            "{} pixels over {} (max difference {}), mean error {:.4}",
            self.pixels_over, self.threshold, self.max_difference, self.mean_error
        )
    }
}

/// Why two images cannot be compared.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DiffError {
    /// Different sizes.
    #[error("size differs: actual {actual_w}x{actual_h}, expected {expected_w}x{expected_h}")]
    Size {
        actual_w: u32,
        actual_h: u32,
        expected_w: u32,
        expected_h: u32,
    },
    /// An image's pixel buffer does not hold width x height x 4 bytes.
    #[error("{which} image holds {len} bytes, not {width}x{height}x4")]
    Malformed {
        which: &'static str,
        len: usize,
        width: u32,
        height: u32,
    },
}

fn check_len(which: &'static str, image: &Rgba8Image) -> Result<(), DiffError> {
    let expected = (image.width as usize)
        .checked_mul(image.height as usize)
        .and_then(|n| n.checked_mul(4));
    if expected != Some(image.pixels.len()) {
        return Err(DiffError::Malformed {
            which,
            len: image.pixels.len(),
            width: image.width,
            height: image.height,
        });
    }
    Ok(())
}

fn pixel_difference(a: &[u8], b: &[u8]) -> u8 {
    a.iter()
        .zip(b)
        .map(|(x, y)| x.abs_diff(*y))
        .max()
        .unwrap_or(0)
}

/// Compare `actual` with `expected`; pixels over `threshold` are counted.
pub fn compare(
    actual: &Rgba8Image,
    expected: &Rgba8Image,
    threshold: u8,
) -> Result<DiffStats, DiffError> {
    check_len("actual", actual)?;
    check_len("expected", expected)?;
    if (actual.width, actual.height) != (expected.width, expected.height) {
        return Err(DiffError::Size {
            actual_w: actual.width,
            actual_h: actual.height,
            expected_w: expected.width,
            expected_h: expected.height,
        });
    }
    let mut stats = DiffStats {
        width: actual.width,
        height: actual.height,
        max_difference: 0,
        pixels_over: 0,
        pixels_different: 0,
        mean_error: 0.0,
        threshold,
        first_over: None,
    };
    let mut total: u64 = 0;
    let width = actual.width.max(1) as usize;
    for (i, (a, e)) in actual
        .pixels
        .chunks_exact(4)
        .zip(expected.pixels.chunks_exact(4))
        .enumerate()
    {
        let d = pixel_difference(a, e);
        total += u64::from(d);
        stats.max_difference = stats.max_difference.max(d);
        if d > 0 {
            stats.pixels_different += 1;
        }
        if d > threshold {
            stats.pixels_over += 1;
            if stats.first_over.is_none() {
                // i < width * height, both from u32 sides: the quotient and rest fit in u32.
                let x = u32::try_from(i % width).unwrap_or(u32::MAX);
                let y = u32::try_from(i / width).unwrap_or(u32::MAX);
                stats.first_over = Some([x, y]);
            }
        }
    }
    let count = actual.pixels.len() / 4;
    if count > 0 {
        stats.mean_error = total as f64 / count as f64;
    }
    Ok(stats)
}

/// A picture of the differences between two same-sized images:
/// - identical pixels: the expected pixel's luminance at a quarter (a dim grey context);
/// - differences up to the threshold: yellow, brighter with the difference (128..=255);
/// - differences over the threshold: red, brighter with the difference (160..=255), so even a
///   single over-threshold pixel stands out.
///
/// Every output pixel is opaque.
pub fn difference_image(
    actual: &Rgba8Image,
    expected: &Rgba8Image,
    threshold: u8,
) -> Result<Rgba8Image, DiffError> {
    // Same checks as `compare`.
    compare(actual, expected, u8::MAX)?;
    let pixels = actual
        .pixels
        .chunks_exact(4)
        .zip(expected.pixels.chunks_exact(4))
        .flat_map(|(a, e)| {
            let d = pixel_difference(a, e);
            if d == 0 {
                // Rec. 601 luma in integers: (77 R + 150 G + 29 B) / 256.
                let luma =
                    (77 * u32::from(e[0]) + 150 * u32::from(e[1]) + 29 * u32::from(e[2])) >> 8;
                let dim = (luma / 4) as u8;
                [dim, dim, dim, 255]
            } else if d <= threshold {
                let v = 128 + (u32::from(d) * 127 / u32::from(threshold.max(1))).min(127) as u8;
                [v, v, 0, 255]
            } else {
                let v = 160 + (u32::from(d) * 95 / 255) as u8;
                [v, 0, 0, 255]
            }
        })
        .collect();
    Ok(Rgba8Image {
        width: actual.width,
        height: actual.height,
        pixels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(width: u32, height: u32, pixels: &[[u8; 4]]) -> Rgba8Image {
        Rgba8Image {
            width,
            height,
            pixels: pixels.iter().flatten().copied().collect(),
        }
    }

    #[test]
    fn identical_images_have_no_error() {
        let a = image(2, 1, &[[1, 2, 3, 4], [200, 100, 50, 255]]);
        let s = compare(&a, &a, 0).unwrap();
        assert_eq!(s.max_difference, 0);
        assert_eq!(s.pixels_over, 0);
        assert_eq!(s.pixels_different, 0);
        assert_eq!(s.mean_error, 0.0);
        assert_eq!(s.first_over, None);
        assert!(s.within(&Tolerance {
            threshold: 0,
            max_pixels_over: 0,
            max_mean_error: 0.0
        }));
    }

    #[test]
    fn numbers_of_a_hand_made_pair() {
        // 2x2: pixel (0,0) equal; (1,0) differs by 3 in G; (0,1) by 10 in A and 2 in R;
        // (1,1) by 255 in B.
        let e = image(
            2,
            2,
            &[[0; 4], [10, 10, 10, 10], [5, 5, 5, 5], [0, 0, 0, 0]],
        );
        let a = image(
            2,
            2,
            &[[0; 4], [10, 13, 10, 10], [7, 5, 5, 15], [0, 0, 255, 0]],
        );
        let s = compare(&a, &e, 3).unwrap();
        assert_eq!(s.max_difference, 255);
        assert_eq!(s.pixels_different, 3);
        // Over 3: the 10 and the 255 (the 3 is not over).
        assert_eq!(s.pixels_over, 2);
        assert_eq!(s.first_over, Some([0, 1]));
        assert_eq!(s.mean_error, (3.0 + 10.0 + 255.0) / 4.0);
        let strict = Tolerance {
            threshold: 3,
            max_pixels_over: 1,
            max_mean_error: 100.0,
        };
        assert!(!s.within(&strict));
        let loose = Tolerance {
            max_pixels_over: 2,
            ..strict
        };
        assert!(s.within(&loose));
        let mean_bound = Tolerance {
            max_mean_error: 66.9,
            ..loose
        };
        assert!(!s.within(&mean_bound));
    }

    #[test]
    fn size_and_buffer_mismatches_are_errors() {
        let a = image(2, 1, &[[0; 4], [0; 4]]);
        let b = image(1, 2, &[[0; 4], [0; 4]]);
        assert_eq!(
            compare(&a, &b, 0),
            Err(DiffError::Size {
                actual_w: 2,
                actual_h: 1,
                expected_w: 1,
                expected_h: 2
            })
        );
        let short = Rgba8Image {
            width: 2,
            height: 1,
            pixels: vec![0; 7],
        };
        assert!(matches!(
            compare(&short, &a, 0),
            Err(DiffError::Malformed {
                which: "actual",
                len: 7,
                ..
            })
        ));
        assert!(difference_image(&a, &short, 0).is_err());
    }

    #[test]
    fn difference_image_marks_each_class() {
        let e = image(3, 1, &[[200, 100, 40, 255], [0; 4], [0; 4]]);
        let a = image(3, 1, &[[200, 100, 40, 255], [2, 0, 0, 0], [0, 0, 0, 255]]);
        let d = difference_image(&a, &e, 4).unwrap();
        // Equal: luma = (77*200 + 150*100 + 29*40) >> 8 = 31560 >> 8 = 123; / 4 = 30.
        assert_eq!(d.pixel(0, 0), Some([30, 30, 30, 255]));
        // Within threshold (2 of 4): yellow 128 + 2*127/4 = 191.
        assert_eq!(d.pixel(1, 0), Some([191, 191, 0, 255]));
        // Over: red 160 + 255*95/255 = 255.
        assert_eq!(d.pixel(2, 0), Some([255, 0, 0, 255]));
    }
}
