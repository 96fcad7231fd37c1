//! The tables: one module per group, each a [`crate::schema::Table`] over the row type its
//! getters read. [`all`] lists them in the order they are created and documented.
//!
//! - [`captures`]: one row per capture file.
//! - [`draws`]: one row per draw (a view over the draws' own columns and their distinct
//!   surface and raster states).
//! - [`programs`]: programs by content key, with their constants, texture units and opcodes.
//! - [`constants`]: transform constants (runs, and the per-draw view) and fragment inline
//!   constants per draw.
//! - [`textures`]: distinct textures and the units that bind them.
//! - [`memory`]: memory blocks and what each draw uses them as.
//! - [`warnings`]: what was left out.

pub mod captures;
pub mod constants;
pub mod draws;
pub mod memory;
pub mod programs;
mod shared;
pub mod textures;
pub mod warnings;

use crate::cell::Cell;
use crate::schema::TableInfo;
use rsxtrace_capture::frame::state::Named;
use rsxtrace_capture::rrc::Location;

/// Every table, in creation order.
pub fn all() -> Vec<TableInfo> {
    vec![
        captures::table().info(),
        draws::rows_table().info(),
        draws::states_table().info(),
        draws::view().info(),
        programs::table().info(),
        programs::constants_table().info(),
        programs::textures_table().info(),
        programs::opcodes_table().info(),
        constants::runs_table().info(),
        constants::draw_constants_view().info(),
        constants::fragment_table().info(),
        textures::table().info(),
        textures::unit_rows_table().info(),
        textures::bindings_table().info(),
        textures::units_view().info(),
        memory::table().info(),
        memory::uses_table().info(),
        warnings::table().info(),
    ]
}

/// The schema section of `docs/index.md`: every table's Markdown, in creation order.
pub fn markdown() -> String {
    all()
        .iter()
        .map(TableInfo::markdown)
        .collect::<Vec<_>>()
        .join("\n")
}

/// An enumerated value: its name, or its raw number when it has none.
pub(crate) fn named(n: Named) -> Cell {
    match n.name {
        Some(name) => Cell::name(name),
        None => n.raw.into(),
    }
}

/// A location's name, NULL for none.
pub(crate) fn loc(l: Option<Location>) -> Cell {
    Cell::opt(l.map(Location::name))
}

/// A raw location word (memory blocks): its name, or the raw number.
pub(crate) fn raw_location(raw: u32) -> Cell {
    match Location::from_raw(raw) {
        Some(l) => Cell::name(l.name()),
        None => raw.into(),
    }
}

/// A 64-bit hash as 16 hex digits.
pub(crate) fn hex64(v: u64) -> Cell {
    Cell::text(format!("{v:016x}"))
}

/// A 128-bit hash as 32 hex digits.
pub(crate) fn hex128(v: u128) -> Cell {
    Cell::text(format!("{v:032x}"))
}
