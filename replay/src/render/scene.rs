//! A frame ready to render: a capture or trace opened by content, its frame decoded, and the
//! capture's events between the draws (clears, transfers, registers the frame model does not
//! keep) read once, so every front end (replay, ci, verify) loads a frame the same way.

use crate::render::state::FrameEvents;
use rsxtrace_capture::frame::{Frame, FrameError};
use rsxtrace_capture::open::{open_capture, OpenError};
use std::path::{Path, PathBuf};

/// A frame's draws and the events between them.
pub struct Scene {
    pub frame: Frame,
    pub events: FrameEvents,
}

/// Why a scene could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    #[error(transparent)]
    Open(#[from] OpenError),
    #[error("cannot decode the frame of {}", path.display())]
    Frame {
        path: PathBuf,
        #[source]
        source: FrameError,
    },
}

impl Scene {
    /// Open a capture or trace and decode its frame and events.
    pub fn open(path: &Path) -> Result<Scene, SceneError> {
        let capture = open_capture(path)?;
        Scene::from_capture(path, &capture)
    }

    /// Decode the frame and events of `capture`, read from `path` (named in errors), for a
    /// front end that also needs the capture itself.
    pub fn from_capture(
        path: &Path,
        capture: &rsxtrace_capture::rrc::Capture,
    ) -> Result<Scene, SceneError> {
        let frame = Frame::from_capture(capture).map_err(|source| SceneError::Frame {
            path: path.to_path_buf(),
            source,
        })?;
        let events = FrameEvents::from_capture(capture, &frame);
        Ok(Scene { frame, events })
    }
}

impl std::ops::Deref for Scene {
    type Target = Frame;
    fn deref(&self) -> &Self::Target {
        &self.frame
    }
}
