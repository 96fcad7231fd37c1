//! `constant_runs` (transform constants as runs of draws with the same value and the same
//! last write), the `draw_constants` view (the same per draw, with who reads and who set
//! them) and `fragment_constants` (inline constants per draw).

use crate::cell::Cell;
use crate::facts::constant_runs::ConstantRun;
use crate::facts::FragmentConstantFacts;
use crate::schema::{col, Table, Ty, View};

/// A row of `constant_runs`.
pub struct RunRow<'a> {
    /// Capture.
    pub capture_id: i64,
    /// The run.
    pub run: &'a ConstantRun,
}

fn component(v: Option<[f32; 4]>, i: usize) -> Cell {
    Cell::opt(v.map(|v| v[i]))
}

/// The `constant_runs` table.
pub fn runs_table<'a>() -> Table<RunRow<'a>> {
    use Ty::*;
    let c = col::<RunRow<'a>>;
    Table {
        name: "constant_runs",
        doc: "Transform constants as runs: for each register `c[0]`..`c[467]`, one row per \
              stretch of consecutive draws over which its value, the command that last wrote \
              it and whether the draws' vertex program reads it stay the same, kept when the \
              register is known or read there (the draws a register's runs leave out are \
              those where it is neither). A frame uploads a few registers between draws, so \
              this holds a small fraction of the rows a row per draw and register would; \
              query it per draw through the `draw_constants` view.",
        primary_key: &["capture_id", "register", "first_draw"],
        indexes: &[&["capture_id", "first_draw"]],
        columns: vec![
            c("capture_id", Integer, "The capture.", |r| r.capture_id.into()),
            c("register", Integer, "Constant register, 0..467.", |r| r.run.register.into()),
            c("first_draw", Integer, "First draw of the run (`draws.draw`).", |r| r.run.first_draw.into()),
            c("last_draw", Integer, "Last draw of the run (included).", |r| r.run.last_draw.into()),
            c("x", Real, "Component x; NULL when unknown (a NaN component is NULL too: SQLite has no NaN).", |r| component(r.run.value(), 0)),
            c("y", Real, "Component y; NULL when unknown.", |r| component(r.run.value(), 1)),
            c("z", Real, "Component z; NULL when unknown.", |r| component(r.run.value(), 2)),
            c("w", Real, "Component w; NULL when unknown.", |r| component(r.run.value(), 3)),
            c("known", Integer, "1 when the capture holds the value (uploaded in the frame, or in the capture's initial constants block); 0 when it was set before the capture and not recorded.", |r| r.run.raw.is_some().into()),
            c("read", Integer, "1 when the vertex program of the run's draws reads `c[register]` directly.", |r| r.run.read.into()),
            c("read_relative", Integer, "1 when the vertex program of the run's draws reads `c[A0+register]`.", |r| r.run.read_relative.into()),
            c("set_at_command", Integer, "Command index of the last write before the run's draws; NULL when no command of the frame wrote it.", |r| Cell::opt(r.run.written_at)),
            c("set_for_first_draw", Integer, "1 when that write came after the END of the draw before `first_draw` (an upload for the run's first draw).", |r| r.run.set_for_first_draw.into()),
        ],
    }
}

/// The `draw_constants` view's `SELECT`: each run joined with the draws it covers.
/// `CROSS JOIN` keeps the runs outside (SQLite does not reorder it): each run finds its draws
/// by a range of the draws' key, so the view costs what it returns. With the draws outside, a
/// draw would scan every run that starts before it.
const DRAW_CONSTANTS: &str = "\
SELECT r.capture_id, d.draw, r.register, r.x, r.y, r.z, r.w, r.known, r.read,
       r.read_relative, r.set_at_command IS NOT NULL,
       d.draw = r.first_draw AND r.set_for_first_draw, r.set_at_command
FROM constant_runs r
CROSS JOIN draw_rows d ON d.capture_id = r.capture_id AND d.draw BETWEEN r.first_draw AND r.last_draw";

/// The `draw_constants` view.
pub fn draw_constants_view() -> View {
    use Ty::*;
    View {
        name: "draw_constants",
        doc: "One row per transform constant register (`c[0]`..`c[467]`) per draw that is \
              known at the draw or read by its vertex program; a register that is neither \
              has no row. Values are the constant's four floats (a NaN component reads as \
              NULL: SQLite has no NaN). Made from `constant_runs` and `draws`.",
        columns: vec![
            ("capture_id", Integer, "The capture."),
            ("draw", Integer, "The draw (`draws.draw`)."),
            ("register", Integer, "Constant register, 0..467."),
            ("x", Real, "Component x; NULL when unknown."),
            ("y", Real, "Component y; NULL when unknown."),
            ("z", Real, "Component z; NULL when unknown."),
            ("w", Real, "Component w; NULL when unknown."),
            ("known", Integer, "1 when the capture holds the value (uploaded in the frame before this draw, or in the capture's initial constants block); 0 when it was set before the capture and not recorded."),
            ("read", Integer, "1 when the draw's vertex program reads `c[register]` directly."),
            ("read_relative", Integer, "1 when the draw's vertex program reads `c[A0+register]` (the register it really reads depends on the address register)."),
            ("set_in_frame", Integer, "1 when a command of the captured frame wrote it; 0 when its value is inherited from before the frame (known only through the initial constants block, else unknown)."),
            ("set_for_draw", Integer, "1 when it was written after the previous draw's END (uploaded for this draw); 0 when inherited from earlier in the frame or from before it."),
            ("set_at_command", Integer, "Command index of the last write before the draw; NULL when no command of the frame wrote it."),
        ],
        select: DRAW_CONSTANTS.into(),
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
