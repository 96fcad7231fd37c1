//! `probe constants` (`rsxtrace_verify::probe::constant_layout`) on the skinned scene: the
//! bone palette, the camera's rows, the normal matrix's columns and the scalar told apart,
//! the palette's entries those the vertices index (bones 0, 2 and 3 of four), and the
//! values' state as the capture uploaded them.

use rsxtrace_capture::frame::Frame;
use rsxtrace_scenes::skinned::skinned_capture;
use rsxtrace_verify::probe::constant_layout::groups::Kind;
use rsxtrace_verify::probe::constant_layout::{constant_layout, ProgramLayout};

fn layout(palette: bool) -> ProgramLayout {
    let frame = Frame::from_capture(&skinned_capture(palette)).unwrap();
    let mut layouts = constant_layout(&frame, 0..frame.draws.len(), 1000);
    assert_eq!(layouts.len(), 1);
    layouts.remove(0)
}

#[test]
fn a_skinned_draws_constants_are_told_apart() {
    let l = layout(true);
    assert!(l.notes.is_empty(), "{:?}", l.notes);
    type Row<'a> = (Option<(u8, char)>, u16, u16, Kind, Option<&'a str>);
    let kinds: Vec<Row> = l
        .groups
        .iter()
        .map(|g| {
            let g = &g.group;
            (g.relative, g.first, g.count, g.kind, g.with.as_deref())
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            (None, 0, 4, Kind::MatrixRows, Some("R1")),
            (None, 4, 3, Kind::MatrixColumns, Some("v[NORMAL]")),
            (None, 8, 1, Kind::Scalar, None),
            (Some((0, 'x')), 40, 3, Kind::MatrixRows, Some("v[POS]")),
        ]
    );
    // The camera's rows are read by slots 5-8, the palette's by 1-3.
    let slots = |k: usize| -> Vec<usize> { l.groups[k].group.reads.iter().map(|r| r.0).collect() };
    assert_eq!(slots(0), vec![5, 6, 7, 8]);
    assert_eq!(slots(3), vec![1, 2, 3]);
    // The palette: A0.x = bone × 3 for bones 0, 2, 3: registers c[40..51].
    assert_eq!(l.palettes.len(), 1);
    let p = &l.palettes[0];
    assert_eq!(p.address, "A0.x");
    assert_eq!((p.first_base, p.entry_registers), (40, 3));
    assert_eq!(p.values.as_deref(), Some(&[0, 6, 9][..]));
    assert!(p.aligned);
    assert_eq!(p.registers, Some((40, 51)));
    assert_eq!(p.out_of_range, 0);
    assert_eq!(p.address_written_by.len(), 1);
    assert_eq!(p.address_written_by[0].0, 0);
    assert_eq!(l.traced_vertices, 6);
    // The palette's group stands for the registers the vertices reach.
    assert_eq!(
        l.groups[3].registers,
        vec![40, 41, 42, 46, 47, 48, 49, 50, 51]
    );
    assert_eq!(l.groups[0].registers, vec![0, 1, 2, 3]);
    // Every group's values are known at the one draw.
    assert!(l
        .groups
        .iter()
        .all(|g| g.known_at == 1 && g.distinct_values == 1));
}

#[test]
fn a_palette_the_capture_lacks_is_unknown_and_the_rest_known() {
    let l = layout(false);
    let palette = l
        .groups
        .iter()
        .find(|g| g.group.relative.is_some())
        .unwrap();
    assert_eq!(palette.known_at, 0);
    assert!(l
        .groups
        .iter()
        .filter(|g| g.group.relative.is_none())
        .all(|g| g.known_at == 1));
    // The entries reached are still traced (unknown constants read as substituted zeros).
    assert_eq!(l.palettes[0].values.as_deref(), Some(&[0, 6, 9][..]));
}

/// `mvp --registers auto`: the skinned program's o[HPOS] comes from the rows c[0..3]; the
/// default c[32..35] is not uploaded, so no draw has a matrix there.
#[test]
fn the_model_view_projection_is_found_where_the_program_reads_it() {
    use rsxtrace_verify::probe::mvp::{draw_matrices_at, hpos_matrix, MvpRegisters};
    let frame = Frame::from_capture(&skinned_capture(true)).unwrap();
    let d = &frame.draws[0];
    let program =
        rsxtrace_program::vertex::decode_from_memory(&d.vertex_program, d.vp_start as usize)
            .unwrap();
    assert_eq!(hpos_matrix(&program), Some(0));
    let auto = draw_matrices_at(&frame, MvpRegisters::Auto);
    assert_eq!(auto.len(), 1);
    assert_eq!(auto[0].c, rsxtrace_verify::probe::matrix::IDENTITY);
    assert!(draw_matrices_at(&frame, MvpRegisters::default()).is_empty());
}
