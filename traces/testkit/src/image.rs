//! RGBA8 PNG files and image comparison for tests: read a PNG as RGBA8 (8-bit RGB gets an
//! opaque alpha), write RGBA8 pixels as a PNG, and compare two RGBA8 buffers pixel by pixel
//! by the largest difference of their four channels.

use std::path::Path;

/// A decoded 8-bit PNG as RGBA8 rows, top row first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Png {
    pub width: u32,
    pub height: u32,
    /// `width * height * 4` bytes.
    pub rgba: Vec<u8>,
}

/// Reads an 8-bit RGBA or RGB PNG as RGBA8; panics naming the file on anything else.
pub fn read_png(path: &Path) -> Png {
    decode(path).1
}

/// Reads a PNG that must be stored as 8-bit RGBA (what rsxtrace writes); panics otherwise.
pub fn read_rgba_png(path: &Path) -> Png {
    let (stored, png) = decode(path);
    assert_eq!(stored, png::ColorType::Rgba, "{}: not RGBA", path.display());
    png
}

/// The colour type the file stores and its pixels as RGBA8.
fn decode(path: &Path) -> (png::ColorType, Png) {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let decoder = png::Decoder::new(std::io::BufReader::new(file));
    let mut reader = decoder
        .read_info()
        .unwrap_or_else(|e| panic!("{}: png header: {e}", path.display()));
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader
        .next_frame(&mut buf)
        .unwrap_or_else(|e| panic!("{}: png frame: {e}", path.display()));
    buf.truncate(info.buffer_size());
    assert_eq!(
        info.bit_depth,
        png::BitDepth::Eight,
        "{}: not 8 bits per channel",
        path.display()
    );
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        other => panic!("{}: unexpected png colour type {other:?}", path.display()),
    };
    let png = Png {
        width: info.width,
        height: info.height,
        rgba,
    };
    (info.color_type, png)
}

/// Writes `rgba` (`width * height * 4` bytes) as an 8-bit RGBA PNG; panics on failure.
pub fn write_png(path: &Path, width: u32, height: u32, rgba: &[u8]) {
    assert_eq!(
        rgba.len() as u64,
        u64::from(width) * u64::from(height) * 4,
        "{}: {width}x{height} RGBA8 needs {} bytes, got {}",
        path.display(),
        u64::from(width) * u64::from(height) * 4,
        rgba.len()
    );
    let file = std::fs::File::create(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder
        .write_header()
        .and_then(|mut w| w.write_image_data(rgba))
        .unwrap_or_else(|e| panic!("{}: write png: {e}", path.display()));
}

/// Whether every channel of two pixels lies within `tolerance`.
pub fn pixels_close(a: [u8; 4], b: [u8; 4], tolerance: u8) -> bool {
    a.iter().zip(&b).all(|(x, y)| x.abs_diff(*y) <= tolerance)
}

/// How two RGBA8 images differ: for every difference d in 0..=255, how many pixels have d as
/// the largest difference of their four channels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comparison {
    histogram: [usize; 256],
    pixels: usize,
}

