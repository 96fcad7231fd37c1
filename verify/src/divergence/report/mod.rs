//! Reports: the data ([`model`]) and its printers: the worst-first table rows ([`table`]),
//! the JSON document ([`json`], schema in `docs/verify.md`) and the HTML page ([`html`], with
//! the fragment stage's images embedded as PNG data URIs).

pub mod html;
pub mod json;
pub mod model;
pub mod table;
