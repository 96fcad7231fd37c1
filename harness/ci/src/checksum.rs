//! Exact image checksums: XXH3-64 of the RGBA8 pixels (row 0 first, 4 bytes per pixel, no
//! header), and the backend keys the manifest files them under ("cpu", "lavapipe"...).

use rsxtrace_gpu::GpuInfo;
use rsxtrace_replay::render::Rgba8Image;
use xxhash_rust::xxh3::xxh3_64;

/// XXH3-64 of the pixels.
pub fn image_checksum(image: &Rgba8Image) -> u64 {
    pixels_checksum(&image.pixels)
}

/// XXH3-64 of RGBA8 pixels held elsewhere than in an [`Rgba8Image`] (row 0 first).
pub fn pixels_checksum(rgba8: &[u8]) -> u64 {
    xxh3_64(rgba8)
}

/// 16 lowercase hex digits, as the manifest writes checksums.
pub fn hex(checksum: u64) -> String {
    format!("{checksum:016x}")
}

/// Backend key of the CPU reference render.
pub const CPU_KEY: &str = "cpu";

/// Backend key of a GPU device: "lavapipe" for Mesa's software Vulkan driver, "llvmpipe" for
/// Mesa's software GL driver (both report an adapter named "llvmpipe ..."), otherwise the
/// adapter name in lowercase with runs of other characters turned into '-', then '-' and
/// the backend ("nvidia-geforce-rtx-4090-vulkan").
pub fn gpu_key(info: &GpuInfo) -> String {
    gpu_key_of(&info.adapter, &info.backend)
}

fn gpu_key_of(adapter: &str, backend: &str) -> String {
    let adapter = adapter.to_ascii_lowercase();
    if adapter.starts_with("llvmpipe") {
        return if backend == "gl" {
            "llvmpipe"
        } else {
            "lavapipe"
        }
        .to_string();
    }
    let mut key = String::new();
    for c in adapter
        .chars()
        .chain(std::iter::once('-'))
        .chain(backend.chars())
    {
        if c.is_ascii_alphanumeric() {
            key.push(c.to_ascii_lowercase());
        } else if !key.is_empty() && !key.ends_with('-') {
            key.push('-');
        }
    }
    key.trim_end_matches('-').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_is_xxh3_of_the_pixels() {
        let image = Rgba8Image {
            width: 1,
            height: 1,
            pixels: vec![1, 2, 3, 4],
        };
        assert_eq!(image_checksum(&image), xxh3_64(&[1, 2, 3, 4]));
        // One changed byte changes the checksum.
        let other = Rgba8Image {
            pixels: vec![1, 2, 3, 5],
            ..image.clone()
        };
        assert_ne!(image_checksum(&image), image_checksum(&other));
        assert_eq!(hex(0xab), "00000000000000ab");
    }

    #[test]
    fn backend_keys() {
        assert_eq!(
            gpu_key_of("llvmpipe (LLVM 15.0.6, 256 bits)", "vulkan"),
            "lavapipe"
        );
        assert_eq!(
            gpu_key_of("llvmpipe (LLVM 15.0.6, 256 bits)", "gl"),
            "llvmpipe"
        );
        assert_eq!(
            gpu_key_of("NVIDIA GeForce RTX 4090", "vulkan"),
            "nvidia-geforce-rtx-4090-vulkan"
        );
        assert_eq!(gpu_key_of("  AMD  Radeon (TM) ", "gl"), "amd-radeon-tm-gl");
    }
}