impl Comparison {
    /// Compares two RGBA8 buffers of equal length; panics when the lengths differ.
    pub fn of(a: &[u8], b: &[u8]) -> Comparison {
        assert_eq!(a.len(), b.len(), "images of different sizes");
        let mut histogram = [0usize; 256];
        for (p, q) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
            let d = p
                .iter()
                .zip(q)
                .map(|(x, y)| x.abs_diff(*y))
                .max()
                .unwrap_or(0);
            histogram[usize::from(d)] += 1;
        }
        Comparison {
            histogram,
            pixels: a.len() / 4,
        }
    }

    /// The number of pixels compared.
    pub fn pixels(&self) -> usize {
        self.pixels
    }

    /// Pixels whose channels all lie within `tolerance`.
    pub fn count_within(&self, tolerance: u8) -> usize {
        self.histogram[..=usize::from(tolerance)].iter().sum()
    }

    /// Pixels with a channel more than `tolerance` apart.
    pub fn count_over(&self, tolerance: u8) -> usize {
        self.pixels - self.count_within(tolerance)
    }

    /// Percentage (0..=100) of pixels whose channels all lie within `tolerance` (of at least
    /// one pixel, so an empty image scores 0).
    pub fn percent_within(&self, tolerance: u8) -> f64 {
        100.0 * self.count_within(tolerance) as f64 / self.pixels.max(1) as f64
    }

    /// The largest channel difference of any pixel.
    pub fn max_difference(&self) -> u8 {
        self.histogram.iter().rposition(|&n| n > 0).unwrap_or(0) as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rgba_round_trips_through_a_png_file() {
        let t = tempfile::tempdir().unwrap();
        let path = t.path().join("x.png");
        let rgba: Vec<u8> = (0..3 * 2 * 4).map(|i| (i * 37 % 256) as u8).collect();
        write_png(&path, 3, 2, &rgba);
        let back = read_rgba_png(&path);
        assert_eq!((back.width, back.height), (3, 2));
        assert_eq!(back.rgba, rgba);
    }

    #[test]
    fn rgb_reads_with_opaque_alpha() {
        let t = tempfile::tempdir().unwrap();
        let path = t.path().join("rgb.png");
        let file = std::fs::File::create(&path).unwrap();
        let mut e = png::Encoder::new(file, 2, 1);
        e.set_color(png::ColorType::Rgb);
        e.set_depth(png::BitDepth::Eight);
        e.write_header()
            .unwrap()
            .write_image_data(&[1, 2, 3, 4, 5, 6])
            .unwrap();
        assert_eq!(read_png(&path).rgba, [1, 2, 3, 255, 4, 5, 6, 255]);
    }

    #[test]
    #[should_panic(expected = "not RGBA")]
    fn rgb_is_refused_where_rgba_is_required() {
        let t = tempfile::tempdir().unwrap();
        let path = t.path().join("rgb.png");
        let mut e = png::Encoder::new(std::fs::File::create(&path).unwrap(), 1, 1);
        e.set_color(png::ColorType::Rgb);
        e.set_depth(png::BitDepth::Eight);
        e.write_header()
            .unwrap()
            .write_image_data(&[0, 0, 0])
            .unwrap();
        read_rgba_png(&path);
    }

    #[test]
    #[should_panic(expected = "needs 8 bytes")]
    fn a_short_buffer_is_refused() {
        let t = tempfile::tempdir().unwrap();
        write_png(&t.path().join("x.png"), 2, 1, &[0; 7]);
    }

    #[test]
    fn comparison_counts_by_largest_channel_difference() {
        // Pixel differences (largest channel): 0, 1, 3, 0 (alpha counts too), 200.
        let a = [
            10, 10, 10, 10, /**/ 10, 10, 10, 10, /**/ 10, 10, 10, 10, /**/ 0, 0, 0,
            0, /**/
            0, 0, 0, 255,
        ];
        let b = [
            10, 10, 10, 10, /**/ 11, 9, 10, 10, /**/ 10, 13, 8, 10, /**/ 0, 0, 0,
            0, /**/
            0, 0, 0, 55,
        ];
        let c = Comparison::of(&a, &b);
        assert_eq!(c.pixels(), 5);
        assert_eq!(c.count_within(0), 2);
        assert_eq!(c.count_within(1), 3);
        assert_eq!(c.count_within(2), 3);
        assert_eq!(c.count_over(2), 2);
        assert_eq!(c.count_within(255), 5);
        assert_eq!(c.max_difference(), 200);
        assert!((c.percent_within(1) - 60.0).abs() < 1e-12);
        assert!(pixels_close([1, 2, 3, 4], [3, 0, 3, 4], 2));
        assert!(!pixels_close([1, 2, 3, 4], [1, 2, 3, 7], 2));
    }

    #[test]
    fn empty_images_compare_as_zero_pixels() {
        let c = Comparison::of(&[], &[]);
        assert_eq!(
            (c.pixels(), c.max_difference(), c.percent_within(0)),
            (0, 0, 0.0)
        );
    }
}
