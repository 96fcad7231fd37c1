//! Pixel work on 8-bit RGBA images: area-average downscaling into a box, the "what changed"
//! view of a draw, and PNG encoding (opaque RGB for targets, RGBA for textures).

use rsxtrace_replay::render::Rgba8Image;

/// The size of `width` x `height` scaled down (never up) to fit in `max_w` x `max_h`, keeping
/// the aspect ratio, at least 1 x 1.
pub fn fit(width: u32, height: u32, max_w: u32, max_h: u32) -> (u32, u32) {
    if width <= max_w && height <= max_h {
        return (width.max(1), height.max(1));
    }
    let scale = f64::min(
        f64::from(max_w) / f64::from(width.max(1)),
        f64::from(max_h) / f64::from(height.max(1)),
    );
    let w = (f64::from(width) * scale).round().clamp(1.0, f64::from(max_w));
    let h = (f64::from(height) * scale).round().clamp(1.0, f64::from(max_h));
    (w as u32, h as u32)
}

/// The source span `[start, end)` that destination cell `i` of `dst` covers in `src`.
fn span(i: u32, dst: u32, src: u32) -> (usize, usize) {
    let start = u64::from(i) * u64::from(src) / u64::from(dst.max(1));
    let end = (u64::from(i) + 1) * u64::from(src) / u64::from(dst.max(1));
    (start as usize, (end.max(start + 1)) as usize)
}

/// `image` downscaled to fit `max_w` x `max_h` by averaging the source pixels under each
/// destination pixel (the image itself when it fits).
pub fn downscale(image: &Rgba8Image, max_w: u32, max_h: u32) -> Rgba8Image {
    let (w, h) = fit(image.width, image.height, max_w, max_h);
    if (w, h) == (image.width, image.height) {
        return image.clone();
    }
    let src_w = image.width as usize;
    let mut pixels = Vec::with_capacity(w as usize * h as usize * 4);
    for y in 0..h {
        let (y0, y1) = span(y, h, image.height);
        for x in 0..w {
            let (x0, x1) = span(x, w, image.width);
            let mut sum = [0u32; 4];
            for sy in y0..y1 {
                let row = sy * src_w;
                for sx in x0..x1 {
                    let at = (row + sx) * 4;
                    if let Some(p) = image.pixels.get(at..at + 4) {
                        for (s, v) in sum.iter_mut().zip(p) {
                            *s += u32::from(*v);
                        }
                    }
                }
            }
            let n = ((y1 - y0) * (x1 - x0)).max(1) as u32;
            pixels.extend(sum.iter().map(|s| ((s + n / 2) / n) as u8));
        }
    }
    Rgba8Image {
        width: w,
        height: h,
        pixels,
    }
}

/// What a draw changed, counted on the full-size images.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Change {
    /// Pixels whose 8-bit RGBA differs.
    pub pixels: u64,
    /// Their bounding box `(x0, y0, x1, y1)`, `x1`/`y1` excluded; `None` when none differ.
    pub bounds: Option<(u32, u32, u32, u32)>,
}

/// The pixels that differ between `before` and `after` (same size; a size mismatch counts
/// every pixel), and a view fitting `max_w` x `max_h`: the after image where any pixel under a
/// view pixel changed, a dark grey of it elsewhere.
pub fn change_view(
    before: &Rgba8Image,
    after: &Rgba8Image,
    max_w: u32,
    max_h: u32,
) -> (Change, Rgba8Image) {
    let same_size = (before.width, before.height) == (after.width, after.height);
    let (fw, fh) = (after.width as usize, after.height as usize);
    let mut changed = vec![false; fw * fh];
    let mut change = Change::default();
    let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0u32, 0u32);
    for (i, flag) in changed.iter_mut().enumerate() {
        let at = i * 4;
        let differs =
            !same_size || before.pixels.get(at..at + 4) != after.pixels.get(at..at + 4);
        if differs {
            *flag = true;
            change.pixels += 1;
            let (x, y) = ((i % fw) as u32, (i / fw) as u32);
            x0 = x0.min(x);
            y0 = y0.min(y);
            x1 = x1.max(x + 1);
            y1 = y1.max(y + 1);
        }
    }
    if change.pixels > 0 {
        change.bounds = Some((x0, y0, x1, y1));
    }
    let small = downscale(after, max_w, max_h);
    let mut view = small.clone();
    for y in 0..small.height {
        let (sy0, sy1) = span(y, small.height, after.height);
        for x in 0..small.width {
            let (sx0, sx1) = span(x, small.width, after.width);
            let hit = (sy0..sy1).any(|sy| {
                changed
                    .get(sy * fw + sx0..sy * fw + sx1)
                    .is_some_and(|r| r.iter().any(|&c| c))
            });
            if !hit {
                let at = (y as usize * small.width as usize + x as usize) * 4;
                if let Some(p) = view.pixels.get_mut(at..at + 4) {
                    let luma = (u32::from(p[0]) * 3 + u32::from(p[1]) * 6 + u32::from(p[2])) / 10;
                    let grey = (luma / 5 + 16) as u8;
                    p.copy_from_slice(&[grey, grey, grey, 255]);
                }
            }
        }
    }
    (change, view)
}

