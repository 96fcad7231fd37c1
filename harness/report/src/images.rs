//! The site's PNG files, made while the frame renders: a caller reserves [`ImageId`]s at once
//! (pages refer to them) and submits the work that produces their pixels; the work runs on
//! rayon's pool beside the render, a bounded number of jobs at a time (so memory stays
//! bounded whatever the frame's length), and each image is encoded and written under
//! `images/` named by the hash of its PNG bytes: two pages that show the same pixels share
//! one file. [`ImageStore::finish`] waits for the work and hands back every file.

use crate::pixels::{encode_png, Channels};
use rsxtrace_replay::render::Rgba8Image;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use xxhash_rust::xxh3::xxh3_128;

/// Jobs in flight at most, per pool thread.
const JOBS_PER_THREAD: usize = 3;

/// An image of the site, known before its file is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImageId(usize);

/// A written image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageFile {
    /// File name inside `images/` (`<32 hex digits>.png`).
    pub name: String,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// One produced image: the slot it fills, its pixels and how to encode them.
pub type Produced = (ImageId, Rgba8Image, Channels);

#[derive(Default)]
struct Shared {
    /// Per slot: the file, or why it was not written; `None` until its job ran.
    slots: Vec<Option<Result<ImageFile, String>>>,
    /// File names written.
    written: HashSet<String>,
    /// Bytes written.
    bytes: u64,
    /// Jobs submitted and not finished.
    in_flight: usize,
}

/// The state shared with the jobs.
struct Inner {
    dir: PathBuf,
    shared: Mutex<Shared>,
    changed: Condvar,
    limit: usize,
}

impl Inner {
    fn lock(&self) -> std::sync::MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Encode and write one image (once per distinct content).
    fn store(&self, image: &Rgba8Image, channels: Channels) -> Result<ImageFile, String> {
        let bytes = encode_png(image, channels).map_err(|e| format!("PNG encoding: {e}"))?;
        let name = format!("{:032x}.png", xxh3_128(&bytes));
        let file = ImageFile {
            name: name.clone(),
            width: image.width,
            height: image.height,
        };
        if self.lock().written.contains(&name) {
            return Ok(file);
        }
        let path = self.dir.join(&name);
        std::fs::write(&path, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut s = self.lock();
        if s.written.insert(name) {
            s.bytes += bytes.len() as u64;
        }
        Ok(file)
    }

    fn done(&self, results: Vec<(ImageId, Result<ImageFile, String>)>) {
        let mut s = self.lock();
        for (ImageId(slot), r) in results {
            if let Some(place) = s.slots.get_mut(slot) {
                *place = Some(r);
            }
        }
        s.in_flight -= 1;
        self.changed.notify_all();
    }
}

/// Marks a job finished even when it unwinds.
struct JobGuard {
    inner: Arc<Inner>,
    results: Vec<(ImageId, Result<ImageFile, String>)>,
}

impl Drop for JobGuard {
    fn drop(&mut self) {
        self.inner.done(std::mem::take(&mut self.results));
    }
}

/// The images of one site (see the module documentation).
pub struct ImageStore {
    inner: Arc<Inner>,
}

/// Every image of a finished store.
#[derive(Debug)]
pub struct Images {
    slots: Vec<Option<Result<ImageFile, String>>>,
    /// Distinct files written.
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
}

impl Images {
    /// The file of `id`, or why there is none.
    pub fn get(&self, id: ImageId) -> Result<&ImageFile, &str> {
        match self.slots.get(id.0) {
            Some(Some(Ok(f))) => Ok(f),
            Some(Some(Err(e))) => Err(e),
            _ => Err("the image was not produced"),
        }
    }

