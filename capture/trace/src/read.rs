//! Reading a trace: [`Trace`] owns the bytes (a memory map or an aligned copy) and checks the
//! header when opened; [`TraceView`] is one walk over the message with its own traversal budget,
//! handing out commands and data blobs that borrow the bytes.

use std::fs::File;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use capnp::message::{Reader, ReaderOptions};
use capnp::serialize::BufferSegments;
use rsxtrace_rrc::{Capture, Provenance};

use crate::error::Context;
use crate::framing::{check_header, Header, FORMAT_MAJOR, MAGIC};
use crate::storage::Backing;
use crate::trace_capnp::trace;
use crate::TraceError;

/// Traversal budget of one [`TraceView`], as a multiple of the message size in words.
///
/// Cap'n Proto charges each struct or list against the budget when its pointer is followed, so a
/// full walk of a well-formed trace costs about one message size. Two message sizes let one view
/// walk everything twice (or once plus some random access), while a hostile message whose
/// pointers alias each other cannot make a walk cost more than twice its size.
const TRAVERSAL_FACTOR: u64 = 2;

/// Slack added to the traversal budget (words), for tiny messages.
const TRAVERSAL_SLACK: u64 = 4096;

/// Nesting limit: the schema nests at most 4 levels deep (Trace > list > entry > list > struct).
const NESTING_LIMIT: i32 = 16;

/// An open trace file: memory-mapped (or copied into aligned memory) and header-checked.
///
/// Opening costs O(1): the magic, the segment table (against the file length) and the format
/// version in the root struct are checked, nothing else. Every other problem is reported by the
/// walk that meets it. Cloning is cheap (the bytes are shared).
#[derive(Clone)]
pub struct Trace {
    backing: Arc<Backing>,
    header: Header,
    minor: u32,
}

impl std::fmt::Debug for Trace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trace")
            .field("bytes", &self.as_bytes().len())
            .field("message_words", &self.header.total_words)
            .field("version", &(FORMAT_MAJOR, self.minor))
            .finish()
    }
}

impl Trace {
    /// Memory-map the trace file at `path` and check its header.
    ///
    /// The file must not be modified while the returned `Trace` (or any `Bytes` handed out by
    /// [`Trace::to_capture`]) is alive: the map is read in place.
    pub fn open(path: impl AsRef<Path>) -> Result<Trace, TraceError> {
        let path = path.as_ref();
        let open_err = |source| TraceError::Open {
            path: path.to_path_buf(),
            source,
        };
        let file = File::open(path).map_err(open_err)?;
        let len = file.metadata().map_err(open_err)?.len();
        let backing = if len == 0 {
            Backing::copy_of(&[])
        } else {
            // SAFETY: the map is read-only and private to this process; the documented contract
            // is that trace files are not modified while open. Every read goes through bounds
            // checked capnp readers, so a file of any content cannot cause an out-of-bounds read.
            let map = unsafe { memmap2::Mmap::map(&file) }.map_err(open_err)?;
            Backing::Map(map)
        };
        Trace::from_backing(backing)
    }

    /// Read a trace held in memory (the bytes are copied once into 8-byte aligned storage).
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Trace, TraceError> {
        Trace::from_backing(Backing::copy_of(&bytes))
    }

    fn from_backing(backing: Backing) -> Result<Trace, TraceError> {
        let header = check_header(backing.bytes())?;
        let mut trace = Trace {
            backing: Arc::new(backing),
            header,
            minor: 0,
        };
        let view = trace.view()?;
        let root = view.root()?;
        let (major, minor) = (root.get_major_version(), root.get_minor_version());
        if major != FORMAT_MAJOR {
            return Err(TraceError::UnsupportedVersion {
                major,
                minor,
                known: FORMAT_MAJOR,
            });
        }
        drop(view);
        trace.minor = minor;
        Ok(trace)
    }

    /// The whole file, magic included.
    pub fn as_bytes(&self) -> &[u8] {
        self.backing.bytes()
    }

    /// The format version recorded in the file: (major, minor). Major is always
    /// [`FORMAT_MAJOR`]; a larger minor means fields this reader does not know were appended.
    pub fn format_version(&self) -> (u32, u32) {
        (FORMAT_MAJOR, self.minor)
    }

    /// Start a walk over the message: a reader with a fresh traversal budget of about two
    /// message sizes (see [`TraceView`]). Cheap: O(number of segments).
    pub fn view(&self) -> Result<TraceView<'_>, TraceError> {
        let words = self.header.total_words;
        let limit = words
            .saturating_mul(TRAVERSAL_FACTOR)
            .saturating_add(TRAVERSAL_SLACK);
        let mut options = ReaderOptions::new();
        options
            .traversal_limit_in_words(Some(usize::try_from(limit).unwrap_or(usize::MAX)))
            .nesting_limit(NESTING_LIMIT);
        let message_bytes = self.as_bytes().get(MAGIC.len()..).unwrap_or(&[]);
        let segments = BufferSegments::new(message_bytes, options)
            .field(|| format!("message framing at byte {}", MAGIC.len()))?;
        Ok(TraceView {
            trace: self,
            message: Reader::new(segments, options),
        })
    }

    /// Number of replay commands (reads the root and the command list pointer only).
    pub fn command_count(&self) -> Result<u32, TraceError> {
        self.view()?.command_count()
    }

    /// Rebuild the in-memory capture. The data blobs are slices of this trace's bytes (no copy);
    /// they keep the map alive after the `Trace` is dropped.
    pub fn to_capture(&self) -> Result<Capture, TraceError> {
        self.view()?.to_capture()
    }

    pub(crate) fn backing(&self) -> &Arc<Backing> {
        &self.backing
    }

    pub(crate) fn total_words(&self) -> u64 {
        self.header.total_words
    }
}