/// PNG colour layout of an encoded image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channels {
    /// Alpha dropped (targets: the site shows colour; alpha is listed as state).
    Rgb,
    /// Kept (textures, shown over a checkerboard).
    Rgba,
}

/// `image` as PNG bytes.
pub fn encode_png(image: &Rgba8Image, channels: Channels) -> Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, image.width, image.height);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Fast);
        encoder.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
        match channels {
            Channels::Rgb => {
                encoder.set_color(png::ColorType::Rgb);
                let rgb: Vec<u8> = image
                    .pixels
                    .chunks_exact(4)
                    .flat_map(|p| [p[0], p[1], p[2]])
                    .collect();
                encoder.write_header()?.write_image_data(&rgb)?;
            }
            Channels::Rgba => {
                encoder.set_color(png::ColorType::Rgba);
                encoder.write_header()?.write_image_data(&image.pixels)?;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(width: u32, height: u32, f: impl Fn(u32, u32) -> [u8; 4]) -> Rgba8Image {
        let pixels = (0..height)
            .flat_map(|y| (0..width).map(move |x| (x, y)))
            .flat_map(|(x, y)| f(x, y))
            .collect();
        Rgba8Image {
            width,
            height,
            pixels,
        }
    }

    #[test]
    fn fit_keeps_the_aspect_and_never_grows() {
        assert_eq!(fit(1280, 720, 160, 90), (160, 90));
        assert_eq!(fit(720, 1280, 160, 90), (51, 90));
        assert_eq!(fit(64, 32, 160, 90), (64, 32));
        assert_eq!(fit(4096, 1, 160, 90), (160, 1));
    }

    #[test]
    fn downscale_averages_blocks() {
        // 4x2: left half black, right half white.
        let src = image(4, 2, |x, _| if x < 2 { [0, 0, 0, 255] } else { [255; 4] });
        let small = downscale(&src, 2, 1);
        assert_eq!((small.width, small.height), (2, 1));
        assert_eq!(small.pixels, vec![0, 0, 0, 255, 255, 255, 255, 255]);
        let mixed = downscale(&image(2, 1, |x, _| [x as u8 * 200, 0, 0, 255]), 1, 1);
        assert_eq!(mixed.pixels, vec![100, 0, 0, 255]);
    }

    #[test]
    fn change_view_counts_and_marks_changed_pixels() {
        let before = image(8, 8, |_, _| [10, 20, 30, 255]);
        let after = image(8, 8, |x, y| {
            if (2..4).contains(&x) && y == 5 {
                [250, 0, 0, 255]
            } else {
                [10, 20, 30, 255]
            }
        });
        let (change, view) = change_view(&before, &after, 4, 4);
        assert_eq!(change.pixels, 2);
        assert_eq!(change.bounds, Some((2, 5, 4, 6)));
        assert_eq!((view.width, view.height), (4, 4));
        // View pixel (1, 2) covers source (2..4, 4..6): changed, shown in colour.
        assert_eq!(view.pixel(1, 2), Some([130, 10, 15, 255]));
        // Elsewhere a dark grey.
        let p = view.pixel(0, 0).unwrap();
        assert!(p[0] == p[1] && p[1] == p[2] && p[0] < 40, "{p:?}");
        let (same, _) = change_view(&before, &before, 4, 4);
        assert_eq!(same, Change::default());
    }

    #[test]
    fn png_round_trips_through_the_decoder() {
        let src = image(3, 2, |x, y| [x as u8 * 80, y as u8 * 90, 7, 128]);
        for channels in [Channels::Rgb, Channels::Rgba] {
            let bytes = encode_png(&src, channels).expect("encode");
            let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
            let mut reader = decoder.read_info().expect("header");
            let mut buf = vec![0; reader.output_buffer_size()];
            let info = reader.next_frame(&mut buf).expect("frame");
            assert_eq!((info.width, info.height), (3, 2));
            let expected: Vec<u8> = match channels {
                Channels::Rgb => src.pixels.chunks(4).flat_map(|p| [p[0], p[1], p[2]]).collect(),
                Channels::Rgba => src.pixels.clone(),
            };
            assert_eq!(&buf[..info.buffer_size()], &expected[..]);
        }
    }
}