    /// The first write error, if any.
    pub fn first_error(&self) -> Option<&str> {
        self.slots.iter().find_map(|s| match s {
            Some(Err(e)) => Some(e.as_str()),
            _ => None,
        })
    }
}

impl ImageStore {
    /// A store writing into `dir` (which must exist).
    pub fn new(dir: PathBuf) -> ImageStore {
        ImageStore {
            inner: Arc::new(Inner {
                dir,
                shared: Mutex::new(Shared::default()),
                changed: Condvar::new(),
                limit: rayon::current_num_threads().max(1) * JOBS_PER_THREAD,
            }),
        }
    }

    /// `n` new image slots.
    pub fn reserve(&self, n: usize) -> Vec<ImageId> {
        let mut s = self.inner.lock();
        let first = s.slots.len();
        s.slots.resize(first + n, None);
        (first..first + n).map(ImageId).collect()
    }

    /// Run `work` on the pool and store the images it produces; waits while the most jobs
    /// are in flight. Slots `work` leaves unfilled read as "not produced".
    pub fn submit(&self, work: impl FnOnce() -> Vec<Produced> + Send + 'static) {
        {
            let mut s = self.inner.lock();
            while s.in_flight >= self.inner.limit {
                s = self
                    .inner
                    .changed
                    .wait(s)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            s.in_flight += 1;
        }
        let inner = self.inner.clone();
        rayon::spawn(move || {
            let mut guard = JobGuard {
                inner: inner.clone(),
                results: Vec::new(),
            };
            for (id, image, channels) in work() {
                guard.results.push((id, inner.store(&image, channels)));
            }
        });
    }

    /// Wait for every job and hand back the files.
    pub fn finish(self) -> Images {
        let mut s = self.inner.lock();
        while s.in_flight > 0 {
            s = self
                .inner
                .changed
                .wait(s)
                .unwrap_or_else(PoisonError::into_inner);
        }
        Images {
            slots: std::mem::take(&mut s.slots),
            files: s.written.len(),
            bytes: s.bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(w: u32, h: u32, v: u8) -> Rgba8Image {
        Rgba8Image::filled(w, h, [v, v, v, 255])
    }

    #[test]
    fn equal_pixels_share_one_file_and_every_slot_is_filled() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = ImageStore::new(dir.path().to_path_buf());
        let mut all = Vec::new();
        for k in 0..20u8 {
            let ids = store.reserve(2);
            all.push((ids[0], ids[1], k % 4));
            let (a, b) = (ids[0], ids[1]);
            store.submit(move || {
                vec![
                    (a, filled(4, 4, k % 4), Channels::Rgb),
                    (b, filled(2, 2, 9), Channels::Rgba),
                ]
            });
        }
        let unfilled = store.reserve(1)[0];
        let images = store.finish();
        assert_eq!(images.files, 5, "four greys and one shared small image");
        let on_disk = std::fs::read_dir(dir.path()).expect("dir").count();
        assert_eq!(on_disk, 5);
        for (a, b, grey) in all {
            let fa = images.get(a).expect("written");
            assert_eq!((fa.width, fa.height), (4, 4));
            assert!(dir.path().join(&fa.name).is_file());
            let same = all_names_for(&images, grey);
            assert_eq!(fa.name, same);
            assert_eq!(images.get(b).expect("written").width, 2);
        }
        assert!(images.get(unfilled).is_err());
        assert!(images.first_error().is_none());
    }

    fn all_names_for(images: &Images, grey: u8) -> String {
        let png = encode_png(&filled(4, 4, grey), Channels::Rgb).expect("encode");
        let name = format!("{:032x}.png", xxh3_128(&png));
        assert!(images
            .slots
            .iter()
            .flatten()
            .flatten()
            .any(|f| f.name == name));
        name
    }

    #[test]
    fn a_failed_write_is_reported() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = ImageStore::new(dir.path().join("missing"));
        let id = store.reserve(1)[0];
        store.submit(move || vec![(id, filled(1, 1, 0), Channels::Rgb)]);
        let images = store.finish();
        assert!(images.get(id).is_err());
        assert!(images.first_error().is_some());
    }
}