/// One walk over a trace message.
///
/// Each view has its own traversal budget of about twice the message size (Cap'n Proto's
/// protection against messages whose pointers alias): enough to walk everything twice. Take a
/// new view from [`Trace::view`] for each further walk; it is cheap. Accessors that return lists
/// charge the whole list each time they are called, so call them once per walk.
pub struct TraceView<'t> {
    trace: &'t Trace,
    message: Reader<BufferSegments<&'t [u8]>>,
}

/// One replay command, read in place.
#[derive(Clone, Copy)]
pub struct CommandRef<'a> {
    /// Position in the command list.
    pub index: u32,
    /// FIFO header word, or 0 for a batched continuation argument.
    pub first: u32,
    /// The argument value.
    pub second: u32,
    /// 0 = no change, else a tile-state id.
    pub tile_state: u64,
    /// 0 = no change, else a display-buffers id.
    pub display_buffer_state: u64,
    /// Ids of the attached memory blocks, in file order.
    pub memory: capnp::primitive_list::Reader<'a, u64>,
}

/// One memory data blob, read in place.
#[derive(Clone, Copy, Debug)]
pub struct DataRef<'a> {
    /// Position in the data list.
    pub index: u32,
    /// The id memory blocks refer to.
    pub id: u64,
    /// The raw guest bytes (big-endian data), borrowed from the trace.
    pub bytes: &'a [u8],
}

impl<'t> TraceView<'t> {
    /// The generated root reader, for fields this crate has no accessor for.
    pub fn root(&self) -> Result<trace::Reader<'_>, TraceError> {
        self.message.get_root::<trace::Reader>().field(|| "root")
    }

    /// The trace this view walks.
    pub fn trace(&self) -> &'t Trace {
        self.trace
    }

    /// Where the source capture came from.
    pub fn provenance(&self) -> Result<Provenance, TraceError> {
        crate::convert::provenance(self.root()?)
    }

    /// Number of replay commands.
    pub fn command_count(&self) -> Result<u32, TraceError> {
        let commands = self.root()?.get_commands().field(|| "commands")?;
        Ok(commands.len())
    }

    /// The replay commands in file order. Each item is an error if that command's memory list
    /// cannot be read.
    pub fn commands(
        &self,
    ) -> Result<impl ExactSizeIterator<Item = Result<CommandRef<'_>, TraceError>> + '_, TraceError>
    {
        let list = self.root()?.get_commands().field(|| "commands")?;
        crate::convert::check_struct_list("commands", list.len(), self.trace.total_words())?;
        Ok((0..list.len()).zip(list.iter()).map(|(index, c)| {
            Ok(CommandRef {
                index,
                first: c.get_first(),
                second: c.get_second(),
                tile_state: c.get_tile_state(),
                display_buffer_state: c.get_display_buffer_state(),
                memory: c
                    .get_memory()
                    .field(|| format!("commands[{index}].memory"))?,
            })
        }))
    }

    /// The memory data blobs in file order, borrowed from the trace bytes.
    pub fn data(
        &self,
    ) -> Result<impl ExactSizeIterator<Item = Result<DataRef<'_>, TraceError>> + '_, TraceError>
    {
        let list = self.root()?.get_data().field(|| "data")?;
        crate::convert::check_struct_list("data", list.len(), self.trace.total_words())?;
        Ok((0..list.len()).zip(list.iter()).map(|(index, d)| {
            Ok(DataRef {
                index,
                id: d.get_id(),
                bytes: d.get_bytes().field(|| format!("data[{index}].bytes"))?,
            })
        }))
    }

    /// Where `bytes` (a slice handed out by this view) lies in the trace file, or `None` if it
    /// is not inside it (an empty blob read from a null pointer).
    pub fn file_range(&self, bytes: &[u8]) -> Option<Range<usize>> {
        let file = self.trace.as_bytes();
        let start = (bytes.as_ptr() as usize).checked_sub(file.as_ptr() as usize)?;
        let end = start.checked_add(bytes.len())?;
        (end <= file.len()).then_some(start..end)
    }

    /// Rebuild the in-memory capture (see [`Trace::to_capture`]).
    pub fn to_capture(&self) -> Result<Capture, TraceError> {
        crate::convert::to_capture(self)
    }
}
