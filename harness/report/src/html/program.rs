//! One program's page: its disassembly and the recompiled WGSL side by side, and a fragment
//! program's inline constants. Draw pages show it in a frame, so that a program shared by a
//! thousand draws is written once.

use super::{layout, vec4};
use crate::programs::{ProgramKey, ProgramText};
use crate::site::SitePath;
use maud::{html, Markup};

/// The page of `key` at `path`.
pub fn page(key: &ProgramKey, text: &ProgramText, path: &SitePath) -> Markup {
    let title = format!("{} program {}", text.stage, key.0);
    let body = html! {
        p.facts {
            (text.stage) " program " code { (key.0) } ", " (text.instructions) " instructions"
        }
        @if !text.inline_constants.is_empty() {
            table.constants {
                thead { tr { th { "slot" } th { "inline constant" } } }
                tbody {
                    @for (slot, values) in &text.inline_constants {
                        tr { td { (slot) } td { (vec4(*values)) } }
                    }
                }
            }
        }
        div.columns {
            section {
                h3 { "Disassembly" }
                pre.code { (text.disassembly) }
            }
            section {
                h3 { "WGSL" }
                @match &text.wgsl {
                    Ok(source) => pre.code { (source) },
                    Err(why) => p.warning { "not recompiled: " (why) },
                }
            }
        }
    };
    layout(path, &title, "program", body)
}
