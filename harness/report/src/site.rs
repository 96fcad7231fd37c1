//! The output folder and every path in it. Names are made here from draw indices, program
//! keys (hex digests) and image hashes only: nothing read from a capture names a file, so
//! every file lands inside the folder. An existing folder is reused only when it is empty or
//! holds an earlier report (its index carries [`GENERATOR`]); the report's own subfolders are
//! then emptied first, so no stale page or image survives.

use std::path::{Path, PathBuf};

/// The `<meta name="generator">` content that marks a folder as a report.
pub const GENERATOR: &str = "rsxtrace report";

/// Subfolders the report owns.
const SUBFOLDERS: [&str; 4] = ["draws", "programs", "images", "assets"];

/// Why the folder could not be prepared or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SiteError {
    /// The folder holds files and no earlier report.
    #[error("{} is not empty and holds no rsxtrace report: choose an empty or new folder", path.display())]
    NotAReport {
        /// The folder.
        path: PathBuf,
    },
    /// A file operation failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// An image could not be written.
    #[error("cannot write an image: {0}")]
    Image(String),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> SiteError + '_ {
    move |source| SiteError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A prepared output folder.
#[derive(Clone, Debug)]
pub struct Site {
    root: PathBuf,
}

impl Site {
    /// Create `root` (or reuse it, see the module documentation) with empty subfolders.
    pub fn prepare(root: &Path) -> Result<Site, SiteError> {
        if root.exists() {
            let mut entries = std::fs::read_dir(root).map_err(io(root))?.peekable();
            if entries.peek().is_some() && !is_report(root) {
                return Err(SiteError::NotAReport {
                    path: root.to_path_buf(),
                });
            }
            for sub in SUBFOLDERS {
                let dir = root.join(sub);
                if dir.is_dir() {
                    std::fs::remove_dir_all(&dir).map_err(io(&dir))?;
                }
            }
        }
        for sub in SUBFOLDERS {
            let dir = root.join(sub);
            std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        }
        Ok(Site {
            root: root.to_path_buf(),
        })
    }

    /// `images/`.
    pub fn images_dir(&self) -> PathBuf {
        self.root.join("images")
    }

    /// Write `contents` to `relative` (one of [`SitePath`]'s paths).
    pub fn write(&self, relative: &SitePath, contents: &[u8]) -> Result<(), SiteError> {
        let path = self.root.join(&relative.0);
        std::fs::write(&path, contents).map_err(io(&path))
    }

    /// Bytes of every file in the folder's report subfolders and index.
    pub fn bytes(&self) -> Result<u64, SiteError> {
        let mut total = 0;
        let index = self.root.join("index.html");
        if index.is_file() {
            total += std::fs::metadata(&index).map_err(io(&index))?.len();
        }
        for sub in SUBFOLDERS {
            let dir = self.root.join(sub);
            for entry in std::fs::read_dir(&dir).map_err(io(&dir))? {
                let entry = entry.map_err(io(&dir))?;
                total += entry.metadata().map_err(io(&dir))?.len();
            }
        }
        Ok(total)
    }
}

/// Whether `root/index.html` was written by a report.
fn is_report(root: &Path) -> bool {
    std::fs::read_to_string(root.join("index.html")).is_ok_and(|s| {
        s.contains(&format!(
            "<meta name=\"generator\" content=\"{GENERATOR}\">"
        ))
    })
}

/// A path inside the site, relative to its root, made only from fixed names, numbers and hex.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SitePath(String);

impl SitePath {
    /// `index.html`.
    pub fn index() -> SitePath {
        SitePath("index.html".into())
    }

    /// The page of draw `draw`.
    pub fn draw(draw: usize) -> SitePath {
        SitePath(format!("draws/draw-{draw:05}.html"))
    }

    /// The page of a program (`key` is `vp-`/`fp-` and hex digits; anything else is refused
    /// by a debug assertion and replaced by its hash).
    pub fn program(key: &str) -> SitePath {
        let safe = key.len() <= 40
            && key
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        debug_assert!(safe, "program keys are made of hex digits: {key:?}");
        if safe {
            SitePath(format!("programs/{key}.html"))
        } else {
            SitePath(format!(
                "programs/x-{:016x}.html",
                xxhash_rust::xxh3::xxh3_64(key.as_bytes())
            ))
        }
    }

    /// An image file (`name` is an [`crate::images::ImageFile`] name: hex digits and `.png`;
    /// anything else is replaced by its hash, as for programs).
    pub fn image(name: &str) -> SitePath {
        let safe = name.len() <= 40
            && name
                .bytes()
                .all(|b| b.is_ascii_hexdigit() || b == b'.' || b.is_ascii_lowercase());
        debug_assert!(
            safe && !name.contains(".."),
            "image names are hex: {name:?}"
        );
        if safe && !name.contains("..") {
            SitePath(format!("images/{name}"))
        } else {
            SitePath(format!(
                "images/x-{:016x}.png",
                xxhash_rust::xxh3::xxh3_64(name.as_bytes())
            ))
        }
    }

    /// An asset by its fixed name.
    pub fn asset(name: &'static str) -> SitePath {
        SitePath(format!("assets/{name}"))
    }

    /// The path, relative to the site's root.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The link to this path from a page at `from` (pages live at the root or one folder
    /// down).
    pub fn href_from(&self, from: &SitePath) -> String {
        if from.0.contains('/') {
            format!("../{}", self.0)
        } else {
            self.0.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_relative_and_links_climb_from_subfolders() {
        let draw = SitePath::draw(7);
        assert_eq!(draw.as_str(), "draws/draw-00007.html");
        assert_eq!(SitePath::index().href_from(&draw), "../index.html");
        assert_eq!(draw.href_from(&SitePath::index()), "draws/draw-00007.html");
        assert_eq!(
            SitePath::program("vp-00ff").href_from(&draw),
            "../programs/vp-00ff.html"
        );
    }

    #[test]
    #[cfg(not(debug_assertions))]
    fn a_strange_program_key_never_leaves_the_folder() {
        let p = SitePath::program("../../etc/passwd");
        assert!(p.as_str().starts_with("programs/x-"), "{p:?}");
    }

    #[test]
    fn a_folder_with_other_files_is_refused_and_a_report_is_reused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("site");
        let site = Site::prepare(&root).expect("new folder");
        site.write(
            &SitePath::index(),
            format!("<meta name=\"generator\" content=\"{GENERATOR}\">").as_bytes(),
        )
        .expect("write");
        std::fs::write(root.join("images/stale.png"), b"x").expect("stale");
        Site::prepare(&root).expect("an earlier report is reused");
        assert!(
            !root.join("images/stale.png").exists(),
            "subfolders emptied"
        );
        let other = dir.path().join("other");
        std::fs::create_dir(&other).expect("mkdir");
        std::fs::write(other.join("notes.txt"), b"keep").expect("write");
        assert!(matches!(
            Site::prepare(&other),
            Err(SiteError::NotAReport { .. })
        ));
        assert!(other.join("notes.txt").exists());
    }
}
