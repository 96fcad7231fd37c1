//! Point sprites: the texture coordinates `SET_POINT_SPRITE_CONTROL` replaces on points.
//!
//! Rule (OpenGL 2.1 section 3.3.1 with `POINT_SPRITE_COORD_ORIGIN` UPPER_LEFT, GL's default,
//! stated in this project's y-down window coordinates): at window position (`x`, `y`) of a
//! point of `size` pixels centred on (`px`, `py`), `s = 1/2 + (x − px) / size` and
//! `t = 1/2 + (y − py) / size`, so (0, 0) is the point's upper-left corner on the image and
//! (1, 1) its lower-right one. Each texture coordinate TEXn whose bit n is set in the control's
//! mask (bits 8..17; RPCS3 `rsx_decode.h` `texcoord_mask`, which RPCS3's fragment prologue
//! replaces with the sprite coordinate) reads `(s, t, r, 1)`, `r` by the R mode (bits 1..2,
//! libgcm `CELL_GCM_POINT_SPRITE_RMODE_ZERO` 0, `_FROM_R` 1, `_FROM_S` 2): 0, the vertex's own
//! r, or s. Positions are pixel centres for coverage and corners for the GPU's point quads;
//! the rule is linear in the position, so both agree.

use crate::interp::fragment::{attr, LaneInputs};
use rsxtrace_capture::frame::state::PointSprite;

/// The sprite coordinate (s, t) at window position (`x`, `y`).
pub fn sprite_coord(centre: (f32, f32), size: f32, x: f64, y: f64) -> (f32, f32) {
    let size = f64::from(if size.is_finite() { size.max(1.0) } else { 1.0 });
    let s = 0.5 + (x - f64::from(centre.0)) / size;
    let t = 0.5 + (y - f64::from(centre.1)) / size;
    (s as f32, t as f32)
}

/// Replace the texture coordinates the control names by the sprite coordinate (`s`, `t`).
/// Does nothing when sprites are off.
pub fn apply_point_sprite(lane: &mut LaneInputs, sprite: &PointSprite, (s, t): (f32, f32)) {
    if !sprite.enabled {
        return;
    }
    for n in 0..10 {
        if sprite.texcoord_mask & (1 << n) == 0 {
            continue;
        }
        let Some(tex) = lane.attributes.get_mut(attr::TEX0 + n) else {
            continue;
        };
        let r = match sprite.r_mode {
            1 => tex[2],
            2 => s,
            _ => 0.0,
        };
        *tex = [s, t, r, 1.0];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corners_and_centre_of_a_sprite() {
        // A 4-pixel point at (10, 20): its upper-left corner (8, 18), lower-right (12, 22).
        assert_eq!(sprite_coord((10.0, 20.0), 4.0, 8.0, 18.0), (0.0, 0.0));
        assert_eq!(sprite_coord((10.0, 20.0), 4.0, 12.0, 22.0), (1.0, 1.0));
        assert_eq!(sprite_coord((10.0, 20.0), 4.0, 8.5, 21.5), (0.125, 0.875));
    }

    #[test]
    fn only_masked_coordinates_are_replaced() {
        let mut lane = LaneInputs::default();
        lane.attributes[attr::TEX0] = [9.0, 9.0, 7.0, 9.0];
        lane.attributes[attr::TEX0 + 1] = [5.0; 4];
        lane.attributes[attr::TEX0 + 9] = [9.0, 9.0, 7.0, 9.0];
        let sprite = PointSprite::from_raw(1 | (1 << 1) | ((1 | 1 << 9) << 8));
        apply_point_sprite(&mut lane, &sprite, (0.25, 0.75));
        assert_eq!(lane.attributes[attr::TEX0], [0.25, 0.75, 7.0, 1.0]);
        assert_eq!(lane.attributes[attr::TEX0 + 1], [5.0; 4]);
        assert_eq!(lane.attributes[attr::TEX0 + 9], [0.25, 0.75, 7.0, 1.0]);
        let off = PointSprite::from_raw(0x100);
        apply_point_sprite(&mut lane, &off, (0.0, 0.0));
        assert_eq!(lane.attributes[attr::TEX0], [0.25, 0.75, 7.0, 1.0]);
    }
}
