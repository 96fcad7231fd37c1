//! The texture cache (issue 14): a texture decoded once for every draw that samples the same
//! state over the same bytes; new bytes (a render to texture, a ring buffer that wraps) or
//! another state decode anew; errors are not kept; the budget bounds what it holds.

use crate::texture_util;

use rsxtrace_replay::texture::cache::TextureCache;
use rsxtrace_replay::texture::decode::decode_texture;
use std::sync::Arc;
use texture_util::*;

/// A 4x4 B8 (format 0x81) swizzled texture whose texel bytes start at `first`.
fn bytes(first: u8) -> Vec<u8> {
    (0..16).map(|i| first.wrapping_add(i)).collect()
}

#[test]
fn one_decode_for_the_same_state_over_the_same_bytes() {
    let cache = TextureCache::default();
    let texture = Tex::new(0x81, 4, 4).texture();
    let memory = Mem::local(0, bytes(10));
    let a = cache.decode(0, &texture, &memory).unwrap();
    // Another unit, another copy of the same bytes elsewhere in memory would still be state
    // plus content: the same unit and bytes here.
    let b = cache
        .decode(3, &texture, &Mem::local(0, bytes(10)))
        .unwrap();
    assert!(Arc::ptr_eq(&a, &b));
    assert_eq!(*a, decode_texture(0, &texture, &memory).unwrap());
    let s = cache.stats();
    assert_eq!((s.hits, s.misses, s.entries), (1, 1, 1));
    assert_eq!(s.bytes, 16 * 16);
}

#[test]
fn new_bytes_decode_anew_and_old_bytes_hit_again() {
    // A ring buffer: the same address holds contents A, then B, then A again.
    let cache = TextureCache::default();
    let texture = Tex::new(0x81, 4, 4).texture();
    let first = cache
        .decode(0, &texture, &Mem::local(0, bytes(10)))
        .unwrap();
    let second = cache
        .decode(0, &texture, &Mem::local(0, bytes(50)))
        .unwrap();
    assert_ne!(first.images[0].texels, second.images[0].texels);
    assert_eq!(
        *second,
        decode_texture(0, &texture, &Mem::local(0, bytes(50))).unwrap()
    );
    let again = cache
        .decode(0, &texture, &Mem::local(0, bytes(10)))
        .unwrap();
    assert!(Arc::ptr_eq(&first, &again));
    let s = cache.stats();
    assert_eq!((s.hits, s.misses, s.entries), (1, 2, 2));
}

#[test]
fn another_state_over_the_same_bytes_is_another_entry() {
    let cache = TextureCache::default();
    let memory = Mem::local(0, bytes(10));
    let swizzled = Tex::new(0x81, 4, 4).texture();
    let linear = Tex::new(0x81, 4, 4).linear(4).texture();
    let a = cache.decode(0, &swizzled, &memory).unwrap();
    let b = cache.decode(0, &linear, &memory).unwrap();
    assert_ne!(a.images[0].texels, b.images[0].texels);
    let mut remapped = Tex::new(0x81, 4, 4);
    remapped.remap = 0xE4 ^ 0x03; // another channel order
    let c = cache.decode(0, &remapped.texture(), &memory).unwrap();
    assert_eq!(*c, decode_texture(0, &remapped.texture(), &memory).unwrap());
    assert_eq!(cache.stats().misses, 3);
}

#[test]
fn errors_are_returned_and_not_kept() {
    let cache = TextureCache::default();
    let texture = Tex::new(0x81, 4, 4).texture();
    let short = Mem::local(0, vec![0; 4]);
    assert!(cache.decode(0, &texture, &short).is_err());
    assert!(cache.decode(0, &texture, &short).is_err());
    let s = cache.stats();
    assert_eq!((s.hits, s.misses, s.entries), (0, 0, 0));
}

#[test]
fn the_budget_bounds_what_is_kept() {
    // One 4x4 image is 256 decoded bytes: a 300-byte budget keeps one.
    let cache = TextureCache::with_budget(300);
    let texture = Tex::new(0x81, 4, 4).texture();
    for first in [10, 50, 90] {
        cache
            .decode(0, &texture, &Mem::local(0, bytes(first)))
            .unwrap();
    }
    let s = cache.stats();
    assert_eq!((s.entries, s.bytes), (1, 256));
    // The newest stayed; the oldest decodes anew.
    cache
        .decode(0, &texture, &Mem::local(0, bytes(90)))
        .unwrap();
    cache
        .decode(0, &texture, &Mem::local(0, bytes(10)))
        .unwrap();
    assert_eq!(cache.stats().hits, 1);
    assert_eq!(cache.stats().misses, 4);
}

#[test]
fn spans_are_the_bytes_the_decode_reads() {
    use rsxtrace_capture::rrc::Location;
    use rsxtrace_replay::texture::texture_spans;
    // A 4x4 B8 texture with 3 mip levels at 0x40: 16 + 4 + 1 bytes, level after level.
    let mut tex = Tex::new(0x81, 4, 4);
    tex.offset = 0x40;
    tex.mips = 3;
    let texture = tex.texture();
    let spans = texture_spans(0, &texture).unwrap();
    let ranges: Vec<(Location, u32, u32)> = spans
        .iter()
        .map(|s| (s.location, s.offset, s.len))
        .collect();
    let total: u32 = spans.iter().map(|s| s.len).sum();
    assert_eq!(
        ranges.first().map(|r| (r.0, r.1)),
        Some((Location::Local, 0x40))
    );
    assert_eq!(spans.len(), 3);
    // The decode succeeds on exactly those bytes and fails without the last one.
    let end = spans.iter().map(|s| s.offset + s.len).max().unwrap();
    assert_eq!(end - 0x40, total);
    let bytes = |n: u32| Mem::local(0x40, (0..n).map(|i| i as u8).collect());
    assert!(decode_texture(0, &texture, &bytes(total)).is_ok());
    assert!(decode_texture(0, &texture, &bytes(total - 1)).is_err());
    // A state the decoder refuses has no spans either.
    assert!(texture_spans(0, &Tex::new(0x81, 0, 4).texture()).is_err());
}
