//! `draw_constants` (transform constants per draw, with who reads and who set them) and
//! `fragment_constants` (inline constants per draw).

use crate::cell::Cell;
use crate::facts::{ConstantFacts, FragmentConstantFacts};
use crate::schema::{col, Table, Ty};

/// A row of `draw_constants`.
pub struct ConstantRow<'a> {
    /// Capture.
    pub capture_id: i64,
    /// Draw.
    pub draw: usize,
    /// The facts.
    pub c: &'a ConstantFacts,
}

fn component(v: Option<[f32; 4]>, i: usize) -> Cell {
    Cell::opt(v.map(|v| v[i]))
}

/// The `draw_constants` table.
pub fn table<'a>() -> Table<ConstantRow<'a>> {
    use Ty::*;
    let c = col::<ConstantRow<'a>>;
    Table {
        name: "draw_constants",
        doc: "One row per transform constant register (`c[0]`..`c[467]`) per draw that is \
              known at the draw or read by its vertex program; a register that is neither \
              has no row. Values are the constant's four floats (a NaN component reads as \
              NULL: SQLite has no NaN).",
        primary_key: &["capture_id", "draw", "register"],
        indexes: &[],
        columns: vec![
            c("capture_id", Integer, "The capture.", |r| r.capture_id.into()),
            c("draw", Integer, "The draw (`draws.draw`).", |r| r.draw.into()),
            c("register", Integer, "Constant register, 0..467.", |r| r.c.register.into()),
            c("x", Real, "Component x; NULL when unknown.", |r| component(r.c.value, 0)),
            c("y", Real, "Component y; NULL when unknown.", |r| component(r.c.value, 1)),
            c("z", Real, "Component z; NULL when unknown.", |r| component(r.c.value, 2)),
            c("w", Real, "Component w; NULL when unknown.", |r| component(r.c.value, 3)),
            c("known", Integer, "1 when the capture holds the value (uploaded in the frame before this draw, or in the capture's initial constants block); 0 when it was set before the capture and not recorded.", |r| r.c.value.is_some().into()),
            c("read", Integer, "1 when the draw's vertex program reads `c[register]` directly.", |r| r.c.read.into()),
            c("read_relative", Integer, "1 when the draw's vertex program reads `c[A0+register]` (the register it really reads depends on the address register).", |r| r.c.read_relative.into()),
            c("set_in_frame", Integer, "1 when a command of the captured frame wrote it; 0 when its value is inherited from before the frame (known only through the initial constants block, else unknown).", |r| r.c.written_at.is_some().into()),
            c("set_for_draw", Integer, "1 when it was written after the previous draw's END (uploaded for this draw); 0 when inherited from earlier in the frame or from before it.", |r| r.c.set_for_draw.into()),
            c("set_at_command", Integer, "Command index of the last write before the draw; NULL when no command of the frame wrote it.", |r| Cell::opt(r.c.written_at)),
        ],
    }
}

/// A row of `fragment_constants`.
pub struct FragmentConstantRow<'a> {
    /// Capture.
    pub capture_id: i64,
    /// Draw.
    pub draw: usize,
    /// The facts.
    pub c: &'a FragmentConstantFacts,
}

/// The `fragment_constants` table.
pub fn fragment_table<'a>() -> Table<FragmentConstantRow<'a>> {
    use Ty::*;
    let c = col::<FragmentConstantRow<'a>>;
    Table {
        name: "fragment_constants",
        doc: "One row per inline constant of each draw's fragment program (the 16-byte slot \
              after an instruction with a constant operand, which games patch per draw: \
              `rsxtrace uniforms`), as four floats.",
        primary_key: &["capture_id", "draw", "slot"],
        indexes: &[],
        columns: vec![
            c("capture_id", Integer, "The capture.", |r| r.capture_id.into()),
            c("draw", Integer, "The draw.", |r| r.draw.into()),
            c("slot", Integer, "Slot index counted from the program's first instruction (the instruction that owns it is at `slot - 1`).", |r| r.c.slot.into()),
            c("x", Real, "Component x.", |r| r.c.value[0].into()),
            c("y", Real, "Component y.", |r| r.c.value[1].into()),
            c("z", Real, "Component z.", |r| r.c.value[2].into()),
            c("w", Real, "Component w.", |r| r.c.value[3].into()),
        ],
    }
}
