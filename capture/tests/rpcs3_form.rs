//! A capture written for RPCS3 (`rsxtrace_rrc::rpcs3_form`) decodes as it did: a constants
//! block written as uploads gives every draw the same known constants.

use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
use rsxtrace_capture::builder::CaptureBuilder;
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::{self, Location};

#[test]
fn a_constants_block_written_as_uploads_gives_the_draws_the_same_constants() {
    let mut b = CaptureBuilder::new("consts");
    let block: Vec<[f32; 4]> = (0..468).map(|k| [k as f32, 1.0, -2.0, 0.5]).collect();
    b.initial_transform_constants(Some(&block)).unwrap();
    b.set_fragment_program(Location::Local, 0x100, &FRAGMENT_MOV_COL0, 0x40)
        .unwrap();
    b.put_memory(Location::Main, 0, &[1; 48]).unwrap();
    b.set_vertex_array(0, 2, 4, 16, 0, Location::Main, 0)
        .unwrap();
    b.set_vertex_attrib_input_mask(1);
    // One constant changed in the frame, after the block's.
    b.set_transform_constants(7, &[[9.0; 4]]).unwrap();
    b.draw_arrays(5, &[(0, 3)]).unwrap();
    let capture = b.finish();
    let written = rrc::read_bytes(&rrc::write_v6(&capture), "consts.rrc.gz").unwrap();
    assert_eq!(written.reg_state.transform_constants, None);
    let (before, after) = (
        Frame::from_capture(&capture).unwrap(),
        Frame::from_capture(&written).unwrap(),
    );
    let (a, b) = (&before.draws[0].constants, &after.draws[0].constants);
    for k in 0..468 {
        assert!(b.is_known(k), "constant {k}");
        assert_eq!(a.get(k), b.get(k), "constant {k}");
    }
    assert_eq!(b.get(7), Some([9.0; 4]));
    assert_eq!(b.get(300), Some([300.0, 1.0, -2.0, 0.5]));
}
