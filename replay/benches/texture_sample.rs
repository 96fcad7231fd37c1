//! Bilinear samples per second on a 256x256 A8R8G8B8 texture (swizzled, wrap, LINEAR mag and
//! min filters, no mipmaps), through the public [`CaptureSampler`] path; and the same texture
//! with anisotropic filtering x4 under a 4:1 footprint (four bilinear samples a request).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use rsxtrace_capture::fetch::FlatMemory;
use rsxtrace_capture::frame::state::{Texture, TextureRegs};
use rsxtrace_replay::texture::{CaptureSampler, LodSource, SampleRequest, Sampler};

/// The texture, its CONTROL0 max anisotropy field `aniso` (0 = x1, 2 = x4).
fn texture(aniso: u32) -> Texture {
    Texture::from_regs(&TextureRegs {
        offset: 0,
        // local, 2D, no border texels, A8R8G8B8 (swizzled), 1 mip level.
        format: 1 | (1 << 3) | (2 << 4) | (0x85 << 8) | (1 << 16),
        // wrap s, t, r = WRAP.
        address: 1 | (1 << 8) | (1 << 16),
        control0: (1 << 31) | (12 << 8 << 7) | (aniso << 4),
        control1: 0xAAE4,
        control2: 0,
        // min LINEAR (2), mag LINEAR (2).
        filter: (2 << 16) | (2 << 24),
        image_rect: (256 << 16) | 256,
        border_color: 0,
        control3: (1 << 20) | 1024,
    })
}

fn bench(c: &mut Criterion) {
    let bytes: Vec<u8> = (0..256 * 256 * 4)
        .map(|i: u32| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let mem = FlatMemory::local(bytes);
    let mut textures = [texture(0); 16];
    for t in textures.iter_mut().skip(2) {
        t.control0.enabled = false;
    }
    // Unit 1: the same texture, anisotropic x4.
    textures[1] = texture(2);
    let sampler = CaptureSampler::new(&textures, &mem).expect("decodes");
    // 4096 requests spread over the texture at non-texel-centre positions, with derivatives of
    // one texel per pixel (magnification: the LINEAR mag filter).
    let requests: Vec<SampleRequest> = (0..4096u32)
        .map(|i| {
            let s = (i % 64) as f32 / 64.0 + 0.0031;
            let t = (i / 64) as f32 / 64.0 + 0.0017;
            SampleRequest {
                coord: [s, t, 0.0, 1.0],
                ddx: [1.0 / 256.0, 0.0, 0.0, 0.0],
                ddy: [0.0, 1.0 / 256.0, 0.0, 0.0],
                lod: LodSource::Implicit,
            }
        })
        .collect();
    let mut group = c.benchmark_group("texture_sample");
    group.throughput(Throughput::Elements(requests.len() as u64));
    group.bench_function("bilinear_256x256_a8r8g8b8", |b| {
        b.iter(|| {
            let mut acc = [0.0f32; 4];
            for r in &requests {
                let v = sampler.sample(0, black_box(r));
                for (a, v) in acc.iter_mut().zip(v) {
                    *a += v;
                }
            }
            acc
        })
    });
    // A 4:1 footprint (4 texels per pixel along x): N = 4 samples at LOD 0.
    let oblique: Vec<SampleRequest> = requests
        .iter()
        .map(|r| SampleRequest {
            ddx: [4.0 / 256.0, 0.0, 0.0, 0.0],
            ..*r
        })
        .collect();
    group.bench_function("anisotropic_x4_256x256_a8r8g8b8", |b| {
        b.iter(|| {
            let mut acc = [0.0f32; 4];
            for r in &oblique {
                let v = sampler.sample(1, black_box(r));
                for (a, v) in acc.iter_mut().zip(v) {
                    *a += v;
                }
            }
            acc
        })
    });
    group.bench_function("decode_256x256_a8r8g8b8", |b| {
        b.iter(|| CaptureSampler::new(black_box(&textures), &mem).expect("decodes"))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
