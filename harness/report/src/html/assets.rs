//! The site's fixed files: one stylesheet and one script, compiled into the binary and
//! written to `assets/` (nothing is fetched from the network).

/// `(file name, contents)` of every asset.
pub const FILES: [(&str, &str); 2] = [
    ("report.css", include_str!("../../assets/report.css")),
    ("report.js", include_str!("../../assets/report.js")),
];
