//! Fuzz target: container parsing never panics on arbitrary bytes, and every accessor of a
//! parsed container (and uniform patching at its own slot offsets) works on what it returns;
//! a CgBinaryProgram rewritten around its own microcode (`with_microcode`, as `asm --like`
//! does) is unchanged when that microcode decodes, and is written and parsed back, laid out
//! anew and over its own bytes (then the very file when no field changed); a PSL1GHT
//! container given its own microcode likewise.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rsxtrace_program::container::{
    get_uniform, psl1ght_fragment_with_microcode, psl1ght_vertex_with_microcode, set_uniform,
    with_microcode, write_over, write_program, Container, Stage,
};

fuzz_target!(|data: &[u8]| {
    let parsed = Container::parse(data);
    let raw = Container::parse_or_raw(data, Stage::Fragment);
    for result in [parsed, raw] {
        let Ok(mut c) = result else { continue };
        let _ = c.stage();
        let _ = c.control_word();
        let _ = c.slot_count();
        let ucode_len = c.ucode().len();
        assert_eq!(ucode_len % 16, 0);
        let names: Vec<String> = c
            .parameters()
            .iter()
            .filter_map(|p| p.name.map(str::to_owned))
            .collect();
        for name in names {
            if let Some(offsets) = c.embedded_constants(&name).map(<[u32]>::to_vec) {
                // Offsets were validated by the parser, so patching must succeed.
                set_uniform(c.ucode_mut(), &offsets, [1.0, 2.0, 3.0, 4.0]).expect("valid slots");
                for o in offsets {
                    assert_eq!(
                        get_uniform(c.ucode(), o).expect("slot"),
                        [1.0, 2.0, 3.0, 4.0]
                    );
                }
            }
        }
        let _ = get_uniform(c.ucode(), 0);
    }
    // A CgBinaryProgram given its own microcode (as parsed: no uniform patched in).
    if let Ok(c @ Container::Cg(_)) = Container::parse(data) {
        let Container::Cg(cg) = &c else { return };
        let slot = c.load_slot().unwrap_or(0);
        if let Ok((same, notes)) = with_microcode(cg, &cg.ucode, slot) {
            // Its own microcode moves no uniform.
            assert!(notes.moved_uniforms.is_empty(), "{notes:?}");
            // Written over its own bytes: the program again, and the very file when no
            // field changed.
            if let Some(bytes) = write_over(data, &same) {
                let Ok(Container::Cg(back)) = Container::parse(&bytes) else {
                    panic!("written over, it does not parse")
                };
                assert_eq!(back.ucode, cg.ucode);
                if notes.fields.is_empty() {
                    assert_eq!(bytes, data[..cg.total_size as usize]);
                }
            }
            if let Ok(bytes) = write_program(&same) {
                let back = Container::parse(&bytes).expect("a written container parses");
                assert_eq!(back.ucode(), cg.ucode.as_slice());
            }
        }
    }
    // A PSL1GHT container given its own microcode: the program again, no constant table
    // moved, and the very file through its microcode when no field changed.
    let own = match Container::parse(data) {
        Ok(Container::Psl1ghtVertex(p)) => {
            let slot = u32::from(p.start_insn);
            let through = p.extent() as usize;
            psl1ght_vertex_with_microcode(data, &p, &p.ucode, slot).map(|r| (r, through))
        }
        Ok(Container::Psl1ghtFragment(p)) => {
            let through = p.extent() as usize;
            psl1ght_fragment_with_microcode(data, &p, &p.ucode).map(|r| (r, through))
        }
        _ => return,
    };
    if let Ok(((bytes, notes), through)) = own {
        assert!(notes.moved_uniforms.is_empty(), "{notes:?}");
        let back = Container::parse(&bytes).expect("a rewritten container parses");
        assert_eq!(back.ucode(), &data[through - back.ucode().len()..through]);
        if notes.fields.is_empty() {
            assert_eq!(bytes, data[..through]);
        }
    }
});
