//! Uniform patching of inline-constant slots, checked against words laid out by hand: each
//! float is stored big-endian with its 16-bit halves swapped (rsx-microcode.md B.1).

use rsxtrace_program::container::{
    decode_word, encode_word, get_uniform, set_uniform, ContainerErrorKind,
};

#[test]
fn words_are_half_swapped_big_endian() {
    // 1.0 = 0x3F800000 -> halves swapped 0x00003F80 -> bytes 00 00 3F 80.
    assert_eq!(encode_word(1.0), [0x00, 0x00, 0x3F, 0x80]);
    // -2.5 = 0xC0200000 -> 0x0000C020.
    assert_eq!(encode_word(-2.5), [0x00, 0x00, 0xC0, 0x20]);
    // 0.1 = 0x3DCCCCCD -> 0xCCCD3DCC.
    assert_eq!(encode_word(0.1), [0xCC, 0xCD, 0x3D, 0xCC]);
    assert_eq!(decode_word([0xCC, 0xCD, 0x3D, 0xCC]), 0.1);
    assert_eq!(decode_word([0x00, 0x00, 0x3F, 0x80]), 1.0);
}

#[test]
fn set_uniform_writes_every_slot_and_nothing_else() {
    let mut ucode = vec![0x11u8; 64];
    set_uniform(&mut ucode, &[16, 48], [1.0, -2.5, 0.1, 0.0]).expect("patch");
    let slot: [u8; 16] = [
        0x00, 0x00, 0x3F, 0x80, // 1.0
        0x00, 0x00, 0xC0, 0x20, // -2.5
        0xCC, 0xCD, 0x3D, 0xCC, // 0.1
        0x00, 0x00, 0x00, 0x00, // 0.0
    ];
    assert_eq!(&ucode[16..32], &slot);
    assert_eq!(&ucode[48..64], &slot);
    assert!(ucode[..16].iter().all(|&b| b == 0x11));
    assert!(ucode[32..48].iter().all(|&b| b == 0x11));
    assert_eq!(
        get_uniform(&ucode, 16).expect("read"),
        [1.0, -2.5, 0.1, 0.0]
    );
    assert_eq!(
        get_uniform(&ucode, 48).expect("read"),
        [1.0, -2.5, 0.1, 0.0]
    );
    // Bits survive a round trip, NaN payloads included.
    let nan = f32::from_bits(0x7FC0_1234);
    set_uniform(
        &mut ucode,
        &[0],
        [nan, f32::INFINITY, -0.0, f32::MIN_POSITIVE],
    )
    .unwrap();
    let back = get_uniform(&ucode, 0).unwrap();
    assert_eq!(back[0].to_bits(), 0x7FC0_1234);
    assert_eq!(back[1], f32::INFINITY);
    assert_eq!(back[2].to_bits(), 0x8000_0000);
    assert_eq!(back[3], f32::MIN_POSITIVE);
}

#[test]
fn bad_slot_offsets_are_refused_without_writing() {
    let mut ucode = vec![0u8; 32];
    let e = set_uniform(&mut ucode, &[0, 8], [1.0; 4]).expect_err("misaligned");
    assert_eq!(e.offset, 8);
    assert!(matches!(
        e.kind,
        ContainerErrorKind::Misaligned {
            value: 8,
            align: 16
        }
    ));
    // The valid first slot was not written either.
    assert!(ucode.iter().all(|&b| b == 0));
    let e = set_uniform(&mut ucode, &[32], [1.0; 4]).expect_err("past the end");
    assert!(matches!(
        e.kind,
        ContainerErrorKind::OutOfBounds {
            value: 48,
            limit: 32
        }
    ));
    assert!(get_uniform(&ucode, u32::MAX - 15).is_err());
    assert!(get_uniform(&ucode, 4).is_err());
    assert!(get_uniform(&[], 0).is_err());
}
