//! Which draws a replacement program goes to: `all`, a draw range, or a program hash prefix as
//! `draws` prints it, for the vertex or the fragment stage ([`Stage`], the program layer's).

use crate::render::draw_range::{self, DrawRange};
use rsxtrace_capture::frame::Frame;
use rsxtrace_program::container::Stage;
use std::fmt;

/// Which draws take a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selector {
    /// Every draw.
    All,
    /// A range of draws (`A..B`, `A..=B`, `A..`, `N`).
    Draws(DrawRange),
    /// Draws whose program of the replaced stage has a hash starting with these lowercase
    /// hex digits (`vp_hash` / `fp_hash`, as `draws` prints them: at least 8 digits).
    Hash(String),
}

impl Selector {
    /// Parse `all`, a draw range or number, or a hash prefix of 8 to 16 hex digits.
    pub fn parse(s: &str) -> Result<Selector, String> {
        let s = s.trim();
        if s == "all" {
            return Ok(Selector::All);
        }
        let hex = s.len() >= 8 && s.len() <= 16 && s.chars().all(|c| c.is_ascii_hexdigit());
        if hex {
            return Ok(Selector::Hash(s.to_ascii_lowercase()));
        }
        draw_range::parse(s).map(Selector::Draws).map_err(|e| {
            format!("{e}; or `all`, or a program hash of 8 to 16 hex digits as `draws` prints it")
        })
    }

    /// The draws of `frame` it chooses for `stage`, in order.
    pub fn draws(&self, frame: &Frame, stage: Stage) -> Result<Vec<usize>, String> {
        Ok(match self {
            Selector::All => (0..frame.draws.len()).collect(),
            Selector::Draws(r) => r
                .resolve(frame.draws.len())
                .map_err(|e| e.to_string())?
                .collect(),
            Selector::Hash(prefix) => frame
                .draws
                .iter()
                .filter(|d| {
                    let hash = match stage {
                        Stage::Vertex => Some(d.vp_hash),
                        Stage::Fragment => d.fragment_program.as_ref().map(|p| p.hash),
                    };
                    hash.is_some_and(|h| format!("{h:016x}").starts_with(prefix.as_str()))
                })
                .map(|d| d.index)
                .collect(),
        })
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Selector::All => write!(f, "all"),
            Selector::Draws(r) => match r.end {
                Some(end) => write!(f, "{}..{end}", r.start),
                None => write!(f, "{}..", r.start),
            },
            Selector::Hash(h) => write!(f, "{h}"),
        }
    }
}
