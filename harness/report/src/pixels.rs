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
    let w = (f64::from(width) * scale)
        .round()
        .clamp(1.0, f64::from(max_w));
    let h = (f64::from(height) * scale)
        .round()
        .clamp(1.0, f64::from(max_h));
    (w as u32, h as u32)
}

/// The source span `[start, end)` that destination cell `i` of `dst` covers in `src`.
fn span(i: u32, dst: u32, src: u32) -> (usize, usize) {
    let start = u64::from(i) * u64::from(src) / u64::from(dst.max(1));
    let end = (u64::from(i) + 1) * u64::from(src) / u64::from(dst.max(1));
    (start as usize, (end.max(start + 1)) as usize)
}

/// For each of `src` source columns (or rows), the destination cell of `dst` whose span
/// ([`downscale`]'s) holds it.
pub fn cell_map(dst: u32, src: u32) -> Vec<usize> {
    let mut map = vec![0; src as usize];
    for i in 0..dst {
        let (a, b) = span(i, dst, src);
        for m in map.get_mut(a..b).into_iter().flatten() {
            *m = i as usize;
        }
    }
    map
}

/// `image` downscaled to fit `max_w` x `max_h` by averaging the source pixels under each
/// destination pixel (the image itself when it fits).
pub fn downscale(image: &Rgba8Image, max_w: u32, max_h: u32) -> Rgba8Image {
    let (w, h) = fit(image.width, image.height, max_w, max_h);
    if (w, h) == (image.width, image.height) {
        return image.clone();
    }
    let row_bytes = image.width as usize * 4;
    let mut pixels = Vec::with_capacity(w as usize * h as usize * 4);
    let columns: Vec<(usize, usize)> = (0..w).map(|x| span(x, w, image.width)).collect();
    let mut sums = vec![[0u32; 4]; w as usize];
    // The source rows of a destination row summed byte by byte first (a loop the compiler
    // vectorises), then each cell's columns of that one row.
    let mut rows = vec![0u32; row_bytes];
    for y in 0..h {
        let (y0, y1) = span(y, h, image.height);
        rows.iter_mut().for_each(|s| *s = 0);
        for sy in y0..y1 {
            let Some(row) = image.pixels.get(sy * row_bytes..(sy + 1) * row_bytes) else {
                continue;
            };
            for (acc, &b) in rows.iter_mut().zip(row) {
                *acc += u32::from(b);
            }
        }
        for (sum, &(x0, x1)) in sums.iter_mut().zip(&columns) {
            *sum = [0; 4];
            for p in rows.get(x0 * 4..x1 * 4).unwrap_or_default().chunks_exact(4) {
                sum[0] += p[0];
                sum[1] += p[1];
                sum[2] += p[2];
                sum[3] += p[3];
            }
        }
        for (sum, &(x0, x1)) in sums.iter().zip(&columns) {
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

/// The colour of the outline around a draw's changes in the change view.
pub const OUTLINE: [u8; 4] = [255, 0, 255, 255];

/// The pixels that differ between `before` and `after` (same size; a size mismatch counts
/// every pixel), and an overlay at the size of `after_view` (`after` scaled down): the view's
/// pixel where any pixel under it changed, an [`OUTLINE`] around them, transparent elsewhere
/// (pages lay it over a dimmed copy of the view).
pub fn change_view(
    before: &Rgba8Image,
    after: &Rgba8Image,
    after_view: &Rgba8Image,
) -> (Change, Rgba8Image) {
    let same_size = (before.width, before.height) == (after.width, after.height);
    let (vw, vh) = (after_view.width as usize, after_view.height as usize);
    let (xcell, ycell) = (
        cell_map(vw as u32, after.width),
        cell_map(vh as u32, after.height),
    );
    let mut hit = vec![false; vw * vh];
    let mut change = Change::default();
    let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0u32, 0u32);
    let row_bytes = after.width as usize * 4;
    for (y, row) in after.pixels.chunks_exact(row_bytes.max(1)).enumerate() {
        let old = before.pixels.get(y * row_bytes..(y + 1) * row_bytes);
        if same_size && old == Some(row) {
            continue;
        }
        let old = old.filter(|_| same_size);
        for (x, px) in row.chunks_exact(4).enumerate() {
            if old.is_some_and(|o| o.get(x * 4..x * 4 + 4) == Some(px)) {
                continue;
            }
            change.pixels += 1;
            let (xu, yu) = (x as u32, y as u32);
            x0 = x0.min(xu);
            y0 = y0.min(yu);
            x1 = x1.max(xu + 1);
            y1 = y1.max(yu + 1);
            if let (Some(cx), Some(cy)) = (xcell.get(x), ycell.get(y)) {
                if let Some(h) = hit.get_mut(cy * vw + cx) {
                    *h = true;
                }
            }
        }
    }
    if change.pixels > 0 {
        change.bounds = Some((x0, y0, x1, y1));
    }
    let mut overlay = Rgba8Image {
        width: after_view.width,
        height: after_view.height,
        pixels: vec![0; vw * vh * 4],
    };
    if change.pixels == 0 {
        return (change, overlay);
    }
    let (mut cx0, mut cy0, mut cx1, mut cy1) = (usize::MAX, usize::MAX, 0, 0);
    for (i, _) in hit.iter().enumerate().filter(|(_, h)| **h) {
        let (cx, cy) = (i % vw, i / vw);
        cx0 = cx0.min(cx);
        cy0 = cy0.min(cy);
        cx1 = cx1.max(cx);
        cy1 = cy1.max(cy);
        let at = i * 4;
        if let (Some(src), Some(dst)) = (
            after_view.pixels.get(at..at + 3),
            overlay.pixels.get_mut(at..at + 4),
        ) {
            dst[..3].copy_from_slice(src);
            dst[3] = 255;
        }
    }
    // The changed cells' bounding box, outlined one cell outside it where the view has room,
    // so that a change of a few pixels is found at a glance.
    let (bx0, by0) = (cx0.saturating_sub(1), cy0.saturating_sub(1));
    let (bx1, by1) = ((cx1 + 1).min(vw - 1), (cy1 + 1).min(vh - 1));
    let mut outline = |x: usize, y: usize| {
        let at = (y * vw + x) * 4;
        if let Some(p) = overlay.pixels.get_mut(at..at + 4) {
            if p[3] == 0 {
                p.copy_from_slice(&OUTLINE);
            }
        }
    };
    for x in bx0..=bx1 {
        outline(x, by0);
        outline(x, by1);
    }
    for y in by0..=by1 {
        outline(bx0, y);
        outline(bx1, y);
    }
    (change, overlay)
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
        // zlib's default level: about a fifth smaller than the fast setting on rendered frames.
        encoder.set_compression(png::Compression::Default);
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
        let small = downscale(&after, 4, 4);
        let (change, view) = change_view(&before, &after, &small);
        assert_eq!(change.pixels, 2);
        assert_eq!(change.bounds, Some((2, 5, 4, 6)));
        assert_eq!((view.width, view.height), (4, 4));
        // View pixel (1, 2) covers source (2..4, 4..6): changed, shown as the scaled view.
        assert_eq!(view.pixel(1, 2), Some([130, 10, 15, 255]));
        // Outlined one cell outside (cells (0..=2, 1..=3)), transparent elsewhere.
        assert_eq!(view.pixel(0, 2), Some(OUTLINE));
        assert_eq!(view.pixel(2, 3), Some(OUTLINE));
        assert_eq!(view.pixel(3, 0), Some([0, 0, 0, 0]));
        assert_eq!(view.pixel(1, 0), Some([0, 0, 0, 0]));
        let (same, clear) = change_view(&before, &before, &small);
        assert_eq!(same, Change::default());
        assert!(clear.pixels.iter().all(|&v| v == 0));
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
                Channels::Rgb => src
                    .pixels
                    .chunks(4)
                    .flat_map(|p| [p[0], p[1], p[2]])
                    .collect(),
                Channels::Rgba => src.pixels.clone(),
            };
            assert_eq!(&buf[..info.buffer_size()], &expected[..]);
        }
    }
}
